"""第 10 章“训练一个很小的 TextCNN”的多种子记录：写出 nlpbook/records/textcnn_reviews.json。

  python scripts/textcnn_reviews.py                 # 5 个种子，单核约 70 秒
  python scripts/textcnn_reviews.py --seeds 0 1     # 只跑几个种子（快速检查；会覆盖记录）

数据：真实评论 → clean_reviews → split_reviews，按字切分（去掉空白），字表只从训练集建（至少出现 2 次，
另加 <PAD>、<UNK>）。模型与训练：textcnn.train_textcnn，设置见 SETTINGS；种子只改变初始化和打乱顺序，
数据和划分不变。记录每个种子的验证准确率（每一轮）、最后一轮的训练损失、多数类基线，以及 CPU 时间；
还有最后两轮每条验证评论答对与否（compare.pack_correct），供 nlpbook.compare 做配对比较。
notebook 现场只跑种子 0，并检查它落在这里记录的范围内。
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np  # noqa: E402

from nlpbook.compare import pack_correct  # noqa: E402
from nlpbook.datasets import clean_reviews, load_raw_reviews, split_reviews  # noqa: E402
from nlpbook.spread import curve_metrics, record_path, run_seeds, write_record  # noqa: E402
from nlpbook.text import Vocab  # noqa: E402
from nlpbook.textcnn import train_textcnn  # noqa: E402

NAME = "textcnn_reviews"
SEEDS = (0, 1, 2, 3, 4)
SETTINGS = dict(dim=16, n_kernels=16, widths=(3,), epochs=3, lr=0.003, batch_size=32, max_len=60)


def chars(text: str) -> list[str]:
    """按字切分，去掉空白（与第 10 章 notebook 相同）。"""
    return [c for c in text if not c.isspace()]


def prepare() -> dict:
    """字表、训练集与验证集的编号序列和标签。"""
    splits = split_reviews(clean_reviews(load_raw_reviews())[0])
    train, val = splits["train"], splits["validation"]
    vocab = Vocab.build([chars(r.text) for r in train], min_count=2, specials=("<PAD>", "<UNK>"))
    enc = lambda rows: [vocab.encode(chars(r.text)) for r in rows]  # noqa: E731
    return {"vocab": vocab, "train_ids": enc(train), "train_y": np.array([r.label for r in train]),
            "val_ids": enc(val), "val_y": np.array([r.label for r in val])}


def run_seed(data: dict, seed: int, settings: dict = SETTINGS):
    """用一个种子训练一次；返回 (模型, 每轮验证准确率)。"""
    model = train_textcnn(data["train_ids"], data["train_y"], len(data["vocab"]), seed=seed,
                          pad_id=data["vocab"].id("<PAD>"), val_ids=data["val_ids"], val_y=data["val_y"],
                          **settings)
    return model, [h["val_acc"] for h in model.history]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    args = ap.parse_args(argv)
    t0 = time.process_time()
    data = prepare()
    majority = int(data["train_y"].mean() >= 0.5)

    def one(method, seed):
        model, accs = run_seed(data, seed)
        # 倒数第二轮的逐条结果：同一个种子少训一轮（前几轮与完整训练逐位相同，下面核对）
        shorter, accs2 = run_seed(data, seed, dict(SETTINGS, epochs=SETTINGS["epochs"] - 1))
        assert accs2 == accs[:-1], (accs2, accs)
        correct = {f"val_correct_epoch{e}": pack_correct(m.predict(data["val_ids"]) == data["val_y"])
                   for e, m in ((SETTINGS["epochs"] - 1, shorter), (SETTINGS["epochs"], model))}
        return {"val_acc": accs[-1], "train_loss": model.history[-1]["train_loss"],
                **curve_metrics(model.history, ["val_acc"], at="epoch", fmt="{name}_epoch{at}"), **correct}
    results = run_seeds(["TextCNN"], args.seeds, one,
                        report=lambda m, seed, row: print(f"种子 {seed}：验证准确率 {row['val_acc']:.4f}", flush=True))
    results["多数类"] = {"val_acc": [float(np.mean(data["val_y"] == majority))] * len(args.seeds)}
    settings = {**SETTINGS, "tokens": "字（去掉空白）", "vocab_min_count": 2, "vocab_size": len(data["vocab"]),
                "n_train": len(data["train_ids"]), "n_val": len(data["val_ids"])}
    write_record(NAME, settings=settings, seeds=args.seeds, results=results, cpu_start=t0)
    print("写出", record_path(NAME).name)
    return 0


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        sys.exit(main())
