"""课程包的目录：每个模块一行——它做什么、在哪一节讲、哪些章用到它。

只读源码和 notebook 文件（ast + json），不导入任何被列出的模块，所以很快，也不会带进 matplotlib。
“在哪一节讲”取自模块说明的第一行和各函数文档字符串里标明的教学位置；“哪些章用到”取自各章 notebook 的 import 语句。
不做的事：不检查模块之间的依赖（那是 tests/test_layering.py 的事）。
例：module_table()[0] -> {'模块': 'attention', '它做什么': '注意力（numpy）：…', '讲解': '§12.3、§13.3…', '用到它的章': '12、13…'}
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

__all__ = ["module_files", "taught_at", "used_in", "module_table"]

_PKG = Path(__file__).resolve().parent
_TAUGHT = re.compile(r"教学位置[:：]([^\n]*)")
_PLACE = re.compile(r"第\s*(\d+)\.(\d+)(?:\s*[—–-]\s*(?:\d+\.)?(\d+))?\s*节|第\s*(\d+)\s*章|附录\s*([A-D])(?![A-Za-z])")
_IMPORT = re.compile(r"^\s*(?:from\s+nlpbook\.([\w.]+)\s+import|import\s+nlpbook\.([\w.]+))", re.M)
_FROM_PKG = re.compile(r"^\s*from\s+nlpbook\s+import\s+(?:\(([^)]*)\)|([\w ,]+)$)", re.M)


def module_files(package_dir: Path = _PKG) -> dict[str, Path]:
    """公开模块名 → 文件：顶层模块、widgets 下的每个面板；子包（examples、exercises）算一个条目。"""
    out = {}
    for p in sorted(package_dir.glob("*.py")):
        if not p.stem.startswith("_"):
            out[p.stem] = p
    for sub in sorted(d for d in package_dir.iterdir() if (d / "__init__.py").exists()):
        if sub.name == "widgets":
            for p in sorted(sub.glob("*.py")):
                if not p.stem.startswith("_"):
                    out[f"widgets.{p.stem}"] = p
        elif sub.name != "weights":
            out[sub.name] = sub / "__init__.py"
    return out


def taught_at(source: str) -> list[str]:
    """模块说明第一行与各文档字符串的教学位置行里提到的章节，按课程顺序排好。

    例：'§3.1'、'§3.4'、'第 7 章'、附录写成 '附录 B'；有了某章的具体小节，就不再单列“第 N 章”。
    """
    tree = ast.parse(source)
    lines = [(ast.get_docstring(tree) or "").strip().split("\n")[0]]
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            lines += _TAUGHT.findall(ast.get_docstring(node) or "")
    found = set()
    for line in lines:
        if line:
            for ch, sec, last, whole, app in _PLACE.findall(line):
                if last:   # “第 14.5—14.6 节”：两端都列出
                    found.add((int(ch), int(last), f"§{ch}.{last}"))
                if app:
                    found.add((100 + ord(app), 0, f"附录 {app}"))
                elif whole:
                    found.add((int(whole), 0, f"第 {whole} 章"))
                else:
                    found.add((int(ch), int(sec), f"§{ch}.{sec}"))
    chapters_with_sections = {c for c, s, _ in found if s}
    return [label for c, s, label in sorted(found) if s or c not in chapters_with_sections]


def _chapter_of(notebook: Path) -> str:
    head = notebook.stem.split("-")[0]
    return head


def used_in(notebooks_dir: Path) -> dict[str, list[str]]:
    """模块名 → 导入它的章节编号（'03'、'A'…），读各 notebook 代码单元里的 import 语句。"""
    uses: dict[str, set[str]] = {}
    for nb_path in sorted(Path(notebooks_dir).glob("*.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        names = set()
        for a, b in _IMPORT.findall(code):
            names.add(a or b)
        for paren, plain in _FROM_PKG.findall(code):
            group = (paren or plain).replace("\n", ",")
            names.update(n.split(" as ")[0].strip() for n in group.split(",") if n.strip())
        for name in names:
            parts = name.split(".")
            key = ".".join(parts[:2]) if parts[0] == "widgets" else parts[0]
            uses.setdefault(key, set()).add(_chapter_of(nb_path))
    return {k: sorted(v) for k, v in uses.items()}


def module_table(package_dir: Path = _PKG, notebooks_dir: Path | None = None) -> list[dict]:
    """每个公开模块一行：模块、它做什么（模块文档字符串第一句）、讲解（教学位置）、用到它的章。"""
    uses = used_in(notebooks_dir) if notebooks_dir is not None else {}
    rows = []
    for name, path in module_files(package_dir).items():
        source = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(source)) or ""
        if not doc.strip():
            raise ValueError(f"模块 {name} 没有文档字符串：每个模块都要有一句说明")
        first = doc.strip().splitlines()[0]
        row = {"模块": name, "它做什么": first, "讲解": "、".join(taught_at(source)) or "—"}
        if notebooks_dir is not None:
            row["用到它的章"] = "、".join(uses.get(name, [])) or "—"
        rows.append(row)
    return rows
