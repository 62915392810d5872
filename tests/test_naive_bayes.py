"""naive_bayes：附录 A.1 的 0.2、0.01、0.952，多项式朴素贝叶斯与手算一致、对数空间不下溢、真实评论上可用。"""
import math

import numpy as np
import pytest

from nlpbook.datasets import TOY_REVIEWS
from nlpbook.naive_bayes import MultinomialNB, naive_bayes_posterior


def test_worked_example_of_appendix_a1():
    prior, lik = np.array([0.5, 0.5]), np.array([0.4, 0.02])   # 好评、差评；P(精彩 | 类别)
    scores = prior * lik
    assert round(scores[0], 3) == 0.2 and round(scores[1], 3) == 0.01
    post = naive_bayes_posterior(prior, lik)
    assert round(post[0], 3) == 0.952 and np.isclose(post[0], 0.2 / 0.21) and np.isclose(post.sum(), 1)


def test_several_words_multiply_and_do_not_underflow():
    post = naive_bayes_posterior([0.5, 0.5], [[0.4, 0.1], [0.02, 0.1]])  # 第二个词两类一样，不改变结果
    assert np.isclose(post[0], 0.2 / 0.21)
    tiny = naive_bayes_posterior([0.5, 0.5], np.full((2, 400), 1e-3) * np.array([[2.0], [1.0]]))
    assert np.isclose(tiny[0], 1.0) and np.all(np.isfinite(tiny))   # 直接相乘会下溢成 0/0
    assert naive_bayes_posterior([0.5, 0.5], [0.3, 0.0]).tolist() == [1.0, 0.0]


def test_multinomial_nb_matches_hand_counts():
    docs = [["好看", "好看", "电影"], ["难看", "电影"]]
    m = MultinomialNB().fit(docs, [1, 0], alpha=1.0)
    # 词表 {好看, 电影, 难看}，V=3。好评：好看 2、电影 1，共 3 词；差评：难看 1、电影 1，共 2 词
    p_good = 0.5 * (2 + 1) / (3 + 3)                       # P(好评) · P(好看 | 好评)
    p_bad = 0.5 * (0 + 1) / (2 + 3)
    assert np.allclose(m.predict_proba([["好看"]])[0], [p_bad / (p_good + p_bad), p_good / (p_good + p_bad)])
    assert m.classes_.tolist() == [0, 1] and m.predict([["好看"], ["难看"]]).tolist() == [1, 0]
    assert np.allclose(m.predict_proba([["没见过的词"]])[0], [0.5, 0.5])   # 未登录词忽略，只剩先验
    assert np.allclose(np.exp(m.log_likelihood_).sum(axis=1), 1)


def test_toy_reviews_and_long_documents():
    docs = [list(r.tokens) for r in TOY_REVIEWS]
    y = [r.label for r in TOY_REVIEWS]
    m = MultinomialNB().fit(docs, y)
    assert m.predict([["剧情", "精彩"]])[0] == 1 and m.predict([["剧情", "无聊"]])[0] == 0
    long_doc = [["精彩"] * 5000]
    p = m.predict_proba(long_doc)
    assert np.all(np.isfinite(p)) and np.isclose(p.sum(), 1) and p[0, 1] > 0.999
    labels = MultinomialNB().fit(docs, ["好" if v else "差" for v in y]).predict([["精彩"]])
    assert labels.tolist() == ["好"]


def test_real_reviews_beat_majority_class():
    from nlpbook.datasets import load_reviews
    data = load_reviews(tokenize=False)
    train, val = data["train"][::3], data["validation"]   # 训练集按标签排过序，隔行取样保持两类都有
    m = MultinomialNB().fit([list(r.text) for r in train], [r.label for r in train])
    y = np.array([r.label for r in val])
    acc = float((m.predict([list(r.text) for r in val]) == y).mean())
    assert acc > max(y.mean(), 1 - y.mean()) + 0.1


@pytest.mark.parametrize("call, exc, match", [
    (lambda: naive_bayes_posterior([0.5, 0.5], [0.4, 0.02, 0.1]), ValueError, "类别数 2"),
    (lambda: naive_bayes_posterior([0.5, 1.5], [0.4, 0.02]), ValueError, r"\[0, 1\]"),
    (lambda: naive_bayes_posterior([0.5, 0.5], [0.0, 0.0]), ValueError, "都是 0"),
    (lambda: naive_bayes_posterior([], []), ValueError, "非空"),
    (lambda: MultinomialNB().fit([["a"]], [1, 0]), ValueError, "数量必须相同"),
    (lambda: MultinomialNB().fit([["a"]], [1], alpha=0), ValueError, "alpha 必须 > 0"),
    (lambda: MultinomialNB().fit("好看", [1]), TypeError, "一个字符串"),
    (lambda: MultinomialNB().fit([], []), ValueError, "不能为空"),
    (lambda: MultinomialNB().predict([["a"]]), RuntimeError, "先调用 fit"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_log_prior_is_class_frequency():
    m = MultinomialNB().fit([["a"], ["b"], ["c"]], [0, 0, 1])
    assert np.allclose(np.exp(m.log_prior_), [2 / 3, 1 / 3]) and math.isclose(m.class_count_.sum(), 3)
