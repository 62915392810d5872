"""注意力浏览器（第 13 章“注意力浏览器”一节）：设置控件的值，静态视图（fallback_html）必须跟着变；
浏览器查的表（data）和视图里的数字都从纯函数核对。"""
import inspect
import re
import time

import numpy as np
import pytest

from nlpbook.attention_demo import HEADS, IT_INDEX, demo_heads, demo_score_matrix, demo_sentence, demo_values
from nlpbook.widgets.attention_explorer import OVERLAY, AttentionExplorer, explorer_data, explorer_html

TOKENS = demo_sentence()
SCORES = {h: demo_score_matrix(h) for h in HEADS}
LEI = TOKENS.index("累")


def _numbers(view: str) -> list[float]:
    """视图里带颜色方块的三位小数（每个 token、每个头一个）。"""
    return [float(x) for x in re.findall(r"■</span>(-?\d+\.\d{3})", view)]


def test_default_view_is_it_with_both_heads_overlaid():
    p = AttentionExplorer()
    v = p.fallback_html()
    assert p.query == IT_INDEX and p.step == "softmax" and p.head == OVERLAY
    assert "「它」" in v and "指代头" in v and "邻近头" in v and "示意值" in v
    assert "#CC79A7" in v and "#0072B2" in v          # 两个头各一种 Okabe–Ito 颜色
    nums = _numbers(v)
    assert len(nums) == 2 * len(TOKENS)               # 叠加：每个 token 两个数
    w = demo_heads()
    assert nums[0::2] == [round(x, 3) for x in w["指代头"][IT_INDEX]]
    assert nums[1::2] == [round(x, 3) for x in w["邻近头"][IT_INDEX]]


def test_every_control_changes_the_view():
    p = AttentionExplorer()
    seen = {p.fallback_html()}
    for name, value in (("query", 0), ("step", "scores"), ("step", "output"), ("head", "指代头"),
                        ("head", "邻近头"), ("causal", True), ("query", IT_INDEX)):
        setattr(p, name, value)
        assert p.fallback_html() not in seen, (name, value)
        seen.add(p.fallback_html())


def test_weights_sum_to_one_and_match_demo_heads():
    for causal in (False, True):
        for q in range(len(TOKENS)):
            d = explorer_data(TOKENS, SCORES, q, causal=causal)
            for h in HEADS:
                assert d["weights"][h].sum() == pytest.approx(1.0)
                assert np.allclose(d["weights"][h], demo_heads(causal)[h][q])


def test_causal_puts_zero_weight_on_every_later_token():
    for q in range(len(TOKENS)):
        d = explorer_data(TOKENS, SCORES, q, causal=True)
        assert d["visible"].tolist() == [j <= q for j in range(len(TOKENS))]
        for h in HEADS:
            assert np.all(d["weights"][h][q + 1:] == 0.0)
            assert np.all(np.isneginf(d["scores"][h][q + 1:]))


def test_causal_toggle_it_cannot_see_lei():
    p = AttentionExplorer()
    p.head = "指代头"
    before = _numbers(p.fallback_html())
    assert before[LEI] == pytest.approx(0.116) and before[0] == pytest.approx(0.522)
    p.causal = True
    v = p.fallback_html()
    after = _numbers(v)
    assert len(after) == IT_INDEX + 1                 # 后面 3 个位置不再显示数，而是灰色的 0
    assert after[0] == pytest.approx(0.622)
    assert "还看不到后面的 3 个词（太、累、了）" in v and "权重恰好是 0" in v
    p.step = "scores"
    assert v.count("—") >= 3 and "−∞" in p.fallback_html() and "<s>1.500</s>" in p.fallback_html()


def test_output_step_shows_weighted_sum_of_values():
    d = explorer_data(TOKENS, SCORES, IT_INDEX, step="output", values=demo_values())
    for h in HEADS:
        assert np.allclose(d["output"][h], demo_heads()[h][IT_INDEX] @ demo_values())
    v = explorer_html(TOKENS, SCORES, IT_INDEX, step="output", values=demo_values())
    for h in HEADS:
        assert "[" + ", ".join(f"{x:.3f}" for x in d["output"][h]) + "]" in v
    assert "0.522×V(「小猫」)" in v


