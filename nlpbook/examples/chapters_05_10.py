"""附录 D 的脚本：第 5—10 章（n-gram、词向量、Word2Vec、记事本式 RNN、LSTM 的一格、卷积窗口）。只用标准库。

每章一个不带参数的函数，返回 {名称: 数值}；tests/test_examples.py 把它们和 nlpbook 的 numpy 代码逐项对照。
"""
from __future__ import annotations

import math
from fractions import Fraction

from .common import BOS, EOS, cosine, dot, mean, sigmoid

__all__ = ["chapter5", "chapter6", "chapter7", "chapter8", "chapter9", "chapter10", "EMBEDDING_TABLE"]

# 第 6.1 节手设的词向量表
EMBEDDING_TABLE = {"好看": [1.0, 0.0], "精彩": [0.8, 0.2], "难看": [-1.0, 0.0], "无聊": [-0.8, 0.2],
                   "电影": [0.0, 1.0]}


def chapter5() -> dict:
    """第 5 章：bigram 特征、“我 喝 茶”语料上的 bigram 语言模型、加一平滑。"""
    tokens = ["电影", "不", "好看"]
    corpus = [["我", "喝", "茶"], ["我", "喝", "茶"], ["我", "喝", "水"]]
    pairs = [(a, b) for s in corpus for a, b in zip([BOS] + s, s + [EOS])]  # (前一个词, 当前词)

    def p(word, prev, k=0, candidates=None):
        after = [b for a, b in pairs if a == prev]
        size = len(candidates) if candidates else 0
        return Fraction(after.count(word) + k, len(after) + k * size)

    sentence = ["我", "喝", "茶"]
    prob = math.prod(p(b, a) for a, b in zip([BOS] + sentence, sentence + [EOS]))
    cands = ["茶", "水", "咖啡"]
    return {"电影不好看 的 bigram": [f"{a}_{b}" for a, b in zip(tokens, tokens[1:])],
            "P(茶|喝)": p("茶", "喝"), "P(水|喝)": p("水", "喝"), "P(咖啡|喝)（只按次数）": p("咖啡", "喝"),
            "加一后的次数 茶/水/咖啡": [[b for a, b in pairs if a == "喝"].count(w) + 1 for w in cands],
            "加一后的总数": len([b for a, b in pairs if a == "喝"]) + len(cands),
            "加一后 P(茶|喝)": p("茶", "喝", 1, cands), "加一后 P(水|喝)": p("水", "喝", 1, cands),
            "加一后 P(咖啡|喝)": p("咖啡", "喝", 1, cands),
            "P(<BOS> 我 喝 茶 <EOS>)": prob,
            "困惑度(我 喝 茶，含 <EOS> 共 4 步)": float(prob) ** (-1 / 4)}


def chapter6() -> dict:
    """第 6 章：查表、one-hot 乘表、平均词向量的打分、余弦相似度。"""
    t = EMBEDDING_TABLE
    words = list(t)
    one_hot = [int(w == "好看") for w in words]
    picked = [sum(one_hot[i] * t[w][j] for i, w in enumerate(words)) for j in range(2)]
    out = {"查表 好看": t["好看"], "查表 电影": t["电影"], "one-hot 好看": one_hot, "one-hot 乘表": picked}
    weights = [2, 0]
    for name, toks in (("电影好看", ["电影", "好看"]), ("电影精彩", ["电影", "精彩"])):
        avg = mean([t[w] for w in toks])
        out[f"{name} 平均向量"] = avg
        out[f"{name} 得分"] = dot(weights, avg)
        out[f"{name} 好评概率"] = sigmoid(dot(weights, avg))
    for a, b in (("好看", "精彩"), ("好看", "难看"), ("好看", "电影"), ("精彩", "无聊")):
        out[f"余弦 {a}—{b}"] = cosine(t[a], t[b])
    out["平均与词序无关"] = int(mean([t["电影"], t["好看"]]) == mean([t["好看"], t["电影"]]))
    return out


