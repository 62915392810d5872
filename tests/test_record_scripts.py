"""写实验记录的脚本共用的收集与写出（spread.per_seed、run_seeds、curve_metrics、write_record），
以及每个脚本的 main：把费时的训练换成几行假结果，跑一遍 main，写出的记录与随包记录的结构（方法、指标、设置的键、种子）相同。"""
import importlib.util
import json
import multiprocessing
import time
import zlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from nlpbook import spread
from nlpbook.spread import curve_metrics, load_record, per_seed, record_path, run_seeds, write_record

ROOT = Path(__file__).resolve().parents[1]


# ---------- 共用的收集与写出 ----------
def test_per_seed_transposes_runs_and_rejects_mismatched_metrics():
    assert per_seed([{"acc": 0.8, "f1": 0.7}, {"f1": 0.8, "acc": 0.82}]) == {"acc": [0.8, 0.82], "f1": [0.7, 0.8]}
    assert per_seed(iter([{"a": 1}])) == {"a": [1]}
    with pytest.raises(ValueError, match="指标"):
        per_seed([{"acc": 0.8}, {"f1": 0.8}])
    with pytest.raises(ValueError, match="非空"):
        per_seed([])


def test_run_seeds_loops_methods_outside_seeds_and_reports_each_run():
    calls, reported = [], []

    def one(method, seed):
        calls.append((method, seed))
        return {"acc": len(method) + seed / 10, "seed": seed}
    out = run_seeds(["ab", "c"], [2, 0], one, report=lambda m, s, row: reported.append((m, s, row["acc"])))
    assert calls == [("ab", 2), ("ab", 0), ("c", 2), ("c", 0)]
    assert out == {"ab": {"acc": [2.2, 2.0], "seed": [2, 0]}, "c": {"acc": [1.2, 1.0], "seed": [2, 0]}}
    assert reported == [("ab", 2, 2.2), ("ab", 0, 2.0), ("c", 2, 1.2), ("c", 0, 1.0)]
    for bad in ([], [0, 0], [-1], [True]):
        with pytest.raises(ValueError, match="seeds"):
            run_seeds(["a"], bad, one)
    with pytest.raises(TypeError, match="run_one"):
        run_seeds(["a"], [0], None)


def test_curve_metrics_flattens_a_learning_curve():
    hist = [{"step": 1, "loss": 0.9}, {"step": 50, "loss": 0.71234, "val_acc": 0.6},
            {"step": 100, "loss": 0.5, "val_acc": 0.7}]
    assert curve_metrics(hist, ["val_acc"]) == {"val_acc@50": 0.6, "val_acc@100": 0.7}
    assert curve_metrics(hist[1:], {"loss": "train_loss"}, digits=2) == {"train_loss@50": 0.71, "train_loss@100": 0.5}
    epochs = [{"epoch": 1, "val_acc": 0.5}, {"epoch": 2, "val_acc": 0.6}]
    assert curve_metrics(epochs, ["val_acc"], at="epoch", fmt="{name}_epoch{at}") == {"val_acc_epoch1": 0.5,
                                                                                       "val_acc_epoch2": 0.6}
    with pytest.raises(ValueError, match="'step'"):
        curve_metrics(epochs, ["val_acc"])


def test_write_record_counts_cpu_from_the_start_and_round_trips(tmp_path):
    path = tmp_path / "toy.json"
    results = run_seeds(["A", "B"], [0, 1], lambda m, s: {"acc": 0.5 + s / 10 + (m == "B") / 100})
    rec = write_record("toy", settings={"lr": 0.1}, seeds=[0, 1], results=results,
                       cpu_start=time.process_time() - 5.0, extra_cpu=2.0, path=path)
    assert 7.0 <= rec["cpu_seconds"] < 10.0
    back = load_record(path)
    assert back["name"] == "toy" and back["seeds"] == [0, 1]
    assert back["results"]["B"]["acc"].values == (0.51, 0.61)


