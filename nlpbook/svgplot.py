"""极简的 SVG 折线图：交互面板用它代替 matplotlib 重画，一次更新只要几毫秒。

输出是确定的字符串（坐标保留一位小数），放进 ipywidgets.HTML 即可；中文由浏览器的字体显示。
不做的事：不是通用画图库——只有折线、坐标轴、刻度和图例。
"""
from __future__ import annotations

import html
import math

import numpy as np

from .palette import PALETTE  # Okabe–Ito，色盲友好（与 viz 共用）

__all__ = ["line_chart", "scatter_chart", "place_labels", "bar_chart", "bar_layout", "fmt_number", "text_width",
           "PALETTE"]


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """lo..hi 之间“好看”的刻度。例：(0, 0.7) -> [0, 0.2, 0.4, 0.6]"""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _check_series(axis: list, series: dict, axis_name: str) -> None:
    """横轴与各条数据都不能为空，每条数据的个数等于横轴的个数。"""
    if not axis or not series:
        raise ValueError(f"{axis_name} 和 series 都不能为空")
    for name, vals in series.items():
        if len(vals) != len(axis):
            raise ValueError(f"series[{name!r}] 有 {len(vals)} 个值，{axis_name} 有 {len(axis)} 个")


def fmt_number(v: float, sig: int = 3) -> str:
    """不用科学计数法写一个数：大数带千位分隔，小数写成普通小数。

    例：191751.06 -> '191,751'；0.5 -> '0.5'；9.54e-07 -> '0.000000954'；123.456 -> '123'。
    小于 1e-12 的非零数写成 '≈0'（再多的零读者也数不清）。
    """
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    a = abs(v)
    if a == 0:
        return "0"
    if a < 1e-12:
        return "≈0"
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 1:
        s = f"{v:.{sig}g}"
        return f"{v:,.0f}" if "e" in s else s
    d = sig - 1 - math.floor(math.log10(a))
    return f"{v:.{d}f}".rstrip("0").rstrip(".")


def _tick_label(t: float) -> str:
    """刻度文字：千位分隔，不出现 1e+05 这样的写法。"""
    if abs(t) >= 1000:
        return f"{t:,.0f}"
    s = f"{t:g}"
    return fmt_number(t, 6) if "e" in s else s


def text_width(s: str, size: float = 11) -> float:
    """估计一段文字的像素宽度：汉字等全角字符约 1 个字号宽，其余约 0.6 个字号宽。"""
    return sum(size if ord(ch) >= 0x2E80 else 0.6 * size for ch in str(s))


