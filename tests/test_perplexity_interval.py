"""每条文本的负对数概率（字级 n-gram 与字级 GRU）与按文本重抽样的困惑度区间（第 11 章）。"""
import math

import numpy as np
import pytest

from nlpbook.char_rnn import CharRNNLM, init_char_rnn, perplexity, text_nll, token_nll
from nlpbook.charlm import CharNGramLM
from nlpbook.lm import perplexity_interval

TRAIN = ["这本书很好", "这家酒店不好", "手机很好用", "不推荐这本书"]
HELD = ["这本书不好", "", "酒店很好", "手机🙂"]


def test_ngram_text_nll_adds_up_to_perplexity():
    lm = CharNGramLM(n=3, min_count=1).fit(TRAIN)
    nll, counts = lm.text_nll(HELD)
    assert counts.tolist() == [len(t) + 1 for t in HELD]           # 每条文本的字 + 结尾的换行
    assert np.all(nll > 0)
    assert math.exp(nll.sum() / counts.sum()) == pytest.approx(lm.perplexity(HELD), rel=1e-12)
    for k, t in enumerate(HELD):                                    # 单条文本也一致
        assert math.exp(nll[k] / counts[k]) == pytest.approx(lm.perplexity([t]), rel=1e-12)


def test_gru_text_nll_matches_stream_perplexity():
    vocab = ["\n", "<UNK>"] + sorted(set("".join(TRAIN)))
    model = CharRNNLM(init_char_rnn(len(vocab), hidden=8, dim=4, seed=0), vocab=vocab)
    nll, counts = model.text_nll(HELD)
    assert counts.tolist() == [len(t) + 1 for t in HELD]
    stoi = {c: i for i, c in enumerate(vocab)}
    ids = [stoi.get(c, 1) for c in "\n" + "\n".join(HELD) + "\n"]
    per_token = token_nll(model.params, ids)
    assert per_token.shape == (len(ids) - 1,)
    assert nll.sum() == pytest.approx(per_token.sum(), rel=1e-9)
    assert math.exp(nll.sum() / counts.sum()) == pytest.approx(perplexity(model.params, ids), rel=1e-5)
    assert text_nll(model.params, HELD, vocab)[0] == pytest.approx(nll)
    with pytest.raises(ValueError, match="不能为空"):
        model.text_nll([])


def test_perplexity_interval_worked_example_and_pairing():
    # 两条文本每字的负对数概率都是 2：怎么重抽样都是 e² ≈ 7.389，区间退化成一个点
    assert perplexity_interval([4.0, 2.0], [2, 1]) == pytest.approx((math.exp(2),) * 3)
    rng = np.random.default_rng(0)
    counts = rng.integers(5, 50, size=300)
    a = counts * rng.uniform(3.0, 5.0, size=300)
    point, lo, hi = perplexity_interval(a, counts)
    assert lo < point < hi and point == pytest.approx(math.exp(a.sum() / counts.sum()))
    # 两个模型的比较交给 nlpbook.compare：自己和自己比差恒为 0；b 在每条文本上都更差时区间整个在 0 以下
    from nlpbook.compare import compare, perplexity_from_sums
    rows = np.stack([a, counts], axis=-1)
    same = compare(rows, rows.copy(), stat=perplexity_from_sums)
    assert same.diff == same.lo == same.hi == 0
    worse = compare(rows, np.stack([a + 0.2 * counts, counts], axis=-1), stat=perplexity_from_sums)
    assert worse.lo <= worse.diff <= worse.hi < 0


@pytest.mark.parametrize("args, match", [
    (([], []), "非空"),
    (([1.0, 2.0], [1]), "等长"),
    (([1.0, float("nan")], [1, 1]), "有限"),
    (([1.0, 2.0], [1, 0]), ">= 1"),
    (([1.0, 2.0], [1.5, 2.0]), "整数"),
])
def test_perplexity_interval_errors(args, match):
    with pytest.raises(ValueError, match=match):
        perplexity_interval(*args)
