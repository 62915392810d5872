"""真浏览器里的课程：启动 JupyterLab（127.0.0.1，带 token），在无头 Chromium 中打开每个 notebook，
运行全部单元，检查没有报错/stderr、每个控件都渲染出来，并真的操作每个交互面板的控件（PANELS 表）。

需要 Debian 的 chromium（/usr/bin/chromium）和 pip 的 playwright（不要运行 `playwright install`）。
找不到 Chromium 时跳过并说明安装方法；设置 NLPBOOK_REQUIRE_BROWSER=1（.ci/run 会设置）则改为失败。

机器很忙时的坑（都在 _run_all 里处理，见 issue 11）：
- 刚打开 notebook 时，工具栏已经显示“No Kernel”、执行指示器已经是 idle，但内核会话还没建立（JupyterLab
  先取 checkpoint，再读元数据里的内核偏好、启动内核；机器忙时这段空档有好几秒）。这时按“运行全部”，
  JupyterLab 会为每个代码单元格自己去启动内核：还没读到偏好就弹出“Select Kernel”，单元格被清空不运行，
  或者跑在先后换掉的几个内核上。所以先等工具栏显示内核名（不是 No Kernel）并且空闲，再按“运行全部”。
- 内核对话框可能在任何时候出现，等待的每一轮都处理它：还没有内核时选 python3 接受，已有内核时取消
  （再选会换一个新内核）。按下“运行全部”之后还弹出对话框，这次运行作废：关掉页面和内核，从干净的副本重来。
- 按了“运行全部”而没有任何单元格开始运行，就再按一次。
任何失败都会在 test-artifacts/browser/ 留下截图和单元格提示符状态（JSON），失败信息里给出路径。
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

import nbformat
import pytest

from _latency import append, measure_panels
from _panels import PANELS, Step, drive_client

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
VIEWS = ".jp-OutputArea-output > .jupyter-widgets, .jp-OutputArea-output > .nlpbook-panel"   # 顶层控件视图
KERNEL_TIMEOUT = 180   # 秒：打开 notebook 到内核空闲
RUN_STALL = 240        # 秒：运行中这么久没有一个单元格跑完，算卡住
RUN_TIMEOUT = 900      # 秒：按下“运行全部”到全部单元格跑完，最多
NOT_STARTED = 20       # 秒：按下“运行全部”后这么久还没有单元格开始运行，就再按一次
JS_STATE = """() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const one = s => nb ? nb.querySelector(s) : null;
  return {
    kernel: (one('.jp-KernelName') || {}).textContent || '',
    status: one('.jp-Notebook-ExecutionIndicator') ? one('.jp-Notebook-ExecutionIndicator').getAttribute('data-status') : null,
    prompts: nb ? [...nb.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(e => e.textContent.trim()) : [],
    stderr: nb ? [...nb.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]')]
                   .map(e => e.textContent).join('\\n').slice(0, 3000) : '',
    dialogs: [...document.querySelectorAll('.jp-Dialog')].map(d => (d.querySelector('.jp-Dialog-header') || d).textContent.trim()),
  };
}"""


def _missing_browser(reason: str):
    if os.environ.get("NLPBOOK_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_copy(path: Path, work: Path) -> int:
    """在清空输出的副本上运行：自动保存不会覆盖 nbval 的参照输出，"[n]:" 也能用来判断是否跑完。

    返回保存的输出里顶层控件视图的个数（运行后浏览器里应当有同样多个）。
    """
    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("widgets", None)
    views = 0
    for c in nb.cells:
        if c.cell_type == "code":
            views += sum(WIDGET_MIME in o.get("data", {}) for o in c.outputs)
            c.outputs, c.execution_count = [], None
    nbformat.write(nb, work / path.name)
    return views


class Lab(NamedTuple):
    browser: object
    base: str
    token: str
    work: Path
    views: dict  # notebook → 保存的输出里顶层控件视图的个数


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """整个模块共用一个 JupyterLab 服务器和一个浏览器；每个 notebook 开自己的页面和内核。"""
    if not CHROMIUM:
        _missing_browser("没有 Chromium：Debian/Ubuntu 上 sudo apt-get install chromium，再重跑测试")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing_browser("没有 playwright：pip install playwright（不需要 playwright install）")
    work = tmp_path_factory.mktemp("lab")
    views = {path.name: _write_copy(path, work) for path in NOTEBOOKS}
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
    base = f"http://127.0.0.1:{port}"
    t0 = time.time()
    while True:
        try:
            _api(base, token, "status")
            break
        except OSError:
            if server.poll() is not None or time.time() - t0 > 90:
                server.kill()
                pytest.fail("JupyterLab 没有启动：\n" + (work / "lab.log").read_text()[-3000:])
            time.sleep(0.3)
    from playwright.sync_api import expect, sync_playwright
    expect.set_options(timeout=120_000)  # 机器忙时内核回应控件也会慢
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield Lab(browser, base, token, work, views)
        finally:
            browser.close()
            server.terminate()
            server.wait(timeout=30)
            log.close()


def _api(base: str, token: str, path: str, method: str = "GET"):
    req = urllib.request.Request(f"{base}/api/{path}", method=method,
                                 headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        body = r.read()
    return json.loads(body) if body else None


def _shutdown_kernel(lab: Lab, name: str) -> None:
    """关掉这个 notebook 的内核：一个服务器跑完 23 个 notebook，不让用过的内核一直占着内存和 CPU。"""
    try:
        for s in _api(lab.base, lab.token, "sessions"):
            if s.get("path") == name:
                _api(lab.base, lab.token, f"sessions/{s['id']}", "DELETE")
    except OSError:
        pass


class Trace:
    """一次运行的经过：出现过的对话框、按“运行全部”的次数、最后一次看到的页面状态。失败时写进 JSON。"""

    def __init__(self, name: str):
        self.name, self.t0 = name, time.monotonic()
        self.events: list[str] = []
        self.state: dict = {}
        self.dialogs = 0  # 处理过的内核对话框个数

    def log(self, msg: str) -> None:
        self.events.append(f"{time.monotonic() - self.t0:7.1f}s {msg}")


class BrowserTimeout(AssertionError):
    pass


class RunDisturbed(Exception):
    """按下“运行全部”之后弹出了内核对话框：JupyterLab 会为每个代码单元格各弹一次，接受哪个都可能换内核，
    单元格跑在不同的内核上（后面的单元格报 NameError）。这次运行作废，从干净的副本重来。"""


def _state(page, trace: Trace) -> dict:
    trace.state = page.evaluate(JS_STATE)
    return trace.state


def _accept_dialogs(page, trace: Trace) -> int:
    """处理打开着的内核对话框：“Select Kernel”在还没有内核时选 python3，已有内核时取消（不换内核）；
    “Error Starting Kernel”等点确定。

    别的对话框不碰（只记下来）：它会挡住后面的操作，超时后截图和 JSON 里能看到它。返回处理了几个。
    """
    n = 0
    dialogs = page.locator(".jp-Dialog")
    for _ in range(5):
        if not dialogs.count():
            break
        dialog = dialogs.first
        try:
            title = dialog.locator(".jp-Dialog-header").inner_text(timeout=2_000).strip()
            if "kernel" not in title.lower():
                if f"「{title}」" not in "".join(trace.events[-3:]):
                    trace.log(f"未知对话框「{title}」，不处理")
                break
            select = dialog.locator("select")
            if select.count() and _state(page, trace)["kernel"] not in ("", "No Kernel"):
                # 内核已经有了（或正在启动）：再选 python3 会换一个新内核，已经跑过的单元格的变量就没了
                dialog.locator(".jp-mod-reject").click(timeout=5_000)
                trace.log(f"取消对话框「{title}」（已有内核 {trace.state['kernel']}，不换）")
            else:
                if select.count():
                    values = [v for v in select.locator("option").evaluate_all("os => os.map(o => o.value)")
                              if '"python3"' in v]
                    if values:
                        select.select_option(value=values[0], timeout=2_000)
                dialog.locator(".jp-mod-accept").click(timeout=5_000)
                trace.log(f"接受对话框「{title}」")
            n += 1
            trace.dialogs += 1
        except Exception as exc:  # noqa: BLE001 - 对话框可能正好自己关掉了
            trace.log(f"对话框没能处理：{type(exc).__name__}")
        page.wait_for_timeout(300)
    return n


def _wait(page, trace: Trace, done, timeout: float, what: str, progress=None, limit: float | None = None) -> dict:
    """每 0.25 秒看一次页面，其间随时接受对话框，直到 done(state) 为真。

    超时抛 BrowserTimeout：timeout 秒内 progress(state) 没有变化（不给 progress 时就是总共 timeout 秒），
    或者总共超过 limit 秒。机器忙时整本 notebook 会慢好几倍，但只要单元格还在一个个跑完就继续等。
    """
    start = last_change = time.monotonic()
    mark = None
    while True:
        _accept_dialogs(page, trace)
        st = _state(page, trace)
        if done(st):
            return st
        now = time.monotonic()
        if progress is not None and progress(st) != mark:
            mark, last_change = progress(st), now
        if now - last_change > timeout:
            still = "没有进展" if progress is not None else ""
            raise BrowserTimeout(f"{trace.name}：{timeout:.0f} 秒{still}，{what}")
        if limit is not None and now - start > limit:
            raise BrowserTimeout(f"{trace.name}：总共等了 {limit:.0f} 秒，{what}")
        page.wait_for_timeout(250)


def _finished(st: dict) -> bool:
    p = st["prompts"]
    return bool(p) and all(re.fullmatch(r"\[\d+\]:", t) for t in p)


def _started(st: dict) -> bool:
    return any(t != "[ ]:" for t in st["prompts"])


def click_menu(page, nb, trace: Trace, menu: str, command: str, failure: str, done=lambda: True) -> None:
    """点菜单栏的 menu（如 "Run"），再按命令 id 点其中的菜单项（如 'runmenu:run-all'）。

    菜单项暂时不可用、被对话框挡住，或点完后 done() 还不成立时，按 Escape 重来（至多 30 次），仍不行就报 failure。
    """
    from playwright.sync_api import Error as PlaywrightError
    item = page.locator(f"li.lm-Menu-item[data-command='{command}']")
    for _ in range(30):
        _accept_dialogs(page, trace)
        try:
            nb.locator(".jp-Cell").first.click(timeout=5_000)
            page.locator(".lm-MenuBar-item", has_text=menu).first.click(timeout=5_000)
            item.wait_for(state="visible", timeout=5_000)
            if "lm-mod-disabled" not in (item.get_attribute("class") or ""):
                item.click(timeout=5_000)
                if done():
                    return
        except PlaywrightError as exc:
            trace.log(f"菜单没点成：{str(exc).splitlines()[0][:120]}")
        page.keyboard.press("Escape")
        page.wait_for_timeout(500)
    raise BrowserTimeout(f"{trace.name}：{failure}")


def _click_run_all(page, nb, trace: Trace) -> None:
    """按命令 id 点“Run → Run All Cells”。"""
    click_menu(page, nb, trace, "Run", "runmenu:run-all", "菜单里的 Run All 一直不可用")
    trace.log("按下 Run All")


def _run_all(page, lab: Lab, name: str, trace: Trace):
    # 每个 notebook 用自己的工作区并清空（reset），否则 JupyterLab 会恢复上一个 notebook 的标签页，
    # “运行全部”可能作用在旧标签上
    workspace = "".join(ch for ch in name if ch.isalnum())
    kernel_name = nbformat.read(lab.work / name, as_version=4).metadata.get("kernelspec", {}).get("display_name")
    page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/{name}?token={lab.token}&reset")
    return run_all_open(page, name, trace, kernel_name)


def clear_all_outputs(page, nb, trace: Trace) -> None:
    """Edit → Clear Outputs of All Cells：打开的 notebook 带着保存的输出时，先清掉，"[n]:" 才能用来判断是否跑完。"""
    click_menu(page, nb, trace, "Edit", "editmenu:clear-all", "没能清掉输出",
               done=lambda: all(p == "[ ]:" for p in _state(page, trace)["prompts"]))
    trace.log("清掉了全部输出")


def run_all_open(page, name: str, trace: Trace, kernel_name: str | None = None):
    """页面上已经打开了 notebook（输出已清空）：等内核就绪，按 Run All，等全部单元格跑完；返回 notebook 面板。"""
    nb = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")

    # 执行指示器在内核会话建立之前就显示 idle（工具栏写着 No Kernel）：要等工具栏显示内核名（如 notebook 元数据里的
    # “Python 3 (ipykernel)”）并且空闲
    def kernel_ready(st):
        return st["kernel"] not in ("", "No Kernel") and st["status"] == "idle" and not st["dialogs"]

    _wait(page, trace, kernel_ready, KERNEL_TIMEOUT, f"内核（{kernel_name}）没有就绪")
    trace.log("内核就绪")
    for attempt in range(1, 6):
        _click_run_all(page, nb, trace)
        clicked, dialogs = time.monotonic(), trace.dialogs

        def outcome(st):
            if st["stderr"] or _started(st) or trace.dialogs > dialogs:
                return True
            # 很久都没有单元格开始运行（内核已经空闲、没有对话框）：再按一次
            return kernel_ready(st) and time.monotonic() - clicked > NOT_STARTED

        st = _wait(page, trace, outcome, KERNEL_TIMEOUT, "按下 Run All 后内核没有回到空闲")
        if trace.dialogs > dialogs:
            raise RunDisturbed("按下 Run All 后弹出了内核对话框")
        if st["stderr"] or _started(st):
            break
        trace.log(f"第 {attempt} 次 Run All 没有让任何单元格开始运行，再按一次")
    else:
        raise BrowserTimeout(f"{name}：按了 5 次 Run All，没有单元格开始运行")
    _wait(page, trace, lambda st: st["stderr"] or trace.dialogs > dialogs or (_finished(st) and st["status"] == "idle"),
          RUN_STALL, "全部单元格没有跑完", progress=lambda st: st["prompts"], limit=RUN_TIMEOUT)
    if trace.dialogs > dialogs:
        raise RunDisturbed("运行中弹出了内核对话框")
    trace.log("运行结束")
    return nb


def _panel(page, nb, marker: str):
    from playwright.sync_api import expect
    cell = nb.locator(".jp-CodeCell").filter(has=page.locator(".jp-InputArea", has_text=marker))
    expect(cell, f"找不到源代码含「{marker}」的单元格").to_have_count(1)
    return cell.locator(VIEWS).first


def _drive(page, nb, step: Step, trace: Trace) -> None:
    from playwright.sync_api import expect
    panel = _panel(page, nb, step.cell)
    panel.scroll_into_view_if_needed()  # 像读者一样滚到面板；失败时截图里也就是这个面板
    if "nlpbook-panel" in (panel.get_attribute("class") or ""):  # 在浏览器里运行的面板：不经过内核
        drive_client(page, panel, step, trace.log)
        return
    label = page.locator(".widget-label, .widget-label-basic").filter(
        has_text=re.compile(rf"^\s*{re.escape(step.label)}\s*$"))
    cls = {"slider": ".widget-slider", "text": ".widget-text", "dropdown": ".widget-dropdown",
           "checkbox": ".widget-checkbox", "toggle": ".widget-toggle-buttons"}[step.kind]
    control = panel.locator(cls).filter(has=label)
    expect(control, f"{step.cell}：找不到控件「{step.label}」").to_have_count(1)
    view = panel.locator(".widget-html").last
    before = view.text_content()  # 和 expect 一样比较 textContent（窗口外的元素 innerText 是空的）
    assert before.strip(), f"{step.cell}：面板输出是空的"
    if step.kind == "slider":
        readout = control.locator(".widget-readout")
        first = readout.text_content()
        key, _, times = str(step.value).partition("*")
        for _ in range(int(times or 1)):
            # 机器很忙时，面板刚重画完的输出区可能把焦点抢回 notebook（命令模式），按键就落空了：
            # 每按一次都看读数变没变，没变就重新聚焦再按（读数在浏览器里更新，不经过内核，5 秒足够）
            before_press = readout.text_content()
            for attempt in range(5):
                control.locator(".noUi-handle").focus()
                page.keyboard.press(key)
                try:
                    expect(readout).not_to_have_text(before_press, timeout=5_000)
                    break
                except AssertionError:
                    trace.log(f"滑块「{step.label}」按 {key} 没有反应（第 {attempt + 1} 次），重新聚焦")
        expect(readout, f"滑块「{step.label}」没有动").not_to_have_text(first)
    elif step.kind == "text":
        box = control.locator("input, textarea").first
        box.fill(str(step.value))
        box.press("Enter")  # 数字框（BoundedIntText）在回车或失去焦点时才同步
    elif step.kind == "dropdown":
        control.locator("select").select_option(label=str(step.value))
    elif step.kind == "checkbox":
        control.locator("input[type=checkbox]").set_checked(bool(step.value))
    elif step.kind == "toggle":
        control.locator("button", has_text=re.compile(rf"^\s*{re.escape(str(step.value))}\s*$")).click()
    expect(view, f"操作「{step.label}」后面板输出没有变").not_to_have_text(before)
    if step.expect:
        expect(view, f"操作「{step.label}」后面板输出里没有「{step.expect}」").to_contain_text(step.expect)
    trace.log(f"面板 {step.cell}：{step.kind}「{step.label}」→ {step.value!r} 通过")


TRAINING_CELL = ("# 量面板反应时间用：同一个内核里跑一段约 20 s 的训练\n"
                 "import numpy as np\nfrom nlpbook.char_rnn import train_char_rnn\n"
                 "_ = train_char_rnn(np.arange(20000) % 50, 50, steps=3000, seed=0)")


def _start_training_cell(page, nb, trace: Trace) -> None:
    """在末尾加一格 TRAINING_CELL 并运行，等到它在运行。

    键盘可能落空（点到 Markdown 渲染出的链接，或者命令模式还没切过来）：每一步都看结果，不对就接着那一步重来，
    最多 3 次；始终只加一格（多出一个没运行的空格，后面就等不到“全部跑完”）。
    """
    cells = nb.locator(".jp-Cell")
    n0 = cells.count()
    for attempt in range(1, 4):
        if cells.count() == n0:
            cells.last.click(position={"x": 8, "y": 8})     # 左上角是提示符那一栏，不会点到链接
            page.keyboard.press("Escape")
            page.keyboard.press("b")
            try:
                page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length > n",
                                       arg=[".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell", n0], timeout=10_000)
            except Exception:  # noqa: BLE001 - 没加上：重来
                trace.log(f"第 {attempt} 次加训练格：没有加上新格")
                continue
        editor = cells.nth(n0).locator(".jp-InputArea-editor")
        editor.click()
        if "train_char_rnn" not in (editor.text_content() or ""):
            page.keyboard.press("Control+a")
            page.keyboard.insert_text(TRAINING_CELL)
            if "train_char_rnn" not in (editor.text_content() or ""):
                trace.log(f"第 {attempt} 次加训练格：代码没有写进新格")
                continue
        page.keyboard.press("Control+Enter")      # 运行，不在下面再加一格
        try:
            _wait(page, trace, lambda st: st["status"] == "busy" and "[*]:" in st["prompts"], 20, "训练格没有开始运行")
            return
        except BrowserTimeout:
            trace.log(f"第 {attempt} 次加训练格：没有开始运行")
    raise BrowserTimeout(f"{trace.name}：3 次都没能在末尾加上训练格并运行")


def _time_panels(page, nb, name: str, trace: Trace) -> None:
    """每个浏览器面板的每个控件：内核空闲时量一次；再在末尾加一格训练、趁它运行时再量一次（面板必须照样能动）。"""
    roots = nb.locator(".jp-OutputArea-output > .nlpbook-panel")
    if not roots.count():
        return
    rows = measure_panels(page, roots, "lab", name)
    _start_training_cell(page, nb, trace)
    trace.log("训练格在运行，量面板")
    during = measure_panels(page, roots, "lab-training", name)
    busy = _state(page, trace)["status"] == "busy"
    rows += [dict(r, kernel_busy_after=busy) for r in during]
    _wait(page, trace, lambda st: st["status"] == "idle" and _finished(st), 180, "训练格没有跑完")
    append(os.environ["NLPBOOK_PANEL_TIMINGS"], rows)
    trace.log(f"量了 {len(rows)} 行面板反应时间")


def _save_artifacts(page, lab: Lab, trace: Trace, stem: str, exc: BaseException) -> list[Path]:
    """失败现场：截图（先滚到第一个没跑完的单元格）和 JSON（提示符、对话框、经过）。"""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot, info = ARTIFACTS / f"{stem}.png", ARTIFACTS / f"{stem}.json"
    saved, stuck = [], None
    try:
        _state(page, trace)
    except Exception:  # noqa: BLE001 - 页面可能已经坏了，用最后一次看到的状态
        pass
    prompts = trace.state.get("prompts", [])
    todo = [i for i, p in enumerate(prompts) if not re.fullmatch(r"\[\d+\]:", p)]
    if todo:
        code = [c.source for c in nbformat.read(lab.work / trace.name, as_version=4).cells if c.cell_type == "code"]
        i = todo[0]
        stuck = {"code_cell": i + 1, "prompt": prompts[i], "source": code[i][:400] if i < len(code) else None}
        try:
            page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell").nth(i).scroll_into_view_if_needed(
                timeout=5_000)
        except Exception:  # noqa: BLE001
            pass
    try:
        page.screenshot(path=str(shot), timeout=30_000)
        saved.append(shot)
    except Exception as err:  # noqa: BLE001 - 截图失败也要留下 JSON
        trace.log(f"截图失败：{err}")
    info.write_text(json.dumps({
        "notebook": trace.name,
        "error": f"{type(exc).__name__}: {exc}"[:3000],
        "seconds": round(time.monotonic() - trace.t0, 1),
        "kernel": trace.state.get("kernel"),
        "execution_indicator": trace.state.get("status"),
        "open_dialogs": trace.state.get("dialogs"),
        "stderr": trace.state.get("stderr"),
        "prompt_counts": {"not run [ ]": prompts.count("[ ]:"), "running/queued [*]": prompts.count("[*]:"),
                          "done [n]": sum(bool(re.fullmatch(r"\[\d+\]:", p)) for p in prompts)},
        "first_unfinished_cell": stuck,
        "events": trace.events,
        "prompts": prompts,
    }, ensure_ascii=False, indent=1))
    saved.append(info)
    return saved


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_in_jupyterlab(lab, path):
    from playwright.sync_api import expect
    for old in ARTIFACTS.glob(f"{path.stem}.*"):
        old.unlink()
    trace = Trace(path.name)
    page = None
    try:
        for attempt in range(1, 4):
            page = lab.browser.new_page(viewport={"width": 1280, "height": 2000})
            page.set_default_timeout(90_000)
            try:
                nb = _run_all(page, lab, path.name, trace)
                break
            except RunDisturbed as exc:
                trace.log(f"第 {attempt} 次运行作废：{exc}；关掉页面和内核，从干净的副本重来")
                page.close()
                _shutdown_kernel(lab, path.name)
                _write_copy(path, lab.work)
        else:
            raise BrowserTimeout(f"{path.name}：3 次运行都被内核对话框打断")
        errors = nb.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")
        assert errors.count() == 0, "错误或 stderr 输出：" + " | ".join(errors.all_text_contents())[:3000]
        # 每个顶层控件视图渲染成输出区里的一个 .jupyter-widgets 元素（浏览器面板是 .nlpbook-panel）（而不是“Error displaying widget”或一直在加载）
        expect(nb.locator(VIEWS)).to_have_count(lab.views[path.name])
        assert nb.get_by_text("Error displaying widget").count() == 0, "有控件没能显示"
        for step in PANELS.get(path.name, []):
            _drive(page, nb, step, trace)
        if os.environ.get("NLPBOOK_PANEL_TIMINGS"):   # benchmarks/panel_latency.py：测量，不断言
            _time_panels(page, nb, path.name, trace)
        assert errors.count() == 0, "操作控件后出现错误：" + " | ".join(errors.all_text_contents())[:3000]
        trace.log("完成")
        print("\n".join(trace.events))  # pytest -rP 可以看到每一步的用时
    except Exception as exc:
        if page is None or page.is_closed():
            page = lab.browser.new_page(viewport={"width": 1280, "height": 2000})
        saved = _save_artifacts(page, lab, trace, path.stem, exc)
        where = "、".join(str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p) for p in saved)
        pytest.fail(f"{type(exc).__name__}: {exc}\n\n现场（截图、单元格提示符、经过）已保存：{where}")
    finally:
        if page is not None:
            page.close()
        _shutdown_kernel(lab, path.name)


def _panel_cells(path: Path) -> list[str]:
    """以 `名字.widget` 结尾、保存的输出里有控件的单元格：交互面板。"""
    nb = nbformat.read(path, as_version=4)
    cells = []
    for c in nb.cells:
        last = c.source.strip().splitlines()[-1:] if c.cell_type == "code" else []
        if last and re.fullmatch(r"[A-Za-z_]\w*\.widget", last[0].strip()) and any(
                WIDGET_MIME in o.get("data", {}) for o in c.outputs):
            cells.append(c.source)
    return cells


def test_every_panel_is_driven():
    """新加的交互面板也要在浏览器里被操作：PANELS 里要有一行指向它的单元格。"""
    missing = []
    for path in NOTEBOOKS:
        markers = {s.cell for s in PANELS.get(path.name, [])}
        for source in _panel_cells(path):
            if not any(m in source for m in markers):
                missing.append(f"{path.name}: {source.strip().splitlines()[-1]}")
    assert not missing, "这些面板没有在 PANELS 里：" + "; ".join(missing)
    for name, steps in PANELS.items():
        sources = [c.source for c in nbformat.read(ROOT / "notebooks" / name, as_version=4).cells
                   if c.cell_type == "code"]
        for step in steps:
            assert sum(step.cell in s for s in sources) == 1, f"{name}：「{step.cell}」应当正好出现在一个代码单元格里"
