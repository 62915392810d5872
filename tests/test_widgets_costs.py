"""第 14 章的面板：KV cache 计算器、RNN vs Transformer 步数、上下文窗口。设置控件的值，静态视图（fallback_html）必须跟着变；
浏览器用的数据（data）从纯函数核对。"""
import pytest

from nlpbook.cost import kv_cache_bytes


def test_kv_cache_panel_default_is_the_text_setting():
    from nlpbook.widgets.kv_cache import KVCachePanel
    p = KVCachePanel()
    v = p.fallback_html()
    assert "2 × 1 × 32 × 8,192 × <b>8</b> × 128 × 2 字节" in v
    assert "<b>1,073,741,824</b>" in v and "1 GiB（1.07 GB）" in v and "<svg" in v
    assert "是 MHA 的 1/4" in v


def test_kv_cache_panel_every_control_changes_the_view():
    from nlpbook.widgets.kv_cache import KVCachePanel
    p = KVCachePanel()
    seen = {p.fallback_html()}
    for name, value in (("batch", 4), ("layers", 16), ("tokens", 4096), ("head_dim", 64),
                        ("bytes_per_number", 0.5), ("kind", "MHA"), ("groups", 4), ("n_heads", 16)):
        setattr(p, name, value)
        assert p.fallback_html() not in seen, name
        seen.add(p.fallback_html())
    # 最后的设置：4 条序列、16 层、4,096 token、MHA 16 个 head、64 维、4 位量化
    expect = kv_cache_bytes(4, 16, 4096, 16, 64, 0.5)
    assert f"<b>{expect:,}</b>" in p.fallback_html() and "与 MHA 相同" in p.fallback_html()


def test_kv_cache_panel_mqa_and_group_options():
    from nlpbook.widgets.kv_cache import KVCachePanel, divisors
    p = KVCachePanel()
    p.kind = "MQA"
    assert "<b>134,217,728</b>" in p.fallback_html() and "128 MiB" in p.fallback_html() and "1/32" in p.fallback_html()
    p.kind = "GQA"
    p.n_heads = 12                            # 8 不整除 12：组数退到不超过 8 的最大约数 6
    assert p.group_options == divisors(12) and p.groups == 6
    assert "<b>6</b> 个 KV head" in p.fallback_html()
    # 浏览器里的组数选项查的是 Python 算好的约数表
    assert p.data["divisors"][12 - 1] == divisors(12) == [1, 2, 3, 4, 6, 12] and len(p.data["divisors"]) == 128
    assert p.data["divisors"][32 - 1] == [1, 2, 4, 8, 16, 32]
    assert [v for _, v in p.data["bytes_options"]] == [4, 2, 1, 0.5] and p.data["kinds"] == ["MHA", "GQA", "MQA"]
    assert p.data["ranges"]["tokens"] == [256, 131_072, 256]


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
    v = p.fallback_html()
    assert "已走 <b>1</b> / 10 步" in v and "“小猫”" in v and "已走 <b>1</b> / 1 步" in v
    p.step = 7
    assert "第 7 个词“它”" in p.fallback_html() and "已走 <b>7</b> / 10 步" in p.fallback_html()
    assert "早在第 1 步就全部算完了" in p.fallback_html()
    p.layers = 3
    assert p.step_max == 30 and "/ 30 步" in p.fallback_html() and "/ 3 步" in p.fallback_html()
    p.n_tokens = 2                              # 上限变成 6，当前步被截到 6
    assert p.step_max == 6 and p.step == 6 and "已走 <b>6</b> / 6 步" in p.fallback_html()
    p.step = 0
    assert p.fallback_html().count("还没开始") == 2


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
    assert p.data["min"] == 50 and len(p.data["text"]) == 650 and p.n == 650
    assert f">{NAME}</b>——名字还在窗口里" in p.fallback_html() and "更早的 <b>0</b> 个" in p.fallback_html()
    p.n = 300
    assert UNANSWERABLE in p.fallback_html() and "更早的 <b>350</b> 个" in p.fallback_html()
    p.n = 640
    assert "名字还在窗口里" in p.fallback_html()


