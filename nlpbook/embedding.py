"""词向量的基本操作：查表、one-hot 乘表、带 padding 掩码的平均、余弦相似度、近邻与类比。

表（table）是形状 (词数, 维数) 的数组；words 是与行对应的词列表。
不做的事：不训练向量（见 word2vec 模块），不做降维画图（notebook 里用 numpy 的 SVD/PCA 即可）。
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._checks import as_float_array, as_id_array, check_positive
from .retrieval import order_by_score

__all__ = ["lookup", "one_hot", "mean_pool", "cosine_similarity", "nearest", "analogy"]


def _table(table) -> np.ndarray:
    t = as_float_array(table, "table")
    if t.ndim != 2 or t.shape[0] == 0:
        raise ValueError(f"table 必须是非空的二维数组 (词数, 维数)，收到形状 {t.shape}")
    return t


def lookup(table, ids) -> np.ndarray:
    """按编号取行：形状 (...,) 的编号 → (..., 维数)。教学位置：第 6.2 节。

    例：20 个 token 的句子在 10,000×128 的表上 → 20×128
    """
    t = _table(table)
    return t[as_id_array(ids, "ids", size=t.shape[0])]


def one_hot(ids, size: int) -> np.ndarray:
    """one-hot 向量（第 6.3 节）：one_hot(ids, V) @ table 等于 lookup(table, ids)。例：one_hot(0, 5) -> [1,0,0,0,0]"""
    check_positive(size, "size", integer=True)
    a = as_id_array(ids, "ids", size=size)
    out = np.zeros(a.shape + (size,))  # 不用 np.eye(size)[a]：那会先造一个 size×size 的单位阵（V=10,000 时 800 MB）
    np.put_along_axis(out, a[..., None], 1.0, axis=-1)
    return out


def mean_pool(vectors, mask=None) -> np.ndarray:
    """把一句话的词向量平均成一个向量；mask 为 True 的位置才算数，分母是真实 token 数。

    教学位置：第 6.4 节、第 18.3 节。vectors 形状 (..., T, d)，mask 形状 (..., T)（布尔）。
    例：[[0,1],[1,0],[0,0]]，mask [1,1,0] -> [0.5, 0.5]（而不是错误地除以 3 得到 [0.333, 0.333]）
    """
    v = as_float_array(vectors, "vectors", min_ndim=2)
    if mask is None:
        mask = np.ones(v.shape[:-1], dtype=bool)
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"mask 必须是布尔数组（True 表示真实 token），收到 dtype {m.dtype}")
    if m.shape != v.shape[:-1]:
        raise ValueError(f"mask 形状 {m.shape} 应等于 vectors 去掉最后一维的形状 {v.shape[:-1]}")
    counts = m.sum(axis=-1, keepdims=True)
    if np.any(counts == 0):
        raise ValueError("有的句子 mask 全为 False（没有真实 token），平均值无定义")
    return (v * m[..., None]).sum(axis=-2) / counts


def cosine_similarity(a, b) -> np.ndarray:
    """余弦相似度 a·b / (|a||b|)，在最后一维上计算，支持广播。零向量报错。"""
    a, b = as_float_array(a, "a", min_ndim=1), as_float_array(b, "b", min_ndim=1)
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError("零向量没有方向，余弦相似度无定义")
    out = (a * b).sum(axis=-1) / (na * nb)
    return out if out.ndim else float(out)


def _word_index(words: Sequence[str], n_rows: int) -> dict[str, int]:
    words = list(words)
    if len(words) != n_rows:
        raise ValueError(f"words 有 {len(words)} 个，table 却有 {n_rows} 行")
    return {w: i for i, w in enumerate(words)}


def _scores(t: np.ndarray, vec: np.ndarray, metric: str) -> np.ndarray:
    """每一行与 vec 的“相近程度”，越大越近：余弦相似度，或负的欧氏距离。"""
    if metric == "cosine":
        if np.linalg.norm(vec) == 0:
            raise ValueError("query 是零向量，没有方向；可改用 metric='euclidean'")
        norms = np.linalg.norm(t, axis=1)
        return (t @ vec) / (np.where(norms == 0, np.inf, norms) * np.linalg.norm(vec))
    if metric == "euclidean":
        return -np.linalg.norm(t - vec, axis=1)
    raise ValueError(f"metric 只能是 'cosine' 或 'euclidean'，收到 {metric!r}")


def nearest(table, words: Sequence[str], query, k: int = 5, exclude: Sequence[str] = (),
            metric: str = "cosine") -> list[tuple[str, float]]:
    """与 query（一个词或一个向量）最近的 k 个词，默认排除 query 本身。

    教学位置：第 6 章“动手试：词向量地图”一节（点一个词，找它的邻居）；第 7 章（训练出的向量）。
    metric='cosine' 返回 (词, 余弦相似度)，从大到小；'euclidean' 返回 (词, 欧氏距离)，从小到大
    （二维示意图上“离得近”用欧氏距离更直观）。得分相同时按词表顺序，保证输出确定。
    """
    t = _table(table)
    index = _word_index(words, t.shape[0])
    check_positive(k, "k", integer=True)
    skip = set(exclude)
    if isinstance(query, str):
        if query not in index:
            raise KeyError(f"{query!r} 不在词表里")
        vec = t[index[query]]
        skip.add(query)
    else:
        vec = as_float_array(query, "query")
        if vec.shape != (t.shape[1],):
            raise ValueError(f"query 向量的形状应为 ({t.shape[1]},)，收到 {vec.shape}")
    scores = _scores(t, vec, metric)
    out = []
    for i in order_by_score(scores):
        if words[i] in skip:
            continue
        out.append((words[i], float(scores[i] if metric == "cosine" else -scores[i])))
        if len(out) == k:
            break
    return out


def analogy(table, words: Sequence[str], a: str, b: str, c: str, k: int = 1,
            metric: str = "cosine") -> list[tuple[str, float]]:
    """向量类比 a − b + c：例如 国王 − 男人 + 女人 ≈ 女王。结果排除 a、b、c 三个查询词（惯例）。

    教学位置：第 6 章“向量算术”一小节。返回最接近的 k 个 (词, 得分)，得分含义见 nearest 的 metric。
    """
    t = _table(table)
    index = _word_index(words, t.shape[0])
    for w in (a, b, c):
        if w not in index:
            raise KeyError(f"{w!r} 不在词表里")
    target = t[index[a]] - t[index[b]] + t[index[c]]
    return nearest(t, words, target, k=k, exclude=(a, b, c), metric=metric)
