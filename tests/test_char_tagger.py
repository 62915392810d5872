"""char_tagger：特征键、两种损失的梯度对有限差分、补齐位置被忽略、小数据上能学会、确定性、报错信息。"""
import sys

import numpy as np
import pytest

from nlpbook import char_tagger as C
from nlpbook.tagging import allowed_transitions, tags_to_spans

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from _gradcheck import numgrad  # noqa: E402

# 一个很小的“语料”：人名、地名、机构名各有固定的上下文
TOY = [
    ("小王在北京工作", ["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "O"]),
    ("老李在上海工作", ["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "O"]),
    ("小王去北京大学", ["B-PER", "I-PER", "O", "B-ORG", "I-ORG", "I-ORG", "I-ORG"]),
    ("老李去上海大学", ["B-PER", "I-PER", "O", "B-ORG", "I-ORG", "I-ORG", "I-ORG"]),
    ("北京很大", ["B-LOC", "I-LOC", "O", "O"]),
    ("上海很大", ["B-LOC", "I-LOC", "O", "O"]),
]
SENTS = [s for s, _ in TOY]
TAGS = [t for _, t in TOY]


# ---------- 特征 ----------
def test_feature_keys_shape_and_boundaries():
    n = 10
    k = C.char_feature_keys(np.array([2, 3, 4]), n)
    assert k.shape == (3, len(C.TEMPLATES)) and k.dtype == np.int64
    # 模板 2 是当前字本身：键 = 2·n² + 字编号
    assert k[:, 2].tolist() == [2 * n * n + 2, 2 * n * n + 3, 2 * n * n + 4]
    # 模板 0 是左边第二个字：前两个位置看到边界符 0
    assert k[:, 0].tolist() == [0, 0, 2]
    # 模板 6 是“本字+右字”：最后一个位置的右字是边界符
    assert k[-1, 6] == 6 * n * n + 4 * n + 0
    # 不同模板的键落在不同的区间，不会撞在一起
    assert np.array_equal(k // (n * n), np.broadcast_to(np.arange(len(C.TEMPLATES)), k.shape))


def test_stacked_keys_equal_per_sentence_keys():
    index = {c: j + 2 for j, c in enumerate(sorted(set("".join(SENTS))))}
    stacked = C._stacked_keys(index, [list(s) for s in SENTS])
    single = np.concatenate([C.char_feature_keys(np.array([index[c] for c in s]), len(index) + 2) for s in SENTS])
    assert np.array_equal(stacked, single)


@pytest.mark.parametrize("ids, n, match", [
    (np.array([], dtype=int), 5, "不能为空"),
    (np.array([1.0, 2.0]), 5, "整数编号"),
    (np.array([1, 7]), 5, "0..4"),
    (np.array([1, 2]), 1, "n_chars"),
])
def test_feature_keys_errors(ids, n, match):
    with pytest.raises((TypeError, ValueError), match=match):
        C.char_feature_keys(ids, n)


# ---------- 梯度对有限差分 ----------
def _toy_batch(rng, K=5, F=12, B=3, T=6):
    params = {"W": rng.normal(size=(F + 1, K)), "b": rng.normal(size=K),
              "transitions": rng.normal(size=(K, K)), "start": rng.normal(size=K), "end": rng.normal(size=K)}
    params["W"][F] = 0.0                                   # 最后一行是“没见过的特征”，恒为 0
    rows = rng.integers(0, F + 1, size=(B, T, len(C.TEMPLATES)))
    tags = rng.integers(0, K, size=(B, T))
    lengths = np.array([T, 3, 1])
    return params, rows, tags, lengths


def _dense_w(grads, shape):
    g = np.zeros(shape)
    r, v = grads["W"]
    g[r] = v
    return g


@pytest.mark.parametrize("mode", ["independent", "crf"])
def test_gradients_match_finite_differences(mode):
    rng = np.random.default_rng(0)
    params, rows, tags, lengths = _toy_batch(rng)
    loss, grads = C.loss_and_grads(params, rows, tags, lengths, mode)
    assert np.isfinite(loss) and loss > 0
    names = ["W", "b"] + (["transitions", "start", "end"] if mode == "crf" else [])
    for name in names:
        def f(x, name=name):
            p = dict(params)
            p[name] = x
            return C.loss_and_grads(p, rows, tags, lengths, mode)[0]
        num = numgrad(f, params[name].copy())
        ana = _dense_w(grads, params["W"].shape) if name == "W" else grads[name]
        if name == "W":
            num[-1] = 0.0                                   # 最后一行不参与更新，解析梯度里也没有它
        np.testing.assert_allclose(ana, num, rtol=1e-5, atol=1e-7, err_msg=f"{mode}: {name}")
    if mode == "independent":
        assert set(grads) == {"W", "b"}


@pytest.mark.parametrize("mode", ["independent", "crf"])
def test_padding_positions_are_ignored(mode):
    rng = np.random.default_rng(1)
    params, rows, tags, lengths = _toy_batch(rng)
    loss, grads = C.loss_and_grads(params, rows, tags, lengths, mode)
    rows2, tags2 = rows.copy(), tags.copy()
    pad = np.arange(rows.shape[1])[None, :] >= lengths[:, None]
    rows2[pad] = 0
    tags2[pad] = 4
    loss2, grads2 = C.loss_and_grads(params, rows2, tags2, lengths, mode)
    assert loss == pytest.approx(loss2)
    np.testing.assert_allclose(_dense_w(grads, params["W"].shape), _dense_w(grads2, params["W"].shape))


def test_independent_loss_is_mean_cross_entropy():
    rng = np.random.default_rng(2)
    params, rows, tags, lengths = _toy_batch(rng)
    loss, _ = C.loss_and_grads(params, rows, tags, lengths, "independent")
    total = n = 0
    for bb in range(len(lengths)):
        for t in range(lengths[bb]):
            z = params["W"][rows[bb, t]].sum(axis=0) + params["b"]
            total += np.log(np.exp(z).sum()) - z[tags[bb, t]]
            n += 1
    assert loss == pytest.approx(total / n)


# ---------- 训练 ----------
@pytest.mark.parametrize("mode", ["independent", "crf"])
def test_training_fits_toy_data_and_is_deterministic(mode):
    m1 = C.train_char_tagger(SENTS, TAGS, mode=mode, epochs=30, lr=0.3, batch_size=2, seed=0)
    m2 = C.train_char_tagger(SENTS, TAGS, mode=mode, epochs=30, lr=0.3, batch_size=2, seed=0)
    assert m1.tag_names == ("O", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-PER", "I-PER")
    for k in m1.params:
        assert m1.params[k].dtype == np.float32
        assert np.array_equal(m1.params[k], m2.params[k])
    losses = [h["train_loss"] for h in m1.history]
    assert len(losses) == 30 and losses[-1] < losses[0] / 5
    assert m1.predict_many(SENTS, "viterbi") == TAGS
    assert np.all(m1.params["W"][-1] == 0)                  # “没见过的特征”那一行从不更新
    if mode == "independent":
        assert not np.any(m1.params["transitions"])
    else:
        assert np.any(m1.params["transitions"])


def test_viterbi_output_is_always_valid_iob2():
    m = C.train_char_tagger(SENTS, TAGS, mode="independent", epochs=2, lr=0.05, seed=0)
    for s in ["在北京", "大学", "王在上海大学工作", "很大很大", "没见过的字"]:
        tags_to_spans(m.predict(s, "viterbi"))              # strict=True：不合法会报错
        assert len(m.predict(s, "independent")) == len(s)


def test_viterbi_matches_brute_force_on_model_scores():
    import itertools
    m = C.train_char_tagger(SENTS, TAGS, mode="crf", epochs=3, lr=0.1, seed=0)
    s = "小王在北京"
    u = m.unary(s)
    tr = m.params["transitions"] + allowed_transitions(m.tag_names)
    st = m.params["start"].astype(float).copy()
    st[[j for j, t in enumerate(m.tag_names) if t.startswith("I-")]] = -np.inf
    best, best_score = None, -np.inf
    for p in itertools.product(range(len(m.tag_names)), repeat=len(s)):
        sc = st[p[0]] + u[np.arange(len(s)), p].sum() + tr[p[:-1], p[1:]].sum() + m.params["end"][p[-1]]
        if sc > best_score:
            best, best_score = p, sc
    assert m.predict(s, "viterbi") == [m.tag_names[j] for j in best]


def test_min_count_drops_rare_features():
    m1 = C.train_char_tagger(SENTS, TAGS, epochs=1)
    m2 = C.train_char_tagger(SENTS, TAGS, epochs=1, min_count=2)
    assert len(m2.keys) < len(m1.keys)
    assert m2.params["W"].shape == (len(m2.keys) + 1, 7)
    with pytest.raises(ValueError, match="min_count"):
        C.train_char_tagger(SENTS, TAGS, epochs=1, min_count=1000)


# ---------- 报错 ----------
@pytest.mark.parametrize("sents, tags, kw, exc, match", [
    (SENTS, TAGS[:-1], {}, ValueError, "句数相同"),
    (["小王"], [["B-PER"]], {}, ValueError, "一字一个标签"),
    ([""], [[]], {}, ValueError, "空句"),
    (["小王"], [["B-PER", "X"]], {}, ValueError, "不合法"),
    ("小王", [["B-PER", "I-PER"]], {}, TypeError, "字符串"),
    ([["小", 3]], [["O", "O"]], {}, TypeError, "str"),
    ([5], [["O"]], {}, TypeError, "列表"),
    (SENTS, TAGS, {"mode": "hmm"}, ValueError, "mode"),
    (SENTS, TAGS, {"epochs": 0}, ValueError, "epochs"),
    (SENTS, TAGS, {"lr": -1.0}, ValueError, "lr"),
    (SENTS, TAGS, {"batch_size": 1.5}, TypeError, "batch_size"),
])
def test_training_errors(sents, tags, kw, exc, match):
    with pytest.raises(exc, match=match):
        C.train_char_tagger(sents, tags, **kw)


def test_predict_and_loss_errors():
    m = C.train_char_tagger(SENTS, TAGS, epochs=1)
    with pytest.raises(ValueError, match="decoder"):
        m.predict("北京", decoder="beam")
    with pytest.raises(ValueError, match="空句子"):
        m.predict("")
    with pytest.raises(TypeError, match="str"):
        m.predict([1, 2])
    rng = np.random.default_rng(0)
    params, rows, tags, lengths = _toy_batch(rng)
    with pytest.raises(ValueError, match="mode"):
        C.loss_and_grads(params, rows, tags, lengths, "hmm")
    with pytest.raises(ValueError, match="rows"):
        C.loss_and_grads(params, rows[..., :3], tags, lengths, "crf")
    with pytest.raises(ValueError, match="lengths"):
        C.loss_and_grads(params, rows, tags, np.array([7, 1, 1]), "crf")


def test_on_epoch_sees_each_epoch_and_keeps_results():
    seen = []
    m = C.train_char_tagger(SENTS, TAGS, mode="crf", epochs=3, lr=0.3, seed=0,
                            on_epoch=lambda e, model: seen.append((e, model.history[-1]["train_loss"])))
    assert [e for e, _ in seen] == [1, 2, 3]
    assert [loss for _, loss in seen] == [h["train_loss"] for h in m.history]
    plain = C.train_char_tagger(SENTS, TAGS, mode="crf", epochs=3, lr=0.3, seed=0)
    assert np.array_equal(plain.params["W"], m.params["W"])                # 回调不改变训练结果
    with pytest.raises(TypeError, match="on_epoch"):
        C.train_char_tagger(SENTS, TAGS, on_epoch=3)
