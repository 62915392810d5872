"""LSTM 门控滑块（第 9.2 节）：遗忘门、输入门、输出门各拖一拖，看记忆和输出怎样变。"""
from __future__ import annotations

import math

import ipywidgets as W

from ..rnn import lstm_memory_update, lstm_output
from ..svgplot import bar_chart, line_chart
from ._base import Panel

TRY = "试一试：把遗忘门 f 拖到 1、输入门 i 拖到 0——新记忆和旧记忆一样高，下面的线变成一条水平线。"


def nice_top(values) -> float:
    """柱状图纵轴的上限：盖过最大值的下一个“好看”刻度（全为 0 时取 1）。例：[0.82, 0.47] -> 1.0；[0.03] -> 0.04"""
    m = max(float(v) for v in values)
    if m <= 0:
        return 1.0
    target = m * 1.12               # 留一点空给柱顶的数字
    mag = 10 ** math.floor(math.log10(target))
    top = next(k * mag for k in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if k * mag >= target - 1e-12)
    return round(top, 10)


def gates_html(c_prev: float, f: float, i: float, g: float, o: float, steps: int = 20) -> str:
    """一格记忆的更新：c = f·c_prev + i·g，h = o·tanh(c)；再看同样的门连用 steps 步后记忆剩多少。"""
    c = float(lstm_memory_update(c_prev, f, i, g))
    h = float(lstm_output(c, o))
    values = [abs(c_prev), abs(f * c_prev), abs(i * g), abs(c), abs(h)]
    bars = bar_chart(["旧记忆", "f×旧记忆", "i×候选", "新记忆 c", "输出 h"], {"数值（绝对值）": values},
                     title="一格记忆（柱高为绝对值；纵轴随数值缩放，看清刻度）", ymax=nice_top(values),
                     fmt="{:.3f}", width=880, height=230)
    seq, m = [c_prev], c_prev
    for _ in range(steps):
        m = float(lstm_memory_update(m, f, i, 0.0))  # 之后不再写入新内容：只看旧记忆保留多少
        seq.append(m)
    keep = line_chart(list(range(steps + 1)), {f"f={f:g}": seq}, title="不写入新内容时，记忆随步数的变化",
                      xlabel="步数", ylabel="记忆", width=880, height=220)
    return (f"<div>新记忆 c = {f:g}×{c_prev:g} + {i:g}×{g:g} = <b>{c:.3f}</b>；"
            f"输出 h = {o:g}×tanh({c:.3f}) = <b>{h:.3f}</b></div>" + bars + keep
            + f"<div style='color:#555'>{TRY}</div>")


class LSTMGatePanel(Panel):
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
        self.watch((self.c_prev, self.g, self.f, self.i, self.o))
        self.update()
        self.widget = W.VBox([W.HBox([self.c_prev, self.g]), W.HBox([self.f, self.i, self.o]), self.view])

    def update(self) -> None:
        r = lambda s: round(float(s.value), 2)  # noqa: E731 - 浏览器滑块的浮点尾数
        self.view.value = gates_html(r(self.c_prev), r(self.f), r(self.i), r(self.g), r(self.o))
