"""LSTM 门控滑块（第 9.2 节）：遗忘门、输入门、输出门各拖一拖，看记忆和输出怎样变。"""
from __future__ import annotations

import ipywidgets as W

from ..rnn import lstm_memory_update, lstm_output
from ..svgplot import bar_chart, line_chart


def gates_html(c_prev: float, f: float, i: float, g: float, o: float, steps: int = 20) -> str:
    """一格记忆的更新：c = f·c_prev + i·g，h = o·tanh(c)；再看同样的门连用 steps 步后记忆剩多少。"""
    c = float(lstm_memory_update(c_prev, f, i, g))
    h = float(lstm_output(c, o))
    bars = bar_chart(["旧记忆", "f×旧记忆", "i×候选", "新记忆 c", "输出 h"],
                     {"数值": [abs(c_prev), abs(f * c_prev), abs(i * g), abs(c), abs(h)]},
                     title="一格记忆（柱高为绝对值）", ymax=2.0, fmt="{:.3f}", width=420, height=220)
    seq, m = [c_prev], c_prev
    for _ in range(steps):
        m = float(lstm_memory_update(m, f, i, 0.0))  # 之后不再写入新内容：只看旧记忆保留多少
        seq.append(m)
    keep = line_chart(list(range(steps + 1)), {f"f={f:g}": seq}, title="不写入新内容时，记忆随步数的变化",
                      xlabel="步数", ylabel="记忆", width=420, height=200)
    return (f"<div>新记忆 c = {f:g}×{c_prev:g} + {i:g}×{g:g} = <b>{c:.3f}</b>；"
            f"输出 h = {o:g}×tanh({c:.3f}) = <b>{h:.3f}</b></div>" + bars + keep)


class LSTMGatePanel:
    """旧记忆、候选内容与三个门的滑块；``view`` 显示公式的数值、柱状图和多步保留曲线。"""

    def __init__(self, c_prev: float = 0.8, f: float = 0.9, i: float = 0.2, g: float = 0.5, o: float = 0.7):
        style = {"description_width": "initial"}

        def slider(value, lo, desc):
            return W.FloatSlider(value=value, min=lo, max=1.0, step=0.05, description=desc,
                                 readout_format=".2f", style=style)
        self.c_prev = slider(c_prev, -1.0, "旧记忆 c_prev")
        self.g = slider(g, -1.0, "候选内容 g")
        self.f, self.i, self.o = slider(f, 0.0, "遗忘门 f"), slider(i, 0.0, "输入门 i"), slider(o, 0.0, "输出门 o")
        self.view = W.HTML()
        for c in (self.c_prev, self.g, self.f, self.i, self.o):
            c.observe(lambda _: self.update(), names="value")
        self.update()
        self.widget = W.VBox([W.HBox([self.c_prev, self.g]), W.HBox([self.f, self.i, self.o]), self.view])

    def update(self) -> None:
        r = lambda s: round(float(s.value), 2)  # noqa: E731 - 浏览器滑块的浮点尾数
        self.view.value = gates_html(r(self.c_prev), r(self.f), r(self.i), r(self.g), r(self.o))
