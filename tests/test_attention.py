"""attention：第 12、13 章的手算数字，遮罩，多头前向/反向（有限差分），位置编码，第 13 章注意力浏览器的演示数据。"""
import numpy as np
from _gradcheck import numgrad_inplace
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from nlpbook import attention as A
from nlpbook.attention_demo import HEADS, IT_INDEX, demo_heads, demo_scores, demo_sentence, demo_values

# 第 13.3 节：X 与 W_Q = W_K = I、W_V = [[1,0],[0,2]]
X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
W_V = np.array([[1.0, 0.0], [0.0, 2.0]])


def r3(a):
    return np.round(np.asarray(a, dtype=float), 3).tolist()


def test_chapter_12_scores_to_context():
    """分数 0、1、2 → 指数 1.000、2.718、7.389 → 权重 0.090、0.245、0.665 → 上下文 [0.755, 0.910]。"""
    values = [[1, 0], [0, 1], [1, 1]]  # 我、喜欢、猫
    assert r3(np.exp([0, 1, 2])) == [1.0, 2.718, 7.389]
    ctx, w = A.attention_from_scores([0, 1, 2], values)
    assert r3(w) == [0.090, 0.245, 0.665]
    assert r3(ctx) == [0.755, 0.910]
    assert r3(A.masked_softmax([0.0, 1.0, 2.0])) == [0.090, 0.245, 0.665]
    # 同一件事也可以写成一次注意力：d_k = 1，q·k 正好是 0、1、2
    out, w2 = A.scaled_dot_product_attention([[1.0]], [[0.0], [1.0], [2.0]], values)
    assert np.allclose(w2[0], w) and np.allclose(out[0], ctx)


def test_chapter_13_qkv_table():
    Q, K, V = X @ np.eye(2), X @ np.eye(2), X @ W_V
    assert V.tolist() == [[1, 0], [0, 2], [1, 2]]
    assert Q.tolist() == K.tolist() == X.tolist()


def test_chapter_13_four_steps_for_A():
    st_ = A.attention_steps(X, X, X @ W_V)
    assert st_["scores"][0].tolist() == [1, 0, 1]                      # 第一步：1、0、1
    assert r3(st_["scaled"][0]) == [0.707, 0.0, 0.707]                  # 第二步：÷ 1.414
    assert round(np.sqrt(2), 3) == 1.414
    e = np.exp(st_["scaled"][0])
    assert r3(e) == [2.028, 1.0, 2.028] and round(e.sum(), 3) == 5.056  # 第三步：指数与总和
    assert r3(st_["weights"][0]) == [0.401, 0.198, 0.401]
    assert r3(st_["output"][0]) == [0.802, 1.198]                       # 第四步
    assert np.allclose(A.attention_scores(X, X)[0], st_["scaled"][0])
    assert A.attention_scores(X, X, scale=False)[0].tolist() == [1, 0, 1]


def test_chapter_13_full_3x3_table():
    """第 13.4 节：3 个位置各比较 3 个候选 → 3×3 表；B、C 各有自己的权重。"""
    out, w = A.scaled_dot_product_attention(X, X, X @ W_V)
    assert w.shape == (3, 3) and out.shape == (3, 2)
    assert r3(A.attention_scores(X, X)) == [[0.707, 0.0, 0.707], [0.0, 0.707, 0.707], [0.707, 0.707, 1.414]]
    assert r3(w) == [[0.401, 0.198, 0.401], [0.198, 0.401, 0.401], [0.248, 0.248, 0.503]]
    assert r3(out) == [[0.802, 1.198], [0.599, 1.604], [0.752, 1.503]]
    assert np.allclose(w.sum(-1), 1)


