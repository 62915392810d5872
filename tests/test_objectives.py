"""objectives：BERT 的 80/10/10、第 11.2 节的错位样本、T5 片段破坏可还原、三种遮罩、SFT 遮罩与 DPO 损失。"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import objectives as O
from nlpbook.attention import scaled_dot_product_attention
from nlpbook.text import BOS, EOS, Vocab

SPECIAL = (0, 1, 2, 3)   # 例如 PAD、UNK、CLS、SEP
MASK = 4
V = 1000


# ---------- 第 15.2 节：MLM ----------
def test_masked_lm_basic_properties():
    rng = np.random.default_rng(0)
    ids = np.array([2] + list(range(10, 30)) + [3])   # [CLS] 20 个词 [SEP]
    inputs, labels = O.masked_lm_examples(ids, V, MASK, rng, special_ids=SPECIAL)
    sel = labels != O.IGNORE_INDEX
    assert O.IGNORE_INDEX == -100 and sel.sum() == 3      # round(0.15 × 20) = 3
    assert np.array_equal(labels[sel], ids[sel])
    assert np.array_equal(inputs[~sel], ids[~sel])        # 没选中的位置原样保留
    assert not sel[0] and not sel[-1]                      # 特殊 token 不会被选
    assert inputs.dtype == labels.dtype == np.int64


def test_at_least_one_position_and_rate_zero():
    rng = np.random.default_rng(1)
    _, labels = O.masked_lm_examples([2, 50, 3], V, MASK, rng, special_ids=SPECIAL)
    assert (labels != -100).tolist() == [False, True, False]   # 0.15 × 1 取整为 0，但至少选 1 个
    inputs, labels = O.masked_lm_examples([2, 50, 3], V, MASK, rng, rate=0.0, special_ids=SPECIAL)
    assert inputs.tolist() == [2, 50, 3] and np.all(labels == -100)
    inputs, labels = O.masked_lm_examples([2, 3], V, MASK, rng, special_ids=SPECIAL)  # 只有特殊 token
    assert np.all(labels == -100)
    _, labels = O.masked_lm_examples([5, 6, 7], V, MASK, rng, rate=1.0, ignore_index=-1)
    assert labels.tolist() == [5, 6, 7]


def test_bert_80_10_10_proportions():
    """统计检验：选中的位置里约 80% 变 [MASK]、10% 变随机词、10% 不变；每个位置被选中的机会相同。"""
    rng = np.random.default_rng(2024)
    ids = rng.integers(5, V, size=(3000, 40))
    inputs, labels = O.masked_lm_examples(ids, V, MASK, rng, special_ids=SPECIAL)
    sel = labels != -100
    assert np.all(sel.sum(axis=1) == 6)                   # round(0.15 × 40) = 6
    n = sel.sum()
    masked = (inputs[sel] == MASK).mean()
    unchanged = (inputs[sel] == ids[sel]).mean()
    random_tok = 1 - masked - unchanged
    # 随机词有 1/995 的机会恰好抽回原词，计入“不变”
    assert abs(masked - 0.8) < 4 * np.sqrt(0.16 / n)
    assert abs(random_tok - 0.1 * (1 - 1 / 995)) < 4 * np.sqrt(0.09 / n)
    assert abs(unchanged - (0.1 + 0.1 / 995)) < 4 * np.sqrt(0.09 / n)
    replaced = inputs[sel & (inputs != MASK) & (inputs != ids)]
    assert not np.isin(replaced, SPECIAL + (MASK,)).any()  # 随机词不会是特殊 token
    per_pos = sel.mean(axis=0)
    assert np.all(np.abs(per_pos - 0.15) < 4 * np.sqrt(0.15 * 0.85 / 3000))


def test_masked_lm_is_reproducible():
    ids = np.arange(10, 60)
    a = O.masked_lm_examples(ids, V, MASK, np.random.default_rng(7))
    b = O.masked_lm_examples(ids, V, MASK, np.random.default_rng(7))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


# ---------- 第 11.2 节：因果语言模型 ----------
def test_causal_pair_of_11_2():
    inputs, targets = O.causal_lm_pair(["我", "喜欢", "电影"], BOS, EOS)
    assert inputs == ["<BOS>", "我", "喜欢", "电影"]
    assert targets == ["我", "喜欢", "电影", "<EOS>"]
    vocab = Vocab(["我", "喜欢", "电影"], specials=(BOS, EOS))
    x, y = O.causal_lm_pair(vocab.encode(["我", "喜欢", "电影"]), vocab.id(BOS), vocab.id(EOS))
    assert vocab.decode(x.tolist()) == inputs and vocab.decode(y.tolist()) == targets
    assert np.array_equal(x[1:], y[:-1])                   # 错开一位
    assert [a.tolist() for a in O.causal_lm_pair([], 0, 1)] == [[0], [1]]


# ---------- 第 15.4 节：T5 片段破坏 ----------
SENT = list(range(900, 950))


def test_span_corruption_example_structure():
    ids = np.arange(10, 30)                                # 20 个 token：破坏 3 个，1 段
    x, y = O.span_corruption(ids, np.random.default_rng(0), sentinel_ids=SENT)
    assert (x == 900).sum() == 1 and y[0] == 900 and y[-1] == 901
    assert len(y) == 3 + 2 and len(x) == 20 - 3 + 1
    assert x[0] == 10                                      # 与 T5 相同：从不破坏的片段开始
    assert np.array_equal(O.undo_span_corruption(x, y, SENT), ids)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 60), st.floats(0.05, 0.9), st.floats(1.0, 6.0), st.integers(0, 10_000))
def test_span_corruption_round_trip(n, density, mean_len, seed):
    ids = np.random.default_rng(seed).integers(0, 500, size=n)
    x, y = O.span_corruption(ids, np.random.default_rng(seed), density, mean_len, sentinel_ids=SENT)
    n_noise = min(max(int(n * density + 0.5), 1), n - 1)
    spans = int(np.isin(x, SENT).sum())
    assert len(y) == n_noise + spans + 1 and len(x) == n - n_noise + spans
    assert np.array_equal(y[np.isin(y, SENT)], SENT[:spans + 1])   # 哨兵按顺序使用
    assert np.array_equal(O.undo_span_corruption(x, y, SENT), ids)


def test_span_lengths_follow_mean():
    rng = np.random.default_rng(0)
    ids = np.arange(200)
    x, y = O.span_corruption(ids, rng, noise_density=0.15, mean_span_length=3, sentinel_ids=SENT)
    assert np.isin(x, SENT).sum() == 10                    # 30 个破坏 token / 平均长度 3


# ---------- 第 15.2—15.4 节：注意力遮罩 ----------
def test_masks():
    assert O.attention_mask_for("encoder", 3).all()
    dec = O.attention_mask_for("decoder", 4)
    assert dec.dtype == bool and dec.shape == (4, 4)
    assert np.array_equal(dec, O.attention_mask_for("causal", 4))
    assert all(dec[i, j] == (j <= i) for i in range(4) for j in range(4))
    pre = O.attention_mask_for("prefix", 3, prefix_len=2)
    assert pre.astype(int).tolist() == [[1, 1, 0], [1, 1, 0], [1, 1, 1]]
    assert np.array_equal(O.attention_mask_for("prefix", 5, prefix_len=0), O.attention_mask_for("causal", 5))
    assert O.attention_mask_for("prefix", 5, prefix_len=5).all()
    cross = O.cross_attention_mask(2, 5)
    assert cross.shape == (2, 5) and cross.all()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 7), st.data())
def test_causal_and_prefix_masks_block_the_future(seed, n, data):
    """改动位置 j 之后的输入，不会改变因果遮罩下位置 ≤ j 的输出；前缀内部则可以互相看见。"""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    j = data.draw(st.integers(0, n - 2))
    x2 = x.copy()
    x2[j + 1:] += rng.normal(size=(n - j - 1, 4))
    m = O.attention_mask_for("causal", n)
    a, b = scaled_dot_product_attention(x, x, x, mask=m)[0], scaled_dot_product_attention(x2, x2, x2, mask=m)[0]
    assert np.allclose(a[:j + 1], b[:j + 1])
    p = data.draw(st.integers(1, n))
    pm = O.attention_mask_for("prefix", n, prefix_len=p)
    assert pm[:p, :p].all() and not pm[p:, p:][np.triu_indices(n - p, 1)].any()


# ---------- 第 17.1 节：SFT ----------
def test_sft_loss_mask_and_masked_loss():
    assert O.sft_loss_mask(3, 2).tolist() == [False, False, False, True, True]
    prompt = ["请", "判断", "情感", "：", "电影", "很", "好看", "。"]
    answer = ["好评", "。"]
    x, y = O.causal_lm_pair(prompt + answer, BOS, EOS)
    mask = O.sft_loss_mask(len(prompt), len(answer) + 1)   # 目标末尾的 <EOS> 也属于回答
    assert len(mask) == len(y) and [t for t, m in zip(y, mask) if m] == ["好评", "。", EOS]
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(len(y), 6))
    targets = rng.integers(0, 6, size=len(y))
    loss = O.masked_cross_entropy(logits, targets, mask)
    logits2 = logits.copy()
    logits2[~mask] = rng.normal(size=((~mask).sum(), 6)) * 10   # 改提示部分的输出：损失不变
    assert loss == O.masked_cross_entropy(logits2, targets, mask)
    assert np.isclose(O.masked_cross_entropy(np.zeros((4, 5)), np.array([0, 1, 2, 3]), np.ones(4, bool)), np.log(5))
    labels = np.array([-100, 3, -100])                          # MLM 的标签也能直接用
    assert np.isclose(O.masked_cross_entropy(np.zeros((3, 5)), labels, labels != -100), np.log(5))


# ---------- 第 17.2 节：DPO ----------
def test_dpo_loss():
    # 策略与参考相同：括号为 0，损失 ln 2
    assert round(O.dpo_loss(-12.0, -15.0, -12.0, -15.0, beta=0.1), 3) == 0.693
    # 好回答相对参考 +2，差回答 −2：−ln σ(0.1 × 4) ≈ 0.513
    assert round(O.dpo_loss(-8.0, -12.0, -10.0, -10.0, beta=0.1), 3) == 0.513
    assert np.isclose(O.dpo_loss(-8.0, -12.0, -10.0, -10.0, beta=0.1), -np.log(1 / (1 + np.exp(-0.4))))
    # 偏向差回答时损失变大；数组输入逐对计算
    out = O.dpo_loss([-8.0, -12.0], [-12.0, -8.0], [-10.0, -10.0], [-10.0, -10.0], beta=0.1)
    assert out.shape == (2,) and out[0] < np.log(2) < out[1]
    assert np.isclose(out[1] - out[0], 0.4)                     # softplus(z) − softplus(−z) = z
    # 差距极大也不溢出
    assert O.dpo_loss(-1.0, -5000.0, -1.0, -1.0, beta=1.0) == pytest.approx(0.0, abs=1e-300)
    assert O.dpo_loss(-5000.0, -1.0, -1.0, -1.0, beta=1.0) == pytest.approx(4999.0)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: O.masked_lm_examples([5, 6], V, MASK, 0), TypeError, "np.random.Generator"),
    (lambda: O.masked_lm_examples([5.0, 6.0], V, MASK, np.random.default_rng()), TypeError, "整数编号"),
    (lambda: O.masked_lm_examples([5, 1000], V, MASK, np.random.default_rng()), ValueError, "0..999"),
    (lambda: O.masked_lm_examples([5, 6], V, MASK, np.random.default_rng(), rate=1.5), ValueError, r"\[0, 1\]"),
    (lambda: O.masked_lm_examples([5, 6], V, 1000, np.random.default_rng()), ValueError, "mask_id"),
    (lambda: O.masked_lm_examples([5, 6], 2, 1, np.random.default_rng(), special_ids=(0,)), ValueError,
     "ids 必须在 0..1"),
    (lambda: O.causal_lm_pair("我喜欢电影", BOS, EOS), TypeError, "一个字符串"),
    (lambda: O.causal_lm_pair([1, 2], -1, 3), ValueError, "bos_id"),
    (lambda: O.span_corruption([5], np.random.default_rng(), sentinel_ids=SENT), ValueError, "至少要有 2 个"),
    (lambda: O.span_corruption([5, 6], np.random.default_rng()), TypeError, "sentinel_ids"),
    (lambda: O.span_corruption([5, 900], np.random.default_rng(), sentinel_ids=SENT), ValueError, "出现在了 ids"),
    (lambda: O.span_corruption(range(100), np.random.default_rng(), sentinel_ids=[900, 901]), ValueError,
     "至少 6 个哨兵"),
    (lambda: O.span_corruption([5, 6], np.random.default_rng(), noise_density=1.0, sentinel_ids=SENT), ValueError,
     r"\(0, 1\)"),
    (lambda: O.span_corruption([5, 6], np.random.default_rng(), sentinel_ids=[900, 900]), ValueError, "重复"),
    (lambda: O.undo_span_corruption([5, 900], [5, 6], SENT), ValueError, "以哨兵开头"),
    (lambda: O.undo_span_corruption([5, 901], [900, 6], SENT), ValueError, "没有对应片段"),
    (lambda: O.attention_mask_for("bidirectional", 3), ValueError, "'encoder'、'decoder'"),
    (lambda: O.attention_mask_for("prefix", 3), ValueError, "prefix_len"),
    (lambda: O.attention_mask_for("prefix", 3, prefix_len=4), ValueError, "0..3"),
    (lambda: O.attention_mask_for("encoder", 0), ValueError, "n 必须 > 0"),
    (lambda: O.cross_attention_mask(2, 0), ValueError, "n_enc"),
    (lambda: O.sft_loss_mask(3, 0), ValueError, "answer_len 必须 > 0"),
    (lambda: O.sft_loss_mask(-1, 2), ValueError, "prompt_len"),
    (lambda: O.masked_cross_entropy(np.zeros((3, 4)), [0, 1, 2], [1, 1, 0]), TypeError, "布尔"),
    (lambda: O.masked_cross_entropy(np.zeros((3, 4)), [0, 1], np.ones(2, bool)), ValueError, "形状不一致"),
    (lambda: O.masked_cross_entropy(np.zeros((2, 4)), [0, 1], np.zeros(2, bool)), ValueError, "全为 False"),
    (lambda: O.dpo_loss(-1, -1, -1, -1, beta=0), ValueError, "beta 必须 > 0"),
    (lambda: O.dpo_loss(0.5, -1, -1, -1), ValueError, "<= 0"),
    (lambda: O.dpo_loss([-1, -2], [-1, -2, -3], -1, -1), ValueError, "形状不一致"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_masked_lm_examples_on_a_batch_equals_row_by_row():
    """二维输入逐行出题：与用同一个随机数流一行一行调用一维版本完全相同。"""
    from nlpbook.objectives import masked_lm_examples
    ids = np.random.default_rng(3).integers(0, 30, size=(6, 17))
    ids[:, 0] = 1                                         # 特殊符号不出题
    got = masked_lm_examples(ids, 30, 2, np.random.default_rng(7), rate=0.3, special_ids=(1,))
    rng = np.random.default_rng(7)
    rows = [masked_lm_examples(r, 30, 2, rng, rate=0.3, special_ids=(1,)) for r in ids]
    np.testing.assert_array_equal(got[0], np.stack([r[0] for r in rows]))
    np.testing.assert_array_equal(got[1], np.stack([r[1] for r in rows]))
    assert (got[1][:, 0] == -100).all()
