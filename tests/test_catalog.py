"""包的目录（导读里的模块表）：教学位置、用到它的章、每个模块都在表里。"""
import json
from pathlib import Path

import pytest

from nlpbook import catalog

ROOT = Path(__file__).resolve().parents[1]


def test_taught_at_reads_teaching_lines_in_course_order():
    source = '''"""词袋（第 3 章）：示例。"""
def a():
    """做 a。教学位置：第 3.4 节、第 3.1 节。"""
def b():
    """做 b。教学位置：第 14.5—14.6 节；附录 B。"""
def c():
    """这里提到第 9.9 节，但不是教学位置行，不算。"""
'''
    # 有了 §3.x 就不再单列“第 3 章”；附录排在各章之后；区间两端都列出
    assert catalog.taught_at(source) == ["§3.1", "§3.4", "§14.5", "§14.6", "附录 B"]
    assert catalog.taught_at('"""没有位置。"""') == []


def _nb(path, code):
    nb = {"cells": [{"cell_type": "code", "source": code, "metadata": {}, "outputs": []}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_used_in_reads_every_import_form(tmp_path):
    _nb(tmp_path / "03-x.ipynb", "from nlpbook.text import Vocab\nfrom nlpbook import viz, metrics as M\n")
    _nb(tmp_path / "05-y.ipynb", "import nlpbook.text\nfrom nlpbook import (\n    objectives as O,\n    rules,\n)\n"
                                 "from nlpbook.widgets.ngram_window import NGramWindow\n")
    uses = catalog.used_in(tmp_path)
    assert uses["text"] == ["03", "05"]
    assert uses["viz"] == ["03"] and uses["metrics"] == ["03"]
    assert uses["objectives"] == ["05"] and uses["rules"] == ["05"]
    assert uses["widgets.ngram_window"] == ["05"]


def test_table_lists_every_public_module_once():
    rows = catalog.module_table(notebooks_dir=ROOT / "notebooks")
    names = [r["模块"] for r in rows]
    assert len(names) == len(set(names))
    expected = {p.stem for p in (ROOT / "nlpbook").glob("*.py") if not p.stem.startswith("_")}
    expected |= {f"widgets.{p.stem}" for p in (ROOT / "nlpbook" / "widgets").glob("*.py")
                 if not p.stem.startswith("_")}
    expected |= {"examples", "exercises"}
    assert set(names) == expected
    by = {r["模块"]: r for r in rows}
    assert by["rules"]["讲解"] == "§1.3" and by["rules"]["用到它的章"].startswith("01")
    assert by["exercises"]["用到它的章"].count("、") == 18          # 01—18 与附录 A，19 个 notebook
    assert by["widgets.kv_cache"]["讲解"] == "§14.5、§14.6"
    assert all(r["它做什么"] and "网页" not in r["它做什么"] for r in rows)


def test_a_module_without_docstring_is_refused(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "good.py").write_text('"""好的模块。"""\n', encoding="utf-8")
    (pkg / "bad.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad"):
        catalog.module_table(pkg)
