"""每个面板：不开浏览器，设置控件的 value，检查它显示的内容随之改变。"""
import numpy as np
import pytest

from nlpbook.datasets import TOY_REVIEWS, TOY_VOCAB
from nlpbook.text import Vocab, bag_of_words
from nlpbook.widgets.learning_rate import LearningRatePanel
from nlpbook.widgets.rule_scorer import RuleScorerBox
from nlpbook.widgets.tokenizer_playground import TokenizerPlayground


def test_tokenizer_playground_updates():
    p = TokenizerPlayground("小猫")
    before = p.fallback_html()
    assert "小猫" in before and "1 个 token" in before and "demo_tokenizer()" in before
    p.text = "龘"
    assert p.fallback_html() != before
    assert "3 个 token" in p.fallback_html() and "3 个是字节回退" in p.fallback_html()
    p.text = "\ud800"  # 孤立代理字符：显示错误说明而不是抛异常
    assert "代理" in p.fallback_html()
    # 浏览器里切分用的整张词表：编号 256 起的片段，按编号顺序
    tok = p.tokenizer
    assert p.data["pieces"][0] == tok.id_to_piece(256) and len(p.data["pieces"]) == tok.vocab_size - 256
    assert p.data["pieces"].index("小猫") + 256 == tok.piece_to_id("小猫")


def test_rule_scorer_box_updates():
    box = RuleScorerBox("电影好看")
    assert "判为 <b>好评</b>" in box.fallback_html()
    box.text = "电影难看"
    assert "判为 <b>差评</b>" in box.fallback_html() and "-1" in box.fallback_html()
    # 浏览器里打分用的打分表：课文的四个词，按表的顺序，分值是整数
    assert box.data["lexicon"] == [["好看", 1, False], ["精彩", 1, False], ["难看", -1, False], ["无聊", -1, False]]


def _toy_xy():
    v = Vocab(TOY_VOCAB)
    X = np.stack([bag_of_words(r.tokens, v) for r in TOY_REVIEWS])
    return X, [r.label for r in TOY_REVIEWS]


def test_learning_rate_panel_updates():
    X, y = _toy_xy()
    panel = LearningRatePanel(X, y, lr=0.2, steps=30)
    first, summary = list(panel.path()), panel.fallback_html()
    assert len(first) == 31 and "一路下降" in summary
    panel.lr = 31.5
    assert panel.path() != first and panel.fallback_html() != summary
    assert "上升" in panel.fallback_html()
    panel.steps = 5
    assert len(panel.path()) == 6


def test_learning_rate_panel_data_are_descent_paths_on_the_slider_grid():
    from nlpbook.linear import descent_path
    from nlpbook.widgets.learning_rate import LR_GRID
    X, y = _toy_xy()
    panel = LearningRatePanel(X, y)
    d = panel.data
    assert d["lrs"] == list(LR_GRID) and len(LR_GRID) == 36 and LR_GRID[0] == 0.01 and LR_GRID[-1] == 31.5
    assert {0.05, 0.2, 0.5, 4, 5} <= set(LR_GRID)                     # 正文里说到的学习率都在格上
    for k in (0, 13, 26, 35):
        exact = descent_path(X, y, lr=LR_GRID[k], steps=100)
        assert len(d["losses"][k]) == 101 and np.allclose(d["losses"][k], exact, atol=5e-5)
        assert d["up"][k] == "".join("1" if b > a + 1e-12 else "0" for a, b in zip(exact, exact[1:]))
    assert d["losses"][13][30] == 0.6272 and d["losses"][13][0] == 0.6931          # 学习率 0.2：0.693 → 0.627
    with pytest.raises(ValueError, match="滑块上的值"):
        LearningRatePanel(X, y, lr=0.3)


def test_learning_rate_panel_start_point():
    X, y = _toy_xy()
    w0 = np.zeros(7)
    w0[6] = 0.01
    panel = LearningRatePanel(X, y, lr=31.5, steps=30, w0=w0)
    assert "上升" in panel.fallback_html()
    # 正文（第 4.3 节）：学习率 4 一路下降；5 前十几步下降、之后回升；约 30 第 2 步就开始上升
    ups = dict(zip(panel.data["lrs"], panel.data["up"]))
    assert "1" not in ups[4][:30] and ups[5][:10] == "0" * 10 and "1" in ups[5][10:30] and ups[31.5][1] == "1"


def test_ngram_window_panel_updates():
    from nlpbook.ngram import unseen_examples, unseen_rate
    from nlpbook.widgets.ngram_window import NGramWindowPanel
    train = [list("我喝茶"), list("我喝水"), list("你喝茶")]
    held = [list("我喝咖啡"), list("他喝茶")]
    stats = [unseen_rate(train, held, n) for n in (1, 2, 3)]
    panel = NGramWindowPanel(stats, {n: unseen_examples(train, held, n) for n in (1, 2, 3)}, n=1)
    before = panel.fallback_html()
    assert "n = 1" in before and "<svg" in before
    panel.n = 3
    assert panel.fallback_html() != before and "n = 3" in panel.fallback_html()
    d = panel.data                                   # 浏览器里用的数：与 unseen_rate 的结果一致
    assert d["ns"] == [1, 2, 3] and d["stored"] == [s["stored"] for s in stats]
    assert d["heldout"] == [s["heldout"] for s in stats] and d["unseen"] == [s["unseen"] for s in stats]
    assert d["pct"] == [round(100 * s["unseen_rate"], 1) for s in stats]
    assert d["examples"][0] == [" ".join(g) for g in unseen_examples(train, held, 1)] and "咖" in d["examples"][0]


