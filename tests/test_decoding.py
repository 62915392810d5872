"""decoding：第 11.4 节的选词表（top-k 2/3、1/3，top-p 保留电影和音乐）、温度、采样、beam search，
第 11.5 节的困惑度（损失 0.693 1.386 2.079，PPL 4）；性质与错误。"""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from nlpbook import decoding as D
from nlpbook.functional import softmax

WORDS = ["电影", "音乐", "香蕉"]
P = [0.6, 0.3, 0.1]

logit_vectors = arrays(float, st.integers(2, 12), elements=st.floats(-20, 20))
prob_vectors = arrays(float, st.integers(1, 12), elements=st.floats(0, 10)).filter(lambda a: a.sum() > 1e-3).map(
    lambda a: a / a.sum())


# ---------- 课文的数字 ----------

def test_decoding_table_section_11_4():
    assert WORDS[D.greedy(P)] == "电影"
    assert np.allclose(D.top_k_filter(P, 2), [2 / 3, 1 / 3, 0])
    kept = D.top_p_filter(P, 0.8)
    assert [w for w, q in zip(WORDS, kept) if q > 0] == ["电影", "音乐"]
    assert np.allclose(kept, [2 / 3, 1 / 3, 0])
    assert np.allclose(D.top_p_filter(P, 0.6), [1, 0, 0])  # 累计恰好 0.6 就够了
    assert np.allclose(D.top_p_filter(P, 0.9), [2 / 3, 1 / 3, 0])  # 0.6+0.3 在浮点里是 0.8999…，仍算达到
    assert np.allclose(D.top_p_filter(P, 0.95), P)


def test_perplexity_section_11_5():
    losses = D.token_losses([0.5, 0.25, 0.125])
    assert [round(float(x), 3) for x in losses] == [0.693, 1.386, 2.079]
    assert round(float(losses.mean()), 3) == 1.386
    assert losses.mean() == pytest.approx(math.log(4))
    assert D.perplexity_from_probs([0.5, 0.25, 0.125]) == pytest.approx(4.0)
    assert D.perplexity_from_probs([0.25] * 7) == pytest.approx(4.0)  # 每步在四个候选间均匀
    assert D.perplexity_from_probs([1.0, 1.0]) == 1.0
    assert D.perplexity_from_probs([0.5, 0.0]) == math.inf


# ---------- 温度 ----------

@given(logit_vectors)
def test_temperature_one_is_plain_softmax(z):
    assert np.allclose(D.apply_temperature(z, 1.0), softmax(z))
    assert D.apply_temperature(z, 1.0).sum() == pytest.approx(1.0)


def test_temperature_limits_and_greedy_convention():
    z = np.array([2.0, 0.0, 1.0])
    for t in (0.1, 0.01, 1e-4, 1e-300):
        assert D.apply_temperature(z, t)[0] > 1 - 1e-4
    assert D.apply_temperature(z, 1e-300).tolist() == [1.0, 0.0, 0.0]  # 极小 T 不会溢出成 NaN
    assert np.allclose(D.apply_temperature(z, 1e6), [1 / 3] * 3, atol=1e-5)
    assert D.apply_temperature(z, 0).tolist() == [1.0, 0.0, 0.0]
    tie = [1.0, 3.0, 3.0]
    assert D.apply_temperature(tie, 0).tolist() == [0.0, 1.0, 0.0]  # 约定：并列取编号小的
    assert np.allclose(D.apply_temperature(tie, 1e-3), [0, 0.5, 0.5])  # T→0⁺ 的极限平分并列者
    assert D.apply_temperature([5.0], 0.7).tolist() == [1.0]


@settings(max_examples=50)
@given(logit_vectors, st.floats(0.05, 5), st.floats(1.01, 3))
def test_lower_temperature_is_sharper(z, t, factor):
    def entropy(p):
        p = p[p > 0]
        return float(-(p * np.log(p)).sum())
    lo, hi = D.apply_temperature(z, t), D.apply_temperature(z, t * factor)
    assert entropy(lo) <= entropy(hi) + 1e-9
    assert lo[np.argmax(z)] >= hi[np.argmax(z)] - 1e-12  # 最高分候选在低温下概率不减
    assert lo[np.argmax(z)] == pytest.approx(lo.max())  # 最高分候选仍是概率最高（近似并列时允许舍入）


# ---------- top-k / top-p ----------

@given(prob_vectors, st.integers(1, 15))
def test_top_k_sums_to_one_and_keeps_the_highest(p, k):
    q = D.top_k_filter(p, k)
    assert q.sum() == pytest.approx(1.0)
    kept = q > 0
    assert kept.sum() <= min(k, p.size)
    if (~kept).any() and kept.any():
        assert p[kept].min() >= p[~kept].max()
    assert np.allclose(q[kept], p[kept] / p[kept].sum())  # 保留者之间比例不变
    if k >= p.size:
        assert np.allclose(q, p)


