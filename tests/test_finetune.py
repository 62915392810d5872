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
def test_finetune_record_exists_and_has_the_three_regimes_and_baseline():
    rec = load_record(record_path("finetune_reviews"))
    s = rec["settings"]
    assert rec["seeds"] == [0, 1, 2]
    assert set(rec["results"]) == {"scratch", "probe", "full", "tfidf_full", "tfidf_subset"}
    for regime in F.REGIMES:
        r = rec["results"][regime]
        assert {f"val_acc@{st}" for st in s["eval_at"]} <= set(r) and r["final"].n == 3
        assert s["lr_search_seed0"][regime]["chosen"] in s["lr_grid"][regime]
        assert all(0.4 < v < 1.0 for v in r["final"].values)
    assert s["max_len"] == 64 and s["steps"] == s["eval_at"][-1] and rec["cpu_seconds"] > 0


@pytest.mark.record
def test_rerunning_the_probe_seed_0_reproduces_the_record():
    """线性探针最便宜（特征只算一次）：按记录的设置重跑种子 0，与记录的最终验证准确率相同（允许差一条评论）。"""
    from nlpbook.datasets import load_reviews
    from nlpbook.tiny_transformer import load_pretrained
    rec = load_record(record_path("finetune_reviews"))
    s = rec["settings"]
    lm, d = load_pretrained(), load_reviews(tokenize=False)
    sub = F.fixed_subset(len(d["train"]), s["train_subset"], s["subset_seed"])
    vsub = F.fixed_subset(len(d["validation"]), s["val_subset"], s["subset_seed"])
    train = F.encode_reviews([d["train"][i] for i in sub], lm.encode, s["max_len"])
    val = F.encode_reviews([d["validation"][i] for i in vsub], lm.encode, s["max_len"])
    _, _, hist = F.train_classifier(lm.params, train, val, regime="probe", steps=s["steps"], batch_size=s["batch_size"],
                                    lr=s["lr_search_seed0"]["probe"]["chosen"], seed=0, clip=s["clip"])
    assert abs(hist[-1]["val_acc"] - rec["results"]["probe"]["final"].values[0]) <= 1.5 / s["val_subset"]
