"""在浏览器里运行的面板（nlpbook.widgets._client.ClientPanel）的共同约定；浏览器里的操作见 test_browser.py 与 test_site.py。"""
from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

import pytest

import nlpbook.widgets as widgets
from _jsview import needs_node
from nlpbook.widgets._client import JS_DIR, PANEL_MIME, ClientPanel, esm_source, modules, site_bundle

STATE_LIMIT = 400_000   # 一个面板保存的状态（JSON 字节）；一页的全部状态另有 1 MB 的上限（benchmarks/site_weight.py）


def _panel_classes() -> list[type]:
    for info in pkgutil.iter_modules(widgets.__path__):
        importlib.import_module(f"nlpbook.widgets.{info.name}")
    seen, todo = [], list(ClientPanel.__subclasses__())
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return sorted(seen, key=lambda c: c.__name__)


CLASSES = _panel_classes()


def test_every_module_has_a_panel_and_every_panel_a_module():
    assert sorted(c.module for c in CLASSES) == modules(), "js/ 里的模块与 ClientPanel 子类应一一对应"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_panel_bundle_state_and_fallback(cls):
    p = cls.example()
    data, _ = p._repr_mimebundle_()
    assert set(data) == {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json", PANEL_MIME}
    assert data["text/plain"] == repr(p) and "0x" not in data["text/plain"]     # 确定的文字：nbval 比较它
    spec = data[PANEL_MIME]
    assert spec["module"] == cls.module and set(spec["state"]) == {"data", *cls.controls}
    text = json.dumps(spec, ensure_ascii=False)
    assert len(text.encode()) <= STATE_LIMIT, f"{cls.__name__} 的状态有 {len(text.encode())} 字节"
    assert json.loads(text) == spec                                              # 只含 JSON 能表示的值
    assert data["text/html"].startswith('<div class="nlpbook-panel-fallback">') and p.fallback_html() in data["text/html"]
    for name in cls.controls:                                                    # 控件是同步给浏览器的值
        assert p.traits()[name].metadata.get("sync"), f"{cls.__name__}.{name} 没有 sync=True"


def test_esm_is_kit_plus_one_module_with_one_default_export():
    for m in modules():
        src = esm_source(m)
        assert src.startswith((JS_DIR / "_kit.js").read_text(encoding="utf-8")) and src.count("export default ") == 1
    bundle = site_bundle(modules())
    assert "export " not in bundle and bundle.count("const NP = ") == 1
    assert all(f'P["{m}"] = (function () {{' in bundle for m in modules())


def test_modules_use_the_kit_instead_of_their_own_copies():
    """数字格式、转义、色块、表格只在 _kit.js 里写一次：模块里不再定义同名函数，也不再自己写千位分隔或转义表。"""
    import re
    kit = (JS_DIR / "_kit.js").read_text(encoding="utf-8")
    exported = re.search(r"return \{([^}]*)\};\s*\}\)\(\);", kit).group(1)
    names = {"esc", "fixed", "g", "num", "commas", "strip", "chip", "table", "textWidth", "niceTicks", "tickLabel",
             "lineChart", "barChart"}     # 格式与画图（控件可以包一层，如 const slider = (…) => NP.slider(…)）
    assert names <= {n.strip() for n in exported.split(",")}
    copies = []
    for m in modules():
        src = (JS_DIR / f"{m}.js").read_text(encoding="utf-8")
        for name in names:
            if re.search(rf"(?:function\s+{name}\s*\(|(?:const|let)\s+{name}\s*=\s*(?:\(|function))", src):
                copies.append(f"{m}.js 自己定义了 {name}")
        for what, pattern in (("千位分隔", r"\(\\d\{3\}\)\+"), ("HTML 转义表", r"&amp;|&lt;"), ("py 前缀的副本", r"\bpy(?:Esc|Fixed|G)\b")):
            if re.search(pattern, src):
                copies.append(f"{m}.js 自己写了{what}")
    assert not copies, "；".join(copies)


def test_bad_module_is_refused(tmp_path, monkeypatch):
    import nlpbook.widgets._client as client
    (tmp_path / "_kit.js").write_text("const NP = {};", encoding="utf-8")
    (tmp_path / "two.js").write_text("export default {};\nexport default {};", encoding="utf-8")
    monkeypatch.setattr(client, "JS_DIR", tmp_path)
    with pytest.raises(ValueError, match="正好有一处"):
        esm_source("two")
    with pytest.raises(FileNotFoundError, match="没有面板模块"):
        esm_source("missing")


NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_panel_code_is_the_current_code(path):
    """notebook 里保存的控件状态带着面板的 ES 模块（不运行就打开时 JupyterLab 用它画面板）：必须是现在的 js/ 代码。
    改了 js/ 之后重新执行有面板的 notebook（scripts/execute_notebooks.py）。"""
    meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    state = meta.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model in state.values():
        s = model.get("state", {})
        if "_esm" in s:
            module = s["_anywidget_id"].split(".")[-2]
            assert s["_esm"] == esm_source(module), f"{path.name} 里保存的 {module} 面板代码过时了：重新执行这个 notebook"


@needs_node
def test_kit_formats_numbers_exactly_as_python():
    """NP.fixed / NP.g / NP.num 与 Python 的 f"{v:.{d}f}"、f"{v:g}"、svgplot.fmt_number 逐字相同：随机数，
    以及恰好落在一半上的数（toFixed 往上进，Python 取偶）。"""
    import random
    import subprocess

    from _jsview import NODE
    from nlpbook.svgplot import fmt_number
    rng = random.Random(0)
    cases = []
    for _ in range(3000):
        d = rng.randrange(0, 5)
        v = rng.choice([rng.uniform(-1000, 1000), rng.uniform(-1, 1) * 10 ** rng.randrange(-9, 7),
                        (rng.randrange(-20000, 20000) + 0.5) / 10 ** d, rng.randrange(-999, 999) / 64])
        cases.append((v, d))
    cases += [(0.0, 2), (-0.0, 1), (2.5625, 3), (0.125, 2), (999.5, 0), (1e-13, 3), (123456.789, 1)]
    script = ("const src = require('fs').readFileSync(process.argv[1], 'utf8'); globalThis.document = {};\n"
              "const NP = new Function(src + '; return NP;')();\n"
              "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
              "process.stdout.write(JSON.stringify(cases.map(([v, d]) => [NP.fixed(v, d), NP.g(v), NP.num(v)])));")
    r = subprocess.run([NODE, "-e", script, str(JS_DIR / "_kit.js")], input=json.dumps(cases),
                       capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert r.returncode == 0, r.stderr
    for (v, d), (fixed, g, num) in zip(cases, json.loads(r.stdout)):
        assert [fixed, g, num] == [f"{v:.{d}f}", f"{v:g}", fmt_number(v)], (v, d)
