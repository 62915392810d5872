"""N-gram 语言模型：用前 n-1 个 token 预测下一个，带 <BOS>/<EOS> 与 add-k 平滑。

P(w | 前文) = (count(前文, w) + k) / (count(前文) + k·V)，V 是候选词的个数。
k=0 即最大似然估计（没见过的组合概率为 0）；k=1 是课文的加一平滑（默认）。
不做的事：不做回退（backoff）或插值，也不做 Kneser-Ney——它们更好，但不是第 5 章要手算的东西。
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from ._checks import check_positive, check_tokens
from .text import BOS, EOS

__all__ = ["NGramModel", "count_ngrams", "unseen_rate", "unseen_examples"]


def _pad(tokens: Sequence[str], n: int) -> list[str]:
    """句首补 n-1 个 <BOS>，句尾补一个 <EOS>。例：n=2, ['我','喝'] -> ['<BOS>','我','喝','<EOS>']"""
    return [BOS] * (n - 1) + list(tokens) + [EOS]


class NGramModel:
    """n 元语言模型。教学位置：第 5.2—5.4 节。

    例（课文 5.2）：在 [我 喝 茶]×2、[我 喝 水] 上，n=2、k=0 时 P(茶|喝) = 2/3。
    vocab 给定时，候选词就是 vocab（加上 <EOS>，除非 add_eos=False）；否则取训练语料里出现过的词加 <EOS>。
    分母只数候选词：候选之外的词（固定 vocab 没收的词；add_eos=False 时的 <EOS>）不参与计数，
    所以任何前文下 P(·|前文) 在候选词上的和都是 1。
    """

    def __init__(self, n: int = 2, k: float = 1.0, vocab: Iterable[str] | None = None, add_eos: bool = True):
        check_positive(n, "n", integer=True)
        check_positive(k, "k", allow_zero=True)
        self.n, self.k = n, float(k)
        self._fixed_vocab = None if vocab is None else check_tokens(vocab, "vocab")
        self._add_eos = add_eos
        self.counts: dict[tuple, Counter] = defaultdict(Counter)
        self.totals: dict[tuple, int] = {}  # 每个前文出现的总次数（fit 时算好，prob 不必每次求和）
        self.vocab: list[str] = []

    def fit(self, corpus: Iterable[Sequence[str]]) -> "NGramModel":
        """数出每个 (前文, 下一个词) 出现的次数。corpus 是分好词的句子列表。"""
        if isinstance(corpus, str):
            raise TypeError("corpus 必须是句子列表，每句是 token 列表；收到一个字符串")
        seen: dict[str, None] = {}
        n_sent = 0
        for sent in corpus:
            toks = _pad(check_tokens(sent, "corpus 里的每个句子"), self.n)
            n_sent += 1
            for i in range(self.n - 1, len(toks)):
                self.counts[tuple(toks[i - self.n + 1:i])][toks[i]] += 1
                seen.setdefault(toks[i], None)
        if n_sent == 0:
            raise ValueError("corpus 不能为空：至少需要一个句子")
        if self._fixed_vocab is not None:
            vocab = list(dict.fromkeys(self._fixed_vocab))
            if self._add_eos and EOS not in vocab:
                vocab.append(EOS)
        else:
            vocab = [w for w in seen if w != EOS] + [EOS]
        self.vocab = vocab
        # 每个前文后面出现候选词的总次数（分母只数候选词，P(·|前文) 的和才是 1）
        cand = set(vocab)
        self.totals = {ctx: sum(n for w, n in c.items() if w in cand) for ctx, c in self.counts.items()}
        return self

    def _context(self, context) -> tuple:
        ctx = tuple(check_tokens(context, "context"))
        if len(ctx) > self.n - 1:
            raise ValueError(f"{self.n}-gram 模型只看前 {self.n - 1} 个 token，context 却有 {len(ctx)} 个：{list(ctx)}")
        if len(ctx) < self.n - 1:  # 句首：不足的部分用 <BOS> 补齐
            ctx = (BOS,) * (self.n - 1 - len(ctx)) + ctx
        return ctx

    def prob(self, word: str, context: Sequence[str] = ()) -> float:
        """P(word | context)。context 是前面的 token（最多 n-1 个，不足时视为句首）。"""
        if not self.vocab:
            raise ValueError("模型还没有训练：先调用 fit(corpus)")
        if not isinstance(word, str):
            raise TypeError(f"word 必须是 str，收到 {type(word).__name__}")
        ctx = self._context(context)
        if self._fixed_vocab is not None and word not in self.vocab:
            raise ValueError(f"{word!r} 不在候选词表里；候选是 {self.vocab}")
        c = self.counts.get(ctx)
        total = self.totals.get(ctx, 0)
        denom = total + self.k * len(self.vocab)
        if denom == 0:
            raise ValueError(f"前文 {list(ctx)} 后面在训练语料里从没出现过候选词，k=0 时概率无定义；请用 k>0 平滑")
        return ((c[word] if c else 0) + self.k) / denom

    def distribution(self, context: Sequence[str] = ()) -> dict[str, float]:
        """给定前文时，每个候选词的概率（和为 1）。"""
        return {w: self.prob(w, context) for w in self.vocab}

    def sentence_logprob(self, tokens: Sequence[str]) -> float:
        """ln P(句子) = Σ ln P(w_t | 前 n-1 个)，含句尾 <EOS>（链式法则 + n-gram 近似，第 5.3 节）。"""
        toks = _pad(check_tokens(tokens), self.n)
        total = 0.0
        for i in range(self.n - 1, len(toks)):
            p = self.prob(toks[i], toks[i - self.n + 1:i] if self.n > 1 else ())
            if p == 0:
                return -math.inf
            total += math.log(p)
        return total

    def perplexity(self, sentences: Iterable[Sequence[str]]) -> float:
        """困惑度 = exp(每个被预测 token 的平均负对数概率)，<EOS> 也算一个（第 11.5 节）。"""
        sentences = list(sentences)
        if not sentences:
            raise ValueError("sentences 不能为空")
        logp = sum(self.sentence_logprob(s) for s in sentences)
        n_pred = sum(len(s) + 1 for s in sentences)
        return math.exp(-logp / n_pred)


def count_ngrams(corpus: Iterable[Sequence[str]], n: int) -> Counter:
    """语料里每个 n-gram（元组）出现的次数；每句首尾补 <BOS>/<EOS>。教学位置：第 5.5 节。"""
    check_positive(n, "n", integer=True)
    out: Counter = Counter()
    for sent in corpus:
        toks = _pad(check_tokens(sent, "corpus 里的每个句子"), n)
        out.update(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    return out


def unseen_rate(train: Iterable[Sequence[str]], heldout: Iterable[Sequence[str]], n: int) -> dict:
    """留出文本里有多少 n-gram 在训练语料中一次都没出现过（按出现次数算），以及训练时要存多少种 n-gram。

    教学位置：第 5.5 节（窗口越长越稀疏、存储越大）。
    返回 {'n', 'stored' (训练集不同 n-gram 数), 'heldout' (留出 n-gram 总数), 'unseen' (其中没见过的个数), 'unseen_rate'}。
    """
    seen = count_ngrams(train, n)
    held = count_ngrams(heldout, n)
    total = sum(held.values())
    if total == 0:
        raise ValueError("heldout 里没有任何 n-gram")
    unseen = sum(c for g, c in held.items() if g not in seen)
    return {"n": n, "stored": len(seen), "heldout": total, "unseen": unseen, "unseen_rate": unseen / total}


def unseen_examples(train: Iterable[Sequence[str]], heldout: Iterable[Sequence[str]], n: int,
                    k: int = 5) -> list[tuple]:
    """留出文本里最先出现的 k 个“训练中没见过”的 n-gram（按出现顺序，去重）。教学位置：第 5.5 节。"""
    check_positive(k, "k", integer=True)
    seen = count_ngrams(train, n)
    out: dict[tuple, None] = {}
    for sent in heldout:
        toks = _pad(check_tokens(sent, "heldout 里的每个句子"), n)
        for i in range(len(toks) - n + 1):
            g = tuple(toks[i:i + n])
            if g not in seen:
                out.setdefault(g, None)
                if len(out) == k:
                    return list(out)
    return list(out)
