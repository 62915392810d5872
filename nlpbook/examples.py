"""复算课文里的数字（附录 D 的配套脚本）：python -m nlpbook.examples

只用 Python 标准库，不下载数据、不训练大模型、不写任何文件。它是一份独立的实现：
tests/test_examples.py 把这里的每个数字和 nlpbook 的 numpy 代码逐一对照。
每章一个函数，返回 {名称: 数值}；main() 依次打印（三位小数）。
目前覆盖第 1—4 章。
"""
from __future__ import annotations

import math
import sys

REVIEWS = [("A", ["电影", "好看"], 1), ("B", ["剧情", "精彩"], 1), ("C", ["电影", "难看"], 0),
           ("D", ["剧情", "无聊"], 0), ("E", ["电影", "不", "好看"], 0), ("F", ["电影", "不", "难看"], 1)]
COLUMNS = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不"]
LEXICON = {"好看": 1, "精彩": 1, "难看": -1, "无聊": -1}


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


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
        out[f"{name} 好评概率"] = _sigmoid(z)
    for z in (-2, -1, 0, 1, 2):
        out[f"sigmoid({z})"] = _sigmoid(z)
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
    p = _sigmoid(w * x)
    grad = (p - y) * x
    w_new = w - lr * grad
    p_new = _sigmoid(w_new * x)
    return {"初始概率": p, "初始损失": -math.log(p), "梯度": grad, "新权重": w_new,
            "新概率": p_new, "新损失": -math.log(p_new),
            "损失(p=0.1)": -math.log(0.1), "损失(p=0.5)": -math.log(0.5), "损失(p=0.9)": -math.log(0.9),
            "标签为差评时的梯度": (p - 0) * x}


CHAPTERS = {1: chapter1, 2: chapter2, 3: chapter3, 4: chapter4}


def _fmt(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def main(argv=None) -> int:
    """打印各章的数字；可以只给章号：python -m nlpbook.examples 3 4"""
    argv = sys.argv[1:] if argv is None else argv
    try:
        wanted = [int(a) for a in argv] or list(CHAPTERS)
    except ValueError:
        print(f"章号必须是整数，可选：{sorted(CHAPTERS)}", file=sys.stderr)
        return 2
    missing = [c for c in wanted if c not in CHAPTERS]
    if missing:
        print(f"没有第 {missing} 章的数字；可选：{sorted(CHAPTERS)}", file=sys.stderr)
        return 2
    for c in wanted:
        print(f"== 第 {c} 章 ==")
        for k, v in CHAPTERS[c]().items():
            print(f"  {k}: {_fmt(v)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
