"""学习率滑块（第 4.3 节）：同一份数据，换学习率，看损失怎样随步数变化。

曲线画成 SVG 放在 HTML 控件里（每次更新几毫秒），不用 Output 控件，nbval 也能直接比较。
"""
from __future__ import annotations

import ipywidgets as W
import numpy as np

from .. import viz
from ..linear import descent_path
from ..svgplot import line_chart
from ._base import Panel


def summary_html(losses) -> str:
    """起点、终点和是否单调下降。"""
    rising = int(np.sum(np.diff(losses) > 1e-12))
    trend = "一路下降" if rising == 0 else f"有 {rising} 步损失上升"
    return (f"<div>起始损失 {losses[0]:.3f} → {len(losses) - 1} 步后 <b>{losses[-1]:.3f}</b>；{trend}</div>")


def curve_svg(losses, lr: float) -> str:
    """损失随步数变化的 SVG 折线图（面板用）。"""
    return line_chart(range(len(losses)), {f"学习率 {lr:.3g}": losses}, title="训练损失随步数变化",
                      xlabel="更新步数", ylabel="平均交叉熵损失", y_from_zero=False)


def panel_html(losses, lr: float) -> str:
    """面板显示的全部内容：数字摘要 + 曲线。静态单元和面板用的是同一个函数。"""
    return summary_html(losses) + curve_svg(losses, lr)


def loss_figure(losses, lr: float):
    """同样的曲线，matplotlib 版（静态展示、保存图片用）。"""
    return viz.line(range(len(losses)), {f"学习率 {lr:g}": losses}, title="训练损失随步数变化",
                    xlabel="更新步数", ylabel="平均交叉熵损失")


class LearningRatePanel(Panel):
    """学习率（对数刻度）和步数两个滑块；``view`` 显示数字和曲线。w0 是起点权重（默认全 0）。"""

    def __init__(self, X, y, lr: float = 0.2, steps: int = 30, w0=None):
        self.X, self.y, self.w0 = X, y, w0
        self.lr = W.FloatLogSlider(value=lr, base=10, min=-2, max=1.5, step=0.1, description="学习率",
                                   readout_format=".3g", style={"description_width": "initial"})
        self.steps = W.IntSlider(value=steps, min=1, max=100, description="步数")
        self.view = W.HTML()
        self.losses: list[float] = []
        self.watch((self.lr, self.steps))
        self.update()
        self.widget = W.VBox([W.HBox([self.lr, self.steps]), self.view])

    def update(self) -> None:
        self.losses = descent_path(self.X, self.y, lr=self.lr.value, steps=self.steps.value, w0=self.w0)
        self.view.value = panel_html(self.losses, self.lr.value)
