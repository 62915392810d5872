"""第 14 章的面板：KV cache 计算器、RNN vs Transformer 步数、上下文窗口。设置控件的 value，view 必须跟着变。"""
import pytest

from nlpbook.cost import kv_cache_bytes


def test_kv_cache_panel_default_is_the_text_setting():
    from nlpbook.widgets.kv_cache import KVCachePanel
    p = KVCachePanel()
    v = p.view.value
    assert "2 × 1 × 32 × 8,192 × <b>8</b> × 128 × 2 字节" in v
    assert "<b>1,073,741,824</b>" in v and "1 GiB（1.07 GB）" in v and "<svg" in v
    assert "是 MHA 的 1/4" in v


def test_kv_cache_panel_every_control_changes_the_view():
    from nlpbook.widgets.kv_cache import KVCachePanel
    p = KVCachePanel()
    seen = {p.view.value}
    for control, value in ((p.batch, 4), (p.layers, 16), (p.tokens, 4096), (p.head_dim, 64),
                           (p.bytes_per_number, 0.5), (p.kind, "MHA"), (p.groups, 4), (p.n_heads, 16)):
        control.value = value
        assert p.view.value not in seen, control.description
        seen.add(p.view.value)
    # 最后的设置：4 条序列、16 层、4,096 token、MHA 16 个 head、64 维、4 位量化
    expect = kv_cache_bytes(4, 16, 4096, 16, 64, 0.5)
    assert f"<b>{expect:,}</b>" in p.view.value and "与 MHA 相同" in p.view.value


def test_kv_cache_panel_mqa_and_group_options():
    from nlpbook.widgets.kv_cache import KVCachePanel, divisors
    p = KVCachePanel()
    p.kind.value = "MQA"
    assert "<b>134,217,728</b>" in p.view.value and "128 MiB" in p.view.value and "1/32" in p.view.value
    p.kind.value = "GQA"
    p.n_heads.value = 12                      # 8 不整除 12：组数退到不超过 8 的最大约数 6
    assert list(p.groups.options) == divisors(12) and p.groups.value == 6
    assert "<b>6</b> 个 KV head" in p.view.value


def test_parallel_steps_counts():
    from nlpbook.widgets.parallel_steps import rnn_position, step_counts
    assert step_counts(10, 1) == {"rnn": 10, "rnn_pipelined": 10, "transformer": 1}
    assert step_counts(10, 2) == {"rnn": 20, "rnn_pipelined": 11, "transformer": 2}
    assert rnn_position(0, 10) is None and rnn_position(1, 10) == (0, 0) and rnn_position(11, 10) == (1, 0)
    with pytest.raises(ValueError):
        step_counts(0, 1)


def test_rnn_vs_transformer_panel_updates():
    from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel
    p = RNNvsTransformerPanel()
    v = p.view.value
    assert "已走 <b>1</b> / 10 步" in v and "“小猫”" in v and "已走 <b>1</b> / 1 步" in v
    p.step.value = 7
    assert "第 7 个词“它”" in p.view.value and "已走 <b>7</b> / 10 步" in p.view.value
    assert "早在第 1 步就全部算完了" in p.view.value
    p.layers.value = 3
    assert p.step.max == 30 and "/ 30 步" in p.view.value and "/ 3 步" in p.view.value
    p.n_tokens.value = 2                        # 上限变成 6，当前步被截到 6
    assert p.step.max == 6 and p.step.value == 6 and "已走 <b>6</b> / 6 步" in p.view.value
    p.step.value = 0
    assert p.view.value.count("还没开始") == 2


def test_context_window_panel_updates():
    from nlpbook.widgets.context_window import NAME, UNANSWERABLE, ContextWindowPanel, context_text, window_view
    text = context_text()
    assert len(text) == 650 and text.count(NAME) == 1 and text.endswith("问：小明的猫叫什么？")
    assert text.startswith("小明养了一只猫，名字叫年糕。它每天早上六点叫小明起床")
    start = text.index(NAME)
    assert window_view(650 - start)["answer"] == NAME
    assert window_view(650 - start - 1)["answer"] == UNANSWERABLE    # 只剩“糕”：答不出
    assert window_view(50)["inside"] == text[-50:]
    p = ContextWindowPanel()
    assert p.n.min == 50 and p.n.max == 650 and p.n.value == 650
    assert f">{NAME}</b>——名字还在窗口里" in p.view.value and "更早的 <b>0</b> 个" in p.view.value
    p.n.value = 300
    assert UNANSWERABLE in p.view.value and "更早的 <b>350</b> 个" in p.view.value
    p.n.value = 640
    assert "名字还在窗口里" in p.view.value
