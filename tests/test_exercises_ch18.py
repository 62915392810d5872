"""第 18 章练习的检查器：18.5 节八个手算的数字、18.3 节的 [0.5, 0.5] 与 [0.333, 0.333]、18.2 节的宏 F1 0.333；
再拿练习模块里没有列出的错误答案和错误实现去考它，每个都必须被拒绝，而且说明要指出问题在哪里。"""
import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook.exercises import ch18 as ex
from _exercise_checks import fails as _fails


# ---- 课文的数字 -----------------------------------------------------------------------
def test_worked_numbers_of_section_18_5():
    assert np.array_equal(ex.q1.expected, [1, 0, 1, 0, 0, 0, 1])
    assert np.allclose(ex.q2.expected, (0.1, 0.525), atol=5e-4)
    assert ex.q3.expected == (1.0, 1.0, 2.25, 1.5)
    assert np.allclose(ex.q4.expected, [0.665, 0.090, 0.245], atol=5e-4)
    assert np.allclose(ex.q5.expected[0], [0.401, 0.198, 0.401], atol=5e-4)
    assert np.allclose(ex.q5.expected[1], [0.802, 1.198], atol=5e-4)
    assert np.allclose(ex.q6.expected, [[1, 0, 0], [0.330, 0.670, 0], [0.248, 0.248, 0.503]], atol=5e-4)
    assert ex.q7.expected[0] == "电影" and np.allclose(ex.q7.expected[2], [2 / 3, 1 / 3, 0])
    assert ex.q8.expected == (0.5, 0.5, 0.5)


def test_worked_numbers_of_sections_18_2_and_18_3():
    mask = np.array([True, True, False])
    assert np.allclose(ex.q11.reference(ex._SHORT, mask), [0.5, 0.5])               # 按真实长度 2 相除
    assert np.allclose(ex._mean_padded_len(ex._SHORT, mask), [1 / 3, 1 / 3])         # 错误地除以 3
    all_pos = [1] * 6
    assert ex.q12.reference(ex._Y_TOY, all_pos, [0, 1]).tolist() == [[0, 3], [0, 3]]
    assert round(ex.q13.reference(ex._Y_TOY, all_pos, [0, 1]), 3) == 0.333


# ---- 填数题、选择题：列表之外的错答 ----------------------------------------------------------
@pytest.mark.parametrize("q, answer, needle", [
    (ex.q1, [1, 0, 1, 0, 0, 0, 2], "第 6 项"),                    # “不”数了两次
    (ex.q1, [1, 0, 1, 0, 0, 1], "形状"),                          # 只写了六列
    (ex.q2, (0.2, 0.55), "第 0 项"),                              # 学习率当成 0.4
    (ex.q3, (1.0, 1.0, 2.25), "形状"),                            # 少填一项
    (ex.q4, [0.665, 0.245, 0.090], "第 1 项"),                    # 吃、买的顺序写反
    (ex.q5, ([0.401, 0.198, 0.401], [1.198, 0.802]), "你填的是"),  # 新表示的两维写反
    (ex.q6, np.full((3, 3), 1 / 3), "你填的是"),                   # 每格都填 1/3
    (ex.q7, ("音乐", [2 / 3, 1 / 3, 0], [2 / 3, 1 / 3, 0]), "第 0 项"),
    (ex.q8, (0.5, 1.0, 0.667), "第 1 项"),                        # 召回率当成 1
])
def test_number_exercises_reject_other_wrong_answers(q, answer, needle):
    _fails(q, answer, needle)


def test_number_exercises_accept_rounded_answers():
    assert ex.q2.evaluate((0.1, 0.525)).status == E.PASS
    assert ex.q5.evaluate(([0.401, 0.198, 0.401], [0.802, 1.198])).status == E.PASS
    assert ex.q7.evaluate(("电影", np.array([0.667, 0.333, 0.0]), [0.667, 0.333, 0.0])).status == E.PASS


def test_explain_and_choice():
    assert ex.q9.evaluate("随便写点什么").status == E.TODO and not ex.q9.graded
    _fails(ex.q10, "D", "没有选项")
    assert ex.q10.evaluate("b").status == E.PASS


