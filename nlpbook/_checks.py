"""输入检查的小工具：各模块共用，让错误信息说清“收到了什么、允许什么”。

只做类型与取值检查，不做任何计算。按检查的对象分组：
- 数值数组：as_float_array、as_float_array_keep、as_float_array_of_shape、check_upstream_grad；
- 单个数：check_positive；
- token 与编号：check_tokens（token 列表）、check_id（一个编号）、check_ids（编号列表）、
  as_id_array（任意形状的编号数组）。不是整数 → TypeError；负数、或给了 size（词表大小）时不在 0..size-1
  → ValueError。空列表只在“至少要有一个 token 才能算”的地方拒绝（allow_empty=False：语言模型的一次前向、
  CBOW 的上下文），生成的前文、解码等处允许；
- 文本与标签：check_texts、check_tags；模型参数字典：check_param_dict；
- 随机数：check_rng（必须是 np.random.Generator）。
本模块自己只用标准库，用到数组的检查才导入 numpy：只用标准库的模块（tokenizers、rules、cost）也能共用它，不因此导入 numpy。
"""
from __future__ import annotations

import numbers


def _received(x) -> str:
    """错误信息里的“收到 …”：字符串直接显示出来，其他显示类型名。"""
    return f"一个字符串 {x!r}" if isinstance(x, (str, bytes)) else type(x).__name__


# ---------- 数值数组 ----------
def as_float_array(x, name: str, *, min_ndim: int = 0, allow_neg_inf: bool = False):
    """把数、列表或数组转成 float 数组；非数值、NaN 或维度不足时报错。

    allow_neg_inf=True 时允许 -inf（分数、logits 里表示“被遮罩、概率为 0”），仍不允许 NaN 与 +inf。
    """
    import numpy as np
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} 必须是数或数值数组，收到 {type(x).__name__}")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} 必须是数或数值数组，收到 {type(x).__name__}") from exc
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} 至少要有 {min_ndim} 维，收到形状 {arr.shape}")
    return _check_finite(arr, name, allow_neg_inf)


def _check_finite(arr, name: str, allow_neg_inf: bool = False):
    import numpy as np
    if not arr.size:
        return arr
    if allow_neg_inf:
        if np.isnan(arr).any() or np.isposinf(arr).any():
            raise ValueError(f"{name} 含有 NaN 或 +inf（+∞）；只允许有限的数和 -inf（被遮罩的位置，概率为 0）")
    elif not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} 含有 NaN 或无穷大；只允许有限的数")
    return arr


def as_float_array_keep(a, name: str, *, allow_neg_inf: bool = False):
    """同 as_float_array，但 float32/float64 数组原样返回（训练循环用 float32，不被升成 float64）。"""
    import numpy as np
    if isinstance(a, np.ndarray) and a.dtype in (np.float32, np.float64):
        return _check_finite(a, name, allow_neg_inf)
    return as_float_array(a, name, allow_neg_inf=allow_neg_inf)


def as_float_array_of_shape(a, name: str, shape: tuple):
    """同 as_float_array_keep，且形状必须正好是 shape（参数矩阵、偏置、初始状态等）。"""
    a = as_float_array_keep(a, name)
    if a.shape != shape:
        raise ValueError(f"{name} 的形状应为 {shape}，收到 {a.shape}")
    return a


def check_upstream_grad(g, shape, name: str):
    """反向传播收到的上游梯度：同 as_float_array_keep，且形状必须与前向输出相同（不接受转置或展平的）。"""
    g = as_float_array_keep(g, name)
    if g.shape != tuple(shape):
        raise ValueError(f"{name} 的形状应与前向输出相同 {tuple(shape)}，收到 {g.shape}")
    return g


# ---------- 单个数 ----------
def check_positive(value, name: str, *, integer: bool = False, allow_zero: bool = False):
    """检查一个正数（或非负数）参数，返回原值。"""
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "整数" if integer else "数"
        raise TypeError(f"{name} 必须是{what}，收到 {type(value).__name__}")
    bound = ">= 0" if allow_zero else "> 0"
    if not integer and value != value:  # NaN
        raise ValueError(f"{name} 必须是有限的数（{bound}），收到 NaN")
    if not integer and value in (float("inf"), float("-inf")):
        raise ValueError(f"{name} 必须是有限的数（{bound}），收到 {value}")
    if not (value >= 0 if allow_zero else value > 0):
        raise ValueError(f"{name} 必须 {bound}，收到 {value}")
    return value


# ---------- token 与编号 ----------
def _str_list(items, name: str, what: str, example: str, hint: str) -> list[str]:
    if isinstance(items, str):
        raise TypeError(f"{name} 必须是{what}列表（如 {example}），收到一个字符串 {items!r}；{hint}")
    try:
        items = list(items)
    except TypeError as exc:
        raise TypeError(f"{name} 必须是{what}列表（如 {example}），收到 {type(items).__name__}") from exc
    for t in items:
        if not isinstance(t, str):
            raise TypeError(f"{name} 的每一项都必须是 str，收到 {type(t).__name__}: {t!r}")
    return items


def check_tokens(tokens, name: str = "tokens") -> list[str]:
    """检查 token 列表：必须是字符串组成的列表或元组（不能直接给一个字符串）。"""
    return _str_list(tokens, name, " token ", "['电影', '好看']", "请先分词")


