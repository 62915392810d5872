"""第 17 章练习的检查器：再拿一些题目里没有列出的错误实现（真实的 bug）去考它，每个都必须被拒绝，
而且说明要指出问题在哪里；另外核对课文的例子数字（0.693 → 0.513、3.637、1/96）。"""
import math

import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook.exercises import ch17 as ex
from _exercise_checks import fails as _fails, first_failing_case as _first_failing_case


# ---- 课文的数字 -----------------------------------------------------------------------
def test_worked_numbers():
    assert ex.q2.expected == (6144, 96, 6144)
    assert round(ex.q3.expected, 3) == 0.693
    assert round(ex._dpo_ref(-12.0, -15.0, -14.0, -13.0, 0.1), 3) == 0.513      # 17.2：0.693 → 0.513
    assert math.isclose(ex._dpo_ref(-78.998, -41.693, -78.998, -41.693, 0.1), math.log(2))
    logits = np.random.default_rng(0).normal(size=(14, 14))
    assert round(ex._sft_ref(logits, ex.SFT_TARGETS, ex.SFT_PROMPT_LEN), 3) == 3.637   # 17.1
    out = ex._lora_ref(ex._X, ex._W0, ex._A, np.zeros((4, 1)), 2.0)
    assert np.array_equal(out, ex._W0 @ ex._X)                                        # B = 0：输出不变
    assert np.allclose(ex._lora_ref(ex._X, ex._W0, ex._A, ex._B_TRAINED, 2.0), [-1.047, -0.429, -2.591, -2.416],
                       atol=1e-3)
    order, scores = ex._rank_ref(ex._Q, ex._DOCS, "dot")
    assert order.tolist() == [0, 1] and np.allclose(scores, [0.9, 0.1])


# ---- 选择题、填数题：列表之外的错答 ----------------------------------------------------------
def test_choice_rejects_an_option_that_does_not_exist_and_accepts_lower_case():
    _fails(ex.q1, "D", "没有选项")
    _fails(ex.q1, 2, "没有选项")
    assert ex.q1.evaluate("b").status == E.PASS


def test_lora_count_other_wrong_answers():
    _fails(ex.q2, (6144, 96, 3072), "第 2 项")            # 以为 α 加倍、参数减半
    _fails(ex.q2, 6144, "形状")                            # 只填了一个数
    assert ex.q2.evaluate([6144, 96.0, 6144]).status == E.PASS


def test_dpo_number_other_wrong_answers():
    _fails(ex.q3, -0.693, "你填的是 -0.693")               # 把 −ln σ 写成了 ln σ
    _fails(ex.q3, 0.513, "A 升 2")


# ---- q4：SFT 损失 ---------------------------------------------------------------------------
def _log_softmax(z):
    z = np.asarray(z, float)
    m = z.max(axis=-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))


def sft_sum_not_mean(logits, targets, prompt_len):
    lp = _log_softmax(logits)[np.arange(len(targets)), targets]
    return float(-lp[prompt_len:].sum())


def sft_prompt_part(logits, targets, prompt_len):      # 反了：只算提示部分（prompt_len = 0 时还会 0/0）
    lp = _log_softmax(logits)[np.arange(len(targets)), targets]
    return float(-lp[:prompt_len].mean())


def sft_softmax_over_positions(logits, targets, prompt_len):   # softmax 沿位置那一维做
    z = np.asarray(logits, float).T
    lp = _log_softmax(z).T[np.arange(len(targets)), targets]
    return float(-lp[prompt_len:].mean())


def sft_per_token(logits, targets, prompt_len):        # 返回了每个位置的损失，忘了平均
    lp = _log_softmax(logits)[np.arange(len(targets)), targets]
    return -lp[prompt_len:]


@pytest.mark.parametrize("fn, needle", [(sft_sum_not_mean, "第 1 个例子"), (sft_prompt_part, "第 1 个例子"),
                                        (sft_softmax_over_positions, "第 1 个例子"), (sft_per_token, "形状")])
def test_sft_loss_rejects_more_bugs(fn, needle):
    _fails(ex.q4, fn, needle)


# ---- q5：DPO 损失 ---------------------------------------------------------------------------
def dpo_returns_sigma(pc, pr, rc, rr, beta):
    z = beta * ((pc - rc) - (pr - rr))
    return float(1 / (1 + np.exp(-z)))


def dpo_log1p_exp(pc, pr, rc, rr, beta):              # 看似稳定，z = −1999 时 exp(1999) 仍然溢出
    z = beta * ((pc - rc) - (pr - rr))
    return float(np.log1p(np.exp(-z)))


def test_dpo_rejects_sigma_instead_of_loss():
    _fails(ex.q5, dpo_returns_sigma, "第 1 个例子", "0.513")


def test_dpo_half_stable_formula_fails_only_on_the_underflow_case():
    msg = _fails(ex.q5, dpo_log1p_exp, "NaN 或无穷大", "下溢")
    assert _first_failing_case(msg) == 5


# ---- q6：LoRA -------------------------------------------------------------------------------
def lora_returns_matrix(x, W0, A, B, alpha):
    return np.asarray(W0) + alpha / np.shape(A)[0] * (np.asarray(B) @ np.asarray(A))


def lora_r_from_d_in(x, W0, A, B, alpha):              # r 取错了维度
    return np.asarray(W0) @ x + alpha / np.shape(A)[1] * (np.asarray(B) @ (np.asarray(A) @ x))


def lora_integer_division(x, W0, A, B, alpha):         # α // r：整除只在 α 不是 r 的倍数时露馅
    return np.asarray(W0) @ x + (alpha // np.shape(A)[0]) * (np.asarray(B) @ (np.asarray(A) @ x))


def test_lora_rejects_returning_the_merged_matrix():
    _fails(ex.q6, lora_returns_matrix, "形状")


def test_lora_rejects_r_from_the_wrong_axis():
    _fails(ex.q6, lora_r_from_d_in, "第 2 个例子")


def test_lora_integer_division_is_caught_by_a_random_case():
    msg = _fails(ex.q6, lora_integer_division)
    assert _first_failing_case(msg) > len(ex.q6.cases)


# ---- q7：检索排序 ---------------------------------------------------------------------------
def rank_scores_unsorted(query_vec, doc_matrix, metric="dot"):     # 顺序排了，分数却没跟着重排
    s = np.asarray(doc_matrix, float) @ np.asarray(query_vec, float)
    if metric == "cosine":
        dn = np.linalg.norm(doc_matrix, axis=1)
        s = np.divide(s, dn * np.linalg.norm(query_vec), out=np.zeros_like(s), where=dn > 0)
    return np.argsort(-s, kind="stable"), s


def rank_frobenius_norm(query_vec, doc_matrix, metric="dot"):      # 余弦用了整个矩阵的范数
    s = np.asarray(doc_matrix, float) @ np.asarray(query_vec, float)
    if metric == "cosine":
        s = s / (np.linalg.norm(doc_matrix) * np.linalg.norm(query_vec))
    order = np.argsort(-s, kind="stable")
    return order, s[order]


def rank_order_only(query_vec, doc_matrix, metric="dot"):
    return np.argsort(-(np.asarray(doc_matrix) @ query_vec), kind="stable")


def test_rank_rejects_scores_left_in_document_order():
    _fails(ex.q7, rank_scores_unsorted, "第 2 个例子", "第 (1, 0) 项")


def test_rank_rejects_a_whole_matrix_norm():
    _fails(ex.q7, rank_frobenius_norm, "第 3 个例子", "余弦")


def test_rank_rejects_returning_only_the_order():
    _fails(ex.q7, rank_order_only, "形状")
