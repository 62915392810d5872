"""第 15.6 节的实验：预训练的小 Transformer 在真实评论情感分类上，三种方式、同样的训练预算。

- 数据：load_reviews(tokenize=False) 的清洗划分；训练集里按固定种子抽 1,000 条（“标注不多”的情形，也控制用时），
  验证集里固定抽 600 条；每条评论只读前 64 个字（随包模型的 max_len）。
- 三种方式（train_classifier）：scratch（同一结构随机初始化）、probe（冻结主体 + 逻辑回归）、full（全部微调）；
  同样 100 步、每批 16 条。学习率：每种方式在一个两三个值的小网格上用种子 0 的最终验证准确率选，再跑 3 个种子。
- 对照：第 18 章的 TF-IDF 逻辑回归（jieba 分词、lr 0.05、10 轮、每批 64），用全部训练集与同样的 1,000 条各训练一次（3 个种子），在同样的 600 条验证评论上评价。
写出 nlpbook/records/finetune_reviews.json（设置、种子、每个种子的学习曲线与最终值、CPU 时间）。
运行：.venv/bin/python scripts/finetune_reviews.py（约五分钟 CPU 时间；各次训练分到 4 个进程里并行）
"""
from __future__ import annotations

import time

import numpy as np

from nlpbook import finetune as F
from nlpbook.datasets import jieba_cut, load_reviews
from nlpbook.linear import fit
from nlpbook.sparse import CountMatrix
from nlpbook.spread import curve_metrics, per_seed, write_record
from nlpbook.text import Vocab, idf
from nlpbook.tiny_transformer import load_pretrained

SETTINGS = {"train_subset": 1000, "val_subset": 600, "subset_seed": 0, "max_len": 64, "steps": 100, "batch_size": 16,
            "clip": 1.0, "eval_at": [25, 50, 100],
            "lr_grid": {"scratch": [1e-3, 3e-3], "probe": [3e-3, 1e-2, 3e-2], "full": [3e-4, 1e-3]},
            "tfidf": {"lr": 0.05, "epochs": 10, "batch_size": 64}}
SEEDS = (0, 1, 2)


def load_data(settings=SETTINGS):
    """(lm, train, val)：train、val 是 encode_reviews 的三元组；train 是固定的子集。"""
    lm = load_pretrained()
    d = load_reviews(tokenize=False)
    sub = F.fixed_subset(len(d["train"]), settings["train_subset"], settings["subset_seed"])
    train = F.encode_reviews([d["train"][i] for i in sub], lm.encode, settings["max_len"])
    vsub = F.fixed_subset(len(d["validation"]), settings["val_subset"], settings["subset_seed"])
    val = F.encode_reviews([d["validation"][i] for i in vsub], lm.encode, settings["max_len"])
    return lm, train, val, d, sub


def run(lm, train, val, regime: str, lr: float, seed: int, settings=SETTINGS) -> list:
    """一次训练 → 学习曲线 [{'step', 'loss', 'val_acc'}, ...]。"""
    _, _, hist = F.train_classifier(lm.params, train, val, regime=regime, steps=settings["steps"],
                                    batch_size=settings["batch_size"], lr=lr, seed=seed,
                                    eval_at=settings["eval_at"], clip=settings["clip"])
    return hist


def tfidf_runs(d, sub, seeds, settings=SETTINGS) -> dict:
    """第 18 章的 TF-IDF 逻辑回归：全部训练集与同一子集，每个种子一个验证准确率。"""
    vsub = F.fixed_subset(len(d["validation"]), settings["val_subset"], settings["subset_seed"])
    rows_of = {"train": d["train"], "validation": [d["validation"][i] for i in vsub]}
    toks = {k: [jieba_cut(r.text) for r in rows] for k, rows in rows_of.items()}
    y = {k: np.array([r.label for r in rows]) for k, rows in rows_of.items()}
    out = {}
    for name, rows in (("tfidf_full", np.arange(len(toks["train"]))), ("tfidf_subset", sub)):
        docs = [toks["train"][i] for i in rows]
        vocab, table = Vocab.build(docs, min_count=2), idf(docs)
        X, Xv = CountMatrix.from_docs(docs, vocab, weights=table), CountMatrix.from_docs(toks["validation"], vocab, weights=table)
        t = settings["tfidf"]
        out[name] = [float(np.mean(fit(X, y["train"][rows], lr=t["lr"], epochs=t["epochs"], batch_size=t["batch_size"],
                                       seed=s).predict(Xv) == y["validation"])) for s in seeds]
    return out


