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
    first = [float(x) for x in re.findall(r'class="mark" x1="([\d.]+)"', p.fallback_html())]
    assert len(first) == 2 and p.fallback_html().count("所选 n = 1") == 2
    p.n = 3
    moved = [float(x) for x in re.findall(r'class="mark" x1="([\d.]+)"', p.fallback_html())]
    assert all(b > a for a, b in zip(first, moved)) and "所选 n = 3" in p.fallback_html()
    assert "试一试" in p.fallback_html()
    # 两张图并排放得进 900 px 的栏
    assert sum(int(w) for w in re.findall(r'<svg[^>]* width="(\d+)"', p.fallback_html())) + 8 <= 900


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
    p.c_prev, p.f, p.i, p.g, p.o = 0.05, 0.1, 0.05, 0.1, 0.2
    svg = p.fallback_html().split("<svg")[1]
    heights = [float(h) for h in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)"', svg)]
    assert max(heights) > 0.6 * 160        # 最高的柱占画图区大半，而不是 0–2 轴上的一条细线
    assert ">2<" not in svg and ">0.06<" in svg


def test_tokenizer_playground_caps_what_is_drawn():
    from nlpbook.widgets.tokenizer_playground import MAX_CHARS, MAX_CHIPS, TokenizerPlayground
    p = TokenizerPlayground()
    assert "只画出" not in p.fallback_html() and "试一试" in p.fallback_html()
    p.text = "小猫没有跳上桌子，因为它太累了。龘👍" * 120        # 18 × 120 = 2,160 个字符
    v = p.fallback_html()
    assert p.data["max_chars"] == MAX_CHARS and p.data["max_chips"] == MAX_CHIPS
    assert v.count("<span") == MAX_CHIPS
    assert f"只切分了前 {MAX_CHARS:,} 个" in v and "后面 160 个没有处理" in v
    n = int(re.search(r"<b>([\d,]+) 个 token</b>", v).group(1).replace(",", ""))
    assert f"只画出前 {MAX_CHIPS} 个（省略了 {n - MAX_CHIPS:,} 个）" in v
    assert len(v) < 40_000


def test_skipgram_hint_for_chinese_without_spaces():
    from nlpbook.widgets.skipgram_window import SkipGramWindow
    w = SkipGramWindow()
    assert not w.needs_segmenting and "连在一起" not in w.fallback_html() and "overflow-wrap:anywhere" in w.fallback_html()
    w.text = "我喜欢看电影"
    assert "共产生 <b>0</b>" in w.fallback_html() and "6 个字连在一起" in w.fallback_html() and "加空格" in w.fallback_html()
    assert w.needs_segmenting
    pytest.importorskip("jieba")
    w.segment()                                      # 浏览器里点按钮：segment_request 加 1，Python 切好写回
    assert w.text == "我 喜欢 看 电影" and "共产生 <b>6</b>" in w.fallback_html() and not w.needs_segmenting
    assert w.segment_done == w.segment_request == 1 and w.segment_error == ""


def test_skipgram_site_table_is_what_jieba_cuts():
    """网站上没有内核：按钮查 data["segmented"]。它必须与 jieba 切出的一样，且盖住本章的每个例句。"""
    pytest.importorskip("jieba")
    from nlpbook.datasets import jieba_cut
    from nlpbook.widgets.skipgram_window import EXAMPLES, SEGMENTED, SkipGramWindow
    table = SkipGramWindow().data["segmented"]
    assert {s.replace(" ", "") for s in EXAMPLES} == set(SEGMENTED) <= set(table)
    for token, spaced in table.items():
        assert spaced == " ".join(jieba_cut(token)), token
    assert table["这部电影很坏"] == "这部 电影 很坏"          # jieba 的词典和手工分词不一样


