"""附录 D 的脚本：第 1—4 章（规则打分、编号表、词袋与 TF-IDF、一次梯度下降）。只用标准库。

每章一个不带参数的函数，返回 {名称: 数值}；tests/test_examples.py 把它们和 nlpbook 的 numpy 代码逐项对照。
"""
from __future__ import annotations

import math

from .common import sigmoid

__all__ = ["chapter1", "chapter2", "chapter3", "chapter4"]

REVIEWS = [("A", ["电影", "好看"], 1), ("B", ["剧情", "精彩"], 1), ("C", ["电影", "难看"], 0),
           ("D", ["剧情", "无聊"], 0), ("E", ["电影", "不", "好看"], 0), ("F", ["电影", "不", "难看"], 1)]
COLUMNS = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不"]
LEXICON = {"好看": 1, "精彩": 1, "难看": -1, "无聊": -1}


def chapter1() -> dict:
    """第 1.3 节：规则打分（好词 +1、坏词 -1，分数 > 0 判好评）。"""
    out = {}
    for name, tokens, label in REVIEWS:
        score = sum(LEXICON.get(t, 0) for t in tokens)
        out[f"{name} 规则分数"] = score
        out[f"{name} 判对了吗"] = int((score > 0) == bool(label))
    return out


def chapter2() -> dict:
    """第 2.2 节：编号表。"""
    ids = {w: i for i, w in enumerate(COLUMNS)}
    return {"电影好看 的编号": [ids[t] for t in ["电影", "好看"]],
            "电影不好看 的编号": [ids[t] for t in ["电影", "不", "好看"]]}


def chapter3() -> dict:
    """第 3 章：词袋、手设权重的分数与 sigmoid、TF-IDF。"""
    def bow(tokens):
        return [tokens.count(c) for c in COLUMNS]
    weights = [0, 0, 1, 1, -1, -1, 0]
    out = {"电影好看 词袋": bow(["电影", "好看"]), "电影不好看 词袋": bow(["电影", "不", "好看"])}
    for name, tokens, _ in REVIEWS:
        z = sum(x * w for x, w in zip(bow(tokens), weights))
        out[f"{name} 分数"] = z
        out[f"{name} 好评概率"] = sigmoid(z)
    for z in (-2, -1, 0, 1, 2):
        out[f"sigmoid({z})"] = sigmoid(z)
    docs = [["电影", "好看"], ["电影", "精彩"], ["电影", "无聊"]]
    cols = ["电影", "好看", "精彩", "无聊"]
    idf = {c: math.log(len(docs) / sum(c in d for d in docs)) for c in cols}
    out["IDF(电影)"], out["IDF(好看)"] = idf["电影"], idf["好看"]
    out["D1 TF-IDF"] = [docs[0].count(c) * idf[c] for c in cols]
    out["我喜欢你 与 你喜欢我 词袋相同"] = int(sorted(["我", "喜欢", "你"]) == sorted(["你", "喜欢", "我"]))
    return out


def chapter4() -> dict:
    """第 4 章：一次“预测—损失—梯度—更新”（x=1, y=1, w=0, 无偏置, 学习率 0.2）。"""
    x, y, w, lr = 1.0, 1, 0.0, 0.2
    p = sigmoid(w * x)
    grad = (p - y) * x
    w_new = w - lr * grad
    p_new = sigmoid(w_new * x)
    return {"初始概率": p, "初始损失": -math.log(p), "梯度": grad, "新权重": w_new,
            "新概率": p_new, "新损失": -math.log(p_new),
            "损失(p=0.1)": -math.log(0.1), "损失(p=0.5)": -math.log(0.5), "损失(p=0.9)": -math.log(0.9),
            "标签为差评时的梯度": (p - 0) * x}
