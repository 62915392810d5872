"""transformer、layers、tiny_transformer：第 13.8 节的 LayerNorm/FFN/整层（Pre-LN 与 Post-LN）、
第 11 章的小语言模型（因果、错开一位、困惑度）、Adam，手写梯度全部用有限差分（float64）检验；
随包的真实评论字符模型能加载，且留出困惑度低于二元字模型。"""
import importlib.util
import math
from pathlib import Path

import numpy as np
from _gradcheck import numgrad_inplace
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from nlpbook import layers as LY
from nlpbook import optim as OP
from nlpbook import tiny_transformer as TT
from nlpbook import transformer as TF
from nlpbook.attention import causal_mask, mha_forward
from nlpbook.tiny_transformer import TinyTransformerLM, load_lm, load_pretrained, save_lm

ROOT = Path(__file__).resolve().parents[1]
EPS = 1e-6


def num_grad(arr, f):
    """中心差分：逐个元素 ±EPS。"""
    return numgrad_inplace(f, arr, EPS)


def assert_grads(analytic: dict, arrays_: dict, f, atol=1e-6):
    for name, arr in arrays_.items():
        assert np.allclose(analytic[name], num_grad(arr, f), atol=atol, rtol=1e-4), name


# ---------- LayerNorm（第 13.8 节） ----------
def test_layer_norm_text_example_1_3():
    y, _ = LY.layer_norm_forward([[1.0, 3.0]], 1.0, 0.0)
    assert np.round(y, 3).tolist() == [[-1.0, 1.0]]
    assert np.allclose(y, [[-1 / math.sqrt(1 + 1e-5), 1 / math.sqrt(1 + 1e-5)]])  # eps 只动最后几位
    assert round(float(y[0, 1]), 6) == 0.999995
    y2, _ = LY.layer_norm_forward([1.0, 3.0], [2.0, 2.0], [0.5, 0.5])  # 可学习缩放与偏移
    assert np.allclose(y2, 2 * y[0] + 0.5)


@settings(max_examples=40, deadline=None)
@given(arrays(float, (3, 5), elements=st.floats(-100, 100)))
def test_layer_norm_rows_have_mean_0_and_variance_1(x):
    x = x + np.arange(5) * 1e-3  # 避免一行全相同（方差 0 时结果为 0）
    y, _ = LY.layer_norm_forward(x, np.ones(5), np.zeros(5))
    assert np.allclose(y.mean(-1), 0, atol=1e-6)
    var = x.var(-1)
    assert np.allclose(y.var(-1), var / (var + 1e-5), atol=1e-6)


def test_layer_norm_gradients_finite_differences():
    rng = np.random.default_rng(0)
    x, g, b = rng.normal(size=(2, 3, 4)), rng.normal(size=4), rng.normal(size=4)
    w = rng.normal(size=(2, 3, 4))
    y, cache = LY.layer_norm_forward(x, g, b)
    dx, dg, db = LY.layer_norm_backward(w, cache)
    f = lambda: float((LY.layer_norm_forward(x, g, b)[0] * w).sum())  # noqa: E731
    assert_grads({"x": dx, "g": dg, "b": db}, {"x": x, "g": g, "b": b}, f)


def test_float32_stays_float32():
    x = np.ones((2, 4), np.float32) * np.arange(4, dtype=np.float32)
    y, _ = LY.layer_norm_forward(x, np.ones(4, np.float32), np.zeros(4, np.float32))
    assert y.dtype == np.float32


@pytest.mark.parametrize("gamma, beta", [(1.0, 0.0), (np.float32(1.0), np.float32(0.0)), (2, -1),
                                         ([1.0] * 4, [0.0] * 4)])
