"""第 10 章练习的检查器：课文的数字，以及模块里没有列出的错误实现也会被拒绝。"""
import numpy as np

from nlpbook import exercises as E
from nlpbook.cnn import conv1d, receptive_field
from nlpbook.exercises import ch10 as ex
from _exercise_checks import fails as _fails


def test_worked_numbers_of_the_chapter():
    assert np.allclose(conv1d([-1, 0.5, 1], [2, 1, 1]), [[-0.5]])
    assert np.allclose(conv1d([1, 0.5, -1], [2, 1, 1]), [[1.5]])
    assert np.allclose(ex.q4.reference(*ex.q4.cases[0].args), [1, 0])        # 核 1 找到“不 太 好看”
    assert receptive_field(3, 10) == 21 and ex.q5.reference(3, 21) == 10
    assert [ex.q5.reference(3, 21, r) for r in (1, 2, 4)] == [10, 5, 3]


def test_choice_and_number_other_answers():
    assert "位置 0" in ex.q1.evaluate("A").message
    assert ex.q2.evaluate(1).status == E.PASS
    r = ex.q2.evaluate(0)                                  # 不在已知错值里：判错，给通用说明
    assert r.status == E.FAIL and "还不对" in r.message


def test_q3_extra_wrong_implementations():
    def empty_when_short(x, kernel):                        # 句子太短时悄悄返回空数组
        x, k = np.asarray(x, float), np.asarray(kernel, float)
        return np.array([x[i:i + len(k)] @ k for i in range(len(x) - len(k) + 1)])

    def integer_features(x, kernel):                        # 转成整数，0.5 被截成 0
        x, k = np.asarray(x, int), np.asarray(kernel, float)
        if len(x) < len(k):
            raise ValueError("短")
        return np.array([x[i:i + len(k)] @ k for i in range(len(x) - len(k) + 1)])

    msg = _fails(ex.q3, empty_when_short, "第 5 个例子", "ValueError")
    assert "第 1 个例子" not in msg
    _fails(ex.q3, integer_features, "第 1 个例子")


def test_q4_extra_wrong_implementations():
    def bias_after_pooling(x, kernels, bias):
        n_k, w, _ = kernels.shape
        s = np.array([[np.sum(x[i:i + w] * kernels[k]) for k in range(n_k)] for i in range(len(x) - w + 1)])
        return np.maximum(s, 0).max(axis=0) + bias

    def scrambled_window(x, kernels, bias):                 # 窗口按“先维度后位置”展平，和核的顺序对不上
        n_k, w, _ = kernels.shape
        s = np.array([[x[i:i + w].T.reshape(-1) @ kernels[k].reshape(-1) + bias[k] for k in range(n_k)]
                      for i in range(len(x) - w + 1)])
        return np.maximum(s, 0).max(axis=0)

    def relu_after_pooling(x, kernels, bias):               # 不是错：ReLU 单调，先取最大再截断结果一样
        n_k, w, _ = kernels.shape
        s = np.array([[np.sum(x[i:i + w] * kernels[k]) + bias[k] for k in range(n_k)]
                      for i in range(len(x) - w + 1)])
        return np.maximum(s.max(axis=0), 0)

    _fails(ex.q4, bias_after_pooling, "第 2 个例子", "加偏置之前")     # 最大值为正时碰巧对
    _fails(ex.q4, scrambled_window, "第 1 个例子")
    assert ex.q4.evaluate(relu_after_pooling).status == E.PASS


def test_q5_extra_wrong_implementations():
    def stops_one_late(width, span, dilation=1):            # 用了 <=：正好够时还多加一层
        layers = 1
        while 1 + layers * (width - 1) * dilation <= span:
            layers += 1
        return layers

    def half_span(width, span, dilation=1):                  # 以为每层两边各长 w − 1
        return max(1, -(-(span - 1) // (2 * (width - 1) * dilation)))

    _fails(ex.q5, stops_one_late, "第 1 个例子", "应为 10")
    _fails(ex.q5, half_span, "第 1 个例子")
    assert ex.q5.evaluate(lambda w, s, dilation=1: float(ex.q5.reference(w, s, dilation))).status == E.PASS
