"""包的分层：一张表规定每个模块属于哪一层，一个读源码（AST）的检查保证导入只向下。

四层（见 COURSE.md “nlpbook: thin, layered, numpy”）：
- core（核心数学）：只导入 core、numpy 与标准库；tqdm、threadpoolctl 只许在函数里按需导入（进度条、BLAS 线程数）；
- data（datasets）：core 之上；jieba 只许在函数里导入；
- presentation（viz、svgplot、palette、widgets/*）：可以用 core、data 与同层；
- tools（doctor、examples、exercises/*）：可以用 nlpbook 的任何部分。examples 另有一条：只用标准库。
新模块必须先在 LAYERS 里登记，否则测试失败。
"""
import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "nlpbook"

CORE, DATA, PRESENTATION, TOOLS = "core", "data", "presentation", "tools"
# 模块（相对 nlpbook 的点分名）→ 层；"x.*" 表示包 x 本身和它下面的所有模块
LAYERS = {
    **dict.fromkeys(["__init__", "_checks", "attention", "attention_demo", "char_rnn", "char_tagger", "charlm", "cnn",
                     "cost", "decoding", "embedding", "functional", "glossary", "granularity", "layers", "linear",
                     "metrics", "naive_bayes", "ngram", "objectives", "retrieval", "rnn", "rnn_classifier", "rules",
                     "sparse", "tagging", "text", "tiny_transformer", "tokenizers", "transformer", "word2vec"], CORE),
    "datasets": DATA,
    **dict.fromkeys(["viz", "svgplot", "palette", "widgets.*"], PRESENTATION),
    **dict.fromkeys(["doctor", "examples.*", "exercises.*"], TOOLS),
}
MAY_IMPORT = {CORE: {CORE}, DATA: {CORE, DATA}, PRESENTATION: {CORE, DATA, PRESENTATION},
              TOOLS: {CORE, DATA, PRESENTATION, TOOLS}}
THIRD_PARTY = {CORE: {"numpy"}, DATA: {"numpy"}}                       # 其余两层不限
THIRD_PARTY_IN_FUNCTIONS = {CORE: {"tqdm", "threadpoolctl"}, DATA: {"jieba"}}
STDLIB_ONLY = ("examples",)                                             # 这些包只用标准库（和包内自己的模块）


def layer_of(name: str, table=LAYERS):
    """'widgets.embedding_map' → 'presentation'；表里没有时返回 None。"""
    if name in table:
        return table[name]
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) + ".*" in table:
            return table[".".join(parts[:k]) + ".*"]
    return None


def package_modules() -> dict[str, Path]:
    """nlpbook 下的每个 .py → 点分名（包的 __init__.py 记作包名，顶层的记作 '__init__'）。"""
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = p.relative_to(PKG).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _imports(name: str, source: str, is_package: bool, known: set):
    """源码里的每个导入：(行号, 'nlpbook' 内的点分名或 None, 顶层的外部包名或 None, 是否在函数里)。"""
    here = [] if name == "__init__" else name.split(".")
    package = here if is_package else here[:-1]
    tree = ast.parse(source)
    in_function = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    for node in ast.walk(tree):
        lazy = id(node) in in_function
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "nlpbook" or a.name.startswith("nlpbook."):
                    yield node.lineno, a.name[len("nlpbook."):] or "__init__", None, lazy
                else:
                    yield node.lineno, None, a.name.split(".")[0], lazy
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                mod = node.module or ""
                if not (mod == "nlpbook" or mod.startswith("nlpbook.")):
                    yield node.lineno, None, mod.split(".")[0], lazy
                    continue
                base = mod.split(".")[1:]
            else:
                up = node.level - 1
                if up > len(package):
                    raise ValueError(f"{name}:{node.lineno} 相对导入超出了 nlpbook")
                base = package[:len(package) - up] + (node.module.split(".") if node.module else [])
            for a in node.names:  # from . import viz：名字本身可能就是一个模块
                target = ".".join(base + [a.name])
                yield node.lineno, target if target in known else (".".join(base) or "__init__"), None, lazy


def layer_violations(name: str, source: str, *, is_package: bool = False, table=LAYERS, known=None) -> list[str]:
    """一个模块违反分层的每一处导入（空列表 = 没问题）。known 是 nlpbook 里存在的模块名，默认取表和磁盘上的。"""
    known = set(package_modules()) | {k for k in table if not k.endswith(".*")} if known is None else known
    mine = layer_of(name, table)
    if mine is None:
        return [f"{name}: 没有登记层（在 tests/test_layering.py 的 LAYERS 里加上）"]
    stdlib_only = any(name == p or name.startswith(p + ".") for p in STDLIB_ONLY)
    bad = []
    for line, inside, outside, lazy in _imports(name, source, is_package, known):
        where = f"{name}:{line}"
        if inside is not None:
            theirs = layer_of(inside, table)
            if stdlib_only and not any(inside == p or inside.startswith(p + ".") for p in STDLIB_ONLY):
                bad.append(f"{where} 只许用标准库，却导入了 nlpbook.{inside}")
            elif theirs is None:
                bad.append(f"{where} 导入的 nlpbook.{inside} 没有登记层")
            elif theirs not in MAY_IMPORT[mine]:
                bad.append(f"{where}（{mine}）不能导入 nlpbook.{inside}（{theirs}）")
        elif outside in sys.stdlib_module_names or outside == "__future__":
            continue
        elif stdlib_only:
            bad.append(f"{where} 只许用标准库，却导入了 {outside}")
        elif mine in THIRD_PARTY and outside not in THIRD_PARTY[mine] | (
                THIRD_PARTY_IN_FUNCTIONS[mine] if lazy else set()):
            how = "（只许在函数里导入）" if outside in THIRD_PARTY_IN_FUNCTIONS[mine] else ""
            bad.append(f"{where}（{mine}）不能导入 {outside}{how}")
    return bad


