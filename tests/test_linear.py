"""linear：第 4 章的一步更新、有限差分梯度检验、稀疏与稠密一致、训练确实降低损失。"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import linear as L
from nlpbook.datasets import TOY_REVIEWS, TOY_VOCAB
from nlpbook.sparse import CountMatrix
from nlpbook.text import Vocab, bag_of_words


def test_one_step_of_chapter_4():
    """x=1, y=1, w=0：p=0.5，梯度 -0.5，lr=0.2 → w=0.1，p≈0.525，损失 0.693 → 0.644。"""
    X, y = [[1.0]], [1]
    assert L.predict_proba([0.0], 0, X)[0] == 0.5
    gw, _ = L.gradient([0.0], 0, X, y)
    assert gw[0] == -0.5
    w, b = L.sgd_step([0.0], 0.0, X, y, lr=0.2, fit_bias=False)
    assert np.isclose(w[0], 0.1) and b == 0.0
    assert round(float(L.predict_proba(w, b, X)[0]), 3) == 0.525
    assert round(L.loss([0.0], 0, X, y), 3) == 0.693 and round(L.loss(w, b, X, y), 3) == 0.644
    assert L.gradient([0.0], 0, X, [0])[0][0] == 0.5  # 小练习：标签换成差评


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(0, 0.5))
def test_gradient_matches_finite_differences(seed, l2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(7, 4))
    y = rng.integers(0, 2, size=7)
    w, b = rng.normal(size=4), float(rng.normal())
    gw, gb = L.gradient(w, b, X, y, l2)
    eps = 1e-6
    num = [(L.loss(w + eps * e, b, X, y, l2) - L.loss(w - eps * e, b, X, y, l2)) / (2 * eps) for e in np.eye(4)]
    assert np.allclose(gw, num, atol=1e-6)
    assert np.isclose(gb, (L.loss(w, b + eps, X, y, l2) - L.loss(w, b - eps, X, y, l2)) / (2 * eps), atol=1e-6)


def _toy():
    v = Vocab(TOY_VOCAB)
    docs = [r.tokens for r in TOY_REVIEWS]
    return docs, v, np.array([r.label for r in TOY_REVIEWS])


def test_sparse_and_dense_agree():
    docs, v, y = _toy()
    Xs, Xd = CountMatrix.from_docs(docs, v), np.stack([bag_of_words(d, v) for d in docs])
    assert np.array_equal(Xs.toarray(), Xd)
    w = np.arange(7) / 7
    assert np.allclose(L.gradient(w, 0.3, Xs, y)[0], L.gradient(w, 0.3, Xd, y)[0])
    assert np.allclose(Xs.rows([5, 0]).toarray(), Xd[[5, 0]])


def test_fit_reduces_loss_and_is_deterministic():
    docs, v, y = _toy()
    X = CountMatrix.from_docs(docs, v)
    m1 = L.fit(X, y, lr=0.5, epochs=50, batch_size=2, seed=1)
    m2 = L.fit(X, y, lr=0.5, epochs=50, batch_size=2, seed=1)
    assert np.array_equal(m1.w, m2.w)
    assert m1.history[-1]["train_loss"] < m1.history[0]["train_loss"] < np.log(2)
    correct = int((m1.predict(X) == y).sum())
    # E/F 与 A/C 互相矛盾（“不”既要为正又要为负），词袋上线性不可分：最多对 5 条
    assert 4 <= correct <= 5


def test_descent_path_too_large_lr_goes_up():
    docs, v, y = _toy()
    X = np.stack([bag_of_words(d, v) for d in docs])
    small = L.descent_path(X, y, lr=0.2, steps=20)
    assert all(a >= b for a, b in zip(small, small[1:]))
    assert len(small) == 21
    huge = L.descent_path(X, y, lr=50, steps=20)
    assert any(b > a for a, b in zip(huge, huge[1:]))


@pytest.mark.parametrize("call, exc, match", [
    (lambda: L.loss([0.0], 0, [[1.0]], [2]), ValueError, "0（差评）或 1"),
    (lambda: L.loss([0.0, 1.0], 0, [[1.0]], [1]), ValueError, "2 个权重"),
    (lambda: L.loss([0.0], 0, [[1.0], [2.0]], [1]), ValueError, "1 个标签"),
    (lambda: L.sgd_step([0.0], 0, [[1.0]], [1], lr=0), ValueError, "lr 必须 > 0"),
    (lambda: L.fit([[1.0]], [1], epochs=0), ValueError, "epochs"),
    (lambda: L.predict_proba([0.0], 0, [[[1.0]]]), ValueError, "二维"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_fit_lr_decay_divides_the_rate_per_epoch_and_zero_keeps_it():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    fit = L.fit
    plain = fit(X, y, lr=0.5, epochs=3, seed=1)
    decayed = fit(X, y, lr=0.5, epochs=3, seed=1, lr_decay=1.0)
    assert [r["lr"] for r in plain.history] == [0.5, 0.5, 0.5]
    assert [r["lr"] for r in decayed.history] == pytest.approx([0.5, 0.25, 0.5 / 3])
    assert np.allclose(fit(X, y, lr=0.5, epochs=1, seed=1, lr_decay=1.0).w, fit(X, y, lr=0.5, epochs=1, seed=1).w)
    with pytest.raises(ValueError, match="lr_decay"):
        fit(X, y, lr_decay=-1.0)
