"""viz：找到中文字体；画中文不产生“Glyph missing”之类的警告。"""
import warnings

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
