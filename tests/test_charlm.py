"""charlm：小语料上可手算的概率（add-k 与 Witten-Bell）、与 NGramModel 一致、任意前文的分布和为 1、
困惑度与逐字计算一致、接入 decoding.generate；真实评论上的困惑度与速度；错误。"""
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import decoding as D
from nlpbook.charlm import CharNGramLM
from nlpbook.ngram import NGramModel
from nlpbook.text import EOS, UNK

TEA = ["我喝茶", "我喝茶", "我喝水"]  # 第 5 章的喝茶例子，按字切


def test_vocab_and_encoding():
    m = CharNGramLM(2, k=1, min_count=1).fit(TEA)
    assert m.vocab == ["\n", UNK, "我", "喝", "茶", "水"]  # EOS、UNK，再按次数（并列按首次出现）
    assert m.encode("我喝咖啡") == [2, 3, 1, 1]
    assert m.decode([2, 3, 4, 0]) == "我喝茶\n"
    rare = CharNGramLM(2, k=1, min_count=2).fit(TEA)
    assert rare.vocab == ["\n", UNK, "我", "喝", "茶"]  # “水”只出现 1 次 → <UNK>


def test_add_k_by_hand():
    m = CharNGramLM(2, k=1, min_count=1, interpolate=False).fit(TEA)
    d = dict(zip(m.vocab, m.next_distribution("我喝")))  # 只看最后一个字“喝”；V = 6
    assert d == pytest.approx({"茶": 3 / 9, "水": 2 / 9, "我": 1 / 9, "喝": 1 / 9, "\n": 1 / 9, UNK: 1 / 9})
    tiny_k = CharNGramLM(2, k=1e-12, min_count=1, interpolate=False).fit(TEA)
    assert tiny_k.next_distribution("喝")[tiny_k.stoi["茶"]] == pytest.approx(2 / 3)  # 课文 5.2 的 2/3
    assert np.allclose(m.next_distribution("咖"), 1 / 6)  # 没见过的前文：均匀
    # 困惑度含句尾 EOS：P(我|开头)=4/9, P(喝|我)=4/9, P(茶|喝)=3/9, P(EOS|茶)=3/8
    assert m.perplexity(["我喝茶"]) == pytest.approx((4 / 9 * 4 / 9 * 3 / 9 * 3 / 8) ** (-1 / 4))


def test_witten_bell_by_hand():
    m = CharNGramLM(2, k=1, min_count=1).fit(TEA)
    # 1 阶 add-k：N=12（含 3 个 EOS），V=6 → 我 4/18、喝 4/18、茶 3/18、水 2/18、EOS 4/18、UNK 1/18
    uni = dict(zip(m.vocab, m.next_distribution("咖")))  # 没见过的前文退回 1 阶
    assert uni == pytest.approx({"我": 4 / 18, "喝": 4 / 18, "茶": 3 / 18, "水": 2 / 18, "\n": 4 / 18, UNK: 1 / 18})
    # “喝”后：c=3，T=2（茶、水）→ P = (c(喝,w) + 2·P₁(w)) / 5
    d = dict(zip(m.vocab, m.next_distribution("喝")))
    assert d["茶"] == pytest.approx(7 / 15) and d["水"] == pytest.approx(11 / 45)
    assert d["我"] == pytest.approx(4 / 45) and d[UNK] == pytest.approx(1 / 45)
    # 文本开头（空前文）：c=3，T=1 → P(我) = (3 + 4/18) / 4
    assert m.next_distribution("")[m.stoi["我"]] == pytest.approx(29 / 36)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_add_k_matches_ngram_model(n):
    texts = ["我喝茶", "我喝茶", "我喝水", "你喝咖啡", ""]
    m = CharNGramLM(n, k=0.5, min_count=1, interpolate=False).fit(texts)
    ng = NGramModel(n, k=0.5, vocab=[c for c in m.vocab if c != "\n"]).fit([list(t) for t in texts])
    for prefix in ["", "我", "我喝", "他喝", "喝咖", "啡啡啡"]:
        d = m.next_distribution(prefix)
        ctx = list(prefix)[-(n - 1):] if n > 1 else []
        ctx = [c if c in m.stoi else UNK for c in ctx]
        assert np.allclose(d, [ng.prob(EOS if c == "\n" else c, ctx) for c in m.vocab])
    held = [["我", "喝", "咖", "啡"], ["他"]]
    held_ng = [[c if c in m.stoi else UNK for c in s] for s in held]
    assert m.perplexity(["".join(s) for s in held]) == pytest.approx(ng.perplexity(held_ng))


