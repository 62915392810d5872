"""面板共用的 HTML 小片段（token 色块、表格）。"""
from __future__ import annotations

import html

# Tol 的浅色配色：色盲友好，黑字可读
PALETTE = ("#BBCCEE", "#CCEEFF", "#CCDDAA", "#EEEEBB", "#FFCCCC", "#DDDDDD")
BYTE_COLOR = "#BBBBBB"


def chip(text: str, sub: str = "", color: str = PALETTE[0], title: str = "") -> str:
    """一个带小标注的色块，例如 token 和它的编号。"""
    t = f' title="{html.escape(title)}"' if title else ""
    return (f'<span{t} style="display:inline-block;margin:2px;padding:2px 6px;border-radius:4px;'
            f'background:{color};color:#000;font-family:monospace">{html.escape(text)}'
            f'<sub style="margin-left:3px;color:#333">{html.escape(sub)}</sub></span>')


def table(header, rows) -> str:
    """简单的 HTML 表格（内容会转义）。"""
    th = "".join(f"<th style='padding:2px 8px'>{html.escape(str(h))}</th>" for h in header)
    trs = "".join("<tr>" + "".join(f"<td style='padding:2px 8px'>{html.escape(str(c))}</td>" for c in r)
                  + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"
