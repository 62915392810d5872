"""词向量地图（第 6 章“动手试：词向量地图”一节）：选一个词看它的邻居，或做一道向量算术 a − b + c。

同一个面板既能显示手工摆放的二维示意图（datasets.EMBEDDING_MAP），也能显示训练出的
高维向量（近邻在原空间里算，图上的位置用二维投影）。图是 SVG，放在 HTML 控件里。

下拉框里只列“词”：全部由文字（汉字或字母，即 str.isalpha()）组成的 token。含数字（包括全角的
“１”）或标点的 token，例如《人民日报》语料里的“１日”“１２月”，是分词时从“１月５日”这类日期上
切下来的片段，不算可选的词；它们仍画在图上，也照样可以出现在近邻里（那是向量真实的样子）。
"""
from __future__ import annotations

import html
from collections import Counter

import ipywidgets as W
import numpy as np

from ..embedding import analogy, nearest
from ..svgplot import scatter_chart
from ._base import Panel

QUERY, NEIGHBOUR, RESULT = "#EE6677", "#4477AA", "#228833"
WARN = "#AA3377"
TRY = "试一试：选一个词，把邻居数拉到 5，看看最远的那个邻居还像不像同一类词。"


def word_choices(words) -> tuple[list[str], list[str]]:
    """把 token 分成（可选的词，不列进下拉框的 token）。规则：全部字符都是文字（str.isalpha）才算词。

    例：["北京", "１日", "一月", "GDP"] -> (["北京", "一月", "GDP"], ["１日"])
    """
    words = [str(w) for w in words]
    return [w for w in words if w.isalpha()], [w for w in words if not w.isalpha()]


def equation_problem(equation) -> str:
    """算式 a − b + c 用不了时的一行说明（三个词有重复）；能用时返回空串。"""
    if equation is None:
        return ""
    twice = [w for w, n in Counter(equation).items() if n > 1]
    if not twice:
        return ""
    a, b, c = equation
    why = "a 和 b 相同，a − b 抵消成 0，结果只是 c 自己的近邻" if a == b else "同一个词用了两次，算式问不出新东西"
    return (f"算式里“{twice[0]}”出现了 {Counter(equation)[twice[0]]} 次（{why}）："
            f"请把 a、b、c 换成三个不同的词。")


def map_html(table, words, coords, word: str, k: int = 3, equation=None, metric: str = "euclidean",
             title: str = "词向量地图", width: int = 860, height: int = 420) -> str:
    """面板的全部内容：散点图（选中的词红色、邻居蓝色、算式结果绿色）+ 邻居列表 + 算式结果。

    equation 的三个词有重复时不画箭头，改为一行说明；词表里有不算“词”的 token（见 word_choices）时说明规则。
    """
    words = list(words)
    unit = "距离" if metric == "euclidean" else "余弦相似度"
    neigh = nearest(table, words, word, k=k, metric=metric)
    highlight = {w: NEIGHBOUR for w, _ in neigh}
    arrows, lines = [], []
    problem = equation_problem(equation)
    if problem:
        lines.append(f"<div style='color:{WARN}'>{html.escape(problem)}</div>")
    elif equation is not None:
        a, b, c = equation
        best = analogy(table, words, a, b, c, k=1, metric=metric)[0]
        highlight.update({a: "#CCBB44", b: "#CCBB44", c: "#CCBB44", best[0]: RESULT})
        arrows = [(b, a, "#CCBB44"), (c, best[0], RESULT)]
        lines.append(f"<div>{html.escape(a)} − {html.escape(b)} + {html.escape(c)} ≈ "
                     f"<b style='color:{RESULT}'>{html.escape(best[0])}</b>（{unit} {best[1]:.3f}）</div>")
    highlight[word] = QUERY
    svg = scatter_chart(coords, words, highlight=highlight, arrows=arrows, title=title, width=width, height=height)
    items = "、".join(f"{html.escape(w)}（{s:.3f}）" for w, s in neigh)
    _, dropped = word_choices(words)
    if dropped:
        shown = "、".join(f"“{html.escape(w)}”" for w in dropped[:3])
        lines.append(f"<div style='color:#555'>下拉框只列由汉字或字母组成的词；{shown}等 {len(dropped)} 个含数字或"
                     f"符号的 token 不能选，但仍画在图上，也可能出现在近邻里。</div>")
    return (svg + f"<div>离 <b style='color:{QUERY}'>{html.escape(word)}</b> 最近的 {k} 个词"
            f"（按{unit}）：{items}</div>" + "".join(lines) + f"<div style='color:#555'>{TRY}</div>")


class EmbeddingMap(Panel):
    """选词（下拉框）、近邻个数（滑块）、算式 a − b + c（三个下拉框，可关掉）。``view`` 显示结果。

    下拉框只列 word_choices 认定的词（明确传进来的 word、equation 例外）；关掉算式时三个下拉框变灰。
    """

    def __init__(self, table, words, coords=None, word: str | None = None, k: int = 3,
                 equation=("国王", "男人", "女人"), metric: str = "euclidean", title: str = "词向量地图"):
        self.table = np.asarray(table, dtype=float)
        self.words = list(words)
        self.coords = self.table if coords is None else np.asarray(coords, dtype=float)
        if self.coords.shape != (len(self.words), 2):
            raise ValueError(f"coords 必须是 ({len(self.words)}, 2) 的二维坐标，收到 {self.coords.shape}")
        self.metric, self.title = metric, title
        choices, _ = word_choices(self.words)
        choices = choices or list(self.words)
        wanted = [word] if word else []
        wanted += list(equation) if equation is not None else []
        extra = [w for w in dict.fromkeys(wanted) if w in self.words and w not in choices]
        self.choices = [w for w in self.words if w in set(choices) | set(extra)]
        self.word = W.Dropdown(options=self.choices, value=word or self.choices[0], description="选一个词")
        self.k = W.IntSlider(value=k, min=1, max=min(8, len(self.words) - 1), description="邻居数")
        eq = equation if equation is not None else self.choices[:3]
        self.use_equation = W.Checkbox(value=equation is not None, description="向量算术")
        self.a, self.b, self.c = (W.Dropdown(options=self.choices, value=v, layout=W.Layout(width="110px"))
                                  for v in eq)
        self.view = W.HTML(layout=W.Layout(max_width="900px"))
        self.watch((self.word, self.k, self.use_equation, self.a, self.b, self.c))
        self.update()
        equation_row = W.HBox([self.use_equation, self.a, W.Label("−"), self.b, W.Label("+"), self.c])
        self.widget = W.VBox([W.HBox([self.word, self.k]), equation_row, self.view])

    def update(self) -> None:
        on = bool(self.use_equation.value)
        for d in (self.a, self.b, self.c):
            d.disabled = not on
            d.tooltip = "" if on else "先勾选“向量算术”，这三个词才会参与计算"
        eq = (self.a.value, self.b.value, self.c.value) if on else None
        self.view.value = map_html(self.table, self.words, self.coords, self.word.value, self.k.value,
                                   eq, self.metric, self.title)
