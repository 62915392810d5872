"""nlpbook.finetune：编码、平均池化、分类头的损失与梯度（有限差分）、三种训练方式，以及第 15.6 节的实验记录。"""
from types import SimpleNamespace

import numpy as np
import pytest
from _gradcheck import numgrad_inplace
from _toy import tiny_classifier

from nlpbook import finetune as F
from nlpbook import transformer as TF
from nlpbook.spread import load_record, record_path


def _tiny(seed=0):
    """(params, head, ids, lengths, y)，见 _toy.tiny_classifier。"""
    return tiny_classifier(seed)[:5]


def test_encode_texts_truncates_and_pads():
    enc = {"很": 3, "好": 4, "差": 5}
    ids, n = F.encode_texts(lambda t: [enc[c] for c in t], ["很好", "差", "很好很好很好"], max_len=4)
    assert ids.tolist() == [[3, 4, 0, 0], [5, 0, 0, 0], [3, 4, 3, 4]] and n.tolist() == [2, 1, 4]
    revs = [SimpleNamespace(text="差", label=0), SimpleNamespace(text="好", label=1)]
    X, n, y = F.encode_reviews(revs, lambda t: [enc[c] for c in t], 3)
    assert X.shape == (2, 3) and y.tolist() == [0, 1]


def test_mean_pool_text_example_and_backward():
    h = np.array([[[1.0, 1.0], [3.0, 3.0], [9.0, 9.0]]])
    assert F.mean_pool(h, np.array([2])).tolist() == [[2.0, 2.0]]
    g = F.mean_pool_backward(np.array([[1.0, -2.0]]), np.array([2]), 3)
    assert g.tolist() == [[[0.5, -1.0], [0.5, -1.0], [0.0, 0.0]]]


def test_padding_does_not_change_the_prediction():
    """右侧补齐：因果注意力下真实位置读不到补齐位置，补什么、补多少都不改变 logit。"""
    P, head, ids, n, _ = _tiny()
    z, _ = F.classifier_forward(P, head, ids, n)
    other = ids.copy()
    other[0, 4:] = [5, 5]
    other[2, 1:] = 3
    assert np.allclose(F.classifier_forward(P, head, other, n)[0], z, atol=1e-12)
    z1, _ = F.classifier_forward(P, head, ids[2:, :1], n[2:])
    assert np.isclose(z1[0], z[2], atol=1e-12)


def test_head_only_gradients_finite_differences():
    P, head, ids, n, y = _tiny()
    loss, g_head, g_body = F.classifier_loss_and_grads(P, head, ids, n, y, train_body=False)
    assert g_body is None
    f = lambda: F.classifier_loss_and_grads(P, head, ids, n, y, train_body=False)[0]
    for k in head:
        assert np.allclose(g_head[k], numgrad_inplace(f, head[k]), atol=1e-7, rtol=1e-5), k


def test_gradients_through_the_body_finite_differences():
    P, head, ids, n, y = _tiny(1)
    loss, g_head, g_body = F.classifier_loss_and_grads(P, head, ids, n, y)
    z, _ = F.classifier_forward(P, head, ids, n)
    assert loss == pytest.approx(float(np.mean(np.log1p(np.exp(-np.where(y == 1, z, -z))))))
    assert set(g_body) == set(TF.body_param_names(P["config"]))
    f = lambda: F.classifier_loss_and_grads(P, head, ids, n, y)[0]
    for k in g_body:
        assert np.allclose(g_body[k], numgrad_inplace(f, P[k]), atol=1e-7, rtol=1e-5), k
    for k in head:
        assert np.allclose(g_head[k], numgrad_inplace(f, head[k]), atol=1e-7, rtol=1e-5), k


def test_features_do_not_depend_on_batching():
    P, head, ids, n, _ = _tiny()
    a = F.extract_features(P, ids, n, batch_size=1)
    b = F.extract_features(P, ids, n, batch_size=3)
    assert np.allclose(a, b, atol=1e-12)
    z, _ = F.classifier_forward(P, head, ids, n)
    assert np.allclose(F.predict_proba(P, head, ids, n), 1 / (1 + np.exp(-z)))


