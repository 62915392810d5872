"""每个手写反向都用同一个检查（_checks.check_upstream_grad）：上游梯度的形状必须与前向输出完全相同。

(2, 4) 的输出收到转置的 (4, 2) 梯度时，元素个数相同，悄悄 reshape 会算出错的梯度；这里逐个确认它们都报错，
而形状正确的梯度照常通过。
"""
import numpy as np
import pytest

from nlpbook import attention as A
from nlpbook import cnn as C
from nlpbook import layers as LY
from nlpbook import rnn as R
from nlpbook import transformer as TF

RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 4))          # 两个 token，每个 4 维：各层的输出也是 (2, 4)
XIN = RNG.normal(size=(2, 3))        # RNN 单元：batch 2，输入 3 维，隐藏 4 维 → 输出 (2, 4)
H0 = RNG.normal(size=(2, 4))


def _layer_norm():
    y, cache = LY.layer_norm_forward(X, np.ones(4), np.zeros(4))
    return y.shape, lambda g: LY.layer_norm_backward(g, cache)


def _ffn():
    y, cache = LY.ffn_forward(X, LY.init_ffn_params(4, 8, np.random.default_rng(1), np.float64))
    return y.shape, lambda g: LY.ffn_backward(g, cache)


def _mha():
    y, cache = A.mha_forward(X, A.init_mha_params(4, np.random.default_rng(1), dtype=np.float64), 2)
    return y.shape, lambda g: A.mha_backward(g, cache)


def _block():
    y, cache = TF.block_forward(X, TF.init_block_params(4, 8, np.random.default_rng(1), np.float64), 2)
    return y.shape, lambda g: TF.block_backward(g, cache)


def _rnn():
    h, cache = R.rnn_cell(XIN, H0, RNG.normal(size=(3, 4)), RNG.normal(size=(4, 4)), np.zeros(4), return_cache=True)
    return h.shape, lambda g: R.rnn_cell_backward(g, cache)


def _lstm(which):
    P = {"W": RNG.normal(size=(7, 16)) * 0.3, "b": np.zeros(16)}
    h, c, cache = R.lstm_cell(XIN, H0, H0, P)
    if which == "dh":
        return h.shape, lambda g: R.lstm_cell_backward(g, None, cache)
    return c.shape, lambda g: R.lstm_cell_backward(np.zeros(h.shape), g, cache)


def _gru():
    h, cache = R.gru_cell(XIN, H0, R.init_cell_params("gru", 3, 4, seed=1), return_cache=True)
    return h.shape, lambda g: R.gru_cell_backward(g, cache)


CASES = {"layer_norm_backward": _layer_norm, "ffn_backward": _ffn, "mha_backward": _mha,
         "block_backward": _block, "rnn_cell_backward": _rnn, "lstm_cell_backward(dh)": lambda: _lstm("dh"),
         "lstm_cell_backward(dc)": lambda: _lstm("dc"), "gru_cell_backward": _gru}


@pytest.mark.parametrize("name", CASES)
def test_transposed_upstream_gradient_is_rejected(name):
    shape, backward = CASES[name]()
    assert shape == (2, 4)
    backward(np.ones(shape))                                   # 形状对：照常通过
    with pytest.raises(ValueError, match=r"形状应与前向输出相同 \(2, 4\)，收到 \(4, 2\)"):
        backward(np.ones((4, 2)))                              # 转置：元素个数相同，也要报错
    with pytest.raises(ValueError, match="形状应与前向输出相同"):
        backward(np.ones(8))                                   # 展平的也不行


def test_conv_backward_rejects_a_column_gradient():
    """conv_relu_max 的输出是每个核一个数 (n_k,)：(n_k, 1) 的列向量或 (2, 4) 都不接受。"""
    pooled, cache = C.conv_relu_max(RNG.normal(size=(6, 3)), RNG.normal(size=(8, 2, 3)))
    assert pooled.shape == (8,)
    C.conv_relu_max_backward(np.ones(8), cache)
    for bad in ((8, 1), (2, 4)):
        with pytest.raises(ValueError, match=r"形状应与前向输出相同 \(8,\)"):
            C.conv_relu_max_backward(np.ones(bad), cache)


def test_one_dimensional_cells_take_one_dimensional_gradients():
    """单元也接受一维输入（batch=1）：这时输出是一维，上游梯度也必须是一维。"""
    h, cache = R.gru_cell(XIN[0], H0[0], R.init_cell_params("gru", 3, 4, seed=1), return_cache=True)
    assert h.shape == (4,)
    R.gru_cell_backward(np.ones(4), cache)
    with pytest.raises(ValueError, match=r"\(4,\)，收到 \(1, 4\)"):
        R.gru_cell_backward(np.ones((1, 4)), cache)
