"""切分粒度的统计：同一批文本按词、字、子词或字节切开后，token 有多少、词表多大、多少没见过。

教学位置：第 2.4 节（单位越小，词表越容易覆盖文本，但句子越长）。
输入是已经切好的 token 序列（token 可以是字符串，也可以是编号），本模块自己不切分。
不做的事：不估算模型的计算成本，不按频次截断词表；“没见过”只看类型在不在已知集合里。
只用标准库。
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable

__all__ = ["granularity_stats"]

_SETS = (set, frozenset, dict, range)


def _doc(doc, k: int) -> list:
    """检查一篇留出文本：必须是 token 序列（不能直接是 str/bytes），token 必须可哈希。"""
    if isinstance(doc, (str, bytes)):
        raise TypeError(f"heldout_docs 的第 {k} 篇是 {type(doc).__name__}，必须是 token 列表；"
                        "按字切分请先用 list(text)，按字节切分请先用 list(text.encode('utf-8'))")
    if not isinstance(doc, Iterable):
        raise TypeError(f"heldout_docs 的第 {k} 篇必须是 token 列表，收到 {type(doc).__name__}")
    doc = list(doc)
    for t in doc:
        if not isinstance(t, Hashable):
            raise TypeError(f"heldout_docs 的第 {k} 篇里有不可哈希的 token {t!r}（{type(t).__name__}）；"
                            "token 只能是 str、int 这类可哈希的值")
    return doc


def granularity_stats(heldout_docs, known_types) -> dict:
    """一种切分粒度在留出文本上的统计。

    教学位置：第 2.4 节（按词 / 按字 / 子词 / 字节的取舍，在真实评论上实测）。
    heldout_docs：留出文本，每篇是一个 token 序列（list/tuple 等，不能直接是 str）。
    known_types：训练时见过的 token 类型（set、frozenset、dict、range，或可转成 set 的列表）；
      它的大小就是词表大小。封闭词表（如 256 个字节、BPE 的编号）传 range(词表大小)。
    返回 dict：docs 篇数，tokens 总 token 数，tokens_per_doc 每篇平均 token 数，
      vocab_size 词表大小，heldout_types 留出文本里不同 token 的个数，
      oov_types 其中不在已知集合里的类型占比，oov_tokens 不在已知集合里的 token 出现次数占比。
    例：granularity_stats([['电影', '好看'], ['镜头', '惊艳']], {'电影', '好看'})
        -> {'docs': 2, 'tokens': 4, 'tokens_per_doc': 2.0, 'vocab_size': 2,
            'heldout_types': 4, 'oov_types': 0.5, 'oov_tokens': 0.5}
    """
    if isinstance(heldout_docs, (str, bytes)) or not isinstance(heldout_docs, Iterable):
        raise TypeError("heldout_docs 必须是“文档列表”，每篇文档是 token 列表；"
                        f"收到 {type(heldout_docs).__name__}")
    docs = [_doc(d, k) for k, d in enumerate(heldout_docs)]
    if not docs:
        raise ValueError("heldout_docs 不能为空：至少需要一篇留出文本")

    if isinstance(known_types, (str, bytes)):
        raise TypeError("known_types 必须是 token 类型的集合（如 set 或 range(256)），"
                        f"收到一个 {type(known_types).__name__}")
    if not isinstance(known_types, _SETS):
        if not isinstance(known_types, Iterable):
            raise TypeError("known_types 必须是 token 类型的集合（如 set 或 range(256)），"
                            f"收到 {type(known_types).__name__}")
        try:
            known_types = set(known_types)
        except TypeError as exc:
            raise TypeError(f"known_types 里有不可哈希的元素：{exc}") from None
    if len(known_types) == 0:
        raise ValueError("known_types 不能为空：词表里至少要有一个 token 类型")

    n_tokens = sum(len(d) for d in docs)
    if n_tokens == 0:
        raise ValueError(f"heldout_docs 的 {len(docs)} 篇文本一个 token 都没有，无法计算比例")
    counts: dict = {}
    for d in docs:
        for t in d:
            counts[t] = counts.get(t, 0) + 1
    unseen = [t for t in counts if t not in known_types]
    return {
        "docs": len(docs),
        "tokens": n_tokens,
        "tokens_per_doc": n_tokens / len(docs),
        "vocab_size": len(known_types),
        "heldout_types": len(counts),
        "oov_types": len(unseen) / len(counts),
        "oov_tokens": sum(counts[t] for t in unseen) / n_tokens,
    }
