"""存储的 notebook 本身：都从头到尾执行过、输出干净、练习答案折叠、README 与导读链接到每一章。
（Binder 链接与相对链接是否指向存在的文件，在 test_binder.py 里检查。）

没有存输出的 notebook 会让 nbval 什么都不比较就通过，所以这里逐格检查执行编号。
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LEAKS = re.compile(r"(/root/|/tmp/|/work/|/home/|/Users/|[A-Z]:\\\\|\b0x[0-9a-fA-F]{6,}\b)")


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _code(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_there_are_notebooks():
    names = [p.name for p in NOTEBOOKS]
    for expected in ["00-guide.ipynb", "01-task.ipynb", "02-tokens.ipynb", "03-bow-tfidf.ipynb",
                     "04-learning.ipynb"]:
        assert expected in names
    assert all(re.fullmatch(r"[A-Za-z0-9._\-]+", n) for n in names), "文件名要用 ASCII（会进 URL）"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_in_order(path):
    counts = [c["execution_count"] for c in _code(_load(path))]
    assert counts, "没有代码单元"
    assert counts == list(range(1, len(counts) + 1)), \
        f"执行编号是 {counts}：请用 make notebooks 从头到尾重新执行并保存"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_clean(path):
    for i, cell in enumerate(_code(_load(path)), 1):
        for out in cell["outputs"]:
            assert out["output_type"] != "error", f"代码单元 {i} 有报错输出"
            assert not (out["output_type"] == "stream" and out["name"] == "stderr"), \
                f"代码单元 {i} 有 stderr 输出：{''.join(out['text'])[:200]}"
            texts = [out.get("text", "")] + [v for k, v in out.get("data", {}).items() if k.startswith("text/")]
            m = LEAKS.search("".join("".join(t) for t in texts))
            assert not m, f"代码单元 {i} 的输出含有与机器有关的内容：{m.group(0)!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_folded_answers(path):
    nb = _load(path)
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    if path.name[:2].isdigit() and path.name[:2] != "00":
        assert "<details>" in md and "<summary>答案</summary>" in md, "小练习需要折叠的答案"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_ignored_cells_say_why(path):
    """被 nbval 排除比较的单元必须在第一行注释里写明原因。"""
    for i, cell in enumerate(_code(_load(path)), 1):
        if "nbval-ignore-output" in cell["metadata"].get("tags", []):
            first = "".join(cell["source"]).splitlines()[0]
            assert first.startswith("# nbval-ignore-output"), f"代码单元 {i} 被排除却没写原因"
        elif "".join(cell["source"]).startswith("# nbval-ignore-output"):
            raise AssertionError(f"代码单元 {i} 写着不比较，却没有 nbval-ignore-output 标签（nbval 照样会比较它）")


def test_readme_and_guide_link_every_notebook():
    """README 与导读都链接到每一个 notebook（相对链接或 Binder 链接都算）。"""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guide = "\n".join("".join(c["source"]) for c in _load(ROOT / "notebooks" / "00-guide.ipynb")["cells"]
                      if c["cell_type"] == "markdown")
    names = {p.name for p in NOTEBOOKS}
    for text in (readme, guide):
        linked = set(re.findall(r"labpath=notebooks%2F([\w.\-]+\.ipynb)", text))
        linked |= set(re.findall(r"\]\((?:notebooks/)?([\w.\-]+\.ipynb)\)", text))
        assert names <= linked, f"这些 notebook 没有链接：{sorted(names - linked)}"


TRAINED = re.compile(r"\.contains\(|\bhistory\b|\bhist\w*\[|\blive\w*\b|\bval_acc\b|separated\(|\.loc\[.*\"F1\"\]")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_assert_on_a_trained_result(path):
    """训练出的数字因 CPU 而异（BLAS 内核的舍入被训练放大）：notebook 只印结论（spread.live_verdict），不 assert；
    在每种内核下检查它的是 nbval 与 tests/ 里的记录测试（scripts/machine_matrix.py）。"""
    for i, cell in enumerate(_code(_load(path)), 1):
        for line in "".join(cell["source"]).splitlines():
            if line.lstrip().startswith("assert ") and TRAINED.search(line):
                raise AssertionError(f"代码单元 {i} 对训练结果做了 assert（读者的机器上可能失败）：{line.strip()}")


_VALIDATION = re.compile(r"raise |_check|check_|isinstance\(")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_printed_source_shows_the_idea_not_the_input_checks(path):
    """印出包里函数源码的单元（inspect.getsource）不能把输入检查也印出来：先在 notebook 里写出简短的版本、
    和包里的对一下，再用包；要看包里的代码，就看没有检查的那部分。"""
    for i, cell in enumerate(_code(_load(path)), 1):
        if "getsource" not in "".join(cell["source"]):
            continue
        text = "".join("".join(o.get("text", "")) for o in cell["outputs"])
        bad = [line.strip() for line in text.splitlines() if _VALIDATION.search(line)]
        assert not bad, f"代码单元 {i} 印出的源码里有输入检查：{bad[:3]}"
