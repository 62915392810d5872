"""第 4 章练习的补充检查：模块里的已知错误之外，再拿几种真实会犯的错误试一试检查器，并核对课文的数。"""
import math

import numpy as np

from nlpbook.exercises import ch04 as ex
from nlpbook.linear import gradient, loss
from _exercise_checks import fails as _fails


# ---- 填数题与选择题 ------------------------------------------------------------
def test_q1_expected_is_the_gradient_of_the_package_and_other_values_fail():
    g, _ = gradient(np.zeros(1), 0.0, np.array([[1.0]]), np.array([0]))
    assert math.isclose(g[0], ex.q1.expected)
    msg = _fails(ex.q1, 0.45, "你填的是 0.45")
    assert "0.5" not in msg, "没请求答案时不能说出应得的值"
    _fails(ex.q1, [0.5, 0.5], "形状")


def test_q2_option_that_does_not_exist_and_the_numbers_behind_the_answer():
    _fails(ex.q2, "D", "没有选项")
    w = np.array([5.0])
    assert round(loss(w, 0.0, np.array([[1.0]]), np.array([1])), 3) == 0.007


# ---- q3 ----------------------------------------------------------------------
def test_q3_math_exp_in_a_loop_overflows():
    def my_sigmoid(z):
        return np.array([1 / (1 + math.exp(-v)) for v in np.ravel(z)]).reshape(np.shape(z))
    _fails(ex.q3, my_sigmoid, "超大的 |z|", "OverflowError")


def test_q3_rounded_too_early():
    def my_sigmoid(z):
        return np.round(1 / (1 + np.exp(-np.asarray(z, dtype=float))), 3)
    _fails(ex.q3, my_sigmoid, "sigmoid 表")


def test_q3_plain_formula_is_accepted_because_it_never_gives_nan():
    """1 / (1 + e^(−z)) 在 z = −1000 时是 1 / inf = 0：有溢出警告，但值是对的。"""
    def my_sigmoid(z):
        return 1 / (1 + np.exp(-z))
    assert ex.q3.evaluate(my_sigmoid).passed


# ---- q4 ----------------------------------------------------------------------
def test_q4_labels_swapped_inside_the_formula():
    def my_bce(p, y):
        return -(y * np.log(1 - p) + (1 - y) * np.log(p))
    _fails(ex.q4, my_bce, "损失表")


def test_q4_python_if_on_arrays():
    def my_bce(p, y):
        return -np.log(p) if y == 1 else -np.log(1 - p)
    _fails(ex.q4, my_bce, "损失表", "ValueError")


def test_q4_table_of_the_chapter():
    assert np.allclose(np.round(ex._bce_ref([0.1, 0.5, 0.9], [1, 1, 1]), 3), [2.303, 0.693, 0.105])
    assert round(float(ex._bce_ref([0.525], [1])[0]), 3) == 0.644


# ---- q5 ----------------------------------------------------------------------
def test_q5_bias_gradient_from_the_already_updated_weights():
    def my_sgd_step(w, b, X, y, lr):
        p = 1 / (1 + np.exp(-(X @ w + b)))
        w = w - lr * X.T @ (p - y) / len(y)
        p = 1 / (1 + np.exp(-(X @ w + b)))             # 用新的 w 重新算了 p
        return w, b - lr * np.mean(p - y)
    _fails(ex.q5, my_sgd_step, "第 1 个例子", "第 1 项")


def test_q5_divided_by_the_number_of_features():
    def my_sgd_step(w, b, X, y, lr):
        r = 1 / (1 + np.exp(-(X @ w + b))) - y
        return w - lr * X.T @ r / X.shape[1], b - lr * r.sum() / X.shape[1]
    _fails(ex.q5, my_sgd_step, "X 不是方阵")


def test_q5_worked_step_of_the_chapter():
    w, b = ex._step_ref(np.array([0.0]), 0.0, np.array([[1.0]]), np.array([1]), 0.2)
    assert np.allclose(w, [0.1]) and math.isclose(b, 0.1)
