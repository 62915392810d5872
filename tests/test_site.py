"""阅读网站（make site）：Sphinx 严格构建（无警告），再在无头 Chromium 里打开页面检查，外网请求一律拦下。

检查：每个 notebook 一页且侧栏按课程顺序；站内链接不断、章与章的 .ipynb 链接指向页面；控件输出变成带运行链接的说明；
公式由随网站发布的 MathJax 渲染（每一页不剩原始 $…$ 或 \\(…\\)，不缺 MathJax 文件）；整站 JavaScript ≤ 2 MB；中文搜索能找到第 13 章；
Binder 与 JupyterHub（nbgitpuller）按钮指向这一章；axe-core 在目录页和两章里没有 serious/critical 问题。

需要 sphinx / myst-nb / sphinx-book-theme（pip 的 test 依赖）、npm 的 mathjax@3 与 axe-core（make install-test 装进
.venv/npm）、Debian 的 chromium 与 pip 的 playwright。缺少时跳过并说明；NLPBOOK_REQUIRE_BROWSER=1（CI）时改为失败。
"""
from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import sys
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import nbformat
import pytest

from _panels import PANELS, drive_client

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
PANEL_MIME = "application/vnd.nlpbook.panel+json"
HUB = "https://hub.example.edu"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
NPM = [Path(sys.prefix) / "npm" / "node_modules", ROOT / ".venv" / "npm" / "node_modules"]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_site = _load("build_site", ROOT / "scripts" / "build_site.py")
nbgitpuller_links = _load("nbgitpuller_links", ROOT / "scripts" / "nbgitpuller_links.py")


