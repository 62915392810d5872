"""第 7 章练习的检查器：课文的数字，以及练习模块里没有列出的几种错误实现也会被拒绝。"""
import numpy as np

from nlpbook.exercises import PASS, TODO
from nlpbook.exercises import ch07 as ex
from _exercise_checks import fails as _fails


def test_worked_numbers_of_the_chapter():
    """7.3 节 softmax([2, 0, 1]) = [0.665, 0.090, 0.245]；7.6 节损失 0.440、练习 2 是 1.440；窗口 2 时 10 个词对。"""
    assert np.allclose(np.round(ex.q4.reference(np.array([2.0, 0.0, 1.0])), 3), [0.665, 0.090, 0.245])
    one = ex.q6.reference(np.array([1.0, 1.0]), np.array([1.0, 1.0]), np.array([[-0.5, -0.5]]))
    assert round(one["loss"], 3) == 0.440
    assert np.allclose(np.round(one["d_pos"], 3), [-0.119, -0.119])
    assert np.allclose(np.round(one["d_negs"], 3), [[0.269, 0.269]])
    assert round(ex.q2.expected, 3) == 1.440
    pairs = ex.q5.reference(["我", "喜欢", "看", "电影"], 2)
    assert (sum(c == "看" for c, _ in pairs), len(pairs)) == ex.q3.expected == (3, 10)


def test_explain_exercise_is_not_graded():
    assert not ex.q1.graded and "原文" in ex.q1.answer
    assert ex.q1.evaluate("随便写点什么").status == TODO


def test_number_exercises_reject_other_wrong_values():
    _fails(ex.q2, 0.127, "还不对")                 # 只算了真实词对那一项
    _fails(ex.q3, (3, 12), "第 1 项")
    assert ex.q3.evaluate([3, 10]).status == PASS


# ---- q4 my_softmax ---------------------------------------------------------------------------
def test_softmax_rejects_normalising_over_the_batch_axis():
    def per_column(z):
        e = np.exp(z - z.max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)
    _fails(ex.q4, per_column, "每行各自做 softmax")


def test_softmax_rejects_log_probabilities():
    def log_softmax(z):
        s = z - z.max(axis=-1, keepdims=True)
        return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
    _fails(ex.q4, log_softmax, "第 1 个例子", "应为 0.6652")


def test_softmax_rejects_clipping_instead_of_shifting():
    """把分数截到 [−50, 50] 也不会溢出，但 1000、999、998 全被截成 50，结果成了均匀分布。"""
    def clipped(z):
        e = np.exp(np.clip(z, -50, 50))
        return e / e.sum(axis=-1, keepdims=True)
    _fails(ex.q4, clipped, "超大的分数", "应为 0.6652，得到 0.3333")


# ---- q5 my_skipgram_pairs --------------------------------------------------------------------
def test_pairs_rejects_right_neighbours_only():
    def right_only(tokens, window):
        return [(tokens[i], tokens[j]) for i in range(len(tokens))
                for j in range(i + 1, min(len(tokens), i + window + 1))]
    _fails(ex.q5, right_only, "第 1 个例子", "应有 6 个词对，得到 3 个", "少了")


def test_pairs_rejects_deduplicating_with_a_set():
    def as_set(tokens, window):
        n = len(tokens)
        return list({(tokens[i], tokens[j]) for i in range(n)
                     for j in range(max(0, i - window), min(n, i + window + 1)) if j != i})
    _fails(ex.q5, as_set, "重复的词", "少了 ('很', '很')")


def test_pairs_accepts_any_order():
    def reversed_order(tokens, window):
        return list(reversed(ex.q5.reference(tokens, window)))
    assert ex.q5.evaluate(reversed_order).status == PASS


def test_pairs_rejects_a_string_per_pair():
    def joined(tokens, window):
        return [f"{c}_{o}" for c, o in ex.q5.reference(tokens, window)]
    _fails(ex.q5, joined, "第 1 个例子", "少了")


# ---- q6 my_sgns ------------------------------------------------------------------------------
def _sig(s):
    return np.exp(-np.logaddexp(0, -s))


def _good(v, u_pos, u_negs):
    return ex.q6.reference(v, u_pos, u_negs)


def test_sgns_rejects_summed_noise_gradients():
    def summed(v, u_pos, u_negs):
        out = dict(_good(v, u_pos, u_negs))
        out["d_negs"] = out["d_negs"].sum(axis=0)
        return out
    _fails(ex.q6, summed, "第 1 个例子", "['d_negs']", "形状")


def test_sgns_rejects_using_only_the_first_noise_word():
    def first_noise_only(v, u_pos, u_negs):
        out = dict(_good(v, u_pos, u_negs))
        s_pos, s_neg = v @ u_pos, u_negs @ v
        out["loss"] = float(np.logaddexp(0, -s_pos) + np.logaddexp(0, s_neg[0]))
        return out
    _fails(ex.q6, first_noise_only, "三个噪声词", "['loss']")


def test_sgns_rejects_averaging_the_loss():
    def mean_loss(v, u_pos, u_negs):
        out = dict(_good(v, u_pos, u_negs))
        out["loss"] = out["loss"] / (1 + len(u_negs))
        return out
    _fails(ex.q6, mean_loss, "第 1 个例子", "['loss'] 应为 0.4402，得到 0.2201")


def test_sgns_rejects_a_gradient_that_ignores_the_centre_vector():
    def d_pos_is_u(v, u_pos, u_negs):
        out = dict(_good(v, u_pos, u_negs))
        out["d_pos"] = (_sig(v @ u_pos) - 1) * u_pos
        return out
    _fails(ex.q6, d_pos_is_u, "['d_pos']")
