"""metrics：准确率、混淆矩阵、每类与宏平均的 P/R/F1；分母为零的约定；与逐个数数的朴素实现一致；清楚的报错。"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import metrics as M
from nlpbook.tagging import entity_prf


def test_docstring_example():
    """y_true [1,0,1,1]、y_pred [1,1,1,0]：对 2 个 → 准确率 0.5；
    混淆矩阵 行=真实、列=预测：真实 0 被判成 1 一次；真实 1 判对 2 次、判成 0 一次 → [[0,1],[1,2]]；
    类别 1：P = 2/3、R = 2/3、F1 = 2/3；类别 0：没有一次判对 → 0、0、0；宏 F1 = 1/3。"""
    t, p = [1, 0, 1, 1], [1, 1, 1, 0]
    assert M.accuracy(t, p) == 0.5
    assert M.confusion_matrix(t, p).tolist() == [[0, 1], [1, 2]]
    r = M.per_class_prf(t, p)
    assert r["labels"] == [0, 1]
    assert np.allclose(r["precision"], [0, 2 / 3]) and np.allclose(r["recall"], [0, 2 / 3])
    assert np.allclose(r["f1"], [0, 2 / 3]) and r["support"].tolist() == [1, 3]
    assert round(M.macro_prf(t, p)["f1"], 3) == 0.333


def test_text_numbers_of_16_4_as_one_class():
    """第 16.4 节的 8/10、8/12：把“抽到的实体”看成预测为正类，结果与 entity_prf 相同（P 0.8、R 0.667、F1 0.727）。"""
    # 20 个样本：真实正类 12 个，预测正类 10 个，其中 8 个重合
    y_true = [1] * 12 + [0] * 8
    y_pred = [1] * 8 + [0] * 4 + [1] * 2 + [0] * 6
    r = M.per_class_prf(y_true, y_pred)
    assert round(r["precision"][1], 3) == 0.8 and round(r["recall"][1], 3) == 0.667 and round(r["f1"][1], 3) == 0.727
    gold = [[("X", i, i + 1) for i in range(12)]]
    pred = [[("X", i, i + 1) for i in list(range(8)) + [12, 13]]]
    e = entity_prf(gold, pred)
    assert np.isclose(e["f1"], r["f1"][1]) and np.isclose(e["precision"], r["precision"][1])


def test_majority_baseline_is_unmasked_by_macro_f1():
    """全判多数类：准确率 0.9，但少数类的 P 分母为零（从没被预测）→ 记 0，宏 F1 只有约 0.474。"""
    y_true = [0] * 90 + [1] * 10
    y_pred = [0] * 100
    assert M.accuracy(y_true, y_pred) == 0.9
    r = M.per_class_prf(y_true, y_pred)
    assert r["precision"][1] == 0 and r["recall"][1] == 0 and r["f1"][1] == 0
    assert round(M.macro_prf(y_true, y_pred)["f1"], 3) == round((2 * 0.9 / 1.9) / 2, 3) == 0.474


def test_zero_denominator_conventions():
    # 类别 2 在真实标签里没出现，只被预测过：召回率分母为零 → 0；精确率 0/1 = 0
    r = M.per_class_prf([0, 1], [0, 2], labels=[0, 1, 2])
    assert r["precision"].tolist() == [1.0, 0.0, 0.0]
    assert r["recall"].tolist() == [1.0, 0.0, 0.0]
    assert r["support"].tolist() == [1, 1, 0]
    # 明确给出、却一次都没出现的类别也参与宏平均（三项都是 0）
    assert M.macro_prf([0, 1], [0, 1], labels=[0, 1, 2])["f1"] == pytest.approx(2 / 3)
    assert M.macro_prf([0, 1], [0, 1])["f1"] == 1.0
    assert not np.isnan(M.per_class_prf([0, 0], [1, 1])["f1"]).any()


def test_string_and_bool_labels_and_label_order():
    t, p = ["好评", "差评", "好评"], ["好评", "好评", "好评"]
    cm = M.confusion_matrix(t, p, labels=["差评", "好评"])
    assert cm.tolist() == [[0, 1], [0, 2]]
    assert M.confusion_matrix(t, p, labels=["好评", "差评"]).tolist() == [[2, 0], [1, 0]]
    assert M.accuracy(np.array([True, False]), np.array([1, 0])) == 1.0


def _naive(t, p, labels):
    """逐个数数的朴素实现，用来对照。"""
    out = {"precision": [], "recall": [], "f1": []}
    for c in labels:
        tp = sum(1 for a, b in zip(t, p) if a == c and b == c)
        npred = sum(1 for b in p if b == c)
        nact = sum(1 for a in t if a == c)
        pr = tp / npred if npred else 0.0
        rc = tp / nact if nact else 0.0
        out["precision"].append(pr)
        out["recall"].append(rc)
        out["f1"].append(2 * pr * rc / (pr + rc) if pr + rc else 0.0)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40))
def test_properties_against_naive_counting(pairs):
    t = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    labels = [0, 1, 2, 3]
    cm = M.confusion_matrix(t, p, labels)
    assert cm.sum() == len(t)
    assert cm.sum(axis=1).tolist() == [t.count(c) for c in labels]       # 行和 = 真实各类数
    assert cm.sum(axis=0).tolist() == [p.count(c) for c in labels]       # 列和 = 预测各类数
    assert np.isclose(np.trace(cm) / len(t), M.accuracy(t, p))
    r, ref = M.per_class_prf(t, p, labels), _naive(t, p, labels)
    for k in ("precision", "recall", "f1"):
        assert np.allclose(r[k], ref[k])
        assert np.all((r[k] >= 0) & (r[k] <= 1))
    assert np.isclose(M.macro_prf(t, p, labels)["f1"], np.mean(ref["f1"]))
    # 把预测换成真实标签，全部指标都是 1（对出现过的类别）
    seen = sorted(set(t))
    assert M.macro_prf(t, t, seen) == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_bad_inputs():
    with pytest.raises(ValueError, match="一样长"):
        M.accuracy([1, 0], [1])
    with pytest.raises(ValueError, match="不能为空"):
        M.accuracy([], [])
    with pytest.raises(TypeError, match="阈值"):
        M.accuracy([1, 0], [0.7, 0.2])
    with pytest.raises(ValueError, match="一维"):
        M.confusion_matrix([[1, 0]], [[1, 0]])
    with pytest.raises(TypeError, match="字符串"):
        M.accuracy("10", "10")
    with pytest.raises(ValueError, match="不在 labels"):
        M.confusion_matrix([0, 1, 2], [0, 1, 1], labels=[0, 1])
    with pytest.raises(ValueError, match="重复"):
        M.per_class_prf([0, 1], [0, 1], labels=[0, 1, 1])
    with pytest.raises(ValueError, match="labels 不能为空"):
        M.macro_prf([0], [0], labels=[])
    with pytest.raises(TypeError, match="混有字符串"):
        M.confusion_matrix([0, "a"], [0, "a"])
    with pytest.raises(TypeError, match="统一"):
        M.accuracy([0, 1], ["0", "1"])