@pytest.mark.parametrize("regime", F.REGIMES)
def test_three_regimes_learn_a_separable_toy_task(regime):
    """token 5 出现 → 好评：三种方式都应学会；probe 与 full 不修改传进来的参数。"""
    rng = np.random.default_rng(0)
    P = TF.init_lm_params(7, 8, 1, 2, 16, 6, rng)
    ids = rng.integers(1, 5, size=(64, 6))
    y = rng.integers(0, 2, 64)
    ids[y == 1, rng.integers(0, 6, (y == 1).sum())] = 5
    n = np.full(64, 6)
    before = {k: v.copy() for k, v in P.items() if k != "config"}
    lr = {"probe": 0.1, "scratch": 3e-2, "full": 3e-2}[regime]
    P2, head, hist = F.train_classifier(P, (ids, n, y), (ids, n, y), regime=regime, steps=60, lr=lr, eval_at=[30])
    assert [h["step"] for h in hist] == [30, 60]
    assert all(np.array_equal(before[k], P[k]) for k in before)
    if regime == "probe":
        assert all(np.array_equal(before[k], P2[k]) for k in before)
    assert hist[-1]["val_acc"] >= (0.7 if regime == "probe" else 0.8)   # 探针只能用随机主体的特征
    again = F.train_classifier(P, (ids, n, y), (ids, n, y), regime=regime, steps=60, lr=lr, eval_at=[30])[2]
    assert again == hist


@pytest.mark.parametrize("call, exc, match", [
    (lambda P, h: F.encode_texts(lambda t: [], ["x"]), ValueError, "空"),
    (lambda P, h: F.encode_texts(lambda t: [1], "abc"), TypeError, "列表"),
    (lambda P, h: F.mean_pool(np.zeros((1, 3, 2)), np.array([0])), ValueError, "1..3"),
    (lambda P, h: F.classifier_loss_and_grads(P, h, np.ones((1, 3), int), np.array([3]), np.array([2])), ValueError,
     "0/1"),
    (lambda P, h: F.classifier_forward(P, {"w": 1}, np.ones((1, 3), int), np.array([3])), TypeError, "init_head"),
    (lambda P, h: F.train_classifier(P, None, None, regime="lora"), ValueError, "regime"),
    (lambda P, h: F.fixed_subset(3, 5), ValueError, "超过"),
])
def test_errors(call, exc, match):
    P, head, *_ = _tiny()
    with pytest.raises(exc, match=match):
        call(P, head)


