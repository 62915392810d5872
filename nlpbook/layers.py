"""Transformer 层里除注意力以外的部件：LayerNorm 与前馈网络 FFN（GELU 或 ReLU）。

每个部件都有前向（返回 输出 和 cache）与手写反向（测试里用有限差分检验）。
数组约定：x 的最后一维是特征；float32 输入保持 float32（训练用），其余转成 float64。
权重用行向量约定 y = x @ W + b，W 形状 (d_in, d_out)，与 attention 模块一致。
不做的事：不做 dropout、RMSNorm、混合精度；注意力本身在 attention 模块，整层与语言模型在 transformer 模块，
优化器（Adam）在 optim 模块。
"""
from __future__ import annotations

import math

import numpy as np

from ._checks import as_float_array_keep, check_positive, check_rng, check_upstream_grad

__all__ = ["layer_norm_forward", "layer_norm_backward", "gelu", "init_ffn_params", "check_activation", "ffn_forward",
           "ffn_backward"]

_C = math.sqrt(2.0 / math.pi)  # GELU tanh 近似里的 √(2/π)
_A = 0.044715
ACTIVATIONS = ("gelu", "relu")


_float = as_float_array_keep  # float32/float64 原样保留，其余转成 float64；拒绝 NaN 与无穷大


def _vec(a, name: str, d: int, dtype) -> np.ndarray:
    """gamma/beta：(d,) 的数组，或一个数（每个特征都用它）。数和列表取 x 的精度（float32 不被升成 float64）。"""
    keep = isinstance(a, np.ndarray) and a.ndim > 0
    a = _float(a, name)
    if not keep:
        a = a.astype(dtype, copy=False)
    if a.shape == ():
        a = np.full(d, a, dtype=a.dtype)
    if a.shape != (d,):
        raise ValueError(f"{name} 的形状应为 ({d},)（每个特征一个数），收到 {a.shape}")
    return a


# ---------- 第 13.8 节：LayerNorm ----------
def _ln_fwd(x2, gamma, beta, eps):
    """不做检查的内部版本：x2 形状 (N, d)。"""
    mu = x2.mean(axis=-1, keepdims=True)
    xhat = x2 - mu
    var = (xhat * xhat).mean(axis=-1, keepdims=True)
    var += eps
    rstd = np.sqrt(var, out=var)
    np.divide(1.0, rstd, out=rstd)
    xhat *= rstd
    y = xhat * gamma
    y += beta
    return y, (xhat, rstd, gamma)


def _ln_bwd(dy, cache):
    xhat, rstd, gamma = cache
    dgamma = (dy * xhat).sum(axis=0)
    dbeta = dy.sum(axis=0)
    g = dy * gamma
    m1 = g.mean(axis=-1, keepdims=True)
    m2 = (g * xhat).mean(axis=-1, keepdims=True)
    g -= m1
    g -= xhat * m2
    g *= rstd
    return g, dgamma, dbeta


def layer_norm_forward(x, gamma, beta, eps: float = 1e-5):
    """对每个 token 的特征做归一化：(x − 均值) / √(方差 + eps)，再乘 gamma、加 beta。返回 (y, cache)。

    教学位置：第 13.8 节（LayerNorm）、附录 B。x 形状 (..., d)；gamma、beta 形状 (d,)（或一个数）。
    方差用总体方差（除以 d）。例：[1, 3]，gamma=1、beta=0 → 均值 2，减去后 [-1, 1]，
    方差 1，结果 [-0.999995, 0.999995]（eps 只改动最后几位，三位小数是 [-1.0, 1.0]）。
    """
    x = _float(x, "x")
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"x 至少要有 1 维，且最后一维（特征数）不为 0，收到形状 {x.shape}")
    check_positive(eps, "eps")
    d = x.shape[-1]
    gamma, beta = _vec(gamma, "gamma", d, x.dtype), _vec(beta, "beta", d, x.dtype)
    y, cache = _ln_fwd(x.reshape(-1, d), gamma, beta, eps)
    return y.reshape(x.shape), (cache, x.shape)


def _backward_on_rows(inner_backward, d_out, cache, name: str):
    """各层反向的共同外壳：上游梯度的形状必须等于前向输出 → 展平成 (N, d) 交给内部版本 → dx 还原成输入的形状。

    cache 是前向返回的 (内部 cache, x 的形状)；返回 (dx, 内部版本的其余返回值…)。
    """
    inner, shape = cache
    g = check_upstream_grad(d_out, shape, name)
    dx, *rest = inner_backward(g.reshape(-1, shape[-1]), inner)
    return (dx.reshape(shape), *rest)


def layer_norm_backward(dy, cache):
    """layer_norm_forward 的反向：给 ∂L/∂y，返回 (dx, dgamma, dbeta)。

    dx = (1/σ)·(g − mean(g) − x̂·mean(g·x̂))，其中 g = dy·gamma，x̂ 是归一化后的 x。
    """
    return _backward_on_rows(_ln_bwd, dy, cache, "dy")


