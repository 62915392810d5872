"""在 Node 里调用面板模块（js/<模块>.js，连同 _kit.js）导出的纯函数：浏览器里的视图与 Python 的静态视图逐字比较用。

三个测试文件（test_widgets_js_views.py、test_widgets_js_ch13_14.py、test_widgets_generation.py）共用这一个运行器。
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from nlpbook.widgets._client import esm_source

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="没有 node：浏览器模块的纯函数无法在这里运行")

# 模块的默认导出上的函数 fn(data, ...args)；cache=True 时所有调用共用一个 Map 作为最后一个参数（生成面板的缓存）
RUNNER = """import m from './m.mjs';
import { readFileSync } from 'node:fs';
const inp = JSON.parse(readFileSync(0, 'utf8'));
const cache = new Map();
process.stdout.write(JSON.stringify(inp.calls.map((a) => m[inp.fn](inp.data, ...a, ...(inp.cache ? [cache] : [])))));
"""


def js_call(module: str, data: dict, calls: list[list], *, fn: str = "view", cache: bool = False) -> list:
    """对每组参数调用 js/<module>.js 默认导出的 fn(data, *args)，返回结果的列表。"""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "m.mjs").write_text(esm_source(module), encoding="utf-8")
        Path(tmp, "run.mjs").write_text(RUNNER, encoding="utf-8")
        r = subprocess.run([NODE, "run.mjs"], cwd=tmp, input=json.dumps({"fn": fn, "data": data, "calls": calls, "cache": cache}),
                           capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)
