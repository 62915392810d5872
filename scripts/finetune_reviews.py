"""第 15.6 节的实验：预训练的小 Transformer 在真实评论情感分类上，三种方式、同样的训练预算。

- 数据：load_reviews(tokenize=False) 的清洗划分；训练集里按固定种子抽 1,000 条（“标注不多”的情形，也控制用时）；
  验证集分成互不相交的两份（split_validation）：报告用的 600 条（fixed_subset(验证集, 600, 0)，与第 15.6 节现场
  运行用的是同一批）和挑设置用的另外 600 条（从其余验证评论里固定抽）。每条评论只读前 64 个字（随包模型的 max_len）。
- 三种方式（train_classifier）：scratch（同一结构随机初始化）、probe（冻结主体 + 逻辑回归）、full（全部微调）；
  同样 100 步、每批 16 条。学习率：每种方式在网格上用种子 0、**挑设置的那 600 条**上的最终准确率选；
  选中的值若在网格边上，就沿 LR_LADDER 往外加一个值再比（最多 MAX_EXTEND 次），记录里写明最后是否仍在边上。
  选定后用**新的种子** 1、2、3（不复用挑选时的那次训练）在**报告用的 600 条**上跑，报告的数字只来自这三次。
- 对照：第 18 章比较过的 TF-IDF 逻辑回归（jieba 分词、固定 lr 0.05、10 轮、每批 64；这里不另调），用全部训练集与同样的 1,000 条，
  种子 1、2、3，在同样报告用的 600 条上评价。
- 逐条结果：每种方式、每个报告种子在报告用的 600 条上“答对与否”（compare.pack_correct）存进
  settings["items"][方法][指标]（指标与 results 同名：val_acc@25、val_acc@50、final），供 compare 配对比较；
  第 25、50 步的逐条结果来自同一种子只训练 25、50 步的运行（学习率不随步数变，它们正是 100 步那次的前 25、50 步，
  脚本核对两者的准确率逐位相同）。挑学习率的运行也存逐条结果（settings["lr_search"][方式]["items"]）。
写出 nlpbook/records/finetune_reviews.json。
运行：OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 .venv/bin/python scripts/finetune_reviews.py
（约十分钟 CPU 时间；各次训练分到 2 个进程里并行）
"""
from __future__ import annotations

import functools
import time

import numpy as np

from nlpbook import finetune as F
from nlpbook.compare import pack_correct
from nlpbook.datasets import jieba_cut, load_reviews
from nlpbook.linear import fit
from nlpbook.sparse import CountMatrix
from nlpbook.spread import curve_metrics, per_seed, write_record
from nlpbook.text import Vocab, idf
from nlpbook.tiny_transformer import load_pretrained

LR_LADDER = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1)
MAX_EXTEND = 2
SETTINGS = {"train_subset": 1000, "val_subset": 600, "select_subset": 600, "subset_seed": 0, "max_len": 64,
            "steps": 100, "batch_size": 16, "clip": 1.0, "eval_at": [25, 50, 100], "select_seed": 0,
            "lr_grid": {"scratch": [1e-3, 3e-3, 1e-2], "probe": [3e-3, 1e-2, 3e-2], "full": [1e-4, 3e-4, 1e-3]},
            "tfidf": {"lr": 0.05, "epochs": 10, "batch_size": 64}}
SEEDS = (1, 2, 3)          # 报告用的种子；挑学习率只用 SETTINGS["select_seed"]
WORKERS = 2


def split_validation(n_val: int, settings=SETTINGS) -> dict:
    """验证集的两份互不相交的下标（都排好序）：'report'（报告用）与 'select'（挑设置用）。

    report = fixed_subset(n_val, val_subset, subset_seed)；select 从其余的下标里按同一个种子固定抽 select_subset 条。
    """
    report = F.fixed_subset(n_val, settings["val_subset"], settings["subset_seed"])
    rest = np.setdiff1d(np.arange(n_val), report)
    select = rest[F.fixed_subset(len(rest), settings["select_subset"], settings["subset_seed"])]
    return {"report": report, "select": select}


def load_data(settings=SETTINGS):
    """(lm, train, val, d, sub)：train 是训练子集的 encode_reviews 三元组；val = {'select': 三元组, 'report': 三元组}。"""
    lm = load_pretrained()
    d = load_reviews(tokenize=False)
    sub = F.fixed_subset(len(d["train"]), settings["train_subset"], settings["subset_seed"])
    train = F.encode_reviews([d["train"][i] for i in sub], lm.encode, settings["max_len"])
    val = {k: F.encode_reviews([d["validation"][i] for i in idx], lm.encode, settings["max_len"])
           for k, idx in split_validation(len(d["validation"]), settings).items()}
    return lm, train, val, d, sub