alphabet = st.sampled_from(list("我喝茶水你好书。，") + ["\n"])
corpora = st.lists(st.text(alphabet, max_size=8), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(corpora, st.text(max_size=10), st.integers(1, 4), st.booleans(), st.sampled_from([0.01, 1.0]))
def test_any_prefix_gives_a_distribution(corpus, prefix, n, interpolate, k):
    """任意前文（含没见过的字、空前文、emoji）都得到和为 1、处处为正的分布。"""
    m = CharNGramLM(n, k=k, min_count=1, interpolate=interpolate).fit(corpus)
    p = m.next_distribution(prefix)
    assert p.shape == (len(m.vocab),) and np.all(p > 0) and p.sum() == pytest.approx(1.0)
    lg = m.next_logits(m.encode(prefix))
    assert np.all(np.isfinite(lg)) and np.allclose(np.exp(lg), p)


@settings(max_examples=40, deadline=None)
@given(corpora, st.lists(st.text(alphabet | st.sampled_from("咖啡"), max_size=8), min_size=1, max_size=3),
       st.integers(1, 4), st.booleans())
def test_perplexity_matches_char_by_char(corpus, held, n, interpolate):
    m = CharNGramLM(n, k=0.1, min_count=1, interpolate=interpolate).fit(corpus)
    logp, count = 0.0, 0
    for text in held:
        for i in range(len(text) + 1):
            target = m.eos_id if i == len(text) else m.encode(text[i])[0]
            logp += math.log(m.next_distribution(text[:i])[target])
            count += 1
    assert m.perplexity(held) == pytest.approx(math.exp(-logp / count))


def test_top_next_and_generate_hook():
    m = CharNGramLM(3, k=0.01, min_count=1).fit(TEA * 5 + ["你好"])
    top = m.top_next("我喝", 2)
    assert [c for c, _ in top] == ["茶", "水"] and top[0][1] > top[1][1]
    ids = D.generate(m.next_logits, m.encode("我"), 10, temperature=0, eos_id=m.eos_id)
    assert m.decode(ids) == "我喝茶\n"
    r1 = D.generate(m.next_logits, m.encode("我"), 10, 1.0, None, 0.9, np.random.default_rng(1), m.eos_id)
    r2 = D.generate(m.next_logits, m.encode("我"), 10, 1.0, None, 0.9, np.random.default_rng(1), m.eos_id)
    assert r1 == r2


@pytest.fixture(scope="module")
def reviews():
    from nlpbook.datasets import clean_reviews, load_raw_reviews, split_reviews
    split = split_reviews(clean_reviews(load_raw_reviews())[0])
    return [r.text for r in split["train"]], [r.text for r in split["validation"]]


def test_real_reviews_perplexity_and_speed(reviews):
    train, val = reviews
    m = CharNGramLM(3).fit(train)
    ppl3 = m.perplexity(val)
    ppl1 = CharNGramLM(1).fit(train).perplexity(val)
    assert 40 < ppl3 < 90 and ppl3 < ppl1 / 4  # 实测约 64 与 504
    assert m.top_next("这本", 1)[0][0] == "书"
    t = time.perf_counter()
    for _ in range(50):
        p = m.next_distribution("这家酒店的服务")
    assert (time.perf_counter() - t) / 50 < 0.005  # 滑块每动一次都要重算
    assert p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: CharNGramLM(0), ValueError, "n 必须 > 0"),
    (lambda: CharNGramLM(2, k=0), ValueError, "k 必须 > 0"),
    (lambda: CharNGramLM(2, min_count=1.5), TypeError, "min_count 必须是整数"),
    (lambda: CharNGramLM(2, interpolate="yes"), TypeError, "interpolate"),
    (lambda: CharNGramLM(2).fit("我喝茶"), TypeError, "一个字符串"),
    (lambda: CharNGramLM(2).fit([]), ValueError, "不能为空"),
    (lambda: CharNGramLM(2).fit([["我", "喝"]]), TypeError, "str"),
    (lambda: CharNGramLM(2).next_distribution("我"), ValueError, "先调用 fit"),
    (lambda: CharNGramLM(2, min_count=1).fit(TEA).next_distribution(["我"]), TypeError, "prefix 必须是 str"),
    (lambda: CharNGramLM(2, min_count=1).fit(TEA).next_logits([99]), ValueError, "必须在 0.."),
    (lambda: CharNGramLM(2, min_count=1).fit(TEA).decode("我"), TypeError, "一个字符串"),
    (lambda: CharNGramLM(2, min_count=1).fit(TEA).top_next("我", 0), ValueError, "k 必须 > 0"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
