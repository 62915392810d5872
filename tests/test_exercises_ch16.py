"""第 16 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import numpy as np

from nlpbook.exercises import ch16 as ex
from nlpbook.tagging import decode_independent, entity_prf, path_score, tags_to_spans, viterbi
from _exercise_checks import fails as _fails, passes as _passes

NEG = -np.inf
UNARY = np.array([[2.0, NEG, 1.0], [NEG, 1.5, 1.8]])        # 16.3 节：北京 大学；B-ORG、I-ORG、O


# ---- 题目里的数字 -------------------------------------------------------------
def test_q2_zero_transitions_give_the_independent_path():
    path, score = viterbi(UNARY, np.zeros((3, 3)))
    assert path == decode_independent(UNARY) == [0, 2] and score == ex.q2.expected == 3.8
    assert path_score(UNARY, np.zeros((3, 3)), np.array([0, 1])) == 3.5


def test_q3_and_the_worked_prf_numbers():
    gold = [("PER", 10 * k, 10 * k + 2) for k in range(20)]
    r = entity_prf([gold], [gold[:5]])
    assert np.allclose((r["precision"], r["recall"], r["f1"]), ex.q3.expected)
    p, rec, f1 = ex.q6.reference(*ex.q6.cases[0].args)                  # 16.4 节的 8/10/12
    assert (round(p, 3), round(rec, 3), round(f1, 3)) == (0.8, 0.667, 0.727)


def test_q5_worked_viterbi_is_b_org_i_org():
    assert ex.q5.reference(*ex.q5.cases[2].args) == ([0, 1], 4.5)


# ---- 选择题与填数题 ------------------------------------------------------------
def test_q1_rejects_a_letter_that_is_not_an_option():
    _fails(ex.q1, "D", "没有选项")


def test_q2_rejects_a_single_position_score():
    _fails(ex.q2, 1.8, "还不对")


def test_q3_rejects_a_missing_f1():
    _fails(ex.q3, (1.0, 0.25), "形状")


# ---- q4：标签 → 片段 -------------------------------------------------------------------
def test_q4_strict_conversion_raises_on_an_orphan_i():
    msg = _fails(ex.q4, tags_to_spans, "报错 ValueError", "句首就是 I-ORG")     # 包的默认 strict=True
    assert "第 6 个例子" in msg


def test_q4_spans_sorted_by_type():
    _fails(ex.q4, lambda tags: sorted(tags_to_spans(tags, strict=False)), "16.2 节", "第 0 项")


def test_q4_lists_instead_of_tuples_are_accepted():
    _passes(ex.q4, lambda tags: [list(s) for s in tags_to_spans(tags, strict=False)])


# ---- q5：Viterbi --------------------------------------------------------------------------
def test_q5_returns_a_forbidden_path_instead_of_raising():
    def fn(unary, transitions, start=None, end=None):
        try:
            return viterbi(unary, transitions, start, end)
        except ValueError:
            return [0] * len(unary), float("-inf")
    _fails(ex.q5, fn, "ValueError", "都被禁止")


def test_q5_forgot_to_reverse_the_backtracked_path():
    def fn(unary, transitions, start=None, end=None):
        path, score = viterbi(unary, transitions, start, end)
        return path[::-1], score
    _fails(ex.q5, fn, "路径：", "16.3 节")


def test_q5_numpy_path_is_accepted():
    def fn(unary, transitions, start=None, end=None):
        path, score = viterbi(unary, transitions, start, end)
        return np.array(path), np.float64(score)
    _passes(ex.q5, fn)


# ---- q6：实体级 P、R、F1 -----------------------------------------------------------------
def _counts(gold, pred):
    tp = fp = fn = 0
    for g, p in zip(gold, pred):
        g, p = set(map(tuple, g)), set(map(tuple, p))
        tp, fp, fn = tp + len(g & p), fp + len(p - g), fn + len(g - p)
    return tp, fp, fn


def test_q6_without_zero_guards_divides_by_zero():
    def fn(gold, pred):
        tp, fp, fn_ = _counts(gold, pred)
        p, r = tp / (tp + fp), tp / (tp + fn_)
        return p, r, 2 * p * r / (p + r)
    _fails(ex.q6, fn, "ZeroDivisionError", "P + R = 0")


def test_q6_percentages():
    def fn(gold, pred):
        r = entity_prf(gold, pred)
        return 100 * r["precision"], 100 * r["recall"], 100 * r["f1"]
    _fails(ex.q6, fn, "16.4 节", "结果不对")


def test_q6_f1_from_counts_is_the_same_number():
    def fn(gold, pred):
        tp, fp, fn_ = _counts(gold, pred)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn_) if tp + fn_ else 0.0
        return p, r, (2 * tp / (2 * tp + fp + fn_) if tp else 0.0)     # 2TP/(2TP+FP+FN) 就是 F1
    _passes(ex.q6, fn)
