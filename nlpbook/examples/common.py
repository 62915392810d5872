"""附录 D 的脚本里各章共用的几个小函数（只用标准库）：sigmoid、点积、平均、softmax、余弦，以及句首/句尾记号。

每个都只有几行，写法和课文的公式一一对应；numpy 版本在 nlpbook.functional 与 nlpbook.embedding。
"""
from __future__ import annotations

import math

__all__ = ["BOS", "EOS", "NEG_INF", "sigmoid", "dot", "mean", "softmax", "cosine"]

BOS, EOS = "<BOS>", "<EOS>"
NEG_INF = -math.inf  # 被遮罩的位置的分数


def sigmoid(z: float) -> float:
    """σ(z) = 1 / (1 + e^(−z))；z 很负时改写成 e^z / (1 + e^z)，避免 e^(−z) 溢出。"""
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def dot(a, b) -> float:
    """点积 Σ aᵢbᵢ。"""
    return sum(x * y for x, y in zip(a, b))


def mean(vectors) -> list:
    """几个等长向量逐维平均。"""
    return [sum(col) / len(vectors) for col in zip(*vectors)]


def softmax(scores) -> list:
    """softmax：先减去最大值再取指数（防止溢出）；分数是 -inf 的位置权重恰好为 0。"""
    top = max(scores)
    exps = [math.exp(s - top) if s != -math.inf else 0.0 for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def cosine(a, b) -> float:
    """余弦相似度 a·b / (|a||b|)。"""
    return dot(a, b) / (math.sqrt(dot(a, a)) * math.sqrt(dot(b, b)))
