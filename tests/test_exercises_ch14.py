"""第 14 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import numpy as np

from nlpbook import cost
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
