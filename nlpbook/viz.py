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

from .palette import HEATMAP_CMAP, PALETTE

__all__ = ["CJK_FAMILIES", "PALETTE", "setup_cjk_font", "use_palette", "cjk_font", "bar", "heatmap", "line"]

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
        colors=None, fmt: str = "{:.3f}", figsize=(5, 2.8)):
    """带数值标注的条形图，返回 Figure。默认颜色 PALETTE[0]；colors 可给每根柱子一个颜色。"""
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
    fig.tight_layout()
    return fig


def heatmap(matrix, row_labels, col_labels, *, ax=None, title: str = "", fmt: str = "{:.2f}",
            cmap: str = HEATMAP_CMAP, xlabel: str = "", ylabel: str = "", figsize=(4.5, 3.5)):
    """带数值标注的热力图（默认 viridis：色盲友好），返回 (Figure, 图像)。xlabel/ylabel 为坐标轴名。"""
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
    fig.tight_layout()
    return fig, im


def line(xs, ys_by_label: dict, *, ax=None, title: str = "", xlabel: str = "", ylabel: str = "",
         figsize=(5, 3), logy: bool = False):
    """几条折线放在一张图上（Okabe–Ito 色盲友好配色），返回 Figure。logy=True 时纵轴取对数刻度。"""
    fig, ax = _fig(ax, figsize)
    ax.clear()
    for k, (label, ys) in enumerate(ys_by_label.items()):
        ax.plot(xs, ys, marker="o", ms=3, label=label, color=PALETTE[k % len(PALETTE)])
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if len(ys_by_label) > 1:
        ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig
