"""第 11 章生成面板：纵轴随数据缩放、数值标注不重叠、高温下标注不全是 0、长提示词被截断并说明、
只现场采样没有预先采好的设置（GRU 接着隐藏状态往下算，不每步从头读前文）；浏览器里的视图（node 运行
js/generation_panel.js）与 fallback_html 逐字相同，网站上没有内核时写明续写用的是哪组设置。"""
import re

import numpy as np
import pytest

from nlpbook.char_rnn import CharRNNLM, init_char_rnn
from nlpbook.charlm import CharNGramLM
from nlpbook.decoding import decode_step, generate
from nlpbook.svgplot import bar_layout
from nlpbook.widgets import generation_panel as gp
from _jsview import js_call, needs_node
from nlpbook.widgets.generation_panel import (GenerationPanel, continuations, next_token_view, panel_html,
                                              percent, prompt_for_model)

TEXTS = ["这家酒店很好", "这家酒店不好", "这本书很好看", "服务很好，下次还来", "房间太小了，不推荐"]


@pytest.fixture(scope="module")
def lm():
    return CharNGramLM(n=3, min_count=1).fit(TEXTS)


@pytest.fixture(scope="module")
def gru(lm):
    return CharRNNLM(init_char_rnn(len(lm.vocab), hidden=16, dim=8, seed=3))


def _values(svg: str) -> list[str]:
    return re.findall(r'<text class="value"[^>]*>([^<]*)</text>', svg)


def _yticks(svg: str) -> list[str]:
    return re.findall(r'<text class="ytick"[^>]*>([^<]*)</text>', svg)


def _old_continuations(next_logits, encode, decode, prompt, t, k=0, p=1.0, seed=0, n=3, m=30):
    """改动前的做法：每步调用 next_logits(整段前文)，用 decoding.generate。"""
    start, out = encode(prompt), []
    for s in range(seed, seed + n):
        ids = generate(next_logits, start, m, temperature=t, top_k=k or None, top_p=p if p < 1 else None,
                       rng=np.random.default_rng(s))
        out.append(decode(ids[len(start):]))
    return out


def test_percent_has_adaptive_precision():
    assert [percent(v) for v in (0.131, 0.0423, 0.00123, 0.0000123, 0.0)] == ["13%", "4.2%", "0.12%", "0.0012%", "0%"]
    assert percent(1e-9) == "<0.0001%"


def test_axis_scales_to_the_data_not_fixed_0_to_1(lm):
    view = next_token_view(lm.next_logits(lm.encode("很")), lm.vocab, 1.0)
    svg = panel_html(view, ["好"] * 3, "很", 1.0, 0, 1.0)
    top = max(float(t.rstrip("%")) for t in _yticks(svg)) / 100
    biggest = max(view["raw"])
    assert biggest <= top < biggest + 0.25 and top < 1.0 or biggest > 0.75


def test_value_labels_never_overlap(lm):
    view = next_token_view(lm.next_logits(lm.encode("这家")), lm.vocab, 1.0)
    series = {"原始": view["raw"], "温度": view["tempered"], "过滤后": view["filtered"]}
    for width in (460, 860, 300):
        lay = bar_layout(view["tokens"], series, fmt=percent, width=width, height=260)
        boxes = [v["box"] for v in lay["labels"]]
        for i, a in enumerate(boxes):
            assert a[1] >= 32 and a[0] >= 0 and a[2] <= width   # 不压图例、不出画布
            for b in boxes[i + 1:]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
        assert lay["value_mode"] in ("horizontal", "vertical", "narrow")
    narrow = bar_layout(view["tokens"], series, fmt=percent, width=300, height=260)
    assert narrow["value_mode"] in ("vertical", "narrow")   # 300 px 放不下横排的三个百分数


def test_high_temperature_labels_are_not_all_zero(lm):
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=5)
    p.temperature = 5.0
    labels = _values(p.fallback_html())
    assert labels and all(re.search(r"[1-9]", s) for s in labels), labels
    assert "0.00" not in labels


def test_continuations_match_the_plain_generate_loop(lm, gru):
    enc = lambda s: lm.encode("\n" + s)  # noqa: E731  与第 11 章的 encode_review 相同
    for t, k, p in ((1.0, 0, 1.0), (0.7, 5, 1.0), (2.0, 0, 0.9), (0.0, 0, 1.0)):
        assert continuations(lm.next_logits, lm.encode, lm.decode, "这家", t, k, p, 0, 3, 12) == \
            _old_continuations(lm.next_logits, lm.encode, lm.decode, "这家", t, k, p, 0, 3, 12)
        assert continuations(gru.next_logits, enc, lm.decode, "这家", t, k, p, 4, 3, 12) == \
            _old_continuations(gru.next_logits, enc, lm.decode, "这家", t, k, p, 4, 3, 12)


