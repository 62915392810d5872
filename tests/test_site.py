"""静态网站（make site）：每个 notebook 一页、导航与 Binder 链接齐全、站内链接都不断。"""
import importlib.util
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

_spec = importlib.util.spec_from_file_location("build_site", ROOT / "scripts" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("href", "src") and value is not None:
                self.urls.append((tag, value))
            if key == "id" and value:
                self.ids.add(value)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "_site"
    build_site.build(out)
    return out


def parse(path: Path) -> Links:
    p = Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_every_notebook_has_a_page_and_the_index_links_them_all(site):
    assert NOTEBOOKS
    missing = [p.name for p in NOTEBOOKS if not (site / f"{p.stem}.html").is_file()]
    assert not missing, f"缺少章节页面：{missing}"
    index = {u for _, u in parse(site / "index.html").urls}
    assert {f"{p.stem}.html" for p in NOTEBOOKS} <= index


def test_no_broken_internal_link(site):
    broken = []
    for page in sorted(site.glob("*.html")):
        links = parse(page)
        for tag, url in links.urls:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc:
                continue                                  # 外部链接、data: 图片
            if not parts.path:                            # 页内锚点
                frag = parts.fragment                     # 浏览器先按原样、再按解码后的文字找 id
                if frag and frag not in links.ids and unquote(frag) not in links.ids:
                    broken.append(f"{page.name}: <{tag}> #{unquote(parts.fragment)}")
                continue
            if not (page.parent / unquote(parts.path)).exists():
                broken.append(f"{page.name}: <{tag}> {url}")
    assert not broken, "站内链接指向不存在的页面：\n" + "\n".join(broken)


def test_navigation_binder_link_and_no_ipynb_links(site):
    pages = [site / f"{p.stem}.html" for p in NOTEBOOKS]
    for k, (nb_path, page) in enumerate(zip(NOTEBOOKS, pages)):
        urls = [u for _, u in parse(page).urls]
        assert "index.html" in urls, page.name
        if k > 0:
            assert pages[k - 1].name in urls, f"{page.name} 没有“上一章”"
        if k + 1 < len(pages):
            assert pages[k + 1].name in urls, f"{page.name} 没有“下一章”"
        assert build_site.binder_url(nb_path.name) in urls, f"{page.name} 的导航栏没有“在 Binder 中运行”"
        relative = [u for u in urls if not urlsplit(u).scheme and urlsplit(u).path.endswith(".ipynb")]
        assert not relative, f"{page.name} 里还有 .ipynb 相对链接：{relative}"


def test_figures_kept_and_widgets_become_a_note(site):
    for nb_path in NOTEBOOKS:
        nb = nbformat.read(nb_path, as_version=4)
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
        n_png = sum("image/png" in o.get("data", {}) for o in outputs)
        n_widgets = sum(WIDGET_MIME in o.get("data", {}) for o in outputs)
        text = (site / f"{nb_path.stem}.html").read_text(encoding="utf-8")
        assert text.count('src="data:image/png;') == n_png, nb_path.name
        assert text.count("交互控件：在 JupyterLab 或 Binder 中运行可用") == n_widgets, nb_path.name
        assert WIDGET_MIME not in text and "embed-amd.js" not in text, nb_path.name


def test_link_rewriting():
    assert build_site.binder_url("02-tokens.ipynb") == \
        "https://mybinder.org/v2/gh/nlpbook/nlp-from-scratch/main?labpath=notebooks%2F02-tokens.ipynb"
    assert build_site.rewrite_link("02-tokens.ipynb") == "02-tokens.html"
    assert build_site.rewrite_link("02-tokens.ipynb#2.1") == "02-tokens.html#2.1"
    assert build_site.rewrite_link("https://example.org/a.ipynb") == "https://example.org/a.ipynb"
    assert build_site.rewrite_link("#小练习") == "#小练习"
    assert build_site.rewrite_link("../nlpbook/viz.py") == \
        "https://github.com/nlpbook/nlp-from-scratch/blob/main/nlpbook/viz.py"