def line_chart(xs, series: dict, *, title: str = "", xlabel: str = "", ylabel: str = "",
               width: int = 460, height: int = 260, mark_x: float | None = None, mark_text: str = "",
               mark_fmt=fmt_number, y_from_zero: bool = True, y_max: float | None = None) -> str:
    """几条折线的 SVG。series 为 {图例: y 值列表}，长度都等于 xs；非有限值（inf/NaN）被截断并标出。

    图例排在标题下方的一行（不压在曲线上）；左边距按最长的刻度文字留出，纵轴标题不会压住刻度。
    mark_x：在这个横坐标画一条竖虚线，每条曲线上点一个点并标出数值（mark_fmt 格式化），
    mark_text 写在虚线顶端（例如“所选 n = 2”）。刻度用千位分隔，不用科学计数法。
    y_from_zero=False：纵轴只覆盖数据的范围（小变化，如 0.693 → 0.627，不会被压扁）；
    这时纵轴标题后面自动加“（纵轴不从 0 开始）”，读者不会误读差距的大小。
    y_max：有天然上限的量（比例最多 100%）给出上限，纵轴正好画到它，不再往上多留一格；
    这时贴近上限的点，数值写在点的下方。
    """
    xs = [float(x) for x in xs]
    _check_series(xs, series, "xs")
    finite = [float(y) for ys in series.values() for y in ys if math.isfinite(float(y))]
    if not finite:
        raise ValueError("series 里没有有限的数值可画")
    if y_from_zero:
        lo, hi = min(finite + [0.0]), max(finite)
        hi = hi if hi > lo else lo + 1
    else:
        lo, hi = min(finite), max(finite)
        span = hi - lo if hi > lo else max(abs(hi), 1.0) * 0.1
        lo, hi = lo - 0.05 * span, hi + 0.05 * span
        ylabel = f"{ylabel}（纵轴不从 0 开始）" if ylabel else "纵轴不从 0 开始"
    if y_max is not None:
        hi = float(y_max)
    yticks = _ticks(lo, hi)
    if not y_from_zero and yticks and yticks[0] > lo:   # 底部也落在一个刻度上
        step = yticks[1] - yticks[0] if len(yticks) > 1 else (hi - lo)
        yticks.insert(0, round(yticks[0] - step, 10))
        lo = yticks[0]
    if len(yticks) > 1 and y_max is None:         # 纵轴顶端取到最高点之上的刻度，上方留出写数字的空
        step = yticks[-1] - yticks[-2]
        while yticks[-1] < hi + 0.1 * (hi - lo):
            yticks.append(round(yticks[-1] + step, 10))
        hi = yticks[-1]
    ytick_w = max(text_width(_tick_label(t)) for t in yticks)
    # 纵轴标题（旋转后）大约占 x∈[3, 16]；刻度文字右对齐在 left-4，左端不能越过 20
    left = math.ceil(max(36.0, ytick_w + (28 if ylabel else 10)))
    right, top, bottom = 14, 44 if title else 30, 40
    pw, ph = width - left - right, height - top - bottom
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        y = min(max(y, lo), hi) if math.isfinite(y) else hi
        return top + (hi - y) / (hi - lo) * ph

    e = html.escape
    halo = 'paint-order="stroke" stroke="#fff" stroke-width="3"'
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="font-family:sans-serif;font-size:11px;max-width:100%;height:auto">',
           f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" font-size="13">{e(title)}</text>',
           f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>']
    for t in yticks:
        out.append(f'<text class="ytick" x="{left - 4}" y="{py(t) + 4:.1f}" text-anchor="end">{_tick_label(t)}</text>'
                   f'<line x1="{left}" y1="{py(t):.1f}" x2="{left + pw}" y2="{py(t):.1f}" stroke="#ddd"/>')
    for t in _ticks(x0, x1):
        bold = ' font-weight="bold"' if mark_x is not None and abs(t - float(mark_x)) < 1e-9 else ""
        out.append(f'<text class="xtick" x="{px(t):.1f}" y="{top + ph + 14}" text-anchor="middle"{bold}>'
                   f'{_tick_label(t)}</text>')
    out.append(f'<text class="xlabel" x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle">{e(xlabel)}</text>')
    out.append(f'<text class="ylabel" x="12" y="{top + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 12 {top + ph / 2:.1f})">{e(ylabel)}</text>')
    lx, ly = left, top - 8 if title else 16
    for k, (name, ys) in enumerate(series.items()):
        color = PALETTE[k % len(PALETTE)]
        pts = " ".join(f"{px(x):.1f},{py(float(y)):.1f}" for x, y in zip(xs, ys))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{pts}"/>')
        out.append(f'<line x1="{lx:.1f}" y1="{ly - 4}" x2="{lx + 16:.1f}" y2="{ly - 4}" stroke="{color}" stroke-width="2"/>'
                   f'<text class="legend" x="{lx + 20:.1f}" y="{ly}" fill="{color}">{e(str(name))}</text>')
        lx += 20 + text_width(str(name)) + 16
        if any(not math.isfinite(float(y)) or float(y) > hi for y in ys):
            out.append(f'<text x="{left + 4}" y="{top + 12}" fill="#D55E00">有数值溢出，已截断</text>')
    if mark_x is not None:
        mx = px(min(max(float(mark_x), x0), x1))
        out.append(f'<line class="mark" x1="{mx:.1f}" y1="{top}" x2="{mx:.1f}" y2="{top + ph}" stroke="#555" '
                   f'stroke-dasharray="4 3"/>')
        on_right = mx < left + pw * 0.7          # 标注放在虚线右边；太靠右时放左边
        anchor, dx = ("start", 6) if on_right else ("end", -6)
        if mark_text:                             # 写在图例那一行的末尾，不压曲线
            out.append(f'<line x1="{lx:.1f}" y1="{ly - 9}" x2="{lx:.1f}" y2="{ly + 1}" stroke="#555" '
                       f'stroke-dasharray="3 2"/><text class="mark-text" x="{lx + 5:.1f}" y="{ly}" '
                       f'font-weight="bold">{e(mark_text)}</text>')
        placed = []                               # 各条曲线的数值标注：竖直方向至少隔 13 px
        for k, (name, ys) in enumerate(series.items()):
            i = min(range(len(xs)), key=lambda j: abs(xs[j] - float(mark_x)))
            y = float(ys[i])
            if not math.isfinite(y):
                continue
            color = PALETTE[k % len(PALETTE)]
            cy = py(y)
            out.append(f'<circle cx="{mx:.1f}" cy="{cy:.1f}" r="4" fill="{color}"/>')
            j = i + 1 if on_right else i - 1    # 标注那一侧的相邻点：曲线往上走就把数字放在点下方
            goes_up = 0 <= j < len(xs) and math.isfinite(float(ys[j])) and py(float(ys[j])) < cy - 1
            if y_max is not None and cy - 7 < top + 10:   # 画到上限的纵轴：点上方放不下，就写在点下方
                goes_up = True
            ty = cy + 15 if goes_up else cy - 7
            ty = min(max(ty, top + 10), top + ph - 2)
            while any(abs(ty - p) < 13 for p in placed):
                ty += 13
            placed.append(ty)
            out.append(f'<text class="mark-value" x="{mx + dx:.1f}" y="{ty:.1f}" text-anchor="{anchor}" '
                       f'fill="{color}" {halo}>{e(mark_fmt(y))}</text>')
    out.append("</svg>")
    return "".join(out)


