"""把整门课程做成静态 HTML 网站（make site）：用 notebook 里保存的输出，不重新执行。

用法：python scripts/build_site.py [输出目录，默认 _site/]
每个 notebooks/*.ipynb 生成一页，另有 index.html（目录）。每页上下都有章节导航（上一章 / 目录 / 下一章）
和“在 Binder 中运行”的链接；指向其他 notebook 的相对链接改成对应的 .html；指向仓库里其他文件的
相对链接改成 GitHub 上的地址。图是 notebook 里保存的 PNG/SVG（中文字形已在图里）。
交互控件在静态页面里不能运行：控件单元显示一行说明，它上面的单元已静态展示了默认视图。
"""
from __future__ import annotations

import copy
import html
import re
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[1]
GITHUB_REPO = "nlpbook/nlp-from-scratch"
BRANCH = "main"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = ('<p class="nlpbook-widget-note" style="border:1px dashed #999;padding:6px 10px;color:#555">'
               "交互控件：在 JupyterLab 或 Binder 中运行可用</p>")
NAV_CSS = """<style>
.nlpbook-nav{display:flex;gap:1.2em;flex-wrap:wrap;align-items:center;padding:8px 16px;margin:0 0 8px;
  border-bottom:1px solid #ddd;font:14px/1.6 sans-serif;background:#fafafa}
.nlpbook-nav.bottom{border-top:1px solid #ddd;border-bottom:none;margin:16px 0 0}
.nlpbook-nav a{color:#0072B2;text-decoration:none}.nlpbook-nav .binder{margin-left:auto}
</style>"""


def binder_url(name: str) -> str:
    """某个 notebook 的 Binder 链接（与各章标题下的徽章相同）。"""
    return (f"https://mybinder.org/v2/gh/{GITHUB_REPO}/{BRANCH}?labpath="
            + quote(f"notebooks/{name}", safe=""))


def title_of(nb) -> str:
    """notebook 第一个一级标题（没有时用文件名）。"""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^#\s+(.+)$", cell.source, flags=re.M)
            if m:
                return m.group(1).strip()
    return ""


def strip_widgets(nb):
    """控件输出换成一行说明；去掉保存的控件状态（静态页面里没有内核，加载控件脚本只会显示错误）。"""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            if WIDGET_MIME in out.get("data", {}):
                out = nbformat.v4.new_output("display_data", data={"text/html": WIDGET_NOTE})
            outputs.append(out)
        cell.outputs = outputs
    return nb


def rewrite_link(url: str) -> str:
    """相对链接：notebook → .html；仓库里的其他文件 → GitHub 地址。绝对链接与页内锚点不变。"""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith(("#", "/")) or not parts.path:
        return url
    frag = f"#{parts.fragment}" if parts.fragment else ""
    path = parts.path
    if path.endswith(".ipynb") and "/" not in path:   # 另一章：链接到它的页面（章不存在时测试会发现）
        return path[:-6] + ".html" + frag
    target = (ROOT / "notebooks" / path).resolve()
    try:
        rel = target.relative_to(ROOT).as_posix()
    except ValueError:
        return url
    kind = "tree" if target.is_dir() else "blob"
    return f"https://github.com/{GITHUB_REPO}/{kind}/{BRANCH}/{quote(rel)}{frag}"


_ATTR = re.compile(r'(\s(?:href|src)=")([^"]*)(")')


def rewrite_links(body: str) -> str:
    return _ATTR.sub(lambda m: m.group(1) + html.escape(rewrite_link(html.unescape(m.group(2))), quote=True)
                     + m.group(3), body)


def nav(prev, nxt, name: str, where: str) -> str:
    e = html.escape
    items = [f'<a href="{e(prev[0])}">← 上一章：{e(prev[1])}</a>' if prev else "<span></span>",
             '<a href="index.html">目录</a>',
             f'<a href="{e(nxt[0])}">下一章：{e(nxt[1])} →</a>' if nxt else "<span></span>",
             f'<a class="binder" href="{e(binder_url(name))}">在 Binder 中运行</a>' if name else ""]
    return f'<nav class="nlpbook-nav {where}">{"".join(items)}</nav>'


def add_nav(page: str, top: str, bottom: str, title: str) -> str:
    page = re.sub(r"<title>.*?</title>", f"<title>{html.escape(title)}</title>", page, count=1, flags=re.S)
    page = page.replace("</head>", NAV_CSS + "\n</head>", 1)
    page = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + "\n" + top, page, count=1)
    i = page.rfind("</body>")
    return page[:i] + bottom + "\n" + page[i:]


