"""比较两个方法：差值、它的 95% 区间和一句结论，噪声来源按实验的设计来数。教学位置：第 18.3 节（比较要看波动）。

一个准确率有两种噪声：换一个种子（初始化、打乱顺序）会动，换一批评测样本也会动。两个方法若在同一批
评测样本上打分（几乎总是如此），它们的样本噪声大半是共有的，要配对着减掉；若同一个种子下共用数据
（同一批偏好对、同一个评测种子），种子也要配对。compare 按 shared_items / shared_seeds 选对的算法：

- 评测样本这一层用自助法：对样本有放回地重抽，共用样本时两个方法、所有种子用同一组下标（配对）；
- 种子这一层用 t：只有 3 个种子时对种子做自助法，区间会系统性地偏窄（3 个值重抽只有 10 种组合），
  所以种子方差用样本方差 / 种子数估计，两层方差相加，自由度按 Welch–Satterthwaite 折算，再取 t 分位数。

输入是“种子 × 样本”的分数表（每个种子一行，每条评测样本一列：答对为 1、答错为 0，或每条的奖励）。
只有每个种子一个数时（记录里没存逐条结果），传 Spread：那时只计种子噪声，结论里会写明。
例：compare([[1, 1, 0, 1]], [[1, 0, 0, 1]], names=("甲", "乙")).sentence()
    -> '甲 − 乙 = +0.250 [−0.174, +0.674]：分不开（1 个种子 × 4 条评测样本，样本配对）'
"""
from __future__ import annotations

import base64
import math
from dataclasses import dataclass

import numpy as np

from .spread import Spread

__all__ = ["Comparison", "compare", "t975", "f1_from_counts", "binary_counts", "macro_f1_from_counts", "perplexity_from_sums",
           "pack_correct", "unpack_correct", "unpack_rows"]

_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: float) -> float:
    """双侧 95% 的 t 分位数；非整数自由度向下取整（偏保守），df > 30 时用 1.96 + 2.4/df 近似，df = ∞ 时是 1.96。"""
    if not df >= 1:
        raise ValueError(f"自由度必须不小于 1，收到 {df!r}")
    if math.isinf(df):
        return 1.96
    k = int(math.floor(df))
    return _T975[k - 1] if k <= len(_T975) else 1.96 + 2.4 / df


def _num(x: float, digits: int) -> str:
    return f"{x:+.{digits}f}".replace("-", "−")


@dataclass(frozen=True)
class Comparison:
    """compare 的结果：diff = A − B（点估计），[lo, hi] 是它的 95% 区间，verdict ∈ {1, 0, −1}。"""
    names: tuple
    diff: float
    lo: float
    hi: float
    se_seeds: float
    se_items: float
    df: float
    design: str
    digits: int = 3

    @property
    def verdict(self) -> int:
        """区间整个在 0 之上 → 1（A 更高）；整个在 0 之下 → −1（A 更低）；含 0 → 0（分不开）。"""
        return 1 if self.lo > 0 else (-1 if self.hi < 0 else 0)

    @property
    def separated(self) -> bool:
        return self.verdict != 0

    def interval(self) -> tuple[float, float]:
        return (self.lo, self.hi)

    def sentence(self) -> str:
        a, b = self.names
        d = self.digits
        word = {1: f"{a}更高，分得开", -1: f"{a}更低，分得开", 0: "分不开"}[self.verdict]
        return f"{a} − {b} = {_num(self.diff, d)} [{_num(self.lo, d)}, {_num(self.hi, d)}]：{word}（{self.design}）"

    def __str__(self) -> str:
        return self.sentence()


def f1_from_counts(counts):
    """逐条计数 (..., 3) = (TP, FP, FN) 加总后的 F1 = 2TP / (2TP + FP + FN)；给 compare 的 stat 用（实体级 F1）。"""
    c = np.asarray(counts, dtype=float)
    denom = 2 * c[..., 0] + c[..., 1] + c[..., 2]
    return np.divide(2 * c[..., 0], denom, out=np.zeros_like(denom), where=denom > 0)


def binary_counts(y_true, pred):
    """逐条计数 (..., N, 6)：好评类的 (TP, FP, FN) 与差评类的 (TP, FP, FN)；pred 可以是“种子 × 样本”。"""
    y = np.asarray(y_true).astype(bool)
    p = np.asarray(pred).astype(bool)
    y = np.broadcast_to(y, p.shape)
    return np.stack([y & p, ~y & p, y & ~p, ~y & ~p, y & ~p, ~y & p], axis=-1).astype(float)


