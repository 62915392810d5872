"""画图工具（展示层）：让 matplotlib 正确显示中文，外加几个课程常用的小图。

字体的来源按顺序：pip 安装的 pylopdf-fonts-zh-cn（Noto Sans SC，随课程依赖安装，任何机器都有）
→ 系统里 fontconfig 知道的中文字体（Binder 的 apt.txt）→ Windows/macOS 自带的雅黑、苹方等。
拉丁字母仍用 DejaVu Sans，中文按字形回退到中文字体（matplotlib ≥ 3.6）。
配色：折线和条形按 Okabe–Ito 色盲友好配色（nlpbook.palette.PALETTE）循环，热力图默认 viridis；
setup_cjk_font() 同时把它设为 matplotlib 的默认颜色循环，所以 notebook 里直接用 plt 画的图也色盲友好。
不做的事：不改字体和颜色以外的全局样式，不引入 seaborn。
"""
from __future__ import annotations

import logging
import subprocess

import matplotlib

from ._checks import as_float_array, check_positive
from .palette import HEATMAP_CMAP, PALETTE

__all__ = ["CJK_FAMILIES", "PALETTE", "setup_cjk_font", "use_palette", "cjk_font", "bar", "heatmap", "line",
           "plain_ticks", "describe"]

CJK_FAMILIES = ("Noto Sans SC", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei",
                "Source Han Sans SC", "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC",
                "Arial Unicode MS")

_FONT: str | None = None


def _known_names():
    from matplotlib import font_manager
    return {f.name for f in font_manager.fontManager.ttflist}


def _add(path: str) -> None:
    from matplotlib import font_manager
    if path and path not in {f.fname for f in font_manager.fontManager.ttflist}:
        try:
            font_manager.fontManager.addfont(path)
        except (OSError, RuntimeError, ValueError):
            pass  # 读不了的字体文件：跳过


def _first_available():
    names = _known_names()
    return next((n for n in CJK_FAMILIES if n in names), None)


def use_palette() -> None:
    """把 matplotlib 的默认颜色循环设为 PALETTE、默认色图设为 viridis（色盲友好）。可重复调用。"""
    from cycler import cycler
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(PALETTE))
    matplotlib.rcParams["image.cmap"] = HEATMAP_CMAP


def find_cjk_font() -> str | None:
    """只查找、不启用：matplotlib 会用的中文字体族名（找不到为 None）。不画图，不改设置。"""
    if _FONT is not None:
        return _FONT
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    try:
        import pylopdf_fonts_zh_cn
        _add(str(pylopdf_fonts_zh_cn.sans_path()))
    except ImportError:
        pass
    found = _first_available()
    if found is None:  # matplotlib 的字体缓存看不到后装的系统字体：问 fontconfig
        try:
            out = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True,
                                 text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for line in out.splitlines():
            _add(line.strip().rstrip(":"))
        found = _first_available()
    return found


def setup_cjk_font() -> str | None:
    """注册并启用一个中文字体，返回其字体族名（找不到时返回 None，图中中文会显示为方框）。

    同时启用色盲友好的默认配色（use_palette）。可重复调用；字体只在第一次真正查找。
    不会往 stderr 打印任何信息。
    """
    global _FONT
    use_palette()
    if _FONT is not None:
        return _FONT
    found = find_cjk_font()
    if found is not None:
        matplotlib.rcParams["font.family"] = ["sans-serif", found]
        matplotlib.rcParams["axes.unicode_minus"] = False
        _FONT = found
    return found


def cjk_font() -> str | None:
    """当前使用的中文字体族名（会先调用 setup_cjk_font）。"""
    return setup_cjk_font()


def _fig(ax, figsize):
    """新建（或沿用）坐标轴。新建的图立刻从 pyplot 注销：由调用者返回的 Figure 只显示一次。"""
    import matplotlib.pyplot as plt
    setup_cjk_font()
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
        plt.close(fig)
    return ax.figure, ax


def bar(labels, values, *, ax=None, title: str = "", xlabel: str = "", ylabel: str = "",
        colors=None, fmt: str = "{:.3f}", figsize=(5, 2.8), tight_layout: bool = True):
    """带数值标注的条形图，返回 Figure。默认颜色 PALETTE[0]；colors 可给每根柱子一个颜色。

    tight_layout=False：不在每次调用时重排整张图（画多个子图时，最后自己调用一次 fig.tight_layout()，省时间）。
    """
    fig, ax = _fig(ax, figsize)
    ax.clear()
    bars = ax.bar([str(x) for x in labels], values, color=colors or PALETTE[0])
    for b, v in zip(bars, values):  # 负数的标注放在柱子下方
        ax.annotate(fmt.format(v), (b.get_x() + b.get_width() / 2, b.get_height()),
                    ha="center", va="bottom" if v >= 0 else "top", fontsize=9)
    if any(v < 0 for v in values):
        ax.axhline(0, color="#333", lw=0.8)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.spines[["top", "right"]].set_visible(False)
    if tight_layout:
        fig.tight_layout()
    return fig


