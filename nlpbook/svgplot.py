"""极简的 SVG 折线图：交互面板用它代替 matplotlib 重画，一次更新只要几毫秒。

输出是确定的字符串（坐标保留一位小数），放进 ipywidgets.HTML 即可；中文由浏览器的字体显示。
不做的事：不是通用画图库——只有折线、坐标轴、刻度和图例。
"""
from __future__ import annotations

import html
import math

from .palette import PALETTE  # Okabe–Ito，色盲友好（与 viz 共用）

__all__ = ["line_chart", "scatter_chart", "bar_chart", "PALETTE"]


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


def line_chart(xs, series: dict, *, title: str = "", xlabel: str = "", ylabel: str = "",
               width: int = 460, height: int = 260) -> str:
    """几条折线的 SVG。series 为 {图例: y 值列表}，长度都等于 xs；非有限值（inf/NaN）被截断并标出。"""
    xs = [float(x) for x in xs]
    _check_series(xs, series, "xs")
    finite = [float(y) for ys in series.values() for y in ys if math.isfinite(float(y))]
    if not finite:
        raise ValueError("series 里没有有限的数值可画")
    lo, hi = min(finite + [0.0]), max(finite)
    hi = hi if hi > lo else lo + 1
    left, right, top, bottom = 52, 12, 26, 40
    pw, ph = width - left - right, height - top - bottom
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        y = min(max(y, lo), hi) if math.isfinite(y) else hi
        return top + (hi - y) / (hi - lo) * ph

    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="font-family:sans-serif;font-size:11px">',
           f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" font-size="13">{e(title)}</text>',
           f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>']
    for t in _ticks(lo, hi):
        out.append(f'<text x="{left - 4}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>'
                   f'<line x1="{left}" y1="{py(t):.1f}" x2="{left + pw}" y2="{py(t):.1f}" stroke="#ddd"/>')
    for t in _ticks(x0, x1):
        out.append(f'<text x="{px(t):.1f}" y="{top + ph + 14}" text-anchor="middle">{t:g}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle">{e(xlabel)}</text>')
    out.append(f'<text x="12" y="{top + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 12 {top + ph / 2:.1f})">{e(ylabel)}</text>')
    for k, (name, ys) in enumerate(series.items()):
        color = PALETTE[k % len(PALETTE)]
        pts = " ".join(f"{px(x):.1f},{py(float(y)):.1f}" for x, y in zip(xs, ys))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{pts}"/>')
        out.append(f'<text x="{left + pw - 4}" y="{top + 12 + 14 * k}" text-anchor="end" fill="{color}">'
                   f'{e(str(name))}</text>')
        if any(not math.isfinite(float(y)) or float(y) > hi for y in ys):
            out.append(f'<text x="{left + 4}" y="{top + 12}" fill="#D55E00">有数值溢出，已截断</text>')
    out.append("</svg>")
    return "".join(out)


def scatter_chart(points, labels, *, highlight: dict | None = None, arrows=(), title: str = "",
                  width: int = 520, height: int = 380) -> str:
    """带文字标注的散点图 SVG：points 形状 (n, 2)，labels 为 n 个标签。

    highlight 为 {标签: 颜色}（被选中的词、近邻等）；arrows 为 [(起点标签, 终点标签, 颜色), ...]。
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
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="font-family:sans-serif;font-size:12px">',
           '<defs><marker id="arrowhead" markerWidth="8" markerHeight="6" refX="7" refY="3" orient="auto">'
           '<path d="M0,0 L8,3 L0,6 z" fill="#555"/></marker></defs>',
           f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" font-size="13">{e(title)}</text>']
    for a, b, color in arrows:
        if a in pos and b in pos:
            (xa, ya), (xb, yb) = pos[a], pos[b]
            out.append(f'<line x1="{xa:.1f}" y1="{ya:.1f}" x2="{xb:.1f}" y2="{yb:.1f}" stroke="{color}" '
                       f'stroke-width="1.5" marker-end="url(#arrowhead)"/>')
    for lab in labels:
        x, y = pos[lab]
        on = lab in highlight
        color, r = highlight.get(lab, "#888"), 5 if on else 3
        weight = ' font-weight="bold"' if on else ""
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"/>'
                   f'<text x="{x + 6:.1f}" y="{y - 4:.1f}" fill="{"#000" if on else "#555"}"{weight}>'
                   f'{e(lab)}</text>')
    out.append("</svg>")
    return "".join(out)


def bar_chart(labels, series: dict, *, title: str = "", ylabel: str = "", xlabel: str = "",
              ymax: float | None = None,
              fmt: str = "{:.2f}", width: int = 460, height: int = 240) -> str:
    """分组条形图 SVG：series 为 {图例: 每个标签一个值}。例如“过滤前/过滤后”的下一词概率。

    ymax 固定纵轴上限（拖动滑块时坐标不乱跳）；值标在柱顶（fmt 为空串则不标）。
    """
    labels = [str(s) for s in labels]
    _check_series(labels, series, "labels")
    for name, vals in series.items():
        if not all(math.isfinite(float(v)) for v in vals):
            raise ValueError(f"series[{name!r}] 里有非有限值")
    top = ymax if ymax is not None else max(max(float(v) for v in vals) for vals in series.values())
    top = top if top > 0 else 1.0
    left, right, head, bottom = 44, 10, 34, 36
    pw, ph = width - left - right, height - head - bottom
    group = pw / len(labels)
    bw = group * 0.8 / len(series)
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="font-family:sans-serif;font-size:11px">',
           f'<text x="{width / 2:.1f}" y="14" text-anchor="middle" font-size="13">{e(title)}</text>',
           f'<line x1="{left}" y1="{head + ph}" x2="{left + pw}" y2="{head + ph}" stroke="#333"/>']
    for t in _ticks(0, top, 4):
        y = head + ph - t / top * ph
        out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>'
                   f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#eee"/>')
    out.append(f'<text x="10" y="{head + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 10 {head + ph / 2:.1f})">{e(ylabel)}</text>')
    for k, (name, vals) in enumerate(series.items()):
        color = PALETTE[k % len(PALETTE)]
        out.append(f'<rect x="{left + 6 + 90 * k}" y="20" width="10" height="10" fill="{color}"/>'
                   f'<text x="{left + 20 + 90 * k}" y="29">{e(str(name))}</text>')
        for i, v in enumerate(vals):
            h = min(float(v), top) / top * ph
            x = left + i * group + group * 0.1 + k * bw
            out.append(f'<rect x="{x:.1f}" y="{head + ph - h:.1f}" width="{bw:.1f}" height="{h:.1f}" fill="{color}"/>')
            if fmt and float(v) > 0:
                out.append(f'<text x="{x + bw / 2:.1f}" y="{head + ph - h - 2:.1f}" text-anchor="middle" '
                           f'font-size="9">{fmt.format(float(v))}</text>')
    for i, lab in enumerate(labels):
        out.append(f'<text x="{left + (i + 0.5) * group:.1f}" y="{head + ph + 14}" text-anchor="middle">'
                   f'{e(lab)}</text>')
    if xlabel:
        out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 4}" text-anchor="middle">{e(xlabel)}</text>')
    out.append("</svg>")
    return "".join(out)