def test_layer_norm_float32_with_plain_number_gamma_beta(gamma, beta):
    """文档写的“float32 进 → float32 出”对 gamma/beta 给一个数（或列表）时也成立（问题 11 的第 1 个 bug）。"""
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    y, cache = LY.layer_norm_forward(x, gamma, beta)
    assert y.dtype == np.float32
    dx, dg, db = LY.layer_norm_backward(np.ones_like(y), cache)
    assert dx.dtype == dg.dtype == db.dtype == np.float32
    y64, _ = LY.layer_norm_forward(x.astype(np.float64), gamma, beta)
    assert y64.dtype == np.float64 and np.allclose(y, y64, atol=1e-6)
    p = LY.init_ffn_params(4, 8, np.random.default_rng(0))
    assert LY.ffn_forward(x, p)[0].dtype == np.float32


# ---------- FFN 与 GELU ----------
def test_gelu_values_and_formula():
    assert np.round(LY.gelu([-1.0, 0.0, 1.0]), 3).tolist() == [-0.159, 0.0, 0.841]
    x = np.linspace(-6, 6, 101)
    exact = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    assert np.allclose(LY.gelu(x), exact)
    assert LY.gelu(10.0) == pytest.approx(10.0) and abs(LY.gelu(-10.0)) < 1e-12


def test_ffn_128_512_128_of_the_text():
    p = LY.init_ffn_params(128, 512, np.random.default_rng(0))
    assert p["W1"].shape == (128, 512) and p["W2"].shape == (512, 128)
    x = np.random.default_rng(1).normal(size=(2, 7, 128)).astype(np.float32)
    out, _ = LY.ffn_forward(x, p)
    assert out.shape == x.shape
    # 各位置独立应用同一套参数：单独算第 3 个位置，结果相同
    assert np.allclose(LY.ffn_forward(x[1, 3], p)[0], out[1, 3], atol=1e-5)


@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_ffn_gradients_finite_differences(activation):
    rng = np.random.default_rng(2)
    p = LY.init_ffn_params(4, 6, rng, dtype=np.float64)
    p["b1"] = rng.normal(size=6)
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    out, cache = LY.ffn_forward(x, p, activation)
    dx, grads = LY.ffn_backward(w, cache)
    f = lambda: float((LY.ffn_forward(x, p, activation)[0] * w).sum())  # noqa: E731
    assert_grads(dict(grads, x=dx), dict(p, x=x), f)


# ---------- 整层：Pre-LN 与 Post-LN（第 13.8 节、附录 B） ----------
def _block(seed=0, d=6, d_ff=8):
    rng = np.random.default_rng(seed)
    p = TF.init_block_params(d, d_ff, rng, dtype=np.float64)
    for k in p:  # 偏置与 LayerNorm 参数也取随机值，梯度检验才不平凡
        if p[k].ndim == 1:
            p[k] = p[k] + 0.3 * rng.normal(size=p[k].shape)
    return p, rng


def test_pre_ln_block_is_the_appendix_b_formula():
    p, rng = _block()
    x, mask = rng.normal(size=(2, 4, 6)), causal_mask(4)
    att = {k: p[k] for k in ("Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo")}
    ffn = {k: p[k] for k in ("W1", "b1", "W2", "b2")}
    ln = lambda z, i: LY.layer_norm_forward(z, p[f"ln{i}_g"], p[f"ln{i}_b"])[0]  # noqa: E731
    U = x + mha_forward(ln(x, 1), att, 2, mask)[0]
    Y = U + LY.ffn_forward(ln(U, 2), ffn)[0]
    assert np.allclose(TF.block_forward(x, p, 2, mask)[0], Y)
    Yp = ln(x + mha_forward(x, att, 2, mask)[0], 1)  # Post-LN：Y = LN(X + MHA(X))；Z = LN(Y + FFN(Y))
    Z = ln(Yp + LY.ffn_forward(Yp, ffn)[0], 2)
    assert np.allclose(TF.block_forward(x, p, 2, mask, pre_ln=False)[0], Z)


