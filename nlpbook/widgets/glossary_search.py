"""术语表的搜索框（附录 C）：输入一个词，表格只留下名字或解释里含有它的术语。

表格由纯函数 glossary_html 生成（notebook 里静态展示全表也用它），搜索本身是 glossary.search。
"""
from __future__ import annotations

import html
import re
import unicodedata

import ipywidgets as W

from ..glossary import chapter_label, notebook_for, search
from ._base import Panel

HEADER = ("术语", "English", "解释", "在哪一章", "来源")
NOWRAP = ("", "", "", ";white-space:nowrap", ";white-space:nowrap")   # 章号、来源两列不折行
MARK = "#F0E442"  # Okabe–Ito 黄：高亮命中的文字


def _highlight(text: str, query: str) -> str:
    """转义 text，并把其中（不区分大小写）出现的 query 包进 <mark>。"""
    q = unicodedata.normalize("NFKC", query).strip()   # 与 search 一致：全角字母按半角查
    if not q:
        return html.escape(text)
    parts = re.split(f"({re.escape(q)})", text, flags=re.IGNORECASE)
    return "".join(f"<mark style='background:{MARK};color:#000'>{html.escape(p)}</mark>" if i % 2
                   else html.escape(p) for i, p in enumerate(parts))


def glossary_html(query: str = "", chapter=None) -> str:
    """搜索结果（query 为空时是全表）画成 HTML 表格：章号链接到该章的 notebook，命中的文字高亮。"""
    terms = search(query, chapter=chapter)
    where = "" if chapter is None else f"（只看{chapter_label(chapter)}）"
    q = query.strip()
    if q:
        summary = f"搜索“{html.escape(q)}”{html.escape(where)}：找到 <b>{len(terms)}</b> 条"
    else:
        summary = f"全部术语{html.escape(where)}：<b>{len(terms)}</b> 条"
    if not terms:
        return f"<div>{summary}。换一个词试试，或清空搜索框看全表。</div>"
    th = "".join(f"<th style='padding:2px 8px;text-align:left'>{h}</th>" for h in HEADER)
    rows = []
    for t in terms:
        # 双引号：静态网站构建时按 href="…" 把 .ipynb 链接改写成 .html
        link = f'<a href="{html.escape(notebook_for(t.chapter))}">{chapter_label(t.chapter)}</a>'
        cells = (_highlight(t.zh, q), _highlight(t.en, q), _highlight(t.definition, q), link,
                 "课文附录 C" if t.in_text else "补充")
        rows.append("<tr>" + "".join(f"<td style='padding:2px 8px;text-align:left;vertical-align:top{nw}'>{c}</td>"
                                     for c, nw in zip(cells, NOWRAP)) + "</tr>")
    return (f"<div>{summary}</div><table><thead><tr>{th}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


class GlossarySearch(Panel):
    """搜索框 + 结果表。测试里设置 ``text.value``，``view.value`` 随之改变。"""

    def __init__(self, query: str = "注意力"):
        self.text = W.Text(value=query, description="搜索：", placeholder="中文、英文或解释里的字词",
                           layout=W.Layout(width="60%"), continuous_update=True)
        self.view = W.HTML()
        self.watch([self.text])
        self.update()
        self.widget = W.VBox([self.text, self.view])

    def update(self) -> None:
        self.view.value = glossary_html(self.text.value)
