"""viz：找到中文字体；画中文不产生“Glyph missing”之类的警告。"""
import warnings

import numpy as np
import pytest

import matplotlib

matplotlib.use("Agg")

from nlpbook import viz  # noqa: E402


def test_cjk_font_found_and_no_glyph_warnings():
    name = viz.setup_cjk_font()
    assert name is not None, "没有找到中文字体：pip install pylopdf-fonts-zh-cn"
    assert matplotlib.rcParams["font.family"][-1] == name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = viz.bar(["好评", "差评"], [0.731, 0.269], title="中文标题")
        fig.canvas.draw()
        fig2, _ = viz.heatmap([[1, 0], [0, 1]], ["小猫", "它"], ["累", "了"])
        fig2.canvas.draw()
        viz.line([0, 1], {"学习率": [0.693, 0.644]}, xlabel="步数").canvas.draw()


def test_palette_is_okabe_ito_and_shared():
    from nlpbook import palette, svgplot
    assert viz.PALETTE is palette.PALETTE is svgplot.PALETTE
    assert viz.PALETTE[:3] == ("#0072B2", "#E69F00", "#009E73") and len(set(viz.PALETTE)) == 8


def test_defaults_are_colour_blind_safe():
    from matplotlib.colors import to_hex
    viz.setup_cjk_font()
    cycle = [to_hex(c["color"]).upper() for c in matplotlib.rcParams["axes.prop_cycle"]]
    assert cycle == list(viz.PALETTE)
    assert matplotlib.rcParams["image.cmap"] in ("viridis", "cividis")
    fig = viz.line([0, 1, 2], {"甲": [1, 2, 3], "乙": [3, 2, 1]})
    assert [to_hex(ln.get_color()).upper() for ln in fig.axes[0].lines] == list(viz.PALETTE[:2])
    fig = viz.bar(["a", "b"], [1, 2])
    assert {to_hex(p.get_facecolor()).upper() for p in fig.axes[0].patches} == {viz.PALETTE[0]}
    _, im = viz.heatmap([[1, 0], [0, 1]], ["a", "b"], ["c", "d"])
    assert im.get_cmap().name in ("viridis", "cividis")


def test_every_helper_labels_its_axes():
    ax_of = {
        "bar": viz.bar(["好评", "差评"], [1, 2], xlabel="类别", ylabel="数量").axes[0],
        "line": viz.line([0, 1], {"损失": [1, 0.5]}, xlabel="步数", ylabel="损失").axes[0],
        "heatmap": viz.heatmap([[1, 0], [0, 1]], ["它", "累"], ["小猫", "桌子"],
                               xlabel="被查询的词", ylabel="查询词")[0].axes[0],
    }
    for name, ax in ax_of.items():
        assert ax.get_xlabel() and ax.get_ylabel(), f"viz.{name} 没有写上坐标轴名"


def test_find_cjk_font_does_not_draw():
    import matplotlib.pyplot as plt
    before = plt.get_fignums()
    assert viz.find_cjk_font() == viz.setup_cjk_font()
    assert plt.get_fignums() == before


def test_describe_prints_what_each_kind_of_plot_draws():
    """describe：折线列各点，条形列标签和高度，热力图给形状、范围和每行最大处；参考线和颜色条不算。"""
    import matplotlib.pyplot as plt
    text = viz.describe(viz.line([0, 1, 2], {"损失": [0.693, 0.5, 0.25], "基线": [0.3] * 3}, title="曲线"))
    assert text.splitlines() == ["「曲线」",
                                 "  损失：3 点，x 0…2；y 0.693、0.500、0.250（最小 0.250，最大 0.693）",
                                 "  基线：3 点，x 0…2；y 全为 0.300"]
    bar_text = viz.describe(viz.bar(["好评", "差评"], [0.731, -0.269]))   # 有负值时的 axhline 不算折线
    assert bar_text.splitlines()[1:] == ["  条形：好评 0.731，差评 -0.269"]
    fig, _ = viz.heatmap([[0.9, 0.1], [0.2, 0.8]], ["它", "累"], ["小猫", "桌子"], title="注意力")
    fig.colorbar(fig.axes[0].images[0], ax=fig.axes[0])
    assert viz.describe(fig).splitlines() == [
        "「注意力」", "  热力图 2×2：最小 0.100，最大 0.900，平均 0.500；每行最大处 它→小猫，累→桌子"]
    fig, ax = plt.subplots()
    plt.close(fig)
    ax.imshow(np.arange(12.0).reshape(3, 4))                     # 数值刻度：不列每行最大处
    assert viz.describe(fig, digits=1).splitlines()[1] == "  热力图 3×4：最小 0，最大 11，平均 5.5"


