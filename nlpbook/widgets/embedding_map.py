"""词向量地图（第 6 章“动手试：词向量地图”一节）：选一个词看它的邻居，或做一道向量算术 a − b + c。

同一个面板既能显示手工摆放的二维示意图（datasets.EMBEDDING_MAP），也能显示训练出的
高维向量（近邻在原空间里算，图上的位置用二维投影）。面板在浏览器里重画（js/embedding_map.js）。

下拉框里只列“词”：全部由文字（汉字或字母，即 str.isalpha()）组成的 token。含数字（包括全角的
“１”）或标点的 token，例如《人民日报》语料里的“１日”“１２月”，是分词时从“１月５日”这类日期上
切下来的片段，不算可选的词；它们仍画在图上，也照样可以出现在近邻里（那是向量真实的样子）。
"""
from __future__ import annotations

import html
from collections import Counter

import numpy as np
import traitlets

from ..embedding import analogy, nearest
from ..svgplot import place_labels, scatter_chart, text_width
from ._client import ClientPanel

__all__ = ["word_choices", "equation_problem", "dropped_note", "map_html", "map_layout", "pack", "unpack", "EmbeddingMap"]

QUERY, NEIGHBOUR, RESULT, OPERAND = "#EE6677", "#4477AA", "#228833", "#CCBB44"   # 图上点的颜色
QUERY_TEXT = "#CC3311"   # 文字里的选中词：比点的颜色深一些，白底上对比度 ≥ 4.5:1
WARN = "#AA3377"
TRY = "试一试：选一个词，把邻居数拉到 5，看看最远的那个邻居还像不像同一类词。"
MAX_K = 8
DIGITS = 3          # 近邻与算式结果的得分默认显示 3 位小数；数据也只存显示的位数
BOLD = 1.08         # 加粗的标签宽出来的比例（与 svgplot.scatter_chart 一致）


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


def dropped_note(words) -> str:
    """词表里有不算“词”的 token（见 word_choices）时的一行说明（纯文字）；没有时返回空串。"""
    _, dropped = word_choices(words)
    if not dropped:
        return ""
    shown = "、".join(f"“{w}”" for w in dropped[:3])
    return (f"下拉框只列由汉字或字母组成的词；{shown}等 {len(dropped)} 个含数字或"
            f"符号的 token 不能选，但仍画在图上，也可能出现在近邻里。")


def _score(v: float, digits: int = DIGITS) -> str:
    return f"{v:.{digits}f}"


