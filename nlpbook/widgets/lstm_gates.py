"""LSTM 门控滑块（第 9.2 节）：遗忘门、输入门、输出门各拖一拖，看记忆和输出怎样变。

面板在浏览器里运行（js/lstm_gates.js）。Python 用 rnn.lstm_output 把 tanh 在新记忆可能取到的每个值上算一次
（五个滑块步长都是 0.05，新记忆 c = f×c_prev + i×g 总落在 1/400 的格点上，−2 到 2 共 1,601 个），
再用 rnn.lstm_memory_update 算好每个遗忘门连用 0—20 步后旧记忆剩下的比例；浏览器里只做公式里那两次乘法和一次加法、查表、画图。
"""
from __future__ import annotations

import math

import traitlets

from ..rnn import lstm_memory_update, lstm_output
from ..svgplot import bar_chart, line_chart
from ._client import ClientPanel, compact

__all__ = ["TRY", "STEP", "KEEP_STEPS", "nice_top", "gates_html", "LSTMGatePanel"]

STEP, KEEP_STEPS = 0.05, 20         # 滑块的步长；“不写入新内容”的曲线画多少步
C_GRID = 400                         # 新记忆的格点：c = f×c_prev + i×g 总是 1/400 的整数倍
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


class LSTMGatePanel(ClientPanel):
    """旧记忆、候选内容（−1—1）与三个门（0—1）的滑块，步长 0.05；在浏览器里重画（js/lstm_gates.js）。

    ``data``：tanh 表（``lstm_output(k/400, 1)``，k = −800…800，即 o = 1 时的输出）和保留表
    （``keep[a][t]``：遗忘门 f = a×0.05、不写入新内容时，连用 t 步后的记忆 / 旧记忆），由 Python 一次算好。
    """

    module = "lstm_gates"
    controls = ("c_prev", "g", "f", "i", "o")
    c_prev = traitlets.Float(0.8).tag(sync=True)
    g = traitlets.Float(0.5).tag(sync=True)
    f = traitlets.Float(0.9).tag(sync=True)
    i = traitlets.Float(0.2).tag(sync=True)
    o = traitlets.Float(0.7).tag(sync=True)

    def __init__(self, c_prev: float = 0.8, f: float = 0.9, i: float = 0.2, g: float = 0.5, o: float = 0.7):
        values = {"c_prev": c_prev, "g": g, "f": f, "i": i, "o": o}
        for name, v in values.items():
            lo = -1.0 if name in ("c_prev", "g") else 0.0
            if isinstance(v, bool) or not lo <= float(v) <= 1.0 or abs(float(v) / STEP - round(float(v) / STEP)) > 1e-9:
                raise ValueError(f"{name} 取 {lo:g}—1 中 {STEP} 的倍数，收到 {v!r}")
        n = round(1 / STEP)
        span = 2 * n * n                                   # |c| ≤ 2：格点 −800…800
        # 9 位小数：o×tanh 算到第 3 位小数时与 Python 直接算的几乎总是一样；各种 CPU 上的 tanh 只差最后一位，舍入后相同
        tanh = [round(float(lstm_output(k / C_GRID, 1.0)), 9) for k in range(-span, span + 1)]
        keep = []
        for a in range(n + 1):
            m, row = 1.0, [1.0]
            for _ in range(KEEP_STEPS):
                m = float(lstm_memory_update(m, a * STEP, 0.0, 0.0))
                row.append(m)
            keep.append(row)
        data = {"step": STEP, "grid": C_GRID, "steps": KEEP_STEPS, "tanh": tanh, "keep": compact(keep),
                "try": TRY}
        super().__init__(**{k: round(float(v), 2) for k, v in values.items()}, data=data)

    def fallback_html(self) -> str:
        r = lambda v: round(float(v), 2)  # noqa: E731 - 浏览器滑块的浮点尾数
        return gates_html(r(self.c_prev), r(self.f), r(self.i), r(self.g), r(self.o), KEEP_STEPS)
