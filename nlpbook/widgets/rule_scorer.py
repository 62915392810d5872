"""规则打分器的输入框（第 1.3 节）：随便写一句评论，看规则给几分、判成什么。"""
from __future__ import annotations

import html

import ipywidgets as W

from ..rules import TEXT_LEXICON, rule_hits, rule_score
from ._base import Panel
from ._html import table


def score_html(text: str, lexicon=TEXT_LEXICON) -> str:
    """命中了哪些词、各加减几分、总分和判定。"""
    rows = [(w, v, n, n * v) for w, v, n in rule_hits(text, lexicon)]
    s = rule_score(text, lexicon)
    verdict = "好评" if s > 0 else "差评"
    note = "" if rows else "（一个打分词都没命中，分数为 0，按规则判差评）"
    body = table(["命中的词", "分值", "次数", "小计"], rows) if rows else ""
    return f"{body}<div>总分 <b>{s:g}</b> → 判为 <b>{verdict}</b>{html.escape(note)}</div>"


class RuleScorerBox(Panel):
    """输入框 + 打分结果。测试里设置 ``text.value``，``view.value`` 随之改变。"""

    def __init__(self, text: str = "电影不好看", lexicon=TEXT_LEXICON):
        self.lexicon = dict(lexicon)
        self.text = W.Text(value=text, description="评论：", layout=W.Layout(width="95%"))
        self.view = W.HTML()
        self.watch([self.text])
        self.update()
        self.widget = W.VBox([self.text, self.view])

    def update(self) -> None:
        self.view.value = score_html(self.text.value, self.lexicon)
