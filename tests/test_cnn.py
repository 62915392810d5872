"""cnn：第 10 章的窗口与标量卷积、形状、最大池化、感受野、反向传播的有限差分检验、错误输入。"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import cnn as C

SENT = ["这部", "电影", "不", "太", "好看"]


def test_windows_section_10_1():
    assert C.windows(SENT, 3) == [["这部", "电影", "不"], ["电影", "不", "太"], ["不", "太", "好看"]]
    assert C.windows(SENT, 1) == [[w] for w in SENT]
    assert C.windows(SENT, 5) == [SENT]


def test_scalar_convolution_section_10_2():
    """不 -1、太 0.5、好看 1，核 [2, 1, 1]，无偏置、无非线性：原窗口 -0.5，倒序 1.5。"""
    feat = {"不": -1, "太": 0.5, "好看": 1}
    x = [feat[w] for w in ["不", "太", "好看"]]
    assert C.conv1d(x, [2, 1, 1]).tolist() == [[-0.5]]
    assert C.conv1d(x[::-1], [2, 1, 1]).tolist() == [[1.5]]
    assert 2 * (-1) + 1 * 0.5 + 1 * 1 == -0.5 and 2 * 1 + 1 * 0.5 + 1 * (-1) == 1.5
    # 在整句上滑动（这部、电影 的特征设为 0）：最后一个窗口就是 [不, 太, 好看]
    fm = C.conv1d([0, 0, -1, 0.5, 1], [2, 1, 1])
    assert fm[:, 0].tolist() == [-1.0, -0.5, -0.5]
    vals, pos = C.max_over_time(fm)
    assert vals.tolist() == [-0.5] and pos.tolist() == [1]  # 并列最大取最靠前的窗口
    assert C.max_over_time([[-0.5], [1.5]])[0].tolist() == [1.5]


def test_shapes_several_kernels_and_bias():
    rng = np.random.default_rng(0)
    x, K, b = rng.normal(size=(7, 4)), rng.normal(size=(5, 3, 4)), rng.normal(size=5)
    fm = C.conv1d(x, K, b)
    assert fm.shape == (5, 5)  # 7 - 3 + 1 个窗口，5 个核
    manual = np.array([[np.sum(x[t:t + 3] * K[k]) + b[k] for k in range(5)] for t in range(5)])
    assert np.allclose(fm, manual)
    assert C.conv1d(x, K[:, :1]).shape == (7, 5)  # 宽度 1
    assert C.conv1d([1.0, 2, 3, 4], [[1, 1], [1, -1]]).tolist() == [[3, -1], [5, -1], [7, -1]]
    vals, pos = C.max_over_time(C.relu(fm))
    assert vals.shape == pos.shape == (5,) and np.all(vals >= 0)
    assert C.relu(-0.5) == 0.0 and C.relu([-0.5, 1.5]).tolist() == [0.0, 1.5]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(0, 3))
def test_reversing_sentence_and_kernel_reverses_the_feature_map(seed, width, extra):
    """窗口内不同位置用不同权重：只倒序句子会改变分数；句子和核一起倒序，得到倒序的特征图。"""
    rng = np.random.default_rng(seed)
    x, K = rng.normal(size=(width + extra, 2)), rng.normal(size=(3, width, 2))
    assert np.allclose(C.conv1d(x[::-1], K[:, ::-1]), C.conv1d(x, K)[::-1])


def test_receptive_field_slider():
    assert C.receptive_field(3) == 3
    assert C.receptive_field(3, layers=2) == 5
    assert C.receptive_field(3, layers=2, dilation=2) == 9
    assert C.receptive_field(5, layers=3) == 13
    # 小练习：宽度 3 的单层卷积看不到相距 20 个词的两个位置（需要 21 个词的感受野）
    assert C.receptive_field(3, 1) < 21 and C.receptive_field(3, 10) == 21


from _gradcheck import numgrad_inplace as numgrad  # noqa: E402


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_conv_relu_max_gradients_match_finite_differences(seed, width):
    rng = np.random.default_rng(seed)
    x, K, b = rng.normal(size=(6, 3)), rng.normal(size=(4, width, 3)), rng.normal(size=4)
    w = rng.normal(size=4)
    f = lambda: float(C.conv_relu_max(x, K, b)[0] @ w)
    dx, dK, db = C.conv_relu_max_backward(w, C.conv_relu_max(x, K, b)[1])
    assert dx.shape == x.shape and dK.shape == K.shape and db.shape == (4,)
    assert np.allclose(dx, numgrad(f, x), atol=1e-6)
    assert np.allclose(dK, numgrad(f, K), atol=1e-6)
    assert np.allclose(db, numgrad(f, b), atol=1e-6)


def test_textcnn_forward():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 3))
    sets = [rng.normal(size=(2, 2, 3)), rng.normal(size=(3, 3, 3))]
    p, feats = C.textcnn_forward(x, sets, [None, np.zeros(3)], np.ones(5), 0.0)
    assert feats.shape == (5,) and 0 < p < 1
    assert np.allclose(feats[:2], C.conv_relu_max(x, sets[0])[0])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: C.windows(SENT, 0), ValueError, "width 必须 > 0"),
    (lambda: C.windows(SENT, 6), ValueError, "只有 5 个 token"),
    (lambda: C.windows("这部电影", 2), TypeError, "token 列表"),
    (lambda: C.conv1d([1.0, 2.0], [1, 1, 1]), ValueError, "只有 2 个词，比卷积宽度 3 短"),
    (lambda: C.conv1d(np.zeros((5, 4)), np.zeros((2, 3, 2))), ValueError, "d=2 与 x 每个词的特征数 4"),
    (lambda: C.conv1d(np.zeros((5, 4)), np.zeros((2, 3))), ValueError, r"\(n_kernels, width, d\)"),
    (lambda: C.conv1d(np.zeros((5, 4)), np.zeros((2, 0, 4))), ValueError, "width 至少为 1"),
    (lambda: C.conv1d(np.zeros((5, 1)), [[1, 1]], bias=[0, 0]), ValueError, "bias 应有 1 个数"),
    (lambda: C.conv1d(np.zeros((2, 3, 4)), np.zeros((1, 1, 4))), ValueError, r"\(T, d\)"),
    (lambda: C.max_over_time(np.zeros((0, 2))), ValueError, "窗口数"),
    (lambda: C.receptive_field(0), ValueError, "width"),
    (lambda: C.receptive_field(3, layers=0), ValueError, "layers"),
    (lambda: C.conv_relu_max_backward([1.0], C.conv_relu_max(np.zeros((4, 2)), np.ones((2, 2, 2)))[1]),
     ValueError, r"d_pooled.*形状应与前向输出相同 \(2,\)"),
    (lambda: C.textcnn_forward(np.zeros((4, 2)), [np.ones((2, 2, 2))], [None], np.ones(3)), ValueError,
     "w_out 应有 2 个数"),
    (lambda: C.relu("a"), TypeError, "z 必须是数"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
