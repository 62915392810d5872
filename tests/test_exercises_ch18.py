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


# ---- q14：实验——一个新候选走一遍选择规则 ------------------------------------------------------
def _answer14(lr, f1, lo, hi, prediction="A"):
    return {"prediction": prediction, "setting": lr, "result": {"val_f1": f1, "lo": lo, "hi": hi}}


def _run14(source, lr, *edits):
    """照 notebook 那样执行起始代码（lr_14 换成 lr，再做 edits 里的文字替换），返回它交上来的 answer_14。"""
    src = source.replace("lr_14 = None", f"lr_14 = {lr!r}", 1)
    for old, new in edits:
        assert old in src, old
        src = src.replace(old, new)
    ns = {"np": np, "ex": ex}
    exec(src, ns)
    return ns["answer_14"]


def test_selection_experiment_setting_must_be_a_new_learning_rate_inside_the_grid():
    for bad in ("0.1", True, float("inf"), (0.1,)):
        _fails(ex.q14, _answer14(bad, 0.85, -0.004, 0.01), "学习率要是一个数")
    for bad in (0.05, 0.5, 1, 0.01):
        _fails(ex.q14, _answer14(bad, 0.85, -0.004, 0.01), "0.05 与 0.5 之间")
    _fails(ex.q14, _answer14(0.2, 0.85, -0.004, 0.01), "记录里已经有了")


def test_selection_experiment_band_comes_from_the_record():
    rec = ex._selection_record()
    assert rec["lrs"] == (0.05, 0.2, 0.5) and rec["top_lr"] == 0.2 and round(rec["top"], 3) == 0.847
    band = ex.q14.band(0.1)
    assert band["val_f1"] == pytest.approx((rec["f1"][0.05] - 0.008, rec["f1"][0.2] + 0.008))
    assert band["lo"][0] < band["val_f1"][0] - rec["top"] < band["hi"][0]
    assert band["lo"][1] < band["val_f1"][1] - rec["top"] < band["hi"][1]
    assert ex.q14.band(0.3)["val_f1"][0] == pytest.approx(rec["f1"][0.5] - 0.008)


def test_selection_experiment_rejects_numbers_from_another_experiment():
    rec = ex._selection_record()
    # 把记录里学习率 0.5 的均值当成 0.1 的交上来
    _fails(ex.q14, _answer14(0.1, rec["f1"][0.5], -0.02, -0.008), "val_f1 = 0.8302", "[0.8358, 0.8553]")
    # 交了训练集上的分数
    _fails(ex.q14, _answer14(0.1, 0.96, 0.1, 0.12), "val_f1 = 0.96")
    # 区间不像是和选中者比出来的（与多数类基线比：差 +0.5）
    _fails(ex.q14, _answer14(0.1, 0.85, 0.49, 0.52), "lo = 0.49")
    _fails(ex.q14, {"prediction": "A", "setting": 0.1, "result": 0.85}, "['hi', 'lo', 'val_f1']")


def test_selection_experiment_outcome_follows_the_written_rule():
    top = ex._selection_record()["top"]
    cases = {"A": (top + 0.003, -0.004, 0.010),        # 均值更高：成了新的最高者（区间含 0 也照样选它）
             "B": (top - 0.005, -0.011, 0.001),        # 分不开、下端不低于 −0.02：一样好，但同样简单，不换
             "C": (top - 0.012, -0.018, -0.005)}       # 分得开，更低
    for truth, (f1, lo, hi) in cases.items():
        assert ex.q14.outcome(0.3, {"val_f1": f1, "lo": lo, "hi": hi}) == truth
        for pred in "ABC":
            r = ex.q14.evaluate(_answer14(0.3, f1, lo, hi, pred))
            assert r.status == E.PASS and ex.q14.reasons[truth] in r.message
            assert (f"你的预测 {pred} 对了" in r.message) == (pred == truth)
    # 含 0 但下端低于 −0.02：“还说不清”，不算一样好
    assert ex.q14.outcome(0.45, {"val_f1": top - 0.004, "lo": -0.021, "hi": 0.013}) == "C"
    assert ex.q14.outcome(0.45, {"val_f1": top - 0.004, "lo": -0.02, "hi": 0.012}) == "B"


@pytest.mark.record
def test_selection_experiment_filled_answer_passes_and_is_chosen():
    ns = {"np": np, "ex": ex}
    exec(ex.q14.filled, ns)
    r = ex.q14.evaluate(ns["answer_14"])
    assert r.status == E.PASS, r.message
    assert ex.q14.outcome(0.1, ns["answer_14"]["result"]) == "A"


@pytest.mark.record
@pytest.mark.parametrize("lr, truth", [(0.3, None), (0.4, "C")])
def test_selection_experiment_band_holds_the_real_run(lr, truth):
    answer = _run14(ex.q14.stub, lr)
    answer["prediction"] = "C"
    r = ex.q14.evaluate(answer)
    assert r.status == E.PASS, r.message
    if truth:
        assert ex.q14.outcome(lr, answer["result"]) == truth


@pytest.mark.record
@pytest.mark.parametrize("lr, needle", [(0.1, "val_f1 = 0.786"), (0.3, "val_f1 = 0.8122")])
def test_selection_experiment_rejects_a_run_that_forgot_the_idf(lr, needle):
    answer = _run14(ex.q14.stub, lr, ("weights=idf_table", "weights=None"))      # 没乘 IDF：其实训练的是词袋
    answer["prediction"] = "A"
    _fails(ex.q14, answer, needle, "不在这个设置应有的范围")
