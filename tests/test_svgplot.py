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


def test_line_chart_y_max_stops_the_axis_at_a_natural_limit():
    """比例最多 100%：给出 y_max 时纵轴正好画到它；不给时照旧在最高点之上多留一格。"""
    import re
    ys = [8.8, 54.2, 86.2, 94.8, 96.6]
    capped = line_chart([1, 2, 3, 4, 5], {"没见过的比例（%）": ys}, mark_x=5, y_max=100)
    free = line_chart([1, 2, 3, 4, 5], {"没见过的比例（%）": ys}, mark_x=5)
    ticks = [float(t) for t in re.findall(r'class="ytick"[^>]*>([0-9.]+)</text>', capped)]
    assert ticks[0] == 0 and max(ticks) == 100
    assert max(float(t) for t in re.findall(r'class="ytick"[^>]*>([0-9.]+)</text>', free)) > 100
    # 贴近上限的点：数值写在点的下方，不出画布顶端
    cy = float(re.search(r'<circle cx="[\d.]+" cy="([\d.]+)"', capped).group(1))
    ty = float(re.search(r'class="mark-value" x="[\d.]+" y="([\d.]+)"', capped).group(1))
    assert ty > cy


def _boxes_overlap(a, b):
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_place_labels_moves_only_what_overlaps_and_clears_a_crowd():
    import numpy as np
    from nlpbook.svgplot import place_labels
    assert place_labels([(0, 0), (100, 0)], [(20, 10), (20, 10)])[1:] == ([False, False], False)
    pts = np.random.default_rng(0).uniform(0, 30, size=(12, 2))      # 12 个点挤在 30×30 的一小块里
    centers, moved, still = place_labels(pts, [(24, 12)] * 12, point_size=6, gap=1)
    assert not still and any(moved)
    boxes = [(x - 12, y - 6, x + 12, y + 6) for x, y in centers]
    for i, a in enumerate(boxes):
        assert not any(_boxes_overlap(a, b) for b in boxes[i + 1:])
        assert not any(_boxes_overlap(a, (px - 3, py - 3, px + 3, py + 3)) for k, (px, py) in enumerate(pts) if k != i)
    assert place_labels(pts, [(24, 12)] * 12, point_size=6, gap=1) == (centers, moved, still)   # 确定


def test_scatter_chart_labels_overlap_neither_each_other_nor_the_title():
    import re
    from nlpbook.svgplot import text_width
    pts = [(0.0, 1.0), (0.3, 0.99), (0.32, 0.98), (0.31, 0.97), (1.0, 0.0)]
    labels = ["中国", "香港", "英国", "１２月", "美元"]
    svg = scatter_chart(pts, labels, title="《人民日报》词向量（PCA 投影，40 个词）", width=400, height=300)
    found = dict((lab, (float(x), float(y))) for x, y, lab in
                 re.findall(r'<text x="([\d.]+)" y="([\d.]+)" fill="#555">([^<]+)</text>', svg))
    assert set(found) == set(labels)
    boxes = {lab: (x, y - 11, x + text_width(lab, 12), y + 3) for lab, (x, y) in found.items()}
    half = text_width("《人民日报》词向量（PCA 投影，40 个词）", 13) / 2
    title = (200 - half, 3, 200 + half, 19)
    for i, a in enumerate(labels):
        assert not _boxes_overlap(boxes[a], title), a
        assert not any(_boxes_overlap(boxes[a], boxes[b]) for b in labels[i + 1:]), a
    assert "stroke=\"#aaa\"" in svg                                   # 挪开的标签有细线连回它的点
