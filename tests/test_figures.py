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
        if "application/vnd.jupyter.widget-view+json" in data:   # 面板（静态视图只是它的后备显示），不是图
            continue
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


def is_png_figure(cell) -> bool:
    return cell.cell_type == "code" and any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))


FIGURE_REPR = re.compile(r"^<(Figure|matplotlib|IPython)[^>]*>$")


def figure_text(cell) -> str:
    """图所在单元里除图本身以外的文字输出（print 的摘要、表格、断言说明），不算 matplotlib 的 <Figure …> 占位。"""
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(_text(out.get("text", "")))
        data = out.get("data", {})
        if "image/png" in data or "<svg" in _text(data.get("text/html", "")):
            continue
        for kind in ("text/plain", "text/html", "text/markdown"):
            if kind in data and not FIGURE_REPR.match(_text(data[kind]).strip()):
                parts.append(_text(data[kind]))
                break
    return "".join(parts).strip()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_prints_the_numbers_it_draws(path):
    """nbval 比较文字输出（SVG 图在 text/html 里，本身就是文字，会被比较），但不比较 PNG 图片：
    画 PNG 的单元还要把它画的数字以文字打印出来（简短摘要或断言说明即可），这样图背后的数据一变，CI 就会失败。"""
    cells = nbformat.read(path, as_version=4).cells
    silent = [f"第 {i + 1} 个单元（{c.source.splitlines()[0][:40] if c.source else ''}）"
              for i, c in enumerate(cells) if is_png_figure(c) and not figure_text(c)]
    assert not silent, f"{path.name}：这些图没有以文字打印它画的数字：" + "；".join(silent)
