"""rnn：第 8—9 章的手算数字、各单元与 BPTT 的有限差分梯度检验、掩码、双向拼接顺序、字符语言模型。"""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import char_rnn as CR
from nlpbook import optim as OP
from nlpbook import rnn as R
from nlpbook import rnn_classifier as RC

from _gradcheck import numgrad_inplace as numgrad
from _toy import check_classifier_gradients, check_last_step_grad_norm, check_padding_changes_nothing, toy_reviews


def logit(p):
    return math.log(p / (1 - p))


# ---------- 第 8 章 ----------
def test_toy_notebook_section_8_2():
    feat = {"猫": 1, "追": 0, "狗": 2}
    assert R.toy_record([feat[w] for w in "猫追狗"]) == [1, 0.5, 2.25]
    assert R.toy_record([feat[w] for w in "狗追猫"]) == [2, 1, 1.5]
    # 平均不记顺序：两句的平均相同，记事本的最终记录不同
    assert np.mean([1, 0, 2]) == np.mean([2, 0, 1])
    assert R.toy_record([1, 0, 2], decay=0.5, start=0.0)[-1] != R.toy_record([2, 0, 1])[-1]


def test_forgetting_section_8_5():
    assert round(R.decay_influence(0.5, 10), 6) == 0.000977
    assert round(R.decay_influence(0.5, 20), 9) == 0.000000954
    assert R.decay_influence(0.5, 0) == 1
    # 第一个词的特征经过后面 10 次更新，只剩 0.5**10 倍
    assert R.toy_record([1] + [0] * 10)[-1] == R.decay_influence(0.5, 10)


def test_rnn_cell_is_the_toy_plus_tanh_section_8_3():
    """标量矩阵 Wx=1、Wh=0.5、b=0：RNN 就是记事本再套一层 tanh；输入很小时 tanh ≈ 恒等，两者一致。"""
    p = {"Wx": [[1.0]], "Wh": [[0.5]], "b": [0.0]}
    hs = R.run_rnn([[1.0], [0.0], [2.0]], None, p)[:, 0]
    h1 = math.tanh(1)
    h2 = math.tanh(0.5 * h1)
    assert np.allclose(hs, [h1, h2, math.tanh(0.5 * h2 + 2)])
    small = R.run_rnn(np.array([[1.0], [0.0], [2.0]]) * 1e-4, None, p)[:, 0]
    assert np.allclose(small / 1e-4, [1, 0.5, 2.25], rtol=1e-6)
    assert R.rnn_cell([1.0], [0.0], [[1.0]], [[0.5]], [0.0]) == pytest.approx([h1])


def test_cell_shapes_vectors_and_batches():
    rng = np.random.default_rng(0)
    p = R.init_cell_params("rnn", 3, 4)
    assert R.rnn_cell(rng.normal(size=3), np.zeros(4), p["Wx"], p["Wh"], p["b"]).shape == (4,)
    assert R.rnn_cell(rng.normal(size=(5, 3)), np.zeros((5, 4)), p["Wx"], p["Wh"], p["b"]).shape == (5, 4)
    h, c, _ = R.lstm_cell(rng.normal(size=(5, 3)), np.zeros((5, 4)), np.zeros((5, 4)), R.init_cell_params("lstm", 3, 4))
    assert h.shape == c.shape == (5, 4)
    assert R.gru_cell(rng.normal(size=3), np.zeros(4), R.init_cell_params("gru", 3, 4)).shape == (4,)
    xs = rng.normal(size=(6, 2, 3))
    for cell in R.CELLS:
        p = R.init_cell_params(cell, 3, 4)
        assert R.run_rnn(xs, None, p, cell).shape == (6, 2, 4)
        assert R.run_rnn(xs[:, 0], None, p, cell).shape == (6, 4)
        assert np.allclose(R.run_rnn(xs[:, :1], None, p, cell)[:, 0], R.run_rnn(xs[:, 0], None, p, cell))
        assert R.bidirectional(xs, p, p, cell).shape == (6, 2, 8)
    p = R.init_cell_params("rnn", 3, 4)
    h = np.zeros((2, 4))
    for t, x in enumerate(xs):  # 每一步共享同一套参数
        h = R.rnn_cell(x, h, p["Wx"], p["Wh"], p["b"])
        assert np.allclose(h, R.run_rnn(xs, None, p)[t])


