"""retrieval 里 TF-IDF 与 BM25 共用的一处文档频率 / IDF，以及问题切词后的共用一步：两种方法与课文 text.idf 一致，LSA 的问题向量就是 TF × IDF。"""
import math

import numpy as np
import pytest

from nlpbook import retrieval as R
from nlpbook.text import document_frequency, idf

SECS = [("a", "猫 猫 狗"), ("b", "狗"), ("c", "鱼 鱼 鱼 鱼"), ("d", "猫 鱼")]
DOCS = [s.split() for _, s in SECS]


def test_tfidf_idf_is_exactly_the_course_idf():
    r = R.TfidfRetriever().fit(SECS, tokenize=str.split)
    assert r.idf == idf(DOCS) and list(r.idf) == list(idf(DOCS))       # 同样的值、同样的顺序


def test_bm25_idf_uses_the_same_document_frequencies():
    r = R.TfidfRetriever(method="bm25").fit(SECS, tokenize=str.split)
    n = len(DOCS)
    assert r.idf == {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in document_frequency(DOCS).items()}
    assert r.idf["猫"] == pytest.approx(math.log(1 + 2.5 / 2.5))


@pytest.mark.parametrize("query", ["猫 猫 猫 鱼", "狗", "鸟", ""])
def test_query_vectors_count_repeated_words(query):
    """TF-IDF 的问题向量按次数计；LSA 的问题向量（投影之前）是次数 × IDF；词表外的词和空问题不出错。"""
    tf = R.TfidfRetriever().fit(SECS, tokenize=str.split)
    counts = np.array([query.split().count(t) for t in tf.vocab.itos], dtype=float)
    qv = counts * np.array([tf.idf[t] for t in tf.vocab.itos])
    dense = np.array([[v * tf.idf[t] for t, v in zip(tf.vocab.itos, row)]
                      for row in ([d.count(t) for t in tf.vocab.itos] for d in DOCS)])
    norms = np.linalg.norm(dense, axis=1)
    expect = np.divide(dense @ qv, norms * np.linalg.norm(qv), out=np.zeros(len(DOCS)),
                       where=(norms > 0) & (np.linalg.norm(qv) > 0))
    assert np.allclose(tf.scores(query), expect)


def test_lsa_query_vector_is_counts_times_idf():
    """LSA 先把问题向量除以长度：只把次数整体放大不改变它，改变两个词的次数之比才改变它。"""
    lsa = R.LsaRetriever(k=2).fit(SECS, tokenize=str.split)
    assert np.allclose(lsa.embed("猫 鱼"), lsa.embed("猫 猫 鱼 鱼"))
    assert not np.allclose(lsa.embed("猫 鱼"), lsa.embed("猫 鱼 鱼 鱼"))
    assert not np.any(lsa.embed("鸟")) and not np.any(lsa.scores(""))
