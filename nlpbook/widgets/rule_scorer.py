"""规则打分器的输入框（第 1.3 节）：随便写一句评论，看规则给几分、判成什么。

打分在浏览器里算（js/rule_scorer.js）：数据是打分表本身（词、分值，按表的顺序），
规则和 rules.rule_hits / rule_score 一样——每个词按子串数出现次数（不重叠），总分 = Σ 次数 × 分值，大于 0 判好评。
读者敲任何句子，浏览器都能马上回答，不需要内核。
"""
from __future__ import annotations

import html
from numbers import Integral

import traitlets

from ..rules import TEXT_LEXICON, rule_hits, rule_score
from ._client import ClientPanel
from ._html import table


def score_html(text: str, lexicon=TEXT_LEXICON) -> str:
    """命中了哪些词、各加减几分、总分和判定。"""
    rows = [(w, v, n, n * v) for w, v, n in rule_hits(text, lexicon)]
    s = rule_score(text, lexicon)
    verdict = "好评" if s > 0 else "差评"
    note = "" if rows else "（一个打分词都没命中，分数为 0，按规则判差评）"
    body = table(["命中的词", "分值", "次数", "小计"], rows) if rows else ""
    return f"{body}<div>总分 <b>{s:g}</b> → 判为 <b>{verdict}</b>{html.escape(note)}</div>"


def _number(word, v):
    """分值只收整数或浮点数（浏览器里照 Python 的 str() 显示：整数 1，浮点数 1.0）。"""
    if isinstance(v, bool) or not isinstance(v, (Integral, float)):
        raise TypeError(f"打分表的分值必须是整数或浮点数，{word!r} 的分值是 {v!r}")
    return float(v) if isinstance(v, float) else int(v)


class RuleScorerBox(ClientPanel):
    """评论输入框 + 打分结果；在浏览器里打分（js/rule_scorer.js）。测试里设置 ``text``，读 ``fallback_html()``。

    ``data["lexicon"]``：[[词, 分值, 分值是不是 float], …]，按打分表的顺序（表格的行序、总分的加法顺序都照它）。
    """

    module = "rule_scorer"
    controls = ("text",)
    text = traitlets.Unicode("电影不好看").tag(sync=True)

    def __init__(self, text: str = "电影不好看", lexicon=TEXT_LEXICON):
        rule_hits("", lexicon)                                # 检查打分表（非空、键是非空字符串）
        if not isinstance(text, str):
            raise TypeError(f"text 必须是 str，收到 {type(text).__name__}")
        self.lexicon = {w: _number(w, v) for w, v in lexicon.items()}
        data = {"lexicon": [[w, v, isinstance(v, float)] for w, v in self.lexicon.items()]}
        super().__init__(text=text, data=data)

    def fallback_html(self) -> str:
        return score_html(self.text, self.lexicon)
