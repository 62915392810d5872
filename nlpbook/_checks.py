"""输入检查的小工具：各模块共用，让错误信息说清“收到了什么、允许什么”。

只做类型与取值检查，不做任何计算。
"""
from __future__ import annotations

import numbers

import numpy as np


def as_float_array(x, name: str, *, min_ndim: int = 0) -> np.ndarray:
    """把数、列表或数组转成 float 数组；非数值、NaN 或维度不足时报错。"""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} 必须是数或数值数组，收到 {type(x).__name__}")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} 必须是数或数值数组，收到 {type(x).__name__}") from exc
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} 至少要有 {min_ndim} 维，收到形状 {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} 含有 NaN 或无穷大；只允许有限的数")
    return arr


def as_float_array_keep(a, name: str) -> np.ndarray:
    """同 as_float_array，但 float32/float64 数组原样返回（训练循环用 float32，不被升成 float64）。"""
    if isinstance(a, np.ndarray) and a.dtype in (np.float32, np.float64):
        if a.size and not np.all(np.isfinite(a)):
            raise ValueError(f"{name} 含有 NaN 或无穷大；只允许有限的数")
        return a
    return as_float_array(a, name)


def check_upstream_grad(g, shape, name: str) -> np.ndarray:
    """反向传播收到的上游梯度：同 as_float_array_keep，且形状必须与前向输出相同。"""
    g = as_float_array_keep(g, name)
    if g.shape != tuple(shape):
        raise ValueError(f"{name} 的形状应与前向输出相同 {tuple(shape)}，收到 {g.shape}")
    return g


def check_positive(value, name: str, *, integer: bool = False, allow_zero: bool = False):
    """检查一个正数（或非负数）参数，返回原值。"""
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "整数" if integer else "数"
        raise TypeError(f"{name} 必须是{what}，收到 {type(value).__name__}")
    ok = value >= 0 if allow_zero else value > 0
    if not ok or (not integer and not np.isfinite(value)):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} 必须 {bound}，收到 {value}")
    return value


def check_tokens(tokens, name: str = "tokens") -> list[str]:
    """检查 token 列表：必须是字符串组成的列表或元组（不能直接给一个字符串）。"""
    if isinstance(tokens, str):
        raise TypeError(f"{name} 必须是 token 列表（如 ['电影', '好看']），收到一个字符串 {tokens!r}；"
                        "请先分词")
    try:
        tokens = list(tokens)
    except TypeError as exc:
        raise TypeError(f"{name} 必须是 token 列表，收到 {type(tokens).__name__}") from exc
    for t in tokens:
        if not isinstance(t, str):
            raise TypeError(f"{name} 的每一项都必须是 str，收到 {type(t).__name__}: {t!r}")
    return tokens