def test_fast_steps_pick_what_decode_step_picks():
    rng = np.random.default_rng(0)
    for trial in range(60):
        V = int(rng.integers(2, 500))
        Z = rng.normal(0, rng.uniform(0.1, 8), (3, V))
        t, k, p = float(rng.choice([0, 0.1, 1, 5])), int(rng.choice([0, 1, 5, V + 2])), float(rng.choice([1, 0.9, 0.3]))
        got = gp._fast_steps(Z, t, k, p, [np.random.default_rng(trial * 3 + i) for i in range(3)])
        want = [decode_step(Z[i], t, k or None, p if p < 1 else None, np.random.default_rng(trial * 3 + i))[0]
                for i in range(3)]
        assert got == want
    for trial in range(20):                  # 每行一组设置（预先采样时一整组设置一起算）
        V = int(rng.integers(2, 300))
        Z = rng.normal(0, 3, (6, V))
        T = rng.choice([0, 0.1, 1, 5], 6).astype(float)
        K = rng.choice([0, 1, 5, V + 2], 6)
        P = rng.choice([1, 0.9, 0.3], 6).astype(float)
        got = gp._fast_steps(Z, T, K, P, [np.random.default_rng(100 + i) for i in range(6)])
        want = [decode_step(Z[i], T[i], int(K[i]) or None, P[i] if P[i] < 1 else None, np.random.default_rng(100 + i))[0]
                for i in range(6)]
        assert got == want


def test_grid_sampling_equals_sampling_each_setting_alone(lm, gru):
    enc = lambda s: lm.encode("\n" + s)  # noqa: E731
    settings = [(0.0, 0, 1.0), (0.7, 0, 1.0), (2.0, 10, 1.0), (3.0, 0, 0.9), (1.0, 2, 0.5)]
    for model, encode in ((lm, lm.encode), (gru, enc)):
        st = gp._Stepper(model.next_logits, dtype=np.float64)
        state = st.start(encode("这家"))
        grid = gp._sample_grid(st, state, lm.decode, settings, 0, 3, 12)
        assert grid == [gp._sample_from(st, state, lm.decode, t, k, p, 0, 3, 12) for t, k, p in settings]
    st = gp._Stepper(lm.next_logits)                        # n 元模型没有精度之分：与 continuations 逐字相同
    assert gp._sample_grid(st, st.start(lm.encode("这家")), lm.decode, settings[1:2], 4, 3, 12)[0] == \
        continuations(lm.next_logits, lm.encode, lm.decode, "这家", 0.7, 0, 1.0, 4, 3, 12)


def _counting(monkeypatch):
    calls = {"step": 0, "start": 0}
    real_step, real_start = gp.gru_step, gp._Stepper.start

    def step(*a):
        calls["step"] += 1
        return real_step(*a)

    def start(self, ids):
        calls["start"] += 1
        return real_start(self, ids)

    monkeypatch.setattr(gp, "gru_step", step)
    monkeypatch.setattr(gp._Stepper, "start", start)
    return calls


def test_gru_panel_samples_only_what_is_not_precomputed(lm, gru, monkeypatch):
    calls = _counting(monkeypatch)
    p = GenerationPanel(gru.next_logits, lambda s: lm.encode("\n" + s), lm.decode, lm.vocab, prompt="这家酒店",
                        max_new_tokens=10)
    assert calls["start"] == len(gp.PROMPTS)               # 每个预设提示词读一次
    for c in calls:
        calls[c] = 0
    p.temperature = 0.5                      # 预先采好的设置：什么都不用算
    p.temperature, p.top_k = 2.0, 10
    p.top_k, p.top_p = 0, 0.9
    p.top_p = 1.0
    assert calls == {"step": 0, "start": 0}
    p.seed = 3                               # 别的种子：现场采样三段，不重读提示词（接着隐藏状态往下算）
    assert calls == {"step": 3 * 10, "start": 0}
    p.temperature = 0.6                      # 不在温度表里
    assert calls == {"step": 60, "start": 0}
    p.temperature = 1.0                      # (T=1, 种子 3)：也要现场采样
    assert calls == {"step": 90, "start": 0}
    p.temperature = 0.6                      # 回到见过的设置：取缓存
    assert calls == {"step": 90, "start": 0}
    p.prompt = "很好" * 1000                  # 2,000 个字：只读最后 200 个（外加一个换行）
    assert calls["start"] == 1 and calls["step"] == 90 + 201 + 30
    assert p.live["prompt"] == p.prompt and len(p.live["z"].split(",")) == len(lm.vocab)


