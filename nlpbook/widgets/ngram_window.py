"""N-gram 窗口滑块（第 5.5 节）：n 越大，留出文本里没见过的 n-gram 越多，要存的 n-gram 也越多。

统计量（ngram.unseen_rate 的结果）先在 notebook 里算好传进来；滑块只负责挑一个 n 来细看。
"""
from __future__ import annotations

import html

import ipywidgets as W

from ..svgplot import fmt_number, line_chart
from ._base import Panel

TRY = "试一试：把 n 从 1 拖到 5，看两条曲线上的点往哪里走——没见过的比例和要存的种数都在涨。"


def window_html(stats: list[dict], n: int, examples: dict | None = None) -> str:
    """两张折线图（没见过的比例、存储的 n-gram 种数）+ 所选 n 的说明和例子。"""
    by_n = {s["n"]: s for s in stats}
    if n not in by_n:
        raise ValueError(f"没有 n={n} 的统计；可选 {sorted(by_n)}")
    ns = sorted(by_n)
    mark = f"所选 n = {n}"
    rate = line_chart(ns, {"留出文本中没见过的比例（%）": [100 * by_n[m]["unseen_rate"] for m in ns]},
                      title="窗口越长，越多组合从没见过", xlabel="n（窗口长度）", ylabel="没见过的比例（%）",
                      width=440, height=240, mark_x=n, mark_text=mark, mark_fmt=lambda v: f"{v:.1f}%",
                      y_max=100)                  # 比例最多 100%，纵轴不往上多画
    stored = line_chart(ns, {"训练集中不同 n-gram 的种数": [by_n[m]["stored"] for m in ns]},
                        title="窗口越长，要存的越多", xlabel="n（窗口长度）", ylabel="不同 n-gram 的种数",
                        width=440, height=240, mark_x=n, mark_text=mark, mark_fmt=lambda v: f"{fmt_number(v)} 种")
    s = by_n[n]
    text = (f"<div><b>n = {n}</b>：留出文本里共有 {s['heldout']:,} 个 {n}-gram，其中 "
            f"<b>{100 * s['unseen_rate']:.1f}%</b>（{s['unseen']:,} 个）在训练文本中一次都没出现过；"
            f"训练集里要存 <b>{s['stored']:,}</b> 种不同的 {n}-gram。</div>")
    if examples and examples.get(n):
        ex = "、".join(html.escape(" ".join(g)) for g in examples[n])
        text += f"<div>没见过的例子：{ex}</div>"
    return (f"<div style='display:flex;gap:8px;flex-wrap:wrap;max-width:900px'>{rate}{stored}</div>{text}"
            f"<div style='color:#555'>{TRY}</div>")


class NGramWindowPanel(Panel):
    """n 的滑块（1…最大 n）；``view`` 显示图和所选 n 的数字。"""

    def __init__(self, stats: list[dict], examples: dict | None = None, n: int = 2):
        if not stats:
            raise ValueError("stats 不能为空：先用 ngram.unseen_rate 算出各个 n 的统计")
        self.stats, self.examples = stats, examples
        ns = sorted(s["n"] for s in stats)
        self.n = W.IntSlider(value=n, min=ns[0], max=ns[-1], description="窗口 n")
        self.view = W.HTML()
        self.watch([self.n])
        self.update()
        self.widget = W.VBox([self.n, self.view])

    def update(self) -> None:
        self.view.value = window_html(self.stats, self.n.value, self.examples)
