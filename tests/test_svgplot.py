"""svgplot：确定的输出、好看的刻度、坏输入的清楚错误。"""
import math

import pytest

from nlpbook.palette import PALETTE
from nlpbook.svgplot import _ticks, bar_chart, line_chart, scatter_chart


def test_ticks_examples():
    assert _ticks(0, 0.7) == [0, 0.2, 0.4, 0.6]
    assert _ticks(0, 30) == [0, 10, 20, 30]


def test_deterministic_and_contains_labels():
    a = line_chart([0, 1, 2], {"学习率 0.2": [0.693, 0.6, 0.55]}, title="损失", xlabel="步数")
    assert a == line_chart([0, 1, 2], {"学习率 0.2": [0.693, 0.6, 0.55]}, title="损失", xlabel="步数")
    assert a.startswith("<svg") and "学习率 0.2" in a and "步数" in a and "<polyline" in a


def test_overflow_is_marked_not_crashing():
    svg = line_chart([0, 1], {"x": [1.0, math.inf]})
    assert "溢出" in svg


@pytest.mark.parametrize("args, match", [
    (([], {"a": []}), "不能为空"),
    (([0, 1], {"a": [1.0]}), "有 1 个值"),
    (([0], {"a": [math.nan]}), "没有有限"),
])
def test_errors(args, match):
    with pytest.raises(ValueError, match=match):
        line_chart(*args)


def test_bar_chart():
    from nlpbook.svgplot import bar_chart
    svg = bar_chart(["电影", "音乐", "香蕉"], {"过滤前": [0.6, 0.3, 0.1], "过滤后": [2 / 3, 1 / 3, 0]}, ymax=1)
    assert svg.count("<rect") == 2 + 6 and "0.67" in svg and "香蕉" in svg
    with pytest.raises(ValueError, match="有 2 个值"):
        bar_chart(["a"], {"x": [1, 2]})


def test_colours_come_from_the_colour_blind_safe_palette():
    import re
    svgs = [line_chart([0, 1], {"甲": [1, 2], "乙": [2, 1], "丙": [0, 1]}),
            bar_chart(["a", "b"], {"甲": [1, 2], "乙": [2, 1]}, xlabel="词", ylabel="概率")]
    for svg in svgs:
        used = set(re.findall(r'(?:stroke|fill)="(#[0-9A-Fa-f]{6})"', svg))
        assert used and used <= set(PALETTE), used - set(PALETTE)
    assert ">词<" in svgs[1] and ">概率<" in svgs[1]
    assert PALETTE[0] in line_chart([0, 1], {"甲": [1, 2]})
    assert "#555" in scatter_chart([(0, 0), (1, 1)], ["a", "b"])


def test_line_chart_can_zoom_the_y_axis_to_the_data():
    import re
    from nlpbook.svgplot import line_chart
    ys = [0.693, 0.68, 0.66, 0.64, 0.627]
    zoomed = line_chart(range(5), {"损失": ys}, ylabel="损失", y_from_zero=False)
    full = line_chart(range(5), {"损失": ys}, ylabel="损失")
    ticks = [float(t) for t in re.findall(r'text-anchor="end"[^>]*>([0-9.]+)</text>', zoomed)]
    assert ticks and 0.55 < min(ticks) <= 0.627 and max(ticks) >= 0.693
    assert "纵轴不从 0 开始" in zoomed and "纵轴不从 0 开始" not in full
    full_ticks = [float(t) for t in re.findall(r'text-anchor="end"[^>]*>([0-9.]+)</text>', full)]
    assert min(full_ticks) == 0.0


def test_learning_rate_panel_curve_is_zoomed():
    from nlpbook.widgets.learning_rate import curve_svg
    assert "纵轴不从 0 开始" in curve_svg([0.693, 0.66, 0.627], 0.05)