def map_html(table, words, coords, word: str, k: int = 3, equation=None, metric: str = "euclidean",
             title: str = "词向量地图", width: int = 860, height: int = 420, digits: int = DIGITS,
             equation_score: bool = True) -> str:
    """面板的全部内容：散点图（选中的词红色、邻居蓝色、算式结果绿色）+ 邻居列表 + 算式结果。

    得分保留 digits 位小数；equation_score=False 时算式只给出结果词、不写得分（训练出的向量在不同机器上
    差在第 6、7 位小数，上万道算式的得分总有几个落在舍入的边上：见 EmbeddingMap）。
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
        highlight.update({a: OPERAND, b: OPERAND, c: OPERAND, best[0]: RESULT})
        arrows = [(b, a, OPERAND), (c, best[0], RESULT)]
        how = f"{unit} {_score(best[1], digits)}" if equation_score else f"按{unit}最近的词，不算 a、b、c 自己"
        lines.append(f"<div>{html.escape(a)} − {html.escape(b)} + {html.escape(c)} ≈ "
                     f"<b style='color:{RESULT}'>{html.escape(best[0])}</b>（{how}）</div>")
    highlight[word] = QUERY
    svg = scatter_chart(coords, words, highlight=highlight, arrows=arrows, title=title, width=width, height=height)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(title)}：散点图，选中“{html.escape(word)}”" ', 1)
    items = "、".join(f"{html.escape(w)}（{_score(s, digits)}）" for w, s in neigh)
    note = dropped_note(words)
    if note:
        lines.append(f"<div style='color:#555'>{html.escape(note)}</div>")
    return (svg + f"<div>离 <b style='color:{QUERY_TEXT}'>{html.escape(word)}</b> 最近的 {k} 个词"
            f"（按{unit}）：{items}</div>" + "".join(lines) + f"<div style='color:#555'>{TRY}</div>")


def map_layout(coords, words, title: str = "", width: int = 860, height: int = 420) -> list[list]:
    """浏览器里画散点图用的底图：每个词一行 [点 x, 点 y, 标签 x, 标签 y, 引线终点 x, 引线终点 y]（像素，1 位小数）。

    几何与 svgplot.scatter_chart 相同（同样的边距、标签默认在点的右上方、place_labels 给挤在一起的标签找空地），
    只是每个标签都按加粗的宽度占位、按词表顺序放：浏览器里无论哪些词被加粗标出，标签都不会互相压住。
    标签没离开默认位置时引线终点为 None（不画引线）。等于 scatter_chart(…, highlight=全部词) 里的位置。
    """
    pts = [(float(x), float(y)) for x, y in np.asarray(coords, dtype=float)]
    labels = [str(w) for w in words]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    pad = 30
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y0, y1 = min(ys), max(ys) if max(ys) > min(ys) else min(ys) + 1
    anchors = [(pad + (x - x0) / (x1 - x0) * (width - 2 * pad), 28 + (y1 - y) / (y1 - y0) * (height - 28 - pad))
               for x, y in pts]
    sizes = [(text_width(lab, 12) * BOLD, 14.0) for lab in labels]
    start = [(x + 6 + w / 2, y - 8) for (x, y), (w, _) in zip(anchors, sizes)]
    title_box = [((width / 2, 10.0), (text_width(title, 13) + 8, 16.0))] if title else []
    got, moved, _ = place_labels(anchors, sizes, start, obstacles=title_box, point_size=8.0,
                                 bounds=(0, 0, width, height), gap=1.0)
    rows = []
    for (x, y), (cx, cy), (sx, sy), (w, h), m in zip(anchors, got, start, sizes, moved):
        lead = [None, None]
        if m:
            lead = [min(max(x, cx - w / 2), cx + w / 2), min(max(y, cy - h / 2), cy + h / 2)]
        rows.append([_px(v) for v in (x, y, x + 6 + cx - sx, y - 4 + cy - sy)] + [None if v is None else _px(v) for v in lead])
    return rows


def _px(v: float) -> float:
    return float(f"{v:.1f}")


def pack(values, offset: int = 0) -> dict:
    """一长串整数（减去 offset 后非负）写成一个字符串：每个数 width 位 36 进制（浏览器里 parseInt(片段, 36) + offset 读回）。

    算式的答案有上万个：写成 JSON 数组时保存的 notebook 每个数占一行，写成字符串只占一行、也小得多。
    例：pack([1, 35, 36]) -> {"text": "010z10", "width": 2, "offset": 0}
    """
    vals = [int(v) - offset for v in values]
    if vals and min(vals) < 0:
        raise ValueError(f"pack 只收 ≥ offset 的整数，最小的是 {min(vals) + offset}")
    width = max(1, len(np.base_repr(max(vals, default=0), 36)))
    return {"text": "".join(np.base_repr(v, 36).lower().rjust(width, "0") for v in vals), "width": width,
            "offset": offset}


def unpack(packed: dict) -> list[int]:
    """pack 的逆运算（测试与 Python 里读数据用）。"""
    t, w, off = packed["text"], packed["width"], packed["offset"]
    return [int(t[i:i + w], 36) + off for i in range(0, len(t), w)]


def _fixed(v: float, digits: int) -> int:
    """得分按显示的 digits 位小数取整（先按显示的写法舍入，再换成整数：0.973 → 973）。"""
    return round(float(_score(v, digits)) * 10 ** digits)


class EmbeddingMap(ClientPanel):
    """选词（下拉框）、近邻个数（滑块）、算式 a − b + c（勾选框 + 三个下拉框）；在浏览器里重画（js/embedding_map.js）。

    下拉框只列 word_choices 认定的词（明确传进来的 word、equation 例外）；关掉算式时三个下拉框变灰。
    equation_words 限定算式的三个下拉框里的词（默认与选词的下拉框相同）；digits 是得分显示的小数位数；
    equation_score=False 时算式只给结果词。
    ``data``（Python 一次算好）：词、底图（map_layout：点和标签的位置）、每个词的前 MAX_K 个近邻及得分
    （digits 位小数），以及算式下拉框里每一组 (a, b, c) 的答案（用 embedding.analogy 算，pack 成字符串：
    下标按 a、b、c 在算式下拉框里的位置 ((ia × m) + ib) × m + ic；有重复词的组合不查，存 0）。

    为什么训练出的向量（第 7 章）要少存一些：同一段训练在不同的 CPU/BLAS 上得到的向量差在 1e-6 左右，
    得分离舍入的边界比这还近时，保存的输出就在别的机器上变了。存的数越多越容易碰上：第 7 章的 40 个词、
    33 个可选词的全部算式（三万多道）里，三位小数的得分总有几个落在边上，第 1、2 名相差不到 1e-5 的也有十几道。
    所以那里的算式只在六道题用到的 12 个词里选、不写得分，近邻的得分保留两位小数（与本章其他地方一样）。
    """

    module = "embedding_map"
    controls = ("word", "k", "use_equation", "a", "b", "c")
    word = traitlets.Unicode().tag(sync=True)
    k = traitlets.Int(3).tag(sync=True)
    use_equation = traitlets.Bool(True).tag(sync=True)
    a = traitlets.Unicode().tag(sync=True)
    b = traitlets.Unicode().tag(sync=True)
    c = traitlets.Unicode().tag(sync=True)

    def __init__(self, table, words, coords=None, word: str | None = None, k: int = 3,
                 equation=("国王", "男人", "女人"), metric: str = "euclidean", title: str = "词向量地图",
                 width: int = 860, height: int = 420, digits: int = DIGITS, equation_score: bool = True,
                 equation_words=None):
        self.table = np.asarray(table, dtype=float)
        self.words = [str(w) for w in words]
        self.coords = self.table if coords is None else np.asarray(coords, dtype=float)
        if self.coords.shape != (len(self.words), 2):
            raise ValueError(f"coords 必须是 ({len(self.words)}, 2) 的二维坐标，收到 {self.coords.shape}")
        self.metric, self.title, self.width, self.height = metric, title, width, height
        self.digits, self.equation_score = int(digits), bool(equation_score)
        choices, _ = word_choices(self.words)
        choices = choices or list(self.words)
        wanted = [word] if word else []
        wanted += list(equation) if equation is not None else []
        extra = [w for w in dict.fromkeys(wanted) if w in self.words and w not in choices]
        self.choices = [w for w in self.words if w in set(choices) | set(extra)]
        if equation_words is None:
            self.equation_choices = list(self.choices)
        else:
            unknown = [w for w in equation_words if w not in self.words]
            if unknown:
                raise ValueError(f"equation_words 里的 {unknown[:3]} 不在词表里")
            self.equation_choices = [w for w in self.words if w in set(equation_words)]
        self.max_k = min(MAX_K, len(self.words) - 1)
        eq = tuple(equation) if equation is not None else tuple(self.equation_choices[:3])
        word = word or self.choices[0]
        if word not in self.choices:
            raise ValueError(f"{word!r} 不在可选的词里（{'、'.join(self.choices[:8])}……）")
        for w in eq:
            if w not in self.equation_choices:
                raise ValueError(f"算式里的 {w!r} 不在算式可选的词里（{'、'.join(self.equation_choices[:8])}……）")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= self.max_k:
            raise ValueError(f"k 取 1—{self.max_k} 的整数，收到 {k!r}")
        super().__init__(word=word, k=int(k), use_equation=equation is not None, a=eq[0], b=eq[1], c=eq[2],
                         data=self._data())

    def _data(self) -> dict:
        words, index, digits = self.words, {w: i for i, w in enumerate(self.words)}, self.digits
        neighbours, scores = [], []
        for w in words:
            near = nearest(self.table, words, w, k=self.max_k, metric=self.metric)
            neighbours.append([index[x] for x, _ in near])
            scores.append([float(_score(s, digits)) for _, s in near])
        best, fixed = [], []
        for a in self.equation_choices:
            for b in self.equation_choices:
                for c in self.equation_choices:
                    if len({a, b, c}) < 3:           # 有重复词：浏览器里显示 equation_problem 的说明，不查表
                        best.append(0)
                        fixed.append(0)
                        continue
                    w, s = analogy(self.table, words, a, b, c, k=1, metric=self.metric)[0]
                    best.append(index[w])
                    fixed.append(_fixed(s, digits))
        analogies = {"size": len(self.equation_choices), "best": pack(best)}
        if self.equation_score:
            analogies["score"] = pack(fixed, offset=min(0, *fixed))
        return {"words": words, "choices": [index[w] for w in self.choices],
                "equation_choices": [index[w] for w in self.equation_choices], "max_k": self.max_k,
                "unit": "距离" if self.metric == "euclidean" else "余弦相似度", "digits": digits,
                "title": self.title, "width": self.width, "height": self.height,
                "layout": map_layout(self.coords, words, self.title, self.width, self.height),
                "neighbours": neighbours, "scores": scores, "analogy": analogies,
                "note": dropped_note(words), "try": TRY}

    @traitlets.validate("word", "a", "b", "c")
    def _known_word(self, proposal):
        allowed = getattr(self, "choices" if proposal["trait"].name == "word" else "equation_choices", None)
        if allowed is not None and proposal["value"] not in allowed:
            raise traitlets.TraitError(f"{proposal['value']!r} 不在下拉框的词里")
        return proposal["value"]

    @traitlets.validate("k")
    def _k_in_range(self, proposal):
        if not 1 <= proposal["value"] <= getattr(self, "max_k", MAX_K):
            raise traitlets.TraitError(f"k 取 1—{self.max_k}，收到 {proposal['value']!r}")
        return proposal["value"]

    @property
    def equation(self):
        """当前的算式 (a, b, c)；没勾选“向量算术”时为 None。"""
        return (self.a, self.b, self.c) if self.use_equation else None

    def analogy_answer(self, a: str, b: str, c: str) -> tuple[str, float | None] | None:
        """data 里存的 a − b + c 的答案 (词, digits 位小数的得分；不存得分时为 None)；三个词有重复时为 None。

        浏览器里查的就是这张表。
        """
        if len({a, b, c}) < 3:
            return None
        d, pos = self.data["analogy"], {w: i for i, w in enumerate(self.equation_choices)}
        i = (pos[a] * d["size"] + pos[b]) * d["size"] + pos[c]
        w = unpack(d["best"])[i]
        s = unpack(d["score"])[i] / 10 ** self.digits if "score" in d else None
        return self.words[w], s

    @classmethod
    def example(cls) -> "EmbeddingMap":
        from ..datasets import EMBEDDING_MAP
        return cls(np.array(list(EMBEDDING_MAP.values())), list(EMBEDDING_MAP), word="猫")

    def fallback_html(self) -> str:
        return map_html(self.table, self.words, self.coords, self.word, int(self.k), self.equation, self.metric,
                        self.title, self.width, self.height, self.digits, self.equation_score)