def curve_summary(curve: list, steps: int) -> dict:
    """一条学习曲线 → 一个种子的指标：val_acc@每个评测步、final（= 第 steps 步的 val_acc）、最后一行的 train_loss@steps。"""
    res = curve_metrics(curve, ["val_acc"])
    return {**res, "final": res[f"val_acc@{steps}"], f"train_loss@{steps}": curve[-1]["loss"]}


def _job(args):
    """子进程里跑一次；返回 (键, 学习曲线或 TF-IDF 结果, 本次的 CPU 秒数)。"""
    kind, regime, lr, seed = args
    c0 = time.process_time()
    lm, train, val, d, sub = load_data()
    out = tfidf_runs(d, sub, SEEDS) if kind == "tfidf" else run(lm, train, val, regime, lr, seed)
    return args, out, time.process_time() - c0


def main(workers: int = 4):
    from multiprocessing import Pool
    c0 = time.process_time()
    lm, train, val, d, sub = load_data()
    lengths_all = np.array([len(r.text) for r in d["train"]])
    jobs = [("tfidf", None, None, None)] + [("run", r, lr, 0) for r in F.REGIMES for lr in SETTINGS["lr_grid"][r]]
    grid, curves, cpu, child_cpu = {r: {} for r in F.REGIMES}, {}, {r: 0.0 for r in F.REGIMES}, 0.0
    with Pool(workers) as pool:
        for (kind, regime, lr, seed), out, sec in pool.imap_unordered(_job, jobs):
            child_cpu += sec
            if kind == "tfidf":
                tfidf, cpu["tfidf"] = out, round(sec, 1)
                continue
            grid[regime][str(lr)], curves[(regime, lr, seed)] = out[-1]["val_acc"], out
            cpu[regime] += sec
            print(regime, lr, seed, round(out[-1]["val_acc"], 4), flush=True)
        for r in F.REGIMES:
            grid[r]["chosen"] = max(SETTINGS["lr_grid"][r], key=lambda v: grid[r][str(v)])
        jobs = [("run", r, grid[r]["chosen"], s) for r in F.REGIMES for s in SEEDS[1:]]
        for (kind, regime, lr, seed), out, sec in pool.imap_unordered(_job, jobs):
            child_cpu += sec
            curves[(regime, lr, seed)] = out
            cpu[regime] += sec
            print(regime, lr, seed, round(out[-1]["val_acc"], 4), flush=True)
    results = {r: per_seed(curve_summary(curves[(r, grid[r]["chosen"], s)], SETTINGS["steps"]) for s in SEEDS)
               for r in F.REGIMES}
    results.update({k: {"final": v} for k, v in tfidf.items()})
    settings = dict(SETTINGS, lr_search_seed0=grid, cpu_seconds_by_method={k: round(v, 1) for k, v in cpu.items()},
                    n_train_full=len(d["train"]), n_val_full=len(d["validation"]),
                    frac_train_longer_than_max_len=round(float(np.mean(lengths_all > SETTINGS["max_len"])), 4))
    rec = write_record("finetune_reviews", settings=settings, seeds=SEEDS, results=results, cpu_start=c0,
                       extra_cpu=child_cpu)
    for m, r in rec["results"].items():
        print(m, np.round(r["final"], 4).tolist())


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