# ---------- 每个脚本的 main：假训练，真收集、真写出 ----------
def _script(name):
    spec = importlib.util.spec_from_file_location(f"_records_{name}", ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fake(*parts) -> float:
    """由名字和种子确定的一个 0—1 之间的假指标。"""
    return zlib.crc32(repr(parts).encode("utf-8")) % 1000 / 1000


class _SerialPool:
    """代替 multiprocessing.Pool：在本进程里按顺序跑（假训练不值得开进程）。"""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, fn, jobs):
        return map(fn, jobs)


def _reviews(n):
    return [SimpleNamespace(text="好" * (10 * i + 5), label=i % 2, tokens=("好",) * (i + 1)) for i in range(n)]


def _patch_experiments_reviews(mod, mp):
    y = {"train": np.array([0, 1, 1, 0]), "val": np.array([1, 0])}
    mp.setattr(mod, "prepare", lambda: {"vocab": list(range(7)), "y": y})
    metrics = ("val_acc", "val_f1", "pos_rate", "train_acc", "cpu_seconds")
    keys = [mod.key(m, s) for m, s, _ in mod.GRID]
    mp.setattr(mod, "run_seed", lambda data, seed, only=None: {k: {**{n: _fake(k, n, seed) for n in metrics},
                                                                    "val_pred": "wA=="}
                                                                for k in keys if only is None or k in only})
    return lambda: mod.main([])


def _patch_textcnn_reviews(mod, mp):
    mp.setattr(mod, "prepare", lambda: {"vocab": list(range(9)), "train_ids": [[1]] * 4, "train_y": np.array([1, 1, 0, 1]),
                                        "val_ids": [[1]] * 3, "val_y": np.array([1, 0, 0])})

    def run_seed(data, seed, settings=mod.SETTINGS):
        hist = [{"epoch": e, "train_loss": _fake("loss", e, seed), "val_acc": _fake("acc", e, seed)}
                for e in range(1, settings["epochs"] + 1)]
        return (SimpleNamespace(history=hist, predict=lambda ids: np.zeros(len(ids), dtype=int)),
                [h["val_acc"] for h in hist])
    mp.setattr(mod, "run_seed", run_seed)
    return lambda: mod.main([])


def _buckets(*parts):
    return [{"bucket": b, "n": 1, "acc": _fake(b, *parts)} for b in ("≤20", "21—50", ">50")]


def _patch_rnn_family_reviews(mod, mp):
    import nlpbook.datasets
    reviews = {"train": _reviews(6), "validation": _reviews(3)}
    mp.setattr(nlpbook.datasets, "load_reviews", lambda *a, **k: reviews)
    task = {"val": reviews["validation"], "val_y": np.array([0, 1, 0]), "val_len": np.array([5, 30, 80])}
    mp.setattr(mod, "load_task", lambda reviews=None: task)

    def run_recurrent(task, cell, lr, seed, extra_epochs=mod.EXTRA_EPOCHS):
        hist = [{"epoch": e, **{m: _fake(cell, lr, seed, m, e) for m in ("val_acc", "val_loss", "train_loss")}}
                for e in range(1, mod.RECURRENT["epochs"] + extra_epochs + 1)]
        return {"history": hist, "buckets": _buckets(cell, lr, seed), "correct": "oA=="}
    mp.setattr(mod, "run_recurrent", run_recurrent)
    mp.setattr(mod, "run_bow", lambda task, lr, seed, full_train=None: {
        "val_acc": _fake("bow", lr, seed, full_train is None), "buckets": _buckets("bow", lr, seed, full_train is None),
        "correct": "oA=="})
    return lambda: mod.main(["--out", str(record_path(mod.NAME))])


def _curve(steps, *parts):
    return [{"step": s, "loss": _fake("loss", s, *parts), "val_acc": _fake("acc", s, *parts)} for s in steps]


def _patch_finetune_reviews(mod, mp):
    mp.setattr(multiprocessing, "Pool", _SerialPool)
    val = {k: (None, None, np.array([0, 1, 1])) for k in ("select", "report")}
    data = (None, None, val, {"train": _reviews(5), "validation": _reviews(3)}, None)
    mp.setattr(mod, "_data", lambda: data)

    def job(args):
        kind, regime, lr, seed = args
        if kind == "tfidf":
            return args, {k: {"final": [_fake(k, s) for s in mod.SEEDS], "correct": ["AA=="] * len(mod.SEEDS)}
                          for k in ("tfidf_full", "tfidf_subset")}, 1.0
        curve = _curve(mod.SETTINGS["eval_at"], regime, lr, seed)
        if kind == "select":
            return args, {"curve": curve, "correct": "AA=="}, 1.0
        return args, {"curve": curve, "correct": {"final": "AA==",
                                                  **{f"val_acc@{s}": "AA==" for s in mod.SETTINGS["eval_at"]}}}, 1.0
    mp.setattr(mod, "_job", job)
    return mod.main


