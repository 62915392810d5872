"""文本卷积（第 10 章）：滑动窗口、一维卷积、ReLU、沿时间的最大池化、感受野，
以及“卷积 + ReLU + 最大池化”的手写反向传播（供后面的章节训练 TextCNN）。

约定：一个句子 x 形状 (T, d)（一维 (T,) 视为每个词一个标量特征，d=1）；卷积核 kernels 形状
(n_kernels, width, d)；步长 1、不补零（no padding），所以有 T − width + 1 个窗口，T < width 时报错。
每个窗口与核逐位置相乘再全部相加（不翻转核，即深度学习框架里的“卷积”）。
conv_relu_max 及其反向也接受一批补齐的句子 x (B, T, d) 和掩码 mask (B, T)：含 <PAD> 的窗口不参与最大池化，
所以每句的结果与单独计算时相同（textcnn 模块的批量训练用它）。
不做的事：不实现步长 > 1 或扩张卷积的计算（扩张只在 receptive_field 里算感受野）。
"""
from __future__ import annotations

import numpy as np

from ._checks import as_float_array, check_positive, check_tokens, check_upstream_grad
from .functional import sigmoid

__all__ = ["windows", "conv1d", "relu", "max_over_time", "receptive_field", "conv_relu_max",
           "conv_relu_max_backward", "textcnn_forward"]


def windows(tokens, width: int) -> list[list[str]]:
    """宽度为 width 的滑动窗口（步长 1）。教学位置：第 10.1 节。

    例：windows(['这部', '电影', '不', '太', '好看'], 3) -> [[这部,电影,不], [电影,不,太], [不,太,好看]]
    """
    tokens = check_tokens(tokens)
    check_positive(width, "width", integer=True)
    if len(tokens) < width:
        raise ValueError(f"句子只有 {len(tokens)} 个 token，比窗口宽度 {width} 短，一个完整窗口也没有")
    return [tokens[i:i + width] for i in range(len(tokens) - width + 1)]


def _x_kernels(x, kernels):
    x = as_float_array(x, "x")
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"x 必须是 (T, d) 的二维数组（或 (T,) 的标量特征），收到形状 {x.shape}")
    K = as_float_array(kernels, "kernels")
    if K.ndim == 1:
        K = K[None, :, None]  # 一个核、标量特征
    elif K.ndim == 2 and x.shape[1] == 1:
        K = K[:, :, None]     # 多个核、标量特征
    if K.ndim != 3:
        raise ValueError(f"kernels 必须是 (n_kernels, width, d)，收到形状 {np.shape(kernels)}")
    n_k, width, d = K.shape
    if n_k < 1 or width < 1:
        raise ValueError(f"至少要有一个卷积核，宽度 width 至少为 1，收到 kernels 形状 {K.shape}")
    if d != x.shape[1]:
        raise ValueError(f"kernels 的最后一维 d={d} 与 x 每个词的特征数 {x.shape[1]} 不一致")
    if x.shape[0] < width:
        raise ValueError(f"句子只有 {x.shape[0]} 个词，比卷积宽度 {width} 短，没有完整窗口；"
                         "请补 padding 或减小宽度")
    return x, K


def _bias(bias, n_k):
    if bias is None:
        return np.zeros(n_k)
    b = as_float_array(bias, "bias").reshape(-1)
    if b.shape != (n_k,):
        raise ValueError(f"bias 应有 {n_k} 个数（每个卷积核一个），收到 {b.size} 个")
    return b


def _unfold(x, width):
    """(T, d) → (窗口数, width·d)：每行是一个窗口按顺序展平。"""
    w = np.lib.stride_tricks.sliding_window_view(x, width, axis=0)  # (n_win, d, width)
    return w.transpose(0, 2, 1).reshape(w.shape[0], -1)


def conv1d(x, kernels, bias=None) -> np.ndarray:
    """一维卷积：每个窗口与每个核逐位置相乘再相加（加偏置），返回 (窗口数, n_kernels)。教学位置：第 10.2 节。

    例：conv1d([-1, 0.5, 1], [2, 1, 1]) -> [[-0.5]]（不 太 好看）；倒序 [1, 0.5, -1] -> [[1.5]]
    """
    x, K = _x_kernels(x, kernels)
    b = _bias(bias, K.shape[0])
    return _unfold(x, K.shape[1]) @ K.reshape(K.shape[0], -1).T + b