# ---------- 第 9 章 ----------
def test_lstm_one_cell_section_9_2():
    assert R.lstm_memory_update(0.8, f=0.9, i=0.2, g=0.5) == pytest.approx(0.82)
    assert round(0.8 * 0.9 + 0.5 * 0.2, 2) == 0.82
    assert round(R.lstm_output(0.82, 0.7), 3) == 0.473
    assert R.lstm_memory_update(0.8, f=1, i=0, g=0.5) == 0.8   # 小练习：遗忘门 1、输入门 0，原样保留
    assert R.lstm_memory_update(0.8, f=0, i=0, g=0.5) == 0.0   # 遗忘门 0：旧内容被清除
    assert R.lstm_output(0.8, 0.2) != R.lstm_output(0.8, 0.7)   # 记忆不变，输出仍可不同
    assert np.allclose(R.lstm_memory_update([1, 2], [0.5, 0.1], 0, 0), [0.5, 0.2])  # [1,2] ⊙ [0.5,0.1]


def test_lstm_cell_reproduces_the_one_cell_example_appendix_b():
    """W=0，只用偏置把门设成 f=0.9、i=0.2、g=0.5、o=0.7（顺序 f, i, g, o）。"""
    params = {"W": np.zeros((2, 4)), "b": np.array([logit(0.9), logit(0.2), math.atanh(0.5), logit(0.7)])}
    h, c, cache = R.lstm_cell([0.0], [0.0], [0.8], params)
    assert c == pytest.approx([0.82]) and round(float(h[0]), 3) == 0.473
    assert [round(float(cache[k][0, 0]), 6) for k in "figo"] == [0.9, 0.2, 0.5, 0.7]


def test_gru_follows_pytorch_convention():
    rng = np.random.default_rng(1)
    p = R.init_cell_params("gru", 3, 2, seed=3)
    x, h = rng.normal(size=3), rng.normal(size=2)
    sig = lambda a: 1 / (1 + np.exp(-a))
    gx, gh = x @ p["Wx"] + p["bx"], h @ p["Wh"] + p["bh"]
    r, z = sig(gx[:2] + gh[:2]), sig(gx[2:4] + gh[2:4])
    n = np.tanh(gx[4:] + r * gh[4:])
    assert np.allclose(R.gru_cell(x, h, p), (1 - z) * n + z * h)
    for bias, expected in ((50, h), (-50, n)):  # z ≈ 1：保留旧状态；z ≈ 0：换成候选 n
        bx = p["bx"].copy()
        bx[2:4] = bias
        assert np.allclose(R.gru_cell(x, h, dict(p, bx=bx)), expected)


def test_gru_step_is_the_core_of_gru_cell():
    """gru_step 只管隐藏状态那一半：先算好 gx = x @ Wx + bx，结果与 gru_cell 逐位相同（第 11 章的字符 GRU 就这样用）。"""
    rng = np.random.default_rng(4)
    p = R.init_cell_params("gru", 3, 4, seed=5)
    x, h, dh = rng.normal(size=(2, 3)), rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    out, cache = R.gru_cell(x, h, p, return_cache=True)
    h_new, core = R.gru_step(x @ p["Wx"] + p["bx"], h, p["Wh"], p["bh"])
    assert np.array_equal(h_new, out)
    dgx, dh_prev, dgh = R.gru_step_backward(dh, core, p["Wh"])
    dx, dh_prev_cell, grads = R.gru_cell_backward(dh, cache)
    assert np.array_equal(dh_prev, dh_prev_cell) and np.array_equal(dgx @ p["Wx"].T, dx)
    assert np.array_equal(h.T @ dgh, grads["Wh"]) and np.array_equal(dgh.sum(0), grads["bh"])


