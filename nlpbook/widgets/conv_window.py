"""卷积窗口滑块（第 10 章）：窗口宽度与层数怎样决定一个输出能“看到”多远。

视图是两张 SVG：上面是每个窗口盖住句子里的哪几个词（一条色带一个窗口），下面是层层堆叠后
最上层一个输出的感受野（倒金字塔：越往下盖住的词越多），并标出相距 distance 个词的两个位置是否都落在里面。
面板在浏览器里运行（js/conv_window.js）：Python 用 cnn.windows / cnn.receptive_field 把滑块上每个宽度、每个层数的
窗口个数和感受野算一次，浏览器里查表画图。
"""
from __future__ import annotations

import html

import traitlets

from ..cnn import receptive_field, windows
from ..palette import PALETTE
from ._client import ClientPanel

__all__ = ["DEFAULT_TOKENS", "TRY", "MAX_WIDTH", "MAX_LAYERS", "windows_svg", "field_svg", "windows_html",
           "ConvWindowPanel"]

DEFAULT_TOKENS = ("这部", "电影", "不", "太", "好看")
MAX_WIDTH, MAX_LAYERS = 5, 12
TRY = "试一试：宽度停在 3，把层数一格一格往上拖：最底下一行每层多盖住 2 个词，拖到第几层时右边的红点变成绿点？"
SVG_STYLE = "font-family:sans-serif;font-size:12px;max-width:100%;height:auto"
IN, OUT = "#009E73", "#D55E00"   # 落在 / 不在感受野里


def windows_svg(tokens, width: int, chart_width: int = 860) -> str:
    """句子一行词，上面每个窗口一条色带，盖住它读的那几个词，色带上写“窗口 k → 输出 k”。"""
    tokens = list(tokens)
    n = len(tokens)
    wins = windows(tokens, width)
    left, cw = 10, min(120.0, (chart_width - 20) / n)
    band_h, gap = 20, 4
    rows_h = len(wins) * (band_h + gap)
    token_y = 8 + rows_h
    height = token_y + 34
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{chart_width}" height="{height}" '
           f'viewBox="0 0 {chart_width} {height}" role="img" aria-label="宽度 {width} 的窗口盖住哪几个词" '
           f'style="{SVG_STYLE}">']
    for k in range(len(wins)):
        color = PALETTE[k % 6]
        x, y = left + k * cw + 2, 8 + k * (band_h + gap)
        out.append(f'<rect class="window" data-start="{k}" data-width="{width}" x="{x:.1f}" y="{y}" '
                   f'width="{width * cw - 4:.1f}" height="{band_h}" rx="4" fill="{color}" fill-opacity="0.85"/>'
                   f'<text x="{x + 6:.1f}" y="{y + 14}" fill="#111" font-weight="bold">窗口 {k + 1} → 输出 {k + 1}</text>')
        for j in range(k, k + width):            # 从色带往下到它盖住的每个词的细线
            cx = left + (j + 0.5) * cw
            out.append(f'<line x1="{cx:.1f}" y1="{y + band_h}" x2="{cx:.1f}" y2="{token_y}" stroke="{color}" '
                       f'stroke-opacity="0.35"/>')
    for i, t in enumerate(tokens):
        x = left + i * cw
        out.append(f'<rect x="{x + 2:.1f}" y="{token_y}" width="{cw - 4:.1f}" height="24" rx="4" fill="#eee" '
                   f'stroke="#999"/><text x="{x + cw / 2:.1f}" y="{token_y + 16}" text-anchor="middle">{e(t)}'
                   f'<tspan font-size="9" fill="#666"> {i}</tspan></text>')
    out.append("</svg>")
    return "".join(out)