def test_scores_step_shows_raw_scores():
    v = explorer_html(TOKENS, SCORES, IT_INDEX, step="scores", head="指代头")
    assert _numbers(v) == [round(float(x), 3) for x in SCORES["指代头"][IT_INDEX]]


def test_trained_maps_layer_and_head_change_the_view():
    rng = np.random.default_rng(0)
    T, L, H = 6, 2, 3
    logits = rng.normal(size=(L, H, T, T))
    logits = np.where(np.tril(np.ones((T, T), bool)), logits, -np.inf)
    maps = np.exp(logits - logits.max(-1, keepdims=True))
    maps /= maps.sum(-1, keepdims=True)
    toks = list("这本书很好\n")
    e = AttentionExplorer.from_maps(maps, toks, layer=0, head=1)
    assert e.query == T - 1 and e.causal and e.data["causal_fixed"]
    assert [v for _, v in e.data["steps"]] == ["softmax"] and e.data["layers"] == ["第 1 层", "第 2 层"]
    assert "第 1 层" in e.fallback_html() and "⏎" in e.fallback_html()
    assert _numbers(e.fallback_html()) == [round(x, 3) for x in maps[0, 1, T - 1]]
    seen = {e.fallback_html()}
    for name, value in (("layer", 1), ("head", "头 3"), ("head", OVERLAY), ("query", 2)):
        setattr(e, name, value)
        assert e.fallback_html() not in seen, (name, value)
        seen.add(e.fallback_html())
    assert "第 2 层" in e.fallback_html()
    nums = _numbers(e.fallback_html())               # 叠加、query=2：3 个可见位置 × 3 个头
    assert nums == [round(maps[1, h, 2, j], 3) for j in range(3) for h in range(H)]


def test_constructor_has_only_public_arguments():
    """训练好的模型走 from_maps；__init__ 不暴露内部用的参数（以下划线开头的）。"""
    params = inspect.signature(AttentionExplorer.__init__).parameters
    assert not [p for p in params if p.startswith("_")]
    with pytest.raises(TypeError):
        AttentionExplorer(_maps=np.zeros((1, 1, 2, 2)))


def test_real_model_maps_are_accepted():
    from nlpbook.tiny_transformer import load_pretrained
    m = load_pretrained()
    text = "\n房间很干净。"
    maps = np.array(m.attention_maps(text))
    e = AttentionExplorer.from_maps(maps, list(text), layer=1, head=3)
    assert e.layer == 1 and e.head == "头 4" and "第 2 层" in e.fallback_html()


def test_update_is_fast():
    p = AttentionExplorer()
    t0 = time.perf_counter()
    for step in ("scores", "softmax", "output", "scores", "output"):
        p.step = step
        p.fallback_html()
    assert (time.perf_counter() - t0) / 5 < 0.1


def test_duplicate_tokens_get_unique_labels():
    e = AttentionExplorer(list("好好"), {"h": np.zeros((2, 2))})
    assert e.data["labels"] == ["1·好", "2·好"]


@pytest.mark.parametrize("kwargs, match", [
    (dict(query=10), r"query 必须是 0\.\.9 之间的整数"),
    (dict(query=-1), r"query 必须是 0\.\.9"),
    (dict(head="主语头"), r"head 只能是 \['指代头', '邻近头'\] 之一，或 'overlay'"),
    (dict(step="logits"), r"step 只能是 \['scores', 'softmax', 'output'\]"),
    (dict(step="output"), r"需要 values"),
    (dict(values=np.zeros((3, 3))), r"values 的形状应为 \(10, d_v\)"),
])
def test_bad_inputs_say_what_is_allowed(kwargs, match):
    args = dict(tokens=TOKENS, heads=SCORES, query=IT_INDEX)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        explorer_html(**args)