def macro_f1_from_counts(counts):
    """binary_counts 加总后的宏 F1：两类 F1 的平均。给 compare 的 stat 用。"""
    c = np.asarray(counts, dtype=float)
    return (f1_from_counts(c[..., :3]) + f1_from_counts(c[..., 3:])) / 2


def perplexity_from_sums(sums):
    """逐条 (总 −ln p, 计分的字数) 加总后的困惑度 exp(Σ nll / Σ 字数)。给 compare 的 stat 用（第 11、13 章）。"""
    c = np.asarray(sums, dtype=float)
    return np.exp(c[..., 0] / c[..., 1])


def _table(x, name: str, stat) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if stat is not None:
        if arr.ndim == 2:
            arr = arr[None]
        if arr.ndim != 3 or min(arr.shape) < 1:
            raise ValueError(f"给了 stat 时 {name} 必须是“种子 × 评测样本 × 计数”的三维数组，收到形状 {np.shape(x)}")
    elif arr.ndim == 1:
        arr = arr[None, :]
    if stat is None and (arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1):
        raise ValueError(f"{name} 必须是“种子 × 评测样本”的二维分数表（或一个种子的一维数组），收到形状 {np.shape(x)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} 里有 NaN 或无穷大")
    return arr


def _item_var(cols, n_boot: int, rng) -> float:
    """每条样本的（种子平均后的）分数 cols：对样本有放回地重抽 n_boot 次，均值的方差。"""
    idx = rng.integers(0, len(cols), size=(n_boot, len(cols)))
    return float(np.var(cols[idx].mean(axis=1), ddof=1))


def _stat_boot(T, stat, idx) -> np.ndarray:
    """每组重抽的下标：对每个种子用加总后的计数算 stat，再对种子取平均 → (n_boot,)。

    重抽一次 = 每条样本被抽中的次数（权重）；计数是整数，权重矩阵乘计数表的结果是精确的，与 BLAS 内核无关。
    """
    n_boot, n = idx.shape
    weights = np.bincount((idx + n * np.arange(n_boot)[:, None]).ravel(), minlength=n_boot * n).reshape(n_boot, n)
    s, _, k = T.shape
    sums = (weights.astype(float) @ T.transpose(1, 0, 2).reshape(n, s * k)).reshape(n_boot, s, k)
    return np.asarray(stat(sums), dtype=float).mean(axis=1)


