"""训练随包附带的字符级小 Transformer，存成 nlpbook/weights/tiny_transformer_reviews.npz（可复现：固定 seed）。

  python scripts/train_tiny_transformer.py                    # 默认设置：单核几分钟
  taskset -c 0 python scripts/train_tiny_transformer.py       # 绑到一个核上测时间
  python scripts/train_tiny_transformer.py --steps 20 --out /tmp/t.npz   # 快速检查脚本能跑

数据：nlpbook.datasets 的真实评论 → clean_reviews → split_reviews；训练集各条评论用换行连成一段
（开头、结尾也各加一个换行），字表取训练集出现 ≥ 3 次的字，其余合并为一个 <UNK>（与 charlm.CharNGramLM
的字表完全相同，所以困惑度可以直接和一元、二元、三元字模型比）。验证集用来算留出困惑度。
文件里同时存了词表、config 和 meta：训练设置、用时（墙钟与 CPU）、训练中的验证困惑度曲线、对照模型的困惑度、
几段贪心与采样的续写。
进程自己设置 glibc 的 malloc 参数（留住释放的大块内存），在单核上约快 20%。
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __name__ == "__main__" and "MALLOC_MMAP_THRESHOLD_" not in os.environ:  # 必须在进程启动时设置，所以重启自己
    os.environ.update(MALLOC_TRIM_THRESHOLD_=str(1 << 30), MALLOC_MMAP_THRESHOLD_=str(1 << 30))
    os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np  # noqa: E402

from nlpbook.charlm import CharNGramLM  # noqa: E402
from nlpbook.datasets import clean_reviews, load_raw_reviews, split_reviews  # noqa: E402
from nlpbook.decoding import generate  # noqa: E402
from nlpbook.tiny_transformer import WEIGHTS, load_lm, save_lm, train_lm  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "nlpbook" / "weights" / WEIGHTS
MIN_COUNT = 3
CONFIG = dict(d_model=128, n_layers=2, n_heads=4, d_ff=512, positions="learned", tie=False, activation="gelu",
              steps=1500, batch_size=32, seq_len=64, lr=3e-3, warmup=100, min_lr_ratio=0.1, weight_decay=0.01,
              clip=1.0, beta2=0.99, seed=0)
EVAL_AT = (25, 50, 100, 200, 400, 700, 1000)
PROMPTS = ("这本书", "酒店的", "手机", "不推荐")


def load_data(min_count: int = MIN_COUNT, max_val: int | None = None) -> dict:
    """真实评论的训练/验证文本、字表（与 CharNGramLM 相同）与编号序列。max_val：只用前几条验证评论（快速检查用）。"""
    cleaned, _ = clean_reviews(load_raw_reviews())
    split = split_reviews(cleaned)
    train = [r.text for r in split["train"]]
    val = [r.text for r in split["validation"]][:max_val]
    unigram = CharNGramLM(n=1, min_count=min_count).fit(train)
    return {"train": train, "val": val, "vocab": unigram.vocab, "unigram": unigram,
            "train_ids": np.array(unigram.encode("\n" + "\n".join(train) + "\n"), dtype=np.int32),
            "val_ids": np.array(unigram.encode("\n" + "\n".join(val) + "\n"), dtype=np.int32)}


def baselines(data: dict, orders=(1, 2, 3)) -> dict:
    """同一字表上 n 元字模型（Witten-Bell 插值）的验证集困惑度，作对照。"""
    out = {}
    for n in orders:
        m = data["unigram"] if n == 1 else CharNGramLM(n=n, min_count=MIN_COUNT).fit(data["train"])
        out[f"{n}-gram"] = m.perplexity(data["val"])
    return out


def continuations(model, prompts=PROMPTS, max_new: int = 40, seed: int = 0) -> list[dict]:
    """每个开头：贪心续写一段、按温度 0.8 采样一段（遇到换行即一条评论结束）。"""
    rng = np.random.default_rng(seed)
    out = []
    for p in prompts:
        ids = model.encode("\n" + p)
        greedy = generate(model.next_logits, ids, max_new, temperature=0, eos_id=0)
        sampled = generate(model.next_logits, ids, max_new, temperature=0.8, rng=rng, eos_id=0)
        out.append({"prompt": p, "greedy": model.decode(greedy[len(ids):]).rstrip("\n"),
                    "sampled": model.decode(sampled[len(ids):]).rstrip("\n")})
    return out


def train(out=DEFAULT_OUT, log=print, with_baselines: bool = True, eval_at=EVAL_AT, max_val: int | None = None,
          **overrides) -> dict:
    """按 CONFIG（可用关键字覆盖）训练、评估、保存；返回写进文件的 meta。"""
    cfg = dict(CONFIG, **overrides)
    data = load_data(max_val=max_val)
    log(f"训练集 {len(data['train'])} 条、{len(data['train_ids']):,} 字；验证集 {len(data['val'])} 条、"
        f"{len(data['val_ids']):,} 字；字表 {len(data['vocab'])}（出现 ≥ {MIN_COUNT} 次，其余为 <UNK>）")
    log(f"设置：{cfg}")
    wall, cpu = time.perf_counter(), time.process_time()
    params, history = train_lm(data["train_ids"], len(data["vocab"]), val_ids=data["val_ids"],
                               eval_every=[e for e in eval_at if e < cfg["steps"]],
                               progress=sys.stderr.isatty(), **cfg)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    curve = [[h["step"], round(h["seconds"], 2), round(h["cpu_seconds"], 2), round(h["val_ppl"], 2)]
             for h in history if "val_ppl" in h]
    for step, sec, csec, ppl in curve:
        log(f"  第 {step:5d} 步，训练 {sec:7.1f} s（CPU {csec:6.1f} s）：验证集困惑度 {ppl:.1f}")
    last = history[-1]
    meta = {"config": cfg, "steps_done": len(history), "train_seconds": round(last["seconds"], 1),
            "train_cpu_seconds": round(last["cpu_seconds"], 1), "wall_seconds_with_evals": round(wall, 1),
            "cpu_seconds_with_evals": round(cpu, 1), "load_average_at_end": round(os.getloadavg()[0], 2),
            "val_ppl_float32": round(last["val_ppl"], 2),
            "val_curve_columns": ["step", "seconds", "cpu_seconds", "val_ppl"], "val_curve": curve,
            "loss_curve_columns": ["step", "seconds", "cpu_seconds", "loss"],
            "loss_curve": [[h["step"], round(h["seconds"], 2), round(h["cpu_seconds"], 2), round(h["loss"], 4)]
                           for h in history[::10]],
            "data": {"train_chars": int(len(data["train_ids"])), "val_chars": int(len(data["val_ids"])),
                     "vocab_size": len(data["vocab"]), "min_count": MIN_COUNT},
            "numpy": np.__version__}
    if with_baselines:
        meta["baselines_val_ppl"] = {k: round(v, 2) for k, v in baselines(data).items()}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_lm(out, params, data["vocab"], meta)
    model = load_lm(out)  # 用存下来的 float16 权重再评估一次，并生成样例
    meta["val_ppl"] = round(model.perplexity(data["val"]), 2)
    meta["samples"] = continuations(model)
    save_lm(out, params, data["vocab"], meta)
    log(f"训练 {meta['train_seconds']} s（CPU {meta['train_cpu_seconds']} s；含评估：墙钟 "
        f"{meta['wall_seconds_with_evals']} s，CPU {meta['cpu_seconds_with_evals']} s；结束时系统负载 "
        f"{meta['load_average_at_end']}）；验证集困惑度 {meta['val_ppl']}（float16 存储后），"
        f"float32 时 {meta['val_ppl_float32']}")
    if with_baselines:
        log(f"对照（同一字表）：{meta['baselines_val_ppl']}")
    log(f"已保存 {out}（{out.stat().st_size / 1e6:.2f} MB）")
    for s in meta["samples"]:
        log(f"  「{s['prompt']}」贪心：{s['greedy']!r}；采样：{s['sampled']!r}")
    return meta


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=CONFIG["steps"])
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--max-val", type=int, default=None, help="只用前几条验证评论（快速检查用）")
    a = ap.parse_args(argv)
    train(a.out, with_baselines=not a.no_baselines, max_val=a.max_val, steps=a.steps)


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