def test_every_module_has_a_layer():
    missing = [m for m in package_modules() if layer_of(m) is None]
    assert not missing, f"这些模块还没有登记层（加到 tests/test_layering.py 的 LAYERS）：{missing}"
    stale = [k for k in LAYERS if not k.endswith(".*") and k not in package_modules()]
    assert not stale, f"LAYERS 里登记了不存在的模块：{stale}"


@pytest.mark.parametrize("name", sorted(package_modules()))
def test_imports_only_point_down(name):
    path = package_modules()[name]
    assert layer_violations(name, path.read_text(encoding="utf-8"), is_package=path.name == "__init__.py") == []


# ---------- 检查的检查：故意写错的源码必须被找出来 ----------
@pytest.mark.parametrize("name, source, complaint", [
    ("text", "from .datasets import TOY_REVIEWS\n", "core）不能导入 nlpbook.datasets（data）"),
    ("text", "from . import svgplot\n", "不能导入 nlpbook.svgplot（presentation）"),
    ("attention", "from nlpbook.viz import use_cjk_font\n", "不能导入 nlpbook.viz"),
    ("tagging", "import nlpbook.doctor\n", "不能导入 nlpbook.doctor（tools）"),
    ("text", "import matplotlib.pyplot as plt\n", "不能导入 matplotlib"),
    ("text", "import pandas\n", "不能导入 pandas"),
    ("word2vec", "from tqdm.auto import tqdm\n", "不能导入 tqdm（只许在函数里导入）"),
    ("datasets", "from .widgets.embedding_map import EmbeddingMap\n", "data）不能导入 nlpbook.widgets.embedding_map"),
    ("svgplot", "from .exercises import grade\n", "不能导入 nlpbook.exercises"),
    ("widgets.embedding_map", "from ..doctor import main\n", "不能导入 nlpbook.doctor（tools）"),
    ("examples.common", "import numpy as np\n", "只许用标准库，却导入了 numpy"),
    ("examples.chapters_01_04", "from ..functional import sigmoid\n", "只许用标准库，却导入了 nlpbook.functional"),
    ("brand_new_module", "import math\n", "没有登记层"),
])
def test_the_checker_flags_imports_that_go_up_or_sideways(name, source, complaint):
    bad = layer_violations(name, source)
    assert len(bad) == 1 and complaint in bad[0], bad


def test_the_checker_accepts_imports_that_point_down():
    ok = {"text": "import math\nimport numpy as np\nfrom ._checks import check_tokens\n",
          "word2vec": "def f():\n    from tqdm.auto import tqdm\n    from threadpoolctl import threadpool_limits\n",
          "datasets": "from ._checks import check_positive\n\ndef g():\n    import jieba\n",
          "widgets.embedding_map": "import ipywidgets\nfrom ..embedding import nearest\nfrom ..svgplot import scatter_chart\n",
          "doctor": "from . import viz\nfrom .datasets import load_reviews\n",
          "examples.chapters_05_10": "import math\nfrom fractions import Fraction\nfrom .common import dot\n"}
    for name, source in ok.items():
        assert layer_violations(name, source) == [], name


# ---------- 运行时：import 很轻，核心模块不碰展示库 ----------
STDLIB_AT_RUNTIME = ["glossary", "granularity", "tokenizers", "cost", "rules"]  # 连 numpy 都不导入


def test_imports_at_runtime_stay_light():
    """import nlpbook 不导入任何子模块；只用标准库的模块不导入 numpy；core 与 data 不导入展示库和 tqdm。"""
    core_and_data = sorted(m for m in package_modules() if layer_of(m) in (CORE, DATA) and m != "__init__")
    code = f"""
import importlib, json, sys
import nlpbook
out = {{"after_import_nlpbook": sorted(m for m in sys.modules if m.startswith(("nlpbook.", "numpy")))}}
for m in {STDLIB_AT_RUNTIME!r}:
    importlib.import_module("nlpbook." + m)
out["numpy_after_stdlib_modules"] = "numpy" in sys.modules
for m in {core_and_data!r}:
    importlib.import_module("nlpbook." + m)
out["presentation"] = [m for m in ("matplotlib", "ipywidgets", "pandas", "IPython", "tqdm", "jieba") if m in sys.modules]
print(json.dumps(out))
"""
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert out == {"after_import_nlpbook": [], "numpy_after_stdlib_modules": False, "presentation": []}