def test_adam_step_first_step_moves_each_weight_by_lr():
    P, state = {"w": np.array([1.0, -2.0]), "b": np.zeros(())}, {}
    OP.adam_step(P, {"w": np.array([0.5, -3.0]), "b": np.array(0.1)}, state, lr=0.1)
    # 第一步 m̂ = g、v̂ = g²：每个参数都朝梯度反方向走 ≈ lr，与梯度大小无关
    assert np.allclose(P["w"], [0.9, -1.9]) and np.isclose(P["b"], -0.1) and state["t"] == 1
    OP.adam_step(P, {"w": np.array([0.5, -3.0]), "b": np.array(0.1)}, state, lr=0.1)
    assert state["t"] == 2 and np.allclose(P["w"], [0.8, -1.8])


def _cell_loss_and_backward(cell, p, x, h, c, wh, wc):
    if cell == "rnn":
        out, cache = R.rnn_cell(x, h, p["Wx"], p["Wh"], p["b"], return_cache=True)
        return (out * wh).sum(), lambda: R.rnn_cell_backward(wh, cache)
    if cell == "gru":
        out, cache = R.gru_cell(x, h, p, return_cache=True)
        return (out * wh).sum(), lambda: R.gru_cell_backward(wh, cache)
    out, cn, cache = R.lstm_cell(x, h, c, p)
    return (out * wh).sum() + (cn * wc).sum(), lambda: R.lstm_cell_backward(wh, wc, cache)


@pytest.mark.parametrize("cell", R.CELLS)
def test_cell_gradients_match_finite_differences(cell):
    rng = np.random.default_rng(7)
    p = R.init_cell_params(cell, 3, 4, seed=2)
    p = {k: v * 3 for k, v in p.items()}  # 放大一些，门不全在 0.5 附近
    x, h, c = rng.normal(size=(2, 3)), rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    wh, wc = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    f = lambda: _cell_loss_and_backward(cell, p, x, h, c, wh, wc)[0]
    back = _cell_loss_and_backward(cell, p, x, h, c, wh, wc)[1]()
    grads = back[-1]
    assert set(grads) == set(p)
    for k in p:
        assert np.allclose(grads[k], numgrad(f, p[k]), atol=1e-6), k
    assert np.allclose(back[0], numgrad(f, x), atol=1e-6)
    assert np.allclose(back[1], numgrad(f, h), atol=1e-6)
    if cell == "lstm":
        assert np.allclose(back[2], numgrad(f, c), atol=1e-6)


def test_bidirectional_concatenates_forward_then_backward():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(5, 2, 3))
    pf, pb = R.init_cell_params("gru", 3, 4, seed=1), R.init_cell_params("gru", 3, 4, seed=2)
    out = R.bidirectional(xs, pf, pb, cell="gru")
    assert np.allclose(out[..., :4], R.run_rnn(xs, None, pf, "gru"))
    assert np.allclose(out[0, :, 4:], R.run_rnn(xs[::-1], None, pb, "gru")[-1])  # 位置 0 的反向：读完了整句
    assert np.allclose(out[-1, :, 4:], R.run_rnn(xs[-1:], None, pb, "gru")[0])   # 最后位置的反向：只读了一个词


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6))
def test_bidirectional_of_reversed_sentence_swaps_halves(seed, T):
    rng = np.random.default_rng(seed)
    xs = rng.normal(size=(T, 2, 3))
    pf, pb = R.init_cell_params("rnn", 3, 2, seed=seed), R.init_cell_params("rnn", 3, 2, seed=seed + 1)
    a = R.bidirectional(xs, pf, pb)
    b = R.bidirectional(xs[::-1], pb, pf)[::-1]
    assert np.allclose(a, np.concatenate([b[..., 2:], b[..., :2]], axis=-1))


# ---------- 第 8.4 节：分类器与 BPTT ----------
def test_pad_batch():
    ids, mask = RC.pad_batch([[5, 2], [7]])
    assert ids.tolist() == [[5, 2], [7, 0]] and mask.tolist() == [[True, True], [True, False]]
    assert RC.pad_batch([[1, 2, 3], [4]], max_len=2)[0].tolist() == [[1, 2], [4, 0]]