def correct_on(P, head, val) -> np.ndarray:
    """训练好的 (P, head) 在 val 上逐条答对与否（0/1）：与 train_classifier 评估时的算法相同（logit ≥ 0 判好评）。"""
    Xv, nv, yv = val
    z = F.extract_features(P, Xv, nv) @ head["w_cls"].astype(np.float64) + float(head["b_cls"][0])
    return ((z >= 0) == (np.asarray(yv) == 1)).astype(np.int8)


def run(lm, train, val, regime: str, lr: float, seed: int, steps=None, settings=SETTINGS):
    """一次训练 → (学习曲线 [{'step', 'loss', 'val_acc'}, ...], 最后一步在 val 上的逐条 0/1)。"""
    steps = settings["steps"] if steps is None else steps
    P, head, hist = F.train_classifier(lm.params, train, val, regime=regime, steps=steps,
                                       batch_size=settings["batch_size"], lr=lr, seed=seed,
                                       eval_at=[s for s in settings["eval_at"] if s < steps], clip=settings["clip"])
    correct = correct_on(P, head, val)
    if float(np.mean(correct)) != hist[-1]["val_acc"]:
        raise RuntimeError(f"{regime} lr={lr} 种子 {seed}：逐条结果的均值与训练时的评估不同")
    return hist, correct


def tfidf_runs(d, sub, seeds, settings=SETTINGS) -> dict:
    """TF-IDF 逻辑回归（第 18 章的方法，固定 lr 0.05）：全部训练集与同一子集，每个种子在报告用的验证评论上的准确率与逐条结果。"""
    vsub = split_validation(len(d["validation"]), settings)["report"]
    rows_of = {"train": d["train"], "validation": [d["validation"][i] for i in vsub]}
    toks = {k: [jieba_cut(r.text) for r in rows] for k, rows in rows_of.items()}
    y = {k: np.array([r.label for r in rows]) for k, rows in rows_of.items()}
    out = {}
    for name, rows in (("tfidf_full", np.arange(len(toks["train"]))), ("tfidf_subset", sub)):
        docs = [toks["train"][i] for i in rows]
        vocab, table = Vocab.build(docs, min_count=2), idf(docs)
        X, Xv = CountMatrix.from_docs(docs, vocab, weights=table), CountMatrix.from_docs(toks["validation"], vocab, weights=table)
        t = settings["tfidf"]
        correct = [(fit(X, y["train"][rows], lr=t["lr"], epochs=t["epochs"], batch_size=t["batch_size"], seed=s)
                    .predict(Xv) == y["validation"]).astype(np.int8) for s in seeds]
        out[name] = {"final": [float(np.mean(c)) for c in correct], "correct": [pack_correct(c) for c in correct]}
    return out


def curve_summary(curve: list, steps: int) -> dict:
    """一条学习曲线 → 一个种子的指标：val_acc@每个评测步、final（= 第 steps 步的 val_acc）、最后一行的 train_loss@steps。"""
    res = curve_metrics(curve, ["val_acc"])
    return {**res, "final": res[f"val_acc@{steps}"], f"train_loss@{steps}": curve[-1]["loss"]}


@functools.cache
def _data():
    """每个进程只读一次数据（主进程先读好，fork 出的子进程直接继承）。"""
    return load_data()


def _job(args):
    """子进程里跑一次；args = (kind, regime, lr, seed)，kind ∈ {'select', 'report', 'tfidf'}。

    返回 (args, 结果, 本次的 CPU 秒数)。select：{'curve', 'correct'}（挑设置的 600 条上，100 步）；
    report：{'curve', 'correct': {指标: 逐条}}（报告的 600 条上；第 25、50 步的逐条结果来自只训练到那一步的运行）；
    tfidf：tfidf_runs 的结果。
    """
    kind, regime, lr, seed = args
    c0 = time.process_time()
    lm, train, val, d, sub = _data()
    if kind == "tfidf":
        return args, tfidf_runs(d, sub, SEEDS), time.process_time() - c0
    if kind == "select":
        hist, correct = run(lm, train, val["select"], regime, lr, seed)
        return args, {"curve": hist, "correct": pack_correct(correct)}, time.process_time() - c0
    hist, correct = run(lm, train, val["report"], regime, lr, seed)
    acc = {h["step"]: h["val_acc"] for h in hist}
    items = {"final": pack_correct(correct)}
    for st in SETTINGS["eval_at"][:-1]:
        short, c = run(lm, train, val["report"], regime, lr, seed, steps=st)
        if short[-1]["val_acc"] != acc[st]:
            raise RuntimeError(f"{regime} 种子 {seed}：只训练 {st} 步的结果与 100 步那次的第 {st} 步不同")
        items[f"val_acc@{st}"] = pack_correct(c)
    items[f"val_acc@{SETTINGS['steps']}"] = items["final"]
    return args, {"curve": hist, "correct": items}, time.process_time() - c0


