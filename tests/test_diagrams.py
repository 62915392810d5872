"""diagrams：每张结构图画了该画的框、箭头连对了框、遮罩与包里的相同、中文没有缺字。"""
import warnings

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from nlpbook import diagrams as D  # noqa: E402
from nlpbook import objectives as O  # noqa: E402
from nlpbook.attention import causal_mask, masked_softmax  # noqa: E402

ALL = {"rnn_unrolled": D.rnn_unrolled, "lstm_cell": D.lstm_cell, "seq2seq_attention": D.seq2seq_attention,
       "transformer_block": D.transformer_block, "model_families": D.model_families}


@pytest.fixture(scope="module")
def figs():
    return {name: f() for name, f in ALL.items()}


@pytest.mark.parametrize("name", list(ALL))
def test_draws_without_missing_glyphs_and_describes_itself(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # “Glyph … missing from font(s)” 会变成异常
        # 例外：matplotlib 3.7—3.10 的公式解析调用 pyparsing 3.3 已弃用的驼峰名字（'parseString' deprecated - use
        # 'parse_string'），这是两个第三方包之间的弃用提示，与字形无关，notebook 里也不显示（默认不显示库内部的弃用警告）
        warnings.filterwarnings("ignore", message=r"'\w+' deprecated - use '\w+'", category=DeprecationWarning)
        fig = ALL[name]()
        fig.canvas.draw()
    d = fig.diagram
    assert d["title"] and d["boxes"]
    keys = set(d["boxes"])
    assert all(a in keys and b in keys for a, b in d["arrows"]), "箭头的两端都必须是画出来的框"
    text = D.describe(fig)
    assert text.startswith("图：") and str(len(d["arrows"])) in text
    # 图上真的写了这些标签
    drawn = {t.get_text() for ax in fig.axes for t in ax.texts}
    assert set(d["boxes"].values()) <= drawn


def test_describe_rejects_other_figures():
    import matplotlib.pyplot as plt
    fig = plt.figure()
    plt.close(fig)
    with pytest.raises(TypeError):
        D.describe(fig)


def test_rnn_unrolled_shares_one_cell(figs):
    d = figs["rnn_unrolled"].diagram
    assert d["params"] == {"Wx": (2, 4), "Wh": (4, 4), "b": (4,)}
    for t in (1, 2, 3):
        assert {(f"x{t}", f"cell{t}"), (f"h{t - 1}", f"cell{t}"), (f"cell{t}", f"h{t}"),
                ("params", f"cell{t}")} <= set(d["arrows"])
    assert "“追”" in d["boxes"]["x2"]
    with pytest.raises(ValueError):
        D.rnn_unrolled(tokens=())


def test_lstm_gates_in_package_order(figs):
    d = figs["lstm_cell"].diagram
    assert d["gates"] == ["f", "i", "g", "o"] == D.lstm_gate_order()
    assert d["W"] == (5, 8)
    assert d["W_columns"]["g"] == "W[:, 4:6]"
    assert "遗忘门" in d["boxes"]["f"] and "tanh" in d["boxes"]["g"] and "σ" in d["boxes"]["o"]
    arrows = set(d["arrows"])
    assert {("z", g) for g in "figo"} <= arrows
    # c = f⊙c_prev + i⊙g，h = o⊙tanh(c)
    assert {("c_prev", "mul_f"), ("f", "mul_f"), ("i", "mul_ig"), ("g", "mul_ig"), ("mul_f", "add"),
            ("mul_ig", "add"), ("add", "c"), ("c", "tanh_c"), ("tanh_c", "mul_o"), ("o", "mul_o"),
            ("mul_o", "h")} <= arrows


def test_seq2seq_attention_weights_come_from_softmax(figs):
    d = figs["seq2seq_attention"].diagram
    assert np.allclose(d["weights"], masked_softmax(np.array([0.0, 1.0, 2.0])))
    assert np.round(d["weights"], 3).tolist() == [0.090, 0.245, 0.665]
    assert {("enc0", "ctx"), ("enc1", "ctx"), ("enc2", "ctx"), ("ctx", "predict"), ("predict", "out2")} \
        <= set(d["arrows"])
    assert d["boxes"]["out2"] == "cats"
    d1 = D.seq2seq_attention(step=0).diagram
    assert ("predict", "out0") in d1["arrows"]
    with pytest.raises(ValueError):
        D.seq2seq_attention(scores=(1.0, 2.0))
    with pytest.raises(ValueError):
        D.seq2seq_attention(step=3)


def test_transformer_block_pre_ln_order(figs):
    d = figs["transformer_block"].diagram
    assert d["sublayers"] == ["ln1", "attention", "ln2", "ffn"]
    assert d["pre_ln"].split(" → ")[1:6] == ["LayerNorm", "多头注意力", "+", "LayerNorm", "前馈网络 FFN"]
    assert d["post_ln"].split(" → ")[1:5] == ["多头注意力", "+", "LayerNorm", "前馈网络 FFN"]
    arrows = set(d["arrows"])
    # 残差：Pre-LN 从 X 跳到第一个加号、从 U 跳到第二个加号；Post-LN 的第二个残差从第一个 LayerNorm 出发
    assert {("pre_x", "pre_add1"), ("pre_add1", "pre_add2"), ("post_x", "post_add1"),
            ("post_ln1", "post_add2")} <= arrows
    assert d["shapes"]["W1"] == (128, 512) and d["shapes"]["W2"] == (512, 128)


def test_model_family_masks_equal_the_package(figs):
    masks = figs["model_families"].diagram["masks"]
    assert np.array_equal(masks["BERT 编码器"], O.attention_mask_for("encoder", 5))
    assert np.array_equal(masks["GPT 解码器"], causal_mask(6))
    assert np.array_equal(masks["T5 编码器"], np.ones((5, 5), bool))
    assert np.array_equal(masks["T5 解码器"], causal_mask(3))
    assert np.array_equal(masks["T5 交叉注意力"], O.cross_attention_mask(3, 5))


def test_model_family_inputs_and_targets():
    ex = D.family_examples()
    assert ex["BERT"]["inputs"][3] == "[MASK]" and ex["BERT"]["targets"][3] == "精彩"
    assert ex["GPT"]["inputs"][1:] == ex["GPT"]["targets"][:-1]            # 错开一位
    assert ex["T5"]["targets"] == ["<extra_id_0>", "精彩", "<extra_id_1>"]
    assert ex["T5"]["decoder_inputs"][1:] == ex["T5"]["targets"][:-1]
    with pytest.raises(ValueError):
        D.family_examples(masked=9)