def test_chapter_13_5_causal_mask():
    """A 是第一个位置：[0.707, -∞, -∞] → [1, 0, 0] → [1, 0]。"""
    m = A.causal_mask(3)
    assert m.tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    st_ = A.attention_steps(X, X, X @ W_V, mask=m)
    assert r3(st_["masked"][0][:1]) == [0.707] and np.isneginf(st_["masked"][0][1:]).all()
    assert st_["weights"][0].tolist() == [1.0, 0.0, 0.0]
    assert st_["output"][0].tolist() == [1.0, 0.0]
    assert np.array_equal(st_["weights"][np.triu_indices(3, 1)], np.zeros(3))  # 恰好为 0
    masked = A.apply_mask(A.attention_scores(X, X), m)
    assert np.isneginf(masked[0, 1]) and masked.dtype == np.float64


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(1, 6))
def test_masked_weights_are_exactly_zero_and_rows_sum_to_one(seed, n_q, n_k):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(2, n_q, 3)) * 5, rng.normal(size=(2, n_k, 3)) * 5, rng.normal(size=(2, n_k, 4))
    mask = rng.random((2, n_q, n_k)) < 0.6
    mask[..., 0] = True  # 每行至少能读一个位置
    out, w = A.scaled_dot_product_attention(q, k, v, mask)
    assert np.all(w[~mask] == 0.0)
    assert np.allclose(w.sum(-1), 1) and np.all(np.isfinite(out))
    # 整列被遮罩的 key：它的 v 怎么改都不影响输出
    if n_k > 1:
        mask[..., -1] = False
        out, _ = A.scaled_dot_product_attention(q, k, v, mask)
        v2 = v.copy()
        v2[:, -1] += 100
        assert np.allclose(A.scaled_dot_product_attention(q, k, v2, mask)[0], out)


def test_masked_softmax_is_stable_and_keeps_float32():
    w = A.masked_softmax(np.array([1000.0, -1000.0, -np.inf]))
    assert w.tolist() == [1.0, 0.0, 0.0]
    s = np.array([[3.0, 1.0, -np.inf]], dtype=np.float32)
    assert A.masked_softmax(s).dtype == np.float32
    q = np.ones((2, 4), dtype=np.float32)
    out, w = A.scaled_dot_product_attention(q, q, q, A.causal_mask(2))
    assert out.dtype == np.float32 and w.dtype == np.float32


def test_fully_masked_row_raises_naming_the_row():
    mask = np.array([[True, False], [False, False]])
    with pytest.raises(ValueError, match=r"query 位置 1.*都被遮罩"):
        A.scaled_dot_product_attention(np.eye(2), np.eye(2), np.eye(2), mask)
    with pytest.raises(ValueError, match=r"批量下标 \(1,\)、query 位置 0"):
        A.masked_softmax(np.array([[[0.0, 1.0]], [[-np.inf, -np.inf]]]))


