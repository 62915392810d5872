"""一个最小的 CSR 稀疏计数矩阵：真实评论的词袋大多是 0，稠密存储太占内存。

只实现逻辑回归需要的三件事：X @ w、Xᵀ @ r、按行取子集。
不做的事：不是通用稀疏矩阵库（需要更多功能请用 scipy.sparse）。
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._checks import check_tokens

__all__ = ["CountMatrix"]


class CountMatrix:
    """按行压缩存储（CSR）的计数矩阵，形状 (文档数, 词表大小)。

    教学位置：第 3.1 节（词袋）在真实数据上的存储方式；第 4 章训练时使用。
    """

    def __init__(self, indptr, indices, data, n_cols: int):
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.indices = np.asarray(indices, dtype=np.int64)
        self.data = np.asarray(data, dtype=np.float64)
        self.shape = (len(self.indptr) - 1, int(n_cols))
        if len(self.indices) != len(self.data) or self.indptr[-1] != len(self.data):
            raise ValueError("indptr、indices、data 的长度互相矛盾")
        if len(self.indices) and (self.indices.min() < 0 or self.indices.max() >= n_cols):
            raise ValueError(f"列号必须在 0..{n_cols - 1} 之间")

    @classmethod
    def from_docs(cls, docs: Sequence[Sequence[str]], vocab, weights: dict | None = None):
        """把分好词的文档按词表计数（不在表里的词：有 <UNK> 计入 <UNK>，否则忽略）。

        weights 给出每个词的乘数（例如 IDF），即得到 TF-IDF。
        例：[['电影', '好看', '好看']] -> 第 0 行 {电影: 1, 好看: 2}
        """
        from .text import UNK  # 同层模块，延迟导入避免循环
        indptr, indices, data = [0], [], []
        unk = vocab.stoi.get(UNK)
        for doc in docs:
            counts: dict[int, float] = {}
            for t in check_tokens(doc, "每篇文档"):
                j = vocab.stoi.get(t, unk)
                if j is not None:
                    counts[j] = counts.get(j, 0.0) + 1.0
            cols = sorted(counts)
            indices.extend(cols)
            if weights is None:
                data.extend(counts[j] for j in cols)
            else:
                data.extend(counts[j] * weights.get(vocab.itos[j], 0.0) for j in cols)
            indptr.append(len(indices))
        return cls(indptr, indices, data, len(vocab))

    def __repr__(self) -> str:
        return f"CountMatrix(形状 {self.shape}, 非零 {len(self.data)} 个)"

    def dot(self, w) -> np.ndarray:
        """X @ w，w 形状 (列数,)。"""
        w = np.asarray(w, dtype=float)
        if w.shape != (self.shape[1],):
            raise ValueError(f"w 的形状应为 ({self.shape[1]},)，收到 {w.shape}")
        prod = self.data * w[self.indices]
        out = np.zeros(self.shape[0])
        nonempty = np.diff(self.indptr) > 0
        if prod.size:
            out[nonempty] = np.add.reduceat(prod, self.indptr[:-1][nonempty])
        return out

    def rdot(self, r) -> np.ndarray:
        """Xᵀ @ r，r 形状 (行数,)。"""
        r = np.asarray(r, dtype=float)
        if r.shape != (self.shape[0],):
            raise ValueError(f"r 的形状应为 ({self.shape[0]},)，收到 {r.shape}")
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        return np.bincount(self.indices, weights=self.data * r[rows], minlength=self.shape[1])

    def rows(self, idx) -> "CountMatrix":
        """按行号取子矩阵（保持给定顺序）。"""
        idx = np.asarray(idx, dtype=np.int64)
        starts, ends = self.indptr[idx], self.indptr[idx + 1]
        lengths = ends - starts
        take = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]) if len(idx) else np.array([], int)
        return CountMatrix(np.concatenate([[0], np.cumsum(lengths)]), self.indices[take],
                           self.data[take], self.shape[1])

    def toarray(self) -> np.ndarray:
        """转成稠密数组（只适合小矩阵）。"""
        out = np.zeros(self.shape)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        np.add.at(out, (rows, self.indices), self.data)
        return out
