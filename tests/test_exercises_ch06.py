"""第 6 章练习的检查器：课文的数字，以及练习模块里没有列出的几种错误实现也会被拒绝。"""
import numpy as np
import pytest

from nlpbook.exercises import PASS
from nlpbook.exercises import ch06 as ex
from _exercise_checks import fails as _fails


def test_worked_numbers_of_the_chapter():
    """6.1 节：好看—精彩 0.970、好看—难看 −1；6.4 节：“电影 好看”平均为 [0.5, 0.5]，带 <PAD> 时不变。"""
    assert round(ex.q4.reference(np.array([1.0, 0.0]), np.array([0.8, 0.2])), 3) == 0.970
    assert ex.q4.reference(np.array([1.0, 0.0]), np.array([-1.0, 0.0])) == pytest.approx(-1.0)
    pooled = ex.q6.reference(np.array([[[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]]), np.array([[True, True, False]]))
    assert np.allclose(pooled, [[0.5, 0.5]])
    assert ex.q5.reference(ex._TABLE, ex._WORDS, "好看", 2) == ["精彩", "电影"]


def test_choice_answers():
    assert ex.q2.evaluate("b").status == PASS
    _fails(ex.q1, "D", "没有选项")
    _fails(ex.q3, "E", "没有选项")


# ---- q4 my_cosine_similarity ---------------------------------------------------------------
def test_cosine_rejects_returning_zero_for_a_zero_vector():
    def zero_for_zero(a, b):
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        return 0.0 if na == 0 or nb == 0 else float(a @ b / (na * nb))
    _fails(ex.q4, zero_for_zero, "零向量", "应当抛出 ValueError", "返回了 0")


def test_cosine_rejects_the_wrong_exception_type():
    def zero_division(a, b):
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        if na == 0 or nb == 0:
            raise ZeroDivisionError("零向量")
        return float(a @ b / (na * nb))
    _fails(ex.q4, zero_division, "应当抛出 ValueError", "抛出了 ZeroDivisionError")


def test_cosine_rejects_dividing_by_the_first_length_twice():
    def norm_a_twice(a, b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(a)))
    _fails(ex.q4, norm_a_twice, "第 1 个例子", "应为 0.9701")


def test_cosine_reports_a_silent_nan_for_the_zero_vector():
    def naive(a, b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    _fails(ex.q4, naive, "零向量没有方向", "返回了 nan")


# ---- q5 my_nearest ---------------------------------------------------------------------------
def _cos(table, words, query):
    q = table[words.index(query)]
    return table @ q / (np.linalg.norm(table, axis=1) * np.linalg.norm(q))


def test_nearest_rejects_word_score_pairs():
    def with_scores(table, words, query, k):
        s = _cos(table, words, query)
        order = [i for i in sorted(range(len(words)), key=lambda i: -s[i]) if words[i] != query]
        return [(words[i], float(s[i])) for i in order[:k]]
    _fails(ex.q5, with_scores, "第 1 个例子", "第 0 项")


def test_nearest_rejects_one_word_too_many():
    def k_plus_one(table, words, query, k):
        s = _cos(table, words, query)
        order = [i for i in sorted(range(len(words)), key=lambda i: -s[i]) if words[i] != query]
        return [words[i] for i in order[:k + 1]]
    _fails(ex.q5, k_plus_one, "应有 2 项，得到 3 项")


def test_nearest_rejects_euclidean_distance():
    """固定例子里欧氏距离与余弦恰好给出同样的名次；随机的表会把它揪出来。"""
    def euclid(table, words, query, k):
        d = np.linalg.norm(table - table[words.index(query)], axis=1)
        order = [i for i in sorted(range(len(words)), key=lambda i: d[i]) if words[i] != query]
        return [words[i] for i in order[:k]]
    msg = _fails(ex.q5, euclid, "结果不对")
    assert int(msg.split("第 ")[1].split(" 个")[0]) > len(ex.q5.cases)


def test_nearest_accepts_a_numpy_array_of_words():
    def as_array(table, words, query, k):
        return np.array(ex.q5.reference(table, words, query, k))
    assert ex.q5.evaluate(as_array).status == PASS


# ---- q6 my_mean_pool -------------------------------------------------------------------------
def test_pool_rejects_summing_pad_but_dividing_by_real_tokens():
    def pad_in_sum(vectors, mask):
        return vectors.sum(axis=1) / mask.sum(axis=1, keepdims=True)
    _fails(ex.q6, pad_in_sum, "第 2 个例子", "<PAD>", "应为 0.5，得到 0.65")


def test_pool_rejects_keeping_the_token_axis():
    def keepdims(vectors, mask):
        m = mask[..., None]
        return (vectors * m).sum(axis=1, keepdims=True) / m.sum(axis=1, keepdims=True)
    _fails(ex.q6, keepdims, "第 1 个例子", "形状应为 (1, 2)，得到 (1, 1, 2)")


def test_pool_rejects_an_inverted_mask():
    def inverted(vectors, mask):
        m = ~mask
        return (vectors * m[..., None]).sum(axis=1) / m.sum(axis=1, keepdims=True)
    _fails(ex.q6, inverted, "第 1 个例子", "NaN")
