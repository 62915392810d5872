"""第 11 章生成面板：纵轴随数据缩放、数值标注不重叠、高温下标注不全是 0、长提示词被截断并说明、
拖动一个旋钮只重算与它有关的部分（GRU 接着隐藏状态往下算，不每步从头读前文）。"""
import re

import numpy as np
import pytest

from nlpbook.char_rnn import CharRNNLM, init_char_rnn
from nlpbook.charlm import CharNGramLM
from nlpbook.decoding import decode_step, generate
from nlpbook.svgplot import bar_layout
from nlpbook.widgets import generation_panel as gp
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
    p.temperature.value = 5.0
    labels = _values(p.view.value)
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


def test_gru_panel_does_not_reread_the_prompt_per_step_or_per_change(lm, gru, monkeypatch):
    calls = {"step": 0, "start": 0, "view": 0}
    real_step, real_view, real_start = gp.gru_step, gp.next_token_view, gp._Stepper.start

    def step(*a):
        calls["step"] += 1
        return real_step(*a)

    def view(*a, **k):
        calls["view"] += 1
        return real_view(*a, **k)

    def start(self, ids):
        calls["start"] += 1
        return real_start(self, ids)

    monkeypatch.setattr(gp, "gru_step", step)
    monkeypatch.setattr(gp, "next_token_view", view)
    monkeypatch.setattr(gp._Stepper, "start", start)
    p = GenerationPanel(gru.next_logits, lambda s: lm.encode("\n" + s), lm.decode, lm.vocab, prompt="这家酒店",
                        max_new_tokens=10)
    for c in calls:
        calls[c] = 0
    p.temperature.value = 0.5                # 温度变了：重算条形图和续写，不重读提示词
    assert calls == {"step": 3 * 10, "start": 0, "view": 1}
    p.seed.value = 3                         # 种子变了：只重采样，条形图不用重算
    assert calls == {"step": 60, "start": 0, "view": 1}
    p.seed.value = 0                         # 回到见过的设置：全部取缓存
    p.temperature.value = 1.0
    assert calls == {"step": 60, "start": 0, "view": 1}
    p.prompt.value = "很好" * 1000            # 2,000 个字：只读最后 200 个（外加一个换行）
    assert calls["start"] == 1 and calls["step"] == 60 + 201 + 30


def test_long_prompt_is_truncated_said_once_and_not_echoed(lm, gru):
    long = "很好" * 1000
    used, msg = prompt_for_model(long)
    assert used == long[-200:] and "2,000" in msg and "200" in msg
    p = GenerationPanel(gru.next_logits, lambda s: lm.encode("\n" + s), lm.decode, lm.vocab, prompt="这家",
                        max_new_tokens=5)
    p.prompt.value = long
    html = p.view.value
    assert "提示词有 2,000 个字" in html
    assert html.count("很好很好很好很好很好很好很好") <= 1       # 不再把整段提示词回显三遍
    assert len(html) < 20_000
    assert p.view.value.count("<li>") == 3


def test_ngram_model_reads_only_its_window(lm):
    used, msg = prompt_for_model("这家酒店", window=2)
    assert used == "酒店" and msg == ""
    used, msg = prompt_for_model("好" * 500, window=2)
    assert used == "好好" and "只看最后 2 个字" in msg
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=5)
    p.prompt.value = "x" * 300 + "这家"
    assert "只看最后 2 个字" in p.view.value
    assert continuations(lm.next_logits, lm.encode, lm.decode, "x" * 300 + "这家", 1.0, 0, 1.0, 0, 3, 8) == \
        continuations(lm.next_logits, lm.encode, lm.decode, "这家", 1.0, 0, 1.0, 0, 3, 8)


def test_every_control_changes_the_view_and_empty_prompt_says_what_to_do(lm):
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=8)
    seen = {p.view.value}
    for control, value in ((p.temperature, 2.5), (p.seed, 9), (p.top_k, 2), (p.top_p, 0.5), (p.prompt, "服务")):
        control.value = value
        assert p.view.value not in seen, control.description
        seen.add(p.view.value)
    assert "试一试" in p.view.value
    p.prompt.value = ""
    assert "请先输入提示词" in p.view.value


def test_chart_uses_the_column_width(lm):
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=3)
    w = int(re.search(r'<svg[^>]*width="(\d+)"', p.view.value).group(1))
    assert 800 <= w <= 900 and "max-width:100%" in p.view.value
