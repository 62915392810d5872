"""第 12 章“真的训练一次”的多种子记录：写出 nlpbook/records/seq2seq_attention.json。

  OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 python scripts/seq2seq_attention.py   # 单核约 5 分钟

任务：把 3—16 位的随机数字串倒过来写（nlpbook.seq2seq）。两个模型只差注意力：
- plain：解码器只拿到编码器的最终记录；attention：每一步再用点积注意力读编码器每一步的状态。
- 学习率公平地挑：两个模型各在 LR_GRID 上用种子 0 训练，在验证串（length_test_set 的 seed=1）上挑整串准确率最高的；
  挑中的值不能在网格边上（下面核对）。
- 报告：用没参与挑选的种子 1—5，在测试串（seed=0，每个长度 200 条）上算整串准确率，按长度每两个一档；
  还存每条测试串答对与否（compare.pack_correct），供 nlpbook.compare 做配对比较，以及最后 100 步的平均训练损失。
- 再给 plain 4 倍的训练步数（学习率同样是它挑中的值），看它的差距是不是多练就能补上。
notebook 现场用种子 1 训练两个模型，并检查它落在这里记录的范围里（tests/test_seq2seq.py 重跑种子 1，逐条核对）。
"""
from __future__ import annotations

import argparse
import sys
import time

from nlpbook.compare import pack_correct
from nlpbook.seq2seq import KINDS, bucket_accuracy, evaluate, length_test_set, train_seq2seq
from nlpbook.spread import record_path, run_seeds, write_record

NAME = "seq2seq_attention"
SETTINGS = dict(lengths=(3, 16), hidden=32, dim=16, steps=2000, batch_size=32, clip=5.0)
LR_GRID = (0.003, 0.01, 0.03, 0.1)
SELECT_SEED = 0
SEEDS = (1, 2, 3, 4, 5)
PER_LENGTH = 200
TEST_SET_SEED, VAL_SET_SEED = 0, 1
BUCKET_WIDTH = 2
LONGER = 4                          # plain 多练的倍数
PLAIN_LONGER = f"plain（{LONGER} 倍步数）"


def train(kind: str, lr: float, seed: int, steps: int | None = None, progress: bool = False):
    """用记录的设置训练一个模型（steps 给出时换掉步数）。"""
    return train_seq2seq(kind, **dict(SETTINGS, steps=steps or SETTINGS["steps"]), lr=lr, seed=seed,
                         progress=progress)


def scores(model, srcs) -> dict:
    """一个模型在一组评测串上的指标：每档准确率、总准确率、逐条答对与否（压缩）、最后 100 步的平均训练损失。"""
    correct, lengths = evaluate(model.params, srcs)
    return {**{f"acc_{k}": v for k, v in bucket_accuracy(correct, lengths, BUCKET_WIDTH).items()},
            "acc_all": float(correct.mean()), "train_loss": model.history[-1]["loss"],
            "test_correct": pack_correct(correct)}


def select_lr(val) -> tuple[dict, dict]:
    """每个模型在网格上用种子 0 训练，挑验证串整串准确率最高的学习率。返回 (挑中的值, 网格上的准确率)。"""
    chosen, grid = {}, {}
    for kind in KINDS:
        grid[kind] = {}
        for lr in LR_GRID:
            correct, _ = evaluate(train(kind, lr, SELECT_SEED).params, val)
            grid[kind][str(lr)] = float(correct.mean())
            print(f"挑选 {kind}，学习率 {lr}：验证准确率 {correct.mean():.4f}", flush=True)
        chosen[kind] = max(LR_GRID, key=lambda lr: grid[kind][str(lr)])
        if chosen[kind] in (LR_GRID[0], LR_GRID[-1]):
            raise SystemExit(f"{kind} 挑中的学习率 {chosen[kind]} 在网格边上：请放宽 LR_GRID")
    return chosen, grid


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    args = ap.parse_args(argv)
    t0 = time.process_time()
    test = length_test_set(SETTINGS["lengths"], PER_LENGTH, TEST_SET_SEED)
    val = length_test_set(SETTINGS["lengths"], PER_LENGTH, VAL_SET_SEED)
    chosen, grid = select_lr(val)

    def one(method, seed):
        kind, steps = ("plain", LONGER * SETTINGS["steps"]) if method == PLAIN_LONGER else (method, None)
        return scores(train(kind, chosen[kind], seed, steps), test)
    results = run_seeds([*KINDS, PLAIN_LONGER], args.seeds, one,
                        report=lambda m, seed, row: print(f"{m} 种子 {seed}：测试准确率 {row['acc_all']:.4f}", flush=True))
    settings = {**SETTINGS, "lr": chosen, "lr_grid": list(LR_GRID), "lr_grid_val_acc": grid,
                "select_seed": SELECT_SEED, "per_length": PER_LENGTH, "test_set_seed": TEST_SET_SEED,
                "val_set_seed": VAL_SET_SEED, "bucket_width": BUCKET_WIDTH, "longer_steps": LONGER * SETTINGS["steps"],
                "task": "把随机数字串倒过来写（贪心解码，整串都对并输出 <EOS> 才算对）"}
    write_record(NAME, settings=settings, seeds=args.seeds, results=results, cpu_start=t0)
    print("写出", record_path(NAME).name)
    return 0


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        sys.exit(main())