# ---- q11：带 padding 的平均 -------------------------------------------------------------
def mean_no_raise(vectors, mask):                  # 全是 <PAD> 的一句得到 0/0 = NaN，而不是报错
    v, m = np.asarray(vectors, float), np.asarray(mask)
    return (v * m[..., None]).sum(axis=-2) / m.sum(axis=-1, keepdims=True)


def mean_single_sentence_only(vectors, mask):      # 只会算一句：一批时把所有句子混在一起平均
    v, m = np.asarray(vectors, float), np.asarray(mask)
    if not m.any():
        raise ValueError("没有真实 token")
    return v[m].mean(axis=0)


def mean_rejects_any_padding(vectors, mask):       # 有 <PAD> 就报错
    m = np.asarray(mask)
    if not m.all():
        raise ValueError("不支持 padding")
    return np.asarray(vectors, float).mean(axis=-2)


def test_masked_mean_must_raise_on_an_all_padding_sentence():
    _fails(ex.q11, mean_no_raise, "应当抛出 ValueError", "全是 <PAD>")


def test_masked_mean_rejects_mixing_the_sentences_of_a_batch():
    _fails(ex.q11, mean_single_sentence_only, "第 2 个例子", "形状")


def test_masked_mean_rejects_raising_on_ordinary_padding():
    _fails(ex.q11, mean_rejects_any_padding, "第 1 个例子", "报错 ValueError")


# ---- q12：混淆矩阵 ---------------------------------------------------------------------
def cm_sets_instead_of_counts(y_true, y_pred, labels):
    idx = {c: i for i, c in enumerate(labels)}
    C = np.zeros((len(labels), len(labels)), dtype=int)
    for t, p in zip(y_true, y_pred):
        C[idx[t], idx[p]] = 1                       # 只记“出现过”，没有累加
    return C


def cm_labels_as_indices(y_true, y_pred, labels):   # 直接拿标签值当行列号
    C = np.zeros((len(labels), len(labels)), dtype=int)
    for t, p in zip(y_true, y_pred):
        C[t, p] += 1
    return C


def test_confusion_matrix_rejects_not_accumulating():
    _fails(ex.q12, cm_sets_instead_of_counts, "第 1 个例子", "第 (1, 1) 项")


def test_confusion_matrix_rejects_label_values_used_as_indices():
    _fails(ex.q12, cm_labels_as_indices, "第 4 个例子", "[1, 0]")


# ---- q13：宏 F1 -------------------------------------------------------------------------
def _prf(y_true, y_pred, labels):
    t, p = np.asarray(y_true), np.asarray(y_pred)
    out = []
    for c in labels:
        tp = np.sum((t == c) & (p == c))
        prec = tp / np.sum(p == c) if np.sum(p == c) else 0.0
        rec = tp / np.sum(t == c) if np.sum(t == c) else 0.0
        out.append((prec, rec))
    return out


def f1_arithmetic_mean(y_true, y_pred, labels):     # F1 写成 (P + R) / 2
    return float(np.mean([(p + r) / 2 for p, r in _prf(y_true, y_pred, labels)]))


def f1_only_true_classes(y_true, y_pred, labels):   # 只平均 y_true 里出现过的类别
    present = [c for c in labels if c in set(y_true)]
    return float(np.mean([2 * p * r / (p + r) if p + r else 0.0 for p, r in _prf(y_true, y_pred, present)]))


def f1_percent(y_true, y_pred, labels):
    f1s = [2 * p * r / (p + r) if p + r else 0.0 for p, r in _prf(y_true, y_pred, labels)]
    return 100 * float(np.mean(f1s))


def test_macro_f1_rejects_the_arithmetic_mean_of_p_and_r():
    _fails(ex.q13, f1_arithmetic_mean, "第 1 个例子", "全判好评")


def test_macro_f1_rejects_leaving_out_a_class_that_never_occurs():
    _fails(ex.q13, f1_only_true_classes, "第 6 个例子", "从没出现的类别")


def test_macro_f1_rejects_percentages():
    _fails(ex.q13, f1_percent, "第 1 个例子")
