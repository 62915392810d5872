"""functional：已知数值（课文）、性质（softmax 和为 1）、极端输入的稳定性、错误信息。"""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from nlpbook import functional as F

finite = st.floats(-5000, 5000, allow_nan=False)


def test_sigmoid_table_of_section_3_2():
    assert np.allclose(F.sigmoid([-2, -1, 0, 1, 2]).round(3), [0.119, 0.269, 0.5, 0.731, 0.881])


def test_softmax_cbow_example_section_7_3():
    """分数 2, 0, 1：exp 之和 e²+1+e = 11.107，概率 0.665, 0.090, 0.245，损失 -ln 0.665 = 0.408。"""
    p = F.softmax([2, 0, 1])
    assert math.isclose(math.exp(2) + 1 + math.e, 11.107, abs_tol=5e-4)
    assert np.allclose(p.round(3), [0.665, 0.090, 0.245])
    assert round(F.cross_entropy([2, 0, 1], 0), 3) == 0.408


def test_bce_loss_table_section_4_2():
    assert np.allclose(F.binary_cross_entropy([0.1, 0.5, 0.9], [1, 1, 1]).round(3), [2.303, 0.693, 0.105])


@given(arrays(float, st.integers(1, 8), elements=finite))
def test_softmax_is_a_distribution(z):
    p = F.softmax(z)
    assert np.all(p >= 0) and math.isclose(p.sum(), 1.0, rel_tol=1e-9)


@given(arrays(float, st.integers(1, 6), elements=finite), st.floats(0.05, 20))
def test_softmax_shift_invariant_and_temperature(z, t):
    assert np.allclose(F.softmax(z, t), F.softmax(z + 123.0, t))
    p = F.softmax(z, t)
    ok = p > 1e-300
    assert np.allclose(F.log_softmax(z / t)[ok], np.log(p[ok]), atol=1e-6)


@given(finite)
def test_sigmoid_symmetry_and_bce_logits_match(z):
    assert math.isclose(F.sigmoid(z) + F.sigmoid(-z), 1.0, rel_tol=1e-12)
    p = F.sigmoid(z)
    # 从概率算 −ln p 时，p 本身的舍入（约 1e-16）相对于 1 − p 是 1e-16 / (1 − p)：p 离 1 不到 1e-10 时，
    # 这个误差就超过 1e-6（例如 z = 27.37 时两者相对差 2e-5）——那正是要用 logits 版的原因，不是 bug
    if 1e-12 < p < 1 - 1e-9:
        assert math.isclose(F.binary_cross_entropy(p, 1), F.binary_cross_entropy(logits=z, y=1), rel_tol=1e-6)


def test_extreme_inputs_no_nan_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.all(np.isfinite(F.softmax([1000.0, -1000.0, 0.0])))
        assert F.sigmoid(-3000) == 0.0 and F.sigmoid(3000) == 1.0
        assert np.allclose(F.binary_cross_entropy(logits=[-3000.0, 3000.0], y=[1, 0]), [3000, 3000])
        assert np.all(np.isfinite(F.log_softmax([[5000.0, -5000.0]])))


def test_softmax_axis_and_cross_entropy_batch():
    z = np.array([[2.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    assert np.allclose(F.softmax(z, axis=1).sum(axis=1), 1)
    assert np.allclose(F.softmax(z.T, axis=0), F.softmax(z, axis=1).T)
    assert np.allclose(F.cross_entropy(z, np.array([0, 2])), [0.40760596, math.log(3)])


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(z=[1, 2], temperature=0), ValueError, "temperature 必须 > 0"),
    (dict(z=[1, 2], temperature=-1), ValueError, "temperature"),
    (dict(z=[1, float("nan")]), ValueError, "NaN"),
    (dict(z=3.0), ValueError, "标量"),
    (dict(z=[]), ValueError, "候选数不能为 0"),
    (dict(z="abc"), TypeError, "数值"),
])
def test_softmax_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        F.softmax(**kwargs)


def test_cross_entropy_and_bce_errors():
    with pytest.raises(ValueError, match="0..2"):
        F.cross_entropy([1, 2, 3], 3)
    with pytest.raises(TypeError, match="整数"):
        F.cross_entropy([1, 2, 3], 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        F.binary_cross_entropy(1.5, 1)
    with pytest.raises(TypeError, match="只给"):
        F.binary_cross_entropy(0.5, 1, logits=0.0)