def heatmap(matrix, row_labels, col_labels, *, ax=None, title: str = "", fmt: str = "{:.2f}",
            cmap: str = HEATMAP_CMAP, xlabel: str = "", ylabel: str = "", figsize=(4.5, 3.5),
            tight_layout: bool = True):
    """带数值标注的热力图（默认 viridis：色盲友好），返回 (Figure, 图像)。xlabel/ylabel 为坐标轴名。

    tight_layout=False：同 bar，画多个子图时只在最后重排一次。
    """
    import numpy as np
    fig, ax = _fig(ax, figsize)
    ax.clear()
    m = np.asarray(matrix, dtype=float)
    im = ax.imshow(m, cmap=cmap)
    ax.set_xticks(range(len(col_labels)), [str(c) for c in col_labels])
    ax.set_yticks(range(len(row_labels)), [str(r) for r in row_labels])
    mid = (np.nanmax(m) + np.nanmin(m)) / 2 if m.size else 0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            ax.text(j, i, fmt.format(m[i, j]), ha="center", va="center", fontsize=9,
                    color="black" if m[i, j] > mid else "white")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if tight_layout:
        fig.tight_layout()
    return fig, im


def line(xs, ys_by_label: dict, *, ax=None, title: str = "", xlabel: str = "", ylabel: str = "",
         figsize=(5, 3), logy: bool = False, yticks=None):
    """几条折线放在一张图上（Okabe–Ito 色盲友好配色），返回 Figure。logy=True 时纵轴取对数刻度。

    yticks：给定纵轴刻度（写成普通数字，见 plain_ticks），例如对数纵轴上想读出 58 和 63 的区别时。
    """
    fig, ax = _fig(ax, figsize)
    ax.clear()
    for k, (label, ys) in enumerate(ys_by_label.items()):
        ax.plot(xs, ys, marker="o", ms=3, label=label, color=PALETTE[k % len(PALETTE)])
    if logy:
        ax.set_yscale("log")
    if yticks is not None:
        plain_ticks(ax, yticks)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if len(ys_by_label) > 1:
        ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def plain_ticks(ax, values, axis: str = "y") -> None:
    """把坐标轴刻度设为给定的值，写成普通数字（60、1,000，不写 6×10¹），并关掉次刻度。

    对数坐标默认只在 10 的幂处标数字，58 和 63 落在同一段空白里读不出来；给出 [50, 60, 70, …] 就能读。
    坐标轴范围不变（仍按数据），范围外的刻度不画。
    教学位置：第 13.5 节（困惑度曲线）。例：plain_ticks(ax, [50, 60, 80, 100])
    """
    vals = as_float_array(values, "values", min_ndim=1).ravel().tolist()
    if not vals:
        raise ValueError("values 不能为空：至少给一个刻度值（须是有限的数）")
    if axis not in ("x", "y"):
        raise ValueError(f"axis 只能是 'x' 或 'y'，收到 {axis!r}")
    which = ax.yaxis if axis == "y" else ax.xaxis
    get_lim, set_lim = (ax.get_ylim, ax.set_ylim) if axis == "y" else (ax.get_xlim, ax.set_xlim)
    lim = get_lim()                             # 范围仍按数据定：落在范围外的刻度不画，也不撑大坐标轴
    which.set_minor_locator(matplotlib.ticker.NullLocator())
    (ax.set_yticks if axis == "y" else ax.set_xticks)(vals, [_num(v, 3, strip=True) for v in vals])
    set_lim(lim)


def _num(v: float, digits: int, strip: bool = False) -> str:
    """摘要里的数字：舍入后是整数的写成整数（千位分隔，不出现 -0）；其余保留 digits 位小数（|v| ≥ 100 时 1 位）。"""
    v = float(v)
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    if abs(v) < 1e15 and round(v, digits if abs(v) < 100 else 1) == round(v):   # 舍入后是整数：写成整数
        return f"{int(round(v)):,}"
    text = f"{v:,.1f}" if abs(v) >= 100 else f"{v:.{digits}f}"
    return text.rstrip("0").rstrip(".") if strip and "." in text else text


def _tick_texts(axis, positions) -> list[str]:
    """不必先画图就能拿到的刻度文字（类别轴、set_xticks 给的标签）。"""
    try:
        return [str(t) for t in axis.get_major_formatter().format_ticks(list(positions))]
    except (TypeError, ValueError, IndexError):     # 拿不到就用位置本身
        return [str(p) for p in positions]


