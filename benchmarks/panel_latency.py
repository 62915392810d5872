"""量浏览器面板：每个控件“input → 视图改好”的中位数（阅读网站、JupyterLab、JupyterLab 里训练格运行时），以及页面的分量。

  python benchmarks/panel_latency.py              # 全部（JupyterLab 部分要几分钟：每个有面板的 notebook 都在浏览器里跑一遍）
  python benchmarks/panel_latency.py --site-only  # 只量网站（约 1 分钟）

预算（COURSE.md）：每次改动 ≤ 16 ms（一帧）；每章页面里嵌入的面板状态 ≤ 1 MB；整站 JavaScript ≤ 2 MB。
网站一栏：无头 Chromium 打开 make site 的页面（外网请求全部拦下），量 dispatch 事件 → 视图 DOM 改好并排好版的时间；
JupyterLab 两栏：tests/test_browser.py 在 NLPBOOK_PANEL_TIMINGS 下做同样的测量，先在内核空闲时，再在同一个内核跑
一段约 20 s 的训练时（面板不经过内核，所以照样能动）。是测量，不是断言。
每个控件来回拨两遍（12—16 次），取中位数。用机器的全部核量：浏览器、Jupyter 服务器和内核是三个进程，训练只占
一个核（BLAS 单线程）；把它们都挤在一个核上量的是操作系统怎么分时间片，不是面板。
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _latency import measure_panels  # noqa: E402

from nlpbook.widgets._client import PANEL_MIME  # noqa: E402

FRAME_MS, STATE_LIMIT, JS_LIMIT = 16.0, 1_000_000, 2_000_000


def panel_notebooks() -> list[Path]:
    out = []
    for p in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(p, as_version=4)
        if any(PANEL_MIME in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])):
            out.append(p)
    return out


def build_site(out: Path) -> None:
    spec = __import__("importlib.util").util.spec_from_file_location("build_site", ROOT / "scripts" / "build_site.py")
    mod = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.build(out)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def measure_site(site: Path, names: list[str]) -> list[dict]:
    from playwright.sync_api import sync_playwright
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    rows = []
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
        page = context.new_page()
        for name in names:
            page.goto(base + f"{name}.html")
            page.wait_for_selector(".nlpbook-site-panel[data-live]")
            rows += measure_panels(page, page.locator(".nlpbook-site-panel[data-live] > .nlpbook-panel"), "site", name)
        browser.close()
    server.shutdown()
    return rows


def measure_lab(names: list[str]) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "timings.json"
        env = dict(os.environ, NLPBOOK_PANEL_TIMINGS=str(out))
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:nbval", "--override-ini", "addopts=",
                        str(ROOT / "tests" / "test_browser.py"), "-k", " or ".join(names)], env=env, cwd=ROOT, check=False)
        return json.loads(out.read_text(encoding="utf-8")) if out.is_file() else []


def weights(site: Path, names: list[str]) -> list[tuple[str, int]]:
    rows = []
    for name in names:
        html = (site / f"{name}.html").read_text(encoding="utf-8")
        states = re.findall(r'<div class="nlpbook-site-panel"[^>]*><script type="application/json">(.*?)</script>', html, re.S)
        rows.append((name, sum(len(s.encode()) for s in states)))
    return rows


def main(argv: list[str]) -> int:
    names = [p.stem for p in panel_notebooks()]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "_site"
        build_site(site)
        rows = measure_site(site, names)
        page_weights = weights(site, names)
        bundle = (site / "_static" / "nlpbook-panels.js").stat().st_size + (site / "_static" / "nlpbook-panels.css").stat().st_size
        all_js = sum(f.stat().st_size for f in site.rglob("*.js"))
        mathjax = sum(f.stat().st_size for f in (site / "_static" / "mathjax").rglob("*.js"))
        search = (site / "searchindex.js").stat().st_size
    if "--site-only" not in argv:
        rows += measure_lab(names)
    table: dict[tuple, dict] = {}
    for r in rows:
        key = (r["notebook"].removesuffix(".ipynb"), f'{r["module"]} #{r["panel"]}', r["label"])   # 同一章可有两个面板
        table.setdefault(key, {})[r["where"]] = r["median_ms"]
    cols = ["site", "lab", "lab-training"]
    print("面板 × 控件：input → 视图改好（含排版）的中位数，毫秒（预算 16 ms）")
    print(f"  {'章':<18}{'面板（第几个）':<22}{'控件':<22}" + "".join(f"{c:>14}" for c in ("网站", "JupyterLab", "训练时")))
    fixed = sorted(k for k, v in table.items() if all(x is None for x in v.values()))
    for key in fixed:
        del table[key]
    for (nb, module, label), v in sorted(table.items()):
        cells = "".join(f"{v[c]:14.1f}" if v.get(c) is not None else f"{'—':>14}" for c in cols)
        bad = [c for c in cols if v.get(c) is not None and v[c] > FRAME_MS]
        ok &= not bad
        print(f"  {nb:<18}{module:<22}{label[:20]:<22}{cells}{'  超出一帧' if bad else ''}")
    for c in cols:
        vals = [v[c] for v in table.values() if v.get(c) is not None]
        if vals:
            print(f"  {c}: {len(vals)} 个控件，中位数 {statistics.median(vals):.1f} ms，最慢 {max(vals):.1f} ms")
    for nb, module, label in fixed:
        print(f"  不量：{nb} {module}「{label}」读者改不了（禁用，或只有一个选项），只是说明")
    print("\n页面里嵌入的面板状态（预算每页 ≤ 1 MB）：")
    for name, size in page_weights:
        ok &= size <= STATE_LIMIT
        print(f"  {name:<22}{size / 1024:8.1f} KB{'  超出预算' if size > STATE_LIMIT else ''}")
    ok &= bundle <= JS_LIMIT
    print(f"\n面板脚本与样式（整站一份 nlpbook-panels.js/.css）：{bundle / 1024:.1f} KB（预算 2 MB）")
    ok &= all_js <= JS_LIMIT
    print(f"整站的全部 JavaScript（磁盘上的全部 .js）：{all_js / 1e6:.2f} MB（预算 2 MB），"
          f"其中 MathJax {mathjax / 1e6:.2f} MB、搜索索引 {search / 1e6:.2f} MB"
          f"{'  超出预算' if all_js > JS_LIMIT else ''}")
    print("\n全部在预算内" if ok else "\n有超出预算的项目（见上）")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