def field_svg(width: int, layers: int, distance: int, chart_width: int = 860) -> str:
    """最上层一个输出的感受野：第 l 层里它依赖的位置数 = 1 + (layers − l)×(width − 1)，最底下一行是输入的词。

    两个红/绿点标出相距 distance 的两个输入位置（左边那个放在感受野的左端）：绿色＝在感受野里。
    """
    rf = receptive_field(width, layers)
    m = max(rf, distance + 1) + 2
    label_w = 70
    cw = (chart_width - label_w - 10) / m
    rh = 18 if layers <= 6 else 13
    start = 1                                     # 感受野左端的位置
    height = 26 + (layers + 1) * rh + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{chart_width}" height="{height}" '
           f'viewBox="0 0 {chart_width} {height}" role="img" aria-label="宽度 {width}、{layers} 层的感受野" '
           f'style="{SVG_STYLE}">',
           f'<text x="{label_w}" y="14">最上层的一个输出，往下一层一层看它依赖哪些位置（最底下是输入的词）</text>']
    for level in range(layers, -1, -1):           # level = layers 为最上层，0 为输入
        span = 1 + (layers - level) * (width - 1)
        y = 22 + (layers - level) * rh
        name = "输入" if level == 0 else f"第 {level} 层"
        out.append(f'<text x="{label_w - 6}" y="{y + rh - 4}" text-anchor="end" font-size="10">{name}</text>')
        lo = start + (rf - span) // 2
        fill = "#0072B2" if level else "#56B4E9"
        out.append(f'<rect class="field" data-level="{level}" data-span="{span}" x="{label_w + lo * cw:.1f}" '
                   f'y="{y + 1}" width="{span * cw:.1f}" height="{rh - 3}" fill="{fill}" '
                   f'fill-opacity="{0.35 + 0.65 * level / max(layers, 1):.2f}"/>')
    y0 = 22 + layers * rh
    for i in range(m):                            # 输入位置的格子
        out.append(f'<rect x="{label_w + i * cw:.1f}" y="{y0 + 1}" width="{cw:.1f}" height="{rh - 3}" '
                   f'fill="none" stroke="#bbb" stroke-width="0.5"/>')
    for p in (start, start + distance):
        inside = start <= p < start + rf
        cx = label_w + (p + 0.5) * cw
        out.append(f'<circle class="probe" data-inside="{int(inside)}" cx="{cx:.1f}" cy="{y0 + rh + 8}" r="5" '
                   f'fill="{IN if inside else OUT}"/>')
    x1, x2 = label_w + (start + 0.5) * cw, label_w + (start + distance + 0.5) * cw
    out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{y0 + rh + 12}" text-anchor="middle" font-size="10">'
               f'相距 {distance} 个词</text>')
    out.append("</svg>")
    return "".join(out)


def windows_html(tokens, width: int, layers: int = 1, distance: int = 20) -> str:
    """画出宽度为 width 的每个窗口盖住哪几个词，再画 layers 层堆叠后最上层一个输出的感受野。"""
    tokens = list(tokens)
    if width <= len(tokens):
        top = windows_svg(tokens, width)
        n = len(tokens) - width + 1
        top += (f"<div>宽度 {width}：{len(tokens)} 个词上能放 <b>{n}</b> 个窗口（{len(tokens)} − {width} + 1），"
                f"每个窗口读 {width} 个相邻的词，给出一个输出。</div>")
    else:
        top = (f"<div style='color:#AA3377'>句子只有 {len(tokens)} 个 token，放不下宽度 {width} 的窗口："
               f"把宽度调到 {len(tokens)} 或更小。</div>")
    rf = receptive_field(width, layers)
    reach = "能" if rf > distance else "不能"
    return (top + field_svg(width, layers, distance)
            + f"<div>宽度 {width}、堆叠 {layers} 层：最上层每个输出能看到 <b>{rf}</b> 个相邻 token"
            f"（1 + 层数×(宽度−1)）。相距 {distance} 个词的两个位置{reach}落进同一个感受野。</div>"
            f"<div style='color:#555'>{TRY}</div>")


class ConvWindowPanel(ClientPanel):
    """窗口宽度（1—5）、层数（1—12）两个滑块；在浏览器里重画（js/conv_window.js）。

    ``data``：句子、相距的词数 distance、每个宽度能放几个窗口（``cnn.windows``，放不下为 0）
    和每个（宽度, 层数）的感受野（``cnn.receptive_field``），由 Python 一次算好。
    """

    module = "conv_window"
    controls = ("width", "layers")
    width = traitlets.Int(3).tag(sync=True)
    layers = traitlets.Int(1).tag(sync=True)

    def __init__(self, tokens=DEFAULT_TOKENS, width: int = 3, layers: int = 1, distance: int = 20):
        for name, v, hi in (("width", width, MAX_WIDTH), ("layers", layers, MAX_LAYERS)):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
                raise ValueError(f"{name} 取 1—{hi} 的整数，收到 {v!r}")
        self.tokens, self.distance = list(tokens), int(distance)
        n_windows = []
        for w in range(1, MAX_WIDTH + 1):
            try:
                n_windows.append(len(windows(self.tokens, w)))
            except ValueError:                        # 句子比窗口短：一个完整窗口也没有
                n_windows.append(0)
        data = {"tokens": self.tokens, "distance": self.distance, "max_width": MAX_WIDTH, "max_layers": MAX_LAYERS,
                "n_windows": n_windows,
                "rf": [[receptive_field(w, n) for n in range(1, MAX_LAYERS + 1)] for w in range(1, MAX_WIDTH + 1)],
                "palette": list(PALETTE[:6]), "try": TRY}
        super().__init__(width=width, layers=layers, data=data)

    def fallback_html(self) -> str:
        return windows_html(self.tokens, int(self.width), int(self.layers), self.distance)
