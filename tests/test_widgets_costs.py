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
    from nlpbook.widgets.kv_cache import KVCachePanel
    p = KVCachePanel()
    assert not p.groups.disabled and "约数" in p.groups_reason.value
    for kind, word in (("MHA", "不分组"), ("MQA", "1 组")):
        p.kind.value = kind
        assert p.groups.disabled and "只对 GQA 有意义" in p.groups_reason.value and word in p.groups_reason.value
        assert any(p.groups_reason in getattr(row, "children", ()) for row in p.widget.children)
    p.kind.value = "GQA"
    assert not p.groups.disabled


def test_step_slider_max_and_value_update_together_when_the_range_grows():
    """浏览器里只改滑块的 max 时，End 键仍跳到旧上限（noUiSlider 的键盘处理留着旧范围）。
    所以范围一变，面板换上一个 value 与 max 一起设好的新滑块，放在原来的位置。"""
    from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel
    p = RNNvsTransformerPanel()
    old = p.step
    old.value = 10                                  # 10 个词、1 层：走到最后一步
    p.layers.value = 6                              # 范围变成 0..60
    new = p.step
    assert new is not old and new.max == 60 and new.value == 10
    assert p.widget.children[1] is new and old.comm is None          # 旧滑块已关闭、不在面板里
    new.value = new.max                             # End 键：到新的上限
    assert "已走 <b>60</b> / 60 步" in p.view.value
    p.n_tokens.value = 2                            # 范围缩小：值截到新上限
    assert p.step.max == 12 and p.step.value == 12 and p.widget.children[1] is p.step
    p.step.value = 3
    assert "已走 <b>3</b> / 12 步" in p.view.value and "试一试" in p.view.value
