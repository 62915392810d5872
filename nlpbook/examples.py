"""复算课文里的数字（附录 D 的配套脚本）：python -m nlpbook.examples

只用 Python 标准库，不下载数据、不训练大模型、不写任何文件。它是一份独立的实现：
tests/test_examples.py 把这里的每个数字和 nlpbook 的 numpy 代码逐一对照。
每章一个函数，返回 {名称: 数值}；main() 依次打印（一般三位小数，很小的数保留三位有效数字）。
覆盖全部 18 章和附录 A：第 1—4 章在本文件，第 5—10 章在 _examples_a.py，
第 11—18 章与附录 A 在 _examples_b.py（三个文件都不导入 numpy）。
用法：python -m nlpbook.examples              # 全部
      python -m nlpbook.examples --chapter 13  # 只看一章（可以给多个：3 13 A）
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction

from ._examples_a import _sigmoid, chapter5, chapter6, chapter7, chapter8, chapter9, chapter10
from ._examples_b import (appendix_a, chapter11, chapter12, chapter13, chapter14, chapter15, chapter16,
                          chapter17, chapter18)

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


CHAPTERS = {1: chapter1, 2: chapter2, 3: chapter3, 4: chapter4, 5: chapter5, 6: chapter6, 7: chapter7,
            8: chapter8, 9: chapter9, 10: chapter10, 11: chapter11, 12: chapter12, 13: chapter13,
            14: chapter14, 15: chapter15, 16: chapter16, 17: chapter17, 18: chapter18, "A": appendix_a}
ALLOWED = "1, 2, …, 18, A"
USAGE = ("用法：python -m nlpbook.examples [--chapter 章号 ...]\n"
         f"章号可选：{ALLOWED}（附录 A 写 A）；不给章号就打印全部。例：python -m nlpbook.examples --chapter 13")


def heading(c) -> str:
    """一章的标题行：“== 第 N 章 ==”，附录是“== 附录 A ==”。"""
    return f"== 附录 {c} ==" if isinstance(c, str) else f"== 第 {c} 章 =="


def _fmt(v) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v}≈{float(v):.3f}"
    if isinstance(v, float):
        if math.isinf(v):
            return "-∞" if v < 0 else "∞"
        if v == 0:
            return "0.000"
        if abs(v) < 0.01:  # 很小的数：保留三位有效数字，如 0.000977
            return f"{v:.{2 - math.floor(math.log10(abs(v)))}f}"
        return f"{v:.3f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _parse(argv) -> list:
    """命令行 → 章号列表。接受 3、A、--chapter 3、--chapter=3、-c 3；不合法时抛 ValueError（说明可选什么）。"""
    wanted, args = [], list(argv)
    while args:
        a = args.pop(0)
        if a in ("--chapter", "-c"):
            if not args:
                raise ValueError(f"{a} 后面要跟章号；可选：{ALLOWED}")
            a = args.pop(0)
        elif a.startswith("--chapter="):
            a = a.split("=", 1)[1]
        key = a.strip().upper() if a.strip().upper() == "A" else a.strip()
        if key != "A":
            try:
                key = int(key)
            except ValueError:
                raise ValueError(f"“{a}”不是章号；可选：{ALLOWED}") from None
        if key not in CHAPTERS:
            raise ValueError(f"没有第 {key} 章的数字；可选：{ALLOWED}")
        wanted.append(key)
    return wanted or list(CHAPTERS)


def main(argv=None) -> int:
    """打印各章的数字；可以只给章号：python -m nlpbook.examples --chapter 13（或 python -m nlpbook.examples 3 4 A）"""
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip() + "\n\n" + USAGE)
        return 0
    try:
        wanted = _parse(argv)
    except ValueError as exc:
        print(f"{exc}\n{USAGE}", file=sys.stderr)
        return 2
    for c in wanted:
        print(heading(c))
        for k, v in CHAPTERS[c]().items():
            print(f"  {k}: {_fmt(v)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
