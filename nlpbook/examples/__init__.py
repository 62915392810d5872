"""复算课文里的数字（附录 D 的配套脚本）：python -m nlpbook.examples

只用 Python 标准库，不下载数据、不训练大模型、不写任何文件。它是一份独立的实现：
tests/test_examples.py 把这里的每个数字和 nlpbook 的 numpy 代码逐一对照。
每章一个函数，返回 {名称: 数值}；main() 依次打印（一般三位小数，很小的数保留三位有效数字）。
覆盖全部 18 章和附录 A，按章分在三个文件里，每个都能一口气读完（都不导入 numpy）：
  common.py          各章共用的小函数：sigmoid、dot、mean、softmax、cosine
  chapters_01_04.py  第 1—4 章
  chapters_05_10.py  第 5—10 章
  chapters_11_18.py  第 11—18 章与附录 A
本文件只有章号表（CHAPTERS）和命令行。
用法：python -m nlpbook.examples              # 全部
      python -m nlpbook.examples --chapter 13  # 只看一章（可以给多个：3 13 A）
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction

from .chapters_01_04 import chapter1, chapter2, chapter3, chapter4
from .chapters_05_10 import chapter5, chapter6, chapter7, chapter8, chapter9, chapter10
from .chapters_11_18 import (appendix_a, chapter11, chapter12, chapter13, chapter14, chapter15, chapter16,
                             chapter17, chapter18)

__all__ = ["CHAPTERS", "heading", "format_value", "parse_chapters", "main", "chapter1", "chapter2", "chapter3",
           "chapter4", "chapter5", "chapter6", "chapter7", "chapter8", "chapter9", "chapter10", "chapter11",
           "chapter12", "chapter13", "chapter14", "chapter15", "chapter16", "chapter17", "chapter18", "appendix_a"]

CHAPTERS = {1: chapter1, 2: chapter2, 3: chapter3, 4: chapter4, 5: chapter5, 6: chapter6, 7: chapter7,
            8: chapter8, 9: chapter9, 10: chapter10, 11: chapter11, 12: chapter12, 13: chapter13,
            14: chapter14, 15: chapter15, 16: chapter16, 17: chapter17, 18: chapter18, "A": appendix_a}
ALLOWED = "1, 2, …, 18, A"
USAGE = ("用法：python -m nlpbook.examples [--chapter 章号 ...]\n"
         f"章号可选：{ALLOWED}（附录 A 写 A）；不给章号就打印全部。例：python -m nlpbook.examples --chapter 13")


def heading(c) -> str:
    """一章的标题行：“== 第 N 章 ==”，附录是“== 附录 A ==”。"""
    return f"== 附录 {c} ==" if isinstance(c, str) else f"== 第 {c} 章 =="


def format_value(v) -> str:
    """一个数值的打印形式：一般三位小数，很小的数三位有效数字，分数写成 2/3≈0.667，大整数带千位分隔符。"""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
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


def parse_chapters(argv) -> list:
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
        wanted = parse_chapters(argv)
    except ValueError as exc:
        print(f"{exc}\n{USAGE}", file=sys.stderr)
        return 2
    for c in wanted:
        print(heading(c))
        for k, v in CHAPTERS[c]().items():
            print(f"  {k}: {format_value(v)}")
    return 0

