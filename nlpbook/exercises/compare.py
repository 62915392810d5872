"""比较读者的结果与参考结果，并把输入、输出写成一行能读的文字。

same(expected, got) -> (是否相同, 不同在哪里)：数与数组按容差比（读者返回 float32 时按 float32 的精度），
字典比键再比值，列表/元组逐项比，字符串按内容比（str 的子类也算），其他值用 ==。
例：same([0.5, 0.5], [0.5, 0.6]) -> (False, '第 1 项应为 0.5，得到 0.6')
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["same", "describe", "SINGLE_RTOL", "SINGLE_ATOL"]

# 读者返回 float32 时的容差：float32 的机器精度约 1.2e-7，输入大到 1000（如超大 logits）时
# 减法就丢掉约 6e-5 的绝对精度，所以相对误差放到 1e-4；课程里没有哪个已知错误只差这么一点
SINGLE_RTOL, SINGLE_ATOL = 1e-4, 1e-6


def _is_num(x) -> bool:
    return isinstance(x, (numbers.Number, np.number)) and not isinstance(x, (bool, np.bool_))


def _is_arraylike(x) -> bool:
    """ndarray，或能整齐地变成数值数组的非空列表/元组（字符串列表、参差不齐的嵌套列表不算）。"""
    if isinstance(x, np.ndarray):
        return True
    if not isinstance(x, (list, tuple)) or not x:
        return False
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.dtype != object


def _as_array(x):
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None
    return arr


def same(expected, got, *, atol: float = 1e-6, rtol: float = 1e-6, path: str = "") -> tuple[bool, str]:
    """expected 与 got 是否在容差内相同；不同时第二项用一句话说明第一处不同。"""
    where = f"{path}" if path else ""
    if isinstance(expected, (bool, np.bool_)):
        ok = isinstance(got, (bool, np.bool_)) and bool(got) == bool(expected)
        return ok, "" if ok else f"{where}应为 {expected}，得到 {describe(got)}"
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return False, f"{where}应返回字典 dict，得到 {type(got).__name__}"
        if set(expected) != set(got):
            extra, miss = set(got) - set(expected), set(expected) - set(got)
            parts = []
            if miss:
                parts.append(f"缺少键 {describe(sorted(miss, key=repr))}")
            if extra:
                parts.append(f"多出键 {describe(sorted(extra, key=repr))}")
            return False, where + "，".join(parts)
        for k in expected:
            ok, why = same(expected[k], got[k], atol=atol, rtol=rtol, path=f"{path}[{k!r}] ")
            if not ok:
                return ok, why
        return True, ""
    if _is_num(expected) or isinstance(expected, np.ndarray) or _is_arraylike(expected):
        exp = np.asarray(expected, dtype=float)
        if got is None:
            return False, f"{where}没有返回值（None）；记得 return"
        arr = _as_array(got)
        if arr is None or arr.dtype == object:
            return False, f"{where}应为数值{'数组' if exp.ndim else ''}，得到 {type(got).__name__}"
        if _is_single(got):   # float32 只有约 7 位有效数字：按它做得到的精度比
            atol, rtol = max(atol, SINGLE_ATOL), max(rtol, SINGLE_RTOL)
        if arr.shape != exp.shape:
            return False, f"{where}形状应为 {exp.shape}，得到 {arr.shape}"
        bad = ~np.isfinite(arr) & np.isfinite(exp)   # 读者得到 NaN/无穷大，而应得的是有限数
        if bad.any():
            if exp.ndim == 0:
                return False, f"{where}得到了 NaN 或无穷大"
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            return False, f"{where}第 {idx[0] if len(idx) == 1 else idx} 项是 NaN 或无穷大"
        close = np.isclose(arr, exp, atol=atol, rtol=rtol, equal_nan=True) | (arr == exp)
        if not close.all():
            if exp.ndim == 0:
                e, g = _distinct(exp, arr)
                return False, f"{where}应为 {e}，得到 {g}"
            idx = tuple(int(i) for i in np.argwhere(~close)[0])
            pos = idx[0] if len(idx) == 1 else idx
            e, g = _distinct(exp[idx], arr[idx])
            return False, f"{where}第 {pos} 项应为 {e}，得到 {g}"
        return True, ""
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple, np.ndarray)):
            return False, f"{where}应为列表或元组，得到 {type(got).__name__}"
        if len(got) != len(expected):
            return False, f"{where}应有 {len(expected)} 项，得到 {len(got)} 项"
        for i, (e, g) in enumerate(zip(expected, got)):
            ok, why = same(e, g, atol=atol, rtol=rtol, path=f"{path}第 {i} 项 ")
            if not ok:
                return ok, why
        return True, ""
    if isinstance(expected, str):   # str 的子类（如 np.char 得到的 np.str_）按内容比
        ok = isinstance(got, str) and str(got) == expected
        if not ok and isinstance(got, str):
            return False, f"{where}应为 {expected!r}，得到 {str(got)!r}"
        return ok, "" if ok else f"{where}应为 {expected!r}，得到 {describe(got)}"
    ok = type(got) is type(expected) and got == expected
    return ok, "" if ok else f"{where}应为 {describe(expected)}，得到 {describe(got)}"


def _is_single(x) -> bool:
    """读者返回的是 float32（或更低精度）的数或数组。"""
    dtype = getattr(x, "dtype", None)
    return dtype is not None and dtype.kind == "f" and dtype.itemsize < 8


def _distinct(e, g) -> tuple[str, str]:
    """两个不相等的数写成看得出差别的样子：4 位有效数字相同就多写几位。"""
    a, b = _num(e), _num(g)
    for digits in (7, 10, 17):
        if a != b:
            break
        a, b = f"{float(e):.{digits}g}", f"{float(g):.{digits}g}"
    return a, b


def _num(x) -> str:
    x = float(x)
    if not np.isfinite(x):
        return str(x)            # nan、inf、-inf
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.4g}" if abs(x) >= 1e-3 or x == 0 else f"{x:.3e}"


def describe(x, limit: int = 300) -> str:
    """把一个值写成短短一行：数组保留 4 位有效数字，过长的截断。"""
    if isinstance(x, (list, tuple)):   # Python 的列表、元组：逐项写，数字不带多余的小数点
        open_, close = ("[", "]") if isinstance(x, list) else ("(", ")")
        parts = [describe(v, limit) for v in x[:24]] + (["…"] if len(x) > 24 else [])
        text = open_ + ", ".join(parts) + close
    elif isinstance(x, np.ndarray):
        arr = np.asarray(x)
        if arr.dtype.kind in "fc":
            text = np.array2string(arr, precision=4, suppress_small=True, threshold=24, separator=", ",
                                   max_line_width=10_000)
        else:
            text = np.array2string(arr, threshold=24, separator=", ", max_line_width=10_000)
        text = " ".join(text.split())
    elif _is_num(x):
        text = _num(x)
    elif callable(x):
        text = f"函数 {getattr(x, '__name__', '?')}"
    elif isinstance(x, str):
        text = repr(str(x))
    else:
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 1] + "…"
