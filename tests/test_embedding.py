"""embedding：第 6 章的查表、one-hot 等价、平均（含 padding）、余弦、近邻与类比。"""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from nlpbook.embedding import analogy, cosine_similarity, lookup, mean_pool, nearest, one_hot
from nlpbook.functional import sigmoid

WORDS = ["好看", "精彩", "难看", "无聊", "电影"]
TABLE = np.array([[1.0, 0.0], [0.8, 0.2], [-1.0, 0.0], [-0.8, 0.2], [0.0, 1.0]])


def test_lookup_and_one_hot_section_6_2_6_3():
    assert lookup(TABLE, 0).tolist() == [1.0, 0.0]
    assert lookup(TABLE, [4, 0]).shape == (2, 2)
    assert one_hot(0, 5).tolist() == [1, 0, 0, 0, 0]
    assert np.array_equal(one_hot([4, 1], 5) @ TABLE, lookup(TABLE, [4, 1]))
    big = np.zeros((10_000, 128))
    assert lookup(big, np.arange(20)).shape == (20, 128)


def test_mean_pooling_section_6_4():
    w = np.array([2.0, 0.0])
    s1 = mean_pool(lookup(TABLE, [4, 0]))
    s2 = mean_pool(lookup(TABLE, [4, 1]))
    assert s1.tolist() == [0.5, 0.5] and np.allclose(s2, [0.4, 0.6])
    assert s1 @ w == 1 and np.isclose(s2 @ w, 0.8)
    assert round(sigmoid(1.0), 3) == 0.731 and round(sigmoid(0.8), 3) == 0.690


def test_padding_divides_by_true_length_section_18_3():
    batch = np.array([[[0, 1], [1, 0], [0, 0]], [[1, 1], [3, 3], [2, 2]]], dtype=float)
    mask = np.array([[True, True, False], [True, True, True]])
    assert np.allclose(mean_pool(batch, mask), [[0.5, 0.5], [2, 2]])
    assert np.allclose(batch[0].sum(0) / 3, [1 / 3, 1 / 3])  # 错误的分母


@given(arrays(float, (4, 3), elements=st.floats(-5, 5)))
def test_mean_ignores_order_and_padding_content(v):
    mask = np.array([True, True, True, False])
    assert np.allclose(mean_pool(v, mask), mean_pool(v[[2, 0, 1, 3]], mask[[2, 0, 1, 3]]))
    v2 = v.copy()
    v2[3] = 99
    assert np.allclose(mean_pool(v, mask), mean_pool(v2, mask))


def test_cosine_nearest_analogy():
    assert cosine_similarity([1, 0], [0.8, 0.2]) == pytest.approx(0.8 / np.hypot(0.8, 0.2))
    assert nearest(TABLE, WORDS, "好看", k=1)[0][0] == "精彩"
    assert [w for w, _ in nearest(TABLE, WORDS, "好看", k=4)][-1] == "难看"
    # 2-D 玩具：国王 − 男人 + 女人 ≈ 女王
    words = ["国王", "女王", "男人", "女人", "香蕉"]
    t = np.array([[3, 3], [3, 1], [1, 3], [1, 1], [-2, 0.5]], dtype=float)
    assert analogy(t, words, "国王", "男人", "女人")[0][0] == "女王"


@pytest.mark.parametrize("call, exc, match", [
    (lambda: lookup(TABLE, 5), ValueError, "0..4"),
    (lambda: lookup(TABLE, 1.0), TypeError, "整数"),
    (lambda: lookup(np.zeros(3), 0), ValueError, "二维"),
    (lambda: mean_pool(np.ones((2, 2)), np.array([False, False])), ValueError, "全为 False"),
    (lambda: mean_pool(np.ones((2, 2)), np.array([1, 0])), TypeError, "布尔"),
    (lambda: mean_pool(np.ones((2, 2)), np.array([True])), ValueError, "形状"),
    (lambda: cosine_similarity([0, 0], [1, 0]), ValueError, "零向量"),
    (lambda: nearest(TABLE, WORDS[:3], "好看"), ValueError, "3 个"),
    (lambda: nearest(TABLE, WORDS, "镜头"), KeyError, "不在词表"),
    (lambda: analogy(TABLE, WORDS, "好看", "镜头", "电影"), KeyError, "镜头"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_one_hot_does_not_build_the_identity_matrix():
    """V=100,000 的 one-hot 只应占 (行数 × V) 的内存，而不是先造 V×V 的单位阵（80 GB）。"""
    oh = one_hot(np.array([3, 99_999]), 100_000)
    assert oh.shape == (2, 100_000) and oh.sum() == 2 and oh[1, 99_999] == 1