def test_skipgram_splits_like_python_and_clamps_center():
    from nlpbook.widgets.skipgram_window import SkipGramWindow
    w = SkipGramWindow("我 喜欢 看 电影", window=1, center=9)
    assert w.center == 3                             # 超出句子的中心词位置截到最后一个词
    spaces = w.data["spaces"]
    assert "\u3000" in spaces and "\x1c" in spaces and "\ufeff" not in spaces     # 与 str.split() 一致（不是 JS 的 \s）
    assert "".join(spaces).split() == [] and all(ch.isspace() for ch in spaces)
    w.text = "我\u3000喜欢"
    assert "共产生 <b>2</b>" in w.fallback_html() and w.center == 1
    with pytest.raises(Exception):
        w.window = 6


def _dateline_map():
    words = ["中国", "美国", "日本", "北京", "东京", "１月", "１日", "一月", "人民币", "美元"]
    rng = np.random.default_rng(0)
    return rng.normal(size=(len(words), 5)), words, rng.normal(size=(len(words), 2))


def test_embedding_map_word_list_drops_tokens_with_digits():
    from nlpbook.widgets.embedding_map import EmbeddingMap, word_choices
    assert word_choices(["北京", "１日", "一月", "GDP", "A股2"]) == (["北京", "一月", "GDP"], ["１日", "A股2"])
    table, words, coords = _dateline_map()
    m = EmbeddingMap(table, words, coords=coords, word="美国", equation=("人民币", "中国", "美国"), metric="cosine")
    assert "１日" not in m.choices and "一月" in m.choices
    assert [words[i] for i in m.data["choices"]] == m.choices and m.data["analogy"]["size"] == len(m.choices) == 8
    assert "“１月”、“１日”等 2 个含数字" in m.fallback_html() and m.data["note"].startswith("下拉框只列")
    assert ">１日</text>" in m.fallback_html()               # 仍画在图上
    with pytest.raises(Exception, match="不在下拉框的词里"):
        m.a = "１日"


def test_embedding_map_repeated_words_explained():
    from nlpbook.datasets import EMBEDDING_MAP
    from nlpbook.widgets.embedding_map import EmbeddingMap
    table, words = np.array(list(EMBEDDING_MAP.values())), list(EMBEDDING_MAP)
    m = EmbeddingMap(table, words, word="猫")
    assert "≈" in m.fallback_html() and "重复" not in m.fallback_html() and m.use_equation
    m.b = "国王"
    assert "“国王”出现了 2 次" in m.fallback_html() and "a − b 抵消成 0" in m.fallback_html() and "≈" not in m.fallback_html()
    m.b, m.c = "男人", "国王"
    assert "“国王”出现了 2 次" in m.fallback_html() and "三个不同的词" in m.fallback_html()
    m.use_equation = False
    assert m.equation is None and "出现了" not in m.fallback_html()
    assert "试一试" in m.fallback_html() and "下拉框只列" not in m.fallback_html() and m.data["note"] == ""


def test_embedding_map_for_trained_vectors_stores_fewer_numbers():
    """第 7 章的设置：得分两位小数，算式只在给定的词里选、不写得分（存的数少，别的机器上不会碰上舍入的边界）。"""
    from nlpbook.widgets.embedding_map import EmbeddingMap
    table, words, coords = _dateline_map()
    m = EmbeddingMap(table, words, coords=coords, word="美国", equation=("人民币", "中国", "美国"), metric="cosine",
                     digits=2, equation_score=False, equation_words=["美国", "人民币", "中国", "日本", "美元"])
    assert m.equation_choices == ["中国", "美国", "日本", "人民币", "美元"] and m.data["analogy"]["size"] == 5
    assert "score" not in m.data["analogy"] and m.analogy_answer("人民币", "中国", "美国")[1] is None
    html = m.fallback_html()
    assert "（按余弦相似度最近的词，不算 a、b、c 自己）" in html and re.search(r"（-?\d\.\d\d）", html)
    assert all(s == round(s, 2) for row in m.data["scores"] for s in row)
    m.a = "日本"
    with pytest.raises(Exception, match="不在下拉框的词里"):
        m.a = "北京"                                   # 能选来看近邻，但不在算式的词里
    m.word = "北京"
    with pytest.raises(ValueError, match="算式可选的词"):
        EmbeddingMap(table, words, coords=coords, equation=("北京", "中国", "美国"), equation_words=["中国", "美国"])


