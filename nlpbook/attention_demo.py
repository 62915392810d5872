"""第 13 章“注意力浏览器”一节的演示数据：句子“小猫 没有 跳上 桌子 ， 因为 它 太 累 了”与两个手工设定的头。

重要：这里的分数、权重和颜色都是为讲解手工设定的示意值，不来自任何训练过的模型。
“指代头”“邻近头”这样的分工在真实模型里是训练中自己形成的，也不保证存在；高权重也不等于因果解释。
权重 = 对手设分数逐行做 softmax，所以每行和为 1，并且和 demo_scores 给出的分数一致。
不做的事：只提供数据，不画图、不做面板（展示在 viz 与 widgets 里）。
"""
from __future__ import annotations

import numpy as np

from ._checks import check_positive
from .attention import apply_mask, causal_mask, masked_softmax

__all__ = ["HEADS", "IT_INDEX", "demo_sentence", "demo_scores", "demo_score_matrix", "demo_heads", "demo_values"]

_TOKENS = ("小猫", "没有", "跳上", "桌子", "，", "因为", "它", "太", "累", "了")
IT_INDEX = 6  # “它”
HEADS = ("指代头", "邻近头")

# 指代头：多数位置主要看自己（分数 1，其余 0）；几行手工改写，体现“谁做了什么、它指谁”。
_COREF_ROWS = {
    2: [2.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],    # 跳上 → 小猫（谁跳）、桌子（跳到哪）
    6: [3.0, 0.0, 0.3, 1.8, -1.0, 0.2, 0.8, 0.1, 1.5, -0.5],  # 它 → 小猫 为主，其次 桌子、累
    8: [1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.5, 1.0, 0.0],    # 累 → 它、小猫（谁累）
}
# 每个词一种颜色（RGB，0—1），“值”按权重混合后就是一种混合色。
_COLORS = ["1f77b4", "ff7f0e", "2ca02c", "d62728", "9467bd", "8c564b", "e377c2", "7f7f7f", "bcbd22", "17becf"]


def _score_matrix(head: str) -> np.ndarray:
    n = len(_TOKENS)
    if head == "指代头":
        s = np.eye(n)
        for i, row in _COREF_ROWS.items():
            s[i] = row
        return s
    if head == "邻近头":  # 相邻词 2，自己 1，其余 -1
        dist = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
        return np.where(dist == 1, 2.0, np.where(dist == 0, 1.0, -1.0))
    raise ValueError(f"head 只能是 {HEADS} 之一，收到 {head!r}")


def demo_sentence() -> list[str]:
    """演示句的 10 个 token。教学位置：第 13 章“注意力浏览器”一节。例：demo_sentence()[6] → '它'"""
    return list(_TOKENS)


def demo_scores(query_index: int = IT_INDEX, head: str = "指代头") -> np.ndarray:
    """第 query_index 个词对每个词的手设原始分数 (10,)（示意值）。教学位置：第 13 章“注意力浏览器”一节的第 ① 步。

    对它做 softmax 就得到 demo_heads()[head] 的对应行（第 ② 步），再乘 demo_values() 即第 ③ 步。
    例：demo_scores(6) 中“小猫”3.0 最高，“桌子”1.8 次之，“累”1.5 再次。
    """
    check_positive(query_index, "query_index", integer=True, allow_zero=True)
    if query_index >= len(_TOKENS):
        raise ValueError(f"query_index 必须在 0..{len(_TOKENS) - 1} 之间，收到 {query_index}")
    return _score_matrix(head)[query_index].copy()


def demo_score_matrix(head: str = "指代头") -> np.ndarray:
    """一个手设头的整张原始分数表 (10, 10)（示意值）：行 = 提问的词，列 = 被看的词。教学位置：第 13 章“注意力浏览器”一节的第 ① 步。

    第 i 行就是 demo_scores(i, head)；逐行（可先套因果遮罩）做 softmax 得到 demo_heads()[head]。
    例：demo_score_matrix("邻近头")[6] → 相邻的“因为”“太”为 2，自己 1，其余 -1。
    """
    if not isinstance(head, str):
        raise TypeError(f"head 必须是字符串 {HEADS} 之一，收到 {type(head).__name__}")
    return _score_matrix(head)


def demo_heads(causal: bool = False) -> dict[str, np.ndarray]:
    """两个手设头的权重 {'指代头': (10, 10), '邻近头': (10, 10)}：行 = 提问的词，列 = 被看的词，每行和为 1。

    教学位置：第 13 章“注意力浏览器”一节。causal=True 对应“只看前文”：先套因果遮罩再 softmax，
    于是“它”（第 6 个）看不到后面的“累”（第 8 个），权重为 0。
    """
    if not isinstance(causal, (bool, np.bool_)):
        raise TypeError(f"causal 必须是 True 或 False，收到 {type(causal).__name__}")
    mask = causal_mask(len(_TOKENS)) if causal else None
    return {h: masked_softmax(apply_mask(_score_matrix(h), mask)) for h in HEADS}


def demo_values() -> np.ndarray:
    """每个词的“值”向量 (10, 3)：一种 RGB 颜色（0—1，示意用）。权重 @ 颜色 = 加权汇总后的混合色。"""
    return np.array([[int(c[i:i + 2], 16) / 255 for i in (0, 2, 4)] for c in _COLORS])