@pytest.mark.parametrize("pre_ln", [True, False])
def test_block_gradients_finite_differences(pre_ln):
    p, rng = _block(1)
    x, w, mask = rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 6)), causal_mask(4)
    y, cache = TF.block_forward(x, p, 2, mask, pre_ln=pre_ln)
    dx, grads = TF.block_backward(w, cache)
    assert set(grads) == set(p)
    f = lambda: float((TF.block_forward(x, p, 2, mask, pre_ln=pre_ln)[0] * w).sum())  # noqa: E731
    assert_grads(dict(grads, x=dx), dict(p, x=x), f)


def test_block_128_dims_keeps_shape_and_post_ln_normalises():
    p = TF.init_block_params(128, 512, np.random.default_rng(0))
    x = np.random.default_rng(1).normal(size=(5, 128)).astype(np.float32) * 3 + 2
    y, _ = TF.block_forward(x, p, 4, causal_mask(5))
    assert y.shape == (5, 128) and y.dtype == np.float32
    z, _ = TF.block_forward(x, p, 4, causal_mask(5), pre_ln=False)
    assert np.allclose(z.mean(-1), 0, atol=1e-5) and np.allclose(z.std(-1), 1, atol=1e-3)  # 最后一步是 LN


# ---------- 语言模型（第 11 章） ----------
def _lm(seed=0, positions="learned", tie=False, V=7, max_len=6, dtype=np.float64):
    rng = np.random.default_rng(seed)
    P = TF.init_lm_params(V, 4, 2, 2, 8, max_len, rng, positions=positions, tie=tie, dtype=dtype)
    for k in P:
        if k != "config" and P[k].ndim == 1:
            P[k] = P[k] + 0.2 * rng.normal(size=P[k].shape).astype(dtype)
        elif k != "config":
            P[k] = P[k] * 10  # 0.02 的初始值太小，放大后梯度检验更敏感
    return P, rng


@pytest.mark.parametrize("positions, tie", [("learned", False), ("sinusoidal", True)])
def test_whole_lm_gradients_finite_differences(positions, tie):
    P, rng = _lm(positions=positions, tie=tie)
    ids = np.array([[1, 2, 1, 1, 6], [0, 3, 3, 5, 1]])  # 重复的 token：词向量的梯度要累加
    tg = np.array([[2, 1, 1, 6, 0], [3, 3, 5, 1, 4]])
    loss, grads = TF.lm_loss_and_grads(P, ids, tg)
    keys = [k for k in P if k != "config"]
    assert set(grads) == set(keys)
    assert ("pos_emb" in grads) == (positions == "learned") and ("W_out" in grads) == (not tie)
    logits, _ = TF.lm_forward(P, ids)
    z = logits - logits.max(-1, keepdims=True)
    manual = -(np.take_along_axis(z, tg[..., None], -1)[..., 0] - np.log(np.exp(z).sum(-1))).mean()
    assert loss == pytest.approx(manual)
    assert_grads(grads, {k: P[k] for k in keys}, lambda: TF.lm_loss_and_grads(P, ids, tg)[0])


def test_changing_a_future_token_does_not_change_earlier_logits():
    P, rng = _lm(3, max_len=8, V=9)
    ids = rng.integers(0, 9, 8)
    base, _ = TF.lm_forward(P, ids)
    for t in range(8):
        changed = ids.copy()
        changed[t] = (changed[t] + 1) % 9
        out, _ = TF.lm_forward(P, changed)
        assert np.array_equal(out[:t], base[:t])  # 前面的位置完全不变
        assert not np.allclose(out[t:], base[t:])


