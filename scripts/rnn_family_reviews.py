"""RNN、LSTM、GRU 与词袋逻辑回归在真实评论上的比较（第 8、9 章），多个种子，写成实验记录。

  python scripts/rnn_family_reviews.py                 # 默认设置：单核约 4 分钟 CPU 时间
  python scripts/rnn_family_reviews.py --seeds 1 --out r.json   # 只报告种子 1（学习率仍在种子 0 上挑）

数据：datasets.load_reviews() → rnn_classifier.review_task（与第 8 章相同：词表只从完整训练集建、min_count=2，
训练子集 6,000 条，每条只读前 100 个词），评测用完整的验证集。
同样的预算：三种循环单元都用同样的 6,000 条、同样的轮数（2 轮；RNN 另记第 3 轮，第 8 章练习 7 用）、词向量与隐藏维 32、每批 32 条、
裁剪上限 5；学习率在验证集上从 LR_GRID 里挑（种子 0、第 2 轮的验证准确率最高者；网格放宽到挑中的值在内部），
挑好后用没参与挑选的种子 1、2、3 重新训练，报告这三次。
词袋逻辑回归（第 4 章的 fit，学习率按轮衰减）用同样的 6,000 条，学习率同样在验证集上挑；另记一行第 4 章的模型原样
（完整训练集、学习率 0.5，第 8 章的对照）。
结果：每个方法、每个种子的验证准确率（循环模型每轮都记，还有验证损失与训练损失），以及按评论长度分桶（≤20、21—50、>50 个词）的准确率；
还有每条验证评论答对与否（val_correct，第 2 轮时，compare.pack_correct 压缩），供 nlpbook.compare 做配对比较。
写到 nlpbook/records/rnn_family_reviews.json（spread.save_record）。
"""
from __future__ import annotations

import argparse
import time

import numpy as np  # noqa: E402

from nlpbook.compare import pack_correct  # noqa: E402
from nlpbook.linear import fit  # noqa: E402
from nlpbook.rnn_classifier import accuracy_by_length, pad_batch, review_task, train_rnn_classifier  # noqa: E402
from nlpbook.sparse import CountMatrix  # noqa: E402
from nlpbook.spread import curve_metrics, record_path, run_seeds, write_record  # noqa: E402

NAME = "rnn_family_reviews"
TASK = dict(n_train=6000, min_count=2, seed=0)
RECURRENT = dict(dim=32, hidden=32, epochs=2, batch_size=32, clip=5.0, max_len=100)
EXTRA_EPOCHS = 1                      # 第 2 轮之后再训 1 轮（第 8 章练习 7：第 3 轮）
BOW = dict(epochs=10, batch_size=64, lr_decay=1.0)   # 第 4 章的 fit：第 e 轮的学习率 = lr / e
CH4_LR = 0.5                          # 第 4 章的词袋模型（完整训练集）用的学习率，原样照搬，不再挑
# 每个网格都放宽到挑中的值落在内部（两头都试过更小、更大的值）
LR_GRID = {"rnn": (0.0005, 0.001, 0.002, 0.005, 0.01), "lstm": (0.001, 0.002, 0.005, 0.01),
           "gru": (0.002, 0.005, 0.01, 0.02), "bow": (0.5, 1.0, 2.0, 4.0, 8.0)}
DEFAULT_LR = {"rnn": 0.001, "lstm": 0.002, "gru": 0.01, "bow": 4.0}
EDGES = (20, 50)                      # 长度分桶：≤20、21—50、>50 个词（按分词后的原长，截断之前）
SELECT_SEED = 0                       # 学习率只在这个种子上挑
SEEDS = (1, 2, 3)                     # 报告用的种子：挑完之后重新训练，不复用挑选时的那一次


def load_task(reviews=None) -> dict:
    """第 8、9 章共用的数据设置；reviews 缺省时读真实评论（测试可传入小数据）。"""
    if reviews is None:
        from nlpbook.datasets import load_reviews
        reviews = load_reviews()
    task = review_task(reviews, **TASK)
    task["val_len"] = np.array([len(r.tokens) for r in task["val"]])
    return task


def run_recurrent(task: dict, cell: str, lr: float, seed: int, extra_epochs: int = EXTRA_EPOCHS) -> dict:
    """训练一个循环模型（RECURRENT 的设置），返回每轮的验证准确率/损失、训练损失，以及第 2 轮时的分桶准确率。"""
    kw = dict(RECURRENT, lr=lr, seed=seed, val_ids=task["val_ids"], val_y=task["val_y"])
    model = train_rnn_classifier(task["ids"], task["y"], len(task["vocab"]), cell=cell, **kw)
    ids, mask = pad_batch(task["val_ids"], max_len=RECURRENT["max_len"])
    pred = model.predict(ids, mask)
    buckets = accuracy_by_length(task["val_y"], pred, task["val_len"], EDGES)
    correct = pack_correct(pred == task["val_y"])
    if extra_epochs:
        model = train_rnn_classifier(task["ids"], task["y"], len(task["vocab"]),
                                     **dict(kw, epochs=extra_epochs), resume=model)
    return {"history": model.history, "buckets": buckets, "correct": correct}


