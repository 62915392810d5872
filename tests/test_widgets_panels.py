"""第 2、5–10 章面板的“一眼看懂”：标出所选的 n、数字不用科学计数法、标注不重叠、
坏输入有一行说明、长文本截断并说明、感受野画出来（issue 15）。"""
import re

import numpy as np
import pytest

from nlpbook.svgplot import fmt_number, line_chart, text_width


def _texts(svg, cls):
    """SVG 里某一类 <text> 的 (x, y, 文字)。"""
    pat = rf'<text class="{cls}" x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)</text>'
    return [(float(x), float(y), t) for x, y, t in re.findall(pat, svg)]


def _plot_top(svg):
    """纵轴（x1 == x2 的第一条黑线）的上端 y。"""
    m = re.search(r'<line x1="(\d+)" y1="([\d.]+)" x2="\1" y2="[\d.]+" stroke="#333"/>', svg)
    return float(m.group(2))


@pytest.mark.parametrize("v, want", [(191751.06, "191,751"), (0.5, "0.5"), (9.54e-07, "0.000000954"),
                                     (123.456, "123"), (999.9, "1,000"), (0, "0"), (-2500, "-2,500")])
def test_fmt_number_never_scientific(v, want):
    assert fmt_number(v) == want


def test_line_chart_ticks_plain_and_labels_clear_of_each_other():
    svg = line_chart(list(range(31)), {"系数 1.5": [1.5 ** t for t in range(31)]}, ylabel="影响（倍数）")
    ticks = _texts(svg, "ytick")
    assert "e+" not in svg and any(t == "200,000" for _, _, t in ticks)
    # 纵轴标题旋转后约占 x∈[3, 16]；每个刻度文字（右对齐）的左端都在它右边
    assert min(x - text_width(t) for x, _, t in ticks) > 18
    # 图例在画图区上方，不压曲线
    (_, ly, name), = _texts(svg, "legend")
    assert name == "系数 1.5" and ly < _plot_top(svg)


def test_line_chart_marks_the_selected_x():
    a = line_chart([1, 2, 3], {"甲": [1, 4, 9]}, mark_x=2, mark_text="所选 n = 2")
    b = line_chart([1, 2, 3], {"甲": [1, 4, 9]}, mark_x=3, mark_text="所选 n = 3")
    xa = float(re.search(r'class="mark" x1="([\d.]+)"', a).group(1))
    xb = float(re.search(r'class="mark" x1="([\d.]+)"', b).group(1))
    assert xb > xa and "所选 n = 3" in b and _texts(a, "mark-value")[0][2] == "4"
    assert "class=\"mark\"" not in line_chart([1, 2, 3], {"甲": [1, 4, 9]})


def _ngram_stats():
    from nlpbook.ngram import unseen_rate
    train = [list("我喝茶"), list("我喝水"), list("你喝茶")]
    held = [list("我喝咖啡"), list("他喝茶")]
    return [unseen_rate(train, held, n) for n in (1, 2, 3)]


def test_ngram_panel_marks_n_on_both_curves():
    from nlpbook.widgets.ngram_window import NGramWindowPanel
    p = NGramWindowPanel(_ngram_stats(), n=1)
    first = [float(x) for x in re.findall(r'class="mark" x1="([\d.]+)"', p.view.value)]
    assert len(first) == 2 and p.view.value.count("所选 n = 1") == 2
    p.n.value = 3
    moved = [float(x) for x in re.findall(r'class="mark" x1="([\d.]+)"', p.view.value)]
    assert all(b > a for a, b in zip(first, moved)) and "所选 n = 3" in p.view.value
    assert "试一试" in p.view.value
    # 两张图并排放得进 900 px 的栏
    assert sum(int(w) for w in re.findall(r'<svg[^>]* width="(\d+)"', p.view.value)) + 8 <= 900


def test_ngram_panel_share_axis_stops_at_100_percent():
    from nlpbook.widgets.ngram_window import window_html
    rate_svg = window_html(_ngram_stats(), 1).split("</svg>")[0]          # 第一张图：没见过的比例
    ticks = [float(t) for t in re.findall(r'class="ytick"[^>]*>([0-9.]+)</text>', rate_svg)]
    assert ticks and max(ticks) == 100


def test_decay_panel_plain_numbers():
    from nlpbook.widgets.decay_slider import DecayPanel
    p = DecayPanel(decay=1.5, steps=30)
    assert "191,751" in p.fallback_html() and not re.search(r"\de[+-]\d", p.fallback_html())
    p.decay, p.steps = 0.5, 20
    assert "0.000000954（不到百万分之一）" in p.fallback_html() and not re.search(r"\de[+-]\d", p.fallback_html())
    p.decay = 0.05
    assert "几乎为 0" in p.fallback_html()
    assert 'class="mark"' in p.fallback_html() and "第 20 步" in p.fallback_html()
    # 浏览器里用的数据：每个系数一行 decay^t，最后一格就是 30 步后的影响
    d = p.data
    assert len(d["decays"]) == 31 and d["decays"][10] == 0.5 and d["influence"][10][20] == pytest.approx(0.5 ** 20, rel=1e-5)
    assert d["influence"][30][30] == pytest.approx(191751.06, rel=1e-5)
    with pytest.raises(ValueError, match="0.05 的倍数"):
        DecayPanel(decay=0.33)


