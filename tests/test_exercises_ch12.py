"""第 12 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import numpy as np
import pytest

from nlpbook.attention import attention_from_scores
from nlpbook.exercises import ch12 as ex
from _exercise_checks import fails as _fails, passes as _passes


def _softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ---- 题目里的数字 -------------------------------------------------------------
def test_worked_numbers_match_the_course_functions():
    ctx, w = attention_from_scores([0.0, 1.0, 2.0], ex.VALUES)
    assert np.allclose(np.round(w, 3), [0.090, 0.245, 0.665]) and np.allclose(np.round(ctx, 3), [0.755, 0.910])
    ctx2, w2 = attention_from_scores([0.0, 2.0, 4.0], ex.VALUES)                   # 练习 2
    assert np.allclose(np.round(w2, 3), [0.016, 0.117, 0.867])
    assert np.allclose(ctx2, ex.q2.expected) and np.allclose(np.round(ctx2, 3), [0.883, 0.984])
    assert np.allclose(attention_from_scores([5.0, 6.0, 7.0], ex.VALUES)[1], w)   # 练习 3：加 5 不变


def test_q5_first_case_reproduces_the_scores_of_section_12_3():
    s, H = (np.asarray(a) for a in ex.q5.cases[0].args)
    assert np.allclose(H @ s, [0.0, 1.0, 2.0])
    ctx, w = ex.q5.reference(s, H)
    assert np.allclose(np.round(w, 3), [0.090, 0.245, 0.665])


# ---- 选择题与填数题 ------------------------------------------------------------
@pytest.mark.parametrize("q", [ex.q1, ex.q3], ids=lambda q: q.id)
def test_choice_accepts_lower_case_and_rejects_a_missing_letter(q):
    _passes(q, "b")
    _fails(q, "D", "没有选项")


def test_q2_rejects_a_swapped_vector_and_a_single_number():
    _fails(ex.q2, [0.984, 0.883], "还不对")          # 两维对调：没有列出的错值也要判错
    _fails(ex.q2, 0.883, "形状")
    _passes(ex.q2, np.array([0.8827, 0.9841]))


# ---- q4：分数 → 权重 → 上下文 ---------------------------------------------------------
def _afs_context_only(scores, values):  # 只返回了上下文
    w = _softmax(np.asarray(scores, dtype=float))
    return w @ np.asarray(values, dtype=float)


def _afs_global(scores, values):  # 整张表一起归一化：所有格子加起来等于 1
    s = np.asarray(scores, dtype=float)
    e = np.exp(s - s.max())
    w = e / e.sum()
    return w @ np.asarray(values, dtype=float), w


def _afs_values_transposed(scores, values):  # 用了 values 的转置
    w = _softmax(np.asarray(scores, dtype=float))
    return w @ np.asarray(values, dtype=float).T, w


def test_q4_rejects_more_wrong_attention():
    _fails(ex.q4, _afs_context_only, "第 1 个例子", "应返回两项 (context, weights)")
    msg = _fails(ex.q4, _afs_global, "12.4 节的表")
    assert "第 6 个例子" in msg                       # 一维的例子都碰巧对，要等到第一张表才露馅
    _fails(ex.q4, _afs_values_transposed, "第 1 个例子")


# ---- q5：点积打分 ---------------------------------------------------------------------
def _dot_cosine(decoder_state, encoder_states):  # 用了余弦相似度：除以了两边的长度
    H = np.asarray(encoder_states, dtype=float)
    s = np.asarray(decoder_state, dtype=float)
    norms = np.linalg.norm(H, axis=1) * np.linalg.norm(s)
    scores = H @ s / np.where(norms == 0, 1.0, norms)
    w = _softmax(scores)
    return w @ H, w


def _dot_last_state(decoder_state, encoder_states):  # 退回“只留最后一个记录”
    H = np.asarray(encoder_states, dtype=float)
    w = np.zeros(len(H))
    w[-1] = 1.0
    return H[-1], w


def _dot_context_from_state(decoder_state, encoder_states):  # 用权重去乘解码器状态，而不是编码器状态
    H = np.asarray(encoder_states, dtype=float)
    s = np.asarray(decoder_state, dtype=float)
    w = _softmax(H @ s)
    return w.sum() * s, w


def test_q5_rejects_more_wrong_dot_attention():
    _fails(ex.q5, _dot_cosine, "第 1 个例子", "12.3 节的分数")
    _fails(ex.q5, _dot_last_state, "第 1 个例子")
    _fails(ex.q5, _dot_context_from_state, "第 1 个例子", "结果不对")