def test_bad_shapes_and_types():
    with pytest.raises(ValueError, match=r"heads\['h'\] 的形状应为 \(10, 10\)"):
        explorer_html(TOKENS, {"h": np.zeros((9, 10))}, 0)
    with pytest.raises(TypeError, match="tokens 必须是非空的字符串列表"):
        explorer_html("小猫", SCORES, 0)
    with pytest.raises(ValueError, match="kind='weights' 时"):
        explorer_html(TOKENS, SCORES, 0, kind="weights")
    with pytest.raises(ValueError, match=r"step 只能是 \['softmax'\]"):
        explorer_html(TOKENS, demo_heads(), 0, step="scores", kind="weights")
    with pytest.raises(ValueError, match=r"maps 的形状应为 \(层数, 头数, T, T\)"):
        AttentionExplorer.from_maps(np.zeros((2, 3, 3)), list("abc"))
    with pytest.raises(ValueError, match="T=3 与 tokens 的个数 2 不一致"):
        AttentionExplorer.from_maps(np.full((1, 1, 3, 3), 1 / 3), list("ab"))
    with pytest.raises(ValueError, match=r"head 必须是 0\.\.0 之间的整数"):
        AttentionExplorer.from_maps(np.full((1, 1, 3, 3), 1 / 3), list("abc"), head=2)
    with pytest.raises(ValueError, match=r"layer 必须是 0\.\.0"):
        AttentionExplorer.from_maps(np.full((1, 1, 3, 3), 1 / 3), list("abc"), layer=1)
    with pytest.raises(TypeError, match="要么都给出"):
        AttentionExplorer(tokens=TOKENS)


def _chips(view: str) -> dict:
    """连线图里每个头的色块底色深浅：{头: {token 位置: fill-opacity}}。"""
    out = {}
    for head, key, w, op in re.findall(r'<rect class="chip" data-head="([^"]*)" data-key="(\d+)" '
                                       r'data-weight="([\d.]+)"[^>]*fill-opacity="([\d.]+)"', view):
        assert w == op
        out.setdefault(head, {})[int(key)] = float(op)
    return out


def _links(view: str) -> dict:
    out = {}
    for head, key, op in re.findall(r'<path class="link" data-head="([^"]*)" data-key="(\d+)" '
                                    r'data-weight="[\d.]+"[^>]*stroke-opacity="([\d.]+)"', view):
        out.setdefault(head, {})[int(key)] = float(op)
    return out


def test_link_picture_intensities_are_the_attention_weights():
    p = AttentionExplorer()
    w = demo_heads()
    chips, links = _chips(p.fallback_html()), _links(p.fallback_html())
    assert set(chips) == set(HEADS) == set(links)
    for h in HEADS:
        assert [chips[h][j] for j in range(len(TOKENS))] == pytest.approx(w[h][IT_INDEX], abs=6e-5)
        assert [links[h][j] for j in range(len(TOKENS))] == pytest.approx(w[h][IT_INDEX], abs=6e-5)
    # 换一个提问的词，深浅跟着变，仍然等于新一行的权重
    p.query = 2
    moved = _chips(p.fallback_html())
    assert moved != chips
    for h in HEADS:
        assert [moved[h][j] for j in range(len(TOKENS))] == pytest.approx(w[h][2], abs=6e-5)
    p.head = "指代头"
    assert set(_chips(p.fallback_html())) == {"指代头"}


def test_link_picture_masked_keys_have_zero_intensity_and_no_line():
    p = AttentionExplorer()
    p.causal = True
    chips, links = _chips(p.fallback_html()), _links(p.fallback_html())
    d = explorer_data(TOKENS, SCORES, IT_INDEX, causal=True)
    for h in HEADS:
        assert all(chips[h][j] == 0 for j in range(IT_INDEX + 1, len(TOKENS)))
        assert sorted(links[h]) == list(range(IT_INDEX + 1))          # 只连向看得见的词
        assert [chips[h][j] for j in range(len(TOKENS))] == pytest.approx(d["weights"][h], abs=6e-5)
    assert p.fallback_html().count('fill="url(#attn-hatch)"') == len(TOKENS) - IT_INDEX - 1
    p.step = "scores"                                                    # 第 ① 步还没有权重：不画连线图
    assert 'class="links"' not in p.fallback_html()


