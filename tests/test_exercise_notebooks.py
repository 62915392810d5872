"""每章的练习：题量够、notebook 里的起始代码与包里一致、填上参考答案全部通过、原样运行全是“还没有作答”。

这里只执行 notebook 里带练习标记的单元（练习单元只依赖本章的 setup 单元，自成一体），
所以不需要内核，几秒钟就能把 19 章都跑一遍。
"""
import contextlib
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook.exercises import ExplainExercise, FunctionExercise

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from exercise_cells import check_source, setup_source  # noqa: E402

NB_DIR = ROOT / "notebooks"


def _notebook(chapter):
    pattern = f"{chapter}-*.ipynb"
    found = sorted(NB_DIR.glob(pattern))
    assert len(found) == 1, f"第 {chapter} 章应有一个 notebook，找到 {found}"
    return found[0]


def _questions(mod):
    names = sorted((n for n in vars(mod) if n[:1] == "q" and n[1:].isdigit()), key=lambda n: int(n[1:]))
    return [getattr(mod, n) for n in names]


def _exercise_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "nlpbook" in c["metadata"]]


def _run(cells, filled: bool):
    """依次执行练习单元（filled=True 时把起始代码换成参考答案），返回打印的文字。"""
    ns: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for c in cells:
            meta = c["metadata"]["nlpbook"]
            src = "".join(c["source"])
            if filled and meta["role"] == "stub":
                ex = _by_id(meta["exercise"])
                src = ex.filled
            exec(compile(src, f"<练习 {meta['exercise']} {meta['role']}>", "exec"), ns)
    return out.getvalue()


def _by_id(ex_id):
    mod = E.load(ex_id.partition(".")[0])
    return getattr(mod, "q" + ex_id.partition(".")[2])


def _present():
    """已有练习模块的章节；缺模块的章节由 test_chapter_has_enough_exercises 报失败。"""
    out = []
    for ch in E.CHAPTERS:
        try:
            E.load(ch)
        except ModuleNotFoundError:
            continue
        out.append(ch)
    return out


CHAPTERS = list(E.CHAPTERS)
PRESENT = _present()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_has_enough_exercises(chapter):
    assert chapter in PRESENT, f"第 {chapter} 章还没有练习模块 nlpbook/exercises/{E.CHAPTERS[chapter]}.py"
    qs = _questions(E.load(chapter))
    assert [q.id for q in qs] == [f"{chapter}.{i}" for i in range(1, len(qs) + 1)], "题号要连续，从 1 开始"
    assert len(qs) >= 4, f"第 {chapter} 章只有 {len(qs)} 道练习，至少要 4 道"
    n_fn = sum(isinstance(q, FunctionExercise) for q in qs)
    assert n_fn >= 2, f"第 {chapter} 章只有 {n_fn} 道“自己实现”的练习，至少要 2 道"


def test_at_least_forty_function_exercises():
    n = sum(isinstance(q, FunctionExercise) for ch in PRESENT for q in _questions(E.load(ch)))
    assert n >= 40, n


@pytest.mark.parametrize("chapter", PRESENT)
def test_notebook_cells_match_the_package(chapter):
    cells = _exercise_cells(_notebook(chapter))
    assert cells, "notebook 里没有练习单元"
    first = cells[0]["metadata"]["nlpbook"]
    assert first == {"exercise": chapter, "role": "setup"}, "第一个练习单元应是 setup"
    assert "".join(cells[0]["source"]) == setup_source(chapter)
    seen = {}
    for c in cells[1:]:
        meta = c["metadata"]["nlpbook"]
        if meta["role"] == "setup":   # 后面的小节可以再放一个 setup，让那里的练习不依赖前一节
            assert meta["exercise"] == chapter and "".join(c["source"]) == setup_source(chapter)
            continue
        seen.setdefault(meta["exercise"], []).append(meta["role"])
        ex = _by_id(meta["exercise"])
        src = "".join(c["source"])
        if meta["role"] == "stub":
            assert src == ex.stub.rstrip("\n"), f"{ex.id} 的起始代码与包里的 stub 不一致"
        elif meta["role"] == "check":
            assert src == check_source(ex), f"{ex.id} 的检查单元应写成 {check_source(ex)}"
        else:
            pytest.fail(f"未知的 role {meta['role']!r}")
    graded = [q.id for q in _questions(E.load(chapter)) if q.graded]
    assert sorted(seen) == sorted(graded), "每道计分题在 notebook 里都要有起始代码和检查单元"
    assert all(roles == ["stub", "check"] for roles in seen.values()), seen