def index_page(chapters: list[tuple[str, str, str]]) -> str:
    e = html.escape
    rows = "\n".join(f'<tr><td><a href="{e(page)}">{e(title)}</a></td>'
                     f'<td><a href="{e(binder_url(name))}">Binder</a></td></tr>'
                     for name, page, title in chapters)
    return f"""<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>从零开始的 NLP：从影评分类到 Transformer</title>
{NAV_CSS}
<style>body{{font:16px/1.7 sans-serif;max-width:860px;margin:0 auto;padding:0 16px}}
td{{padding:4px 12px 4px 0}} a{{color:#0072B2}}</style></head>
<body>
<h1>从零开始的 NLP：从影评分类到 Transformer</h1>
<p>这是课程的静态阅读版：页面里的数字和图都是 notebook 保存的输出。交互控件（滑块、下拉框等）
需要运行中的 Python，请在 JupyterLab 或 Binder 中打开对应章节使用。</p>
<p><a href="https://github.com/{GITHUB_REPO}">源代码与安装说明</a></p>
<table>
<tr><th align="left">章节</th><th align="left">在线运行</th></tr>
{rows}
</table>
</body></html>
"""


def _trusted(text) -> str:
    return text.decode() if isinstance(text, bytes) else str(text)


class SiteExporter(HTMLExporter):
    """HTMLExporter 去掉两步慢而对本课程无用的后处理（占导出时间的大半）：

    - 代码单元的高亮结果不再过 bleach 清洗：内容是本课程自己的 notebook，由 pygments 生成，可以信任；
    - 不再用 BeautifulSoup 重新解析整页（它只为补 img 的 alt 和 tabindex）：alt 由 add_alt_text 补上，
      写的是图下面的图注。nbconvert 内部接口变了时退回父类的做法。
    """

    def from_notebook_node(self, nb, resources=None, **kw):
        try:
            from nbconvert.exporters.templateexporter import TemplateExporter
            from nbconvert.filters.highlight import Highlight2HTML
            from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
            lang = nb.metadata.get("language_info", {})
            lexer = lang.get("pygments_lexer", lang.get("name", None))
            resources = self._init_resources(resources)
            self.register_filter("highlight_code", self.filters.get(
                "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
            self.register_filter("filter_data_type", WidgetsDataTypeFilter(
                notebook_metadata=self._nb_metadata, parent=self, resources=resources))
        except (ImportError, AttributeError, TypeError):
            return super().from_notebook_node(nb, resources, **kw)
        return TemplateExporter.from_notebook_node(self, nb, resources, **kw)


def make_exporter() -> HTMLExporter:
    """所有页面共用一个导出器。"""
    exporter = SiteExporter(template_name="lab")
    exporter.register_filter("clean_html", _trusted)
    return exporter


def figure_captions(nb) -> list[str]:
    """按顺序给出每个 PNG 输出的说明：紧跟在图后面的图注（“图 N.k　……”），没有图注时为通用说明。"""
    alts = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        nxt = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
        caption = ""
        if nxt is not None and nxt.cell_type == "markdown" and nxt.source.startswith("**图 "):
            caption = nxt.source.splitlines()[0].replace("**", "").strip()
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}):
                alts.append(caption or "notebook 输出的图")
    return alts


def add_alt_text(body: str, alts: list[str]) -> str:
    """给 notebook 输出的每张 PNG 图加上 alt（屏幕阅读器读出图注）。"""
    it = iter(alts)
    return re.sub(r'<img src="data:image/png;',
                  lambda m: f'<img alt="{html.escape(next(it, "notebook 输出的图"), quote=True)}" '
                            'src="data:image/png;', body)


def build(out_dir: Path, notebooks_dir: Path = ROOT / "notebooks") -> list[Path]:
    """生成网站，返回生成的页面路径（含 index.html）。"""
    paths = sorted(notebooks_dir.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"{notebooks_dir} 里没有 notebook")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    exporter = make_exporter()
    nbs = [nbformat.read(p, as_version=4) for p in paths]
    chapters = [(p.name, p.stem + ".html", title_of(nb) or p.stem) for p, nb in zip(paths, nbs)]
    written = []
    for k, (nb, (name, page, title)) in enumerate(zip(nbs, chapters)):
        body, _ = exporter.from_notebook_node(strip_widgets(nb))
        body = add_alt_text(rewrite_links(body), figure_captions(nb))
        prev = chapters[k - 1][1:] if k > 0 else None
        nxt = chapters[k + 1][1:] if k + 1 < len(chapters) else None
        body = add_nav(body, nav(prev, nxt, name, "top"), nav(prev, nxt, name, "bottom"), title)
        (out_dir / page).write_text(body, encoding="utf-8")
        written.append(out_dir / page)
    (out_dir / "index.html").write_text(index_page(chapters), encoding="utf-8")
    written.append(out_dir / "index.html")
    return written


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "_site"
    start = time.perf_counter()
    pages = build(out.resolve())
    print(f"已生成 {len(pages)} 个页面（{len(pages) - 1} 章 + 目录），用时 {time.perf_counter() - start:.1f} s："
          f"{out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
