"""N-gram 窗口滑块（第 5.5 节）：n 越大，留出文本里没见过的 n-gram 越多，要存的 n-gram 也越多。

统计量（ngram.unseen_rate 的结果）和例子（ngram.unseen_examples）先在 notebook 里算好传进来；
面板在浏览器里运行（js/ngram_window.js），滑块只负责挑一个 n 来细看。
"""
from __future__ import annotations

import html

import traitlets

from ..svgplot import fmt_number, line_chart
from ._client import ClientPanel

__all__ = ["TRY", "window_html", "NGramWindowPanel"]

TRY = "试一试：把 n 从 1 拖到 5，看两条曲线上的点往哪里走——没见过的比例和要存的种数都在涨。"


def _pct(s: dict) -> float:
    """没见过的比例，写成百分数并保留 1 位小数（面板显示的位数）。"""
    return float(f"{100 * s['unseen_rate']:.1f}")


def window_html(stats: list[dict], n: int, examples: dict | None = None) -> str:
    """两张折线图（没见过的比例、存储的 n-gram 种数）+ 所选 n 的说明和例子。"""
    by_n = {s["n"]: s for s in stats}
    if n not in by_n:
        raise ValueError(f"没有 n={n} 的统计；可选 {sorted(by_n)}")
    ns = sorted(by_n)
    mark = f"所选 n = {n}"
    rate = line_chart(ns, {"留出文本中没见过的比例（%）": [_pct(by_n[m]) for m in ns]},
                      title="窗口越长，越多组合从没见过", xlabel="n（窗口长度）", ylabel="没见过的比例（%）",
                      width=440, height=240, mark_x=n, mark_text=mark, mark_fmt=lambda v: f"{v:.1f}%",
                      y_max=100)                  # 比例最多 100%，纵轴不往上多画
    stored = line_chart(ns, {"训练集中不同 n-gram 的种数": [by_n[m]["stored"] for m in ns]},
                        title="窗口越长，要存的越多", xlabel="n（窗口长度）", ylabel="不同 n-gram 的种数",
                        width=440, height=240, mark_x=n, mark_text=mark, mark_fmt=lambda v: f"{fmt_number(v)} 种")
    s = by_n[n]
    text = (f"<div><b>n = {n}</b>：留出文本里共有 {s['heldout']:,} 个 {n}-gram，其中 "
            f"<b>{_pct(s):.1f}%</b>（{s['unseen']:,} 个）在训练文本中一次都没出现过；"
            f"训练集里要存 <b>{s['stored']:,}</b> 种不同的 {n}-gram。</div>")
    if examples and examples.get(n):
        ex = "、".join(html.escape(" ".join(g)) for g in examples[n])
        text += f"<div>没见过的例子：{ex}</div>"
    return (f"<div style='display:flex;gap:8px;flex-wrap:wrap;max-width:900px'>{rate}{stored}</div>{text}"
            f"<div style='color:#555'>{TRY}</div>")


class NGramWindowPanel(ClientPanel):
    """n 的滑块（最小 n…最大 n）；在浏览器里重画（js/ngram_window.js）。

    ``data``：每个 n 的统计（训练集存的种数、留出 n-gram 数、没见过的个数，没见过的百分比保留 1 位小数）
    和没见过的例子（每个 n-gram 用空格连成一段文字），由 Python 一次整理好。
    """

    module = "ngram_window"
    controls = ("n",)
    n = traitlets.Int(2).tag(sync=True)

    def __init__(self, stats: list[dict], examples: dict | None = None, n: int = 2):
        if not stats:
            raise ValueError("stats 不能为空：先用 ngram.unseen_rate 算出各个 n 的统计")
        by_n = {int(s["n"]): s for s in stats}
        ns = sorted(by_n)
        if ns != list(range(ns[0], ns[-1] + 1)):
            raise ValueError(f"stats 里的 n 应当是连续的整数，收到 {ns}")
        if isinstance(n, bool) or n not in by_n:
            raise ValueError(f"没有 n={n!r} 的统计；可选 {ns}")
        self.stats, self.examples = [by_n[m] for m in ns], examples
        examples = examples or {}
        data = {"ns": ns,
                "stored": [int(by_n[m]["stored"]) for m in ns],
                "heldout": [int(by_n[m]["heldout"]) for m in ns],
                "unseen": [int(by_n[m]["unseen"]) for m in ns],
                "pct": [_pct(by_n[m]) for m in ns],
                "examples": [[" ".join(g) for g in examples.get(m) or []] for m in ns],
                "try": TRY}
        super().__init__(n=int(n), data=data)

    @classmethod
    def example(cls) -> "NGramWindowPanel":
        from ..ngram import unseen_examples, unseen_rate
        train = [list("我喝茶"), list("我喝水"), list("你喝茶")]
        held = [list("我喝咖啡"), list("他喝茶")]
        return cls([unseen_rate(train, held, n) for n in (1, 2, 3)],
                   {n: unseen_examples(train, held, n) for n in (1, 2, 3)}, n=2)

    def fallback_html(self) -> str:
        return window_html(self.stats, int(self.n), self.examples)