# ---------- 第 13.8 节：FFN ----------
def _gelu_parts(h):
    """返回 (gelu(h), t)，t = tanh(√(2/π)(h + 0.044715 h³))，反向要用。用 h*h 而不是 h**3（快得多）。"""
    t = h * h
    t *= _A * _C
    t += _C
    t *= h
    np.tanh(t, out=t)
    a = t + 1.0
    a *= h
    a *= 0.5
    return a, t


def gelu(x):
    """GELU 激活（tanh 近似）：0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))。教学位置：第 13.8 节（FFN 中的非线性）。

    例：gelu([-1, 0, 1]) → [-0.159, 0, 0.841]；x 很大时 ≈ x，很负时 ≈ 0。
    """
    x = _float(x, "x")
    out = _gelu_parts(np.atleast_1d(x))[0]
    return out.reshape(x.shape) if x.ndim else float(out[0])


def init_ffn_params(d_model: int, d_ff: int, rng: np.random.Generator, dtype=np.float32) -> dict:
    """FFN 参数：W1 (d_model, d_ff) ~ N(0, 1/d_model)，W2 (d_ff, d_model) ~ N(0, 1/d_ff)，偏置 b1、b2 为 0。

    教学位置：第 13.8 节（课文的例子：128 → 512 → 128）。
    """
    check_positive(d_model, "d_model", integer=True)
    check_positive(d_ff, "d_ff", integer=True)
    check_rng(rng)
    return {"W1": (rng.standard_normal((d_model, d_ff)) / math.sqrt(d_model)).astype(dtype),
            "b1": np.zeros(d_ff, dtype),
            "W2": (rng.standard_normal((d_ff, d_model)) / math.sqrt(d_ff)).astype(dtype),
            "b2": np.zeros(d_model, dtype)}


def check_activation(activation: str) -> None:
    """检查 FFN 的激活函数名：只能是 'gelu' 或 'relu'（ACTIVATIONS），否则 ValueError。教学位置：第 13.8 节（FFN 中的非线性）。"""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation 只能是 {ACTIVATIONS} 之一，收到 {activation!r}")


def _ffn_fwd(x2, P, activation):
    """不做检查的内部版本：x2 形状 (N, d_model)。"""
    h = x2 @ P["W1"]
    h += P["b1"]
    if activation == "gelu":
        a, t = _gelu_parts(h)
    else:
        a, t = np.maximum(h, 0.0), None
    out = a @ P["W2"]
    out += P["b2"]
    return out, (x2, h, t, a, P, activation)


def _ffn_bwd(g2, cache):
    x2, h, t, a, P, activation = cache
    grads = {"W2": a.T @ g2, "b2": g2.sum(axis=0)}
    da = g2 @ P["W2"].T
    if activation == "gelu":  # gelu'(h) = 0.5(1+t) + 0.5·h·(1−t²)·√(2/π)(1 + 3·0.044715·h²)
        s = h * h
        s *= 3 * _A * _C
        s += _C
        s *= h
        u = t * t
        np.subtract(1.0, u, out=u)
        u *= s
        u += t
        u += 1.0
        u *= 0.5
        da *= u
    else:
        da *= h > 0
    grads["W1"] = x2.T @ da
    grads["b1"] = da.sum(axis=0)
    return da @ P["W1"].T, grads


def _ffn_params(params) -> dict:
    if not isinstance(params, dict) or any(k not in params for k in ("W1", "b1", "W2", "b2")):
        raise ValueError("FFN 参数必须是含 W1、b1、W2、b2 的字典；可用 init_ffn_params 生成")
    P = {k: _float(params[k], k) for k in ("W1", "b1", "W2", "b2")}
    d, f = P["W1"].shape if P["W1"].ndim == 2 else (None, None)
    want = {"W1": (d, f), "b1": (f,), "W2": (f, d), "b2": (d,)}
    for k, shape in want.items():
        if d is None or P[k].shape != shape:
            raise ValueError(f"FFN 参数形状不一致：需要 W1 (d, d_ff)、b1 (d_ff,)、W2 (d_ff, d)、b2 (d,)，"
                             f"收到 {({k2: P[k2].shape for k2 in P})}")
    return P


def ffn_forward(x, params: dict, activation: str = "gelu"):
    """逐位置的前馈网络：FFN(x) = act(x @ W1 + b1) @ W2 + b2，返回 (out, cache)。

    教学位置：第 13.8 节、附录 B（“两个线性变换和中间非线性函数，各位置独立应用同一套参数”）。
    x 形状 (..., d_model)；activation 为 'gelu'（tanh 近似，GPT 系列的做法，默认）或 'relu'（原始 Transformer）。
    """
    check_activation(activation)
    P = _ffn_params(params)
    x = _float(x, "x")
    d = P["W1"].shape[0]
    if x.ndim == 0 or x.shape[-1] != d:
        raise ValueError(f"x 的最后一维应为 d_model={d}，收到形状 {x.shape}")
    out, cache = _ffn_fwd(x.reshape(-1, d), P, activation)
    return out.reshape(x.shape), (cache, x.shape)


def ffn_backward(d_out, cache):
    """ffn_forward 的反向：给 ∂L/∂out，返回 (dx, grads)，grads 含 W1、b1、W2、b2。"""
    return _backward_on_rows(_ffn_bwd, d_out, cache, "d_out")
