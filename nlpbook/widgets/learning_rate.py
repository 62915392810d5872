"""学习率滑块（第 4.3 节）：同一份数据，换学习率，看损失怎样随步数变化。

面板在浏览器里运行（js/learning_rate.js）：Python 用 ``linear.descent_path`` 把滑块上每个学习率的
100 步损失路径算一次，拖动滑块只是查表重画。曲线画成 SVG（svgplot.line_chart），静态单元和面板的默认视图用同一个函数。
"""
from __future__ import annotations

import numpy as np
import traitlets

from .. import viz
from ..linear import descent_path
from ..svgplot import line_chart
from ._client import ClientPanel

__all__ = ["LR_GRID", "MAX_STEPS", "summary_html", "curve_svg", "panel_html", "loss_figure", "LearningRatePanel"]

# 滑块上的学习率：0.01 到约 32 的对数刻度，每十倍 10 格（R10 优先数：1、1.25、1.6、2、2.5、3.15、4、5、6.3、8）。
# 正文里说到的 0.05、0.2、0.5、4、5 都在格上；“拉到 30”对应最右端的 31.5。
R10 = (1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8)
LR_GRID = tuple(round(m * 10.0 ** e, 6) for e in range(-2, 2) for m in R10 if m * 10.0 ** e <= 32)
MAX_STEPS = 100
RISE = 1e-12          # 比上一步高出这么多才算“上升”（与第 4.3 节的表一致）


def rises(losses) -> list[bool]:
    """每一步的损失是否比上一步高（长度 len(losses) − 1）。"""
    return [bool(d > RISE) for d in np.diff(np.asarray(losses, dtype=float))]


def summary_html(losses, rising=None) -> str:
    """起点、终点和是否单调下降。rising：每一步是否上升（默认由 losses 算出）。"""
    up = rises(losses) if rising is None else list(rising)[:len(losses) - 1]
    n_up = int(sum(up))
    trend = "一路下降" if n_up == 0 else f"有 {n_up} 步损失上升"
    return (f"<div>起始损失 {losses[0]:.3f} → {len(losses) - 1} 步后 <b>{losses[-1]:.3f}</b>；{trend}</div>")


def curve_svg(losses, lr: float) -> str:
    """损失随步数变化的 SVG 折线图（面板用）。"""
    return line_chart(range(len(losses)), {f"学习率 {lr:.3g}": losses}, title="训练损失随步数变化",
                      xlabel="更新步数", ylabel="平均交叉熵损失", y_from_zero=False)


def panel_html(losses, lr: float, rising=None) -> str:
    """面板显示的全部内容：数字摘要 + 曲线。静态单元和面板用的是同一个函数。"""
    return summary_html(losses, rising) + curve_svg(losses, lr)


def loss_figure(losses, lr: float):
    """同样的曲线，matplotlib 版（静态展示、保存图片用）。"""
    return viz.line(range(len(losses)), {f"学习率 {lr:g}": losses}, title="训练损失随步数变化",
                    xlabel="更新步数", ylabel="平均交叉熵损失")


class LearningRatePanel(ClientPanel):
    """学习率（对数刻度，LR_GRID 上的 36 格）和步数（1—100）两个滑块；在浏览器里重画（js/learning_rate.js）。

    w0 是起点权重（默认全 0）。``data``：每个学习率用 ``descent_path`` 走 100 步的损失（保留 4 位小数，
    面板显示 3 位）和每一步是否上升（由未舍入的损失判断，写成 0/1 字符串），由 Python 一次算好。
    """

    module = "learning_rate"
    controls = ("lr", "steps")
    lr = traitlets.Float(0.2).tag(sync=True)
    steps = traitlets.Int(30).tag(sync=True)

    def __init__(self, X, y, lr: float = 0.2, steps: int = 30, w0=None):
        lr_i = next((k for k, g in enumerate(LR_GRID) if abs(g - float(lr)) <= 1e-9 * g), None)
        if lr_i is None or isinstance(steps, bool) or not 1 <= int(steps) <= MAX_STEPS:
            raise ValueError(f"lr 取滑块上的值 {list(LR_GRID)}，steps 取 1—{MAX_STEPS} 的整数，收到 {lr!r}, {steps!r}")
        paths = [descent_path(X, y, lr=g, steps=MAX_STEPS, w0=w0) for g in LR_GRID]
        data = {"lrs": list(LR_GRID), "max_steps": MAX_STEPS,
                "losses": [[round(float(v), 4) for v in p] for p in paths],
                "up": ["".join("1" if u else "0" for u in rises(p)) for p in paths]}
        super().__init__(lr=LR_GRID[lr_i], steps=int(steps), data=data)

    @classmethod
    def example(cls) -> "LearningRatePanel":
        from ..datasets import TOY_REVIEWS, TOY_VOCAB
        from ..text import Vocab, bag_of_words
        vocab = Vocab(TOY_VOCAB)
        X = np.stack([bag_of_words(r.tokens, vocab) for r in TOY_REVIEWS])
        return cls(X, [r.label for r in TOY_REVIEWS])

    def _index(self) -> int:
        return min(range(len(LR_GRID)), key=lambda k: abs(LR_GRID[k] - float(self.lr)))

    def path(self) -> list[float]:
        """当前学习率、当前步数下的损失（来自 data，4 位小数）。"""
        return self.data["losses"][self._index()][:int(self.steps) + 1]

    def fallback_html(self) -> str:
        k = self._index()
        up = [c == "1" for c in self.data["up"][k]]
        return panel_html(self.path(), LR_GRID[k], up)