def test_padding_mask_and_combination_with_causal():
    p = A.padding_mask([2, 3], 3)
    assert p.shape == (2, 1, 3) and p.dtype == bool
    assert p[:, 0].tolist() == [[True, True, False], [True, True, True]]
    both = A.causal_mask(3) & p
    assert both.shape == (2, 3, 3)
    assert both[0].tolist() == [[True, False, False], [True, True, False], [True, True, False]]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 4))
    out, w = A.scaled_dot_product_attention(x, x, x, both)
    assert np.all(w[0, :, 2] == 0) and np.allclose(w.sum(-1), 1)
    # 第 0 条序列的前两个位置和单独处理长度为 2 的序列一样
    out2, _ = A.scaled_dot_product_attention(x[0, :2], x[0, :2], x[0, :2], A.causal_mask(2))
    assert np.allclose(out[0, :2], out2)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: A.attention_scores(np.ones((3, 2)), np.ones((3, 4))), ValueError, r"q \(3, 2\)、k \(3, 4\)"),
    (lambda: A.scaled_dot_product_attention(np.ones((3, 2)), np.ones((4, 2)), np.ones((3, 5))),
     ValueError, r"k \(4, 2\)、v \(3, 5\)"),
    (lambda: A.scaled_dot_product_attention(np.ones((2, 3, 2)), np.ones((4, 3, 2)), np.ones((4, 3, 2))),
     ValueError, r"批量维.*q \(2, 3, 2\)"),
    (lambda: A.attention_scores([1.0, 0.0], X), ValueError, r"至少 2 维，收到 \(2,\)"),
    (lambda: A.apply_mask(np.zeros((3, 3)), np.ones((3, 3))), TypeError, "布尔"),
    (lambda: A.apply_mask(np.zeros((3, 3)), np.ones((2, 2), bool)), ValueError, r"\(2, 2\).*\(3, 3\)"),
    (lambda: A.masked_softmax([np.nan, 1.0]), ValueError, "NaN"),
    (lambda: A.masked_softmax([np.inf, 1.0]), ValueError, r"\+∞"),
    (lambda: A.attention_from_scores([0, 1], [[1, 0], [0, 1], [1, 1]]), ValueError, "候选数 2"),
    (lambda: A.causal_mask(0), ValueError, "n 必须 > 0"),
    (lambda: A.causal_mask(2.0), TypeError, "整数"),
    (lambda: A.padding_mask([0, 2], 3), ValueError, "1..3"),
    (lambda: A.padding_mask([4], 3), ValueError, "1..3"),
    (lambda: A.padding_mask([1.0], 3), TypeError, "整数"),
    (lambda: A.split_heads(np.ones((3, 10)), 4), ValueError, "整除"),
    (lambda: A.merge_heads(np.ones((3, 4))), ValueError, "至少 3 维"),
    (lambda: A.sinusoidal_positions(0, 4), ValueError, "n 必须 > 0"),
    (lambda: A.rope(np.ones((3, 5))), ValueError, "偶数"),
    (lambda: A.rope(np.ones(4)), ValueError, "positions"),
    (lambda: A.rope(np.ones((3, 4)), positions=[0, 1]), ValueError, r"\(2,\).*\(3,\)"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@given(st.integers(1, 3), st.integers(1, 5), st.sampled_from([1, 2, 4]), st.integers(1, 4))
def test_split_merge_round_trip(b, t, h, dh):
    x = np.arange(b * t * h * dh, dtype=float).reshape(b, t, h * dh)
    s = A.split_heads(x, h)
    assert s.shape == (b, h, t, dh)
    assert np.array_equal(s[:, 1 % h, :, :], x[:, :, (1 % h) * dh:(1 % h + 1) * dh])
    assert np.array_equal(A.merge_heads(s), x)


def _loss(x, params, n_heads, mask, g):
    out, _ = A.mha_forward(x, params, n_heads, mask)
    return float((out * g).sum())


@pytest.mark.parametrize("bias, masked", [(True, False), (False, True), (True, True)])
def test_mha_backward_matches_finite_differences(bias, masked):
    rng = np.random.default_rng(3)
    B, T, d, h = 2, 4, 6, 3
    params = A.init_mha_params(d, rng, bias=bias, dtype=np.float64)
    if bias:
        params.update({b: rng.normal(size=d) * 0.5 for b in ("bq", "bk", "bv", "bo")})
    x = rng.normal(size=(B, T, d))
    mask = A.causal_mask(T) & A.padding_mask([3, 4], T) if masked else None
    g = rng.normal(size=(B, T, d))
    out, cache = A.mha_forward(x, params, h, mask)
    dx, grads = A.mha_backward(g, cache)
    assert set(grads) == set(params) and dx.shape == x.shape
    eps = 1e-6

    def num_grad(arr, f):
        return numgrad_inplace(f, arr, eps)

    assert np.allclose(dx, num_grad(x, lambda: _loss(x, params, h, mask, g)), atol=1e-6)
    for name in params:
        num = num_grad(params[name], lambda: _loss(x, params, h, mask, g))
        assert np.allclose(grads[name], num, atol=1e-6), name


def test_mha_shapes_float32_and_single_sequence():
    rng = np.random.default_rng(0)
    params = A.init_mha_params(8, rng)
    assert params["Wq"].dtype == np.float32 and set(params) == {"Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo"}
    x = rng.normal(size=(5, 8)).astype(np.float32)
    out, cache = A.mha_forward(x, params, 2, A.causal_mask(5))
    assert out.shape == (5, 8) and out.dtype == np.float32 and cache["weights"].shape == (1, 2, 5, 5)
    dx, grads = A.mha_backward(np.ones_like(out), cache)
    assert dx.dtype == np.float32 and all(gr.dtype == np.float32 for gr in grads.values())
    out_b, _ = A.mha_forward(x[None], params, 2, A.causal_mask(5))
    assert np.allclose(out_b[0], out)
    # multi_head_attention：不带偏置的包装，返回每个 head 的权重
    W = [params[k] for k in ("Wq", "Wk", "Wv", "Wo")]
    o, w = A.multi_head_attention(x, *W, n_heads=2, mask=A.causal_mask(5))
    assert w.shape == (2, 5, 5) and np.all(w[:, 0, 1:] == 0) and np.allclose(w.sum(-1), 1)
    # 一个 head 时就是 scaled_dot_product_attention 再乘 Wo
    o1, _ = A.multi_head_attention(x.astype(float), *[a.astype(float) for a in W], n_heads=1)
    ref, _ = A.scaled_dot_product_attention(x @ W[0], x @ W[1], x @ W[2])
    assert np.allclose(o1, ref @ W[3], atol=1e-5)


def test_self_attention_without_positions_is_permutation_equivariant():
    """第 13.6 节：不加位置信息时，交换输入行，输出也只是相应交换。"""
    rng = np.random.default_rng(1)
    params = A.init_mha_params(4, rng, dtype=np.float64)
    x = rng.normal(size=(5, 4))
    perm = np.array([3, 0, 4, 1, 2])
    out, _ = A.mha_forward(x, params, 2)
    out_p, _ = A.mha_forward(x[perm], params, 2)
    assert np.allclose(out_p, out[perm])


@pytest.mark.parametrize("call, exc, match", [
    (lambda p, x: A.mha_forward(x, p, 3), ValueError, "整除"),
    (lambda p, x: A.mha_forward(x[0, 0], p, 2), ValueError, r"\(T, d_model\)"),
    (lambda p, x: A.mha_forward(x, {"Wq": p["Wq"]}, 2), ValueError, "缺少"),
    (lambda p, x: A.mha_forward(x, dict(p, Wo=np.ones((4, 3))), 2), ValueError, r"Wo 的形状应为 \(4, 4\)"),
    (lambda p, x: A.mha_forward(x, p, 2, np.zeros((3, 3), bool)), ValueError, "都被遮罩"),
    (lambda p, x: A.mha_forward(x, p, 2, np.ones((3, 3))), TypeError, "布尔"),
    (lambda p, x: A.mha_forward(x, p, 2, np.ones((2, 2), bool)), ValueError, r"\(2, 2\)"),
    (lambda p, x: A.mha_backward(np.ones((1, 3)), A.mha_forward(x, p, 2)[1]), ValueError, "d_out"),
    (lambda p, x: A.init_mha_params(4, 0), TypeError, "Generator"),
])
def test_mha_errors(call, exc, match):
    p = A.init_mha_params(4, np.random.default_rng(0), dtype=np.float64)
    with pytest.raises(exc, match=match):
        call(p, np.ones((2, 3, 4)))


def test_sinusoidal_positions_values():
    pe = A.sinusoidal_positions(3, 4)
    assert pe.shape == (3, 4)
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert r3(pe[1]) == [0.841, 0.540, 0.010, 1.000]   # sin 1, cos 1, sin 0.01, cos 0.01
    assert r3(pe[2]) == [0.909, -0.416, 0.020, 1.000]
    big = A.sinusoidal_positions(50, 16)
    assert np.isclose(big[49, 2], np.sin(49 / 10000 ** (2 / 16))) and np.isclose(big[49, 3], np.cos(49 / 10000 ** (2 / 16)))
    assert A.sinusoidal_positions(2, 5).shape == (2, 5)
    assert np.all(np.abs(big) <= 1)


@settings(max_examples=50, deadline=None)
@given(st.integers(-200, 200), st.integers(-200, 200), st.integers(-50, 50),
       arrays(float, (2, 8), elements=st.floats(-3, 3)))
def test_rope_depends_only_on_relative_position(m, n, shift, qk):
    q, k = qk
    base = A.rope(q, m) @ A.rope(k, n)
    assert np.isclose(base, A.rope(q, m + shift) @ A.rope(k, n + shift), atol=1e-8)
    assert np.isclose(base, A.rope(q, m - n) @ A.rope(k, 0), atol=1e-8)


def test_rope_is_a_rotation_and_default_positions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 6))
    y = A.rope(x)
    assert y.shape == x.shape
    assert np.allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1))  # 长度不变
    assert np.allclose(y[:, 0], x[:, 0])  # 位置 0 不转
    assert np.allclose(y, A.rope(x, np.arange(5)))
    assert np.allclose(A.rope(y, -np.arange(5)), x)  # 反着转回来（也是反向传播的公式）
    # 第一对维度转 m 弧度（θ_0 = 1）
    v = A.rope(np.array([1.0, 0.0, 0.0, 0.0]), 2)
    assert np.allclose(v[:2], [np.cos(2), np.sin(2)])
    assert A.rope(x.astype(np.float32)).dtype == np.float32


