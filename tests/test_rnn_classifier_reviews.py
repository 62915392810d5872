"""第 8、9 章的实验记录 rnn_family_reviews：记录存在、能读、方法与种子齐全；脚本能在小数据上跑；
用记录里的设置重跑一个种子，得到记录里的那个数。"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from nlpbook.datasets import Review
from nlpbook.optim import blas_kernels
from nlpbook.spread import Spread, load_record, record_path

ROOT = Path(__file__).resolve().parents[1]
METHODS = {"rnn", "lstm", "gru", "bow", "bow_full"}
BUCKETS = ("acc_len≤20", "acc_len21—50", "acc_len>50")


def _script():
    spec = importlib.util.spec_from_file_location("rnn_family_reviews", ROOT / "scripts" / "rnn_family_reviews.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_record_exists_parses_and_is_complete():
    rec = load_record(record_path("rnn_family_reviews"))
    assert rec["name"] == "rnn_family_reviews"
    assert set(rec["results"]) == METHODS
    assert rec["seeds"] == [1, 2, 3] and rec["cpu_seconds"] > 0     # 种子 0 只用来挑学习率
    # 每个网格都放宽到挑中的学习率落在内部：两边都试过更小、更大的值
    for m, chosen in rec["settings"]["lr"].items():
        grid = rec["settings"]["lr_grid"][m]
        assert min(grid) < chosen < max(grid), (m, chosen, grid)
        assert max(rec["settings"]["lr_search_seed0_val_acc"][m].values()) == \
            rec["settings"]["lr_search_seed0_val_acc"][m][str(chosen)]
    s = rec["settings"]
    assert s["task"] == {"n_train": 6000, "min_count": 2, "seed": 0}          # 与第 8 章相同的子集与词表
    assert s["recurrent"]["epochs"] == 2 and s["recurrent"]["max_len"] == 100
    assert sum(s["bucket_sizes"].values()) == s["n_val"]
    assert set(s["lr"]) == {"rnn", "lstm", "gru", "bow"}
    for method, res in rec["results"].items():
        keys = {"val_acc", *BUCKETS} | ({"val_acc_epoch1", "val_loss_epoch2", "train_loss_epoch2"}
                                         if method in ("rnn", "lstm", "gru") else set())
        if method == "rnn":  # 第 8 章练习 7 的第 3 轮
            keys |= {"val_acc_epoch3", "val_loss_epoch3", "train_loss_epoch3"}
        assert keys <= set(res), method
        for name, spread in res.items():
            if name == "val_correct":      # 每个种子一个压缩串：逐条答对与否
                assert len(spread) == len(rec["seeds"])
                continue
            assert isinstance(spread, Spread) and spread.seeds == tuple(rec["seeds"])
        assert all(0.4 < v < 1 for v in res["val_acc"].values)
    # 总准确率是三桶准确率按条数的加权平均
    sizes = np.array([s["bucket_sizes"][b[len("acc_len"):]] for b in BUCKETS])
    for method, res in rec["results"].items():
        for k, total in enumerate(res["val_acc"].values):
            per = np.array([res[b].values[k] for b in BUCKETS])
            assert abs(float(per @ sizes / sizes.sum()) - total) < 2e-4, method


def test_script_runs_on_tiny_data():
    mod = _script()
    rng = np.random.default_rng(0)
    words = ["好", "不", "差", "电影", "很", "的", "书"]

    def review(i):
        toks = tuple(rng.choice(words, size=int(rng.integers(1, 60))))
        return Review("".join(toks), int("好" in toks and "不" not in toks), toks, str(i))
    reviews = {"train": [review(i) for i in range(40)], "validation": [review(i) for i in range(40, 60)]}
    from nlpbook.rnn_classifier import review_task
    task = review_task(reviews, n_train=30)
    task["val_len"] = np.array([len(r.tokens) for r in task["val"]])
    out = mod.run_recurrent(task, "gru", 0.01, seed=0, extra_epochs=1)
    assert [row["epoch"] for row in out["history"]] == [1, 2, 3]
    assert [b["bucket"] for b in out["buckets"]] == ["≤20", "21—50", ">50"]
    assert sum(b["n"] for b in out["buckets"]) == 20
    bow = mod.run_bow(task, 0.5, seed=0)
    assert 0 <= bow["val_acc"] <= 1


@pytest.mark.record
def test_rerunning_one_seed_reproduces_the_record():
    """第 8 章的设置（RNN、种子 1、2 轮）：单核几秒；验证准确率落在记录的范围里，在记录用的内核上与记录一致。"""
    mod = _script()
    rec = load_record(record_path("rnn_family_reviews"))
    assert rec["settings"]["recurrent"] == mod.RECURRENT and rec["settings"]["task"] == mod.TASK
    task = mod.load_task()
    out = mod.run_recurrent(task, "rnn", rec["settings"]["lr"]["rnn"], seed=1, extra_epochs=0)
    k = rec["seeds"].index(1)
    # 记录是在 Haswell 内核（AVX2）上跑的，种子 1 第 2 轮 0.8129；这个训练会把 BLAS 内核之间的舍入差别放大，
    # 同一个种子在别的内核上落在别处（实测：Prescott 0.7981，SkylakeX 0.8049，关掉 numpy SIMD 时 0.7770，
    # 相差至多 0.036，比种子之间的标准差 0.006 还大）。所以只在记录的内核上逐位比较，其余内核上要求落在记录的范围里，
    # 两端各多留 0.04（第 8 章检查现场结果用的是同一个范围）。
    live, recorded = out["history"][-1]["val_acc"], rec["results"]["rnn"]["val_acc"]
    assert recorded.contains(live, slack=0.04)
    if any(k.endswith(" Haswell") for k in blas_kernels()):
        assert live == pytest.approx(recorded.values[k], abs=1e-4)
    assert {b["bucket"]: b["n"] for b in out["buckets"]} == rec["settings"]["bucket_sizes"]