def test_trained_explorer_links_and_fits_900px():
    from nlpbook.tiny_transformer import load_pretrained
    m = load_pretrained()
    text = "\n这家酒店的服务很好，房间也很干净，下次还会再来。"
    maps = np.array(m.attention_maps(text))
    q = list(text).index("还")
    e = AttentionExplorer.from_maps(maps, list(text), layer=1, head=3, query=q)
    chips = _chips(e.fallback_html())["头 4"]
    assert [chips[j] for j in range(len(text))] == pytest.approx(np.where(np.arange(len(text)) <= q, maps[1, 3, q], 0),
                                                                  abs=6e-5)
    assert all(chips[j] == 0 for j in range(q + 1, len(text)))
    e.query = 5
    assert [_chips(e.fallback_html())["头 4"][j] for j in range(len(text))] == \
        pytest.approx(maps[1, 3, 5], abs=6e-5)
    e.head = OVERLAY
    assert set(_chips(e.fallback_html())) == {f"头 {h + 1}" for h in range(maps.shape[1])}
    # 放得进 900 px 的栏：连线图最宽 860 px；数字表分成几张，每张的列数 × 列宽不超过 860 px
    v = e.fallback_html()
    assert int(re.search(r'<svg[^>]*class="links" width="(\d+)"', v).group(1)) <= 860
    tables = re.findall(r"<table.*?</table>", v)
    assert len(tables) >= 2 and all(t.count("<th") * 48 <= 860 for t in tables)
    assert sum(t.count("<th") for t in tables) == len(text)


# ---------- 浏览器里查的表（data）：Python 用 explorer_data 一次算好，按显示的位数取三位小数 ----------
def test_data_holds_every_weight_row_rounded_to_three_decimals():
    p = AttentionExplorer()
    d = p.data
    assert d["tokens"] == TOKENS and d["heads"] == list(HEADS) and d["layers"] is None
    assert [v for _, v in d["steps"]] == ["scores", "softmax", "output"]
    for causal in (False, True):
        w = demo_heads(causal)
        for q in range(len(TOKENS)):
            for h, name in enumerate(HEADS):
                assert d["w"][0][int(causal)][q][h] == [round(float(x), 3) for x in w[name][q]]
                assert d["sum"][0][int(causal)][q][h] == 1.0
                out = w[name][q] @ demo_values()
                assert d["out"][0][int(causal)][q][h] == [round(float(x), 3) for x in out]
    assert d["w"][0][1][IT_INDEX][0][LEI] == 0.0                # 只看前文：“它”看不到“累”
    assert d["w"][0][0][IT_INDEX][0][0] == 0.522 and d["top"][0][0][IT_INDEX][0] == [0, 3, 8]   # 小猫、桌子、累
    assert d["scores"][0][0][IT_INDEX] == [round(float(x), 3) for x in SCORES["指代头"][IT_INDEX]]
    assert d["rgb"][0][0][IT_INDEX][0].startswith("#") and len(d["rgb"][0][0][IT_INDEX][0]) == 7


def test_trained_data_has_every_layer_with_the_mask_on_only():
    rng = np.random.default_rng(1)
    maps = rng.random((2, 3, 4, 4)) * np.tril(np.ones((4, 4)))
    maps /= maps.sum(-1, keepdims=True)
    e = AttentionExplorer.from_maps(maps, list("abcd"), layer=1)
    d = e.data
    assert d["scores"] is None and d["out"] is None and d["causal_fixed"]
    for L in range(2):
        assert d["w"][L][0] is None                           # 训练好的模型不关遮罩：不算这半张表
        for q in range(4):
            assert d["w"][L][1][q] == [[round(float(x), 3) for x in maps[L, h, q]] for h in range(3)]


def test_bad_trait_values_are_refused():
    from traitlets import TraitError
    p = AttentionExplorer()
    for name, value, match in (("query", 10, r"query 必须是 0\.\.9"), ("step", "logits", "step 只能是"),
                               ("head", "主语头", "head 只能是"), ("layer", 1, r"layer 必须是 0\.\.0")):
        with pytest.raises(TraitError, match=match):
            setattr(p, name, value)
    e = AttentionExplorer.from_maps(np.full((1, 1, 3, 3), 1 / 3), list("abc"))
    with pytest.raises(TraitError, match="本身就是因果的"):
        e.causal = False
    with pytest.raises(TraitError, match="step 只能是"):
        e.step = "scores"