def test_demo_data_web_chapter_03_3():
    toks = demo_sentence()
    assert toks == ["小猫", "没有", "跳上", "桌子", "，", "因为", "它", "太", "累", "了"]
    assert toks[IT_INDEX] == "它"
    heads = demo_heads()
    assert set(heads) == set(HEADS) == {"指代头", "邻近头"}
    for w in heads.values():
        assert w.shape == (10, 10) and np.allclose(w.sum(1), 1) and np.all(w > 0)
    it = heads["指代头"][IT_INDEX]
    order = [toks[i] for i in np.argsort(-it)[:3]]
    assert order == ["小猫", "桌子", "累"] and it[0] > 0.5
    near = heads["邻近头"][IT_INDEX]
    assert {toks[i] for i in np.argsort(-near)[:2]} == {"因为", "太"}
    # 三步：分数 → softmax → 加权汇总
    s = demo_scores(IT_INDEX)
    assert s.shape == (10,) and np.allclose(A.masked_softmax(s), it)
    assert np.allclose(it @ demo_values(), A.attention_from_scores(s, demo_values())[0])
    assert demo_values().shape == (10, 3) and np.all((demo_values() >= 0) & (demo_values() <= 1))
    assert np.allclose(A.masked_softmax(demo_scores(2, "邻近头")), heads["邻近头"][2])


def test_demo_causal_it_cannot_see_lei():
    heads = demo_heads(causal=True)
    for w in heads.values():
        assert np.allclose(w.sum(1), 1) and np.all(w[np.triu_indices(10, 1)] == 0)
    assert heads["指代头"][IT_INDEX][8] == 0.0  # “它”看不到“累”
    assert heads["指代头"][0].tolist() == [1.0] + [0.0] * 9
    assert demo_heads()["指代头"][IT_INDEX][8] > 0.1


@pytest.mark.parametrize("call, exc, match", [
    (lambda: demo_scores(10), ValueError, "0..9"),
    (lambda: demo_scores(-1), ValueError, ">= 0"),
    (lambda: demo_scores(6, "主语头"), ValueError, "指代头"),
    (lambda: demo_heads(causal="yes"), TypeError, "True 或 False"),
])
def test_demo_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