# ---------- 面板读起来一目了然（issue 15）：单位、不重叠、不适用的控件变灰、滑块范围与值一起变 ----------
def _svg_texts(svg: str, cls: str) -> list[str]:
    import re
    return re.findall(rf'<text class="{cls}"[^>]*>([^<]*)</text>', svg)


def test_kv_cache_units_adapt_up_to_tib_without_scientific_notation():
    from nlpbook.widgets.kv_cache import bytes_unit, kv_cache_html
    assert bytes_unit(2 ** 48) == ("TiB", 2 ** 40) and bytes_unit(3 * 2 ** 20) == ("MiB", 2 ** 20)
    assert bytes_unit(300) == ("B", 1)
    big = kv_cache_html(64, 128, 131_072, 128, 256, 4, "MHA", 128)     # 所有滑块拉满：256 TiB
    assert "e+" not in big and "281,474,976,710,656" in big and "256 TiB" in big
    assert _svg_texts(big, "ytick") == ["0", "100", "200", "300"]      # 坐标以 TiB 计，不是 300000 GiB
    assert _svg_texts(big, "value") == ["256 TiB", "256 TiB", "2 TiB"]
    default = kv_cache_html()
    assert _svg_texts(default, "value") == ["4 GiB", "1 GiB", "128 MiB"]   # 每根柱子写自己的单位
    small = kv_cache_html(1, 1, 256, 1, 16, 0.5, "MQA", 1)
    assert _svg_texts(small, "value") == ["4 KiB"] * 3 and "e-" not in small


def test_kv_cache_labels_fit_inside_the_chart():
    from nlpbook.svgplot import bar_layout
    for values in ([256.0, 256.0, 2.0], [4.0, 1.0, 0.125], [1.0, 1.0, 1.0]):
        lay = bar_layout(["MHA", "GQA", "MQA"], {"KV cache": values}, fmt=lambda v: f"{v:g} TiB", width=860)
        for x0, y0, x1, y1 in (v["box"] for v in lay["labels"]):
            assert 0 <= x0 and x1 <= 860 and y0 >= 32          # 不出画布，不压图例
        assert lay["top"] >= max(values)


def test_kv_cache_groups_disabled_with_a_reason_outside_gqa():
    from nlpbook.widgets.kv_cache import KVCachePanel, groups_reason
    p = KVCachePanel()
    assert not p.groups_disabled and "约数" in groups_reason(p.kind, p.groups)
    for kind, word in (("MHA", "不分组"), ("MQA", "1 组")):
        p.kind = kind
        reason = groups_reason(p.kind, p.groups)
        assert p.groups_disabled and "只对 GQA 有意义" in reason and word in reason and "仍按 8 组画" in reason
        assert p.data["reasons"][kind] in reason                 # 浏览器里显示的是同一段说明
    p.kind = "GQA"
    assert not p.groups_disabled


def test_step_slider_max_and_value_update_together_when_the_range_grows():
    """步数的上限 = 词数 × 层数（浏览器里是原生滑块，改 max 后 End 键直接到新上限）；范围缩小时当前步截到新上限。"""
    from traitlets import TraitError

    from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel, step_counts
    p = RNNvsTransformerPanel()
    p.step = 10                                     # 10 个词、1 层：走到最后一步
    p.layers = 6                                    # 范围变成 0..60，当前步不动
    assert p.step_max == 60 and p.step == 10
    p.step = p.step_max                             # End 键：到新的上限
    assert "已走 <b>60</b> / 60 步" in p.fallback_html()
    p.n_tokens = 2                                  # 范围缩小：值截到新上限
    assert p.step_max == 12 and p.step == 12
    p.step = 3
    assert "已走 <b>3</b> / 12 步" in p.fallback_html() and "试一试" in p.fallback_html()
    with pytest.raises(TraitError, match="step 取 0—12"):
        p.step = 13
    # 浏览器查的步数表：每个（词数, 层数）的 [RNN, RNN 流水线, Transformer]，来自 step_counts
    counts = p.data["counts"]
    assert len(counts) == 10 and all(len(row) == 6 for row in counts)
    assert counts[10 - 1][2 - 1] == [20, 11, 2] and counts[3 - 1][6 - 1] == list(step_counts(3, 6).values())
    assert p.data["tokens"][:2] == ["小猫", "没有"] and p.data["max_layers"] == 6