def chapter7() -> dict:
    """第 7 章：CBOW 的一次预测、softmax、梯度与输入向量更新；Skip-gram 词对；负采样损失。"""
    w_in = {"喜欢": [1.0, 0.0], "电影": [0.0, 1.0]}
    w_out = {"看": [2.0, 2.0], "吃": [0.0, 0.0], "买": [1.0, 1.0]}
    hidden = mean(list(w_in.values()))
    scores = [dot(u, hidden) for u in w_out.values()]
    exps = [math.exp(s) for s in scores]
    probs = [e / sum(exps) for e in exps]
    d_scores = [p - (c == "看") for p, c in zip(probs, w_out)]
    d_hidden = [sum(g * u[j] for g, u in zip(d_scores, w_out.values())) for j in range(2)]
    d_word = [g / len(w_in) for g in d_hidden]
    lr = 0.1
    sent = ["我", "喜欢", "看", "电影"]
    c = sent.index("看")
    return {"平均输入向量": hidden, "候选得分 看/吃/买": scores, "指数": exps, "指数之和": sum(exps),
            "概率 看/吃/买": probs, "损失 -ln P(看)": -math.log(probs[0]),
            "得分的梯度": d_scores, "平均向量的梯度": d_hidden, "每个输入词的梯度": d_word,
            "更新后 喜欢": [x - lr * g for x, g in zip(w_in["喜欢"], d_word)],
            "更新后 电影": [x - lr * g for x, g in zip(w_in["电影"], d_word)],
            "Skip-gram 词对（中心 看）": [f"{sent[c]}→{sent[j]}" for j in (c - 1, c + 1)],
            "sigmoid(2)": sigmoid(2), "sigmoid(1)": sigmoid(1),
            "负采样损失": -math.log(sigmoid(2)) - math.log(1 - sigmoid(-1))}


def chapter8() -> dict:
    """第 8 章：“新记录 = 旧记录×0.5 + 当前特征”的记事本，以及连乘 0.5 的衰减。"""
    feature = {"猫": 1, "追": 0, "狗": 2}

    def records(words):
        rec, out = 0.0, []
        for w in words:
            rec = rec * 0.5 + feature[w]
            out.append(rec)
        return out
    return {"猫追狗 的记录": records(["猫", "追", "狗"]), "狗追猫 的记录": records(["狗", "追", "猫"]),
            "0.5 的 10 次方": 0.5 ** 10, "0.5 的 20 次方": 0.5 ** 20}


def chapter9() -> dict:
    """第 9 章：LSTM 记忆中的一格（f=0.9, g=0.5, i=0.2, o=0.7）。"""
    c_prev, f, g, i, o = 0.8, 0.9, 0.5, 0.2, 0.7
    c = f * c_prev + i * g
    return {"新记忆 c": c, "对外输出 h": o * math.tanh(c), "f=1、i=0 时的新记忆": 1 * c_prev + 0 * g,
            "f=0、i=0 时的新记忆": 0 * c_prev + 0 * g, "[1,2]⊙[0.5,0.1]": [1 * 0.5, 2 * 0.1]}


def chapter10() -> dict:
    """第 10 章：宽度 3 的窗口、卷积核 [2,1,1] 的得分、最大池化、感受野。"""
    sent = ["这部", "电影", "不", "太", "好看"]
    kernel = [2, 1, 1]
    x = [-1, 0.5, 1]  # 不、太、好看
    scores = [dot(kernel, x), dot(kernel, x[::-1])]
    return {"宽度 3 的窗口": [sent[i:i + 3] for i in range(len(sent) - 2)],
            "[不,太,好看] 的得分": scores[0], "[好看,太,不] 的得分": scores[1],
            "两个得分的最大池化": max(scores),
            "单层宽 3 能看到的词数": 1 + 1 * (3 - 1), "两层宽 3 能看到的词数": 1 + 2 * (3 - 1)}