def _patch_lora_reviews(mod, mp):
    mp.setattr(multiprocessing, "Pool", _SerialPool)
    data = (SimpleNamespace(params={}), None, None)
    mp.setattr(mod, "_data", lambda: data)
    mp.setattr(mod, "init_lora", lambda params, rng, r: r)
    mp.setattr(mod, "count_trainable", lambda params, lora=None: {"lora": 10 * lora} if lora else {"full": 1000})
    mp.setattr(mod, "_run", lambda args: (tuple(args[:3]), _curve(mod.S["eval_at"], *args), "AA==", 1.0))
    return mod.main


def _patch_sft_reviews(mod, mp):
    from nlpbook import tuning as TU
    mp.setattr(mod, "load_pretrained", lambda: SimpleNamespace(params={}))
    mp.setattr(mod, "sft_data", lambda lm, settings=mod.SETTINGS: (None, None))
    mp.setattr(mod, "evaluator", lambda lm, held: lambda P: {k: 0.5 for k in TU.KINDS})

    def run(seed, answer_only=True, steps=None, settings=mod.SETTINGS, progress=False):
        evals = set(settings["eval_at"])
        hist = [{"step": s, "loss": _fake(s, seed, answer_only),
                 **({k: _fake(k, s, seed, answer_only) for k in TU.KINDS} if s in evals else {})}
                for s in range(50, settings["steps"] + 1, 50)]
        hist[-1]["items"] = {k: np.array([1, 0, 1]) for k in TU.KINDS}    # 最后一步逐条的对错
        return None, hist
    mp.setattr(mod, "run", run)
    return mod.main


def _patch_ner_char_tagger(mod, mp):
    mp.setattr(mod, "load_splits", lambda corpus=None: {})
    mp.setattr(mod, "_grid_job", lambda job: [_fake(*job, e) for e in range(mod.MAX_EPOCHS)])
    mp.setattr(mod, "_test_job", lambda args: {name: {**{m: _fake(name, m, args[1]) for m in ("precision", "recall", "f1")},
                                                      "counts": [[1, 0, 0], [0, 1, 1]]}
                                               for name, _, _ in mod.TEST_ROWS})
    return lambda: mod.main([])


PATCHES = {"experiments_reviews": _patch_experiments_reviews, "textcnn_reviews": _patch_textcnn_reviews,
           "rnn_family_reviews": _patch_rnn_family_reviews, "finetune_reviews": _patch_finetune_reviews,
           "lora_reviews": _patch_lora_reviews, "sft_reviews": _patch_sft_reviews,
           "ner_char_tagger": _patch_ner_char_tagger}


def _shape(rec) -> dict:
    """记录的结构：名字、种子、方法 → 指标名的集合、设置的键。"""
    res = {m: sorted(r) if isinstance(r, dict) else None for m, r in rec["results"].items()}
    return {"name": rec["name"], "seeds": list(rec["seeds"]), "results": res, "settings": sorted(rec["settings"])}


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_script_main_writes_a_record_shaped_like_the_shipped_one(name, tmp_path, monkeypatch, capsys):
    shipped = json.loads(record_path(name).read_text(encoding="utf-8"))
    mod = _script(name)                                   # lora_reviews 在导入时读随包的 finetune_reviews 记录
    main = PATCHES[name](mod, monkeypatch)
    monkeypatch.setattr(spread, "RECORDS", tmp_path)      # 只写到临时目录，不碰随包记录
    main()
    written = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
    assert _shape(written) == _shape(shipped)
    for method, res in written["results"].items():
        for values in (res.values() if isinstance(res, dict) else [res]):
            assert len(values) == len(written["seeds"]), method
    assert written["cpu_seconds"] >= 0
