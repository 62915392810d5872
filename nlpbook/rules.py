"""第 1.3 节的规则打分器：好词加分、坏词减分，分数大于 0 判为好评。

它清楚、便宜、可控，但不懂否定：“电影不好看”会被判成好评。
不做的事：不处理否定、程度词和转折（那正是后面各章要让模型学会的东西）。
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._checks import check_tokens

__all__ = ["TEXT_LEXICON", "rule_hits", "rule_score", "rule_predict"]

# 课文的打分表：好看、精彩 +1；难看、无聊 -1
TEXT_LEXICON = {"好看": 1, "精彩": 1, "难看": -1, "无聊": -1}


def rule_hits(text: str, lexicon: Mapping[str, float] = TEXT_LEXICON) -> list[tuple[str, float, int]]:
    """原始字符串里命中了打分表的哪些词：[(词, 分值, 出现次数), ...]，按打分表的顺序。

    教学位置：第 1.3 节。例：'电影不好看' -> [('好看', 1, 1)]
    """
    _check_lexicon(lexicon)
    if not isinstance(text, str):
        raise TypeError(f"text 必须是 str，收到 {type(text).__name__}")
    return [(w, v, text.count(w)) for w, v in lexicon.items() if text.count(w)]


def _check_lexicon(lexicon) -> None:
    if not isinstance(lexicon, Mapping) or not lexicon:
        raise ValueError("lexicon 必须是非空的 {词: 分值} 字典")
    for w in lexicon:
        if not isinstance(w, str) or not w:
            raise ValueError(f"lexicon 的键必须是非空字符串，收到 {w!r}")


def rule_score(review: str | Sequence[str], lexicon: Mapping[str, float] = TEXT_LEXICON) -> float:
    """规则分数 = Σ 每个词的出现次数 × 它在打分表里的分值。

    教学位置：第 1.3 节。review 可以是分好词的列表（按 token 计数），
    也可以是原始字符串（按子串出现次数计数，无需分词；注意“不好看”里也含“好看”）。
    例：['电影', '好看'] -> 1；'电影不好看' -> 1（误判）
    """
    _check_lexicon(lexicon)
    if isinstance(review, str):
        return float(sum(v * n for _, v, n in rule_hits(review, lexicon)))
    tokens = check_tokens(review, "review")
    return float(sum(lexicon.get(t, 0) for t in tokens))


def rule_predict(review, lexicon: Mapping[str, float] = TEXT_LEXICON) -> int:
    """分数 > 0 判为好评 (1)，否则差评 (0)——分数为 0（一个词都没命中）也判差评。"""
    return int(rule_score(review, lexicon) > 0)
