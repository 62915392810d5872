"""实验题（ExperimentExercise）的判分：先预测、设置合规、结果落在记录给出的范围里；预测对错只影响说明。"""
import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook.exercises import ExperimentExercise


def _toy():
    # 玩具实验：设置 x ∈ (0, 10)，“记录”说结果约等于 2x，允许 ±0.5
    return ExperimentExercise(
        "99.1", "把 x 加倍，结果怎么变？",
        options={"A": "结果变大", "B": "结果变小"},
        outcome=lambda x, r: "A" if x > 1 else "B",
        reasons={"A": "结果随 x 增长。", "B": "x < 1 时结果比 x = 1 时小。"},
        validate=lambda x: (None if isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < 10
                            else f"x 要是 0 到 10 之间的数，收到 {x!r}"),
        band=lambda x: {"result": (2 * x - 0.5, 2 * x + 0.5)},
        basis="记录：结果 ≈ 2x，放宽 ±0.5")


def test_each_step_says_what_is_missing():
    q = _toy()
    assert q.evaluate(None).status == E.TODO
    assert q.evaluate({"prediction": None, "setting": None, "result": None}).status == E.TODO
    r = q.evaluate({"prediction": "A", "setting": None, "result": None})
    assert r.status == E.TODO and "还没有选设置" in r.message
    r = q.evaluate({"prediction": "A", "setting": 3, "result": None})
    assert r.status == E.TODO and "还没有结果" in r.message


def test_bad_inputs_get_a_message_not_an_exception():
    q = _toy()
    assert "字典" in q.evaluate([1, 2]).message
    assert "多了" in q.evaluate({"prediction": "A", "setting": 3, "result": 6, "x": 1}).message
    assert "没有预测选项" in q.evaluate({"prediction": "C", "setting": 3, "result": 6}).message
    for bad in ("3", True, 11, float("nan")):
        r = q.evaluate({"prediction": "A", "setting": bad, "result": 6})
        assert r.status == E.FAIL and "x 要是 0 到 10" in r.message
    for bad in ("6", float("inf"), [6]):
        r = q.evaluate({"prediction": "A", "setting": 3, "result": bad})
        assert r.status == E.FAIL and "有限的数" in r.message


def test_result_outside_the_band_fails_with_the_range_and_its_basis():
    r = _toy().evaluate({"prediction": "A", "setting": 3, "result": 7.0})
    assert r.status == E.FAIL and "[5.5, 6.5]" in r.message and "记录：结果 ≈ 2x" in r.message


def test_pass_does_not_depend_on_the_prediction_but_the_message_does():
    q = _toy()
    right = q.evaluate({"prediction": "Ａ", "setting": 3, "result": np.float64(6.2)})   # 全角字母也认
    assert right.status == E.PASS and "预测 A 对了" in right.message
    wrong = q.evaluate({"prediction": "b", "setting": 3, "result": 6.2})
    assert wrong.status == E.PASS and "实际是 A" in wrong.message and "结果随 x 增长" in wrong.message


def test_named_results():
    q = ExperimentExercise(
        "99.2", "两个量", options={"A": "a", "B": "b"}, outcome=lambda s, r: "A",
        reasons={"A": "因为 a。", "B": "因为 b。"}, validate=lambda s: None,
        band=lambda s: {"reward": (0.0, 1.0), "kl": (0.0, 2.0)}, basis="玩具范围")
    assert q.evaluate({"prediction": "A", "setting": 1, "result": {"reward": 0.5, "kl": 1.0}}).passed
    r = q.evaluate({"prediction": "A", "setting": 1, "result": {"reward": 0.5}})
    assert r.status == E.FAIL and "kl" in r.message
    r = q.evaluate({"prediction": "A", "setting": 1, "result": {"reward": 0.5, "kl": 3.0}})
    assert r.status == E.FAIL and "kl = 3" in r.message


def test_constructor_rejects_incomplete_definitions():
    with pytest.raises(ValueError):
        ExperimentExercise("99.3", "t", options={"A": "a"}, outcome=None, reasons={"A": ""},
                           validate=None, band=None, basis="b")
    with pytest.raises(ValueError):
        ExperimentExercise("99.3", "t", options={"A": "a", "B": "b"}, outcome=None, reasons={"A": ""},
                           validate=None, band=None, basis="b")


@pytest.fixture(autouse=True)
def _forget_toy_chapter():
    yield
    from nlpbook.exercises.base import _CHAPTERS
    _CHAPTERS.pop("99", None)


@pytest.mark.parametrize("chapter", ["13", "14", "15", "16", "17", "18"])
def test_each_late_chapter_has_a_graded_experiment(chapter):
    mod = E.load(chapter)
    found = [getattr(mod, n) for n in mod.__all__ if isinstance(getattr(mod, n), ExperimentExercise)]
    assert found, f"第 {chapter} 章还没有实验题"
    for q in found:
        assert q.graded and q.stub and q.filled and q.answer and q.hints
        assert "prediction" in q.stub and "setting" in q.stub, "起始代码要先写预测、再选设置"
