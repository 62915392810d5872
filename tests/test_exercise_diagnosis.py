"""“可能的原因”只在它确实是读者的错误时才说（练习检查器的诊断）。

一个已知错误的说法出现在别的错误实现的结果里，只有两者直到失败的那个例子都无法区分时才算对；
该报错却返回了值（缺了检查）时，结果太容易碰巧与某个已知错误相同，诊断必须更严格。
"""
import math

import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook.exercises.functions import FunctionExercise

FUNCTION_EXERCISES = [q for ch in E.CHAPTERS for q in vars(E.load(ch)).values() if isinstance(q, FunctionExercise)]


def _agree(q, f, g, case) -> bool:
    """f 与 g 在这个例子上行为相同：都抛同类异常，或结果相同。"""
    (sf, of), (sg, og) = q._run(f, case), q._run(g, case)
    if sf == "error" or sg == "error":
        return sf == sg == "error" and type(of) is type(og)
    return sf == sg == "ok" and q.compare(of, og)[0]


def _first_failure(message: str) -> int:
    return int(message.split("第 ")[1].split(" 个")[0])


@pytest.mark.parametrize("q", [q for q in FUNCTION_EXERCISES if len({m.message for m in q.mistakes}) > 1],
                         ids=lambda q: q.id)
def test_a_different_wrong_implementation_is_not_given_another_mistakes_message(q):
    """把每个已知错误当成“读者的实现”：别的错误的说法只有在两者直到失败的例子都分不开时才可以出现。"""
    cases = q.all_cases()
    for wrong in q.mistakes:
        result = q.evaluate(wrong.fn)
        assert result.status == E.FAIL, f"{q.id}：已知错误“{wrong.message[:30]}”竟然通过了全部例子"
        n = _first_failure(result.message)
        for other in q.mistakes:
            if other.message == wrong.message or other.message not in result.message:
                continue
            assert all(_agree(q, wrong.fn, other.fn, c) for c in cases[:n]), \
                f"{q.id}：“{wrong.message[:30]}”的实现得到了“{other.message[:30]}”的诊断"


def _no_check(q):
    """缺了检查的实现：参考实现该报错的例子上返回 NaN（像 0/0 那样），其余例子与参考相同。"""
    def fn(*args, **kwargs):
        try:
            return q.reference(*args, **kwargs)
        except Exception:  # noqa: BLE001
            return math.nan
    return fn


RAISING = [q for q in FUNCTION_EXERCISES if any(q._run(q.reference, c)[0] == "error" for c in q.all_cases())]


@pytest.mark.parametrize("q", RAISING, ids=lambda q: q.id)
def test_a_missing_check_is_not_blamed_on_an_unrelated_mistake(q):
    """该报错的例子上返回了 NaN：只有在前面每个例子都和参考一致、这里也返回同样结果的已知错误才可以被说出来。"""
    result = q.evaluate(_no_check(q))
    assert result.status == E.FAIL and "应当抛出" in result.message
    cases = q.all_cases()
    n = _first_failure(result.message)
    for mistake in q.mistakes:
        if mistake.message in result.message:
            assert all(q._passes(mistake.fn, c) for c in cases[:n - 1]), f"{q.id}：NaN 被说成“{mistake.message[:30]}”"


def test_the_rule_on_a_small_example():
    """手写的小题：缺了检查返回 NaN 的实现，不能被说成“忘了开平方”（那个错误在第 1 个例子上就错了）。"""
    from nlpbook.exercises.functions import Case, Mistake

    def norm(v):
        v = np.asarray(v, float)
        if not v.any():
            raise ValueError("零向量没有方向")
        return v / np.sqrt((v * v).sum())

    q = FunctionExercise("99.1", "单位向量", name="unit", reference=norm,
                         cases=[Case(([3.0, 4.0],)), Case(([0.0, 0.0],), note="零向量要报错")],
                         mistakes=[Mistake("忘了开平方", lambda v: np.asarray(v, float) / (np.asarray(v, float) ** 2).sum())])
    no_check = lambda v: np.asarray(v, float) / np.sqrt((np.asarray(v, float) ** 2).sum())  # noqa: E731
    message = q.evaluate(no_check).message
    assert "应当抛出 ValueError" in message and "忘了开平方" not in message
    assert "忘了开平方" in q.evaluate(q.mistakes[0].fn).message        # 真是这个错误时照样说出来


def test_full_width_letters_and_percentages_are_understood():
    from nlpbook.exercises.kinds import ChoiceExercise, NumberExercise
    choice = ChoiceExercise("99.2", "选一项", options={"A": "甲", "B": "乙"}, correct="B", reasons={"A": "不对"})
    assert choice.evaluate("Ｂ").status == E.PASS and choice.evaluate(" ｂ ").status == E.PASS
    assert "不是 'A'" in choice.evaluate("Ａ").message
    frac = NumberExercise("99.3", "比例", expected=(0.25, 0.4), tol=1e-3)
    msg = frac.evaluate((25, 40)).message
    assert "0—1 之间的比例" in msg
    assert "比例" not in NumberExercise("99.4", "个数", expected=25, tol=0).evaluate(2500).message