def _neighbour(v: float, step: int):
    i = LR_LADDER.index(v) + step
    return LR_LADDER[i] if 0 <= i < len(LR_LADDER) else None


def main(workers: int = WORKERS):
    from multiprocessing import Pool
    c0 = time.process_time()
    _, _, val, d, _ = _data()
    lengths_all = np.array([len(r.text) for r in d["train"]])
    seed0 = SETTINGS["select_seed"]
    grid = {r: list(SETTINGS["lr_grid"][r]) for r in F.REGIMES}
    acc, items = {r: {} for r in F.REGIMES}, {r: {} for r in F.REGIMES}
    cpu, child_cpu, extended = {r: 0.0 for r in F.REGIMES}, 0.0, {r: [] for r in F.REGIMES}
    report = {}
    with Pool(workers) as pool:
        # 1) 挑学习率：种子 0，挑设置的 600 条；选中的值在边上就往外加一个值（TF-IDF 不挑，一起先跑）
        jobs = [("tfidf", None, None, None)] + [("select", r, lr, seed0) for r in ("full", "scratch", "probe")
                                                  for lr in grid[r]]
        while jobs:
            for (kind, regime, lr, seed), out, sec in pool.imap_unordered(_job, jobs):
                child_cpu += sec
                if kind == "tfidf":
                    tfidf, cpu["tfidf"] = out, sec
                    continue
                acc[regime][lr], items[regime][lr] = out["curve"][-1]["val_acc"], out["correct"]
                cpu[regime] += sec
                print("挑选", regime, lr, round(acc[regime][lr], 4), flush=True)
            jobs = []
            for r in F.REGIMES:
                grid[r].sort()
                best = max(grid[r], key=lambda v: acc[r][v])
                step = -1 if best == grid[r][0] else (1 if best == grid[r][-1] else 0)
                new = _neighbour(best, step) if step else None
                if new is not None and len(extended[r]) < MAX_EXTEND:
                    grid[r].append(new)
                    extended[r].append(new)
                    jobs.append(("select", r, new, seed0))
        chosen = {r: max(sorted(grid[r]), key=lambda v: acc[r][v]) for r in F.REGIMES}
        # 2) 报告：选中的学习率、新的种子，报告用的 600 条
        jobs = [("report", r, chosen[r], s) for r in ("full", "scratch", "probe") for s in SEEDS]
        for (kind, regime, lr, seed), out, sec in pool.imap_unordered(_job, jobs):
            child_cpu += sec
            report[(regime, seed)] = out
            cpu[regime] += sec
            print("报告", regime, lr, seed, round(out["curve"][-1]["val_acc"], 4), flush=True)
    results = {r: per_seed(curve_summary(report[(r, s)]["curve"], SETTINGS["steps"]) for s in SEEDS) for r in F.REGIMES}
    results.update({k: {"final": v["final"]} for k, v in tfidf.items()})
    item_rows = {r: {m: [report[(r, s)]["correct"][m] for s in SEEDS] for m in report[(r, SEEDS[0])]["correct"]}
                 for r in F.REGIMES}
    item_rows.update({k: {"final": v["correct"]} for k, v in tfidf.items()})
    lr_search = {}
    for r in F.REGIMES:
        g = sorted(grid[r])
        ranked = sorted(g, key=lambda v: -acc[r][v])
        lr_search[r] = {"grid": g, "acc": {f"{v:g}": acc[r][v] for v in g}, "items": {f"{v:g}": items[r][v] for v in g},
                        "chosen": chosen[r], "runner_up": ranked[1], "extended": extended[r],
                        "at_edge": chosen[r] in (g[0], g[-1])}
    y_report = val["report"][2]
    settings = dict(SETTINGS, lr_grid={r: sorted(grid[r]) for r in F.REGIMES}, lr_search=lr_search, items=item_rows,
                    select_split="验证集里与报告用的 600 条不相交的另外 600 条（split_validation）",
                    report_positive_frac=float(np.mean(y_report)),
                    report_majority_acc=float(max(np.mean(y_report), 1 - np.mean(y_report))),
                    cpu_seconds_by_method={k: round(v, 1) for k, v in cpu.items()},
                    n_train_full=len(d["train"]), n_val_full=len(d["validation"]),
                    frac_train_longer_than_max_len=round(float(np.mean(lengths_all > SETTINGS["max_len"])), 4))
    rec = write_record("finetune_reviews", settings=settings, seeds=SEEDS, results=results, cpu_start=c0,
                       extra_cpu=child_cpu)
    for r in F.REGIMES:
        print(r, "网格", lr_search[r]["grid"], "选中", chosen[r], "在边上" if lr_search[r]["at_edge"] else "在内部")
    for m, r in rec["results"].items():
        print(m, np.round(r["final"], 4).tolist())


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