def test_targets_are_shifted_by_one_and_perplexity_windows():
    P, rng = _lm(4, max_len=6)
    text = rng.integers(0, 7, 14)
    logits, _ = TF.lm_forward(P, text[:6])
    z = logits - logits.max(-1, keepdims=True)
    nll = -(z[np.arange(6), text[1:7]] - np.log(np.exp(z).sum(-1)))
    loss, _ = TF.lm_loss_and_grads(P, text[:6], text[1:7])
    assert loss == pytest.approx(nll.mean())
    # 窗口长 6：预测 13 个 token = 6 + 6 + 1（最后一个窗口只有 1 个位置）
    parts = []
    for s in (0, 6, 12):
        L = min(6, 13 - s)
        lg, _ = TF.lm_forward(P, text[s:s + L])
        zz = lg - lg.max(-1, keepdims=True)
        parts.extend(-(zz[np.arange(L), text[s + 1:s + L + 1]] - np.log(np.exp(zz).sum(-1))))
    assert TT.lm_perplexity(P, text, 6) == pytest.approx(math.exp(np.mean(parts)))


def test_perplexity_of_uniform_model_is_vocab_size():
    P, _ = _lm(5)
    P["W_out"][:] = 0
    P["b_out"][:] = 0
    assert TT.lm_perplexity(P, np.arange(7).repeat(3)) == pytest.approx(7.0)


def test_token_nll_next_logits_config_and_shapes():
    """tiny_transformer 用来算困惑度、生成与保存的公开函数：与 lm_forward、lm_loss_and_grads 一致。"""
    P, rng = _lm(7, max_len=6)
    text = rng.integers(0, 7, (2, 7))
    nll = TF.lm_token_nll(P, text[:, :-1], text[:, 1:])
    loss, _ = TF.lm_loss_and_grads(P, text[:, :-1], text[:, 1:])
    assert nll.shape == (2, 6) and nll.dtype == np.float64 and loss == pytest.approx(nll.mean())
    logits, _ = TF.lm_forward(P, text[0, :5])
    assert np.allclose(TF.lm_next_logits(P, text[0, :5]), logits[-1])
    assert TF.lm_config(P) is P["config"]
    shapes = TF.lm_param_shapes(P["config"])
    assert shapes == {k: v.shape for k, v in P.items() if k != "config"}


def test_generate_logits_and_attention_maps():
    P, rng = _lm(6, max_len=5)
    ids = rng.integers(0, 7, 9)
    logits, _ = TF.lm_forward(P, ids[-5:])
    g = TT.generate_logits(P, list(ids))  # 比 max_len 长：只看最后 5 个
    assert g.shape == (7,) and g.dtype == np.float64 and np.allclose(g, logits[-1])
    maps = TT.attention_maps(P, ids[:4])
    assert len(maps) == 2 and all(m.shape == (2, 4, 4) for m in maps)
    for m in maps:
        assert np.allclose(m.sum(-1), 1) and np.all(np.triu(m, 1) == 0)


def test_loss_decreases_on_a_repeated_pattern_within_a_few_dozen_steps():
    ids = np.tile([1, 2, 3, 4, 2, 5], 60)
    P, hist = TT.train_lm(ids, 6, d_model=16, n_layers=1, n_heads=2, d_ff=32, steps=40, batch_size=8,
                          seq_len=12, lr=1e-2, warmup=5, seed=0, val_ids=ids[:50], eval_every=20)
    first, last = hist[0]["loss"], np.mean([h["loss"] for h in hist[-5:]])
    assert first > 1.5 and last < 0.3 * first
    assert [h["step"] for h in hist if "val_ppl" in h] == [20, 40]
    assert hist[-1]["val_ppl"] < 1.5  # 规律完全可预测时，困惑度接近 1
    P2, hist2 = TT.train_lm(ids, 6, d_model=16, n_layers=1, n_heads=2, d_ff=32, steps=5, batch_size=8,
                            seq_len=12, lr=1e-2, warmup=5, seed=0)
    assert [h["loss"] for h in hist2] == [h["loss"] for h in hist[:5]]  # 同一 seed，结果相同


