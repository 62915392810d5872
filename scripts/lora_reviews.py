"""LoRA 与全部微调、线性探针在真实评论情感分类上的比较（同样的数据、步数、批大小）。

- 数据与训练设置全部取自 nlpbook/records/finetune_reviews.json（scripts/finetune_reviews.py）：
  同样的 1,000 条训练子集、600 条验证子集、前 64 个字、同样的步数与批大小；全部微调与线性探针的数字也直接取自那条记录。
- LoRA（nlpbook.lora.train_lora）：注意力的 Wq、Wk、Wv、Wo 上各加一对 A、B，只训练它们与分类头。
  小扫描：r ∈ {1, 4, 16} × α ∈ {r, 4r}（种子 0、学习率 3e-3），按验证准确率选一组，再跑种子 1、2。
写出 nlpbook/records/lora_reviews.json。运行：.venv/bin/python scripts/lora_reviews.py（几分钟 CPU，分到 4 个进程）
"""
from __future__ import annotations

import time

import numpy as np

from nlpbook import finetune as F
from nlpbook.datasets import load_reviews
from nlpbook.lora import count_trainable, init_lora, train_lora
from nlpbook.spread import curve_metrics, load_record, per_seed, record_path, write_record
from nlpbook.tiny_transformer import load_pretrained

BASE = load_record(record_path("finetune_reviews"))
S = BASE["settings"]
SWEEP = [(r, a) for r in (1, 4, 16) for a in (r, 4 * r)]
LR = 3e-3
SEEDS = tuple(BASE["seeds"])


def load_data():
    lm = load_pretrained()
    d = load_reviews(tokenize=False)
    sub = F.fixed_subset(len(d["train"]), S["train_subset"], S["subset_seed"])
    vsub = F.fixed_subset(len(d["validation"]), S["val_subset"], S["subset_seed"])
    return (lm, F.encode_reviews([d["train"][i] for i in sub], lm.encode, S["max_len"]),
            F.encode_reviews([d["validation"][i] for i in vsub], lm.encode, S["max_len"]))


def run(r: int, alpha: float, seed: int):
    """一次 LoRA 训练；返回 ((r, alpha, seed), 学习曲线, CPU 秒数)。"""
    c0 = time.process_time()
    lm, train, val = load_data()
    _, _, hist = train_lora(lm.params, train, val, r=r, alpha=alpha, steps=S["steps"], batch_size=S["batch_size"],
                            lr=LR, seed=seed, eval_at=S["eval_at"], clip=S["clip"])
    return (r, alpha, seed), hist, time.process_time() - c0


def curve_summary(curve: list) -> dict:
    """一条学习曲线 → 一个种子的指标：val_acc@每个评测步，final（= 最后一步的 val_acc）。"""
    res = curve_metrics(curve, ["val_acc"])
    return {**res, "final": res[f"val_acc@{S['steps']}"]}


def _run(args):
    return run(*args)


def main(workers: int = 4):
    from multiprocessing import Pool
    c0 = time.process_time()
    lm = load_pretrained()
    curves, child = {}, 0.0
    with Pool(workers) as pool:
        for key, hist, sec in pool.imap_unordered(_run, [(r, a, 0) for r, a in SWEEP]):
            curves[key], child = hist, child + sec
            print(key, round(hist[-1]["val_acc"], 4), flush=True)
        best = max(SWEEP, key=lambda ra: curves[(*ra, 0)][-1]["val_acc"])
        for key, hist, sec in pool.imap_unordered(_run, [(*best, s) for s in SEEDS[1:]]):
            curves[key], child = hist, child + sec
            print(key, round(hist[-1]["val_acc"], 4), flush=True)
    results = {"lora": per_seed(curve_summary(curves[(*best, s)]) for s in SEEDS)}
    results |= {k: {m: list(sp.values) for m, sp in BASE["results"][k].items()} for k in ("full", "probe")}
    counts = {f"r={r}": count_trainable(lm.params, init_lora(lm.params, np.random.default_rng(0), r=r))["lora"]
              for r in (1, 4, 16)}
    counts.update({k: v for k, v in count_trainable(lm.params).items()})
    settings = {"from_record": "finetune_reviews", "steps": S["steps"], "batch_size": S["batch_size"],
                "train_subset": S["train_subset"], "val_subset": S["val_subset"], "max_len": S["max_len"],
                "eval_at": S["eval_at"], "clip": S["clip"], "lr": LR, "targets": ["Wq", "Wk", "Wv", "Wo"],
                "sweep_seed0": {f"r={r},alpha={a:g}": curves[(r, a, 0)][-1]["val_acc"] for r, a in SWEEP},
                "chosen": {"r": best[0], "alpha": best[1]}, "trainable_params": counts}
    rec = write_record("lora_reviews", settings=settings, seeds=SEEDS, results=results, cpu_start=c0, extra_cpu=child)
    for m, r in rec["results"].items():
        print(m, np.round(r["final"], 4).tolist())


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
