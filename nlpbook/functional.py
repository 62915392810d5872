"""常用函数：sigmoid、softmax、log_softmax 与交叉熵（numpy 实现）。

数值稳定：|z| 到几千也不会溢出或得到 NaN。
不做的事：不含自动求导；梯度在各模型模块里手写并用有限差分检验。
"""
from __future__ import annotations

import numpy as np

from ._checks import as_float_array, as_id_array, check_positive

__all__ = ["sigmoid", "softmax", "log_softmax", "cross_entropy", "binary_cross_entropy"]


def sigmoid(z):
    """把分数压到 (0, 1)：1 / (1 + exp(-z))。

    教学位置：第 3.2 节（sigmoid 表）、第 4 章。
    例：sigmoid(1) -> 0.731；sigmoid([-2, 0, 2]) -> [0.119, 0.5, 0.881]
    """
    z = as_float_array(z, "z")
    # 分正负两支计算，避免 exp 溢出
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out if out.ndim else float(out)


def _axis_ok(z: np.ndarray, axis: int) -> None:
    if z.ndim == 0:
        raise ValueError("softmax 需要至少一个候选分数（1 维或更高的数组），收到一个标量")
    if not -z.ndim <= axis < z.ndim:
        raise ValueError(f"axis={axis} 超出范围：数组只有 {z.ndim} 维")
    if z.shape[axis] == 0:
        raise ValueError("softmax 的候选数不能为 0")


def log_softmax(z, axis: int = -1):
    """log(softmax(z))，先减去最大值再算，稳定。

    教学位置：第 7.3 节、第 11 章（损失）。
    """
    z = as_float_array(z, "z")
    _axis_ok(z, axis)
    shifted = z - z.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def softmax(z, temperature: float = 1.0, axis: int = -1):
    """把一组候选分数变成和为 1 的概率：exp(z_i / T) / Σ_j exp(z_j / T)。

    教学位置：第 7.3 节（softmax）、第 11.4 节（温度）。
    temperature 必须 > 0；T → 0⁺ 的极限是贪心选择，由解码模块另行约定，这里不接受 0。
    例：softmax([2, 0, 1]) -> [0.665, 0.090, 0.245]
    """
    check_positive(temperature, "temperature")
    z = as_float_array(z, "z")
    _axis_ok(z, axis)
    return np.exp(log_softmax(z / temperature, axis=axis))


def _check_probs(p, name):
    p = as_float_array(p, name)
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"{name} 是概率，必须在 [0, 1] 之内")
    return p


def cross_entropy(logits, target, axis: int = -1):
    """多分类交叉熵 -ln softmax(logits)[target]，由 logits 直接计算（稳定）。

    教学位置：第 7.2 节（CBOW 损失 0.408）、第 11 章。
    logits 形状 (..., K)，target 为整数或整数数组（形状等于去掉最后一维）。返回每个样本的损失。
    例：cross_entropy([2, 0, 1], 0) -> 0.408
    """
    logp = log_softmax(logits, axis=axis)
    logp = np.moveaxis(logp, axis, -1)
    t = as_id_array(target, "target", size=logp.shape[-1])
    if t.shape != logp.shape[:-1]:
        raise ValueError(f"target 形状 {t.shape} 与 logits 去掉类别维后的形状 {logp.shape[:-1]} 不一致")
    loss = -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]
    return loss if loss.ndim else float(loss)


def binary_cross_entropy(p=None, y=None, *, logits=None):
    """二分类交叉熵 -[y ln p + (1-y) ln(1-p)]。

    教学位置：第 4.2 节（损失表 2.303、0.693、0.105）。
    给概率 p，或给分数 logits（更稳定，|z| 很大也不会得到 inf）。y 取 0 或 1（也接受 [0,1] 的软标签）。
    例：binary_cross_entropy(0.5, 1) -> 0.693
    """
    if (p is None) == (logits is None):
        raise TypeError("请只给 p（概率）或 logits（分数）中的一个")
    if y is None:
        raise TypeError("缺少标签 y（0 或 1）")
    y = _check_probs(y, "y")
    if logits is not None:
        z = as_float_array(logits, "logits")
        # -[y log σ(z) + (1-y) log(1-σ(z))] = max(z,0) - z*y + log(1 + exp(-|z|))
        loss = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))
    else:
        p = _check_probs(p, "p")
        with np.errstate(divide="ignore"):
            loss = -(np.where(y > 0, y * np.log(p), 0.0) + np.where(y < 1, (1 - y) * np.log1p(-p), 0.0))
    return loss if np.ndim(loss) else float(loss)
