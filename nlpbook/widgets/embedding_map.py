"""词向量地图（第 6 章“动手试：词向量地图”一节）：选一个词看它的邻居，或做一道向量算术 a − b + c。

同一个面板既能显示手工摆放的二维示意图（datasets.EMBEDDING_MAP），也能显示训练出的
高维向量（近邻在原空间里算，图上的位置用二维投影）。图是 SVG，放在 HTML 控件里。
"""
from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from ..embedding import analogy, nearest
from ..svgplot import scatter_chart

QUERY, NEIGHBOUR, RESULT = "#EE6677", "#4477AA", "#228833"


def map_html(table, words, coords, word: str, k: int = 3, equation=None, metric: str = "euclidean",
             title: str = "词向量地图") -> str:
    """面板的全部内容：散点图（选中的词红色、邻居蓝色、算式结果绿色）+ 邻居列表 + 算式结果。"""
    words = list(words)
    unit = "距离" if metric == "euclidean" else "余弦相似度"
    neigh = nearest(table, words, word, k=k, metric=metric)
    highlight = {w: NEIGHBOUR for w, _ in neigh}
    arrows, lines = [], []
    if equation is not None:
        a, b, c = equation
        best = analogy(table, words, a, b, c, k=1, metric=metric)[0]
        highlight.update({a: "#CCBB44", b: "#CCBB44", c: "#CCBB44", best[0]: RESULT})
        arrows = [(b, a, "#CCBB44"), (c, best[0], RESULT)]
        lines.append(f"<div>{html.escape(a)} − {html.escape(b)} + {html.escape(c)} ≈ "
                     f"<b style='color:{RESULT}'>{html.escape(best[0])}</b>（{unit} {best[1]:.3f}）</div>")
    highlight[word] = QUERY
    svg = scatter_chart(coords, words, highlight=highlight, arrows=arrows, title=title)
    items = "、".join(f"{html.escape(w)}（{s:.3f}）" for w, s in neigh)
    return (svg + f"<div>离 <b style='color:{QUERY}'>{html.escape(word)}</b> 最近的 {k} 个词"
            f"（按{unit}）：{items}</div>" + "".join(lines))


class EmbeddingMap:
    """选词（下拉框）、近邻个数（滑块）、算式 a − b + c（三个下拉框，可关掉）。``view`` 显示结果。"""

    def __init__(self, table, words, coords=None, word: str | None = None, k: int = 3,
                 equation=("国王", "男人", "女人"), metric: str = "euclidean", title: str = "词向量地图"):
        self.table = np.asarray(table, dtype=float)
        self.words = list(words)
        self.coords = self.table if coords is None else np.asarray(coords, dtype=float)
        if self.coords.shape != (len(self.words), 2):
            raise ValueError(f"coords 必须是 ({len(self.words)}, 2) 的二维坐标，收到 {self.coords.shape}")
        self.metric, self.title = metric, title
        self.word = W.Dropdown(options=self.words, value=word or self.words[0], description="选一个词")
        self.k = W.IntSlider(value=k, min=1, max=min(8, len(self.words) - 1), description="邻居数")
        eq = equation if equation is not None else self.words[:3]
        self.use_equation = W.Checkbox(value=equation is not None, description="向量算术")
        self.a, self.b, self.c = (W.Dropdown(options=self.words, value=v, layout=W.Layout(width="110px"))
                                  for v in eq)
        self.view = W.HTML()
        for ctl in (self.word, self.k, self.use_equation, self.a, self.b, self.c):
            ctl.observe(lambda _: self.update(), names="value")
        self.update()
        equation_row = W.HBox([self.use_equation, self.a, W.Label("−"), self.b, W.Label("+"), self.c])
        self.widget = W.VBox([W.HBox([self.word, self.k]), equation_row, self.view])

    def update(self) -> None:
        eq = (self.a.value, self.b.value, self.c.value) if self.use_equation.value else None
        if eq is not None and len(set(eq)) < 3:
            eq = None  # 三个词有重复时算式没有意义：只显示近邻
        self.view.value = map_html(self.table, self.words, self.coords, self.word.value, self.k.value,
                                   eq, self.metric, self.title)
