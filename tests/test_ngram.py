"""ngram：第 5 章的喝茶例子、加一平滑表、链式法则、困惑度；性质与错误。"""
import math

import pytest
from hypothesis import given, settings, strategies as st

from nlpbook.ngram import NGramModel, count_ngrams, unseen_rate
from nlpbook.text import BOS, EOS

TEA = [["我", "喝", "茶"], ["我", "喝", "茶"], ["我", "喝", "水"]]
sentences = st.lists(st.lists(st.sampled_from(list("abcd")), min_size=0, max_size=6), min_size=1, max_size=6)


def test_bigram_tea_section_5_2():
    m = NGramModel(2, k=0).fit(TEA)
    assert m.prob("茶", ["喝"]) == pytest.approx(2 / 3)
    assert m.prob("水", ["喝"]) == pytest.approx(1 / 3)
    assert m.prob("咖啡", ["喝"]) == 0  # 没见过 → 概率为零（5.4 节的问题）


def test_add_one_table_section_5_4():
    m = NGramModel(2, k=1, vocab=["茶", "水", "咖啡"], add_eos=False).fit(TEA)
    d = m.distribution(["喝"])
    assert d == pytest.approx({"茶": 3 / 6, "水": 2 / 6, "咖啡": 1 / 6})


def test_chain_rule_with_bos_eos():
    m = NGramModel(2, k=0).fit(TEA)
    # P(我|<BOS>)=1, P(喝|我)=1, P(茶|喝)=2/3, P(<EOS>|茶)=1
    assert m.sentence_logprob(["我", "喝", "茶"]) == pytest.approx(math.log(2 / 3))
    assert m.prob("我", [BOS]) == m.prob("我") == 1.0
    assert m.perplexity([["我", "喝", "茶"]]) == pytest.approx((2 / 3) ** (-1 / 4))
    assert m.sentence_logprob(["我", "喝", "咖啡"]) == -math.inf


@settings(max_examples=50, deadline=None)
@given(sentences, st.integers(1, 3), st.sampled_from([0.5, 1.0]))
def test_distributions_sum_to_one(corpus, n, k):
    m = NGramModel(n, k=k).fit(corpus)
    ctx = (["a"] * (n - 1))
    assert sum(m.distribution(ctx).values()) == pytest.approx(1.0)
    assert m.perplexity(corpus) >= 1.0


@pytest.mark.parametrize("kwargs", [dict(vocab=["我", "喝", "茶"]), dict(add_eos=False),
                                    dict(vocab=["茶", "水"], add_eos=False), dict(k=0, vocab=["茶", "咖啡"])])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_distribution_sums_to_one_with_fixed_vocab_or_without_eos(kwargs, n):
    """固定 vocab 漏掉训练词、或 add_eos=False 时，P(·|前文) 的和仍为 1（问题 11 的第 3 个 bug）。
    分母只数候选词：候选之外的词在这个模型里不存在。"""
    m = NGramModel(n, **{"k": 1.0, **kwargs}).fit(TEA)
    for ctx in (["我", "喝"], ["喝", "茶"], ["茶", "喝"], []):
        ctx = ctx[-(n - 1):] if n > 1 else []
        try:
            total = sum(m.distribution(ctx).values())
        except ValueError as exc:  # k=0 且前文后面从没出现过候选词：概率无定义，要说清楚
            assert m.k == 0 and "候选" in str(exc)
            continue
        assert total == pytest.approx(1.0), (ctx, m.distribution(ctx))


def test_fixed_vocab_counts_only_candidates():
    m = NGramModel(2, k=1, vocab=["茶", "咖啡"], add_eos=False).fit(TEA)
    # “喝”之后：茶 2 次、水 1 次（水不是候选，不计）→ (2+1)/(2+2)、(0+1)/(2+2)
    assert m.distribution(["喝"]) == pytest.approx({"茶": 3 / 4, "咖啡": 1 / 4})
    with pytest.raises(ValueError, match="候选"):
        NGramModel(2, k=0, vocab=["咖啡"], add_eos=False).fit(TEA).prob("咖啡", ["喝"])


def test_unigram_and_counts():
    m = NGramModel(1, k=0).fit(TEA)
    assert m.prob("我") == pytest.approx(3 / 12)
    c = count_ngrams(TEA, 2)
    assert c[("喝", "茶")] == 2 and c[(BOS, "我")] == 3 and c[("水", EOS)] == 1


def test_unseen_rate_grows_with_n():
    train = [list("abcabcabd"), list("abcd")]
    held = [list("abcabd"), list("dcba")]
    rates = [unseen_rate(train, held, n)["unseen_rate"] for n in (1, 2, 3)]
    assert rates == sorted(rates)
    r = unseen_rate(train, held, 2)
    assert 0 <= r["unseen"] <= r["heldout"] and r["stored"] == len(count_ngrams(train, 2))


@pytest.mark.parametrize("call, exc, match", [
    (lambda: NGramModel(0), ValueError, "n 必须 > 0"),
    (lambda: NGramModel(2, k=-1), ValueError, "k 必须 >= 0"),
    (lambda: NGramModel(2).fit([]), ValueError, "不能为空"),
    (lambda: NGramModel(2).fit("我喝茶"), TypeError, "句子列表"),
    (lambda: NGramModel(2).fit(TEA).prob("茶", ["我", "喝"]), ValueError, "只看前 1 个"),
    (lambda: NGramModel(2, k=0).fit(TEA).prob("茶", ["咖啡"]), ValueError, "k>0"),
    (lambda: NGramModel(2).prob("茶", ["喝"]), ValueError, "fit"),
    (lambda: NGramModel(2, vocab=["茶"]).fit(TEA).prob("水", ["喝"]), ValueError, "候选"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