def place_labels(anchors, sizes, start=None, *, obstacles=(), point_size: float = 6.0, bounds=None,
                 gap: float = 2.0, rings=(3, 10, 18, 28, 40, 54, 70, 88, 108)):
    """给散点图的每个标签找一个不压别人的位置：先试默认位置，不行就绕着自己的点一圈一圈往外找。

    anchors：每个标签所属的点 (x, y)；sizes：标签框的宽高；start：默认的框中心（默认在点的正右方）。
    单位随意（像素、磅都行），纵轴朝上朝下都行。标签框不能压住已放好的标签、任何一个点（当作边长 point_size
    的小方块）、obstacles 里固定的框 [(中心, 宽高), …]，也不出 bounds=(x0, y0, x1, y1)；框与框之间至少隔 gap。
    按给出的顺序逐个放（想让谁先挑位置，就把谁排在前面）。第 k 圈的候选框离点 rings[k]，每圈 16 个方向，
    离默认方向近的先试。全都放不下时，取和别人重叠面积最小的候选。
    返回 (中心列表, 每个标签是否离开了默认位置, 是否还有重叠)。算法确定：同样的输入，同样的位置。
    例：两个挨着的点，标签都想放在正右方；后一个只好挪开：
    place_labels([(0, 0), (0, 5)], [(20, 8), (20, 8)])[1] -> [False, True]
    """
    A = np.asarray(anchors, dtype=float).reshape(-1, 2)
    S = np.asarray(sizes, dtype=float).reshape(-1, 2)
    if len(A) != len(S):
        raise ValueError(f"anchors 与 sizes 必须一样多，收到 {len(A)} 和 {len(S)}")
    P0 = A + [1.0, 0.0] * (S / 2 + point_size / 2 + gap) if start is None else np.asarray(start, dtype=float).reshape(-1, 2)
    angles = np.arange(16) * (np.pi / 8)
    unit = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    square = unit / np.abs(unit).max(axis=1, keepdims=True)       # 方向投到单位正方形的边上：框贴着点的那一侧
    fixed = np.concatenate([A - point_size / 2, A + point_size / 2], axis=1)   # 框记作 (x0, y0, x1, y1)
    if len(obstacles):
        fixed = np.concatenate([fixed] + [np.r_[np.subtract(c, np.divide(sz, 2)), np.add(c, np.divide(sz, 2))][None]
                                          for c, sz in obstacles])

    def cost(C, half, others):
        """每个候选框（中心 C）与 others 里各框的重叠面积之和；出界的记作无穷大。"""
        lo, hi = C - half - gap, C + half + gap
        ox = np.minimum(hi[:, None, 0], others[None, :, 2]) - np.maximum(lo[:, None, 0], others[None, :, 0])
        oy = np.minimum(hi[:, None, 1], others[None, :, 3]) - np.maximum(lo[:, None, 1], others[None, :, 1])
        area = (np.clip(ox, 0, None) * np.clip(oy, 0, None)).sum(axis=1)
        if bounds is not None:
            x0, y0, x1, y1 = bounds
            outside = (C[:, 0] - half[0] < x0) | (C[:, 0] + half[0] > x1) | (C[:, 1] - half[1] < y0) | \
                      (C[:, 1] + half[1] > y1)
            area[outside] = np.inf
        return area

    placed = np.empty((0, 4))
    centers, moved, overlapping = [], [], False
    for i in range(len(A)):
        half = S[i] / 2
        others = np.concatenate([np.delete(fixed, i, axis=0), placed])
        C = P0[i][None]
        area = cost(C, half, others)
        if area[0] > 0:                                              # 默认位置放不下，才绕着点一圈圈找
            order = np.argsort(-(unit @ (P0[i] - A[i])), kind="stable")  # 离默认方向近的方向先试
            C = np.concatenate([C] + [A[i] + unit[order] * r + square[order] * half for r in rings])
            area = np.r_[area, cost(C[1:], half, others)]
        free = np.flatnonzero(area == 0)
        k = int(free[0]) if free.size else int(np.argmin(area))
        overlapping |= not free.size
        centers.append((float(C[k, 0]), float(C[k, 1])))
        moved.append(k != 0)
        placed = np.concatenate([placed, np.r_[C[k] - half, C[k] + half][None]])
    return centers, moved, overlapping


