"""比较结论的检查：markdown 里说“分得开 / 分不开 / 高于 / 低于 / 超过 / 明显……”的句子，
它所在的那一节（到下一个 ## 或 ### 标题为止）必须有代码输出印出 nlpbook.compare 的结论。

- 说“分得开”的句子，本节的输出里要有“分得开”；说“分不开”的，要有“分不开”；其余结论词要有任意一条 compare 的结论；
- 本章末的“## 取舍”节可以复述本章任何一节印出的结论；
- “超过 0.8”“低于 0.01”“不超过 1”这类门槛说法不是两个结果的比较，自动放过；
- 剩下不是比较实验结果的用法（“一词多义分不开”“乱码明显减少”）列在 NOT_A_COMPARISON 里，每条写明理由。
"""
from __future__ import annotations

import re

VERDICT = re.compile(r"分得开|分不开|高于|低于|超过|明显|胜过")
# 门槛：结论词后面紧跟一个数、一个公式或“它”（“超过两秒”“高于它（常用 0.5）”“不超过 1”“超过 $6d$”）
THRESHOLD = re.compile(r"(?:高于|低于|超过)\s*(?:约\s*)?(?=[0-9$一二两三四五六七八九十百千半它])")
COMPARE_OUT = re.compile(r" = [+−]\d+\.\d+ \[[+−]\d+\.\d+, [+−]\d+\.\d+\]：[^\n]*?(分得开|分不开)（[^\n]*个种子")
HEADING = re.compile(r"^#{1,3} ", re.M)


def sentences(text: str):
    """按句号、分号、问号、感叹号和换行切句。"""
    return [s.strip() for s in re.split(r"(?<=[。；！？])|\n", text) if s.strip()]


def _outputs(cell) -> str:
    out = []
    for o in cell.get("outputs", []):
        if "text" in o:
            out.append("".join(o["text"]))
        for key in ("text/plain", "text/html", "text/markdown"):
            if key in o.get("data", {}):
                out.append("".join(o["data"][key]))
    return "\n".join(out)


def sections(nb):
    """把 notebook 按 #、##、### 标题切成节：[(markdown 片段列表 [(单元序号, 文本)], 本节全部输出的文本)]。

    标题写在一个 markdown 单元中间时，标题之前的部分属于上一节，从标题起属于新的一节。
    """
    secs, md, outs = [], [], []
    for i, c in enumerate(nb["cells"]):
        text = "".join(c["source"])
        if c["cell_type"] != "markdown":
            outs.append(_outputs(c))
            continue
        starts = [m.start() for m in HEADING.finditer(text)]
        cuts = sorted({0, *starts, len(text)})
        for a, b in zip(cuts, cuts[1:]):
            piece = text[a:b]
            if a in starts:                       # 从标题开始的片段开启新的一节
                secs.append((md, "\n".join(outs)))
                md, outs = [], []
            if piece.strip():
                md.append((i, piece))
    secs.append((md, "\n".join(outs)))
    return [sec for sec in secs if sec[0] or sec[1]]


def is_verdict(sentence: str) -> bool:
    """句子里有结论词，而且不全是门槛说法。"""
    hits = list(VERDICT.finditer(sentence))
    return any(not THRESHOLD.match(sentence, m.start()) for m in hits)


SUMMARY = re.compile(r"^## (取舍|小结)")


def unsupported(nb, allowed=()):
    """[(单元序号, 句子, 缺什么)]：没有本节输出支持的结论句。allowed 是不算比较的句子片段。

    “## 取舍”这样的总结节本身没有输出，它复述的结论可以是本章任何一节印出的。
    """
    bad = []
    secs = sections(nb)
    everywhere = [m.group(1) for _, out in secs for m in COMPARE_OUT.finditer(out)]
    for md, out in secs:
        printed = [m.group(1) for m in COMPARE_OUT.finditer(out)]
        if md and SUMMARY.match(md[0][1].lstrip()):
            printed = everywhere
        for i, text in md:
            for s in sentences(text):
                if not is_verdict(s) or any(a in s for a in allowed):
                    continue
                if not printed:
                    bad.append((i, s, "本节没有印出任何 compare 结论"))
                elif "分得开" in s and not any(p.endswith("分得开") for p in printed):
                    bad.append((i, s, "句子说分得开，本节印出的结论里没有分得开"))
                elif "分不开" in s and not any(p.endswith("分不开") for p in printed):
                    bad.append((i, s, "句子说分不开，本节印出的结论里没有分不开"))
    return bad