def test_lstm_bars_scale_to_the_data():
    from nlpbook.widgets.lstm_gates import LSTMGatePanel, nice_top
    assert nice_top([0.82, 0.47]) == 1.0 and nice_top([0.05, 0.01]) == pytest.approx(0.06) and nice_top([0]) == 1.0
    p = LSTMGatePanel()
    for s, v in ((p.c_prev, 0.05), (p.f, 0.1), (p.i, 0.05), (p.g, 0.1), (p.o, 0.2)):
        s.value = v
    svg = p.view.value.split("<svg")[1]
    heights = [float(h) for h in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)"', svg)]
    assert max(heights) > 0.6 * 160        # 最高的柱占画图区大半，而不是 0–2 轴上的一条细线
    assert ">2<" not in svg and ">0.06<" in svg


def test_tokenizer_playground_caps_what_is_drawn():
    from nlpbook.widgets.tokenizer_playground import MAX_CHARS, MAX_CHIPS, TokenizerPlayground
    p = TokenizerPlayground()
    assert "只画出" not in p.view.value and "试一试" in p.view.value
    p.text.value = "小猫没有跳上桌子，因为它太累了。龘👍" * 120        # 18 × 120 = 2,160 个字符
    v = p.view.value
    assert v.count("<span") == MAX_CHIPS
    assert f"只切分了前 {MAX_CHARS:,} 个" in v and "后面 160 个没有处理" in v
    n = int(re.search(r"<b>([\d,]+) 个 token</b>", v).group(1).replace(",", ""))
    assert f"只画出前 {MAX_CHIPS} 个（省略了 {n - MAX_CHIPS:,} 个）" in v
    assert len(v) < 40_000


def test_skipgram_hint_for_chinese_without_spaces():
    from nlpbook.widgets.skipgram_window import SkipGramWindow
    w = SkipGramWindow()
    assert w.segment.disabled and "连在一起" not in w.view.value and "overflow-wrap:anywhere" in w.view.value
    w.text.value = "我喜欢看电影"
    assert "共产生 <b>0</b>" in w.view.value and "6 个字连在一起" in w.view.value and "加空格" in w.view.value
    assert not w.segment.disabled
    pytest.importorskip("jieba")
    w.segment.click()
    assert w.text.value == "我 喜欢 看 电影" and "共产生 <b>6</b>" in w.view.value and w.segment.disabled


def _dateline_map():
    words = ["中国", "美国", "日本", "北京", "东京", "１月", "１日", "一月", "人民币", "美元"]
    rng = np.random.default_rng(0)
    return rng.normal(size=(len(words), 5)), words, rng.normal(size=(len(words), 2))


def test_embedding_map_word_list_drops_tokens_with_digits():
    from nlpbook.widgets.embedding_map import EmbeddingMap, word_choices
    assert word_choices(["北京", "１日", "一月", "GDP", "A股2"]) == (["北京", "一月", "GDP"], ["１日", "A股2"])
    table, words, coords = _dateline_map()
    m = EmbeddingMap(table, words, coords=coords, word="美国", equation=("人民币", "中国", "美国"), metric="cosine")
    assert "１日" not in m.word.options and "１日" not in m.a.options and "一月" in m.word.options
    assert "“１月”、“１日”等 2 个含数字" in m.view.value
    assert ">１日</text>" in m.view.value               # 仍画在图上


def test_embedding_map_repeated_words_explained_and_controls_disabled():
    from nlpbook.datasets import EMBEDDING_MAP
    from nlpbook.widgets.embedding_map import EmbeddingMap
    table, words = np.array(list(EMBEDDING_MAP.values())), list(EMBEDDING_MAP)
    m = EmbeddingMap(table, words, word="猫")
    assert "≈" in m.view.value and "重复" not in m.view.value and not m.a.disabled
    m.b.value = "国王"
    assert "“国王”出现了 2 次" in m.view.value and "a − b 抵消成 0" in m.view.value and "≈" not in m.view.value
    m.b.value, m.c.value = "男人", "国王"
    assert "“国王”出现了 2 次" in m.view.value and "三个不同的词" in m.view.value
    m.use_equation.value = False
    assert m.a.disabled and m.b.disabled and m.c.disabled and "出现了" not in m.view.value
    assert "试一试" in m.view.value and "下拉框只列" not in m.view.value


def test_conv_panel_draws_windows_and_receptive_field():
    from nlpbook.widgets.conv_window import ConvWindowPanel
    p = ConvWindowPanel()
    starts = re.findall(r'class="window" data-start="(\d+)" data-width="3"', p.view.value)
    assert starts == ["0", "1", "2"]
    spans = {int(l): int(s) for l, s in re.findall(r'class="field" data-level="(\d+)" data-span="(\d+)"', p.view.value)}
    assert spans == {1: 1, 0: 3}
    assert re.findall(r'class="probe" data-inside="(\d)"', p.view.value) == ["1", "0"]
    p.layers.value = 10
    spans = {int(l): int(s) for l, s in re.findall(r'class="field" data-level="(\d+)" data-span="(\d+)"', p.view.value)}
    assert spans[0] == 21 and spans[10] == 1 and len(spans) == 11
    assert re.findall(r'class="probe" data-inside="(\d)"', p.view.value) == ["1", "1"]
    p.width.value = 5
    assert re.findall(r'class="window" data-start="(\d+)"', p.view.value) == ["0"]
    p.tokens = ["好看"]
    p.update()
    assert "把宽度调到 1 或更小" in p.view.value
