"""卷积窗口滑块（第 10 章）：窗口宽度与层数怎样决定一个输出能“看到”多远。"""
from __future__ import annotations


import ipywidgets as W

from ..cnn import receptive_field, windows
from ._html import PALETTE, chip

DEFAULT_TOKENS = ("这部", "电影", "不", "太", "好看")


def windows_html(tokens, width: int, layers: int = 1, distance: int = 20) -> str:
    """列出宽度为 width 的所有窗口（各用一种颜色），再算 layers 层堆叠后的感受野。"""
    tokens = list(tokens)
    rows = []
    if width <= len(tokens):
        for k, win in enumerate(windows(tokens, width)):
            cells = "".join(chip(t, str(k + j), PALETTE[k % len(PALETTE)])
                            for j, t in enumerate(win))
            rows.append(f"<div>窗口 {k + 1}：{cells}</div>")
    else:
        rows.append(f"<div>句子只有 {len(tokens)} 个 token，放不下宽度 {width} 的窗口。</div>")
    rf = receptive_field(width, layers)
    reach = "能" if rf > distance else "不能"
    return ("".join(rows) + f"<div>宽度 {width}、堆叠 {layers} 层：最上层每个输出能看到 <b>{rf}</b> 个相邻 token"
            f"（1 + 层数×(宽度−1)）。相距 {distance} 个词的两个位置{reach}落进同一个感受野。</div>")


class ConvWindowPanel:
    """窗口宽度、层数两个滑块；``view`` 显示窗口与感受野。"""

    def __init__(self, tokens=DEFAULT_TOKENS, width: int = 3, layers: int = 1, distance: int = 20):
        self.tokens, self.distance = list(tokens), distance
        self.width = W.IntSlider(value=width, min=1, max=5, description="窗口宽度")
        self.layers = W.IntSlider(value=layers, min=1, max=12, description="层数")
        self.view = W.HTML()
        for c in (self.width, self.layers):
            c.observe(lambda _: self.update(), names="value")
        self.update()
        self.widget = W.VBox([W.HBox([self.width, self.layers]), self.view])

    def update(self) -> None:
        self.view.value = windows_html(self.tokens, int(self.width.value), int(self.layers.value), self.distance)