def test_classifier_gradients_match_finite_differences():
    P = RC.init_rnn_classifier(8, dim=3, hidden=4, seed=1, dtype=np.float64)
    P["b_out"] = np.array(0.3)
    check_classifier_gradients(P, RC.CLS_KEYS)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_padding_changes_nothing(seed, extra):
    """padding 位置填什么、补多少列，最终状态与损失都不变；也等于逐句不补齐单独计算。"""
    check_padding_changes_nothing(seed, extra)


def test_hidden_grad_norms_vanish_and_explode():
    P = RC.init_rnn_classifier(5, dim=2, hidden=3, seed=0, dtype=np.float64)
    ids, mask, y, _ = check_last_step_grad_norm(P, 12)  # 最后一步：∂L/∂h_T
    P["Wh"] = 0.1 * np.eye(3)  # 小的 Wh：越往前越小（消失）
    n = RC.hidden_grad_norms(P, ids, mask, y)
    assert np.all(np.diff(n) > 0) and n[0] < 1e-9 * n[-1]
    P["E"][:], P["b"][:] = 0, 0  # 状态一直是 0，tanh' = 1；Wh = 3×正交矩阵：每往前一步乘 3（爆炸）
    P["Wh"] = 3 * np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))[0]
    n = RC.hidden_grad_norms(P, ids, mask, y)
    assert np.allclose(n, n[-1] * 3.0 ** np.arange(11, -1, -1))


def test_clip_by_global_norm():
    g, norm = OP.clip_by_global_norm({"a": np.array([3.0, 4.0])}, 1.0)
    assert norm == 5 and np.allclose(g["a"], [0.6, 0.8])
    g, norm = OP.clip_by_global_norm({"a": np.array([3.0]), "b": np.array([[4.0]])}, 10)
    assert norm == 5 and g["a"].tolist() == [3.0]


def test_rnn_separates_the_six_toy_reviews():
    """第 4 章的词袋最多分对 5 条（E/F 矛盾）；RNN 读顺序，“不 好看”和“不 难看”可以分开。"""
    v, seqs, y = toy_reviews()
    m1 = RC.train_rnn_classifier(seqs, y, len(v), dim=8, hidden=8, epochs=150, lr=0.02, batch_size=6, seed=0)
    m2 = RC.train_rnn_classifier(seqs, y, len(v), dim=8, hidden=8, epochs=150, lr=0.02, batch_size=6, seed=0)
    assert all(np.array_equal(m1.params[k], m2.params[k]) for k in m1.params)
    assert all(a.dtype == np.float32 for a in m1.params.values())
    ids, mask = RC.pad_batch(seqs)
    assert m1.predict(ids, mask).tolist() == y
    h = m1.history
    assert h[-1]["train_loss"] < 0.1 < h[0]["train_loss"] and len(h) == 150
    m3 = RC.train_rnn_classifier(seqs, y, len(v), epochs=2, seed=1, val_ids=seqs, val_y=y)
    assert {"val_loss", "val_acc", "grad_norm"} <= set(m3.history[0])


# ---------- 第 11 章：字符语言模型 ----------
def test_char_lm_gradients_match_finite_differences():
    P = CR.init_char_rnn(5, hidden=3, dim=2, seed=4, dtype=np.float64)
    P["Wh"] *= 3
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 5, size=(2, 4)), rng.integers(0, 5, size=(2, 4))
    h0 = rng.normal(size=(2, 3)) * 0.5
    loss, g, h_last = CR.char_lm_loss_and_grads(P, x, y, h0)
    assert h_last.shape == (2, 3) and set(g) == set(CR.LM_KEYS)
    f = lambda: CR.char_lm_loss_and_grads(P, x, y, h0)[0]
    for k in CR.LM_KEYS:
        assert np.allclose(g[k], numgrad(f, P[k]), atol=1e-7), k
    # 截断 BPTT：两段接着算，第二段从第一段的 h_last 出发，损失等于整段一起算
    la, _, ha = CR.char_lm_loss_and_grads(P, x[:, :2], y[:, :2], h0)
    lb, _, hb = CR.char_lm_loss_and_grads(P, x[:, 2:], y[:, 2:], ha)
    assert np.isclose((la + lb) / 2, loss) and np.allclose(hb, h_last)