def test_embedding_map_data_matches_the_package():
    """浏览器查的表 = embedding.nearest / analogy 的结果（得分只留显示的 3 位小数）；标签底图不重叠。"""
    from nlpbook.embedding import analogy, nearest
    from nlpbook.svgplot import scatter_chart
    from nlpbook.widgets.embedding_map import EmbeddingMap, map_layout, pack, unpack
    table, words, coords = _dateline_map()
    m = EmbeddingMap(table, words, coords=coords, word="美国", equation=("人民币", "中国", "美国"), metric="cosine")
    d = m.data
    for i, w in enumerate(words):
        near = nearest(table, words, w, k=d["max_k"], metric="cosine")
        assert [words[j] for j in d["neighbours"][i]] == [x for x, _ in near]
        assert d["scores"][i] == [float(f"{s:.3f}") for _, s in near]
    for a, b, c in [("人民币", "中国", "美国"), ("北京", "中国", "日本"), ("美元", "一月", "东京")]:
        best, s = analogy(table, words, a, b, c, metric="cosine")[0]
        assert m.analogy_answer(a, b, c) == (best, float(f"{s:.3f}"))
    assert unpack(d["analogy"]["best"])[:1] == [0] and len(unpack(d["analogy"]["score"])) == 8 ** 3
    assert pack([1, 35, 36]) == {"text": "010z10", "width": 2, "offset": 0} and unpack(pack([-3, 5], -3)) == [-3, 5]
    # 底图 = scatter_chart 把每个词都加粗时的位置（点、标签、引线）
    svg = scatter_chart(coords, words, highlight={w: "#888" for w in words}, title="t", width=860, height=420)
    layout = map_layout(coords, words, "t")
    texts = [tuple(map(float, xy)) for xy in re.findall(r'<text x="([\d.-]+)" y="([\d.-]+)" fill', svg)]
    dots = [tuple(map(float, xy)) for xy in re.findall(r'<circle cx="([\d.-]+)" cy="([\d.-]+)"', svg)]
    assert texts == [tuple(r[2:4]) for r in layout] and dots == [tuple(r[:2]) for r in layout]
    leads = re.findall(r'x2="([\d.-]+)" y2="([\d.-]+)" stroke="#aaa"', svg)
    assert [tuple(map(float, xy)) for xy in leads] == [tuple(r[4:]) for r in layout if r[4] is not None]


def test_conv_panel_draws_windows_and_receptive_field():
    from nlpbook.widgets.conv_window import ConvWindowPanel
    p = ConvWindowPanel()
    starts = re.findall(r'class="window" data-start="(\d+)" data-width="3"', p.fallback_html())
    assert starts == ["0", "1", "2"]
    spans = {int(l): int(s) for l, s in re.findall(r'class="field" data-level="(\d+)" data-span="(\d+)"', p.fallback_html())}
    assert spans == {1: 1, 0: 3}
    assert re.findall(r'class="probe" data-inside="(\d)"', p.fallback_html()) == ["1", "0"]
    p.layers = 10
    spans = {int(l): int(s) for l, s in re.findall(r'class="field" data-level="(\d+)" data-span="(\d+)"', p.fallback_html())}
    assert spans[0] == 21 and spans[10] == 1 and len(spans) == 11
    assert re.findall(r'class="probe" data-inside="(\d)"', p.fallback_html()) == ["1", "1"]
    p.width = 5
    assert re.findall(r'class="window" data-start="(\d+)"', p.fallback_html()) == ["0"]
    short = ConvWindowPanel(["好看"], width=5, layers=10)
    assert "把宽度调到 1 或更小" in short.fallback_html() and short.data["n_windows"] == [1, 0, 0, 0, 0]
    # 色带上的字是深色（白字在橙、绿、天蓝的色带上对比度不到 4.5:1），两张图都有 role="img" 和说明
    assert 'fill="#fff"' not in p.fallback_html() and p.fallback_html().count('role="img" aria-label="') == 2
