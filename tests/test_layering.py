"""包的分层：核心模块不导入 matplotlib/ipywidgets/pandas；import nlpbook 很轻。"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# 核心（及数据）层：nlpbook 下除展示层和工具以外的每个模块，自动发现，新模块不会漏检
PRESENTATION_OR_TOOLS = {"viz", "doctor"}
CORE = sorted(p.stem for p in (ROOT / "nlpbook").glob("*.py")
              if not p.stem.startswith("_") and p.stem not in PRESENTATION_OR_TOOLS | {"datasets"})


def test_core_list_covers_the_known_modules():
    assert {"functional", "attention", "tagging", "layers", "transformer", "tiny_transformer"} <= set(CORE)


@pytest.mark.parametrize("module", CORE + ["datasets"])
def test_core_and_data_modules_do_not_import_presentation_libraries(module):
    code = (f"import sys, nlpbook.{module}; "
            "bad = [m for m in ('matplotlib', 'ipywidgets', 'pandas', 'IPython') if m in sys.modules]; "
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"nlpbook.{module} 导入了 {out.stdout.strip()}"


def test_import_nlpbook_imports_no_submodule():
    code = "import sys, nlpbook; print(sorted(m for m in sys.modules if m.startswith(('nlpbook.', 'numpy'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
