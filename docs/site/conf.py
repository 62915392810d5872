"""课程阅读网站的 Sphinx 配置（Sphinx + myst-nb + sphinx-book-theme）。由 scripts/build_site.py 调用，不单独用。

- 不执行 notebook：页面用 notebook 里保存的输出（nb_execution_mode = "off"）。
- 数学公式用随网站一起发布的 MathJax 3（npm 包；只复制页面会取的部分进 _static/mathjax），离线也能显示。
- 整站 JavaScript ≤ 2 MB：主题的 fontawesome.js 不带（图标来自主题 CSS 里的 webfont），MathJax 不带用不到的组件。
- 中文全文搜索：html_search_language = "zh"（用 jieba 分词），术语表里的词加进 jieba 词典，
  查询一侧由 _static/cjk-search.js 切分。
- 每页右上角：下载 .ipynb、在 Binder 中运行；设置了班级 JupyterHub 地址时，再加“在 JupyterHub 中运行”
  （nbgitpuller 链接）。hub 地址只在一处设置：环境变量 NLPBOOK_HUB_URL（build_site.py --hub-url 也是设它）。
- 交互面板（nlpbook 的 ClientPanel）：保存的输出里有面板状态（application/vnd.nlpbook.panel+json），
  页面里换成带这份状态的容器，由随网站发布的 _static/nlpbook-panels.js（js/ 里的面板模块 + 加载器，普通脚本，
  离线、file:// 都能运行）在浏览器里搭起来——不需要内核。其他控件输出（tqdm 进度条）换成一行说明。
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]



def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


from nlpbook.widgets import _client  # noqa: E402  面板模块与网站脚本（js/）只在包里写一次

build_site = _script("build_site")                # 仓库与分支只在 build_site.py 里写一次
nbgitpuller_links = _script("nbgitpuller_links")  # JupyterHub 链接与 scripts/nbgitpuller_links.py 打印的相同
REPO = f"https://github.com/{build_site.GITHUB_REPO}"
BRANCH = build_site.BRANCH
BINDER = "https://mybinder.org"
HUB_URL = os.environ.get("NLPBOOK_HUB_URL", "").strip().rstrip("/")   # 班级 JupyterHub，空 = 不显示该按钮
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
PANEL_MIME = _client.PANEL_MIME
PROGRESS = re.compile(r"\d+%\|.*it/s\]")          # tqdm 进度条控件的 text/plain
PROGRESS_NOTE = '<p class="nlpbook-progress-note">（训练进度条：在 Jupyter 里运行时显示）</p>'
BADGE = re.compile(r"^\[!\[[^\]]*\]\(https://mybinder\.org/badge_logo\.svg\)\]\([^)]*\)[ \t]*$", re.M)

if HUB_URL:
    nbgitpuller_links.link(HUB_URL, "00-guide.ipynb", REPO, BRANCH)      # 地址格式不对时在这里就报错


def _mathjax_dir() -> Path:
    """npm 包 mathjax@3 的 es5 目录（make install-test 装在 .venv/npm）；可用 NLPBOOK_MATHJAX_DIR 指定。"""
    candidates = [os.environ.get("NLPBOOK_MATHJAX_DIR", ""),
                  Path(sys.prefix) / "npm" / "node_modules" / "mathjax" / "es5",
                  ROOT / ".venv" / "npm" / "node_modules" / "mathjax" / "es5"]
    for c in candidates:
        if c and (Path(c) / "tex-chtml.js").is_file():
            return Path(c)
    raise FileNotFoundError("找不到 MathJax 3（npm 包 mathjax）：运行 make install-test，"
                            "或 npm install --prefix .venv/npm mathjax@3，或设置 NLPBOOK_MATHJAX_DIR")


MATHJAX = _mathjax_dir()

project = "从零开始的 NLP"
author = "nlpbook"
copyright = "nlpbook"
language = "zh_CN"
root_doc = "index"
extensions = ["myst_nb"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

# notebook：只用保存的输出
nb_execution_mode = "off"
nb_merge_streams = True
nb_render_markdown_format = "myst"   # Markdown 输出（如附录 D 的对照表）按 MyST 解析：表格、章链接都可用
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# 搜索：中文分词
html_search_language = "zh"
html_search_options = {"dict": ""}   # 构建时由 _write_search_words 生成在源目录里

# 数学：本地 MathJax 3。菜单里要再加载组件的项由 _static/mathjax-config.js 禁用（要写函数，放不进这里的 JSON）
mathjax_path = "mathjax/tex-chtml.js"
mathjax3_config = {"options": {"menuOptions": {"settings": {"assistiveMml": True, "explorer": False,
                                                            "collapsible": False, "renderer": "CHTML"}}}}
MATHJAX_TEX_EXTENSIONS = ("boldsymbol",)   # autoload 会去取的扩展：只带课程用到的（test_site 逐页查没有缺的）

html_theme = "sphinx_book_theme"
html_title = "从零开始的 NLP"
templates_path = ["_templates"]      # 只覆盖一个组件：搜索按钮（见模板里的说明）
html_static_path = ["_static"]
html_css_files = ["site.css", "nlpbook-panels.css"]
html_js_files = [("cjk-search.js", {"priority": 100}), ("mathjax-config.js", {"priority": 600}),
                 ("nlpbook-panels.js", {"defer": "defer"})]
html_sourcelink_suffix = ""          # 下载按钮给出 _sources/NN-name.ipynb 本身
html_last_updated_fmt = None
html_theme_options = {
    "repository_url": REPO,
    "repository_branch": BRANCH,
    "path_to_docs": "notebooks",
    "use_download_button": True,
    "use_repository_button": True,
    "use_fullscreen_button": False,
    "show_toc_level": 2,
    "navbar_persistent": [],         # 搜索框只放在左边栏（新版 pydata 主题默认在页头再放一个）
    "launch_buttons": {
        "binderhub_url": BINDER,
        "jupyterhub_url": HUB_URL,
        "notebook_interface": "jupyterlab",
    },
}


def binder_link(notebook: str) -> str:
    """与页面右上角 Binder 按钮相同的链接。"""
    org_repo = REPO.split("github.com/", 1)[1]
    return f"{BINDER}/v2/gh/{org_repo}/{BRANCH}?urlpath=lab/tree/notebooks/{quote(notebook)}"


def launch_links_md(notebook: str) -> str:
    """这一章的运行链接（Markdown）：Binder，设置了 hub 时再加 JupyterHub。"""
    links = [f"[在 Binder 中运行]({binder_link(notebook)})"]
    if HUB_URL:
        links.append(f"[在本班 JupyterHub 中运行]({nbgitpuller_links.link(HUB_URL, notebook, REPO, BRANCH)})")
    return "　·　".join(links)


def panel_html(spec: dict, fallback: str) -> str:
    """面板容器：保存的状态（JSON，放在 script 里，"</" 转义）+ 静态视图（脚本运行前、或不运行脚本时看到的）。"""
    state = json.dumps(spec, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return (f'<div class="nlpbook-site-panel" data-module="{spec["module"]}">'
            f'<script type="application/json">{state}</script>{fallback}</div>')


def widget_note_html(notebook: str) -> str:
    e = lambda s: s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    links = [f'<a href="{e(binder_link(notebook))}">在 Binder 中运行</a>']
    if HUB_URL:
        links.append(f'<a href="{e(nbgitpuller_links.link(HUB_URL, notebook, REPO, BRANCH))}">在本班 JupyterHub 中运行</a>')
    return ('<div class="nlpbook-widget-note"><p>交互控件：静态页面里不能拖动。上一个单元已显示默认视图；'
            f'要操作控件，请{"或".join(links)}。</p></div>')


def _repo_link(url: str) -> str:
    """notebook 里指向仓库其他文件的相对链接（如 ../docs/teaching.md）→ GitHub 地址。章与章的 .ipynb 链接不变。"""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", url) or re.fullmatch(r"[^/#]+\.ipynb(#.*)?", url):
        return url
    target = (ROOT / "notebooks" / url.split("#")[0]).resolve()
    try:
        rel = target.relative_to(ROOT).as_posix()
    except ValueError:
        return url
    frag = "#" + url.split("#", 1)[1] if "#" in url else ""
    return f"{REPO}/{'tree' if target.is_dir() else 'blob'}/{BRANCH}/{quote(rel)}{frag}"


def _html_link(url: str) -> str:
    """HTML 输出与 Markdown 里的原始 HTML 不经过 MyST 的链接解析：章链接 NN-name.ipynb → NN-name.html。"""
    m = re.fullmatch(r"([^/#:]+)\.ipynb(#.*)?", url)
    return f"{m.group(1)}.html{m.group(2) or ''}" if m else _repo_link(url)


def _html_links(text: str) -> str:
    return re.sub(r'(href=")([^"]*)(")', lambda m: m.group(1) + _html_link(m.group(2)) + m.group(3), text)


def prepare_notebook(app, docname: str, source: list[str]) -> None:
    """source-read：改写 notebook 的 JSON（只在内存里，notebooks/ 不动）。

    标题下的 Binder 徽章（外网图片）→ 文字运行链接；指向仓库文件的相对链接 → GitHub；
    HTML 里的章链接 → .html；控件输出 → 说明框（tqdm 进度条 → 一行说明，保存的是 0% 的初始状态）；
    去掉保存的控件元数据（否则 myst-nb 会从 CDN 加载控件脚本）。
    """
    if not app.env.doc2path(docname).name.endswith(".ipynb"):
        return
    nb = json.loads(source[0])
    name = docname + ".ipynb"
    nb.get("metadata", {}).pop("widgets", None)
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            text = BADGE.sub(lambda m: launch_links_md(name), text)
            text = re.sub(r"(\]\()([^)\s]+)(\))", lambda m: m.group(1) + _repo_link(m.group(2)) + m.group(3), text)
            cell["source"] = _html_links(text)
        elif cell["cell_type"] == "code":
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if PANEL_MIME in data:
                    fallback = _html_links("".join(data.get("text/html", "")))
                    out["data"] = {"text/html": panel_html(data[PANEL_MIME], fallback)}
                    out["metadata"] = {}
                elif WIDGET_MIME in data:
                    plain = "".join(data.get("text/plain", ""))
                    out["data"] = {"text/html": PROGRESS_NOTE if PROGRESS.search(plain) else widget_note_html(name)}
                    out["metadata"] = {}
                elif "text/html" in data:
                    data["text/html"] = _html_links("".join(data["text/html"]))
    source[0] = json.dumps(nb, ensure_ascii=False)


def _write_search_words(app) -> None:
    """jieba 用户词典：术语表（nlpbook.glossary）里的中文术语加上 search-words.txt，
    让“多头注意力”“位置编码”整词进索引（也保留“注意力”等子词）。"""
    import jieba
    jieba.setLogLevel(60)                                   # 不打印“Building prefix dict…”
    sys.path.insert(0, str(ROOT))
    try:
        from nlpbook.glossary import GLOSSARY
    finally:
        sys.path.pop(0)
    words = {t.zh for t in GLOSSARY}
    words |= {w for t in GLOSSARY for w in re.split(r"[（）()、/，\s]+", t.zh)}
    words |= {w.strip() for w in (HERE / "search-words.txt").read_text(encoding="utf-8").splitlines()}
    words = sorted(w for w in words if len(w) > 1 and re.search(r"[\u4e00-\u9fff]", w))
    path = Path(app.srcdir) / "_search_words.txt"
    path.write_text("".join(f"{w} 1000\n" for w in words), encoding="utf-8")
    app.config.html_search_options["dict"] = str(path)


def _copy_mathjax(app, exception) -> None:
    """只把页面会取的 MathJax 文件复制进网站：tex-chtml.js（含 TeX 输入、CHTML 输出、菜单、assistive MathML）、
    CHTML 的 woff 字体和 MATHJAX_TEX_EXTENSIONS。其余组件（SVG 输出、无障碍探索器、语音包）不带，菜单里对应的项
    由 mathjax-config.js 禁用。"""
    if exception is not None or app.builder.format != "html":
        return
    dest = Path(app.outdir) / "_static" / "mathjax"
    if dest.exists():
        shutil.rmtree(dest)
    fonts = Path("output") / "chtml" / "fonts" / "woff-v2"
    shutil.copytree(MATHJAX / fonts, dest / fonts)
    shutil.copy2(MATHJAX / "tex-chtml.js", dest / "tex-chtml.js")
    (dest / "input" / "tex" / "extensions").mkdir(parents=True)
    for name in MATHJAX_TEX_EXTENSIONS:
        shutil.copy2(MATHJAX / "input" / "tex" / "extensions" / f"{name}.js", dest / "input" / "tex" / "extensions")


def _drop_icon_script(app, exception) -> None:
    """主题的 fontawesome.js（1.5 MB，只为让用户加自定义 SVG 图标）不带：主题的 CSS 里已有 Font Awesome 的
    webfont 与全部图标类，页面上的图标照样显示。删掉文件，也删掉每页引用它的那一行。"""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for f in (out / "_static" / "scripts").glob("fontawesome.js*"):
        f.unlink()
    tag = re.compile(r'[ \t]*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>\n?')
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if tag.search(text):
            page.write_text(tag.sub("", text), encoding="utf-8")


def _write_panels(app, exception) -> None:
    """面板脚本：js/ 里的全部模块拼成一个普通脚本，样式一个 css（页面在 html_js_files / html_css_files 里引用）。"""
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    (static / "nlpbook-panels.js").write_text(_client.site_bundle(_client.modules()), encoding="utf-8")
    shutil.copy2(_client.JS_DIR / "panels.css", static / "nlpbook-panels.css")


def setup(app):
    app.connect("builder-inited", _write_search_words)
    app.connect("source-read", prepare_notebook)
    app.connect("build-finished", _copy_mathjax)
    app.connect("build-finished", _drop_icon_script)
    app.connect("build-finished", _write_panels)
    return {"parallel_read_safe": True}
