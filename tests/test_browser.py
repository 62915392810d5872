"""真浏览器里的课程：启动 JupyterLab（127.0.0.1，带 token），在无头 Chromium 中打开每个 notebook，
运行全部单元，检查没有报错/stderr、每个控件都渲染出来，并真的拖动一个滑块、改一个输入框。

需要 Debian 的 chromium（/usr/bin/chromium）和 pip 的 playwright（不要运行 `playwright install`）。
找不到 Chromium 时跳过并说明安装方法；设置 NLPBOOK_REQUIRE_BROWSER=1（.ci/run 会设置）则改为失败。
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
JS_DONE = """() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!nb) return false;
  const p = [...nb.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(e => e.textContent.trim());
  return nb.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]')
      || (p.length > 0 && p.every(t => /^\\[\\d+\\]:$/.test(t)));
}"""


def _missing_browser(reason: str):
    if os.environ.get("NLPBOOK_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not CHROMIUM:
        _missing_browser("没有 Chromium：Debian/Ubuntu 上 sudo apt-get install chromium，再重跑测试")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing_browser("没有 playwright：pip install playwright（不需要 playwright install）")
    work = tmp_path_factory.mktemp("lab")
    # 在清空输出的副本上运行：自动保存不会覆盖 nbval 的参照输出，"[n]:" 也能用来判断是否跑完
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nb.metadata.pop("widgets", None)
        for c in nb.cells:
            if c.cell_type == "code":
                c.outputs, c.execution_count = [], None
        nbformat.write(nb, work / path.name)
    settings = work / "cfg/lab/user-settings/@jupyterlab/apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(work / "cfg"), JUPYTER_RUNTIME_DIR=str(work / "rt"))
    log = open(work / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}", "--allow-root",
         "--LabApp.extension_manager=readonly"], env=env, stdout=log, stderr=subprocess.STDOUT)
    t0 = time.time()
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=1)
            break
        except OSError:
            if server.poll() is not None or time.time() - t0 > 90:
                server.kill()
                pytest.fail("JupyterLab 没有启动：\n" + (work / "lab.log").read_text()[-3000:])
            time.sleep(0.3)
    from playwright.sync_api import expect, sync_playwright
    expect.set_options(timeout=120_000)  # 首次打开 notebook 要等内核启动；机器忙时更慢
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser, f"http://127.0.0.1:{port}", token
        finally:
            browser.close()
            server.terminate()
            server.wait(timeout=30)
            log.close()


def _run_all(page, base, token, name):
    from playwright.sync_api import expect
    # 每个 notebook 用自己的工作区并清空（reset），否则 JupyterLab 会恢复上一个 notebook 的标签页，
    # “运行全部”可能作用在旧标签上
    workspace = "".join(ch for ch in name if ch.isalnum())
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{name}?token={token}&reset")
    nb = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(nb.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_be_visible()
    if page.locator(".jp-Dialog").count():
        page.locator(".jp-Dialog .jp-mod-accept").click()
    nb.locator(".jp-Cell").first.click()
    item = page.locator("li.lm-Menu-item[data-command='runmenu:run-all']")
    for _ in range(20):
        page.locator(".lm-MenuBar-item", has_text="Run").first.click()
        if "lm-mod-disabled" not in (item.get_attribute("class") or ""):
            break
        page.keyboard.press("Escape")
        time.sleep(0.5)
    item.click()
    page.wait_for_function(JS_DONE, timeout=240_000)
    expect(nb.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_be_visible(timeout=240_000)
    return nb


def _expected_widget_views(name: str) -> int:
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    return sum(WIDGET_MIME in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_in_jupyterlab(lab, path):
    from playwright.sync_api import expect
    browser, base, token = lab
    page = browser.new_page(viewport={"width": 1280, "height": 2000})
    page.set_default_timeout(90_000)
    try:
        nb = _run_all(page, base, token, path.name)
        errors = nb.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")
        assert errors.count() == 0, "错误或 stderr 输出：" + " | ".join(errors.all_inner_texts())[:3000]
        want = _expected_widget_views(path.name)
        # 每个顶层控件视图渲染成输出区里的一个 .jupyter-widgets 元素（而不是“Error displaying widget”或一直在加载）
        views = nb.locator(".jp-OutputArea-output > .jupyter-widgets")
        expect(views).to_have_count(want)
        broken = nb.get_by_text("Error displaying widget")
        assert broken.count() == 0, "有控件没能显示"
        if path.name == "01-task.ipynb":
            box = nb.locator(".widget-text input").first
            view = nb.locator(".widget-html").first
            box.fill("电影难看")
            expect(view).to_contain_text("判为 差评")
            box.fill("剧情精彩")
            expect(view).to_contain_text("判为 好评")
        if path.name == "04-learning.ipynb":
            slider = nb.locator(".widget-slider", has_text="学习率")
            readout = slider.locator(".widget-readout")
            before = readout.inner_text()
            summary = slider.locator("xpath=ancestor::div[contains(@class,'widget-vbox')][1]").locator(".widget-html")
            text_before = summary.inner_text()
            slider.locator(".noUi-handle").focus()
            for _ in range(5):
                page.keyboard.press("ArrowRight")
            expect(readout).not_to_have_text(before)
            expect(summary).not_to_have_text(text_before)
        if path.name == "13-transformer.ipynb":
            # 注意力浏览器：勾上“只看前文”，“它”这一行要说明它还看不到后面的词
            box = nb.locator(".widget-checkbox", has_text="只看前文（因果遮罩）").first
            panel = box.locator("xpath=ancestor::div[contains(@class,'widget-vbox')][1]")
            view = panel.locator(".widget-html").last
            expect(view).not_to_contain_text("还看不到")
            box.locator("input").check()
            expect(view).to_contain_text("还看不到后面的 3 个词")
        assert errors.count() == 0, "操作控件后出现错误：" + " | ".join(errors.all_inner_texts())[:3000]
    except Exception:
        shot = ROOT / "tests" / f"browser-failure-{path.stem}.png"
        page.screenshot(path=str(shot))
        raise
    finally:
        page.close()