def test_long_prompt_is_truncated_said_once_and_not_echoed(lm, gru):
    long = "很好" * 1000
    used, msg = prompt_for_model(long)
    assert used == long[-200:] and "2,000" in msg and "200" in msg
    p = GenerationPanel(gru.next_logits, lambda s: lm.encode("\n" + s), lm.decode, lm.vocab, prompt="这家",
                        max_new_tokens=5)
    p.prompt = long
    html = p.fallback_html()
    assert "提示词有 2,000 个字" in html and "提示词有 2,000 个字" in p.live["message"]
    assert html.count("很好很好很好很好很好很好很好") <= 1       # 不再把整段提示词回显三遍
    assert len(html) < 20_000
    assert html.count("<li>") == 3


def test_ngram_model_reads_only_its_window(lm):
    used, msg = prompt_for_model("这家酒店", window=2)
    assert used == "酒店" and msg == ""
    used, msg = prompt_for_model("好" * 500, window=2)
    assert used == "好好" and "只看最后 2 个字" in msg
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=5)
    p.prompt = "x" * 300 + "这家"
    assert "只看最后 2 个字" in p.fallback_html()
    assert continuations(lm.next_logits, lm.encode, lm.decode, "x" * 300 + "这家", 1.0, 0, 1.0, 0, 3, 8) == \
        continuations(lm.next_logits, lm.encode, lm.decode, "这家", 1.0, 0, 1.0, 0, 3, 8)


def test_every_control_changes_the_view_and_empty_prompt_says_what_to_do(lm):
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=8)
    seen = {p.fallback_html()}
    for name, value in (("temperature", 2.5), ("seed", 9), ("top_k", 2), ("top_p", 0.5), ("prompt", "服务")):
        setattr(p, name, value)
        assert p.fallback_html() not in seen, name
        seen.add(p.fallback_html())
    assert "试一试" in p.fallback_html() and "种子 9、10、11" in p.fallback_html()
    p.prompt = ""
    assert "请先输入提示词" in p.fallback_html()


def test_chart_uses_the_column_width_and_is_labelled(lm):
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=3)
    html = p.fallback_html()
    w = int(re.search(r'<svg[^>]*width="(\d+)"', html).group(1))
    assert 800 <= w <= 900 and "max-width:100%" in html
    label = re.search(r'<svg role="img" aria-label="([^"]+)"', html).group(1)   # 读屏软件：标题和每根柱子的数
    view = p.bars()
    assert label.startswith("“这家”之后的下一个字") and f"{view['tokens'][0]} {percent(view['raw'][0])}" in label


def test_greedy_bars_show_the_chosen_token_and_its_runners_up(lm):
    z = lm.next_logits(lm.encode("这家"))
    view = next_token_view(z, lm.vocab, 0.0)
    assert view["tokens"] == next_token_view(z, lm.vocab, 1.0)["tokens"]   # 贪心时也画原始概率最高的几个字
    assert view["tempered"][0] == 1.0 and sum(view["tempered"]) == 1.0 and view["kept"] == 1


# ---------- 浏览器里用的数据，以及浏览器里算出的视图 ----------

def test_data_holds_rounded_logits_and_precomputed_samples(lm, gru):
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=6)
    d = p.data
    assert [e["prompt"] for e in d["prompts"]] == ["这家", *gp.PROMPTS] and d["scale"] == gp.SCALE == 1000
    assert d["vocab"].split("\n") == [{"\n": "⏎", " ": "␠"}.get(v, v) for v in lm.vocab]
    for e in d["prompts"]:                        # logits 保留 3 位小数，最大的是 0
        z = lm.next_logits(lm.encode(e["prompt"]))
        ints = [int(v) for v in e["z"].split(",")]
        assert ints == np.rint((z - z.max()) * 1000).astype(int).tolist() and max(ints) == 0
    view, exact = p.bars(), next_token_view(lm.next_logits(lm.encode("这家")), lm.vocab, 1.0)
    assert view["tokens"] == exact["tokens"] and np.allclose(view["raw"], exact["raw"], rtol=2e-3)
    # 续写：每个预设提示词 × 温度表（不过滤），再加几个温度上的 top-k=10、top-p=0.9；种子 0、1、2
    want = len(gp.SAMPLE_TEMPS) + len(gp.FILTER_TEMPS) * len(gp.SAMPLE_FILTERS)
    assert len(d["grid"]) == len(d["prompts"]) * want
    for i, t, k, q, ids in d["grid"][:3] + d["grid"][-3:]:
        prompt = d["prompts"][i]["prompt"]
        assert [d["texts"][j] for j in ids] == continuations(lm.next_logits, lm.encode, lm.decode, prompt, t, k, q, 0, 3, 6)
    assert len(set(d["texts"])) == len(d["texts"])                     # 相同的续写只存一份