def test_top_k_ties_keep_first_index():
    assert D.top_k_filter([0.2, 0.4, 0.2, 0.2], 2).tolist() == pytest.approx([1 / 3, 2 / 3, 0, 0])
    assert D.top_p_filter([0.25, 0.25, 0.25, 0.25], 0.5).tolist() == pytest.approx([0.5, 0.5, 0, 0])


@given(prob_vectors, st.floats(0.01, 1.0))
def test_top_p_keeps_smallest_prefix_reaching_p(p, thr):
    q = D.top_p_filter(p, thr)
    assert q.sum() == pytest.approx(1.0)
    kept = q > 0
    if (~kept).any() and kept.any():
        assert p[kept].min() >= p[~kept].max()
    mass = p[kept].sum()
    assert mass >= thr - 1e-6  # 累计达到 p
    assert mass - p[kept].min() < thr + 1e-6 or kept.sum() == 1  # 少保留一个就不够：最短


# ---------- 采样 ----------

def test_sampling_is_reproducible_and_matches_probabilities():
    a = [D.sample(P, np.random.default_rng(7)) for _ in range(5)]
    assert len(set(a)) == 1
    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    assert [D.sample(P, r1) for _ in range(50)] == [D.sample(P, r2) for _ in range(50)]
    probs = np.array([0.5, 0.0, 0.2, 0.25, 0.05])
    rng = np.random.default_rng(0)
    draws = np.array([D.sample(probs, rng) for _ in range(20_000)])
    counts = np.bincount(draws, minlength=5)
    assert counts[1] == 0  # 概率为 0 的候选永远抽不到
    expected = 20_000 * probs
    nz = probs > 0
    chi2 = float((((counts - expected) ** 2)[nz] / expected[nz]).sum())
    assert chi2 < 16.3  # 自由度 3，p=0.001 的临界值


def test_decode_step_applies_temperature_then_top_k_then_top_p():
    z = np.array([3.0, 2.5, 1.0, 0.5, -1.0])
    tok, final = D.decode_step(z, temperature=0.8, top_k=3, top_p=0.7, rng=np.random.default_rng(0))
    expected = D.top_p_filter(D.top_k_filter(D.apply_temperature(z, 0.8), 3), 0.7)
    assert np.allclose(final, expected) and final[tok] > 0
    assert final.sum() == pytest.approx(1.0)
    tok0, one_hot = D.decode_step(z, temperature=0)  # 贪心：不需要 rng
    assert tok0 == 0 and one_hot.tolist() == [1, 0, 0, 0, 0]


# ---------- 逐步生成 ----------

def _bigram_logits(prefix):
    """玩具模型：下一个编号倾向于 (上一个 + 1) mod 5，编号 4 之后偏向 0（当作 EOS）。"""
    last = prefix[-1] if prefix else 0
    z = np.full(5, -1.0)
    z[(last + 1) % 5] = 2.0
    return z


def test_generate_is_deterministic_for_a_seed_and_stops_at_eos():
    out1 = D.generate(_bigram_logits, [1], 10, temperature=1.0, top_p=0.9, rng=np.random.default_rng(5))
    out2 = D.generate(_bigram_logits, [1], 10, temperature=1.0, top_p=0.9, rng=np.random.default_rng(5))
    assert out1 == out2 and len(out1) == 11 and out1[0] == 1
    greedy_out = D.generate(_bigram_logits, [1], 10, temperature=0, eos_id=0)
    assert greedy_out == [1, 2, 3, 4, 0]  # 选到 EOS 就停，EOS 保留在结果里
    assert D.generate(_bigram_logits, [2], 0) == [2]
    seen = []
    D.generate(lambda ids: seen.append(list(ids)) or _bigram_logits(ids), [3], 2, temperature=0)
    assert seen == [[3], [3, 4]]  # 每步都把自己刚选的 token 接到前文后面


# ---------- beam search ----------

EOS, A, B = 0, 1, 2
TABLE = {None: [0.0, 0.6, 0.4], A: [0.4, 0.3, 0.3], B: [0.9, 0.05, 0.05]}


def _planted(prefix):
    """首步 A 0.6 > B 0.4，但 A 之后最多 0.4，B 之后 EOS 有 0.9：整句 B EOS = 0.36 > A EOS = 0.24。"""
    with np.errstate(divide="ignore"):
        return np.log(TABLE[prefix[-1] if len(prefix) > 1 else None])


def test_beam_search_finds_sequence_that_greedy_misses():
    greedy_out = D.generate(lambda ids: _planted(ids), [9], 5, temperature=0, eos_id=EOS)
    assert greedy_out == [9, A, EOS]  # 逐步最高：0.6 × 0.4 = 0.24
    best = D.beam_search(_planted, [9], beam_width=2, max_len=5, eos_id=EOS)
    assert best[0].ids == [9, B, EOS] and best[0].finished
    assert math.exp(best[0].logprob) == pytest.approx(0.36)
    assert best[1].ids == [9, A, EOS] and math.exp(best[1].logprob) == pytest.approx(0.24)
    width1 = D.beam_search(_planted, [9], beam_width=1, max_len=5, eos_id=EOS)
    assert width1[0].ids == greedy_out  # 宽度 1 就是贪心