def _labelled(axis) -> bool:
    """刻度是文字标签（类别轴或 set_xticks 给了标签），而不是自动的数值刻度。"""
    from matplotlib.ticker import LogFormatter, ScalarFormatter
    return not isinstance(axis.get_major_formatter(), (ScalarFormatter, LogFormatter))


def _describe_values(values, digits: int, max_items: int) -> str:
    vals = [_num(v, digits) for v in values]
    if len(vals) > 1 and len(set(vals)) == 1:
        return f"全为 {vals[0]}"
    if len(vals) <= max_items:
        return "、".join(vals)
    half = max_items // 2
    return "、".join(vals[:half]) + "、…、" + "、".join(vals[-half:])


def describe(fig, *, digits: int = 3, max_items: int = 8) -> str:
    """把一张 matplotlib 图画出的数字写成几行简短的文字（每个子图一段），供 notebook 打印。

    PNG 图片不参与输出核对，打印这段摘要后，图背后的数据一变，核对就会失败。
    折线：图例名、点数、横轴范围，纵轴的各点（多于 max_items 时只列首尾）和最小/最大；
    条形：每根柱子的标签和高度；热力图：形状、最小/最大/平均，坐标轴是文字标签时再加每行最大值所在的列。
    不写坐标轴范围和刻度（它们随 matplotlib 版本而变），颜色条不算子图。
    教学位置：各章图下的文字摘要。例：print(describe(line([0, 1], {"损失": [0.693, 0.5]})))
    → 「（无标题）」 / 损失：2 点，x 0…1；y 0.693、0.500
    """
    import numpy as np
    from matplotlib.container import BarContainer
    from matplotlib.figure import Figure
    if not isinstance(fig, Figure):
        raise TypeError(f"describe 需要 matplotlib 的 Figure，收到 {type(fig).__name__}")
    check_positive(digits, "digits", integer=True, allow_zero=True)
    if digits > 6:
        raise ValueError(f"digits 应在 0 到 6 之间，收到 {digits}")
    check_positive(max_items, "max_items", integer=True)
    if max_items < 2:
        raise ValueError(f"max_items 至少为 2（首尾各留一个），收到 {max_items}")
    lines = []
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        head = f"「{ax.get_title() or '（无标题）'}」"
        if ax.get_yscale() == "log":
            head += "（纵轴对数）"
        lines.append(head)
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        for c in bars:
            xs = [p.get_x() + p.get_width() / 2 for p in c.patches]
            labels = _tick_texts(ax.xaxis, xs)
            pairs = [f"{lab} {_num(p.get_height(), digits)}" for lab, p in zip(labels, c.patches)]
            if len(pairs) > max_items:
                half = max_items // 2
                pairs = pairs[:half] + ["…"] + pairs[-half:]
            lines.append("  条形：" + "，".join(pairs))
        for ln in ax.lines:
            if ln.get_transform() != ax.transData:      # axhline / axvline 之类的参考线
                continue
            x = np.asarray(ln.get_xdata(), dtype=float)
            y = np.asarray(ln.get_ydata(), dtype=float)
            if y.size == 0:
                continue
            name = ln.get_label()
            name = "折线" if name.startswith("_") else name
            fin = y[np.isfinite(y)]
            extra = (f"（最小 {_num(fin.min(), digits)}，最大 {_num(fin.max(), digits)}）"
                     if fin.size > 2 and fin.min() < fin.max() else "")
            lines.append(f"  {name}：{y.size} 点，x {_num(x.min(), digits)}…{_num(x.max(), digits)}；"
                         f"y {_describe_values(y, digits, max_items)}{extra}")
        for im in ax.images:
            m = np.asarray(im.get_array(), dtype=float)
            text = (f"  热力图 {m.shape[0]}×{m.shape[1]}：最小 {_num(np.nanmin(m), digits)}，"
                    f"最大 {_num(np.nanmax(m), digits)}，平均 {_num(np.nanmean(m), digits)}")
            if m.ndim == 2 and _labelled(ax.xaxis) and _labelled(ax.yaxis):
                cols = _tick_texts(ax.xaxis, range(m.shape[1]))
                rows = _tick_texts(ax.yaxis, range(m.shape[0]))
                pairs = [f"{r}→{cols[int(np.nanargmax(row))]}" for r, row in zip(rows, m)]
                if len(pairs) > max_items:
                    pairs = pairs[:max_items // 2] + ["…"] + pairs[-(max_items // 2):]
                text += "；每行最大处 " + "，".join(pairs)
            lines.append(text)
    return "\n".join(lines)
