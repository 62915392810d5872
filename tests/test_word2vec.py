"""word2vec：第 7 章的手算数字、有限差分梯度检验、词对生成、负采样，以及 SGNS 训练确实学到结构。"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import word2vec as W2V

# 第 7.2 节：输入表 喜欢、电影；输出候选 看、吃、买
W_IN = [[1.0, 0.0], [0.0, 1.0]]
W_OUT = [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]


def r3(x):
    return np.round(np.asarray(x, dtype=float), 3).tolist()


def test_cbow_worked_example_of_7_2_to_7_4():
    f = W2V.cbow_forward(W_IN, W_OUT, [0, 1], 0)
    assert r3(f["hidden"]) == [0.5, 0.5]
    assert r3(f["scores"]) == [2.0, 0.0, 1.0]
    assert r3(np.exp(f["scores"])) == [7.389, 1.0, 2.718]
    assert round(float(np.exp(f["scores"]).sum()), 3) == 11.107
    assert r3(f["probs"]) == [0.665, 0.090, 0.245]
    assert round(f["loss"], 3) == 0.408
    b = W2V.cbow_backward(W_IN, W_OUT, [0, 1], 0)
    assert r3(b["d_scores"]) == [-0.335, 0.090, 0.245]
    assert r3(b["d_hidden"]) == [-0.425, -0.425]
    assert r3(b["d_inputs"]) == [[-0.212, -0.212], [-0.212, -0.212]]
    new_in, new_out = W2V.cbow_step(W_IN, W_OUT, [0, 1], 0, lr=0.1, update_output=False)
    assert r3(new_in) == [[1.021, 0.021], [0.021, 1.021]]
    assert np.array_equal(new_out, W_OUT)
    assert W_IN == [[1.0, 0.0], [0.0, 1.0]]  # 不修改传入的数组
    # 同时更新输出侧后，正确答案的概率变高、损失变小
    new_in, new_out = W2V.cbow_step(W_IN, W_OUT, [0, 1], 0, lr=0.1)
    assert W2V.cbow_forward(new_in, new_out, [0, 1], 0)["loss"] < f["loss"]


def test_negative_sampling_example_of_7_6():
    assert round(1 / (1 + np.exp(-2)), 3) == 0.881 and round(1 / (1 + np.exp(-1)), 3) == 0.731
    assert round(-np.log(0.881), 3) == 0.127 and round(-np.log(0.731), 3) == 0.313
    assert round(W2V.negative_sampling_loss(2, [-1]), 3) == 0.440
    assert W2V.negative_sampling_loss(2, []) == pytest.approx(0.127, abs=1e-3)
    # 很大的分数也不溢出
    assert W2V.negative_sampling_loss(1000.0, [-1000.0]) == pytest.approx(0.0, abs=1e-12)
    assert W2V.negative_sampling_loss(-1000.0, [0.0]) == pytest.approx(1000 + np.log(2))
    out = W2V.sgns_forward_backward([1.0, 1.0], [1.0, 1.0], [[-0.5, -0.5]])  # 得分 2 与 −1
    assert round(out["loss"], 3) == 0.440


from _gradcheck import numgrad as _num_grad  # noqa: E402


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_cbow_gradients_match_finite_differences(seed):
    rng = np.random.default_rng(seed)
    Wi, Wo = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    ctx, t = [1, 3, 1], int(rng.integers(4))  # 上下文里有重复的词
    b = W2V.cbow_backward(Wi, Wo, ctx, t)
    assert np.allclose(b["d_W_out"], _num_grad(lambda w: W2V.cbow_forward(Wi, w, ctx, t)["loss"], Wo), atol=1e-6)
    grad_in = _num_grad(lambda w: W2V.cbow_forward(w, Wo, ctx, t)["loss"], Wi)
    acc = np.zeros_like(Wi)
    np.add.at(acc, ctx, b["d_inputs"])
    assert np.allclose(acc, grad_in, atol=1e-6)
    # 一步更新正好等于 W − lr·梯度
    new_in, new_out = W2V.cbow_step(Wi, Wo, ctx, t, lr=0.3)
    assert np.allclose(new_in, Wi - 0.3 * grad_in) and np.allclose(new_out, Wo - 0.3 * b["d_W_out"])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_skipgram_gradients_match_finite_differences(seed):
    rng = np.random.default_rng(seed)
    Wi, Wo = rng.normal(size=(4, 3)), rng.normal(size=(6, 3))
    c, o = int(rng.integers(4)), int(rng.integers(6))
    out = W2V.skipgram_forward_backward(Wi, Wo, c, o)

    def loss_center(v):
        w = Wi.copy()
        w[c] = v
        return W2V.skipgram_forward_backward(w, Wo, c, o)["loss"]

    assert np.allclose(out["d_center"], _num_grad(loss_center, Wi[c]), atol=1e-6)
    assert np.allclose(out["d_W_out"], _num_grad(lambda w: W2V.skipgram_forward_backward(Wi, w, c, o)["loss"], Wo),
                       atol=1e-6)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 4))
def test_sgns_gradients_match_finite_differences(seed, k):
    rng = np.random.default_rng(seed)
    v, u, U = rng.normal(size=4), rng.normal(size=4), rng.normal(size=(k, 4))
    out = W2V.sgns_forward_backward(v, u, U)
    assert out["loss"] == pytest.approx(W2V.negative_sampling_loss(v @ u, U @ v))
    assert np.allclose(out["d_center"], _num_grad(lambda x: W2V.sgns_forward_backward(x, u, U)["loss"], v), atol=1e-6)
    assert np.allclose(out["d_pos"], _num_grad(lambda x: W2V.sgns_forward_backward(v, x, U)["loss"], u), atol=1e-6)
    if k:
        assert np.allclose(out["d_negs"], _num_grad(lambda x: W2V.sgns_forward_backward(v, u, x)["loss"], U),
                           atol=1e-6)


def test_skipgram_pairs_and_cbow_examples():
    toks = ["我", "喜欢", "看", "电影"]
    assert W2V.skipgram_pairs(toks, 1) == [("我", "喜欢"), ("喜欢", "我"), ("喜欢", "看"), ("看", "喜欢"),
                                           ("看", "电影"), ("电影", "看")]
    assert W2V.skipgram_pairs(toks, 2) == [
        ("我", "喜欢"), ("我", "看"), ("喜欢", "我"), ("喜欢", "看"), ("喜欢", "电影"),
        ("看", "我"), ("看", "喜欢"), ("看", "电影"), ("电影", "喜欢"), ("电影", "看")]
    assert len(W2V.skipgram_pairs(toks, 10)) == 4 * 3
    assert W2V.skipgram_pairs([], 2) == [] and W2V.skipgram_pairs(["我"], 2) == []
    assert W2V.skipgram_pairs([3, 5], 1) == [(3, 5), (5, 3)]  # 也可以直接用编号
    assert W2V.cbow_examples(toks, 1) == [(["喜欢"], "我"), (["我", "看"], "喜欢"), (["喜欢", "电影"], "看"),
                                          (["看"], "电影")]
    assert W2V.cbow_examples(toks, 2)[1] == (["我", "看", "电影"], "喜欢")
    assert W2V.cbow_examples([], 1) == [] and W2V.cbow_examples(["我"], 1) == []


def test_noise_distribution_and_subsampling():
    counts = np.array([1000, 100, 10, 1, 0])
    p = W2V.noise_distribution(counts)
    assert p.sum() == pytest.approx(1.0) and p[-1] == 0.0
    assert np.allclose(p[:4] / p[0], (counts[:4] / 1000) ** 0.75)
    assert r3(W2V.noise_distribution([16, 1])) == [0.889, 0.111]
    assert np.allclose(W2V.noise_distribution(counts, power=1.0), counts / counts.sum())
    keep = W2V.subsample_keep_prob(counts, t=1e-2)
    assert np.all(keep <= 1.0) and np.all(np.diff(keep) >= 0)  # 越高频，越容易被丢掉
    assert keep[0] < keep[1] < 1.0 and keep[2] == 1.0
    f, thr = 1000, 1e-2 * counts.sum()  # 公式：(sqrt(f/thr) + 1)·thr/f
    assert keep[0] == pytest.approx((np.sqrt(f / thr) + 1) * thr / f)


def _distinct_out_ids(n, k1):
    return np.arange(n * k1).reshape(n, k1)


@pytest.mark.parametrize("V, n, k1, make_out", [
    (7, 30, 4, None),                                        # 大量重复；噪声词里有和真实词相同的（要跳过）
    (400, 20, 3, None),                                      # 大多只出现一次
    (60, 20, 3, lambda n, k1: _distinct_out_ids(n, k1)),     # 全部只出现一次：没有“多次出现”的词
    (5, 12, 4, lambda n, k1: np.full((n, k1), 2)),           # 全是同一个词：没有“只出现一次”的词
    (9, 1, 6, None),                                         # 只有一个词对
])
def test_sgns_batch_equals_sum_of_per_pair_gradients(V, n, k1, make_out):
    """一个小批量的原地更新 = 各词对梯度（sgns_forward_backward）用 np.add.at 相加后走一步。"""
    rng = np.random.default_rng(1)
    d = 5
    W_in, W_out = rng.normal(size=(V, d)).astype(np.float32), rng.normal(size=(V, d)).astype(np.float32)
    centers = rng.integers(0, V, n)
    out_ids = rng.integers(0, V, (n, k1)) if make_out is None else make_out(n, k1)  # 第 0 列是真实周围词
    ref_in, ref_out, ref_loss = W_in.astype(float), W_out.astype(float), 0.0
    g_in, g_out = np.zeros_like(ref_in), np.zeros_like(ref_out)
    for c, row in zip(centers, out_ids):
        negs = [j for j in row[1:] if j != row[0]]
        r = W2V.sgns_forward_backward(ref_in[c], ref_out[row[0]], ref_out[negs].reshape(-1, d))
        ref_loss += r["loss"]
        g_in[c] += r["d_center"]
        g_out[row[0]] += r["d_pos"]
        np.add.at(g_out, negs, r["d_negs"])
    loss = W2V._sgns_batch(W_in, W_out, centers, out_ids, np.float32(0.1))
    assert loss == pytest.approx(ref_loss, rel=1e-5)
    assert np.allclose(W_in, ref_in - 0.1 * g_in, atol=1e-5)
    assert np.allclose(W_out, ref_out - 0.1 * g_out, atol=1e-5)


def _topic_corpus(n_sents=600, seed=0):
    """两组词各自成句：0..4 只和 0..4 同句，5..9 只和 5..9 同句。"""
    rng = np.random.default_rng(seed)
    return [list(rng.integers(0, 5, 8) + 5 * (i % 2)) for i in range(n_sents)]


def _cos(W):
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    return Wn @ Wn.T


def test_train_sgns_learns_planted_topics_and_is_deterministic():
    sents = _topic_corpus()
    counts = np.bincount(np.concatenate(sents), minlength=10)
    kw = dict(dim=16, window=2, negatives=3, epochs=3, lr=0.05, subsample=None, batch_size=64, seed=3)
    m = W2V.train_sgns(sents, 10, counts, **kw)
    m2 = W2V.train_sgns(sents, 10, counts, **kw)
    assert np.array_equal(m.W_in, m2.W_in) and m.loss_history == m2.loss_history
    assert not np.array_equal(m.W_in, W2V.train_sgns(sents, 10, counts, **{**kw, "seed": 4}).W_in)
    assert m.W_in.dtype == np.float32 and m.W_in.shape == (10, 16) and m.W_out.shape == (10, 16)
    assert m.n_pairs > 0 and len(m.loss_history) >= 3
    assert m.loss_history[-1] < m.loss_history[0] < 4 * np.log(2) + 1e-6  # 初始 W_out = 0：损失 (1+k)·ln 2
    S = _cos(m.W_in)
    same = np.array([[(i < 5) == (j < 5) and i != j for j in range(10)] for i in range(10)])
    across = np.array([[(i < 5) != (j < 5) for j in range(10)] for i in range(10)])
    assert S[same].mean() > S[across].mean() + 0.5


def test_train_sgns_subsampling_window_and_progress():
    sents = _topic_corpus(200)
    counts = np.bincount(np.concatenate(sents), minlength=12)  # 10、11 两个词从未出现：不会被抽为噪声词
    m = W2V.train_sgns(sents, 12, counts, dim=4, window=1, negatives=2, subsample=0.01, seed=0, progress=True)
    m_all = W2V.train_sgns(sents, 12, counts, dim=4, window=1, negatives=2, subsample=None, seed=0)
    assert 0 < m.n_pairs < m_all.n_pairs == 200 * 7 * 2  # 窗口 1：每句 8 个词 → 14 对
    assert np.all(m_all.W_out[10:] == 0)  # 从未出现、也从未被抽到


@pytest.mark.parametrize("call, exc, match", [
    (lambda: W2V.skipgram_pairs(["我"], 0), ValueError, "window 必须 > 0"),
    (lambda: W2V.skipgram_pairs("我喜欢", 1), TypeError, "请先分词"),
    (lambda: W2V.cbow_examples(["我"], 1.5), TypeError, "window 必须是整数"),
    (lambda: W2V.cbow_forward(W_IN, W_OUT, [0, 2], 0), ValueError, "context_ids 必须在 0..1"),
    (lambda: W2V.cbow_forward(W_IN, W_OUT, [], 0), ValueError, "不能为空"),
    (lambda: W2V.cbow_forward(W_IN, W_OUT, [0.5], 0), TypeError, "整数编号"),
    (lambda: W2V.cbow_forward(W_IN, [[1.0, 2.0, 3.0]], [0], 0), ValueError, "维数必须相同"),
    (lambda: W2V.cbow_backward(W_IN, W_OUT, [0], 3), ValueError, "target 必须在 0..2"),
    (lambda: W2V.cbow_step(W_IN, W_OUT, [0], 0, lr=0), ValueError, "lr 必须 > 0"),
    (lambda: W2V.skipgram_forward_backward(W_IN, W_OUT, 2, 0), ValueError, "center 必须在 0..1"),
    (lambda: W2V.negative_sampling_loss([1.0, 2.0], [0.0]), ValueError, "一个数"),
    (lambda: W2V.sgns_forward_backward([1.0, 0.0], [1.0], [[0.0, 0.0]]), ValueError, "等长"),
    (lambda: W2V.sgns_forward_backward([1.0, 0.0], [1.0, 0.0], [0.0, 0.0]), ValueError, "u_negs"),
    (lambda: W2V.noise_distribution([1, -1]), ValueError, "负数"),
    (lambda: W2V.noise_distribution([]), ValueError, "非空"),
    (lambda: W2V.subsample_keep_prob([1, 2], t=0), ValueError, "t 必须 > 0"),
    (lambda: W2V.train_sgns([[0, 1]], 2, [1, 1], dim=-1), ValueError, "dim 必须 > 0"),
    (lambda: W2V.train_sgns([[0, 1]], 2, [1, 1], window=0), ValueError, "window 必须 > 0"),
    (lambda: W2V.train_sgns([[0, 1]], 2, [1, 1], lr=0), ValueError, "lr 必须 > 0"),
    (lambda: W2V.train_sgns([[0, 1]], 2, [1, 1], lr=0.01, min_lr=0.1), ValueError, "min_lr 不能大于 lr"),
    (lambda: W2V.train_sgns([], 2, [1, 1]), ValueError, "语料为空"),
    (lambda: W2V.train_sgns([[], []], 2, [1, 1]), ValueError, "语料为空"),
    (lambda: W2V.train_sgns([[0], [1]], 2, [1, 1]), ValueError, "没有任何词对"),
    (lambda: W2V.train_sgns([[0, 2]], 2, [1, 1]), ValueError, "0..1"),
    (lambda: W2V.train_sgns([[0, 1.5]], 2, [1, 1]), TypeError, "整数编号"),
    (lambda: W2V.train_sgns("0 1", 2, [1, 1]), TypeError, "句子的列表"),
    (lambda: W2V.train_sgns([[0, 1]], 2, [1, 1, 1]), ValueError, "vocab_size=2"),
    (lambda: W2V.train_sgns([[0, 1]] * 3, 2, [3, 3], subsample=1e-6, seed=0), ValueError, "subsample=None"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_alias_sampler_matches_the_noise_distribution():
    """别名表抽样：各词被抽到的频率 ≈ noise_distribution；概率为 0 的词永远抽不到；同一种子结果相同。"""
    counts = np.array([1000, 100, 10, 1, 0, 5000, 0, 3])
    p = W2V.noise_distribution(counts)
    sampler = W2V._AliasSampler(p)
    draws = sampler.sample(np.random.default_rng(0), (400_000,))
    freq = np.bincount(draws, minlength=len(p)) / len(draws)
    assert np.all(freq[p == 0] == 0)
    assert np.allclose(freq, p, atol=3e-3)
    again = W2V._AliasSampler(p).sample(np.random.default_rng(0), (400_000,))
    assert np.array_equal(draws, again)
    assert sampler.sample(np.random.default_rng(1), (3, 5)).shape == (3, 5)