def scatter_chart(points, labels, *, highlight: dict | None = None, arrows=(), title: str = "",
                  width: int = 520, height: int = 380) -> str:
    """带文字标注的散点图 SVG：points 形状 (n, 2)，labels 为 n 个标签。

    highlight 为 {标签: 颜色}（被选中的词、近邻等）；arrows 为 [(起点标签, 终点标签, 颜色), ...]。
    标签默认写在点的右上方；会压住别的标签、点或标题时，用 place_labels 换到附近的空地，并用细灰线连回它的点。
    """
    pts = [(float(x), float(y)) for x, y in points]
    labels = [str(s) for s in labels]
    if not pts or len(pts) != len(labels):
        raise ValueError(f"points 与 labels 必须非空且一样多，收到 {len(pts)} 和 {len(labels)}")
    if not all(math.isfinite(v) for p in pts for v in p):
        raise ValueError("points 里有非有限值（inf/NaN）")
    highlight = highlight or {}
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    pad = 30
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y0, y1 = min(ys), max(ys) if max(ys) > min(ys) else min(ys) + 1

    def px(x):
        return pad + (x - x0) / (x1 - x0) * (width - 2 * pad)

    def py(y):
        return 28 + (y1 - y) / (y1 - y0) * (height - 28 - pad)

    e = html.escape
    pos = {lab: (px(x), py(y)) for lab, (x, y) in zip(labels, pts)}
    # 标签框：文字的左下角在点的右上方 (x + 6, y − 4)，框的中心在基线上方 4 像素；被选中的词先挑位置
    anchors = [pos[lab] for lab in labels]
    sizes = [(text_width(lab, 12) * (1.08 if lab in highlight else 1.0), 14.0) for lab in labels]
    start = [(x + 6 + w / 2, y - 8) for (x, y), (w, _) in zip(anchors, sizes)]
    order = sorted(range(len(labels)), key=lambda i: labels[i] not in highlight)
    title_box = [((width / 2, 10.0), (text_width(title, 13) + 8, 16.0))] if title else []
    got, moved, _ = place_labels([anchors[i] for i in order], [sizes[i] for i in order], [start[i] for i in order],
                                 obstacles=title_box, point_size=8.0, bounds=(0, 0, width, height), gap=1.0)
    placed, far = [None] * len(labels), [False] * len(labels)
    for i, c, m in zip(order, got, moved):
        placed[i], far[i] = c, m
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="font-family:sans-serif;font-size:12px;max-width:100%;height:auto">',
           '<defs><marker id="arrowhead" markerWidth="8" markerHeight="6" refX="7" refY="3" orient="auto">'
           '<path d="M0,0 L8,3 L0,6 z" fill="#555"/></marker></defs>',
           f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" font-size="13">{e(title)}</text>']
    for a, b, color in arrows:
        if a in pos and b in pos:
            (xa, ya), (xb, yb) = pos[a], pos[b]
            out.append(f'<line x1="{xa:.1f}" y1="{ya:.1f}" x2="{xb:.1f}" y2="{yb:.1f}" stroke="{color}" '
                       f'stroke-width="1.5" marker-end="url(#arrowhead)"/>')
    for (x, y), (cx, cy), (w, h), m in zip(anchors, placed, sizes, far):
        if m:                                            # 标签离开了默认位置：细灰线从点连到标签框最近的地方
            lx, ly = min(max(x, cx - w / 2), cx + w / 2), min(max(y, cy - h / 2), cy + h / 2)
            out.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{lx:.1f}" y2="{ly:.1f}" stroke="#aaa" stroke-width="0.8"/>')
    for lab, (x, y), (cx, cy), (sx, sy) in zip(labels, anchors, placed, start):
        dx, dy = cx - sx, cy - sy                        # 标签挪了多少（留在默认位置时是 0）
        on = lab in highlight
        color, r = highlight.get(lab, "#888"), 5 if on else 3
        weight = ' font-weight="bold"' if on else ""
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"/>'
                   f'<text x="{x + 6 + dx:.1f}" y="{y - 4 + dy:.1f}" fill="{"#000" if on else "#555"}"{weight}>'
                   f'{e(lab)}</text>')
    out.append("</svg>")
    return "".join(out)


