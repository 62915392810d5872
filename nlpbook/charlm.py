"""字级 n-gram 语言模型：在真实评论上数字符，给生成面板提供真实的“下一个字”分布。

与 ngram.NGramModel 同一套定义（前 n-1 个 token 预测下一个、句尾 EOS、add-k 平滑），
但 token 是单个字符，计数用 numpy 排序数组存，一两 MB 文本几秒内训练完，查一次分布不到一毫秒。
- 词表：vocab[0] = "\\n"（文本结束 EOS，也用作文本开头前的填充），vocab[1] = <UNK>
  （训练中出现少于 min_count 次的字，以及没见过的字），其余按出现次数从多到少（并列按首次出现）。
  文本内部的换行也当作 EOS。
- interpolate=False：只用 n 阶计数的 add-k，P(w|h) = (c(h,w) + k) / (c(h) + k·V)，与 NGramModel 完全一致。
- interpolate=True（默认）：Witten-Bell 插值。1 阶：P₁(w) = (c(w) + k) / (N + k·V)；
  第 j 阶（前文 h 长 j-1，h' 是 h 去掉最左一个字）：
  P_j(w|h) = (c(h,w) + T(h)·P_{j-1}(w|h')) / (c(h) + T(h))，T(h) 是 h 后面出现过的不同字符数；
  h 从没出现过时 P_j = P_{j-1}。每一阶都是合法分布，所以结果和为 1、处处 > 0（k > 0）。
它满足 lm.LanguageModel 的接口（encode、decode、next_logits、text_nll、perplexity、generate）。
不做的事：不做 Kneser-Ney、不做剪枝；困惑度依赖词表（<UNK> 合并了罕见字），不同 min_count 之间不可直接比。
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ._checks import check_ids, check_positive, check_texts
from .lm import BOUNDARY, LanguageModel
from .text import UNK

__all__ = ["CharNGramLM", "EOS_CHAR"]

EOS_CHAR = BOUNDARY


def _codepoints(s: str) -> np.ndarray:
    return np.frombuffer(s.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


class CharNGramLM(LanguageModel):
    """字级 n 元语言模型。教学位置：第 5 章（n-gram）、第 11 章（生成与困惑度）。

    例：CharNGramLM(n=3).fit(训练文本).top_next("这本", 2) -> [('书', 0.86), ('《', 0.011)]（真实评论训练集）
    """

    def __init__(self, n: int = 3, k: float = 0.01, min_count: int = 2, interpolate: bool = True):
        check_positive(n, "n", integer=True)
        check_positive(k, "k")  # k > 0：保证任何前文下每个字的概率都 > 0，对数概率有限
        check_positive(min_count, "min_count", integer=True)
        if not isinstance(interpolate, bool):
            raise TypeError(f"interpolate 必须是 True 或 False，收到 {interpolate!r}")
        self.n, self.k, self.min_count, self.interpolate = n, float(k), min_count, interpolate
        self.vocab: list[str] = []
        self.eos_id, self.unk_id = 0, 1

    # ---------- 训练 ----------
    def fit(self, texts: Iterable[str]) -> "CharNGramLM":
        """数出每一阶 (前文, 下一个字) 的次数。每条文本前补 n-1 个 "\\n"，末尾补一个 "\\n"（EOS）。"""
        texts = check_texts(texts)
        n, pad = self.n, EOS_CHAR * (self.n - 1)
        cps = _codepoints("".join(pad + t + EOS_CHAR for t in texts))
        lens = np.array([len(t) + n for t in texts])  # 每块长度：填充 n-1 + 正文 + EOS
        is_target = np.ones(cps.size, dtype=bool)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        for j in range(n - 1):  # 块首的 n-1 个填充只作前文，不被预测
            is_target[starts + j] = False
        targets = np.flatnonzero(is_target)
        # 词表：EOS、UNK，然后是次数 >= min_count 的字
        uniq, first, inv, counts = np.unique(cps[targets], return_index=True, return_inverse=True,
                                             return_counts=True)
        eos_cp = ord(EOS_CHAR)
        keep = (counts >= self.min_count) & (uniq != eos_cp)
        order = np.lexsort((first[keep], -counts[keep]))
        kept = uniq[keep][order]
        self.vocab = [EOS_CHAR, UNK] + [chr(c) for c in kept]
        self.stoi = {ch: i for i, ch in enumerate(self.vocab)}
        V = len(self.vocab)
        # 每种码位 → 编号；填充位本来就是 "\n"，即 EOS
        table = np.full(uniq.size, self.unk_id, dtype=np.int64)
        table[np.flatnonzero(keep)[order]] = np.arange(2, V)
        table[uniq == eos_cp] = self.eos_id
        ids = np.full(cps.size, self.eos_id, dtype=np.int64)
        ids[targets] = table[inv.reshape(-1)]
        self._fit_counts(ids, targets, V)
        self.n_train_chars = int(targets.size)
        return self

    def _fit_counts(self, ids: np.ndarray, targets: np.ndarray, V: int) -> None:
        """对每一阶 j（前文长 j）建三张有序表：前文键、(前文, 字) 键及次数。键是整数，可二分查找。"""
        w = ids[targets]
        self._ctx_keys, self._ctx_total, self._ctx_types = [], [], []
        self._pair_keys, self._pair_counts = [], []
        ctx_idx = np.zeros(targets.size, dtype=np.int64)  # 0 阶：只有一个空前文
        for j in range(self.n):
            if j > 0:  # 前文向左延长一个字：键 = 短前文的编号·V + 新加的字
                keys, ctx_idx = np.unique(ctx_idx * V + ids[targets - j], return_inverse=True)
                ctx_idx = ctx_idx.reshape(-1)
            else:
                keys = np.zeros(1, dtype=np.int64)
            pair_keys, pair_counts = np.unique(ctx_idx * V + w, return_counts=True)
            self._ctx_keys.append(keys)
            self._ctx_total.append(np.bincount(ctx_idx, minlength=keys.size).astype(np.int32))
            self._ctx_types.append(np.bincount(pair_keys // V, minlength=keys.size).astype(np.int32))
            self._pair_keys.append(pair_keys)
            self._pair_counts.append(pair_counts.astype(np.int32))

    # ---------- 编码 ----------
    def _ready(self) -> None:
        if not self.vocab:
            raise ValueError("模型还没有训练：先调用 fit(texts)")

    def encode(self, text: str) -> list[int]:
        """文本 → 编号列表（不加 EOS）；词表外的字编为 <UNK>。例：encode("书") -> [书的编号]"""
        self._ready()
        if not isinstance(text, str):
            raise TypeError(f"text 必须是 str，收到 {type(text).__name__}")
        return [self.stoi.get(c, self.unk_id) for c in text]

    def decode(self, ids) -> str:
        """编号列表 → 文本；EOS 还原为 "\\n"，<UNK> 还原为字符串 "<UNK>"。"""
        self._ready()
        ids = check_ids(ids, "ids", size=len(self.vocab))
        return "".join(self.vocab[i] for i in ids)

    # ---------- 概率 ----------
    def _context_rows(self, ctx_ids: list[int]) -> list[int]:
        """前文（最近 n-1 个编号，不足时左补 EOS）在每一阶的前文编号；没见过为 -1。"""
        V, n = len(self.vocab), self.n
        ctx = ([self.eos_id] * (n - 1) + list(ctx_ids))[len(ctx_ids):]  # 恰好 n-1 个
        rows = [0]
        for j in range(1, n):
            key = rows[-1] * V + ctx[-j] if rows[-1] >= 0 else -1
            keys = self._ctx_keys[j]
            pos = int(np.searchsorted(keys, key))
            rows.append(pos if key >= 0 and pos < keys.size and keys[pos] == key else -1)
        return rows

    def _orders(self) -> list[int]:
        """参与计算的阶：插值时从低到高每一阶，否则只有最高阶。"""
        return list(range(self.n)) if self.interpolate else [self.n - 1]

    def _distribution_ids(self, ctx_ids: list[int]) -> np.ndarray:
        V = len(self.vocab)
        rows = self._context_rows(ctx_ids)
        p = np.full(V, 1.0 / V)  # 前文没见过时 add-k 给出均匀分布
        for j in self._orders():
            row = rows[j]
            if row < 0:
                continue
            keys = self._pair_keys[j]
            lo, hi = np.searchsorted(keys, [row * V, (row + 1) * V])
            c = np.zeros(V)
            c[keys[lo:hi] - row * V] = self._pair_counts[j][lo:hi]
            total = float(self._ctx_total[j][row])
            if self.interpolate and j > 0:
                t = float(self._ctx_types[j][row])
                p = (c + t * p) / (total + t)
            else:  # add-k（插值时的 1 阶也是它）
                p = (c + self.k) / (total + self.k * V)
        return p

    def next_distribution(self, prefix: str) -> np.ndarray:
        """前文字符串 → 下一个字在 vocab 上的概率（和为 1）。只看最后 n-1 个字；不足时视为文本开头。

        例：next_distribution("") 是文本第一个字的分布。
        """
        self._ready()
        if not isinstance(prefix, str):
            raise TypeError(f"prefix 必须是 str，收到 {type(prefix).__name__}")
        tail = prefix[-(self.n - 1):] if self.n > 1 else ""
        return self._distribution_ids(self.encode(tail))

    def next_logits(self, prefix_ids) -> np.ndarray:
        """前文编号 → 下一个字的对数概率（可直接交给 decoding.generate 当 logits）。"""
        self._ready()
        return np.log(self._distribution_ids(check_ids(prefix_ids, "prefix_ids", size=len(self.vocab))))

    def top_next(self, prefix: str, k: int = 5) -> list[tuple[str, float]]:
        """最可能的 k 个下一个字及概率，从高到低（并列按编号）。"""
        check_positive(k, "k", integer=True)
        p = self.next_distribution(prefix)
        best = np.argsort(-p, kind="stable")[:k]
        return [(self.vocab[i], float(p[i])) for i in best]

    def _text_logprobs(self, texts) -> tuple[np.ndarray, list[str]]:
        """所有被预测位置的 ln P（按文本顺序连成一串）与检查过的文本列表。"""
        self._ready()
        texts = check_texts(texts)
        pad = [self.eos_id] * (self.n - 1)
        seq, targets = [], []
        for t in texts:  # 每条文本单独补 n-1 个 EOS 作开头前文，末尾加 EOS
            targets.extend(range(len(seq) + self.n - 1, len(seq) + self.n + len(t)))
            seq += pad + self.encode(t) + [self.eos_id]
        lp = self._logprob_positions(np.array(seq, dtype=np.int64), np.array(targets, dtype=np.int64))
        return lp, texts

    def text_nll(self, texts: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        """每条文本的总负对数概率与被预测的字数（含结尾的 EOS）：返回 (nll (条数,), 字数 (条数,))。

        教学位置：第 11.5 节。exp(nll.sum() / 字数.sum()) 就是 perplexity(texts)（lm.LanguageModel 的共同定义；
        例：真实评论上 n=3 的验证集困惑度约 63，n=1 约 501；<UNK> 当作一个普通字符计分）；
        按文本重抽样、再用这个公式重算，就得到困惑度的自助法区间。
        例：text_nll(["好", "不错"]) → (两个数, [2, 3])
        """
        lp, texts = self._text_logprobs(texts)
        counts = np.array([len(t) + 1 for t in texts], dtype=np.int64)
        return -np.add.reduceat(lp, np.r_[0, np.cumsum(counts)[:-1]]), counts

    def _logprob_positions(self, seq: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """seq[targets] 每个位置的 ln P(真实字 | 前文)，按阶向量化（与 next_distribution 逐字的结果一致）。"""
        V, n = len(self.vocab), self.n
        w = seq[targets]
        rows = [np.zeros(w.size, dtype=np.int64)]  # 每一阶每个位置的前文编号（-1 = 没见过）
        for j in range(1, n):
            keys, prev = self._ctx_keys[j], rows[-1]
            key = np.where(prev >= 0, prev * V + seq[targets - j], -1)
            pos = np.minimum(np.searchsorted(keys, key), keys.size - 1)
            rows.append(np.where((prev >= 0) & (keys[pos] == key), pos, -1))
        p = np.full(w.size, 1.0 / V)
        for j in self._orders():
            seen = rows[j] >= 0
            r = np.where(seen, rows[j], 0)
            c = self._lookup_counts(j, r, w)
            total = self._ctx_total[j][r].astype(float)
            if self.interpolate and j > 0:
                t = self._ctx_types[j][r].astype(float)
                p = np.where(seen, (c + t * p) / np.maximum(total + t, 1.0), p)
            else:
                p = np.where(seen, (c + self.k) / (total + self.k * V), p)
        return np.log(p)

    def _lookup_counts(self, j: int, rows: np.ndarray, w: np.ndarray) -> np.ndarray:
        keys = self._pair_keys[j]
        key = rows * len(self.vocab) + w
        pos = np.minimum(np.searchsorted(keys, key), keys.size - 1)
        return np.where(keys[pos] == key, self._pair_counts[j][pos], 0).astype(float)

    def nbytes(self) -> int:
        """计数表占用的内存（字节）。"""
        self._ready()
        arrays = self._ctx_keys + self._ctx_total + self._ctx_types + self._pair_keys + self._pair_counts
        return int(sum(a.nbytes for a in arrays))

    def n_params(self) -> int:
        """模型存了多少个数：各阶计数表的项数之和（n 元模型的“参数”就是这些次数）。"""
        self._ready()
        arrays = self._ctx_keys + self._ctx_total + self._ctx_types + self._pair_keys + self._pair_counts
        return int(sum(a.size for a in arrays))

    def __repr__(self) -> str:
        state = f"{len(self.vocab)} 个字符" if self.vocab else "未训练"
        return (f"CharNGramLM(n={self.n}, k={self.k}, min_count={self.min_count}, "
                f"interpolate={self.interpolate}, {state})")

