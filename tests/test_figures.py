"""每张图都有图注：输出里有 PNG 图或 SVG 图的代码单元，下一个单元必须是以“**图 ”开头的 markdown 单元。"""
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CAPTION = re.compile(r"^\*\*图 ([0-9]+|[A-Z])\.[0-9]+\*\*\u3000\S")   # **图 13.2**　一句话


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def is_figure(cell) -> bool:
    if cell.cell_type != "code":
        return False
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if "image/png" in data or "<svg" in _text(data.get("text/html", "")):
            return True
    return False


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_is_followed_by_its_caption(path):
    cells = nbformat.read(path, as_version=4).cells
    problems, numbers = [], []
    for i, cell in enumerate(cells):
        if not is_figure(cell):
            continue
        nxt = cells[i + 1] if i + 1 < len(cells) else None
        if nxt is None or nxt.cell_type != "markdown" or not nxt.source.startswith("**图 "):
            problems.append(f"第 {i + 1} 个单元（{cell.source.splitlines()[0][:40] if cell.source else ''}）后面缺少图注")
            continue
        first = nxt.source.splitlines()[0]
        if not CAPTION.match(first):
            problems.append(f"第 {i + 2} 个单元的图注格式应为“**图 N.k**　说明”：{first[:40]}")
        numbers.append(first[len("**图 "):first.index("**", 2)])
    assert not problems, f"{path.name}：" + "；".join(problems)
    ks = [int(n.split(".")[1]) for n in numbers]
    assert ks == list(range(1, len(ks) + 1)), f"{path.name} 的图号应从 1 起连续编号：{numbers}"
    prefix = path.stem.split("-")[0]
    chapter = str(int(prefix)) if prefix.isdigit() else prefix          # "04" → "4"，附录 "A" → "A"
    wrong = [n for n in numbers if n.split(".")[0] != chapter]
    assert not wrong, f"{path.name} 的图号应以本章的 {chapter} 开头：{wrong}"
