"""第 8 章练习的检查器：课文的数字、参考答案，以及模块里没有列出的错误实现也会被拒绝。

通用的检查（题量、notebook 单元、每个已知错误都有自己的说明）在 test_exercise_notebooks.py 里；
这里补上更多“真的会写错”的实现，确认检查器不会放过它们，并且说明指向了出错的例子。
"""
import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook import rnn_classifier as RC
from nlpbook.exercises import ch08 as ex
from nlpbook.rnn import decay_influence, run_rnn, toy_record
from _exercise_checks import fails as _fails


# ---- 课文的数字 ---------------------------------------------------------------------
def test_worked_numbers_of_the_chapter():
    assert toy_record([1, 0, 2]) == [1, 0.5, 2.25] and toy_record([2, 0, 1]) == [2, 1, 1.5]
    assert toy_record([1, 0, 2], decay=1)[-1] == toy_record([2, 0, 1], decay=1)[-1] == 3   # 练习 2
    assert decay_influence(0.5, 6) > 0.01 > decay_influence(0.5, 7)                      # 练习 3
    first_step = ex.q5.reference(*ex.q5.cases[1].args)                                    # 8.3 节手算的一步
    assert np.allclose(first_step.round(3), [-0.129, 0.178])


# ---- 选择与填数 ---------------------------------------------------------------------
def test_choice_answers_and_reasons():
    assert ex.q1.evaluate("b").status == E.PASS            # 小写也认
    assert "28 个数" in ex.q1.evaluate("A").message
    assert "和 3" in ex.q2.evaluate("C").message
    assert "没见过的评论" in ex.q7.evaluate("A").message
    assert "没有选项" in ex.q7.evaluate("D").message
    assert ex.q7.evaluate(None).status == E.TODO


def test_number_exercise_other_wrong_values():
    assert ex.q3.evaluate(7.0).status == E.PASS
    for value in (5, 7.5):                                  # 不在已知错值里：判错，且不说出答案
        r = ex.q3.evaluate(value)
        assert r.status == E.FAIL and "还不对" in r.message and "7" not in r.message.replace("7.5", "")


# ---- q4：记事本 ----------------------------------------------------------------------
def test_q4_extra_wrong_implementations():
    def with_start(features, decay=0.5):                    # 把初值 0 也放进了结果
        rec, out = 0.0, [0.0]
        for v in features:
            rec = rec * decay + v
            out.append(rec)
        return out

    def decay_on_feature(features, decay=0.5):              # 系数乘在了当前词上
        rec, out = 0.0, []
        for v in features:
            rec = rec + decay * v
            out.append(rec)
        return out

    def wrong_default(features, decay=1.0):                 # 默认系数写错
        rec, out = 0.0, []
        for v in features:
            rec = rec * decay + v
            out.append(rec)
        return out

    _fails(ex.q4, with_start, "形状", "猫追狗")
    _fails(ex.q4, decay_on_feature, "第 1 个例子")
    _fails(ex.q4, wrong_default, "第 1 个例子", "猫追狗")
    assert ex.q4.evaluate(lambda f, decay=0.5: np.array(toy_record(f, decay))).status == E.PASS   # 数组也行


# ---- q5：一步 RNN ---------------------------------------------------------------------
def test_q5_extra_wrong_implementations():
    def column_convention(x, h_prev, Wx, Wh, b):            # 课文写法：一维时碰巧对，一批时报错
        return np.tanh(Wx.T @ x + Wh.T @ h_prev + b)

    def relu_state(x, h_prev, Wx, Wh, b):
        return np.maximum(x @ Wx + h_prev @ Wh + b, 0)

    def bias_after_tanh(x, h_prev, Wx, Wh, b):
        return np.tanh(x @ Wx + h_prev @ Wh) + b

    msg = _fails(ex.q5, column_convention, "第 4 个例子", "一批两句", "报错")
    assert "第 1 个例子" not in msg
    _fails(ex.q5, relu_state, "第 1 个例子")
    _fails(ex.q5, bias_after_tanh, "第 1 个例子")


# ---- q6：读完一整句 ---------------------------------------------------------------------
def test_q6_extra_wrong_implementations():
    def aliased(xs, Wx, Wh, b):                              # 原地更新同一个数组：每行都成了最后的状态
        h, out = np.zeros(Wh.shape[0]), []
        for x in xs:
            h[:] = np.tanh(x @ Wx + h @ Wh + b)
            out.append(h)
        return np.array(out)

    def ones_start(xs, Wx, Wh, b):
        h, out = np.ones(Wh.shape[0]), []
        for x in xs:
            h = np.tanh(x @ Wx + h @ Wh + b)
            out.append(h)
        return np.array(out)

    _fails(ex.q6, aliased, "第 2 个例子", "猫追狗")
    _fails(ex.q6, ones_start, "第 1 个例子")
    ok = lambda xs, Wx, Wh, b: list(run_rnn(xs, None, {"Wx": Wx, "Wh": Wh, "b": b}))  # noqa: E731 行的列表也行
    assert ex.q6.evaluate(ok).status == E.PASS


# ---- 练习 7 的演示：接着训练与一口气训练完全相同 ------------------------------------------
def test_resume_training_equals_training_longer():
    rng = np.random.default_rng(0)
    seqs = [list(rng.integers(1, 9, size=int(rng.integers(1, 6)))) for _ in range(20)]
    y = rng.integers(0, 2, 20)
    kw = dict(dim=4, hidden=5, lr=0.02, batch_size=6, seed=3, val_ids=seqs, val_y=y)
    three = RC.train_rnn_classifier(seqs, y, 9, epochs=3, **kw)
    two = RC.train_rnn_classifier(seqs, y, 9, epochs=2, **kw)
    before = {k: v.copy() for k, v in two.params.items()}
    resumed = RC.train_rnn_classifier(seqs, y, 9, epochs=1, resume=two, **kw)
    assert all(np.array_equal(three.params[k], resumed.params[k]) for k in three.params)
    assert resumed.history == three.history and [r["epoch"] for r in resumed.history] == [1, 2, 3]
    assert all(np.array_equal(before[k], two.params[k]) for k in before) and len(two.history) == 2
    with pytest.raises(ValueError, match="resume"):
        RC.train_rnn_classifier(seqs, y, 9, epochs=1, resume=RC.RNNClassifier(two.params), **kw)
