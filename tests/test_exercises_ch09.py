"""第 9 章练习的检查器：课文的数字，以及模块里没有列出的错误实现也会被拒绝。"""
import numpy as np

from nlpbook import exercises as E
from nlpbook.exercises import ch09 as ex
from nlpbook.rnn import lstm_memory_update, lstm_output
from _exercise_checks import fails as _fails, solution as _solution


def test_worked_numbers_of_the_chapter():
    assert np.isclose(lstm_memory_update(0.8, f=0.9, i=0.2, g=0.5), 0.82)
    assert round(lstm_output(0.82, 0.7), 3) == 0.473
    small, mid, large = ex.q2.expected
    assert (f"{small:.3g}", f"{mid:.3g}", f"{large:.3g}") == ("7.63e-07", "0.0973", "0.654")
    assert np.isclose(ex.q3.reference(*ex.q3.cases[0].args), 0.82)


def test_choice_and_number_other_answers():
    assert "输出门" in ex.q1.evaluate("B").message
    assert ex.q2.evaluate([7.6e-7, 0.097, 0.654]).status == E.PASS       # 列表、三位有效数字都行
    r = ex.q2.evaluate((0.4, 0.72, 0.792))                               # 只走了一步
    assert r.status == E.FAIL and "第 0 项" in r.message
    assert "形状" in ex.q2.evaluate(0.0973).message                       # 只填了一个数


def test_q3_extra_wrong_implementations():
    def tanh_memory(c_prev, f, i, g):                    # 把输出的 tanh 用到了记忆上
        return np.tanh(f * c_prev + i * g)

    def output_instead(c_prev, f, i, g):                 # 返回了 o⊙tanh(c) 的样子（拿 f 当输出门）
        return f * np.tanh(f * c_prev + i * g)

    _fails(ex.q3, tanh_memory, "第 1 个例子", "0.82")
    _fails(ex.q3, output_instead, "第 1 个例子")


def test_q4_extra_wrong_implementations():
    ref = _solution(ex.q4)

    def swapped_outputs(x, h_prev, c_prev, params):
        h, c = ref(x, h_prev, c_prev, params)
        return c, h

    def h_only(x, h_prev, c_prev, params):
        return ref(x, h_prev, c_prev, params)[0]

    def concat_axis0(x, h_prev, c_prev, params):         # 一维时碰巧对，一批时报错
        W, b = params["W"], params["b"]
        H = W.shape[1] // 4
        a = np.concatenate([x, h_prev], axis=0) @ W + b
        f, i = 1 / (1 + np.exp(-a[..., :H])), 1 / (1 + np.exp(-a[..., H:2 * H]))
        g, o = np.tanh(a[..., 2 * H:3 * H]), 1 / (1 + np.exp(-a[..., 3 * H:]))
        c = f * c_prev + i * g
        return o * np.tanh(c), c

    _fails(ex.q4, swapped_outputs, "第 1 个例子")
    _fails(ex.q4, h_only, "形状")
    msg = _fails(ex.q4, concat_axis0, "第 3 个例子", "一批两句", "报错")
    assert "第 1 个例子" not in msg


def test_q5_extra_wrong_implementations():
    def row_slices(x, h_prev, params):                    # 用 [:H] 切片：一维时对，一批时切成了行
        H = params["Wh"].shape[0]
        gx = x @ params["Wx"] + params["bx"]
        gh = h_prev @ params["Wh"] + params["bh"]
        sig = lambda s: 1 / (1 + np.exp(-s))  # noqa: E731
        r, u = sig(gx[:H] + gh[:H]), sig(gx[H:2 * H] + gh[H:2 * H])
        n = np.tanh(gx[2 * H:] + r * gh[2 * H:])
        return (1 - u) * n + u * h_prev

    def sigmoid_candidate(x, h_prev, params):
        H = params["Wh"].shape[0]
        gx = x @ params["Wx"] + params["bx"]
        gh = h_prev @ params["Wh"] + params["bh"]
        sig = lambda s: 1 / (1 + np.exp(-s))  # noqa: E731
        r, u = sig(gx[..., :H] + gh[..., :H]), sig(gx[..., H:2 * H] + gh[..., H:2 * H])
        n = sig(gx[..., 2 * H:] + r * gh[..., 2 * H:])
        return (1 - u) * n + u * h_prev

    msg = _fails(ex.q5, row_slices, "第 3 个例子", "一批两句")
    assert "第 1 个例子" not in msg
    _fails(ex.q5, sigmoid_candidate, "第 1 个例子")
