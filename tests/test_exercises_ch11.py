"""第 11 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import math

import numpy as np

from nlpbook.decoding import apply_temperature, decode_step, perplexity_from_probs, top_k_filter, top_p_filter
from nlpbook.exercises import ch11 as ex
from _exercise_checks import fails as _fails, passes as _passes, first_failing_case as _first_failing_case

Z = np.log([0.6, 0.3, 0.1])


# ---- 题目里的数字 -------------------------------------------------------------
def test_worked_numbers_match_the_course_functions():
    assert np.allclose(np.round(apply_temperature(Z, 0.5), 3), [0.783, 0.196, 0.022])    # 11.4 节
    assert np.allclose(top_k_filter([0.6, 0.3, 0.1], 2), [2 / 3, 1 / 3, 0])
    assert np.allclose(top_p_filter([0.6, 0.3, 0.1], 0.8), [2 / 3, 1 / 3, 0])
    final = decode_step(Z, temperature=0.5, top_p=0.8, rng=np.random.default_rng(0))[1]
    assert np.allclose(final, ex.q2.expected, atol=1e-12)                               # 练习 2
    assert math.isclose(perplexity_from_probs([0.5, 0.25, 0.125]), 4.0)                  # 11.5 节
    assert math.isclose(ex.q6.reference(*ex.q6.cases[0].args), 4.0)                      # q6 的第 1 个例子
    assert ex.q6.reference(*ex.q6.cases[3].args) == math.inf                             # p = 0 → inf
    assert math.isclose(ex.q6.reference(*ex.q6.cases[4].args), 1000.0)                   # 长序列也算得出


def test_the_float_case_of_top_p_is_really_a_float_trap():
    assert 0.6 + 0.3 < 0.9                                   # 练习 5 的浮点例子确实落在门槛下面一点
    assert np.count_nonzero(top_p_filter([0.6, 0.3, 0.1], 0.9)) == 2


# ---- 选择题与填数题 ------------------------------------------------------------
def test_q1_accepts_lower_case_and_rejects_a_word():
    _passes(ex.q1, "b")
    _fails(ex.q1, "电影", "没有选项")


def test_q2_rejects_a_short_answer_and_an_unlisted_value():
    _fails(ex.q2, [0.8, 0.2], "形状")                 # 漏了香蕉那一项
    _fails(ex.q2, 2, "形状")                          # 填了“留下几个”
    _fails(ex.q2, [0.783, 0.217, 0.0], "还不对")       # 音乐取了 1 − 0.783：没有列出的错值也要判错
    _passes(ex.q2, (0.8, 0.2, 0))


# ---- q3：温度 ---------------------------------------------------------------------
def _temp_nan_to_num(logits, T):  # 把 -inf 换成了 0：被屏蔽的候选又有了概率
    z = np.nan_to_num(np.asarray(logits, dtype=float), neginf=0.0)
    if T == 0:
        out = np.zeros_like(z)
        out[np.argmax(z)] = 1.0
        return out
    e = np.exp((z - z.max()) / T)
    return e / e.sum()


def _temp_returns_index(logits, T):  # T = 0 时只返回编号，不是分布
    z = np.asarray(logits, dtype=float)
    if T == 0:
        return int(np.argmax(z))
    e = np.exp((z - z.max()) / T)
    return e / e.sum()


def _temp_divides_after_exp(logits, T):  # 在 exp 之后才除以 T
    z = np.asarray(logits, dtype=float)
    if T == 0:
        out = np.zeros_like(z)
        out[np.argmax(z)] = 1.0
        return out
    e = np.exp(z - z.max()) / T
    return e / e.sum()


def test_q3_rejects_more_wrong_temperatures():
    msg = _fails(ex.q3, _temp_nan_to_num, "-inf 表示屏蔽")
    assert _first_failing_case(msg) > 1
    _fails(ex.q3, _temp_returns_index, "temperature = 0", "形状")
    _fails(ex.q3, _temp_divides_after_exp, "第 2 个例子", "T = 0.5")


# ---- q4：top-k -------------------------------------------------------------------
def _topk_partition(probs, k):  # np.partition 在 k 大于候选数时报错
    p = np.asarray(probs, dtype=float)
    kth = np.partition(p, -k)[-k]
    keep = np.flatnonzero(p >= kth)[:k]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()


def _topk_off_by_one(probs, k):  # 只留了 k − 1 个
    p = np.asarray(probs, dtype=float)
    keep = np.argsort(-p, kind="stable")[:max(k - 1, 1)]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()


def test_q4_rejects_more_wrong_top_k():
    _fails(ex.q4, _topk_partition, "k 大于候选数", "报错")
    _fails(ex.q4, _topk_off_by_one, "第 1 个例子", "11.4 节的例子")


# ---- q5：top-p -------------------------------------------------------------------
def _topp_le(probs, p):  # “累计 <= p 的都留下”：越过门槛的那一个被丢掉
    q = np.asarray(probs, dtype=float)
    order = np.argsort(-q, kind="stable")
    cum = np.cumsum(q[order])
    m = max(int(np.sum(cum <= p + 1e-9)), 1)
    out = np.zeros_like(q)
    out[order[:m]] = q[order[:m]]
    return out / out.sum()


def _topp_side_right(probs, p):  # searchsorted(side="right")、不留余量：累计恰好等于 p 时多留一个
    q = np.asarray(probs, dtype=float)
    order = np.argsort(-q, kind="stable")
    cum = np.cumsum(q[order])
    m = min(int(np.searchsorted(cum, p, side="right")) + 1, q.size)
    out = np.zeros_like(q)
    out[order[:m]] = q[order[:m]]
    return out / out.sum()


def test_q5_rejects_more_wrong_top_p():
    _fails(ex.q5, _topp_le, "第 1 个例子", "越过门槛")          # 另一种写法，诊断出同一个错误
    msg = _fails(ex.q5, _topp_side_right, "累计恰好等于 p")
    assert _first_failing_case(msg) > 1


# ---- q6：困惑度 -------------------------------------------------------------------
def _ppl_shifted(step_probs, targets):  # 目标错开了一位：第 t 步用了第 t+1 个真实 token
    P = np.asarray(step_probs, dtype=float)
    t = list(targets[1:]) + [targets[0]]
    return float(np.exp(np.mean(-np.log(P[np.arange(len(t)), t]))))


def _ppl_mean_loss(step_probs, targets):  # 返回了平均损失，忘了 exp
    P = np.asarray(step_probs, dtype=float)
    return float(np.mean(-np.log(P[np.arange(len(targets)), targets])))


def _ppl_clipped(step_probs, targets):  # 把 0 概率截成 1e-12：真实文本“不可能”时也给出有限的数
    P = np.clip(np.asarray(step_probs, dtype=float), 1e-12, 1.0)
    return float(np.exp(np.mean(-np.log(P[np.arange(len(targets)), targets]))))


def _ppl_nan(step_probs, targets):  # 0 × log 0 之类的写法：得到 NaN
    P = np.asarray(step_probs, dtype=float)
    p = P[np.arange(len(targets)), targets]
    return float(np.exp(np.mean(-p * np.log(p) / p)))


def test_q6_rejects_more_wrong_perplexities():
    _fails(ex.q6, _ppl_shifted, "第 1 个例子", "PPL 4")
    _fails(ex.q6, _ppl_mean_loss, "应为 4")
    msg = _fails(ex.q6, _ppl_clipped, "概率是 0", "inf")
    assert _first_failing_case(msg) == 4
    msg = _fails(ex.q6, _ppl_nan, "概率是 0")                   # 读者返回 NaN 标量：照样给出说明，不抛异常
    assert "nan" in msg.lower()