def test_describe_shortens_long_series_and_marks_log_axes():
    fig = viz.line(range(31), {"学习率 0.2": np.linspace(0.693, 0.627, 31)}, logy=True)
    head, body = viz.describe(fig, max_items=4).splitlines()
    assert head == "「（无标题）」（纵轴对数）"
    assert body == "  学习率 0.2：31 点，x 0…30；y 0.693、0.691、…、0.629、0.627（最小 0.627，最大 0.693）"
    big = viz.describe(viz.bar(["词", "字"], [14547, -0.0004]))
    assert "词 14,547，字 0" in big and "e-" not in big        # 千位分隔；舍入后是整数就写整数，不写科学计数法


@pytest.mark.parametrize("bad, kwargs, message", [
    ("not a figure", {}, "Figure"),
    (None, {"digits": -1}, "digits"),
    (None, {"max_items": 1}, "max_items"),
])
def test_describe_rejects_bad_input(bad, kwargs, message):
    fig = viz.line([0, 1], {"a": [1, 2]}) if bad is None else bad
    with pytest.raises((TypeError, ValueError), match=message):
        viz.describe(fig, **kwargs)


def test_plain_ticks_on_a_log_axis_are_readable_numbers():
    """对数纵轴默认只在 10 的幂处标数字；yticks 给出 50、60、…，58 和 63 才读得出差别。"""
    fig = viz.line([25, 700, 1500], {"困惑度": [1002.3, 74.9, 58.1], "三元": [63.3] * 3}, logy=True,
                   yticks=[50, 60, 70, 80, 100, 200, 500, 1000])
    ax = fig.axes[0]
    assert list(ax.get_yticks()) == [50, 60, 70, 80, 100, 200, 500, 1000]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["50", "60", "70", "80", "100", "200", "500", "1,000"]
    assert len(ax.yaxis.get_minorticklocs()) == 0
    lo, hi = ax.get_ylim()
    assert 50 < lo < 58.1 and 1002.3 < hi < 1500                   # 范围仍按数据，不被刻度撑大
    wide = viz.line([0, 1], {"耗时": [0.2, 600]}, logy=True, yticks=[0.01, 0.1, 1, 10, 100, 1000, 10000])
    assert 0.1 < wide.axes[0].get_ylim()[0] < 0.2 and 600 < wide.axes[0].get_ylim()[1] < 1000
    with pytest.raises(ValueError, match="axis"):
        viz.plain_ticks(ax, [1, 2], axis="z")
    with pytest.raises(ValueError, match="不能为空"):
        viz.plain_ticks(ax, [])
    with pytest.raises(ValueError, match="NaN|有限|inf"):
        viz.plain_ticks(ax, [1, float("nan")])


def test_tight_layout_false_leaves_the_layout_to_the_caller():
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(1, 2)
    plt.close(fig)
    before = fig.subplotpars.left
    viz.heatmap([[1, 0], [0, 1]], ["a", "b"], ["c", "d"], ax=a1, tight_layout=False)
    viz.bar(["a", "b"], [1, 2], ax=a2, tight_layout=False)
    assert fig.subplotpars.left == before
    viz.bar(["a", "b"], [1, 2], ax=a2)                          # 默认仍然重排
    assert fig.subplotpars.left != before