# ---------- Adam ----------
def test_adam_two_steps_by_hand():
    p = {"w": np.array([1.0])}
    opt = OP.Adam(lr=0.1)
    opt.step(p, {"w": np.array([0.5])})
    # 第 1 步：m = 0.05，v = 0.00025；m̂ = 0.5，v̂ = 0.25；更新 0.1·0.5/(0.5 + 1e-8)
    assert p["w"][0] == pytest.approx(1.0 - 0.1 * 0.5 / (0.5 + 1e-8), abs=1e-12)
    assert p["w"][0] == pytest.approx(0.9)
    w1 = float(p["w"][0])
    opt.step(p, {"w": np.array([0.1])})
    m = 0.9 * 0.05 + 0.1 * 0.1                 # 0.055
    v = 0.999 * 0.00025 + 0.001 * 0.01         # 0.00025975
    mhat, vhat = m / (1 - 0.9 ** 2), v / (1 - 0.999 ** 2)
    assert p["w"][0] == pytest.approx(w1 - 0.1 * mhat / (math.sqrt(vhat) + 1e-8), abs=1e-12)
    assert round(float(p["w"][0]), 4) == 0.8197


def test_adam_weight_decay_only_on_matrices_and_clipping():
    p = {"W": np.array([[1.0]]), "b": np.array([1.0])}
    OP.Adam(lr=0.1, weight_decay=0.1).step(p, {"W": np.array([[1.0]]), "b": np.array([1.0])})
    assert p["W"][0, 0] == pytest.approx(1 - 0.1 * 0.1 * 1 - 0.1) and p["b"][0] == pytest.approx(0.9)
    opt = OP.Adam(lr=0.1, clip=1.0)
    q = {"a": np.array([0.0, 0.0])}
    norm = opt.step(q, {"a": np.array([3.0, 4.0])})
    assert norm == 5.0 and np.allclose(opt.m["a"], 0.1 * np.array([0.6, 0.8]))  # 梯度先缩到范数 1