def test_beam_search_length_penalty_and_unfinished():
    # 首步 EOS 0.6、A 0.4；A 之后必然 EOS。整句：[EOS] 0.6（1 个 token），[A, EOS] 0.4（2 个 token）
    def step(prefix):
        with np.errstate(divide="ignore"):
            return np.log([0.6, 0.4] if not prefix else [1.0, 0.0])
    short = D.beam_search(step, [], beam_width=2, max_len=4, eos_id=0)
    assert [h.ids for h in short] == [[0], [1, 0]]  # α=0：整句概率，短句占便宜
    assert short[0].score == pytest.approx(math.log(0.6))
    long_ = D.beam_search(step, [], beam_width=2, max_len=4, eos_id=0, length_penalty=5.0)
    assert [h.ids for h in long_] == [[1, 0], [0]]  # α 大：除以 ((5+长度)/6)^α 后长句胜出
    assert long_[0].score == pytest.approx(math.log(0.4) / (7 / 6) ** 5)
    assert long_[0].logprob == pytest.approx(math.log(0.4))
    # EOS 概率为 0（对数 -inf）：到 max_len 仍未结束，作为 finished=False 的候选返回
    never_ends = D.beam_search(lambda p: np.array([-np.inf, 0.0]), [1], beam_width=3, max_len=3, eos_id=0)
    assert never_ends == [D.Hypothesis([1, 1, 1, 1], 0.0, 0.0, False)]


# ---------- 错误 ----------

@pytest.mark.parametrize("call, exc, match", [
    (lambda: D.apply_temperature([1.0, 2.0], -1), ValueError, "temperature 必须 >= 0，收到 -1"),
    (lambda: D.apply_temperature([1.0, 2.0], float("nan")), ValueError, "NaN"),
    (lambda: D.apply_temperature([1.0, 2.0], float("inf")), ValueError, "有限"),
    (lambda: D.apply_temperature([1.0, 2.0], "1"), TypeError, "temperature 必须是数"),
    (lambda: D.apply_temperature([1.0, float("nan")], 1), ValueError, "NaN"),
    (lambda: D.apply_temperature([[1.0, 2.0]], 1), ValueError, "一维"),
    (lambda: D.top_k_filter(P, 0), ValueError, "k 必须 > 0"),
    (lambda: D.top_k_filter(P, 1.5), TypeError, "k 必须是整数"),
    (lambda: D.top_p_filter(P, 0), ValueError, "0 < p <= 1"),
    (lambda: D.top_p_filter(P, 1.2), ValueError, "0 < p <= 1"),
    (lambda: D.top_p_filter(P, float("nan")), ValueError, "0 < p <= 1"),
    (lambda: D.top_k_filter([0.6, 0.3, 0.2], 1), ValueError, "各项之和应为 1"),
    (lambda: D.top_p_filter([1.2, -0.2], 0.5), ValueError, "负数"),
    (lambda: D.greedy([[0.5, 0.5]]), ValueError, "一维"),
    (lambda: D.greedy([]), ValueError, "非空"),
    (lambda: D.greedy([0.5, float("nan")]), ValueError, "NaN"),
    (lambda: D.sample(P, None), TypeError, "rng"),
    (lambda: D.sample(P, 42), TypeError, "default_rng"),
    (lambda: D.decode_step([1.0, 2.0], temperature=1.0), TypeError, "rng"),
    (lambda: D.generate(_bigram_logits, [1], 3, temperature=0.5), TypeError, "rng"),
    (lambda: D.generate(_bigram_logits, [1.5], 3, temperature=0), TypeError, "整数编号"),
    (lambda: D.generate(_bigram_logits, [-1], 3, temperature=0), ValueError, "非负整数"),
    (lambda: D.generate(_bigram_logits, [1], -1, temperature=0), ValueError, "max_new_tokens"),
    (lambda: D.beam_search(lambda p: np.array([1.0, 2.0]), [], 2, 3, 0), ValueError, "log_softmax"),
    (lambda: D.beam_search(_planted, [9], 0, 3, EOS), ValueError, "beam_width 必须 > 0"),
    (lambda: D.beam_search(_planted, [9], 2, 3, EOS, length_penalty=-1), ValueError, "length_penalty"),
    (lambda: D.token_losses([0.5, 1.5]), ValueError, r"\[0, 1\]"),
    (lambda: D.perplexity_from_probs([]), ValueError, "不能为空"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_minus_inf_logits_are_masked():
    q = D.apply_temperature([0.0, -np.inf, 0.0], 2.0)
    assert q.tolist() == [0.5, 0.0, 0.5]
    assert D.apply_temperature([-np.inf, 1.0], 0).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="全是 -inf"):
        D.apply_temperature([-np.inf, -np.inf], 1.0)
    with pytest.raises(ValueError, match=r"\+inf"):
        D.apply_temperature([np.inf, 1.0], 1.0)
