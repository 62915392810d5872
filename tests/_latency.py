"""在浏览器里量面板的反应时间：每个控件改几次值，量“派发 input/change 事件 → 视图的 DOM 改好并排好版”的时间。

测量，不是断言（预算 16 ms 写在 benchmarks/panel_latency.py 的输出里）：test_browser.py 在设置了
NLPBOOK_PANEL_TIMINGS=<文件> 时调用它（JupyterLab 里，空闲时与训练格运行时各量一次），
benchmarks/panel_latency.py 在阅读网站上调用它。
"""
from __future__ import annotations

import json
from pathlib import Path

# 一个面板（.nlpbook-panel）的每个控件：滑块取 7 个均匀分布的值再回到原值，下拉框轮流选每一项（最多 7 项）再选回原项，
# 勾选框来回点，文字框轮流填几段文字，按钮组轮流点每个按钮；这样走两遍（每个控件 12—16 次），每次量
# dispatch → getBoundingClientRect（强制排版）的时间，取中位数——一次垃圾回收或别的进程抢一下 CPU 挪不动它。
# 读者改不了的控件（disabled 且没有勾选框能打开它，或只有一个按钮的按钮组）不量，记为 fixed。
MEASURE_JS = """(root) => {
  const view = root.querySelector('.np-view');
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const rows = [];
  const time = (fire) => { const t0 = performance.now(); fire(); view.getBoundingClientRect(); return performance.now() - t0; };
  for (const c of root.querySelectorAll('.np-control')) {
    const label = ((c.querySelector('label, .np-label') || {}).textContent || '').trim();
    const input = c.querySelector('input, select');
    const bs = [...c.querySelectorAll('button')];
    const toggle = c.classList.contains('np-toggle');
    // 被面板里的勾选框关着的控件（如第 6 章不勾“向量算术”时的 a、b、c）：先勾上那个框再量，量完复原
    const enabler = !toggle && input && input.disabled ? [...root.querySelectorAll('.np-checkbox input:not(:disabled)')].find((cb) => {
      cb.click();
      if (!input.disabled) return true;
      cb.click();
      return false;
    }) : undefined;
    if (toggle ? bs.length < 2 || bs.every((b) => b.disabled) : input && input.disabled) {
      rows.push({ label, median_ms: null, n: 0, changed: false, fixed: true });
      continue;
    }
    if (!toggle && !input) continue;
    const times = [];
    const before = view.innerHTML;
    let changed = false;
    const fire = (f) => { times.push(time(f)); changed = changed || view.innerHTML !== before; };
    for (let round = 0; round < 2; round++) {
      if (toggle) {
        for (let k = 0; k < 7; k++) fire(() => bs[(k + 1) % bs.length].click());
      } else if (input.type === 'range') {
        const lo = Number(input.min), hi = Number(input.max), st = Number(input.step) || 1, v0 = input.value;
        const n = Math.round((hi - lo) / st);
        for (let k = 1; k <= 7; k++) fire(() => { input.value = lo + Math.round((n * k) / 8) * st; input.dispatchEvent(new Event('input', { bubbles: true })); });
        fire(() => { input.value = v0; input.dispatchEvent(new Event('input', { bubbles: true })); });
      } else if (input.tagName === 'SELECT') {
        const m = input.options.length, i0 = input.selectedIndex;
        for (let k = 1; k <= Math.min(7, m - 1); k++) fire(() => { input.selectedIndex = (i0 + k) % m; input.dispatchEvent(new Event('change', { bubbles: true })); });
        fire(() => { input.selectedIndex = i0; input.dispatchEvent(new Event('change', { bubbles: true })); });
      } else if (input.type === 'checkbox') {
        for (let k = 0; k < 6; k++) fire(() => input.click());
      } else {
        const v0 = input.value;
        for (const s of [v0 + '很好', v0.slice(0, 2), v0 + v0, v0]) fire(() => { input.value = s; input.dispatchEvent(new Event('input', { bubbles: true })); });
      }
    }
    if (enabler) enabler.click();
    rows.push({ label, median_ms: median(times), n: times.length, changed });
  }
  return rows;
}"""


def measure_panels(page, roots, where: str, notebook: str) -> list[dict]:
    """roots：面板根元素（.nlpbook-panel）的 locator。返回每个控件一行：{where, notebook, panel, label, median_ms, n, changed[, fixed]}。"""
    rows = []
    for i in range(roots.count()):
        root = roots.nth(i)
        root.scroll_into_view_if_needed()
        module = (root.get_attribute("data-panel") or "").split(".")   # 网站上是模块名，JupyterLab 里是完整类名
        module = module[-2] if len(module) > 1 else module[0]
        for r in root.evaluate(MEASURE_JS):
            rows.append({"where": where, "notebook": notebook, "panel": i + 1, "module": module, **r})
    return rows


def append(path: str | Path, rows: list[dict]) -> None:
    path = Path(path)
    old = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    path.write_text(json.dumps(old + rows, ensure_ascii=False, indent=1), encoding="utf-8")