def test_embedding_map_updates():
    from nlpbook.datasets import EMBEDDING_MAP
    from nlpbook.widgets.embedding_map import EmbeddingMap
    table, words = np.array(list(EMBEDDING_MAP.values())), list(EMBEDDING_MAP)
    m = EmbeddingMap(table, words, word="猫")
    assert "狗（0.894）" in m.fallback_html() and "女王" in m.fallback_html()
    m.word = "香蕉"
    assert "橘子" in m.fallback_html() and "狗（0.894）" not in m.fallback_html()
    m.a, m.b, m.c = "巴黎", "法国", "日本"
    assert "≈ <b style='color:#228833'>东京</b>" in m.fallback_html()
    m.use_equation = False
    assert "≈" not in m.fallback_html()
    # 浏览器里查的表：猫的近邻（距离 3 位小数）、每道算式的答案
    d = m.data
    cat = words.index("猫")
    assert [words[j] for j in d["neighbours"][cat][:1]] == ["狗"] and d["scores"][cat][0] == 0.894
    assert len(d["neighbours"][cat]) == d["max_k"] == 8 and len(d["layout"]) == len(words) == 23
    assert m.analogy_answer("国王", "男人", "女人") == ("女王", 0.0) and m.analogy_answer("巴黎", "法国", "日本")[0] == "东京"
    assert m.analogy_answer("国王", "国王", "女人") is None


def test_skipgram_window_updates():
    from nlpbook.widgets.skipgram_window import SkipGramWindow
    w = SkipGramWindow("我 喜欢 看 电影", window=1, center=2)
    assert "共产生 <b>6</b>" in w.fallback_html() and "（看, 喜欢）" in w.fallback_html()
    w.window = 2
    assert "共产生 <b>10</b>" in w.fallback_html() and "（看, 我）" in w.fallback_html()
    w.text = "猫"
    assert "共产生 <b>0</b>" in w.fallback_html() and w.center == 0     # 中心词位置跟着句子变短


def test_decay_panel_updates():
    from nlpbook.widgets.decay_slider import DecayPanel
    p = DecayPanel(decay=0.5, steps=10)
    assert "0.000977" in p.fallback_html() and "2.250" in p.fallback_html() and "1.500" in p.fallback_html()
    p.steps = 20
    assert "0.000000954" in p.fallback_html()
    p.decay = 1.2
    assert "爆炸" in p.fallback_html()


def test_lstm_gate_panel_updates():
    from nlpbook.rnn import lstm_output
    from nlpbook.widgets.lstm_gates import LSTMGatePanel
    p = LSTMGatePanel()
    assert "<b>0.820</b>" in p.fallback_html() and "<b>0.473</b>" in p.fallback_html()
    p.f, p.i = 1.0, 0.0  # 小练习：记忆原样保留
    assert "新记忆 c = 1×0.8 + 0×0.5 = <b>0.800</b>" in p.fallback_html()
    d = p.data                                       # tanh 表：c = k/400，k = −800…800；保留表：f^t
    assert len(d["tanh"]) == 1601 and d["tanh"][800] == 0.0
    assert d["tanh"][800 + 328] == pytest.approx(float(lstm_output(0.82, 1.0)), abs=1e-6)     # c = 0.82
    assert 0.7 * d["tanh"][800 + 328] == pytest.approx(0.473, abs=5e-4)
    assert d["keep"][18][20] == pytest.approx(0.9 ** 20, rel=1e-5) and d["keep"][20] == [1.0] * 21
    with pytest.raises(ValueError, match="0.05 的倍数"):
        LSTMGatePanel(f=0.33)


def test_conv_window_panel_updates():
    from nlpbook.widgets.conv_window import ConvWindowPanel
    p = ConvWindowPanel()
    assert p.fallback_html().count("窗口 ") == 3 and "<b>3</b>" in p.fallback_html() and "不能" in p.fallback_html()
    p.layers = 10
    assert "<b>21</b>" in p.fallback_html() and "不能" not in p.fallback_html()
    p.width = 5
    assert p.fallback_html().count("窗口 ") == 1
    d = p.data                                       # 每个宽度的窗口个数、每个（宽度, 层数）的感受野
    assert d["n_windows"] == [5, 4, 3, 2, 1] and d["rf"][2][9] == 21 and d["rf"][0] == [1] * 12
    assert ConvWindowPanel(["好看", "电影"]).data["n_windows"] == [2, 1, 0, 0, 0]


def test_generation_panel_updates():
    from nlpbook.charlm import CharNGramLM
    from nlpbook.widgets.generation_panel import GenerationPanel
    lm = CharNGramLM(n=2, min_count=1).fit(["我喜欢电影", "我喜欢音乐", "我喜欢电影", "我爱香蕉"])
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="我喜欢", max_new_tokens=5)
    first = p.fallback_html()
    assert "<svg" in first and first.count("<li>") == 3
    p.temperature = 0.0  # 贪心：三段续写相同
    greedy = p.fallback_html()
    items = [x.split("</li>")[0] for x in greedy.split("<li>")[1:]]
    assert greedy != first and len(set(items)) == 1
    p.temperature = 1.0
    p.top_k = 1
    assert "还剩 <b>1</b> 个候选" in p.fallback_html()
    p.top_k, p.top_p = 0, 0.5
    assert "top-p=0.5" in p.fallback_html()
    p.seed = 7
    assert p.fallback_html() != first and p.result["key"][-1] == 7
