"""文本变数字的第一步：词表（Vocab）、词袋、TF-IDF 与 n-gram。

输入都是已经切好的 token 列表（分词见 tokenizers 模块，或 jieba）。
不做的事：不分词、不去停用词、不做 TF-IDF 的平滑或归一化（与课文的定义保持一致）。
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ._checks import check_positive, check_tokens

__all__ = ["PAD", "UNK", "BOS", "EOS", "SPECIALS", "Vocab", "bag_of_words", "document_frequency",
           "idf", "tf_idf", "ngrams"]

PAD, UNK, BOS, EOS = "<PAD>", "<UNK>", "<BOS>", "<EOS>"
SPECIALS = (PAD, UNK, BOS, EOS)


class Vocab:
    """token ↔ 编号的对照表。

    教学位置：第 2.2 节（编号表）、第 2.4 节（<UNK>）。
    specials 放在最前面（默认不加任何特殊符号，这样课文的 7 词表编号是 0..6）；
    不在表里的 token 编码为 <UNK>，前提是 specials 里有 <UNK>，否则报错。
    例：Vocab(['电影', '剧情']).encode(['剧情']) -> [1]
    """

    def __init__(self, tokens: Iterable[str], specials: Sequence[str] = ()):
        specials = check_tokens(specials, "specials")
        tokens = check_tokens(tokens)
        self.itos: list[str] = []
        self.stoi: dict[str, int] = {}
        for t in list(specials) + tokens:
            if t == "":
                raise ValueError("词表里不能有空字符串 token")
            if t not in self.stoi:
                self.stoi[t] = len(self.itos)
                self.itos.append(t)

    @classmethod
    def build(cls, corpus: Iterable[Sequence[str]], min_count: int = 1,
              specials: Sequence[str] = SPECIALS, max_size: int | None = None) -> "Vocab":
        """从分好词的语料建表：按出现次数从多到少，次数相同按首次出现的先后。

        教学位置：第 2.2 节、第 18.1 节（只用训练集建表）。
        """
        check_positive(min_count, "min_count", integer=True)
        if max_size is not None:
            check_positive(max_size, "max_size", integer=True)
        counts: Counter = Counter()
        for doc in corpus:
            counts.update(check_tokens(doc, "corpus 中的每篇文档"))
        kept = [t for t, c in counts.most_common() if c >= min_count and t not in specials]
        if max_size is not None:
            kept = kept[:max_size]
        return cls(kept, specials=specials)

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token) -> bool:
        return token in self.stoi

    def __repr__(self) -> str:
        head = ", ".join(self.itos[:8])
        return f"Vocab({len(self)} 个 token: {head}{', …' if len(self) > 8 else ''})"

    def id(self, token: str) -> int:
        """一个 token 的编号；未登录词给 <UNK> 的编号（表里没有 <UNK> 时报错）。"""
        if token in self.stoi:
            return self.stoi[token]
        if UNK in self.stoi:
            return self.stoi[UNK]
        raise KeyError(f"{token!r} 不在词表里，而词表没有 {UNK}；可用 specials=SPECIALS 建表")

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """token 列表 → 编号列表。例：['电影', '不', '好看'] -> [0, 6, 2]"""
        return [self.id(t) for t in check_tokens(tokens)]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """编号列表 → token 列表；越界编号报错并给出合法范围。"""
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"编号必须是整数，收到 {type(i).__name__}")
            if not 0 <= i < len(self):
                raise ValueError(f"编号 {i} 超出范围：合法编号是 0..{len(self) - 1}")
            out.append(self.itos[i])
        return out


def bag_of_words(tokens: Sequence[str], vocab: Vocab) -> np.ndarray:
    """词袋：按词表顺序数每个词出现几次。不在表里的词计入 <UNK>（若有），否则忽略。

    教学位置：第 3.1 节。
    例：['电影', '不', '好看'] 在 7 词表上 -> [1, 0, 1, 0, 0, 0, 1]
    """
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab 必须是 Vocab，收到 {type(vocab).__name__}")
    vec = np.zeros(len(vocab), dtype=float)
    for t in check_tokens(tokens):
        if t in vocab.stoi:
            vec[vocab.stoi[t]] += 1
        elif UNK in vocab.stoi:
            vec[vocab.stoi[UNK]] += 1
    return vec


def _docs(docs) -> list[list[str]]:
    if isinstance(docs, str):
        raise TypeError("docs 必须是“文档列表”，每篇文档是 token 列表；收到一个字符串")
    docs = [check_tokens(d, "每篇文档") for d in docs]
    if not docs:
        raise ValueError("docs 不能为空：至少需要一篇文档才能计算文档频率")
    return docs


def document_frequency(docs: Sequence[Sequence[str]]) -> Counter:
    """每个词出现在几篇文档里（一篇里出现多次只算一次）。教学位置：第 3.4 节。"""
    df: Counter = Counter()
    for d in _docs(docs):
        df.update(dict.fromkeys(d, 1))  # 去重但保留首次出现的顺序：输出顺序与哈希种子无关
    return df


def idf(docs: Sequence[Sequence[str]]) -> dict[str, float]:
    """课文定义的 IDF = ln(文档总数 / 包含该词的文档数)，无平滑。

    教学位置：第 3.4 节。例：D1–D3 中 '电影' -> ln(3/3) = 0，'好看' -> ln(3/1) ≈ 1.099
    """
    docs = _docs(docs)
    n = len(docs)
    return {t: math.log(n / c) for t, c in document_frequency(docs).items()}


def _check_idf_table(idf_table) -> Mapping:
    """idf_table 必须是 {token: 非负有限的数}；坏值直接报错（否则矩阵里会悄悄出现 NaN）。"""
    if not isinstance(idf_table, Mapping):
        raise TypeError(f"idf_table 必须是字典 {{token: IDF}}（如 idf(训练集) 的结果），收到 {type(idf_table).__name__}")
    for t, w in idf_table.items():
        if not isinstance(t, str):
            raise TypeError(f"idf_table 的键必须是 token（str），收到 {type(t).__name__}: {t!r}")
        check_positive(w, f"idf_table[{t!r}]", allow_zero=True)
    return idf_table


def tf_idf(docs: Sequence[Sequence[str]], vocab: Vocab | None = None,
           idf_table: dict[str, float] | None = None) -> tuple[np.ndarray, Vocab]:
    """TF-IDF 矩阵：TF 为原始计数，IDF = ln(N/df)，两者相乘；不平滑、不归一化。

    教学位置：第 3.4 节。返回 (矩阵 [文档数, 词表大小], 词表)。
    vocab 缺省时按首次出现顺序从 docs 建表；idf_table 缺省时由 docs 计算，给出时必须是
    {token: 非负有限的数}（NaN、无穷大、负数或不是数都会报错）。
    真实实验里 IDF 只能在训练集上拟合，再用 idf_table 套到验证/测试集（第 18.1 节）。

    与常见库的差别：scikit-learn 的 TfidfVectorizer 默认 smooth_idf=True，
    用 ln((1+N)/(1+df)) + 1，且对每行做 L2 归一化；gensim 默认用以 2 为底的对数并归一化。
    因此同一语料的数值不同，比较前要先对齐定义。
    例：D1 = ['电影', '好看'] 在 [电影, 好看, 精彩, 无聊] 上 -> [0, 1.099, 0, 0]
    """
    docs = _docs(docs)
    if vocab is None:
        vocab = Vocab([t for d in docs for t in d])
    idf_table = idf(docs) if idf_table is None else _check_idf_table(idf_table)
    weights = np.array([idf_table.get(t, 0.0) for t in vocab.itos])
    counts = np.stack([bag_of_words(d, vocab) for d in docs])
    return counts * weights, vocab


def ngrams(tokens: Sequence[str], n: int, joiner: str | None = "_") -> list:
    """连续 n 个 token 组成的片段。joiner 为 None 时返回元组。

    教学位置：第 5.1 节。例：ngrams(['电影', '不', '好看'], 2) -> ['电影_不', '不_好看']
    token 数少于 n 时返回空列表。
    """
    tokens = check_tokens(tokens)
    check_positive(n, "n", integer=True)
    grams = [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    return grams if joiner is None else [joiner.join(g) for g in grams]