def test_perplexity_next_logits_and_uniform_model():
    P = CR.init_char_rnn(6, hidden=4, dim=3, seed=0, dtype=np.float64)
    ids = np.array([0, 3, 1, 5, 5, 2, 4])
    logits = [CR.next_logits(P, ids[:t]) for t in range(1, len(ids))]
    nll = [-(z[t] - np.log(np.exp(z).sum())) for z, t in zip(logits, ids[1:])]
    assert CR.perplexity(P, ids) == pytest.approx(math.exp(np.mean(nll)))
    assert CR.next_logits(P, []).shape == (6,)
    P["W_out"][:] = 0  # 不看前文、各字符分数相同：PPL 等于候选数（第 11.5 节的直觉）
    assert CR.perplexity(P, ids) == pytest.approx(6)
    assert CR.perplexity(P, ids, n_tracks=3) == pytest.approx(6)


def test_train_char_rnn_learns_a_repeating_text():
    ids = np.array([0, 1, 2, 3, 2, 1] * 120)
    m = CR.train_char_rnn(ids, 4, hidden=16, dim=4, seq_len=12, batch_size=4, steps=300, lr=0.02, seed=0)
    assert all(a.dtype == np.float32 for a in m.params.values())
    assert m.history[-1]["loss"] < 0.2 < math.log(4) * 0.9 < m.history[0]["loss"]
    assert CR.perplexity(m.params, ids[:60]) < 1.3
    assert int(np.argmax(m.next_logits([0, 1, 2, 3, 2]))) == 1  # 周期里 3 2 之后是 1
    quick = CR.train_char_rnn(ids, 4, hidden=8, seq_len=8, batch_size=2, steps=10_000, max_seconds=0.2)
    assert len(quick.history) < 10_000