def run_bow(task: dict, lr: float, seed: int, full_train=None) -> dict:
    """词袋逻辑回归（第 4 章的 fit）：默认用同样的训练子集；full_train 给出评论列表时用它（完整训练集）。"""
    docs = task["train"] if full_train is None else full_train
    X = CountMatrix.from_docs([r.tokens for r in docs], task["vocab"])
    y = task["y"] if full_train is None else np.array([r.label for r in full_train])
    model = fit(X, y, lr=lr, seed=seed, **BOW)
    pred = model.predict(CountMatrix.from_docs([r.tokens for r in task["val"]], task["vocab"]))
    return {"val_acc": float(np.mean(pred == task["val_y"])),
            "buckets": accuracy_by_length(task["val_y"], pred, task["val_len"], EDGES),
            "correct": pack_correct(pred == task["val_y"])}


def _bucket_metrics(out: dict) -> dict:
    """分桶准确率 → {'acc_len≤20': …, …}（保留 4 位小数）。"""
    return {f"acc_len{b['bucket']}": round(b["acc"], 4) for b in out["buckets"]}


def recurrent_metrics(out: dict) -> dict:
    """run_recurrent 的结果 → 一个种子的指标：每轮的验证准确率/损失、训练损失，第 2 轮的 val_acc 与分桶准确率。"""
    res = curve_metrics(out["history"], ("val_acc", "val_loss", "train_loss"), at="epoch", fmt="{name}_epoch{at}",
                        digits=4)
    return {**res, "val_acc": res[f"val_acc_epoch{RECURRENT['epochs']}"], **_bucket_metrics(out),
            "val_correct": out["correct"]}


def bow_metrics(out: dict) -> dict:
    """run_bow 的结果 → 一个种子的指标：验证准确率与分桶准确率（保留 4 位小数）。"""
    return {"val_acc": round(out["val_acc"], 4), **_bucket_metrics(out), "val_correct": out["correct"]}


def _pick_lr(grid, scores, default):
    """验证准确率最高的学习率；并列时取离默认值近的。"""
    return max(grid, key=lambda v: (scores[str(v)], -abs(v - default)))


def _report(method, seed, row):
    print(method, seed, row["val_acc"], flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    ap.add_argument("--out", default=str(record_path(NAME)))
    args = ap.parse_args(argv)
    if SELECT_SEED in args.seeds:
        raise SystemExit(f"报告用的种子不能含挑学习率的种子 {SELECT_SEED}")
    t0 = time.process_time()
    from nlpbook.datasets import load_reviews
    reviews = load_reviews()
    task = load_task(reviews)
    lr_search, lr, results = {}, {}, {}
    for cell in ("rnn", "gru", "lstm"):
        extra = EXTRA_EPOCHS if cell == "rnn" else 0     # 第 3 轮只有第 8 章（RNN）要用
        # 种子 0 上逐个试学习率，挑第 2 轮验证准确率最高的；报告的种子再各训练一次
        tried = {str(v): run_recurrent(task, cell, v, SELECT_SEED, 0) for v in LR_GRID[cell]}
        lr_search[cell] = {k: round(r["history"][RECURRENT["epochs"] - 1]["val_acc"], 4) for k, r in tried.items()}
        lr[cell] = _pick_lr(LR_GRID[cell], lr_search[cell], DEFAULT_LR[cell])
        print(cell, lr_search[cell], "→", lr[cell], flush=True)
        results |= run_seeds([cell], args.seeds, lambda c, s: recurrent_metrics(run_recurrent(task, c, lr[c], s, extra)),
                             report=_report)
    lr_search["bow"] = {str(v): round(run_bow(task, v, SELECT_SEED)["val_acc"], 4) for v in LR_GRID["bow"]}
    lr["bow"] = _pick_lr(LR_GRID["bow"], lr_search["bow"], DEFAULT_LR["bow"])
    print("bow", lr_search["bow"], "→", lr["bow"], flush=True)
    full = {"bow": (None, lr["bow"]), "bow_full": (reviews["train"], CH4_LR)}
    results |= run_seeds(full, args.seeds, lambda m, s: bow_metrics(run_bow(task, full[m][1], s, full[m][0])),
                         report=_report)
    buckets = accuracy_by_length(task["val_y"], task["val_y"], task["val_len"], EDGES)
    settings = {"task": TASK, "recurrent": RECURRENT, "rnn_extra_epochs": EXTRA_EPOCHS, "bow": BOW, "lr": lr,
                "bow_full_lr": CH4_LR,
                "lr_grid": {k: list(v) for k, v in LR_GRID.items()}, "lr_search_seed0_val_acc": lr_search,
                "length_edges": list(EDGES), "bucket_sizes": {b["bucket"]: b["n"] for b in buckets},
                "n_val": len(task["val"]), "bow_full_n_train": len(reviews["train"])}
    write_record(NAME, settings=settings, seeds=args.seeds, results=results, cpu_start=t0, path=args.out)
    print("写好了", args.out)


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
