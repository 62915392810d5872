"""Skip-gram 窗口滑块（第 7.5 节）：一句话在不同窗口大小下产生哪些（中心词, 周围词）训练对。"""
from __future__ import annotations

import html

import ipywidgets as W

from ..word2vec import skipgram_pairs
from ._html import PALETTE, chip


def pairs_html(tokens, window: int, center: int | None = None) -> str:
    """整句的训练对数量，以及某个中心词（位置 center）的窗口高亮和它的训练对。"""
    tokens = list(tokens)
    pairs = skipgram_pairs(tokens, window)
    head = f"<div>窗口 {window}：这句话共产生 <b>{len(pairs)}</b> 个（中心词, 周围词）训练对。</div>"
    if center is None or not tokens:
        return head
    if not 0 <= center < len(tokens):
        raise ValueError(f"center 必须在 0..{len(tokens) - 1} 之间，收到 {center}")
    lo, hi = max(0, center - window), min(len(tokens), center + window + 1)
    chips = []
    for i, t in enumerate(tokens):
        color = PALETTE[4] if i == center else PALETTE[0] if lo <= i < hi else "#FFFFFF"
        chips.append(chip(t, str(i), color))
    mine = [f"（{html.escape(c)}, {html.escape(o)}）" for c, o in pairs_for(tokens, window, center)]
    return (head + f"<div style='line-height:2'>{''.join(chips)}</div>"
            f"<div>以“{html.escape(tokens[center])}”为中心：{' '.join(mine) or '（无）'}</div>")


def pairs_for(tokens, window: int, center: int) -> list[tuple[str, str]]:
    """只取某个位置作中心词时的训练对（与 skipgram_pairs 的顺序一致）。"""
    lo, hi = max(0, center - window), min(len(tokens), center + window + 1)
    return [(tokens[center], tokens[j]) for j in range(lo, hi) if j != center]


class SkipGramWindow:
    """句子输入框（空格分词）、窗口滑块、中心词滑块；``view`` 显示训练对。"""

    def __init__(self, sentence: str = "我 喜欢 看 电影", window: int = 1, center: int = 2):
        self.text = W.Text(value=sentence, description="句子（空格分词）",
                           style={"description_width": "initial"}, layout=W.Layout(width="95%"))
        self.window = W.IntSlider(value=window, min=1, max=5, description="窗口")
        self.center = W.IntSlider(value=center, min=0, max=max(0, len(sentence.split()) - 1),
                                  description="中心词位置", style={"description_width": "initial"})
        self.view = W.HTML()
        self.text.observe(self._on_text, names="value")
        for c in (self.window, self.center):
            c.observe(lambda _: self.update(), names="value")
        self.update()
        self.widget = W.VBox([self.text, W.HBox([self.window, self.center]), self.view])

    def _on_text(self, _) -> None:
        n = len(self.text.value.split())
        self.center.max = max(0, n - 1)  # 会自动把 value 截到范围内
        self.update()

    def update(self) -> None:
        tokens = self.text.value.split()
        center = min(self.center.value, len(tokens) - 1) if tokens else None
        self.view.value = pairs_html(tokens, self.window.value, center)
