"""第 14 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import numpy as np
import pytest

from nlpbook import cost
from nlpbook import exercises as E
from nlpbook.attention import init_mha_params
from nlpbook.exercises import ch14 as ex
from _exercise_checks import fails as _fails, passes as _passes

GiB = 2 ** 30


# ---- 题目里的数字 -------------------------------------------------------------
def test_worked_numbers_match_the_course_functions():
    assert cost.attention_table_entries(8192) == 4 * cost.attention_table_entries(4096)        # 练习 1
    a = cost.kv_cache_bytes(batch=4, layers=32, tokens=8192, kv_heads=32, head_dim=128, bytes_per_number=2)
    b = cost.kv_cache_bytes(batch=4, layers=32, tokens=8192, kv_heads=8, head_dim=128, bytes_per_number=1)
    assert a / GiB == ex.q2.expected and b / GiB == ex.q3.expected                            # 练习 2、3
    assert ex.q4.reference(*ex.q4.cases[0].args, **ex.q4.cases[0].kwargs) == GiB             # 课文 14.5 节
    assert ex.q4.reference(*ex.q4.cases[2].args, **ex.q4.cases[2].kwargs) == GiB             # GQA 8 组
    assert ex.q6.reference(10, 512) == 63_119_360 == cost.transformer_layer_flops(10, 512)    # 14.4 节


def test_q5_attention_part_matches_section_14_1():
    # 14.1 节：d = 64 的注意力层 16,640 个参数；整层再加 FFN 和两个 LayerNorm
    assert sum(p.size for p in init_mha_params(64, np.random.default_rng(0)).values()) == 16_640
    assert ex.q5.reference(64, 256, 4) == 16_640 + (64 * 256 + 256 + 256 * 64 + 64) + 4 * 64
    assert ex.q5.reference(128, 512, 4) == ex.q5.reference(128, 512, 8)                        # head 数不影响


# ---- 选择题与填数题 ------------------------------------------------------------
def test_q1_accepts_lower_case_and_rejects_a_missing_letter():
    _passes(ex.q1, "b")
    _fails(ex.q1, "E", "没有选项")


def test_q2_q3_reject_bytes_and_unlisted_values():
    _fails(ex.q2, 16 * GiB, "还不对")                 # 填了字节数，不是 GiB
    _fails(ex.q2, 32, "还不对")                        # 多乘了一个 2：没有列出的错值也要判错
    _fails(ex.q3, 0.5, "还不对")
    _fails(ex.q3, [2, 2], "形状")
    _passes(ex.q3, 2.0)


# ---- q4：KV cache ----------------------------------------------------------------
def _kv_mqa_as_mha(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    h = groups if kind == "GQA" else n_heads            # 忘了 MQA：当成了 MHA
    return 2 * batch * layers * tokens * h * head_dim * bytes_per_number


def _kv_bits(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    h = {"MHA": n_heads, "GQA": groups, "MQA": 1}[kind]
    return 2 * batch * layers * tokens * h * head_dim * bytes_per_number * 8     # 算成了比特


def _kv_no_layers(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    h = {"MHA": n_heads, "GQA": groups, "MQA": 1}[kind]
    return 2 * batch * tokens * h * head_dim * bytes_per_number                  # 只算了一层


def _kv_int_bytes(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    h = {"MHA": n_heads, "GQA": groups, "MQA": 1}[kind]
    return 2 * batch * layers * tokens * h * head_dim * int(bytes_per_number)    # 0.5 字节被截成 0


def test_q4_rejects_more_wrong_kv_caches():
    _fails(ex.q4, _kv_mqa_as_mha, "MQA", "KV head")    # 只在 MQA 上错：诊断成“用了 Query head 数”
    _fails(ex.q4, _kv_bits, "第 1 个例子", "1 GiB")
    _fails(ex.q4, _kv_no_layers, "第 1 个例子")
    msg = _fails(ex.q4, _kv_int_bytes, "0.5 字节")
    assert "第 6 个例子" in msg


# ---- q5：一层的参数 ---------------------------------------------------------------
def _blk_ln_gamma_only(d_model, d_ff, n_heads):  # LayerNorm 只算了 γ
    d = d_model
    return 4 * d * d + 4 * d + 2 * d * d_ff + d_ff + d + 2 * d


def _blk_no_wo(d_model, d_ff, n_heads):  # 忘了输出投影 Wo、bo
    d = d_model
    return 3 * d * d + 3 * d + 2 * d * d_ff + d_ff + d + 4 * d


def _blk_head_dim(d_model, d_ff, n_heads):  # 把 Wq 等算成了 d × d_head
    d = d_model
    return 4 * d * (d // n_heads) + 4 * d + 2 * d * d_ff + d_ff + d + 4 * d


def test_q5_rejects_more_wrong_parameter_counts():
    _fails(ex.q5, _blk_ln_gamma_only, "第 1 个例子")
    _fails(ex.q5, _blk_no_wo, "第 1 个例子")
    msg = _fails(ex.q5, _blk_head_dim, "4 个 head")      # 1 个 head 时碰巧对
    assert "第 2 个例子" in msg


# ---- q6：一层的运算量 ---------------------------------------------------------------
def _fl_ffn_square(n, d, ffn_mult=4):  # FFN 当成了 d → d
    return 8 * n * d * d + 4 * n * n * d + 4 * n * d * d


def _fl_with_softmax(n, d, ffn_mult=4):  # 多算了 softmax：题目说小项不计
    return (8 + 4 * ffn_mult) * n * d * d + 4 * n * n * d + 3 * n * n


def _fl_causal_half(n, d, ffn_mult=4):  # 以为因果遮罩让注意力交互减半
    return (8 + 4 * ffn_mult) * n * d * d + 2 * n * n * d


def test_q6_rejects_more_wrong_flop_counts():
    _fails(ex.q6, _fl_ffn_square, "第 1 个例子", "63,119,360")
    _fails(ex.q6, _fl_with_softmax, "第 1 个例子")
    _fails(ex.q6, _fl_causal_half, "第 1 个例子", "你只算了一次")   # 和“只算 QKᵀ”同一个数


# ---- q7：实验题，不用 KV cache 逐字生成 ---------------------------------------------------
def _q7_run(n_new, prediction='"B"'):
    """按 notebook 里的起始代码跑一次实验（字数换成 n_new），返回交上来的字典。"""
    ns = {}
    exec("import numpy as np\n" + ex._count_cells(prediction, repr(n_new)), ns)
    return ns["answer_7"]


def _q7_answer(n_new, positions, positions_2x, prediction="B"):
    return {"prediction": prediction, "setting": n_new,
            "result": {"positions": positions, "positions_2x": positions_2x}}


def test_q7_counts_follow_the_formula_of_section_14_5():
    assert ex._window() == 64
    for g in (5, 10, 32, 64):                              # 窗口没装满：1 + 2 + … + G
        assert ex._positions(g) == g * (g + 1) // 2
    assert ex._positions(100) == 64 * 65 // 2 + 64 * 36    # 装满之后每步 64 个


@pytest.mark.record
def test_q7_filled_answer_passes():
    ns = {}
    exec("import numpy as np\n" + ex.q7.filled, ns)
    _passes(ex.q7, ns["answer_7"])


@pytest.mark.record
@pytest.mark.parametrize("n_new", [10, 64, 200])
def test_q7_band_holds_the_actual_run(n_new):
    answer = _q7_run(n_new)
    _passes(ex.q7, answer)
    assert answer["result"] == {k: lo for k, (lo, hi) in ex.q7.band(n_new).items()}


@pytest.mark.parametrize("setting", [4, 301, 0, -20, 20.0, "20", True, float("nan"), [20], np.float64(20)])
def test_q7_rejects_settings_outside_the_allowed_range(setting):
    msg = _fails(ex.q7, _q7_answer(setting, 210, 820), "这个设置不行", "5 到 300")
    assert ex.q7.validate(setting) in msg


def test_q7_accepts_numpy_integers():
    assert ex.q7.validate(np.int64(20)) is None
    _passes(ex.q7, _q7_answer(np.int64(20), np.int64(210), 820))


def test_q7_band_rejects_plausibly_wrong_experiments():
    # 没有截到窗口：把整个前文的长度都算上（写 64 个字时，2G = 128 个字已超出窗口）
    _fails(ex.q7, _q7_answer(64, 64 * 65 // 2, 128 * 129 // 2), "不在这个设置应有的范围", "max_len = 64")
    # 只数了调用次数（或者以为模型有 KV cache，每步只算 1 个）
    _fails(ex.q7, _q7_answer(20, 20, 40), "positions = 20，不在")
    # 设置没有改：交的是另一个 G 的计数
    _fails(ex.q7, _q7_answer(21, 210, 820), "不在这个设置应有的范围")
    # 两个数交反了；只交了一个数
    _fails(ex.q7, _q7_answer(20, 820, 210), "不在这个设置应有的范围")
    _fails(ex.q7, {"prediction": "B", "setting": 20, "result": 210}, "positions_2x")
    _fails(ex.q7, {"prediction": "B", "setting": 20, "result": {"positions": 210}}, "positions_2x")


def test_q7_outcome_and_reasons_on_each_side_of_the_window():
    for n_new, truth in ((5, "B"), (20, "B"), (48, "B"), (49, "C"), (64, "C"), (94, "C"), (95, "A"), (200, "A"),
                         (300, "A")):
        answer = _q7_answer(n_new, ex._positions(n_new), ex._positions(2 * n_new))
        assert ex.q7.outcome(n_new, answer["result"]) == truth, n_new
        for guess in "ABC":
            r = ex.q7.evaluate(dict(answer, prediction=guess))
            assert r.status == E.PASS and ex.q7.reasons[truth] in r.message
            assert (f"你的预测 {guess} 对了" in r.message) == (guess == truth)


def test_q7_answer_quotes_the_counts():
    for g, a, b in ((20, 210, 820), (200, 10_784, 23_584), (64, 2_080, 6_176)):
        assert (ex._positions(g), ex._positions(2 * g)) == (a, b)
        assert f"{a:,} → {b:,}" in ex.q7.answer