def test_kernel_answers_what_the_browser_cannot(lm):
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=6)
    assert p.result == {"key": ["这家", 1.0, 0, 1.0, 0], "texts": p.data["texts"][:0] + p._grid[("这家", 1.0, 0, 1.0)]}
    p.seed = 7
    assert p.result["key"] == ["这家", 1.0, 0, 1.0, 7]
    assert p.result["texts"] == continuations(lm.next_logits, lm.encode, lm.decode, "这家", 1.0, 0, 1.0, 7, 3, 6)
    assert p.live == {}
    p.prompt = "下次"                                  # 不是预设的提示词：内核把它的 logits 也写回去
    assert p.live["prompt"] == "下次" and "0" in p.live["z"].split(",") and p.result["key"][0] == "下次"


def _js_views(data, cases) -> list[str]:
    """js/generation_panel.js 的 viewHtml(data, 控件值, offline, live, result, cache)：所有情形共用一个缓存。"""
    return js_call("generation_panel", data, [[c["st"], c["offline"], c["live"], c["result"]] for c in cases],
                   fn="viewHtml", cache=True)


@needs_node
def test_browser_view_equals_the_fallback_html(lm, gru):
    """浏览器里（js/generation_panel.js）用 data 里的 logits 算温度、top-k、top-p、画图，与 Python 的
    fallback_html（decoding 的函数 + svgplot.bar_chart）逐字相同：各种温度、过滤、种子、预设与自己写的提示词。"""
    for model, encode in ((lm, lm.encode), (gru, lambda s: lm.encode("\n" + s))):
        p = GenerationPanel(model.next_logits, encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=6)
        cases, want = [], []
        for prompt in ("这家", "房间很", "下次"):
            for t in (0.0, 0.1, 0.7, 1.0, 1.3, 3.0, 5.0):
                for k, q, seed in ((0, 1.0, 0), (1, 1.0, 0), (2, 1.0, 7), (0, 0.5, 0), (5, 0.9, 3), (50, 0.05, 0),
                                   (10, 1.0, 0), (0, 0.9, 0)):
                    p.prompt, p.temperature, p.top_k, p.top_p, p.seed = prompt, t, k, q, seed
                    cases.append({"st": {n: getattr(p, n) for n in p.controls}, "offline": False,
                                  "live": p.live, "result": p.result})
                    want.append(p.fallback_html())
        got = _js_views(p.data, cases)
        bad = [c["st"] for c, a, b in zip(cases, got, want) if a != b]
        assert not bad, f"{len(bad)} 组设置不一致，如 {bad[:3]}"


@needs_node
def test_site_view_without_kernel(lm):
    """阅读网站上（offline，没有内核）：预先采好的设置与 fallback_html 相同；别的设置显示最接近的一组并写明。"""
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家酒店", max_new_tokens=6)
    settings = [dict(prompt="这家酒店", temperature=0.7, top_k=0, top_p=1.0, seed=0),     # 预先采好的
                dict(prompt="服务", temperature=0.0, top_k=5, top_p=0.5, seed=9),         # 贪心：与过滤、种子无关
                dict(prompt="这本书", temperature=2.0, top_k=10, top_p=1.0, seed=0),
                dict(prompt="这家酒店", temperature=0.7, top_k=0, top_p=1.0, seed=7),     # 别的种子
                dict(prompt="房间很", temperature=1.3, top_k=5, top_p=1.0, seed=0),       # 别的温度与过滤
                dict(prompt="房间很", temperature=2.4, top_k=10, top_p=1.0, seed=0)]
    got = _js_views(p.data, [{"st": s, "offline": True, "live": {}, "result": {}} for s in settings])
    for s, html in zip(settings[:3], got[:3]):
        p.set_trait("prompt", s["prompt"])
        for name in ("temperature", "top_k", "top_p", "seed"):
            setattr(p, name, s[name])
        assert html == p.fallback_html(), s
    assert "网页上没有内核" in got[3] and "种子 7、8、9" in got[3] and "T=0.7、不过滤、种子 0、1、2 的续写" in got[3]
    assert "top-k=5" in got[4] and "T=1.5、不过滤、种子 0、1、2 的续写" in got[4]   # 最近的温度
    assert "T=2、top-k=10、种子 0、1、2 的续写" in got[5]
    for html in got[3:]:
        assert html.count("<li>") == 3
