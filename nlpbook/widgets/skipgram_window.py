"""Skip-gram 窗口滑块（第 7.5 节）：一句话在不同窗口大小下产生哪些（中心词, 周围词）训练对。"""
from __future__ import annotations

import html
import re

import ipywidgets as W

from ..word2vec import skipgram_pairs
from ._base import Panel
from ._html import PALETTE, chip

TRY = "试一试：把窗口从 1 拖到 3，看训练对的总数怎样增长；再把中心词移到句首，它的周围词少了几个？"
WRAP = "white-space:normal;overflow-wrap:anywhere;max-width:900px"
_HAN_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]{4,}")   # 连着 4 个以上汉字


def spacing_hint(tokens) -> str:
    """中文没写空格时的提示：连着 4 个以上汉字的 token 多半是几个词粘在了一起。没有问题时返回空串。

    例：["我喜欢看电影"] -> "“我喜欢看电影”是 6 个汉字连在一起……"
    """
    glued = [t for t in tokens if _HAN_RUN.search(t)]
    if not glued:
        return ""
    t = glued[0]
    what = "整句只有 1 个词，一个训练对也没有" if len(tokens) == 1 else f"“{t}”被当成了 1 个词"
    return (f"“{t}”里有 {len(t)} 个字连在一起，{what}：这个面板按空格分词，中文请在词与词之间加空格"
            f"（例如“我 喜欢 看 电影”），或点“用 jieba 分词”自动切开。")


def pairs_html(tokens, window: int, center: int | None = None) -> str:
    """整句的训练对数量，以及某个中心词（位置 center）的窗口高亮和它的训练对。"""
    tokens = list(tokens)
    pairs = skipgram_pairs(tokens, window)
    head = f"<div>窗口 {window}：这句话共产生 <b>{len(pairs)}</b> 个（中心词, 周围词）训练对。</div>"
    hint = spacing_hint(tokens)
    if hint:
        head += f"<div style='color:#AA3377;{WRAP}'>{html.escape(hint)}</div>"
    if center is None or not tokens:
        return head + f"<div style='color:#555'>{TRY}</div>"
    if not 0 <= center < len(tokens):
        raise ValueError(f"center 必须在 0..{len(tokens) - 1} 之间，收到 {center}")
    lo, hi = max(0, center - window), min(len(tokens), center + window + 1)
    chips = []
    for i, t in enumerate(tokens):
        color = PALETTE[4] if i == center else PALETTE[0] if lo <= i < hi else "#FFFFFF"
        chips.append(chip(t, str(i), color))
    mine = [f"（{html.escape(c)}, {html.escape(o)}）" for c, o in pairs_for(tokens, window, center)]
    return (head + f"<div style='line-height:2;{WRAP}'>{''.join(chips)}</div>"
            f"<div style='{WRAP}'>以“{html.escape(tokens[center])}”为中心：{' '.join(mine) or '（无）'}</div>"
            f"<div style='color:#555'>{TRY}</div>")


def pairs_for(tokens, window: int, center: int) -> list[tuple[str, str]]:
    """只取某个位置作中心词时的训练对（与 skipgram_pairs 的顺序一致）。"""
    lo, hi = max(0, center - window), min(len(tokens), center + window + 1)
    return [(tokens[center], tokens[j]) for j in range(lo, hi) if j != center]


class SkipGramWindow(Panel):
    """句子输入框（空格分词）、“用 jieba 分词”按钮、窗口滑块、中心词滑块；``view`` 显示训练对。

    按钮只在有连成一片的汉字时可用（否则没有可切的，按钮变灰并在提示里说明）。
    """

    def __init__(self, sentence: str = "我 喜欢 看 电影", window: int = 1, center: int = 2):
        self.text = W.Text(value=sentence, description="句子（空格分词）",
                           style={"description_width": "initial"}, layout=W.Layout(width="95%"))
        self.segment = W.Button(description="用 jieba 分词", layout=W.Layout(width="auto"))
        self.window = W.IntSlider(value=window, min=1, max=5, description="窗口")
        self.center = W.IntSlider(value=center, min=0, max=max(0, len(sentence.split()) - 1),
                                  description="中心词位置", style={"description_width": "initial"})
        self.view = W.HTML(layout=W.Layout(max_width="900px"))
        self.watch([self.text], prep=self._on_text)
        self.segment.on_click(self._on_segment)
        self.watch((self.window, self.center))
        self._sync_button()
        self.update()
        self.widget = W.VBox([W.HBox([self.text, self.segment]), W.HBox([self.window, self.center]), self.view])

    def _sync_button(self) -> None:
        needs = bool(spacing_hint(self.text.value.split()))
        self.segment.disabled = not needs
        self.segment.tooltip = ("把连在一起的汉字切成词，词之间加空格" if needs
                                else "现在没有连成一片的汉字（4 个以上），不需要再切分")

    def _on_segment(self, _=None) -> None:
        from ..datasets import jieba_cut   # 第一次点时才加载 jieba 词典（约 1 秒）
        self.text.value = " ".join(w for t in self.text.value.split() for w in jieba_cut(t))

    def _on_text(self, _) -> None:
        n = len(self.text.value.split())
        self.center.max = max(0, n - 1)  # 会自动把 value 截到范围内
        self._sync_button()

    def update(self) -> None:
        tokens = self.text.value.split()
        center = min(self.center.value, len(tokens) - 1) if tokens else None
        self.view.value = pairs_html(tokens, self.window.value, center)
