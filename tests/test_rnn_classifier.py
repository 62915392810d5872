"""rnn_classifier 的第 9 章扩展：LSTM、GRU 分类器的有限差分梯度、掩码、训练，以及 cell="rnn" 的默认行为不变。"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import rnn_classifier as RC

from _toy import check_classifier_gradients, check_last_step_grad_norm, check_padding_changes_nothing, toy_reviews

GATED = ("lstm", "gru")


@pytest.mark.parametrize("cell", GATED)
def test_gated_classifier_gradients_match_finite_differences(cell):
    P = RC.init_rnn_classifier(8, dim=3, hidden=4, seed=1, dtype=np.float64, cell=cell)
    for k in P:
        if k != "E":
            P[k] = P[k] * 3  # 放大一些，门不全在 0.5 附近
    P["b_out"] = np.array(0.3)
    check_classifier_gradients(P, RC.CLS_KEYS_BY_CELL[cell])


@pytest.mark.parametrize("cell", GATED)
def test_gated_hidden_grad_norms_last_step(cell):
    check_last_step_grad_norm(RC.init_rnn_classifier(5, dim=2, hidden=3, seed=0, dtype=np.float64, cell=cell), 6)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.sampled_from(GATED))
def test_gated_padding_changes_nothing(seed, extra, cell):
    """padding 位置填什么、补多少列，损失与梯度都不变；整批预测等于逐句不补齐单独预测。"""
    check_padding_changes_nothing(seed, extra, cell)


@pytest.mark.parametrize("cell", GATED)
def test_gated_classifier_separates_the_six_toy_reviews(cell):
    """第 8.4 节的六条评论（“不 好看”与“不 难看”）：LSTM、GRU 与 RNN 一样能全部分对，训练可复现、可接着训练。"""
    v, seqs, y = toy_reviews()
    kw = dict(dim=4, hidden=4, lr=0.05, batch_size=6, max_len=None, seed=0, cell=cell)
    m = RC.train_rnn_classifier(seqs, y, len(v), epochs=200, **kw)
    assert m.cell == cell and all(a.dtype == np.float32 for a in m.params.values())
    ids, mask = RC.pad_batch(seqs)
    assert m.predict(ids, mask).tolist() == y
    two = RC.train_rnn_classifier(seqs, y, len(v), epochs=2, **kw)
    three = RC.train_rnn_classifier(seqs, y, len(v), epochs=3, **kw)
    resumed = RC.train_rnn_classifier(seqs, y, len(v), epochs=1, resume=two, **kw)
    assert all(np.array_equal(three.params[k], resumed.params[k]) for k in three.params)


# cell="rnn"（默认）在加入 LSTM/GRU 之前记下的结果：第 8、18 章依赖它，必须一位不差。
_REF_DEFAULT = {"history": [(0.6953582884241981, 0.1382550072119486), (0.679876072165103, 0.12057461168346578),
                            (0.6588323757894999, 0.1690792052536227)],
                "p_first": [0.45376586974182254, 0.5251595439998602, 0.4862335090083999]}


def test_default_rnn_behaviour_is_unchanged():
    rng = np.random.default_rng(123)
    seqs = [list(rng.integers(1, 40, size=n)) for n in rng.integers(1, 30, size=150)]
    y = rng.integers(0, 2, size=150)
    m = RC.train_rnn_classifier(seqs[:120], y[:120], 40)
    assert m.cell == "rnn" and set(m.params) == set(RC.CLS_KEYS)
    got = [(r["train_loss"], r["grad_norm"]) for r in m.history]
    np.testing.assert_allclose(got, _REF_DEFAULT["history"], rtol=1e-6)
    ids, mask = RC.pad_batch(seqs[120:])
    np.testing.assert_allclose(m.predict_proba(ids, mask)[:3], _REF_DEFAULT["p_first"], rtol=1e-5)
    explicit = RC.train_rnn_classifier(seqs[:120], y[:120], 40, cell="rnn")
    assert all(np.array_equal(m.params[k], explicit.params[k]) for k in m.params)


def test_accuracy_by_length():
    out = RC.accuracy_by_length([1, 0, 1, 1], [1, 1, 1, 0], [5, 30, 80, 20])
    assert out == [{"bucket": "≤20", "n": 2, "acc": 0.5}, {"bucket": "21—50", "n": 1, "acc": 0.0},
                   {"bucket": ">50", "n": 1, "acc": 1.0}]
    assert RC.accuracy_by_length([1], [1], [3], edges=(10,))[1] == {"bucket": ">10", "n": 0, "acc": None}


P_LSTM = RC.init_rnn_classifier(8, dim=3, hidden=4, cell="lstm")
IDS, MASK = RC.pad_batch([[1, 2], [3]])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: RC.init_rnn_classifier(8, cell="transformer"), ValueError, "'rnn'、'lstm' 或 'gru'"),
    (lambda: RC.train_rnn_classifier([[1]], [1], 5, cell="cnn"), ValueError, "cell 只能是"),
    (lambda: RC.loss_and_grads(dict(P_LSTM, b=np.zeros(15, np.float32)), IDS, MASK, [1, 0]), ValueError,
     r"W 的形状应为"),
    (lambda: RC.loss_and_grads({k: v for k, v in P_LSTM.items() if k != "W"}, IDS, MASK, [1, 0]), ValueError,
     "init_rnn_classifier"),
    (lambda: RC.loss_and_grads(P_LSTM, IDS, np.zeros_like(MASK), [1, 0]), ValueError, "全为 False"),
    (lambda: RC.accuracy_by_length([1, 0], [1], [3, 4]), ValueError, "等长"),
    (lambda: RC.accuracy_by_length([1], [1], [3], edges=(50, 20)), ValueError, "严格递增"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
