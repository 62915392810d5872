"""text：课文第 2—3 章的编号、词袋与 TF-IDF 数值；性质与错误。"""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from nlpbook.datasets import TFIDF_DOCS, TOY_REVIEWS, TOY_VOCAB
from nlpbook.text import SPECIALS, UNK, Vocab, bag_of_words, document_frequency, idf, ngrams, tf_idf

words = st.lists(st.sampled_from(["我", "喜欢", "你", "电影", "好看", "不"]), max_size=12)


def test_ids_of_section_2_2():
    v = Vocab(TOY_VOCAB)
    assert v.encode(["电影", "好看"]) == [0, 2]
    assert v.encode(["电影", "不", "好看"]) == [0, 6, 2]
    assert v.decode([0, 6, 2]) == ["电影", "不", "好看"]


def test_unk_section_2_4():
    v = Vocab(TOY_VOCAB, specials=SPECIALS)
    assert v.encode(["镜头", "惊艳"]) == [v.id(UNK)] * 2
    with pytest.raises(KeyError, match="<UNK>"):
        Vocab(TOY_VOCAB).id("镜头")


def test_bag_of_words_section_3_1():
    v = Vocab(TOY_VOCAB)
    assert bag_of_words(["电影", "好看"], v).tolist() == [1, 0, 1, 0, 0, 0, 0]
    assert bag_of_words(TOY_REVIEWS[4].tokens, v).tolist() == [1, 0, 1, 0, 0, 0, 1]


@given(words)
def test_bag_ignores_order(tokens):
    v = Vocab(["我", "喜欢", "你", "电影", "好看", "不"])
    assert np.array_equal(bag_of_words(tokens, v), bag_of_words(tokens[::-1], v))
    assert bag_of_words(tokens, v).sum() == len(tokens)


def test_tfidf_section_3_4():
    """D1–D3：电影出现在 3 篇中 → ln(3/3) = 0；好看只在 1 篇 → ln 3 ≈ 1.099。"""
    table = idf(TFIDF_DOCS)
    assert table["电影"] == 0 and math.isclose(table["好看"], math.log(3))
    m, vocab = tf_idf(TFIDF_DOCS)
    assert vocab.itos == ["电影", "好看", "精彩", "无聊"]
    assert np.allclose(m[0].round(3), [0, 1.099, 0, 0])
    assert document_frequency(TFIDF_DOCS)["电影"] == 3


def test_tfidf_cannot_separate_word_order():
    docs = [["我", "喜欢", "你"], ["你", "喜欢", "我"], ["电影", "好看"]]
    m, _ = tf_idf(docs)
    assert np.array_equal(m[0], m[1])


def test_tfidf_with_training_idf_applies_to_new_docs():
    m, v = tf_idf([["好看", "好看", "新词"]], vocab=Vocab(["电影", "好看"]), idf_table=idf(TFIDF_DOCS))
    assert np.allclose(m, [[0, 2 * math.log(3)]])


def test_vocab_build_orders_by_count_and_respects_min_count():
    v = Vocab.build([["b", "a", "a"], ["c", "a", "b"]], min_count=2)
    assert v.itos == list(SPECIALS) + ["a", "b"]
    assert v.encode(["c"]) == [v.id(UNK)]


def test_ngrams_section_5_1():
    assert ngrams(["电影", "不", "好看"], 2) == ["电影_不", "不_好看"]
    assert ngrams(["a"], 2) == []
    assert ngrams(["a", "b", "c"], 3, joiner=None) == [("a", "b", "c")]


@pytest.mark.parametrize("call, exc, match", [
    (lambda: bag_of_words("电影好看", Vocab(TOY_VOCAB)), TypeError, "先分词"),
    (lambda: bag_of_words(["电影"], ["电影"]), TypeError, "Vocab"),
    (lambda: tf_idf([]), ValueError, "不能为空"),
    (lambda: ngrams(["a"], 0), ValueError, "n 必须 > 0"),
    (lambda: ngrams(["a"], 1.5), TypeError, "整数"),
    (lambda: Vocab(["a", ""]), ValueError, "空字符串"),
    (lambda: Vocab(["a"]).decode([3]), ValueError, "0..0"),
    (lambda: Vocab(["a", 1]), TypeError, "str"),
    # idf_table 里的坏值要报错，不能悄悄算出 NaN（问题 11 的第 4 个 bug）
    (lambda: tf_idf(TFIDF_DOCS, idf_table={"好看": float("nan")}), ValueError, "好看.*NaN"),
    (lambda: tf_idf(TFIDF_DOCS, idf_table={"好看": math.inf}), ValueError, "有限"),
    (lambda: tf_idf(TFIDF_DOCS, idf_table={"好看": -1.0}), ValueError, ">= 0"),
    (lambda: tf_idf(TFIDF_DOCS, idf_table={"好看": "1.1"}), TypeError, "数"),
    (lambda: tf_idf(TFIDF_DOCS, idf_table={"好看": True}), TypeError, "数"),
    (lambda: tf_idf(TFIDF_DOCS, idf_table=[("好看", 1.0)]), TypeError, "字典"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