def _value_formatter(fmt):
    """fmt 可以是格式串（'{:.2f}'）、函数（数 → 文字）或空串（不标数值）。"""
    if callable(fmt):
        return fmt
    return (lambda v: fmt.format(v)) if fmt else None


def bar_layout(labels, series: dict, *, ymax: float | None = None, fmt="{:.2f}", width: int = 460,
               height: int = 240, value_size: int = 9) -> dict:
    """分组条形图的几何（bar_chart 按它画；测试用它检查数值标注互不重叠、不出画布）。

    ymax=None 时纵轴按数据缩放到盖过最大值的下一个“好看”刻度。柱顶数值标注：放得下就横着写，
    放不下就竖着写（占一个字高的宽度），柱子窄到连竖排都放不下时不标（数值仍在鼠标悬停提示里）。
    标注要占的高度从绘图区顶部预留出来，所以最高的柱子上的数字也不会压到图例。
    返回 {'top', 'ticks', 'plot': (left, y_top, pw, ph), 'bars': [...], 'labels': [...], 'legend': [...],
    'value_mode': 'horizontal' | 'vertical' | 'narrow'（放不下）| 'none'（不标）}；labels 里每项有 text、x、y、rotate 和外框 box=(x0, y0, x1, y1)。
    """
    labels = [str(s) for s in labels]
    _check_series(labels, series, "labels")
    for name, vals in series.items():
        if not all(math.isfinite(float(v)) for v in vals):
            raise ValueError(f"series[{name!r}] 里有非有限值")
    data_max = max(max(float(v) for v in vals) for vals in series.values())
    if ymax is not None:
        top = float(ymax)
    elif data_max > 0:
        ticks = _ticks(0, data_max, 4)
        step = ticks[1] - ticks[0] if len(ticks) > 1 else data_max
        top = math.ceil(data_max / step - 1e-9) * step
    else:
        top = 0.0
    top = top if top > 0 else 1.0
    ticks = _ticks(0, top, 4)
    fmt_v = _value_formatter(fmt)
    texts = [[fmt_v(float(v)) if fmt_v and float(v) > 0 else "" for v in vals] for vals in series.values()]
    left, right, head, bottom = 44, 10, 38, 36
    left = max(left, math.ceil(max(text_width(_tick_label(t)) for t in ticks) + 22))
    pw = width - left - right
    group = pw / len(labels)
    bw = group * 0.8 / len(series)
    widest = max((text_width(s, value_size) for row in texts for s in row if s), default=0.0)
    if not widest:
        mode, space = "none", 0.0
    elif widest <= bw:
        mode, space = "horizontal", value_size + 4.0
    elif bw >= value_size + 1:
        mode, space = "vertical", widest + 4.0
    else:  # 柱子太窄
        mode, space = "narrow", 0.0
    y_top = head + space
    ph = height - y_top - bottom
    bars, value_labels = [], []
    for k, (name, vals) in enumerate(series.items()):
        for i, v in enumerate(vals):
            h = max(0.0, min(float(v), top)) / top * ph
            x = left + i * group + group * 0.1 + k * bw
            y = y_top + ph - h
            bars.append({"series": str(name), "label": labels[i], "value": float(v), "x": x, "y": y,
                         "w": bw, "h": h, "color": PALETTE[k % len(PALETTE)]})
            s = texts[k][i]
            if not s or mode in ("none", "narrow"):
                continue
            tw = text_width(s, value_size)
            cx = x + bw / 2
            if mode == "horizontal":
                box = (cx - tw / 2, y - 2 - value_size, cx + tw / 2, y - 2)
                value_labels.append({"text": s, "x": cx, "y": y - 2, "rotate": False, "box": box})
            else:  # 竖排：从柱顶往上写，字的基线在柱子中线右侧
                bx = cx + value_size / 2 - 1
                box = (cx - value_size / 2, y - 2 - tw, cx + value_size / 2, y - 2)
                value_labels.append({"text": s, "x": bx, "y": y - 2, "rotate": True, "box": box})
    legend, lx = [], left + 6.0
    for k, name in enumerate(series):
        legend.append({"name": str(name), "x": lx, "color": PALETTE[k % len(PALETTE)]})
        lx += 14 + text_width(str(name)) + 16
    return {"top": top, "ticks": ticks, "plot": (left, y_top, pw, ph), "bars": bars, "labels": value_labels,
            "legend": legend, "value_mode": mode, "group": group}