@pytest.mark.parametrize("chapter", PRESENT)
def test_untouched_notebook_says_not_done_yet(chapter):
    E.reset_results()
    text = _run(_exercise_cells(_notebook(chapter)), filled=False)
    graded = [q for q in _questions(E.load(chapter)) if q.graded]
    res = E.results()
    assert all(res[q.id].status == E.TODO for q in graded), {k: v.status for k, v in res.items()}
    assert text.count("还没有作答") == len(graded)


@pytest.mark.parametrize("chapter", PRESENT)
def test_filled_with_reference_solutions_every_check_passes(chapter):
    E.reset_results()
    text = _run(_exercise_cells(_notebook(chapter)), filled=True)
    graded = [q for q in _questions(E.load(chapter)) if q.graded]
    res = E.results()
    failed = {q.id: res[q.id].message for q in graded if res[q.id].status != E.PASS}
    assert not failed, failed
    assert "✗" not in text


def _sections(path):
    """[(小节标题, [练习单元…])]：按 “## ” 标题切开（标题在单元中间也算）。"""
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = [("", [])]
    for c in nb["cells"]:
        if c["cell_type"] == "markdown":
            for line in "".join(c["source"]).splitlines():
                if line.startswith("## "):
                    out.append((line, []))
        elif "nlpbook" in c["metadata"]:
            out[-1][1].append(c)
    return [(title, cells) for title, cells in out if cells]


@pytest.mark.parametrize("chapter", PRESENT)
def test_each_exercise_runs_after_only_its_sections_setup_cell(chapter):
    """读者可以直接跳到任何一道题：只运行它所在小节的 setup 单元，起始代码和检查单元就能运行（原样与填好两种）。"""
    for title, cells in _sections(_notebook(chapter)):
        setup = [c for c in cells if c["metadata"]["nlpbook"]["role"] == "setup"]
        exercises = sorted({c["metadata"]["nlpbook"]["exercise"] for c in cells} - {chapter})
        if not exercises:
            continue
        assert setup and cells[0] is setup[0], f"小节 {title} 里的练习前面要有一个 setup 单元"
        for ex_id in exercises:
            own = [c for c in cells if c["metadata"]["nlpbook"]["exercise"] == ex_id]
            for filled in (False, True):
                E.reset_results()
                try:
                    _run(setup[:1] + own, filled=filled)
                except NameError as exc:
                    pytest.fail(f"练习 {ex_id} 依赖别的单元里定义的名字：{exc}")
                assert ex_id in E.results(), ex_id


# ---- 检查器会拒绝已知的错误 ------------------------------------------------------
def _all(kind):
    return [q for ch in PRESENT for q in _questions(E.load(ch)) if isinstance(q, kind)]


@pytest.mark.parametrize("q", _all(FunctionExercise), ids=lambda q: q.id)
def test_function_checker_rejects_each_known_mistake_with_its_message(q):
    assert len(q.mistakes) >= 2, f"{q.id} 至少要有两个已知错误实现"
    first_fail = []
    for m in q.mistakes:
        r = q.evaluate(m.fn)
        assert r.status == E.FAIL, f"{q.id} 放过了错误实现：{m.message}"
        assert m.message in r.message, f"{q.id}：错误实现“{m.message}”得到的说明是\n{r.message}"
        first_fail.append(int(r.message.split("第 ")[1].split(" 个")[0]))
    assert max(first_fail) > 1, f"{q.id} 需要一个只在后面的（边界）例子上才出错的错误实现"


@pytest.mark.parametrize("q", _all(FunctionExercise), ids=lambda q: q.id)
def test_function_reference_solution_passes_and_stub_is_not_attempted(q):
    ns = {"np": np}   # notebook 的 setup 单元提供 np
    exec(q.filled, ns)
    assert q.evaluate(ns[q.name]).status == E.PASS, q.evaluate(ns[q.name]).message
    ns = {"np": np}
    exec(q.stub, ns)
    assert q.evaluate(ns[q.name]).status == E.TODO
    assert q.hints and q.answer


@pytest.mark.parametrize("q", _all(E.NumberExercise), ids=lambda q: q.id)
def test_number_checker_names_each_known_wrong_value(q):
    assert len(q.wrong) >= 2, f"{q.id} 至少要有两个已知错值"
    for value, msg in q.wrong:
        r = q.evaluate(value)
        assert r.status == E.FAIL and msg in r.message, (value, r.message)


@pytest.mark.parametrize("q", _all(E.ChoiceExercise), ids=lambda q: q.id)
def test_choice_checker_gives_a_reason_for_each_wrong_option(q):
    for key in q.options:
        r = q.evaluate(key)
        assert (r.status == E.PASS) == (key == q.correct)
        if key != q.correct:
            assert q.reasons[key] in r.message


def test_explain_exercises_are_not_graded():
    for q in _all(ExplainExercise):
        assert not q.graded and q.answer
