"""朴素贝叶斯（附录 A.1）：一次贝叶斯公式的手算，以及在真实评论上可用的多项式朴素贝叶斯分类器。

全部在对数空间里计算（很多个小概率相乘会下溢成 0）。
不做的事：不做特征选择、不做伯努利/补集等其他事件模型；未登录词在预测时直接忽略。
"""
from __future__ import annotations

import numpy as np

from ._checks import as_float_array, check_positive, check_tokens
from .functional import log_softmax
from .sparse import CountMatrix
from .text import Vocab

__all__ = ["naive_bayes_posterior", "MultinomialNB"]


def naive_bayes_posterior(prior, likelihoods) -> np.ndarray:
    """后验概率 ∝ 先验 × 似然。教学位置：附录 A.1。

    prior 形状 (类别数,)；likelihoods 形状 (类别数,)（只看一个词），或 (类别数, 词数)
    （“朴素”假设：给定类别后各词独立，逐词相乘）。返回和为 1 的后验 (类别数,)。
    例：prior [0.5, 0.5]，P(精彩|好评)=0.4、P(精彩|差评)=0.02 → 分数 0.2、0.01 → 后验 [0.952, 0.048]
    """
    p = as_float_array(prior, "prior")
    lik = as_float_array(likelihoods, "likelihoods")
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"prior 必须是非空的一维数组（每个类别一个先验），收到形状 {p.shape}")
    if lik.ndim == 1:
        lik = lik[:, None]
    if lik.ndim != 2 or lik.shape[0] != p.size:
        raise ValueError(f"likelihoods 的第一维应等于类别数 {p.size}，收到形状 {lik.shape}")
    for arr, name in ((p, "prior"), (lik, "likelihoods")):
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError(f"{name} 是概率，必须在 [0, 1] 之内")
    with np.errstate(divide="ignore"):
        score = np.log(p) + np.log(lik).sum(axis=1)
    if np.all(score == -np.inf):
        raise ValueError("每个类别的 先验×似然 都是 0，后验无定义")
    m = score.max()
    e = np.exp(score - m)
    return e / e.sum()


class MultinomialNB:
    """多项式朴素贝叶斯：P(类别 | 文档) ∝ P(类别) · Π_词 P(词 | 类别)^次数。教学位置：附录 A.1。

    P(词 | 类别) = (该类文档里这个词的总次数 + alpha) / (该类总词数 + alpha·V)，V 为训练词表大小
    （alpha=1 即加一平滑，同第 5 章）。预测时不在训练词表里的词忽略。
    例：MultinomialNB().fit([['好看'], ['难看']], [1, 0]).predict([['好看']]) → [1]
    """

    def fit(self, docs, labels, alpha: float = 1.0) -> "MultinomialNB":
        """docs 是分好词的文档列表，labels 是每篇的类别（整数或字符串）。"""
        check_positive(alpha, "alpha")
        if isinstance(docs, str):
            raise TypeError("docs 必须是文档列表（每篇是 token 列表），收到一个字符串")
        docs = [check_tokens(d, "每篇文档") for d in docs]
        y = np.asarray(list(labels))
        if len(docs) == 0:
            raise ValueError("docs 不能为空")
        if y.shape != (len(docs),):
            raise ValueError(f"labels 有 {y.size} 个，docs 有 {len(docs)} 篇；数量必须相同")
        self.classes_ = np.unique(y)
        self.vocab = Vocab([t for d in docs for t in d])
        X = CountMatrix.from_docs(docs, self.vocab)
        counts = np.stack([X.rdot((y == c).astype(float)) for c in self.classes_])  # (C, V)
        self.class_count_ = np.array([(y == c).sum() for c in self.classes_], dtype=float)
        self.log_prior_ = np.log(self.class_count_ / len(docs))
        self.log_likelihood_ = np.log(counts + alpha) - np.log(counts.sum(axis=1, keepdims=True)
                                                               + alpha * len(self.vocab))
        return self

    def _check_fitted(self):
        if not hasattr(self, "log_prior_"):
            raise RuntimeError("请先调用 fit(docs, labels) 再预测")

    def predict_log_proba(self, docs) -> np.ndarray:
        """每篇文档属于各类别的对数后验 (文档数, 类别数)，类别顺序见 classes_。"""
        self._check_fitted()
        if isinstance(docs, str):
            raise TypeError("docs 必须是文档列表（每篇是 token 列表），收到一个字符串")
        X = CountMatrix.from_docs([check_tokens(d, "每篇文档") for d in docs], self.vocab)
        joint = np.stack([X.dot(row) for row in self.log_likelihood_], axis=1) + self.log_prior_
        return log_softmax(joint, axis=1)

    def predict_proba(self, docs) -> np.ndarray:
        """每篇文档属于各类别的后验概率 (文档数, 类别数)，每行和为 1。"""
        return np.exp(self.predict_log_proba(docs))

    def predict(self, docs) -> np.ndarray:
        """后验最大的类别（并列时取 classes_ 里靠前的）。"""
        logp = self.predict_log_proba(docs)
        return self.classes_[logp.argmax(axis=1)]