def bar_chart(labels, series: dict, *, title: str = "", ylabel: str = "", xlabel: str = "",
              ymax: float | None = None, fmt="{:.2f}", tick_fmt=None, width: int = 460, height: int = 240) -> str:
    """分组条形图 SVG：series 为 {图例: 每个标签一个值}。例如“过滤前/过滤后”的下一词概率。

    ymax 固定纵轴上限；None（默认）时按数据缩放到盖过最大值的下一个“好看”刻度。
    值标在柱顶：fmt 为格式串或函数（数 → 文字），空串则不标；标注互不重叠（见 bar_layout）。
    tick_fmt 为刻度文字的函数，默认千位分隔、不用科学计数法。每根柱子带悬停提示（图例 · 标签：数值）。
    """
    lay = bar_layout(labels, series, ymax=ymax, fmt=fmt, width=width, height=height)
    labels = [str(s) for s in labels]
    left, y_top, pw, ph = lay["plot"]
    top, group = lay["top"], lay["group"]
    tick_fmt = tick_fmt or _tick_label
    fmt_v = _value_formatter(fmt) or fmt_number
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="font-family:sans-serif;font-size:11px;max-width:100%;height:auto">',
           f'<text x="{width / 2:.1f}" y="14" text-anchor="middle" font-size="13">{e(title)}</text>',
           f'<line x1="{left}" y1="{y_top + ph:.1f}" x2="{left + pw}" y2="{y_top + ph:.1f}" stroke="#333"/>']
    for t in lay["ticks"]:
        y = y_top + ph - t / top * ph
        out.append(f'<text class="ytick" x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{e(tick_fmt(t))}</text>'
                   f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#eee"/>')
    out.append(f'<text x="10" y="{y_top + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 10 {y_top + ph / 2:.1f})">{e(ylabel)}</text>')
    for item in lay["legend"]:
        out.append(f'<rect x="{item["x"]:.1f}" y="21" width="10" height="10" fill="{item["color"]}"/>'
                   f'<text class="legend" x="{item["x"] + 14:.1f}" y="30">{e(item["name"])}</text>')
    for b in lay["bars"]:
        tip = f'{b["series"]} · {b["label"]}：{fmt_v(b["value"])}'
        out.append(f'<rect x="{b["x"]:.1f}" y="{b["y"]:.1f}" width="{b["w"]:.1f}" height="{b["h"]:.1f}" '
                   f'fill="{b["color"]}"><title>{e(tip)}</title></rect>')
    for v in lay["labels"]:
        rot = f' transform="rotate(-90 {v["x"]:.1f} {v["y"]:.1f})"' if v["rotate"] else ""
        anchor = "start" if v["rotate"] else "middle"
        out.append(f'<text class="value" x="{v["x"]:.1f}" y="{v["y"]:.1f}" text-anchor="{anchor}" '
                   f'font-size="9"{rot}>{e(v["text"])}</text>')
    for i, lab in enumerate(labels):
        out.append(f'<text x="{left + (i + 0.5) * group:.1f}" y="{y_top + ph + 14:.1f}" text-anchor="middle">'
                   f'{e(lab)}</text>')
    if xlabel:
        out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 4}" text-anchor="middle">{e(xlabel)}</text>')
    if lay["value_mode"] == "narrow":
        out.append(f'<text x="{left + pw:.1f}" y="{y_top + 10:.1f}" text-anchor="end" fill="#555">'
                   '柱子太窄，数值见鼠标悬停提示</text>')
    out.append("</svg>")
    return "".join(out)
