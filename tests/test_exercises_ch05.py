"""第 5 章练习的检查器：课文的数字，以及练习模块里没有列出的几种错误实现也会被拒绝。"""
import numpy as np
import pytest

from nlpbook.exercises import PASS
from nlpbook.exercises import ch05 as ex
from _exercise_checks import fails as _fails

TEA = [["我", "喝", "茶"], ["我", "喝", "茶"], ["我", "喝", "水"]]


def test_worked_numbers_of_the_chapter():
    """5.2 节 P(茶|喝) = 2/3；5.4 节候选为 我、喝、茶、水、<EOS> 时加一得 3/8；练习 2 是 2/4 与 1/4。"""
    assert ex.q6.reference(TEA, "喝", "茶", 0) == pytest.approx(2 / 3)
    assert ex.q6.reference(TEA, "喝", "茶", 1) == pytest.approx(3 / 8)
    assert ex.q6.reference(TEA + [["我", "喝", "咖啡"]], "喝", "茶", 0) == pytest.approx(ex.q2.expected[0])
    assert ex.q6.reference(TEA + [["我", "喝", "咖啡"]], "喝", "咖啡", 0) == pytest.approx(ex.q2.expected[1])
    counts = ex.q5.reference(TEA)
    assert counts[("<BOS>", "我")] == 3 and counts[("喝", "茶")] == 2 and counts[("茶", "<EOS>")] == 2
    assert ex.q4.reference(["电影", "不", "好看"], 2) == ["电影_不", "不_好看"]


def test_choice_answers_are_forgiving_about_case_but_not_about_options():
    assert ex.q1.evaluate(" b ").status == PASS
    _fails(ex.q1, "D", "没有选项")
    _fails(ex.q3, "AB", "没有选项")


def test_number_exercise_rejects_other_wrong_values():
    _fails(ex.q2, 0.5, "形状")                       # 只填了一个数
    _fails(ex.q2, (0.5, 1 / 3), "第 1 项")            # 咖啡算成了 1/3
    assert ex.q2.evaluate([0.5, 0.25]).status == PASS


# ---- q4 my_ngrams ---------------------------------------------------------------------------
def test_ngrams_rejects_tuples_instead_of_joined_strings():
    def tuples(tokens, n):
        return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    _fails(ex.q4, tuples, "第 1 个例子", "'电影_不'")


def test_ngrams_rejects_a_missing_joiner():
    def no_joiner(tokens, n):
        return ["".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    _fails(ex.q4, no_joiner, "应为 '电影_不'，得到 '电影不'")


def test_ngrams_rejects_raising_on_short_sentences():
    def strict(tokens, n):
        if len(tokens) < n:
            raise ValueError("句子太短")
        return ["_".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    _fails(ex.q4, strict, "token 比 n 少", "报错 ValueError")


# ---- q5 my_bigram_counts ----------------------------------------------------------------------
def _pad(s):
    return ["<BOS>"] + list(s) + ["<EOS>"]


def test_counts_rejects_string_keys():
    def joined(sentences):
        out = {}
        for s in sentences:
            t = _pad(s)
            for a, b in zip(t, t[1:]):
                out[f"{a}_{b}"] = out.get(f"{a}_{b}", 0) + 1
        return out
    _fails(ex.q5, joined, "第 1 个例子", "缺少键")


def test_counts_rejects_trigram_style_padding():
    def two_bos(sentences):
        out = {}
        for s in sentences:
            t = ["<BOS>"] + _pad(s)
            for p in zip(t, t[1:]):
                out[p] = out.get(p, 0) + 1
        return out
    _fails(ex.q5, two_bos, "多出键", "<BOS>")


def test_counts_rejects_skipping_empty_sentences():
    def skip_empty(sentences):
        out = {}
        for s in sentences:
            if not s:
                continue
            t = _pad(s)
            for p in zip(t, t[1:]):
                out[p] = out.get(p, 0) + 1
        return out
    _fails(ex.q5, skip_empty, "空句子", "缺少键")


# ---- q6 my_bigram_prob ------------------------------------------------------------------------
def _parts(sentences, prev, word):
    pairs = [p for s in sentences for p in zip(_pad(s), _pad(s)[1:])]
    total = sum(a == prev for a, _ in pairs)
    return sum(p == (prev, word) for p in pairs), total, len({t for s in sentences for t in s}) + 1


def test_prob_rejects_conditioning_on_the_wrong_word():
    def backwards(sentences, prev, word, k):   # count(prev, word) / count(word)
        c, _, V = _parts(sentences, prev, word)
        pairs = [p for s in sentences for p in zip(_pad(s), _pad(s)[1:])]
        return (c + k) / (sum(b == word for _, b in pairs) + k * V)
    _fails(ex.q6, backwards, "第 1 个例子", "应为 0.6667，得到 1")


def test_prob_rejects_adding_kV_to_the_numerator():
    def k_times_v_on_top(sentences, prev, word, k):
        c, total, V = _parts(sentences, prev, word)
        return (c + k * V) / (total + k * V)
    _fails(ex.q6, k_times_v_on_top, "第 2 个例子", "应为 0.375")


def test_prob_rejects_zero_for_an_unseen_context():
    def zero_if_unseen(sentences, prev, word, k):
        c, total, V = _parts(sentences, prev, word)
        if total == 0:
            return 0.0
        return (c + k) / (total + k * V)
    _fails(ex.q6, zero_if_unseen, "从没出现过", "应为 0.2，得到 0")


def test_prob_reports_nan_instead_of_crashing():
    """numpy 的 0/0 返回标量 NaN：检查器要说明问题，而不是自己报错。"""
    def nan_everywhere(sentences, prev, word, k):
        return np.float64("nan")
    _fails(ex.q6, nan_everywhere, "第 1 个例子", "NaN")