def _missing(reason: str):
    if os.environ.get("NLPBOOK_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def _npm_file(rel: str) -> Path | None:
    return next((d / rel for d in NPM if (d / rel).is_file()), None)


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


def parse(path: Path) -> Links:
    p = Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for module in ("sphinx", "myst_nb", "sphinx_book_theme"):
        if importlib.util.find_spec(module) is None:
            _missing(f"没有 {module}：pip install -e '.[test]'（或 make install-test）")
    if _npm_file("mathjax/es5/tex-chtml.js") is None:
        _missing("没有 MathJax 3：make install-test（npm install --prefix .venv/npm mathjax@3）")
    out = tmp_path_factory.mktemp("site") / "_site"
    start = time.perf_counter()
    build_site.build(out, hub_url=HUB, strict=True)        # -W --keep-going：任何警告都让构建失败
    print(f"\n网站构建用时 {time.perf_counter() - start:.0f} s")
    return out


# ---------- 不需要浏览器的检查 ----------

def test_every_notebook_has_a_page_in_course_order(site):
    names = [p.stem for p in NOTEBOOKS]
    assert names[0] == "00-guide" and names[-4:] == ["A-side-topics", "B-formulas", "C-glossary", "D-examples"]
    missing = [n for n in names if not (site / f"{n}.html").is_file()]
    assert not missing, f"缺少章节页面：{missing}"
    html = (site / "index.html").read_text(encoding="utf-8")
    nav = html[html.index("bd-docs-nav"):]
    order = [m for m in re.findall(r'class="reference internal" href="([^"#]+)\.html"', nav) if m in names]
    assert order[:len(names)] == names, f"侧栏顺序不对：{order}"
    for n in names:                                        # 每页都能下载自己的 .ipynb
        assert (site / "_sources" / f"{n}.ipynb").is_file(), n
        assert f'href="_sources/{n}.ipynb"' in (site / f"{n}.html").read_text(encoding="utf-8"), n


def test_no_broken_internal_link_and_no_ipynb_links(site):
    broken = []
    for page in sorted(site.glob("*.html")):
        links = parse(page)
        for tag, url in links.urls:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc:
                continue
            if not parts.path:
                frag = parts.fragment
                if frag and frag not in links.ids and unquote(frag) not in links.ids:
                    broken.append(f"{page.name}: <{tag}> #{unquote(frag)}")
                continue
            if not (page.parent / unquote(parts.path)).exists():
                broken.append(f"{page.name}: <{tag}> {url}")
            elif parts.path.endswith(".ipynb") and not parts.path.startswith("_sources/"):
                broken.append(f"{page.name}: 还是 .ipynb 链接 {url}")
    assert not broken, "站内链接有问题：\n" + "\n".join(broken)


def _widget_outputs(nb_path: Path) -> list[tuple[str, dict]]:
    """(单元格源代码, 输出的 data)：保存的输出里每个控件视图一项。"""
    nb = nbformat.read(nb_path, as_version=4)
    return [(c.source, o["data"]) for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if WIDGET_MIME in o.get("data", {})]


def test_panels_carry_their_state_and_other_widgets_become_a_note(site):
    """浏览器面板 → 带状态的容器（网站上在浏览器里搭起来）；其余控件（tqdm 进度条）→ 一行说明。"""
    for nb_path in NOTEBOOKS:
        outs = [d for _, d in _widget_outputs(nb_path)]
        panels = [d[PANEL_MIME] for d in outs if PANEL_MIME in d]
        plain = ["".join(d.get("text/plain", "")) for d in outs if PANEL_MIME not in d]
        n_notes = sum("it/s]" not in t for t in plain)          # 还没搬进浏览器的面板；其余是 tqdm 进度条
        text = (site / f"{nb_path.stem}.html").read_text(encoding="utf-8")
        found = re.findall(r'<div class="nlpbook-site-panel" data-module="([^"]+)">', text)
        assert found == [p["module"] for p in panels], nb_path.name
        notes = re.findall(r'<div class="nlpbook-widget-note">.*?</div>', text, flags=re.S)
        assert len(notes) == n_notes, nb_path.name
        hub = nbgitpuller_links.link(HUB, nb_path.name).replace("&", "&amp;")
        for note in notes:
            assert f"notebooks/{nb_path.name}" in note and hub in note, note
        assert WIDGET_MIME not in text and "unpkg.com" not in text and "require.min.js" not in text, nb_path.name
        assert "it/s]" not in text, f"{nb_path.name} 里还有保存的 0% 进度条"
        assert ("nlpbook-progress-note" in text) == (len(plain) > n_notes), nb_path.name
    bundle = (site / "_static" / "nlpbook-panels.js").read_text(encoding="utf-8")
    assert "export " not in bundle and "import(" not in bundle, "网站脚本必须是普通脚本（file:// 也能运行）"


def test_repo_links_and_badges_are_rewritten(site):
    conf = _load("site_conf", ROOT / "docs" / "site" / "conf.py")
    assert conf._repo_link("../docs/teaching.md") == \
        "https://github.com/nlpbook/nlp-from-scratch/blob/main/docs/teaching.md"
    assert conf._repo_link("12-attention.ipynb") == "12-attention.ipynb"
    assert conf._repo_link("https://example.org/a.ipynb") == "https://example.org/a.ipynb"
    for page in site.glob("*.html"):
        assert "badge_logo.svg" not in page.read_text(encoding="utf-8"), f"{page.name} 还引用外网的 Binder 徽章图"


def test_bad_hub_url_is_refused(site, tmp_path):
    with pytest.raises(build_site.BuildError, match="http:// 或 https://"):
        build_site.build(tmp_path / "out", hub_url="hub.example.edu")
    assert not (tmp_path / "out").exists()


# ---------- 浏览器里的检查 ----------

class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser_page(site):
    if not CHROMIUM:
        _missing("没有 Chromium：Debian/Ubuntu 上 sudo apt-get install chromium，再重跑测试")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("没有 playwright：pip install playwright（不需要 playwright install）")
    if _npm_file("axe-core/axe.min.js") is None:
        _missing("没有 axe-core：make install-test（npm install --prefix .venv/npm axe-core）")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    blocked, failed = [], []

    def route(r):
        if r.request.url.startswith(base) or r.request.url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", route)
        page = context.new_page()
        page.on("requestfailed", lambda r: failed.append(r.url) if r.url.startswith(base) else None)
        page.set_default_timeout(60_000)
        yield page, base, blocked, failed
        browser.close()
    server.shutdown()


def _math_state(page) -> dict:
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
    return page.evaluate("""() => {
      const art = document.querySelector('article.bd-article').cloneNode(true);
      art.querySelectorAll('pre, code, mjx-container, .output, script').forEach(e => e.remove());
      return {n: document.querySelectorAll('mjx-container').length, text: art.textContent};
    }""")


@pytest.mark.parametrize("name", [p.stem for p in NOTEBOOKS])
def test_math_renders_offline(browser_page, name):
    """每一页：公式全部由随站的 MathJax 渲染，没有 mjx-merror，也没有取不到的 MathJax 文件（网站只带用到的 TeX 扩展）。"""
    page, base, blocked, failed = browser_page
    seen = len(failed)
    page.goto(base + f"{name}.html")
    if not page.locator("script[src*='tex-chtml']").count():     # 没有公式的页面不加载 MathJax
        return
    st = _math_state(page)
    assert st["n"] >= (10 if name in ("13-transformer", "B-formulas") else 1), f"{name}：只渲染了 {st['n']} 个公式"
    raw = re.findall(r"\$[^$\n]{1,80}\$|\\\(.{1,80}?\\\)|\\\[.{1,80}?\\\]", st["text"])
    assert not raw, f"{name} 里还有没渲染的公式：{raw[:5]}"
    assert page.locator("mjx-merror").count() == 0, f"{name}：MathJax 报了公式错误"
    missing = [u for u in failed[seen:] if "mathjax" in u]
    assert not missing, f"MathJax 文件缺失（把扩展名加进 conf.py 的 MATHJAX_TEX_EXTENSIONS）：{missing}"


def test_mathjax_menu_offers_only_what_ships(browser_page):
    """网站不带 SVG 输出与无障碍探索器：菜单里这几项是禁用的，CHTML 可选。"""
    page, base, blocked, failed = browser_page
    page.goto(base + "13-transformer.html")
    _math_state(page)
    disabled = page.evaluate("""() => { const m = MathJax.startup.document.menu.menu;
      return Object.fromEntries([['Settings','Renderer','SVG'], ['Settings','Renderer','CHTML'],
        ['Accessibility','Activate'], ['Accessibility','Collapsible']].map(p => [p.join('/'), m.findID(...p).disabled])); }""")
    assert disabled == {"Settings/Renderer/SVG": True, "Settings/Renderer/CHTML": False,
                        "Accessibility/Activate": True, "Accessibility/Collapsible": True}, disabled


def test_site_javascript_fits_the_budget(site):
    """整站的 JavaScript ≤ 2 MB（磁盘上的全部 .js，不只是页面加载的）；主题的 fontawesome.js 不带，也没有页面引用它。"""
    sizes = {str(f.relative_to(site)): f.stat().st_size for f in site.rglob("*.js")}
    total = sum(sizes.values())
    biggest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    assert total <= 2_000_000, f"整站 JavaScript {total / 1e6:.2f} MB > 2 MB；最大的：{biggest}"
    assert not list(site.rglob("fontawesome.js*"))
    assert not [p.name for p in site.glob("*.html") if "fontawesome.js" in p.read_text(encoding="utf-8")]


def test_icons_render_without_the_icon_script(browser_page):
    """图标来自主题 CSS 里的 Font Awesome webfont：有字形、有宽度。"""
    page, base, blocked, failed = browser_page
    page.goto(base + "13-transformer.html")
    page.wait_for_load_state("load")
    page.evaluate("() => document.fonts.ready")
    icons = page.evaluate("""() => ['.fa-bars', '.fa-github', '.fa-rocket', '.fa-download'].map(sel => {
      const e = document.querySelector(sel);
      if (!e) return [sel, null, 0];
      return [sel, getComputedStyle(e, '::before').fontFamily, e.getBoundingClientRect().width]; })""")
    for sel, family, width in icons:
        assert family and "Font Awesome" in family and width > 0, f"图标 {sel} 没有显示：{family}, {width}"


@pytest.mark.parametrize("term", ["多头注意力", "位置编码"])
def test_chinese_search_finds_chapter_13(browser_page, term):
    page, base, blocked, failed = browser_page
    page.goto(base + f"search.html?q={term}")
    page.wait_for_selector("#search-results ul.search li", timeout=60_000)
    page.wait_for_function("() => !document.querySelector('#search-progress') || "
                           "!/Preparing|准备/.test(document.querySelector('#search-progress').textContent)")
    hits = page.eval_on_selector_all("#search-results ul.search li a",
                                     "els => els.map(e => e.getAttribute('href'))")
    pages = [urlsplit(h).path for h in hits]
    print(f"\n搜索“{term}”：{len(pages)} 条结果，前 5 条 {pages[:5]}")
    assert "13-transformer.html" in pages, f"搜索“{term}”没有找到第 13 章：{pages}"


def test_launch_buttons_point_at_this_chapter(browser_page):
    page, base, blocked, failed = browser_page
    page.goto(base + "13-transformer.html")
    binder = page.get_attribute('a.dropdown-item[href*="mybinder.org"]', "href")
    assert binder == ("https://mybinder.org/v2/gh/nlpbook/nlp-from-scratch/main"
                      "?urlpath=lab/tree/notebooks/13-transformer.ipynb")
    hub = page.get_attribute('a.dropdown-item[href*="git-pull"]', "href")
    expected = nbgitpuller_links.link(HUB, "13-transformer.ipynb")
    got, want = urlsplit(hub), urlsplit(expected)
    assert (got.scheme, got.netloc, got.path) == (want.scheme, want.netloc, want.path) == \
        ("https", "hub.example.edu", "/hub/user-redirect/git-pull")
    assert parse_qs(got.query) == parse_qs(want.query)
    assert parse_qs(got.query)["urlpath"] == ["lab/tree/nlp-from-scratch/notebooks/13-transformer.ipynb"]


def test_relative_link_to_another_chapter_resolves(browser_page):
    page, base, blocked, failed = browser_page
    page.goto(base + "13-transformer.html")
    page.click('article a.reference.internal[href="12-attention.html"] >> nth=0')
    page.wait_for_url(base + "12-attention.html*")
    assert "第 12 章" in page.inner_text("article h1")


PANEL_PAGES = sorted(p.stem for p in NOTEBOOKS if any(PANEL_MIME in d for _, d in _widget_outputs(p)))


@pytest.mark.parametrize("name", PANEL_PAGES)
def test_panels_move_on_the_site(browser_page, name):
    """网站上没有内核：每个浏览器面板都搭起来，PANELS 里对它的每个操作都让视图变（外网请求全部拦下）。"""
    page, base, blocked, failed = browser_page
    errors = []

    def on_error(err):
        errors.append(str(err))

    page.on("pageerror", on_error)
    page.goto(base + f"{name}.html")
    outs = _widget_outputs(ROOT / "notebooks" / f"{name}.ipynb")
    live = page.locator(".nlpbook-site-panel[data-live] > .nlpbook-panel")
    from playwright.sync_api import expect
    expect(live).to_have_count(sum(PANEL_MIME in d for _, d in outs))
    steps = [s for s in PANELS.get(f"{name}.ipynb", [])
             if not s.kernel and any(s.cell in src and PANEL_MIME in d for src, d in outs)]
    assert steps, f"{name}：PANELS 里没有对浏览器面板的操作"
    for step in steps:
        cell = page.locator("div.cell").filter(has=page.locator(".cell_input", has_text=step.cell))
        expect(cell, f"找不到源代码含「{step.cell}」的单元格").to_have_count(1)
        drive_client(page, cell.locator(".nlpbook-panel").first, step)
    page.remove_listener("pageerror", on_error)
    assert not errors, f"{name}.html 的脚本错误：{errors[:3]}"


@pytest.mark.parametrize("name", sorted({"index", "13-transformer", "B-formulas", *PANEL_PAGES}))
def test_axe_has_no_serious_violations(browser_page, name):
    """目录、两章，以及每个有浏览器面板的页面（面板搭好之后再查）。"""
    page, base, blocked, failed = browser_page
    page.goto(base + f"{name}.html")
    if name != "index" and page.locator("script[src*='tex-chtml']").count():   # 没有公式的页面（如 01-task）不加载 MathJax
        _math_state(page)
    if name in PANEL_PAGES:
        page.wait_for_selector(".nlpbook-site-panel[data-live]")
    page.add_script_tag(path=str(_npm_file("axe-core/axe.min.js")))
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    bad = [(v["id"], v["impact"], len(v["nodes"]), v["nodes"][0]["target"]) for v in result["violations"]
           if v["impact"] in ("serious", "critical")]
    print(f"\naxe {name}：{[(v['id'], v['impact'], len(v['nodes'])) for v in result['violations']]}")
    assert not bad, f"{name}.html 的 axe 严重问题：{json.dumps(bad, ensure_ascii=False)}"


def test_pages_make_no_outside_requests(browser_page):
    """放在最后：前面打开过的页面（目录、第 12、13 章、附录 B、搜索页）都不该去外网取东西。"""
    page, base, blocked, failed = browser_page
    page.goto(base + "index.html")
    page.wait_for_load_state("networkidle")
    assert not blocked, f"页面向外网发了请求（已拦下）：{sorted(set(blocked))[:10]}"
    assert not failed, f"站内文件加载失败：{sorted(set(failed))[:10]}"