def relu(z):
    """max(0, z)，逐元素。教学位置：第 10.2 节（“真实模型使用非线性函数”）。例：relu([-0.5, 1.5]) -> [0, 1.5]"""
    z = as_float_array(z, "z")
    out = np.maximum(z, 0.0)
    return out if out.ndim else float(out)


def max_over_time(feature_map):
    """沿窗口（时间）取最大值：每个核只留最强的一次出现。返回 (最大值 (n_kernels,), 所在窗口编号 (n_kernels,))。

    教学位置：第 10.2 节（max pooling）。并列最大时取最靠前的窗口。
    例：max_over_time([[-0.5], [1.5]]) -> ([1.5], [1])
    """
    fm = as_float_array(feature_map, "feature_map")
    if fm.ndim == 1:
        fm = fm[:, None]
    if fm.ndim != 2 or fm.shape[0] == 0:
        raise ValueError(f"feature_map 必须是 (窗口数 ≥ 1, n_kernels) 的二维数组，收到形状 {fm.shape}")
    pos = fm.argmax(axis=0)
    return fm[pos, np.arange(fm.shape[1])], pos


def receptive_field(width: int, layers: int = 1, dilation: int = 1) -> int:
    """堆叠 layers 层步长 1 的卷积后，一个输出位置能看到的词数：1 + layers·(width−1)·dilation。

    教学位置：第 10.2 节（感受野）。例：receptive_field(3) -> 3；receptive_field(3, 2) -> 5；
    相距 20 个词的两个位置（共 21 个词）要 receptive_field(3, 10) = 21。
    """
    check_positive(width, "width", integer=True)
    check_positive(layers, "layers", integer=True)
    check_positive(dilation, "dilation", integer=True)
    return 1 + layers * (width - 1) * dilation


def conv_relu_max(x, kernels, bias=None, mask=None):
    """卷积 → ReLU → 沿时间最大池化，得到每个核一个数 (n_kernels,)；返回 (pooled, cache)。教学位置：第 10.2 节。

    批量：x 形状 (B, T, d)、mask 形状 (B, T)（True 为真实 token）时返回 (B, n_kernels)。窗口里只要有一个
    <PAD> 就不算数（记作 ReLU 之后的 0，梯度也为 0），所以补多少个 <PAD> 都不改变每句的结果。
    例：conv_relu_max([[-1.], [0.5], [1.]], [[[2.], [1.], [1.]]])[0] -> [0.]（−0.5 经 ReLU 变 0）
    """
    x_in = as_float_array(x, "x")
    if x_in.ndim == 3:
        return _conv_relu_max_batch(x_in, kernels, bias, mask)
    if mask is not None:
        raise ValueError("mask 只用于一批句子 x (B, T, d)；单句 x (T, d) 不需要 mask")
    x, K = _x_kernels(x_in, kernels)
    b = _bias(bias, K.shape[0])
    cols = _unfold(x, K.shape[1])
    pre = cols @ K.reshape(K.shape[0], -1).T + b
    pooled, pos = max_over_time(np.maximum(pre, 0.0))
    active = pre[pos, np.arange(K.shape[0])] > 0
    return pooled, {"x": x, "K": K, "cols": cols, "pos": pos, "active": active}


def _conv_relu_max_batch(x, kernels, bias, mask):
    B, T, d = x.shape
    K = as_float_array(kernels, "kernels")
    if K.ndim != 3 or K.shape[0] < 1 or K.shape[1] < 1 or K.shape[2] != d:
        raise ValueError(f"一批句子 x (B, T, d={d}) 要配 kernels (n_kernels ≥ 1, width ≥ 1, {d})，"
                         f"收到形状 {np.shape(kernels)}")
    n_k, width, _ = K.shape
    m = np.ones((B, T), bool) if mask is None else np.asarray(mask)
    if m.dtype != bool or m.shape != (B, T):
        raise ValueError(f"mask 必须是形状 {(B, T)} 的布尔数组（True 为真实 token），"
                         f"收到 dtype {m.dtype}、形状 {m.shape}")
    if T < width:
        raise ValueError(f"补齐后只有 {T} 个位置，比卷积宽度 {width} 短，没有完整窗口")
    ok = np.lib.stride_tricks.sliding_window_view(m, width, axis=1).all(axis=2)   # (B, 窗口数)：窗口里全是真实 token
    if not ok.any(axis=1).all():
        raise ValueError(f"有的句子真实 token 少于卷积宽度 {width}，没有完整窗口；请先把它补到 {width} 个 token")
    b = _bias(bias, n_k)
    w = np.lib.stride_tricks.sliding_window_view(x, width, axis=1)                # (B, 窗口数, d, width)
    cols = w.transpose(0, 1, 3, 2).reshape(B, w.shape[1], width * d)
    pre = cols @ K.reshape(n_k, -1).T + b                                          # (B, 窗口数, n_k)
    pre = np.where(ok[:, :, None], pre, -np.inf)
    fm = np.maximum(pre, 0.0)
    pos = fm.argmax(axis=1)                                                        # (B, n_k)
    rows = np.arange(B)[:, None]
    pooled = fm[rows, pos, np.arange(n_k)]
    active = pre[rows, pos, np.arange(n_k)] > 0
    return pooled, {"x": x, "K": K, "cols": cols, "pos": pos, "active": active}


