"""色盲友好的配色（Okabe–Ito）：matplotlib 的 viz 与纯文本的 svgplot 共用同一组颜色。

只有常量，不导入任何库。不做的事：不选热力图的连续色图（热力图用 viridis / cividis）。
"""
from __future__ import annotations

__all__ = ["PALETTE", "NAMES", "HEATMAP_CMAP"]

# Okabe & Ito (2008), “Color Universal Design”：红绿色弱的读者也能区分这 8 种颜色。
# 顺序：蓝、橙、绿、朱红、紫红、天蓝、黄、黑（黄色在白底上对比度低，放在后面）。
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
NAMES = ("蓝", "橙", "绿", "朱红", "紫红", "天蓝", "黄", "黑")
HEATMAP_CMAP = "viridis"
