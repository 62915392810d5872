"""cost：第 14 章的格子数与字节数、KV cache、MHA/GQA/MQA、第 17.3 节的 LoRA 参数数、运算量公式、单位换算。"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from nlpbook import cost as C

MiB, GiB = 2 ** 20, 2 ** 30


def test_quadratic_table_section_14_2():
    assert C.attention_growth_table() == [(4, 4, 16), (8, 8, 64), (16, 16, 256)]
    assert [C.attention_table_entries(n) for n in (4, 8, 16)] == [16, 64, 256]
    assert C.attention_table_entries(100) == 10_000  # 第 13.4 节：100×100
    assert C.attention_table_entries(4096) == 16_777_216
    assert C.attention_table_bytes(4096) == 32 * MiB == 33_554_432
    assert C.attention_table_bytes(4096, heads=32) == GiB
    assert C.format_bytes(C.attention_table_bytes(4096)) == "32 MiB（33.55 MB）"
    assert C.format_bytes(C.attention_table_bytes(4096, heads=32), "binary") == "1 GiB"
    assert C.attention_table_bytes(4096, heads=32, layers=2, batch=3) == 6 * GiB


@given(st.integers(1, 5000))
def test_doubling_length_quadruples_the_table(n):
    assert C.attention_table_entries(2 * n) == 4 * C.attention_table_entries(n)


def test_embedding_table_section_14_3():
    assert C.embedding_table_bytes(10_000, 128) == 5_120_000          # 1,280,000 个数 × 4 字节
    assert C.embedding_table_bytes(10_000, 128) // 4 == 1_280_000
    assert C.format_bytes(5_120_000, "decimal") == "5.12 MB"
    assert C.format_bytes(5_120_000) == "4.88 MiB（5.12 MB）"
    assert C.embedding_table_bytes(20_000, 128) == 2 * 5_120_000      # 词表翻倍
    assert C.embedding_table_bytes(20_000, 256) == 4 * 5_120_000      # 维度也翻倍


def test_kv_cache_section_14_5():
    assert C.kv_cache_bytes(1, 32, 8192, 8, 128, 2) == GiB == 2 * 1 * 32 * 8192 * 8 * 128 * 2
    assert C.format_bytes(C.kv_cache_bytes(1, 32, 8192, 8, 128)) == "1 GiB（1.07 GB）"
    assert C.kv_cache_bytes(4, 32, 8192, 8, 128) == 4 * GiB
    assert C.kv_cache_bytes(1, 32, 8192, 8, 128, bytes_per_number=0.5) == GiB // 4  # 4 位量化


def test_mha_gqa_mqa():
    assert [C.kv_heads(k, 32, groups=8) for k in ("MHA", "GQA", "MQA")] == [32, 8, 1]
    assert C.kv_heads("gqa", 32, 32) == C.kv_heads("MHA", 32)
    cmp = C.kv_cache_comparison(1, 32, 8192, n_heads=32, head_dim=128, groups=8)
    assert cmp == {"MHA": 4 * GiB, "GQA": GiB, "MQA": 128 * MiB}


def test_lora_section_17_3():
    assert C.dense_params(4, 4) == 16 and C.lora_params(4, 4, 1) == 8
    assert C.dense_params(4096, 4096) == 16_777_216
    assert C.lora_params(4096, 4096, 8) == 65_536 == 4096 * 8 + 8 * 4096
    assert C.dense_params(4096, 4096) / C.lora_params(4096, 4096, 8) == 256
    assert C.lora_params(4096, 1024, 8) == 8 * (4096 + 1024)
    assert C.lora_scale(16, 8) == 2.0 and C.lora_scale(8, 8) == 1.0
    # 4×1 乘 1×4 确实是 4×4 的改动，秩为 1
    B, A = np.arange(4.0)[:, None], np.ones((1, 4))
    assert (B @ A).shape == (4, 4) and np.linalg.matrix_rank(B @ A) == 1


def test_flop_formulas_section_14_6():
    assert C.rnn_flops(10, 8) == 4 * 10 * 8 * 8
    assert C.rnn_flops(10, 8, d_in=4) == 2 * 10 * (4 * 8 + 8 * 8)
    parts = C.transformer_layer_flops(100, 128, breakdown=True)
    assert parts == {"projections": 8 * 100 * 128 ** 2, "attention": 4 * 100 ** 2 * 128,
                     "ffn": 16 * 100 * 128 ** 2, "total": 24 * 100 * 128 ** 2 + 4 * 100 ** 2 * 128}
    assert C.transformer_layer_flops(100, 128) == parts["total"]
    assert C.transformer_layer_flops(100, 128, ffn_mult=2) == 16 * 100 * 128 ** 2 + 4 * 100 ** 2 * 128
    # 长序列时 n² 项占上风：n 翻倍，注意力部分变四倍，投影与 FFN 只变两倍
    a, b = C.transformer_layer_flops(4096, 128, breakdown=True), C.transformer_layer_flops(8192, 128, breakdown=True)
    assert b["attention"] == 4 * a["attention"] and b["ffn"] == 2 * a["ffn"]
    # 有 KV cache：单步 O(d² + n·d)；没有：整段重算
    assert C.transformer_decode_step_flops(100, 128) == 24 * 128 ** 2 + 4 * 100 * 128
    assert C.transformer_decode_step_flops(100, 128, kv_cache=False) == C.transformer_layer_flops(100, 128)
    assert C.transformer_decode_step_flops(200, 128) - C.transformer_decode_step_flops(100, 128) == 4 * 100 * 128


def test_format_bytes():
    assert C.format_bytes(512) == "512 B"
    assert C.format_bytes(0) == "0 B"
    assert C.format_bytes(1000) == "1,000 B（1 kB）"
    assert C.format_bytes(1536, "binary") == "1.5 KiB"
    assert C.format_bytes(4 * GiB) == "4 GiB（4.29 GB）"
    assert C.format_bytes(128 * MiB) == "128 MiB（134.22 MB）"
    assert C.format_bytes(3 * 2 ** 40, "binary") == "3 TiB"
    assert C.format_bytes(2 * 10 ** 9, "decimal") == "2 GB"


@pytest.mark.parametrize("call, exc, match", [
    (lambda: C.attention_table_entries(0), ValueError, "n 必须 > 0"),
    (lambda: C.attention_table_entries(4.0), TypeError, "n 必须是整数"),
    (lambda: C.attention_table_entries(True), TypeError, "整数"),
    (lambda: C.attention_table_entries(4, heads=-1), ValueError, "heads 必须 > 0"),
    (lambda: C.attention_growth_table([4, 0]), ValueError, "> 0"),
    (lambda: C.attention_growth_table([]), ValueError, "不能为空"),
    (lambda: C.attention_growth_table(4), TypeError, "列表"),
    (lambda: C.attention_table_bytes(4, bytes_per_number=0), ValueError, "bytes_per_number"),
    (lambda: C.attention_table_bytes(4, bytes_per_number="2"), TypeError, "bytes_per_number"),
    (lambda: C.attention_table_bytes(4, batch=0), ValueError, "batch"),
    (lambda: C.embedding_table_bytes(10_000, 0), ValueError, "dim 必须 > 0"),
    (lambda: C.embedding_table_bytes(1e4, 128), TypeError, "vocab 必须是整数"),
    (lambda: C.kv_cache_bytes(1, 32, 8192, 0, 128), ValueError, "kv_heads 必须 > 0"),
    (lambda: C.kv_cache_bytes(1, 32, 8192.5, 8, 128), TypeError, "tokens"),
    (lambda: C.kv_heads("MHQ", 8), ValueError, "'MHA'、'GQA' 或 'MQA'"),
    (lambda: C.kv_heads("GQA", 8), ValueError, "groups"),
    (lambda: C.kv_heads("GQA", 8, 3), ValueError, "整除"),
    (lambda: C.lora_params(4, 4, 0), ValueError, "r 必须 > 0"),
    (lambda: C.lora_params(4, 4, 5), ValueError, "min"),
    (lambda: C.lora_scale(0, 8), ValueError, "alpha"),
    (lambda: C.rnn_flops(-1, 8), ValueError, "n 必须 > 0"),
    (lambda: C.transformer_layer_flops(10, 8, ffn_mult=2.5), TypeError, "ffn_mult"),
    (lambda: C.transformer_decode_step_flops(10, 8, kv_cache=1), TypeError, "kv_cache"),
    (lambda: C.format_bytes(-1), ValueError, ">= 0"),
    (lambda: C.format_bytes("1"), TypeError, "字节数"),
    (lambda: C.format_bytes(1, "si"), ValueError, "style"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