def conv_relu_max_backward(d_pooled, cache):
    """conv_relu_max 的反向：给 ∂L/∂pooled，返回 (∂L/∂x (T, d) 或批量时 (B, T, d), ∂L/∂kernels, ∂L/∂bias)。

    教学位置：第 10 章（训练 TextCNN 时卷积核怎样被更新）。
    梯度只流向每个核取到最大值的那个窗口（且该处 ReLU 未截断）。
    """
    K, x, pos = cache["K"], cache["x"], cache["pos"]
    n_k, width, d = K.shape
    if x.ndim == 3:
        return _backward_batch(d_pooled, cache)
    dp = check_upstream_grad(d_pooled, (n_k,), "d_pooled（每个卷积核一个数）")
    dfm = np.zeros((cache["cols"].shape[0], n_k))
    dfm[pos, np.arange(n_k)] = dp * cache["active"]
    dK = (dfm.T @ cache["cols"]).reshape(K.shape)
    dcols = (dfm @ K.reshape(n_k, -1)).reshape(-1, width, d)
    dx = np.zeros_like(x)
    for j in range(width):  # 第 j 个位置的贡献整体平移 j 行再相加（切片相加，不会丢掉重复位置）
        dx[j:j + dcols.shape[0]] += dcols[:, j]
    return dx, dK, dfm.sum(axis=0)


def _backward_batch(d_pooled, cache):
    K, x, pos, cols = cache["K"], cache["x"], cache["pos"], cache["cols"]
    n_k, width, d = K.shape
    B, n_win = cols.shape[:2]
    dp = check_upstream_grad(d_pooled, (B, n_k), "d_pooled（每句、每个卷积核一个数）")
    dfm = np.zeros((B, n_win, n_k), dtype=np.result_type(dp, cols))
    dfm[np.arange(B)[:, None], pos, np.arange(n_k)] = dp * cache["active"]
    dK = (dfm.reshape(-1, n_k).T @ cols.reshape(-1, width * d)).reshape(K.shape)
    dcols = (dfm @ K.reshape(n_k, -1)).reshape(B, n_win, width, d)
    dx = np.zeros(x.shape, dtype=dcols.dtype)
    for j in range(width):
        dx[:, j:j + n_win] += dcols[:, :, j]
    return dx, dK, dfm.sum(axis=(0, 1))


def textcnn_forward(x, kernel_sets, biases, w_out, b_out: float = 0.0):
    """一个最小的 TextCNN（Kim 2014 的结构）：几组不同宽度的卷积核各自 卷积→ReLU→最大池化，拼接后接逻辑回归。

    教学位置：第 10 章。kernel_sets 是若干个 (n_k, width, d) 数组，biases 与之一一对应（可为 None）。
    返回 (好评概率, 拼接后的特征)。
    """
    if len(kernel_sets) == 0 or len(kernel_sets) != len(biases):
        raise ValueError(f"kernel_sets 与 biases 必须一一对应且非空，收到 {len(kernel_sets)} 与 {len(biases)} 个")
    feats = np.concatenate([conv_relu_max(x, K, b)[0] for K, b in zip(kernel_sets, biases)])
    w = as_float_array(w_out, "w_out").reshape(-1)
    if w.shape != feats.shape:
        raise ValueError(f"w_out 应有 {feats.size} 个数（所有卷积核的总数），收到 {w.size} 个")
    return sigmoid(float(feats @ w) + float(b_out)), feats
