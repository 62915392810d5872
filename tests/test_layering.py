"""包的分层：一张表规定每个模块属于哪一层，一个读源码（AST）的检查保证导入只向下。

四层（见 COURSE.md “nlpbook: thin, layered, numpy”）：
- core（核心数学）：只导入 core、numpy 与标准库；tqdm、threadpoolctl 只许在函数里按需导入（进度条、BLAS 线程数）；
- data（datasets）：core 之上；jieba 只许在函数里导入；
- presentation（viz、svgplot、palette、widgets/*）：可以用 core、data 与同层；
- tools（doctor、catalog、examples、exercises/*）：可以用 nlpbook 的任何部分。examples 另有一条：只用标准库。
新模块必须先在 LAYERS 里登记，否则测试失败。
另一个读源码的检查：模块不用别的模块的私有名字（_ 开头），无论是 from x import _y 还是 x._y。
共用的东西要么是公开的名字，要么放进 _checks 这类本身就私有、供大家导入的模块（用它的公开名字）；
同一个子包（exercises、widgets、examples）里的模块之间可以共用私有名字。
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
                     "compare", "cost", "decoding", "embedding", "finetune", "functional", "glossary", "granularity", "layers", "linear", "lm", "lora",
                     "metrics", "naive_bayes", "ngram", "objectives", "optim", "retrieval", "rnn", "rnn_classifier", "rules",
                     "seq2seq", "sparse", "spread", "tagging", "text", "textcnn", "tiny_transformer", "tokenizers", "transformer", "tuning", "word2vec"], CORE),
    "datasets": DATA,
    **dict.fromkeys(["viz", "svgplot", "palette", "diagrams", "widgets.*"], PRESENTATION),
    **dict.fromkeys(["doctor", "catalog", "examples.*", "exercises.*"], TOOLS),
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


def _from_base(name: str, node: ast.ImportFrom, is_package: bool):
    """from … import 的来源在 nlpbook 里的点分路径（列表，[] 是 nlpbook 本身）；来源在 nlpbook 之外时返回 None。"""
    if node.level == 0:
        mod = node.module or ""
        return mod.split(".")[1:] if mod == "nlpbook" or mod.startswith("nlpbook.") else None
    here = [] if name == "__init__" else name.split(".")
    package = here if is_package else here[:-1]
    up = node.level - 1
    if up > len(package):
        raise ValueError(f"{name}:{node.lineno} 相对导入超出了 nlpbook")
    return package[:len(package) - up] + (node.module.split(".") if node.module else [])


def _imports(name: str, source: str, is_package: bool, known: set):
    """源码里的每个导入：(行号, 'nlpbook' 内的点分名或 None, 顶层的外部包名或 None, 是否在函数里)。"""
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
            base = _from_base(name, node, is_package)
            if base is None:
                yield node.lineno, None, (node.module or "").split(".")[0], lazy
                continue
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


def _is_private(attr: str) -> bool:
    return attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__"))


def _shares_private_names(a: str, b: str) -> bool:
    """同一个模块，或同一个子包（如 exercises.ch13 与 exercises.base）里的两个模块。"""
    return a == b or ("." in a + b and a.split(".")[0] == b.split(".")[0])


def private_name_uses(name: str, source: str, *, is_package: bool = False, known=None) -> list[str]:
    """一个模块用到别的 nlpbook 模块的私有名字的每一处（空列表 = 没有）：from x import _y、导入模块 x 后写 x._y
    或 getattr(x, "_y")。顶层的私有模块（_checks）本来就是给大家导入的，用它的公开名字不算；子包里的私有模块
    （widgets._html）只给本子包用。"""
    known = set(package_modules()) | {k for k in LAYERS if not k.endswith(".*")} if known is None else known
    tree = ast.parse(source)
    bad, modules = [], {}  # modules：本文件里指向 nlpbook 模块的名字 → 点分名

    def use(line, owner, attr, is_module=False):
        """在 line 行用了模块 owner 的属性 attr（is_module：attr 本身是 owner 包里的一个模块）。"""
        if not _is_private(attr) or _shares_private_names(name, owner) or (is_module and owner == "__init__"):
            return
        bad.append(f"{name}:{line} 用了 {'nlpbook' if owner == '__init__' else 'nlpbook.' + owner} 的私有名字 {attr}")

    def walk(line, mod, attrs):
        """从模块 mod 出发依次取属性 attrs（import 的路径、x.y.z 的链）；返回最后到达的模块，半路不是模块时返回 None。"""
        for attr in attrs:
            sub = attr if mod == "__init__" else f"{mod}.{attr}"
            if sub not in known:
                use(line, mod, attr)
                return None
            use(line, mod, attr, is_module=True)
            mod = sub
        return mod

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "nlpbook" or a.name.startswith("nlpbook."):
                    target = walk(node.lineno, "__init__", a.name.split(".")[1:])
                    if a.asname and target is not None:
                        modules[a.asname] = target
                    elif not a.asname:
                        modules["nlpbook"] = "__init__"
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(name, node, is_package)
            source_mod = None if base is None else walk(node.lineno, "__init__", base)
            for a in node.names if source_mod is not None else []:
                if a.name != "*":
                    target = walk(node.lineno, source_mod, [a.name])
                    if target is not None:
                        modules[a.asname or a.name] = target
    for node in ast.walk(tree):
        chain, root = [], node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            chain, root = [node.args[1].value], node.args[0]
        elif not isinstance(node, ast.Attribute):
            continue
        while isinstance(root, ast.Attribute):  # 一条 x.y.z 的链从里往外数（里面的 x.y 也会单独走到，结果去重）
            chain.insert(0, root.attr)
            root = root.value
        if isinstance(root, ast.Name) and root.id in modules:
            walk(node.lineno, modules[root.id], chain)
    return sorted(set(bad))


@pytest.mark.parametrize("name", sorted(package_modules()))
def test_no_module_uses_another_modules_private_names(name):
    path = package_modules()[name]
    assert private_name_uses(name, path.read_text(encoding="utf-8"), is_package=path.name == "__init__.py") == []


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


@pytest.mark.parametrize("name, source, complaint", [
    ("transformer", "from .layers import Adam, _ln_fwd\n", "transformer:1 用了 nlpbook.layers 的私有名字 _ln_fwd"),
    ("char_rnn", "from nlpbook.rnn import (GRU_KEYS,\n    _gru_core)\n", "nlpbook.rnn 的私有名字 _gru_core"),
    ("text", "from ._checks import _received\n", "nlpbook._checks 的私有名字 _received"),
    ("doctor", "from . import datasets\n\ndef f():\n    return datasets._snownlp_dir()\n",
     "doctor:4 用了 nlpbook.datasets 的私有名字 _snownlp_dir"),
    ("tiny_transformer", "import nlpbook.transformer as T\nT._lm_fwd(1)\n", "nlpbook.transformer 的私有名字 _lm_fwd"),
    ("doctor", "import nlpbook.datasets\nnlpbook.datasets._snownlp_dir()\n", "nlpbook.datasets 的私有名字"),
    ("widgets.kv_cache", "from .. import cost\ngetattr(cost, '_bytes')\n", "nlpbook.cost 的私有名字 _bytes"),
    ("exercises.ch09", "from ..rnn import _arr\n", "nlpbook.rnn 的私有名字 _arr"),
    ("exercises.ch08", "from nlpbook import rnn_classifier as rc\nrc._adam.__doc__\n", "rnn_classifier 的私有名字 _adam"),
    ("doctor", "import nlpbook\nnlpbook._private_thing\n", "用了 nlpbook 的私有名字 _private_thing"),
    ("exercises.ch01", "from ..widgets._html import chip\n", "nlpbook.widgets 的私有名字 _html"),
])
def test_the_checker_flags_private_names_of_other_modules(name, source, complaint):
    bad = private_name_uses(name, source)
    assert len(bad) == 1 and complaint in bad[0], bad


def test_the_checker_accepts_public_names_and_its_own_private_ones():
    ok = {"text": "from ._checks import check_tokens\nfrom . import _checks\n_checks.as_float_array(1, 'x')\n",
          "rnn": "from ._checks import as_float_array_keep\n_arr = as_float_array_keep\n_arr(1, 'x')\n",
          "attention": "import numpy as np\nnp._NoValue\nclass A:\n    def f(self):\n        return self._cache\n",
          "widgets.conv_window": "from ._html import PALETTE, chip\nfrom nlpbook.widgets import _html\n",
          "cnn": "import nlpbook._checks as C\nimport nlpbook.text\nnlpbook.text.ngrams\nC.check_tokens\n",
          "exercises.ch13": "from nlpbook.exercises import base as _b\nfrom .base import _shared\n_b._helper\n",
          "tiny_transformer": "from .text import __all__ as text_all\nfrom . import transformer\n"
                              "transformer.lm_forward.__doc__\n"}
    for name, source in ok.items():
        assert private_name_uses(name, source) == [], name


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
