"""练习框架本身：时间限制、比较、三种判分、提示与答案、成绩记录、批改命令。"""
import hashlib
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook.exercises import (Case, ChoiceExercise, FunctionExercise, Mistake, NumberExercise,
                               call_with_time_limit)
from nlpbook.exercises.compare import describe, same
from nlpbook.exercises.grade import format_table, grade_notebook

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from exercise_cells import cells_for, setup_cell  # noqa: E402


# ---- 时间限制 ---------------------------------------------------------------
def test_time_limit_stops_an_infinite_loop_and_leaves_the_thread_usable():
    def forever():
        while True:
            pass
    start = time.perf_counter()
    with pytest.raises(E.functions.TimeLimitExceeded):
        call_with_time_limit(forever, seconds=0.2)
    assert time.perf_counter() - start < 2
    assert call_with_time_limit(lambda: 41 + 1, seconds=0.2) == 42
    time.sleep(0.3)   # 看门狗不会在之后再把异常注入进来
    assert sum(range(100_000)) == 4_999_950_000


def test_time_limit_is_not_swallowed_by_except_exception():
    def stubborn():
        while True:
            try:
                while True:
                    pass
            except Exception:  # noqa: BLE001 - 读者可能这样写
                pass
    with pytest.raises(E.functions.TimeLimitExceeded):
        call_with_time_limit(stubborn, seconds=0.2)


# ---- 比较 -------------------------------------------------------------------
@pytest.mark.parametrize("expected, got, ok", [
    (0.5, 0.5000001, True), ([1, 2], np.array([1.0, 2.0]), True), ([1, 2], [1, 2, 3], False),
    ({"a": 1}, {"a": 1.0}, True), ({"a": 1}, {"b": 1}, False), ("好", "好", True), ("好", "坏", False),
    ([(0, 1), (2, 3)], [(0, 1), (2, 3)], True), ([("PER", 0, 2)], [("LOC", 0, 2)], False),
    (np.zeros((2, 3)), np.zeros((3, 2)), False), (1.0, float("nan"), False), (1.0, None, False),
    (True, 1, False), ([], [], True),
])
def test_same(expected, got, ok):
    assert same(expected, got)[0] is ok


def test_same_names_the_first_difference():
    assert same([0.5, 0.5], [0.5, 0.6])[1] == "第 1 项应为 0.5，得到 0.6"
    assert "形状" in same(np.zeros((2, 3)), np.zeros(6))[1]
    assert "NaN" in same([1.0, 2.0], [1.0, np.nan])[1]
    assert "return" in same(1.0, None)[1]


def test_describe_is_short_and_handles_ragged_input():
    assert describe([["电影", "好看"], ["不"]]) == "[['电影', '好看'], ['不']]"
    assert len(describe(np.arange(10_000.0))) <= 300
    assert describe(np.array([0.1234567, 2.0])) == "[0.1235, 2. ]"


# ---- 三种判分 ------------------------------------------------------------------
def _num():
    return NumberExercise("T1.1", "ln 4/3", expected=0.2877, tol=1e-3,
                          wrong=[(0.415, "以 2 为底")], hints=["一", "二"], answer="ln(4/3)")


def test_number_exercise_statuses():
    q = _num()
    assert q.evaluate(None).status == E.TODO
    assert q.evaluate(0.288).status == E.PASS
    r = q.evaluate(0.415)
    assert r.status == E.FAIL and "以 2 为底" in r.message
    msg = q.evaluate(1.0).message
    assert "你填的是 1" in msg and "0.2877" not in msg, "没请求答案时不能说出应得的值"
    assert q.evaluate("零点二九").status == E.FAIL


def test_choice_exercise_accepts_lower_case_and_rejects_unknown_options():
    q = ChoiceExercise("T1.2", "选", options={"A": "a", "B": "b"}, correct="B", reasons={"A": "不对"})
    assert q.evaluate("b").status == E.PASS
    assert "不对" in q.evaluate("A").message
    assert "可选的是" in q.evaluate("Z").message
    with pytest.raises(ValueError, match="reasons"):
        ChoiceExercise("T1.3", "选", options={"A": "a", "B": "b"}, correct="B", reasons={})


def _fn_exercise(**kw):
    def ref(z):
        z = np.asarray(z, dtype=float)
        e = np.exp(z - z.max())
        return e / e.sum()

    def naive(z):
        e = np.exp(np.asarray(z, dtype=float))
        return e / e.sum()

    def no_norm(z):
        return np.exp(np.asarray(z, dtype=float) - max(z))

    return FunctionExercise(
        "T1.4", "softmax", name="my_softmax", reference=ref,
        cases=[Case(([1.0, 2.0],)), Case(([1000.0, 0.0],), note="超大 logits")],
        random_cases=lambda rng: [Case((list(rng.normal(size=n)),)) for n in (3, 8)],
        mistakes=[Mistake("没有归一化", no_norm), Mistake("没有先减去最大值", naive)],
        stub="def my_softmax(z):\n    raise NotImplementedError\n", answer="...", hints=["减去最大值"], **kw)


def test_function_exercise_reports_smallest_failing_case_and_diagnosis():
    q = _fn_exercise()
    r = q.evaluate(q.mistakes[1].fn)
    assert r.status == E.FAIL
    assert "第 2 个例子（共 4 个）没有通过（超大 logits）" in r.message
    assert "输入：my_softmax([1000, 0])" in r.message
    assert "NaN" in r.message and "没有先减去最大值" in r.message
    assert "第 1 个例子" in q.evaluate(q.mistakes[0].fn).message