# ---------- 错误输入 ----------
P_RNN = R.init_cell_params("rnn", 3, 4)
P_CLS = RC.init_rnn_classifier(8, dim=3, hidden=4)
P_LM = CR.init_char_rnn(5, hidden=3, dim=2)
IDS, MASK = RC.pad_batch([[1, 2], [3]])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: R.run_rnn(np.zeros((2, 1, 3)), None, P_RNN, cell="transformer"), ValueError, "'rnn'、'lstm' 或 'gru'"),
    (lambda: R.init_cell_params("cnn", 3, 4), ValueError, "cell 只能是"),
    (lambda: R.run_rnn(np.zeros((2, 1, 5)), None, P_RNN), ValueError, r"x 应为 \(batch, 3\)"),
    (lambda: R.run_rnn(np.zeros((2, 1, 3)), np.zeros((1, 5)), P_RNN), ValueError, "h0|h_prev"),
    (lambda: R.run_rnn(np.zeros((2, 1, 3)), None, {"Wx": P_RNN["Wx"]}, cell="rnn"), ValueError, "缺少"),
    (lambda: R.rnn_cell(np.zeros(3), np.zeros(4), P_RNN["Wx"], np.zeros((4, 3)), P_RNN["b"]), ValueError, "Wh"),
    (lambda: R.lstm_cell(np.zeros(3), np.zeros(4), np.zeros(3), R.init_cell_params("lstm", 3, 4)), ValueError,
     "c_prev"),
    (lambda: R.gru_cell(np.zeros(3), np.zeros(4), {"Wx": np.zeros((3, 5))}), ValueError, "缺少"),
    (lambda: R.lstm_memory_update(0.8, 1.5, 0.2, 0.5), ValueError, "f（遗忘门）"),
    (lambda: R.lstm_memory_update([0.8, 1], [0.9, 1, 1], 0.2, 0.5), ValueError, "形状不一致"),
    (lambda: R.lstm_output(0.8, -0.1), ValueError, "o（输出门）"),
    (lambda: R.toy_record([[1, 2]]), ValueError, "一维"),
    (lambda: R.toy_record([1, float("nan")]), ValueError, "NaN"),
    (lambda: R.decay_influence(0.5, -1), ValueError, "steps"),
    (lambda: RC.loss_and_grads(P_CLS, IDS, MASK, [1, 2]), ValueError, "0（差评）或 1"),
    (lambda: RC.loss_and_grads(P_CLS, IDS, MASK.astype(int), [1, 0]), ValueError, "布尔"),
    (lambda: RC.loss_and_grads(P_CLS, IDS + 10, MASK, [1, 0]), ValueError, "0..7"),
    (lambda: RC.loss_and_grads(P_CLS, IDS.astype(float), MASK, [1, 0]), TypeError, "整数"),
    (lambda: RC.loss_and_grads(P_CLS, IDS, np.zeros_like(MASK), [1, 0]), ValueError, "全为 False"),
    (lambda: RC.loss_and_grads({"E": 1}, IDS, MASK, [1, 0]), ValueError, "init_rnn_classifier"),
    (lambda: RC.pad_batch([[1], []]), ValueError, "至少要有一个 token"),
    (lambda: OP.clip_by_global_norm({"a": np.ones(2)}, 0), ValueError, "max_norm"),
    (lambda: OP.adam_step({"a": np.ones(2)}, {"a": np.ones(3)}, {}, 0.1), ValueError, "同形状"),
    (lambda: OP.adam_step({"a": np.ones(2)}, {"b": np.ones(2)}, {}, 0.1), ValueError, "同形状"),
    (lambda: OP.adam_step({"a": np.ones(2)}, {"a": np.ones(2)}, {}, 0), ValueError, "lr"),
    (lambda: OP.adam_step({"a": np.ones(2)}, {"a": np.ones(2)}, {}, 0.1, b2=1.0), ValueError, r"b2 必须在 \[0, 1\)"),
    (lambda: OP.adam_step({"a": np.ones(2)}, {}, {}, 0.1), TypeError, "非空"),
    (lambda: R.gru_step([[0.0] * 6], np.zeros((1, 2)), np.zeros((2, 6)), np.zeros(6)), TypeError, "numpy 数组"),
    (lambda: R.gru_step(np.zeros((1, 6)), np.zeros((1, 2)), np.zeros((6, 2)), np.zeros(6)), ValueError,
     r"Wh 的形状应为 \(2, 6\)"),
    (lambda: R.gru_step(np.zeros((3, 6)), np.zeros((1, 2)), np.zeros((2, 6)), np.zeros(6)), ValueError, "gx 的形状"),
    (lambda: R.gru_step_backward(np.zeros((1, 2)), (1, 2), np.zeros((2, 6))), TypeError, "gru_step 返回的中间量"),
    (lambda: R.gru_step_backward(np.zeros((1, 3)), R.gru_step(np.zeros((1, 6)), np.zeros((1, 2)), np.zeros((2, 6)),
                                                             np.zeros(6))[1], np.zeros((2, 6))), ValueError, "dh 的形状"),
    (lambda: RC.train_rnn_classifier([[1]], [1, 0], 5), ValueError, "2 个标签"),
    (lambda: CR.char_lm_loss_and_grads(P_LM, np.zeros((2, 3), int), np.zeros((2, 4), int)), ValueError, "同形状"),
    (lambda: CR.next_logits(P_LM, [9]), ValueError, "0..4"),
    (lambda: CR.perplexity(P_LM, [1]), ValueError, "至少要有 2 个"),
    (lambda: CR.train_char_rnn(np.arange(5) % 5, 5, seq_len=8), ValueError, "文本太短"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_classifier_predicts_large_batches_in_chunks_with_the_same_result():
    P = RC.init_rnn_classifier(50, dim=8, hidden=8, seed=0)
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 50, size=(2500, 7))
    mask = np.ones(ids.shape, dtype=bool)
    mask[::3, 5:] = False
    ids[~mask] = 0
    whole = RC.predict_proba(P, ids, mask)
    one_by_one = np.concatenate([RC.predict_proba(P, ids[i:i + 1], mask[i:i + 1]) for i in range(0, 2500, 97)])
    assert whole.shape == (2500,)
    np.testing.assert_allclose(whole[::97], one_by_one, rtol=1e-5)