def compare(a, b, names=("A", "B"), *, shared_items: bool = True, shared_seeds: bool = False, n_boot: int = 2000,
            seed: int = 0, digits: int = 3, stat=None) -> Comparison:
    """A − B 的差、95% 区间和结论。a、b：种子 × 评测样本的分数表（或 Spread：每个种子一个数，只计种子噪声）。

    shared_items：两个方法在同一批样本上打分（列一一对应）——样本层配对。
    shared_seeds：同一个种子下两个方法共用数据（行一一对应）——种子层也配对。
    两者都不共用时就是不配对的比较：两个方差直接相加。
    stat：指标不是逐条平均时（如实体级 F1），a、b 给“种子 × 样本 × 计数”，stat 把加总后的计数变成指标
    （例：f1_from_counts）；每个种子的指标 = stat(该种子各条计数之和)，样本层照样配对重抽。
    """
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and all(isinstance(n, str) and n for n in names)):
        raise ValueError(f"names 必须是两个非空字符串，收到 {names!r}")
    if not isinstance(n_boot, (int, np.integer)) or isinstance(n_boot, bool) or n_boot < 100:
        raise ValueError(f"n_boot 必须是不小于 100 的整数，收到 {n_boot!r}")
    if isinstance(a, Spread) != isinstance(b, Spread):
        raise TypeError("a 与 b 要么都是 Spread（每个种子一个数），要么都是分数表")
    rng = np.random.default_rng(seed)
    if isinstance(a, Spread):
        A, B = np.array(a.values)[:, None], np.array(b.values)[:, None]
        items_known = False
    else:
        if stat is not None and not callable(stat):
            raise TypeError("stat 必须是函数：加总后的计数 (..., K) → 指标")
        A, B = _table(a, "a", stat), _table(b, "b", stat)
        items_known = True
    sa, sb = A.shape[0], B.shape[0]
    if items_known and shared_items and A.shape[1] != B.shape[1]:
        raise ValueError(f"shared_items=True 时两个方法的评测样本数必须相同，收到 {A.shape[1]} 与 {B.shape[1]}")
    if shared_seeds and sa != sb:
        raise ValueError(f"shared_seeds=True 时两个方法的种子数必须相同，收到 {sa} 与 {sb}")
    if stat is not None:
        ma, mb = np.asarray(stat(A.sum(axis=1)), float), np.asarray(stat(B.sum(axis=1)), float)
    else:
        ma, mb = A.mean(axis=1), B.mean(axis=1)    # 种子层：每个种子的指标（共用种子时取逐种子的差）
    diff = float(ma.mean() - mb.mean())

    if shared_seeds:
        v_seed, df_seed = (float(np.var(ma - mb, ddof=1)) / sa, sa - 1) if sa > 1 else (0.0, math.inf)
        parts = [(v_seed, df_seed)]
    else:
        parts = [(float(np.var(m, ddof=1)) / len(m) if len(m) > 1 else 0.0, len(m) - 1 if len(m) > 1 else math.inf)
                 for m in (ma, mb)]
    v_seed = sum(v for v, _ in parts)

    # 样本层：自助法
    if not items_known:
        v_item = 0.0
    elif stat is not None:
        ia = rng.integers(0, A.shape[1], size=(n_boot, A.shape[1]))
        ib = ia if shared_items else rng.integers(0, B.shape[1], size=(n_boot, B.shape[1]))
        if shared_items:
            v_item = float(np.var(_stat_boot(A, stat, ia) - _stat_boot(B, stat, ib), ddof=1))
        else:
            v_item = float(np.var(_stat_boot(A, stat, ia), ddof=1) + np.var(_stat_boot(B, stat, ib), ddof=1))
    elif shared_items:
        v_item = _item_var(A.mean(axis=0) - B.mean(axis=0), n_boot, rng)
    else:
        v_item = _item_var(A.mean(axis=0), n_boot, rng) + _item_var(B.mean(axis=0), n_boot, rng)

    var = v_seed + v_item
    denom = sum(v * v / d for v, d in parts if v > 0 and not math.isinf(d))
    df = var * var / denom if denom > 0 else math.inf
    half = t975(max(df, 1.0)) * math.sqrt(var)
    n_seed = f"{sa} 个种子" if sa == sb else f"{sa} 与 {sb} 个种子"
    if not items_known:
        design = f"{n_seed}，只计种子噪声，评测样本的噪声未计入"
    else:
        n_items = f"{A.shape[1]} 条评测样本" if A.shape[1] == B.shape[1] else f"{A.shape[1]} 与 {B.shape[1]} 条评测样本"
        pairing = [w for w, on in (("样本", shared_items), ("种子", shared_seeds)) if on]
        design = f"{n_seed} × {n_items}，" + ("、".join(pairing) + "配对" if pairing else "不配对")
    return Comparison(names=tuple(names), diff=diff, lo=diff - half, hi=diff + half, se_seeds=math.sqrt(v_seed),
                      se_items=math.sqrt(v_item), df=df, design=design, digits=digits)


def pack_correct(correct) -> str:
    """一行“答对与否”（0/1）压成短字符串存进记录：np.packbits 后 base64。1,753 条约 300 个字符。"""
    arr = np.asarray(correct)
    if arr.ndim != 1 or not np.isin(arr, (0, 1)).all():
        raise ValueError("pack_correct 需要一维的 0/1（或布尔）数组")
    return base64.b64encode(np.packbits(arr.astype(np.uint8)).tobytes()).decode("ascii")


def unpack_correct(text: str, n: int) -> np.ndarray:
    """pack_correct 的逆：还原成长度 n 的 0/1 数组（int8）。"""
    bits = np.unpackbits(np.frombuffer(base64.b64decode(text), dtype=np.uint8))
    if not len(bits) - 8 < n <= len(bits):
        raise ValueError(f"压缩串里有 {len(bits)} 位，与 n = {n} 不符")
    return bits[:n].astype(np.int8)


def unpack_rows(packed, n: int) -> np.ndarray:
    """记录里每个种子一个压缩串 → “种子 × 样本”的 0/1 表（int8）。"""
    if isinstance(packed, str) or not len(packed):
        raise ValueError("unpack_rows 需要每个种子一个压缩串的列表或元组")
    return np.stack([unpack_correct(t, n) for t in packed])