def test_function_exercise_catches_errors_shapes_timeouts_and_not_callable():
    q = _fn_exercise(time_limit=0.2)
    assert q.evaluate(None).status == E.TODO
    ns = {}
    exec(q.stub, ns)
    assert q.evaluate(ns["my_softmax"]).status == E.TODO
    assert "报错 ZeroDivisionError" in q.evaluate(lambda z: 1 / 0).message
    assert "形状应为 (2,)" in q.evaluate(lambda z: np.ones(3) / 3).message
    assert "没有返回值" in q.evaluate(lambda z: None).message
    assert "死循环" in q.evaluate(lambda z: [0 for _ in iter(int, 1)]).message
    assert "请传入函数本身" in q.evaluate(np.array([0.5, 0.5])).message


def test_function_exercise_does_not_let_the_reader_change_the_cases():
    q = _fn_exercise()

    def mutating(z):
        z[0] = 99.0
        return q.reference(z)
    q.evaluate(mutating)
    assert q.cases[0].args[0] == [1.0, 2.0]


def test_expected_exception_cases():
    def ref(n):
        if n < 0:
            raise ValueError("负数")
        return n * 2
    q = FunctionExercise("T1.5", "double", name="double", reference=ref,
                         cases=[Case((1,)), Case((-1,), note="负数要报错")], mistakes=[])
    assert q.evaluate(lambda n: n * 2).status == E.FAIL
    assert "应当抛出 ValueError" in q.evaluate(lambda n: n * 2).message

    def good(n):
        if n < 0:
            raise ValueError("no")
        return 2 * n
    assert q.evaluate(good).status == E.PASS


# ---- 提示、答案、成绩 ----------------------------------------------------------
def test_hint_levels_and_solution(capsys):
    q = _num()
    q.hint()
    q.hint()
    q.hint()
    out = capsys.readouterr().out
    assert "提示 1/2：一" in out and out.count("提示 2/2：二") == 2
    with pytest.raises(ValueError, match="1 到 2"):
        q.hint(3)
    q.solution()
    assert "ln(4/3)" in capsys.readouterr().out


def test_check_prints_and_records_and_progress_lists_the_chapter(capsys):
    E.reset_results()
    q = _num()
    q.check(0.288)
    assert "✓ 练习 T1.1：正确" in capsys.readouterr().out
    table = E.progress("T1")
    assert table["T1.1"] == E.PASS
    with pytest.raises(ValueError, match="没有导入"):
        E.progress("没有这一章")
    E.reset_results()


def test_bad_exercise_definitions_are_refused():
    with pytest.raises(ValueError, match="章.题"):
        NumberExercise("31", "x", expected=1)
    with pytest.raises(ValueError, match="函数名"):
        FunctionExercise("T1.9", "x", name="my fn", reference=abs, cases=[Case((1,))])
    with pytest.raises(ValueError, match="可选"):
        E.load("99")


# ---- 批改命令 -------------------------------------------------------------------
def _student_notebooks(tmp_path):
    """三份“学生作业”：全对、有错、没动过（都用第 3 章的练习单元）。"""
    from nlpbook.exercises import ch03
    qs = [ch03.q1, ch03.q2, ch03.q3, ch03.q4]

    def make(name, fill):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells.append(setup_cell("03"))
        for q in qs:
            stub, check = cells_for(q)
            if fill is not None:
                stub.source = fill(q)
            nb.cells += [stub, check]
        path = tmp_path / name
        nbformat.write(nb, path)
        return path

    passing = make("alice.ipynb", lambda q: q.filled)
    failing = make("bob.ipynb", lambda q: ("answer_2 = 0.415" if q.id == "03.2" else
                                          "def my_tf_idf(docs, vocab):\n    return 1/0" if q.id == "03.4"
                                          else q.filled))
    untouched = make("carol.ipynb", None)
    return passing, failing, untouched


def test_grader_runs_each_notebook_and_never_modifies_them(tmp_path):
    paths = _student_notebooks(tmp_path)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}
    out = subprocess.run([sys.executable, "-m", "nlpbook.exercises", "grade", str(tmp_path),
                          "--csv", str(tmp_path / "grades.csv"), "--timeout", "60"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}
    assert before == after, "批改不能修改学生的 notebook"
    lines = out.stdout.splitlines()
    row = {ln.split()[0]: ln.split()[1:] for ln in lines[1:4]}
    assert lines[0].split()[1:5] == ["03.1", "03.2", "03.3", "03.4"]
    assert row["alice.ipynb"] == ["passed"] * 4 + ["4/4"]
    assert row["bob.ipynb"] == ["passed", "failed", "passed", "failed", "2/4"]
    assert row["carol.ipynb"] == ["—"] * 4 + ["0/4"]
    csv_text = (tmp_path / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert csv_text[0] == "file,03.1,03.2,03.3,03.4,passed,error"
    assert csv_text[3] == "carol.ipynb,not attempted,not attempted,not attempted,not attempted,0,"


def test_grader_reports_a_notebook_without_exercises_and_a_broken_file(tmp_path):
    empty = tmp_path / "empty.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), empty)
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{不是 json", encoding="utf-8")
    rows = [grade_notebook(empty, timeout=60), grade_notebook(broken)]
    assert "没有找到练习" in rows[0]["error"]
    assert "读不了" in rows[1]["error"]
    assert "注意" in format_table(rows)


def test_grader_usage_errors_exit_2(tmp_path):
    out = subprocess.run([sys.executable, "-m", "nlpbook.exercises", "grade", str(tmp_path / "nope.txt")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "不是 .ipynb" in out.stderr
