"""第 1 章练习的补充检查：模块里的已知错误之外，再拿几种真实会犯的错误试一试检查器，并核对课文的数。"""
import numpy as np

from nlpbook.datasets import TOY_REVIEWS
from nlpbook.exercises import ch01 as ex
from nlpbook.rules import TEXT_LEXICON, rule_predict
from _exercise_checks import fails as _fails


# ---- 选择题：不存在的选项、小写字母 -------------------------------------------------
def test_choices_reject_an_option_that_does_not_exist_and_accept_lower_case():
    _fails(ex.q1, "D", "没有选项")
    _fails(ex.q2, "E", "没有选项")
    assert ex.q1.evaluate("b").passed and ex.q2.evaluate(" a ").passed


def test_explain_question_is_not_graded():
    assert not ex.q3.graded and "不得了" in ex.q3.answer


# ---- q4 ----------------------------------------------------------------------
def test_q4_lexicon_lookup_that_crashes_on_unknown_words():
    def my_rule_score(tokens, lexicon):
        return sum(lexicon[t] for t in tokens)       # “电影”不在表里：KeyError
    _fails(ex.q4, my_rule_score, "第 1 个例子", "KeyError")


def test_q4_only_positive_words_count():
    def my_rule_score(tokens, lexicon):
        return sum(lexicon[t] for t in tokens if t in lexicon and lexicon[t] > 0)
    _fails(ex.q4, my_rule_score, "评论 C")


def test_q4_forgot_to_return():
    def my_rule_score(tokens, lexicon):
        total = sum(lexicon.get(t, 0) for t in tokens)  # noqa: F841 - 忘了 return
    _fails(ex.q4, my_rule_score, "没有返回值")


# ---- q5 ----------------------------------------------------------------------
def test_q5_negation_that_reaches_the_next_lexicon_word():
    """“不”一直管到下一个打分词：两个“不”叠在同一个“好看”上，把它取反两次。"""
    def my_negated_score(tokens, lexicon):
        total, flips = 0, 0
        for t in tokens:
            if t == "不":
                flips += 1
            elif t in lexicon:
                total += lexicon[t] * (-1) ** flips
                flips = 0
        return total
    _fails(ex.q5, my_negated_score, "两个“不”")


def test_q5_negation_that_also_scores_bu_itself():
    def my_negated_score(tokens, lexicon):
        total = -tokens.count("不")                   # 把“不”自己当成 −1 分的坏词
        for i, t in enumerate(tokens):
            v = lexicon.get(t, 0)
            total += -v if i > 0 and tokens[i - 1] == "不" else v
        return total
    _fails(ex.q5, my_negated_score, "评论 E")


def test_q5_negation_rule_gets_every_toy_review_right():
    for r in TOY_REVIEWS:
        assert int(ex._negated_ref(r.tokens, TEXT_LEXICON) > 0) == r.label


# ---- q6 ----------------------------------------------------------------------
def test_q6_percentages_instead_of_fractions():
    def my_accuracy_coverage(scores, labels):
        s, y = np.asarray(scores, dtype=float), np.asarray(labels)
        return 100 * np.mean((s > 0) == y), 100 * np.mean(s != 0)
    _fails(ex.q6, my_accuracy_coverage, "第 1 个例子", "66.67")


def test_q6_truncating_scores_to_integers():
    """int(0.5) = 0：半分被截成 0 分，判成差评、也不算覆盖。"""
    def my_accuracy_coverage(scores, labels):
        s = np.array([int(v) for v in scores])
        y = np.asarray(labels)
        return float(np.mean((s > 0) == y)), float(np.mean(s != 0))
    _fails(ex.q6, my_accuracy_coverage, "只有一条评论")


def test_q6_worked_numbers_of_the_chapter():
    scores = [ex._score_ref(r.tokens, TEXT_LEXICON) for r in TOY_REVIEWS]
    labels = [r.label for r in TOY_REVIEWS]
    acc, cov = ex._accov_ref(scores, labels)
    assert (round(acc, 3), cov) == (0.667, 1.0)
    assert acc == np.mean([rule_predict(r.text) == r.label for r in TOY_REVIEWS])
