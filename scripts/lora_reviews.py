"""LoRA 与全部微调、线性探针在真实评论情感分类上的比较（同样的数据、步数、批大小）。

- 数据与训练设置全部取自 nlpbook/records/finetune_reviews.json（scripts/finetune_reviews.py）：
  同样的 1,000 条训练子集、同样两份互不相交的验证评论（挑设置的 600 条、报告用的 600 条，
  finetune_reviews.split_validation）、前 64 个字、同样的步数与批大小；全部微调与线性探针的数字
  （连同它们在报告用的 600 条上的逐条结果）直接取自那条记录，种子也相同（1、2、3）。
- LoRA（nlpbook.lora.train_lora）：注意力的 Wq、Wk、Wv、Wo 上各加一对 A、B，只训练它们与分类头。
  小扫描：r ∈ {1, 4, 16} × α ∈ {r, 4r}（学习率 3e-3；α/r 相当于 LoRA 部分的学习率倍数），用种子 0 在
  **挑设置的 600 条**上按最终准确率选一组；再用**新的种子** 1、2、3 在**报告用的 600 条**上跑选中的那组。
  扫描的每一组都存下逐条结果（sweep_items_seed0），可以用 compare 看选中的与第二名分不分得开。
写出 nlpbook/records/lora_reviews.json。
运行：OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 .venv/bin/python scripts/lora_reviews.py
（约四分钟 CPU，分到 2 个进程）
"""
from __future__ import annotations

import functools
import importlib.util
import time
from pathlib import Path

import numpy as np

from nlpbook import finetune as F
from nlpbook.compare import pack_correct
from nlpbook.datasets import load_reviews
from nlpbook.lora import count_trainable, init_lora, merge, train_lora
from nlpbook.spread import curve_metrics, load_record, per_seed, record_path, write_record
from nlpbook.tiny_transformer import load_pretrained

BASE = load_record(record_path("finetune_reviews"))
S = BASE["settings"]
SWEEP = [(r, a) for r in (1, 4, 16) for a in (r, 4 * r)]
LR = 3e-3
SEEDS = tuple(BASE["seeds"])          # 报告用的种子，与 finetune_reviews 相同
SELECT_SEED = S["select_seed"]
WORKERS = 2


def _finetune_script():
    """scripts/finetune_reviews.py（取它的 split_validation，保证两条记录用同样的两份验证评论）。"""
    path = Path(__file__).resolve().parent / "finetune_reviews.py"
    spec = importlib.util.spec_from_file_location("_finetune_reviews", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_data():
    """(lm, train, val)：val = {'select': 三元组, 'report': 三元组}，与 finetune_reviews 的划分相同。"""
    lm = load_pretrained()
    d = load_reviews(tokenize=False)
    sub = F.fixed_subset(len(d["train"]), S["train_subset"], S["subset_seed"])
    splits = _finetune_script().split_validation(len(d["validation"]), S)
    val = {k: F.encode_reviews([d["validation"][i] for i in idx], lm.encode, S["max_len"]) for k, idx in splits.items()}
    return lm, F.encode_reviews([d["train"][i] for i in sub], lm.encode, S["max_len"]), val


@functools.cache
def _data():
    """每个进程只读一次数据（主进程先读好，fork 出的子进程直接继承）。"""
    return load_data()


def run(r: int, alpha: float, seed: int, split: str = "report"):
    """一次 LoRA 训练；返回 ((r, alpha, seed), 学习曲线, 最后一步在 split 上逐条答对与否（0/1）, CPU 秒数)。"""
    c0 = time.process_time()
    lm, train, val = _data()
    ad, head, hist = train_lora(lm.params, train, val[split], r=r, alpha=alpha, steps=S["steps"],
                                batch_size=S["batch_size"], lr=LR, seed=seed, eval_at=S["eval_at"], clip=S["clip"])
    Xv, nv, yv = val[split]
    z = F.extract_features(merge(lm.params, ad), Xv, nv) @ head["w_cls"].astype(np.float64) + float(head["b_cls"][0])
    correct = ((z >= 0) == (yv == 1)).astype(np.int8)
    if float(np.mean(correct)) != hist[-1]["val_acc"]:
        raise RuntimeError(f"r={r} α={alpha} 种子 {seed}：逐条结果的均值与训练时的评估不同")
    return (r, alpha, seed), hist, correct, time.process_time() - c0


def curve_summary(curve: list) -> dict:
    """一条学习曲线 → 一个种子的指标：val_acc@每个评测步，final（= 最后一步的 val_acc）。"""
    res = curve_metrics(curve, ["val_acc"])
    return {**res, "final": res[f"val_acc@{S['steps']}"]}


def _run(args):
    key, hist, correct, sec = run(*args)
    return key, hist, pack_correct(correct), sec


def main(workers: int = WORKERS):
    from multiprocessing import Pool
    c0 = time.process_time()
    lm = _data()[0]
    sweep, report, child = {}, {}, 0.0
    with Pool(workers) as pool:
        for key, hist, packed, sec in pool.imap_unordered(_run, [(r, a, SELECT_SEED, "select") for r, a in SWEEP]):
            sweep[key[:2]], child = (hist, packed), child + sec
            print("挑选", key, round(hist[-1]["val_acc"], 4), flush=True)
        ranked = sorted(SWEEP, key=lambda ra: -sweep[ra][0][-1]["val_acc"])     # 并列时保持 SWEEP 的顺序
        best, runner_up = ranked[0], ranked[1]
        for key, hist, packed, sec in pool.imap_unordered(_run, [(*best, s, "report") for s in SEEDS]):
            report[key[2]], child = (hist, packed), child + sec
            print("报告", key, round(hist[-1]["val_acc"], 4), flush=True)
    results = {"lora": per_seed(curve_summary(report[s][0]) for s in SEEDS)}
    results |= {k: {m: list(sp.values) for m, sp in BASE["results"][k].items()} for k in ("full", "probe")}
    items = {"lora": {"final": [report[s][1] for s in SEEDS]}}
    items |= {k: {"final": list(S["items"][k]["final"])} for k in ("full", "probe")}
    counts = {f"r={r}": count_trainable(lm.params, init_lora(lm.params, np.random.default_rng(0), r=r))["lora"]
              for r in (1, 4, 16)}
    counts.update({k: v for k, v in count_trainable(lm.params).items()})
    name = lambda ra: f"r={ra[0]},alpha={ra[1]:g}"      # noqa: E731
    settings = {"from_record": "finetune_reviews", "steps": S["steps"], "batch_size": S["batch_size"],
                "train_subset": S["train_subset"], "val_subset": S["val_subset"], "select_subset": S["select_subset"],
                "select_seed": SELECT_SEED, "max_len": S["max_len"], "eval_at": S["eval_at"], "clip": S["clip"],
                "lr": LR, "targets": ["Wq", "Wk", "Wv", "Wo"],
                "sweep_seed0": {name(ra): sweep[ra][0][-1]["val_acc"] for ra in SWEEP},
                "sweep_items_seed0": {name(ra): sweep[ra][1] for ra in SWEEP},
                "chosen": {"r": best[0], "alpha": best[1]}, "runner_up": {"r": runner_up[0], "alpha": runner_up[1]},
                "items": items, "trainable_params": counts}
    rec = write_record("lora_reviews", settings=settings, seeds=SEEDS, results=results, cpu_start=c0, extra_cpu=child)
    print("选中", name(best), "第二", name(runner_up))
    for m, r in rec["results"].items():
        print(m, np.round(r["final"], 4).tolist())


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
