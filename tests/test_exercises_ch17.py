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


# ---- q8：实验——记录里没有的 β ------------------------------------------------------------
def _answer8(beta, reward, kl, prediction="A"):
    return {"prediction": prediction, "setting": beta, "result": {"reward": reward, "kl": kl}}


def _record8(beta):
    return ex._dpo_record()["point"][beta]          # 记录里种子 0、50 步的 (奖励, KL)


def _run8(source, beta):
    """照 notebook 那样执行起始代码（只把 beta_8 换成 beta），返回它交上来的 answer_8。"""
    ns = {"np": np, "ex": ex}
    exec(source.replace("beta_8 = None", f"beta_8 = {beta!r}", 1), ns)
    return ns["answer_8"]


def test_dpo_experiment_setting_must_be_a_new_beta_inside_the_record():
    for bad in ("0.5", True, float("nan"), [0.5]):
        msg = _fails(ex.q8, _answer8(bad, 0.6, 2.0), "β 要是一个数")
        assert "Traceback" not in msg
    for bad in (0.05, 1, 1.5, 0.01):
        _fails(ex.q8, _answer8(bad, 0.6, 2.0), "0.05 与 1 之间")
    for recorded in (0.1, 0.3, 0.30000000001):
        _fails(ex.q8, _answer8(recorded, 0.6, 2.0), "记录里已经有了")


def test_dpo_experiment_band_lies_between_the_neighbours_with_their_sampling_error():
    band = ex.q8.band(0.5)
    (r03, k03), (r1, k1) = _record8(0.3), _record8(1.0)
    se = ex._dpo_record()["se"]
    assert band["kl"] == pytest.approx((k1 - se[0.3][1], k03 + se[0.3][1]))
    assert band["reward"] == pytest.approx((r1 - se[0.3][0], r03 + se[0.3][0]))
    assert 0.1 < se[0.3][1] < 0.5 and 0.01 < se[0.3][0] < 0.02          # 评测抽样误差：KL 零点几奈特，奖励约 0.015
    assert ex.q8.band(0.07)["kl"][0] > ex.q8.band(0.5)["kl"][1]            # 两段区间互不重叠：β 真的起作用


def test_dpo_experiment_rejects_results_of_another_experiment():
    r01, k01 = _record8(0.1)
    # β 没有换上（仍是 17.2 现场的 0.1，同样 50 步）：奖励、KL 都在范围之外
    _fails(ex.q8, _answer8(0.5, r01, k01), "reward = 0.6557", "不在这个设置应有的范围", "dpo_reviews")
    _fails(ex.q8, _answer8(0.5, 0.6, k01), "kl = 4.368", "[1.083, 3.158]")
    # 照抄 17.2 现场那一格的 25 步结果（β = 0.1，种子 0）
    _fails(ex.q8, _answer8(0.15, 0.588943, 1.493107), "reward = 0.5889")
    _fails(ex.q8, _answer8(0.15, 0.64, 1.493107), "kl = 1.493")
    # 没训练：参考模型自己（奖励 0.454，KL 0）
    _fails(ex.q8, _answer8(0.5, 0.454488, 0.0), "reward = 0.4545")
    # 交了胜率而不是奖励
    _fails(ex.q8, _answer8(0.5, 0.776, 2.16), "reward = 0.776")
    # 少交一个量
    _fails(ex.q8, {"prediction": "A", "setting": 0.5, "result": 0.618}, "['kl', 'reward']")


def test_dpo_experiment_outcome_names_the_option_that_really_happened():
    (r03, k03), (r1, k1) = _record8(0.3), _record8(1.0)
    mid_r, mid_k = (r03 + r1) / 2, (k03 + k1) / 2
    cases = {"A": (mid_r, mid_k), "B": (r03 + 0.01, mid_k), "C": (mid_r, k03 + 0.1), "D": (mid_r, k1 - 0.1)}
    for truth, (reward, kl) in cases.items():
        assert ex.q8.outcome(0.5, {"reward": reward, "kl": kl}) == truth
        for pred in "ABCD":
            r = ex.q8.evaluate(_answer8(0.5, reward, kl, pred))
            assert r.status == E.PASS and ex.q8.reasons[truth] in r.message
            assert (f"你的预测 {pred} 对了" in r.message) == (pred == truth)
    # 另一段区间（0.05 与 0.1 之间），本机实测 β = 0.07 的结果：KL 比两边都大
    assert ex.q8.outcome(0.07, {"reward": 0.6537, "kl": 4.7815}) == "C"
    assert ex.q8.outcome(0.08, {"reward": 0.6531, "kl": 4.3062}) == "D"
    assert ex.q8.outcome(0.09, {"reward": 0.6573, "kl": 4.4169}) == "B"


@pytest.mark.record
def test_dpo_experiment_filled_answer_passes():
    ns = {"np": np, "ex": ex}
    exec(ex.q8.filled, ns)
    r = ex.q8.evaluate(ns["answer_8"])
    assert r.status == E.PASS, r.message


@pytest.mark.record
@pytest.mark.parametrize("beta", [0.07, 0.15])
def test_dpo_experiment_band_holds_the_real_run_in_the_other_gaps(beta):
    answer = _run8(ex.q8.stub, beta)
    answer["prediction"] = "A"
    r = ex.q8.evaluate(answer)
    assert r.status == E.PASS, r.message
