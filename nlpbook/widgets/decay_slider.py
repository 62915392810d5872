"""衰减滑块（第 8.5 节）：记录每步乘以同一个系数，早期词的影响怎样随步数消失（或爆炸）。"""
from __future__ import annotations

import traitlets

from ..rnn import decay_influence, toy_record
from ..svgplot import fmt_number, line_chart
from ._client import ClientPanel, compact

TOY_FEATURES = {"猫": 1.0, "追": 0.0, "狗": 2.0}
STEP, MAX_DECAY, MAX_STEPS = 0.05, 1.5, 30
TRY = "试一试：系数停在 0.9，再拖到 1.1，步数拉到 30：一个缩到零头，一个涨到十几倍。"


def plain(v: float) -> str:
    """给读者看的数：千位分隔、普通小数，不用科学计数法；小于百万分之一时直说。"""
    if v != 0 and abs(v) < 1e-9:
        return "不到十亿分之一（几乎为 0）"
    if v != 0 and abs(v) < 1e-6:
        return f"{fmt_number(v)}（不到百万分之一）"
    return fmt_number(v)


def decay_html(decay: float, steps: int) -> str:
    """影响力 decay^t 的曲线、第 steps 步的数值，以及猫追狗/狗追猫在该系数下的最终记录。"""
    xs = list(range(steps + 1))
    curve = line_chart(xs, {f"系数 {decay:g}": [decay_influence(decay, t) for t in xs]},
                       title="第 1 个词的影响经过 t 次更新后还剩多少", xlabel="后面又读了几个词 t",
                       ylabel="影响（倍数）", width=880, height=260, mark_x=steps, mark_text=f"第 {steps} 步",
                       mark_fmt=plain)
    a = toy_record([TOY_FEATURES[w] for w in "猫追狗"], decay=decay)
    b = toy_record([TOY_FEATURES[w] for w in "狗追猫"], decay=decay)
    kind = "逐步消失（梯度消失的直觉）" if decay < 1 else "保持不变" if decay == 1 else "越来越大（梯度爆炸的直觉）"
    return (curve + f"<div>系数 {decay:g} 连乘 {steps} 次 = <b>{plain(decay_influence(decay, steps))}</b>：{kind}。</div>"
            f"<div>新记录 = 旧记录×{decay:g} + 特征：猫追狗 → {a[-1]:.3f}，狗追猫 → {b[-1]:.3f}"
            f"{'（两句仍可区分）' if abs(a[-1] - b[-1]) > 1e-9 else '（两句变得一样了）'}</div>"
            f"<div style='color:#555'>{TRY}</div>")


class DecayPanel(ClientPanel):
    """系数滑块（0—1.5，步长 0.05）和步数滑块（1—30）；在浏览器里重画（js/decay_slider.js）。

    ``data``：滑块上每个系数的 decay^t（t = 0…30）和猫追狗/狗追猫的最终记录，由 Python 一次算好。
    """

    module = "decay_slider"
    controls = ("decay", "steps")
    decay = traitlets.Float(0.5).tag(sync=True)
    steps = traitlets.Int(10).tag(sync=True)

    def __init__(self, decay: float = 0.5, steps: int = 10):
        decays = [round(STEP * i, 2) for i in range(round(MAX_DECAY / STEP) + 1)]
        if not any(abs(decay - d) < 1e-9 for d in decays) or not 1 <= int(steps) <= MAX_STEPS:
            raise ValueError(f"decay 取 0—{MAX_DECAY} 中 {STEP} 的倍数，steps 取 1—{MAX_STEPS}，收到 {decay!r}, {steps!r}")
        data = {"decays": decays, "step": STEP, "max_steps": MAX_STEPS,
                "influence": [[decay_influence(d, t) for t in range(MAX_STEPS + 1)] for d in decays],
                "cat_dog": [toy_record([TOY_FEATURES[w] for w in "猫追狗"], decay=d)[-1] for d in decays],
                "dog_cat": [toy_record([TOY_FEATURES[w] for w in "狗追猫"], decay=d)[-1] for d in decays]}
        super().__init__(decay=round(float(decay), 2), steps=int(steps), data=compact(data))

    def fallback_html(self) -> str:
        return decay_html(round(float(self.decay), 2), int(self.steps))
