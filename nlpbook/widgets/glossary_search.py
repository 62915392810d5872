"""术语表的搜索框（附录 C）：输入一个词，表格只留下名字或解释里含有它的术语。

表格由纯函数 glossary_html 生成（notebook 里静态展示全表也用它），搜索本身是 glossary.search。
面板在浏览器里搜（js/glossary_search.js）：数据是整张术语表（每条的中文名、英文名、解释、章、notebook、来源），
匹配规则同 glossary.search——全角转半角（NFKC）、不区分大小写、去掉首尾空白后按子串查，
先列名字命中的、再列只有解释命中的，各自按术语表原顺序；高亮同 _highlight。
"""
from __future__ import annotations

import html
import re
import unicodedata

import traitlets

from ..glossary import GLOSSARY, chapter_label, notebook_for, search
from ._client import ClientPanel

HEADER = ("术语", "English", "解释", "在哪一章", "来源")
NOWRAP = ("", "", "", ";white-space:nowrap", ";white-space:nowrap")   # 章号、来源两列不折行
MARK = "#F0E442"  # Okabe–Ito 黄：高亮命中的文字
MAX_ROWS = 30     # 搜索框里最多列出这么多条：整张表（151 条）每次按键重排一遍要几十毫秒，全表在 C.1 静态地给出


def _highlight(text: str, query: str) -> str:
    """转义 text，并把其中（不区分大小写）出现的 query 包进 <mark>。"""
    q = unicodedata.normalize("NFKC", query).strip()   # 与 search 一致：全角字母按半角查
    if not q:
        return html.escape(text)
    parts = re.split(f"({re.escape(q)})", text, flags=re.IGNORECASE)
    return "".join(f"<mark style='background:{MARK};color:#000'>{html.escape(p)}</mark>" if i % 2
                   else html.escape(p) for i, p in enumerate(parts))


def glossary_html(query: str = "", chapter=None, max_rows: int | None = None) -> str:
    """搜索结果（query 为空时是全表）画成 HTML 表格：章号链接到该章的 notebook，命中的文字高亮。

    max_rows（可选）：至多列出这么多条，多出的在表下说明（条数仍按全部命中的计）。
    """
    terms = search(query, chapter=chapter)
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1):
        raise ValueError(f"max_rows 必须是正整数或 None，收到 {max_rows!r}")
    shown = terms if max_rows is None else terms[:max_rows]
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
    for t in shown:
        # 双引号：静态网站构建时按 href="…" 把 .ipynb 链接改写成 .html
        link = f'<a href="{html.escape(notebook_for(t.chapter))}">{chapter_label(t.chapter)}</a>'
        cells = (_highlight(t.zh, q), _highlight(t.en, q), _highlight(t.definition, q), link,
                 "课文附录 C" if t.in_text else "补充")
        rows.append("<tr>" + "".join(f"<td style='padding:2px 8px;text-align:left;vertical-align:top{nw}'>{c}</td>"
                                     for c, nw in zip(cells, NOWRAP)) + "</tr>")
    more = (f"<div>只列出了前 <b>{len(shown)}</b> 条（共 {len(terms)} 条）：再多打几个字缩小范围；"
            f"全表见本附录的 C.1 节。</div>" if len(shown) < len(terms) else "")
    return (f"<div>{summary}</div><table><thead><tr>{th}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>{more}")


class GlossarySearch(ClientPanel):
    """搜索框 + 结果表；在浏览器里筛选（js/glossary_search.js）。测试里设置 ``query``，读 ``fallback_html()``。

    ``data["terms"]``：[[中文名, English, 解释, 章的写法, notebook 文件名, 是否课文自带], …]，按术语表原顺序。
    表里至多列出 MAX_ROWS 条（多出的在表下说明，条数仍按全部命中的计）；整张表在附录 C.1 里静态给出。
    阅读网站上（没有内核）章号链接指向 .html 页面，JupyterLab 里指向 .ipynb。
    """

    module = "glossary_search"
    controls = ("query",)
    query = traitlets.Unicode("注意力").tag(sync=True)

    def __init__(self, query: str = "注意力"):
        if not isinstance(query, str):
            raise TypeError(f"query 必须是字符串，收到 {type(query).__name__}：{query!r}")
        terms = [[t.zh, t.en, t.definition, chapter_label(t.chapter), notebook_for(t.chapter), t.in_text]
                 for t in GLOSSARY]
        super().__init__(query=query, data={"terms": terms, "header": list(HEADER), "mark": MARK, "max_rows": MAX_ROWS})

    def fallback_html(self) -> str:
        return glossary_html(self.query, max_rows=MAX_ROWS)