# ---------- 错误 ----------
@pytest.mark.parametrize("call, exc, match", [
    (lambda: TF.lm_forward(_lm()[0], np.zeros(7, int)), ValueError, "超过模型的 max_len=6"),
    (lambda: TF.lm_forward(_lm()[0], [0, 7]), ValueError, "0..6"),
    (lambda: TF.lm_forward(_lm()[0], [-1, 0]), ValueError, "0..6"),
    (lambda: TF.lm_forward(_lm()[0], [0.0, 1.0]), TypeError, "整数"),
    (lambda: TF.lm_forward(_lm()[0], np.zeros((0,), int)), ValueError, "不能为空"),
    (lambda: TF.lm_loss_and_grads(_lm()[0], [[0, 1]], [[1, 2, 3]]), ValueError, "形状"),
    (lambda: TF.lm_forward({"tok_emb": np.zeros((3, 4))}, [0]), TypeError, "config"),
    (lambda: TF.init_lm_params(10, 6, 1, 4, 8, 5, np.random.default_rng(0)), ValueError, "整除"),
    (lambda: TF.init_lm_params(10, 8, 1, 2, 8, 5, np.random.default_rng(0), positions="rope"), ValueError,
     "positions"),
    (lambda: TF.init_lm_params(10, 8, 1, 2, 8, 5, 0), TypeError, "Generator"),
    (lambda: TF.block_forward(np.ones((3, 6)), TF.init_block_params(6, 8, np.random.default_rng(0)), 4),
     ValueError, "整除"),
    (lambda: TF.block_forward(np.ones((3, 6)), {}, 2), ValueError, "缺少"),
    (lambda: TF.block_forward(np.ones((3, 5)), TF.init_block_params(6, 8, np.random.default_rng(0)), 2),
     ValueError, "形状"),
    (lambda: TF.block_forward(np.ones(6), TF.init_block_params(6, 8, np.random.default_rng(0)), 2), ValueError,
     "(T, d_model)"),
    (lambda: TT.generate_logits(_lm()[0], []), ValueError, "不能为空"),
    (lambda: TF.lm_next_logits(_lm()[0], [[1, 2]]), ValueError, "一维"),
    (lambda: TF.lm_token_nll(_lm()[0], [1, 2], [1, 2, 3]), ValueError, "形状必须相同"),
    (lambda: TF.lm_config({"config": {"vocab": 7}}), ValueError, r"params\['config'\] 缺少"),
    (lambda: TF.lm_param_shapes("vocab=7"), TypeError, "config 必须是"),
    (lambda: LY.check_activation("tanh"), ValueError, "activation 只能是"),
    (lambda: TT.lm_perplexity(_lm()[0], [3]), ValueError, "至少要有 2 个"),
    (lambda: TT.lm_perplexity(_lm()[0], [3, 4, 5], seq_len=7), ValueError, "max_len"),
    (lambda: TT.train_lm(np.arange(5), 5, seq_len=8, steps=1), ValueError, "太短"),
    (lambda: TT.train_lm(np.arange(50), 5, seq_len=8, steps=1), ValueError, "0..4"),
    (lambda: TT.train_lm(np.arange(50), 50, seq_len=8, max_len=4, steps=1), ValueError, "max_len"),
    (lambda: LY.layer_norm_forward([[1.0, 3.0]], [1.0, 1.0, 1.0], 0.0), ValueError, r"\(2,\)"),
    (lambda: LY.layer_norm_forward([[1.0, np.nan]], 1.0, 0.0), ValueError, "NaN"),
    (lambda: LY.layer_norm_forward([[1.0, 3.0]], 1.0, 0.0, eps=0), ValueError, "eps"),
    (lambda: LY.ffn_forward(np.ones((2, 4)), LY.init_ffn_params(4, 8, np.random.default_rng(0)), "tanh"),
     ValueError, "activation"),
    (lambda: LY.ffn_forward(np.ones((2, 3)), LY.init_ffn_params(4, 8, np.random.default_rng(0))), ValueError,
     "d_model=4"),
    (lambda: OP.Adam(lr=0.1, beta1=1.0), ValueError, "beta1"),
    (lambda: OP.Adam(lr=-1), ValueError, "lr"),
    (lambda: OP.Adam().step({"w": np.ones(2)}, {"w": np.ones(3)}), ValueError, "同形状"),
    (lambda: OP.Adam().step({"w": np.ones(2)}, {"w": np.array([np.inf, 1.0])}), ValueError, "NaN 或无穷大"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------- 保存、加载与随包的模型 ----------
def test_save_and_load_round_trip(tmp_path):
    P, _ = _lm(7)
    vocab = ["\n", "<UNK>", "好", "看", "电", "影", "书"]
    save_lm(tmp_path / "m.npz", P, vocab, {"note": "测试"}, dtype=np.float32)
    m = load_lm(tmp_path / "m.npz")
    assert isinstance(m, TinyTransformerLM) and m.vocab == vocab and m.meta == {"note": "测试"}
    assert m.params["config"] == P["config"]
    assert all(np.allclose(m.params[k], P[k]) for k in P if k != "config")
    assert m.encode("好电视") == [2, 4, 1] and m.decode([2, 3, 0]) == "好看\n"
    assert np.allclose(m.next_logits([2, 3]), TT.generate_logits(P, [2, 3]), atol=1e-5)
    save_lm(tmp_path / "h.npz", P, vocab)  # 默认 float16：文件更小，结果只差一点
    assert (tmp_path / "h.npz").stat().st_size < (tmp_path / "m.npz").stat().st_size
    with pytest.raises(ValueError, match="词表大小"):
        save_lm(tmp_path / "x.npz", P, vocab[:3])


def _script():
    spec = importlib.util.spec_from_file_location("train_tiny_transformer",
                                                  ROOT / "scripts" / "train_tiny_transformer.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_training_script_still_works(tmp_path):
    meta = _script().train(tmp_path / "t.npz", log=lambda *a: None, with_baselines=False, eval_at=(10,),
                           max_val=30, steps=20, d_model=16, n_layers=1, n_heads=2, d_ff=32, batch_size=4, seq_len=16)
    m = load_lm(tmp_path / "t.npz")
    assert m.params["config"]["d_model"] == 16 and len(m.vocab) == meta["data"]["vocab_size"]
    assert [row[0] for row in m.meta["val_curve"]] == [10, 20] and m.meta["steps_done"] == 20
    assert len(m.meta["samples"]) == 4 and math.isfinite(m.meta["val_ppl"])


def test_shipped_model_loads_and_beats_the_character_bigram():
    from nlpbook.charlm import CharNGramLM
    path = ROOT / "nlpbook" / "weights" / "tiny_transformer_reviews.npz"
    assert path.stat().st_size < 5e6
    m = load_pretrained()
    data = _script().load_data()
    assert m.vocab == data["vocab"] and len(m.vocab) == 3311
    assert sum(v.size for k, v in m.params.items() if k != "config") == 1_255_919  # 约 2.5 MB（float16）
    # 整个验证集的数字在 meta 里（训练脚本算的）；这里为了快，只重算前 200 条验证评论（约 3.8 万字）
    assert m.meta["val_ppl"] < m.meta["baselines_val_ppl"]["2-gram"]
    val = data["val"][:200]
    bigram = CharNGramLM(n=2, min_count=3).fit(data["train"]).perplexity(val)
    ppl = m.perplexity(val)
    assert ppl < bigram, (ppl, bigram)
    maps = m.attention_maps("这本书很好看")
    assert len(maps) == 2 and maps[0].shape == (4, 6, 6)


# ---------- 只算主体：body_forward / body_backward（第 15.6 节） ----------
@pytest.mark.parametrize("positions, tie", [("learned", False), ("sinusoidal", True)])
def test_body_forward_is_lm_hidden_and_backward_matches_finite_differences(positions, tie):
    P, rng = _lm(positions=positions, tie=tie)
    ids = np.array([[1, 2, 1, 1, 6], [0, 3, 3, 5, 1]])
    h, cache = TF.body_forward(P, ids)
    _, lm_cache = TF.lm_forward(P, ids)
    assert np.array_equal(h, lm_cache["hidden"]) and h.shape == (2, 5, 4)
    R = rng.normal(size=h.shape)                       # L = Σ R·h：∂L/∂h = R
    grads = TF.body_backward(R, cache)
    names = TF.body_param_names(P["config"])
    assert list(grads) == names and "W_out" not in grads and "b_out" not in grads
    assert_grads(grads, {k: P[k] for k in names}, lambda: float((TF.body_forward(P, ids)[0] * R).sum()))


def test_body_backward_agrees_with_lm_loss_and_grads():
    """语言模型的梯度 = 输出层给出的 ∂L/∂h 经 body_backward 传回（tie=False 时主体部分逐项相同）。"""
    P, _ = _lm()
    ids, tg = np.array([[1, 2, 1, 1, 6]]), np.array([[2, 1, 1, 6, 0]])
    _, g_lm = TF.lm_loss_and_grads(P, ids, tg)
    h, cache = TF.body_forward(P, ids)
    z = h[0] @ P["W_out"] + P["b_out"]
    p = np.exp(z - z.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    p[np.arange(5), tg[0]] -= 1
    g_body = TF.body_backward((p / 5 @ P["W_out"].T)[None], cache)
    for k, v in g_body.items():
        assert np.allclose(v, g_lm[k], atol=1e-12), k


def test_body_backward_errors():
    P, _ = _lm()
    _, cache = TF.body_forward(P, np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="形状"):
        TF.body_backward(np.zeros((3, 5)), cache)
    with pytest.raises(TypeError, match="body_forward"):
        TF.body_backward(np.zeros((3, 4)), {"x": 1})
