"""第 13 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import numpy as np
import pytest

from nlpbook.attention import scaled_dot_product_attention
from nlpbook.exercises import ch13 as ex
from _exercise_checks import fails as _fails, passes as _passes

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# ---- 题目里的数字 -------------------------------------------------------------
def test_worked_numbers_match_the_course_functions():
    out, w = scaled_dot_product_attention(X, X, V)
    assert np.allclose(np.round(out[0], 3), [0.802, 1.198])            # 13.3 节，q1 的向量
    assert np.allclose(out[1], ex.q2.expected, atol=ex.q2.tol)         # 练习 2：位置 B
    assert np.allclose(np.round(w[1], 3), [0.198, 0.401, 0.401])


def test_q4_answer_matches_the_shipped_model():
    from nlpbook.tiny_transformer import load_pretrained
    sentence = "\n这家酒店的服务很好，房间也很干净，下次还会再来。"
    row = np.array(load_pretrained().attention_maps(sentence))[1, 3][sentence.index("服")]
    assert int(row.argmax()) == 0 and round(float(row[0]), 2) == 0.83    # 开头的换行，约 0.83
    assert row[sentence.index("服")] < 0.01 and round(float(row[sentence.index("服") - 1]), 2) == 0.15


# ---- 选择题与填数题 ------------------------------------------------------------
@pytest.mark.parametrize("q", [ex.q1, ex.q4], ids=lambda q: q.id)
def test_choice_rejects_a_letter_that_is_not_an_option(q):
    _fails(q, "E", "没有选项")


def test_q2_rejects_the_weights_and_a_single_number():
    _fails(ex.q2, [0.198, 0.401, 0.401], "形状")      # 填了权重，不是输出
    _fails(ex.q2, 0.599, "形状")
    _fails(ex.q2, [0.401, 0.198], "还不对")           # 另一个错值：没有说明也要判错


# ---- q5：缩放点积注意力 ---------------------------------------------------------
def test_q5_forgot_to_multiply_by_v():
    _fails(ex.q5, lambda q, k, v: _softmax(q @ k.T / np.sqrt(q.shape[-1])), "形状")


def test_q5_hard_coded_sqrt2_only_fits_the_worked_example():
    msg = _fails(ex.q5, lambda q, k, v: _softmax(q @ k.T / np.sqrt(2)) @ v, "交叉注意力")
    assert "第 1 个例子" not in msg


def test_q5_scaled_by_the_number_of_keys():
    _fails(ex.q5, lambda q, k, v: _softmax(q @ k.T / np.sqrt(k.shape[0])) @ v, "结果不对")


def test_q5_batched_matmul_version_is_fine():
    _passes(ex.q5, lambda q, k, v: _softmax(np.einsum("id,jd->ij", q, k) / np.sqrt(q.shape[-1])) @ v)


# ---- q6：遮罩 --------------------------------------------------------------------
def test_q6_large_negative_instead_of_error_on_an_empty_row():
    def fn(q, k, v, mask):
        return _softmax(np.where(mask, q @ k.T / np.sqrt(q.shape[-1]), -1e9)) @ v
    _fails(ex.q6, fn, "ValueError", "全被遮住")


def test_q6_ignores_the_mask():
    _fails(ex.q6, lambda q, k, v, mask: _softmax(q @ k.T / np.sqrt(q.shape[-1])) @ v, "padding")


def test_q6_raises_whenever_anything_is_masked():
    def fn(q, k, v, mask):
        if not mask.all():
            raise ValueError("有位置被遮住")
        return _softmax(q @ k.T / np.sqrt(q.shape[-1])) @ v
    _fails(ex.q6, fn, "报错 ValueError")


# ---- q7：拆 head -------------------------------------------------------------------
def test_q7_transposed_to_the_wrong_axis_order():
    # (T, n_heads, d_head) → (n_heads, d_head, T)：轴的顺序写错了
    _fails(ex.q7, lambda x, h: x.reshape(x.shape[0], h, x.shape[1] // h).transpose(1, 2, 0), "形状")


def test_q7_fortran_order_reshape():
    def fn(x, h):
        T, d = x.shape
        if d % h:
            raise ValueError("不能整除")
        return np.swapaxes(x.reshape(T, h, d // h, order="F"), 0, 1)
    _fails(ex.q7, fn, "结果不对")


def test_q7_a_list_of_heads_is_accepted():
    def fn(x, h):
        if x.shape[1] % h:
            raise ValueError("不能整除")
        return np.split(x, h, axis=1)          # 列表里是 n_heads 个 (T, d_head) 数组：值和形状都对
    _passes(ex.q7, fn)


# ---- q8：LayerNorm -----------------------------------------------------------------
def test_q8_hard_coded_eps_ignores_the_argument():
    def fn(x, gamma, beta, eps=1e-5):
        mu, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
        return gamma * (x - mu) / np.sqrt(var + 1e-5) + beta
    msg = _fails(ex.q8, fn, "eps 换成 0.1")
    assert "第 5 个例子" in msg


def test_q8_only_centres():
    _fails(ex.q8, lambda x, g, b, eps=1e-5: g * (x - x.mean(axis=-1, keepdims=True)) + b, "13.8 节的 [1, 3]")


def test_q8_axis_1_breaks_on_a_batch():
    def fn(x, gamma, beta, eps=1e-5):
        mu, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
        return gamma * (x - mu) / np.sqrt(var + eps) + beta
    msg = _fails(ex.q8, lambda x, g, b, eps=1e-5: fn(np.atleast_2d(x), g, b, eps).reshape(x.shape), "结果不对")
    assert "第 1 个例子" not in msg


# ---- q9：实验题，关掉一个 head ---------------------------------------------------------
def _q9_run(setting, prediction='"B"'):
    """按 notebook 里的起始代码跑一次实验（设置换成 setting），返回交上来的字典。"""
    ns = {}
    exec("import numpy as np\n" + ex._head_cells(prediction, repr(setting)), ns)
    return ns["answer_9"]


def _q9_answer(setting, result, prediction="B"):
    return {"prediction": prediction, "setting": setting, "result": result}


@pytest.mark.record
def test_q9_filled_answer_passes():
    ns = {}
    exec("import numpy as np\n" + ex.q9.filled, ns)
    _passes(ex.q9, ns["answer_9"])


@pytest.mark.record
@pytest.mark.parametrize("setting", [(2, 4), (1, 3)])
def test_q9_band_holds_the_actual_run(setting):
    answer = _q9_run(setting)
    _passes(ex.q9, answer)
    lo, hi = ex.q9.band(setting)["result"]
    assert lo < answer["result"] < hi and hi / lo < 1.005


@pytest.mark.parametrize("setting", [(0, 1), (3, 1), (1, 5), (2, 0), "2, 4", "(2, 4)", True, float("nan"), 4,
                                     (1.0, 2), (True, 1), (2, 4, 1), {"layer": 2, "head": 4}])
def test_q9_rejects_settings_that_are_not_a_head(setting):
    msg = _fails(ex.q9, _q9_answer(setting, 90.0), "这个设置不行", "层是 1—2、头是 1—4")
    assert ex.q9.validate(setting) in msg


def test_q9_accepts_a_list_and_numpy_integers():
    assert ex.q9.validate([2, 4]) is None
    assert ex.q9.validate((np.int64(1), np.int32(2))) is None
    assert ex.q9.validate(np.array([2, 3])) is None


def test_q9_no_prediction_or_no_setting_is_not_an_attempt_yet():
    from nlpbook import exercises as E
    assert ex.q9.evaluate({"prediction": None, "setting": None, "result": None}).status == E.TODO
    assert ex.q9.evaluate({"prediction": "C", "setting": None, "result": None}).status == E.TODO
    assert ex.q9.evaluate({"prediction": "C", "setting": (2, 4), "result": None}).status == E.TODO
    _fails(ex.q9, {"prediction": "D", "setting": (2, 4), "result": 90.0}, "没有预测选项")


def _wrong_slice_perplexity(layer, head):
    """常见的错法：把 Wo 的列（输出的 32 维）置 0，而不是这个 head 对应的行。"""
    from nlpbook.tiny_transformer import lm_perplexity
    params = dict(ex._shipped_model().params)
    Wo = params[f"L{layer - 1}.Wo"].copy()
    Wo[:, (head - 1) * 32:head * 32] = 0
    params[f"L{layer - 1}.Wo"] = Wo
    return lm_perplexity(params, ex._val_ids())


@pytest.mark.record
def test_q9_band_rejects_plausibly_wrong_experiments():
    full = ex._ablated_perplexity(0, 0)
    heads = {(l, h): ex._ablated_perplexity(l, h) for l in (1, 2) for h in (1, 2, 3, 4)}
    # 没有真的关掉（交了完整模型的困惑度）
    msg = _fails(ex.q9, _q9_answer((2, 4), full), "不在这个设置应有的范围", "随包权重")
    assert f"{ex.q9.band((2, 4))['result'][0]:.4g}" in msg
    # 关错了 head：任何两个 head 的结果都落不进对方的范围（含层号、头号从 0 数差一位的情况）
    for a, va in heads.items():
        for b in heads:
            if a != b:
                _fails(ex.q9, _q9_answer(b, va), "不在这个设置应有的范围")
    # 置 0 的是列而不是行；交了平均损失（ln 困惑度）而不是困惑度
    _fails(ex.q9, _q9_answer((2, 4), _wrong_slice_perplexity(2, 4)), "不在这个设置应有的范围")
    _fails(ex.q9, _q9_answer((1, 1), float(np.log(heads[1, 1]))), "不在这个设置应有的范围")
    _fails(ex.q9, _q9_answer((1, 1), "119.7"), "有限的数")


@pytest.mark.record
def test_q9_outcome_and_reasons_match_the_shipped_model():
    full = ex._ablated_perplexity(0, 0)
    assert round(full, 1) == 83.6                                   # 本章最后一节的表：小 Transformer 83.6
    ratios = {(l, h): ex._ablated_perplexity(l, h) / full for l in (1, 2) for h in (1, 2, 3, 4)}
    # 参考答案里的说法：第 2 层各涨约 5%—10%，第 1 层头 3、头 4 约 17%—20%，头 1、头 2 四成多、到 120 左右
    assert all(1.045 < ratios[2, h] < 1.11 for h in (1, 2, 3, 4))
    assert all(1.165 < ratios[1, h] < 1.205 for h in (3, 4))
    assert all(1.4 < ratios[1, h] < 1.5 and 115 < ratios[1, h] * full < 125 for h in (1, 2))
    # 选项的边界离每个真实结果都不近：判定不会因为舍入翻过去
    assert all(abs(r - ex._LOT) > 0.04 and abs(r - ex._LITTLE) > 0.02 for r in ratios.values())
    for setting, truth in (((1, 1), "C"), ((1, 2), "C"), ((1, 3), "B"), ((2, 4), "B")):
        value = ratios[setting] * full
        assert ex.q9.outcome(setting, value) == truth
        for guess in "ABC":
            r = ex.q9.evaluate(_q9_answer(setting, value, guess))
            assert ex.q9.reasons[truth] in r.message
            assert (f"你的预测 {guess} 对了" in r.message) == (guess == truth)
    # A 只在困惑度几乎不变时才对（这个模型里没有这样的 head）
    assert ex.q9.outcome((2, 4), full * 1.01) == "A" and ex.q9.outcome((2, 4), full * 1.3) == "C"