def check_texts(texts, name: str = "texts") -> list[str]:
    """检查文本列表：每一项是一段文本（str），至少一段；不能直接给一个字符串。"""
    texts = _str_list(texts, name, "文本", "['这本书很好', '不推荐']", "一段文本也要放进列表")
    if not texts:
        raise ValueError(f"{name} 不能为空：至少需要一条文本")
    return texts


def check_tags(tags, name: str = "tags") -> list[str]:
    """检查标签列表（如 BIO 标签）：规则同 check_tokens，报错时说的是标签而不是分词。"""
    return _str_list(tags, name, "标签", "['B-PER', 'O']", "只有一个标签也要放进列表，如 ['B-PER']")


def _range_error(name: str, size: int | None, shown) -> ValueError:
    if size is None:
        return ValueError(f"{name} 必须是非负整数编号（>= 0），收到 {shown}")
    return ValueError(f"{name} 必须在 0..{size - 1} 之间（词表里共 {size} 个编号），收到 {shown}")


def check_id(i, name: str = "编号", *, size: int | None = None) -> int:
    """一个编号：int（numpy 整数也行，bool 不行），>= 0；给了 size 时还要 < size。返回 Python int。"""
    if isinstance(i, bool) or not isinstance(i, numbers.Integral):
        raise TypeError(f"{name} 必须是整数编号（int），收到 {type(i).__name__}: {i!r}")
    if i < 0 or (size is not None and i >= size):
        raise _range_error(name, size, i)
    return int(i)


def _check_empty(n: int, name: str, allow_empty: bool) -> None:
    if n == 0 and not allow_empty:
        raise ValueError(f"{name} 不能为空：至少要有 1 个编号")


def check_ids(ids, name: str = "ids", *, size: int | None = None, allow_empty: bool = True) -> list[int]:
    """一维编号列表（列表、元组、range、一维整数数组……）→ Python int 列表；逐个用 check_id 检查。

    不能直接给字符串或单个数。allow_empty=False 时空列表报错（如语言模型的一次前向至少要 1 个 token）。
    例：check_ids([3, 0], size=5) -> [3, 0]；check_ids([3, 7], size=5) 报错“ids 必须在 0..4 之间”
    """
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__") or getattr(ids, "ndim", 1) != 1:
        raise TypeError(f"{name} 必须是整数编号的一维列表（如 [3, 0, 5]），收到 {_received(ids)}")
    out = [check_id(i, f"{name} 里的编号", size=size) for i in ids]
    _check_empty(len(out), name, allow_empty)
    return out


def as_id_array(ids, name: str = "ids", *, size: int | None = None, allow_empty: bool = True, ndims=None):
    """整数编号数组（任意形状，或 ndims 里的维数）→ int64 数组；类型、范围、是否为空与 check_ids 相同。

    空列表 [] 按整数处理（numpy 默认把它当 float）。例：as_id_array([[1, 2]], size=3).shape -> (1, 2)
    """
    import numpy as np
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{name} 必须是整数编号（列表或数组），收到 {_received(ids)}")
    try:
        a = np.asarray(ids)
    except ValueError as exc:  # 各行长度不同
        raise ValueError(f"{name} 的各行长度必须相同（长短不一时先补齐，再用 mask 标出真实 token）") from exc
    if a.size == 0 and a.dtype.kind not in "iu":
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} 必须是整数编号，收到 dtype {a.dtype}")
    if ndims is not None and a.ndim not in ndims:
        raise ValueError(f"{name} 必须是 {' 或 '.join(map(str, ndims))} 维数组，收到形状 {a.shape}")
    _check_empty(a.size, name, allow_empty)
    if a.size and (a.min() < 0 or (size is not None and a.max() >= size)):
        raise _range_error(name, size, a.min() if a.size == 1 else f"{a.min()}..{a.max()}")
    return a.astype(np.int64, copy=False)


# ---------- 参数字典 ----------
def check_param_dict(params, keys, name: str = "params", *, hint: str = "") -> dict:
    """模型参数字典：必须是 dict，且含有 keys 里的每个键（值的形状由各模块自己检查）。hint 说明怎样得到它。"""
    if not isinstance(params, dict):
        raise TypeError(f"{name} 必须是字典，含 {tuple(keys)}{hint}，收到 {type(params).__name__}")
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(f"{name} 缺少 {missing}；需要 {tuple(keys)}{hint}")
    return params


# ---------- 随机数 ----------
def check_rng(rng, name: str = "rng"):
    """随机性只来自显式传入的 np.random.Generator；其他类型（种子整数、None、旧式 RandomState）报 TypeError。"""
    import numpy as np
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} 必须是 np.random.Generator（如 np.random.default_rng(0)），"
                        f"收到 {type(rng).__name__}")
    return rng


def check_adam_settings(lr, betas: dict, eps) -> None:
    """Adam 的超参数：lr > 0，每个 β 在 [0, 1) 之内，eps > 0。betas 是 {参数名: 值}，报错时用调用方的名字。"""
    check_positive(lr, "lr")
    for name, b in betas.items():
        check_positive(b, name, allow_zero=True)
        if b >= 1:
            raise ValueError(f"{name} 必须在 [0, 1) 之内，收到 {b}")
    check_positive(eps, "eps")
