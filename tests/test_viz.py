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