# ---------- 第 15.6 节的实验记录（scripts/finetune_reviews.py） ----------
def _script():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "scripts" / "finetune_reviews.py"
    spec = importlib.util.spec_from_file_location("_finetune_reviews_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_selection_and_report_splits_are_disjoint_and_the_report_split_is_the_notebooks():
    """挑设置的 600 条与报告用的 600 条互不相交；报告用的就是第 15.6 节用 fixed_subset(验证集, 600, 0) 取的那批。"""
    rec = load_record(record_path("finetune_reviews"))
    s = rec["settings"]
    sp = _script().split_validation(s["n_val_full"], s)
    assert len(sp["report"]) == s["val_subset"] and len(sp["select"]) == s["select_subset"]
    assert not set(sp["report"]) & set(sp["select"])
    assert np.array_equal(sp["report"], F.fixed_subset(s["n_val_full"], s["val_subset"], s["subset_seed"]))
    assert np.array_equal(sp["select"], np.sort(sp["select"])) and sp["select"].max() < s["n_val_full"]


def test_finetune_record_selects_on_seed_0_and_reports_fresh_seeds():
    from nlpbook.compare import unpack_correct
    rec = load_record(record_path("finetune_reviews"))
    s = rec["settings"]
    assert rec["seeds"] == [1, 2, 3] and s["select_seed"] not in rec["seeds"]
    assert set(rec["results"]) == {"scratch", "probe", "full", "tfidf_full", "tfidf_subset"}
    assert s["max_len"] == 64 and s["steps"] == s["eval_at"][-1] and rec["cpu_seconds"] > 0
    for regime in F.REGIMES:
        r, search = rec["results"][regime], s["lr_search"][regime]
        assert {f"val_acc@{st}" for st in s["eval_at"]} <= set(r) and r["final"].n == 3
        assert all(0.4 < v < 1.0 for v in r["final"].values)
        # 选中的学习率是挑设置那份上种子 0 最好的，并且在网格内部（不在边上）
        grid = search["grid"]
        assert grid == sorted(grid) == s["lr_grid"][regime] and len(grid) >= 3
        assert search["chosen"] in grid[1:-1] and not search["at_edge"]
        assert search["acc"][f"{search['chosen']:g}"] == max(search["acc"].values())
        assert search["runner_up"] != search["chosen"] and search["runner_up"] in grid
        for lr in grid:
            row = unpack_correct(search["items"][f"{lr:g}"], s["select_subset"])
            assert row.mean() == search["acc"][f"{lr:g}"]
    # 逐条结果：每个方法、每个指标、每个报告种子一行，均值就是记录里的准确率
    for method, res in rec["results"].items():
        for metric, packed in s["items"][method].items():
            assert len(packed) == 3
            rows = np.array([unpack_correct(p, s["val_subset"]) for p in packed])
            assert np.array_equal(rows.mean(axis=1), np.array(res[metric].values)), (method, metric)
    assert s["report_majority_acc"] == max(s["report_positive_frac"], 1 - s["report_positive_frac"])


def test_finetune_record_comparisons_have_the_verdicts_the_chapter_states():
    """第 15.6 节的 compare 结论：全部微调高于随机初始化与线性探针，低于两个 TF-IDF；探针与随机初始化分不开。"""
    from nlpbook.compare import compare, unpack_correct
    rec = load_record(record_path("finetune_reviews"))
    s = rec["settings"]
    T = {m: np.array([unpack_correct(p, s["val_subset"]) for p in s["items"][m]["final"]]) for m in rec["results"]}
    verdict = lambda a, b: compare(T[a], T[b], shared_items=True, shared_seeds=False).verdict  # noqa: E731
    assert (verdict("full", "scratch"), verdict("full", "probe"), verdict("probe", "scratch")) == (1, 1, 0)
    assert (verdict("full", "tfidf_subset"), verdict("full", "tfidf_full")) == (-1, -1)


@pytest.mark.record
def test_rerunning_the_probe_first_report_seed_reproduces_the_record():
    """线性探针最便宜（特征只算一次）：按记录的设置重跑第一个报告种子，在报告用的 600 条上与记录的最终准确率相同
    （允许差一条评论），逐条结果最多有一条不同（实测四种内核上都逐条相同）。"""
    from nlpbook.compare import unpack_correct
    from nlpbook.datasets import load_reviews
    from nlpbook.tiny_transformer import load_pretrained
    rec = load_record(record_path("finetune_reviews"))
    s = rec["settings"]
    lm, d = load_pretrained(), load_reviews(tokenize=False)
    sub = F.fixed_subset(len(d["train"]), s["train_subset"], s["subset_seed"])
    vsub = _script().split_validation(len(d["validation"]), s)["report"]
    train = F.encode_reviews([d["train"][i] for i in sub], lm.encode, s["max_len"])
    val = F.encode_reviews([d["validation"][i] for i in vsub], lm.encode, s["max_len"])
    P, head, hist = F.train_classifier(lm.params, train, val, regime="probe", steps=s["steps"],
                                       batch_size=s["batch_size"], lr=s["lr_search"]["probe"]["chosen"],
                                       seed=rec["seeds"][0], clip=s["clip"])
    assert abs(hist[-1]["val_acc"] - rec["results"]["probe"]["final"].values[0]) <= 1.5 / s["val_subset"]
    got = _script().correct_on(P, head, val)
    want = unpack_correct(s["items"]["probe"]["final"][0], s["val_subset"])
    assert int(np.sum(got != want)) <= 1
