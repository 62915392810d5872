"""每个面板：不开浏览器，设置控件的 value，检查它显示的内容随之改变。"""
import numpy as np

from nlpbook.datasets import TOY_REVIEWS, TOY_VOCAB
from nlpbook.text import Vocab, bag_of_words
from nlpbook.widgets.learning_rate import LearningRatePanel
from nlpbook.widgets.rule_scorer import RuleScorerBox
from nlpbook.widgets.tokenizer_playground import TokenizerPlayground


def test_tokenizer_playground_updates():
    p = TokenizerPlayground("小猫")
    before = p.view.value
    assert "小猫" in before and "1 个 token" in before
    p.text.value = "龘"
    assert p.view.value != before
    assert "3 个 token" in p.view.value and "3 个是字节回退" in p.view.value
    p.text.value = "\ud800"  # 孤立代理字符：显示错误说明而不是抛异常
    assert "代理" in p.view.value


def test_rule_scorer_box_updates():
    box = RuleScorerBox("电影好看")
    assert "判为 <b>好评</b>" in box.view.value
    box.text.value = "电影难看"
    assert "判为 <b>差评</b>" in box.view.value and "-1" in box.view.value


def test_learning_rate_panel_updates():
    v = Vocab(TOY_VOCAB)
    X = np.stack([bag_of_words(r.tokens, v) for r in TOY_REVIEWS])
    y = [r.label for r in TOY_REVIEWS]
    panel = LearningRatePanel(X, y, lr=0.2, steps=30)
    first, summary = list(panel.losses), panel.view.value
    assert len(first) == 31 and "一路下降" in summary
    panel.lr.value = 10 ** 1.5
    assert panel.losses != first and panel.view.value != summary
    assert "上升" in panel.view.value
    panel.steps.value = 5
    assert len(panel.losses) == 6


def test_learning_rate_panel_start_point():
    v = Vocab(TOY_VOCAB)
    X = np.stack([bag_of_words(r.tokens, v) for r in TOY_REVIEWS])
    y = [r.label for r in TOY_REVIEWS]
    w0 = np.zeros(7)
    w0[6] = 0.01
    panel = LearningRatePanel(X, y, lr=30, steps=30, w0=w0)
    assert "上升" in panel.view.value


def test_ngram_window_panel_updates():
    from nlpbook.ngram import unseen_examples, unseen_rate
    from nlpbook.widgets.ngram_window import NGramWindowPanel
    train = [list("我喝茶"), list("我喝水"), list("你喝茶")]
    held = [list("我喝咖啡"), list("他喝茶")]
    stats = [unseen_rate(train, held, n) for n in (1, 2, 3)]
    panel = NGramWindowPanel(stats, {n: unseen_examples(train, held, n) for n in (1, 2, 3)}, n=1)
    before = panel.view.value
    assert "n = 1" in before and "<svg" in before
    panel.n.value = 3
    assert panel.view.value != before and "n = 3" in panel.view.value


def test_embedding_map_updates():
    from nlpbook.datasets import EMBEDDING_MAP
    from nlpbook.widgets.embedding_map import EmbeddingMap
    table, words = np.array(list(EMBEDDING_MAP.values())), list(EMBEDDING_MAP)
    m = EmbeddingMap(table, words, word="猫")
    assert "狗（0.894）" in m.view.value and "女王" in m.view.value
    m.word.value = "香蕉"
    assert "橘子" in m.view.value and "狗（0.894）" not in m.view.value
    m.a.value, m.b.value, m.c.value = "巴黎", "法国", "日本"
    assert "≈ <b style='color:#228833'>东京</b>" in m.view.value
    m.use_equation.value = False
    assert "≈" not in m.view.value


def test_skipgram_window_updates():
    from nlpbook.widgets.skipgram_window import SkipGramWindow
    w = SkipGramWindow("我 喜欢 看 电影", window=1, center=2)
    assert "共产生 <b>6</b>" in w.view.value and "（看, 喜欢）" in w.view.value
    w.window.value = 2
    assert "共产生 <b>10</b>" in w.view.value and "（看, 我）" in w.view.value
    w.text.value = "猫"
    assert "共产生 <b>0</b>" in w.view.value


def test_decay_panel_updates():
    from nlpbook.widgets.decay_slider import DecayPanel
    p = DecayPanel(decay=0.5, steps=10)
    assert "0.000977" in p.fallback_html() and "2.250" in p.fallback_html() and "1.500" in p.fallback_html()
    p.steps = 20
    assert "0.000000954" in p.fallback_html()
    p.decay = 1.2
    assert "爆炸" in p.fallback_html()


def test_lstm_gate_panel_updates():
    from nlpbook.widgets.lstm_gates import LSTMGatePanel
    p = LSTMGatePanel()
    assert "<b>0.820</b>" in p.view.value and "<b>0.473</b>" in p.view.value
    p.f.value, p.i.value = 1.0, 0.0  # 小练习：记忆原样保留
    assert "新记忆 c = 1×0.8 + 0×0.5 = <b>0.800</b>" in p.view.value


def test_conv_window_panel_updates():
    from nlpbook.widgets.conv_window import ConvWindowPanel
    p = ConvWindowPanel()
    assert p.view.value.count("窗口 ") == 3 and "<b>3</b>" in p.view.value and "不能" in p.view.value
    p.layers.value = 10
    assert "<b>21</b>" in p.view.value and "不能" not in p.view.value
    p.width.value = 5
    assert p.view.value.count("窗口 ") == 1


def test_generation_panel_updates():
    from nlpbook.charlm import CharNGramLM
    from nlpbook.widgets.generation_panel import GenerationPanel
    lm = CharNGramLM(n=2, min_count=1).fit(["我喜欢电影", "我喜欢音乐", "我喜欢电影", "我爱香蕉"])
    p = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="我喜欢", max_new_tokens=5)
    first = p.view.value
    assert "<svg" in first and first.count("<li>") == 3
    p.temperature.value = 0.0  # 贪心：三段续写相同
    greedy = p.view.value
    items = [x.split("</li>")[0] for x in greedy.split("<li>")[1:]]
    assert greedy != first and len(set(items)) == 1
    p.temperature.value = 1.0
    p.top_k.value = 1
    assert "还剩 <b>1</b> 个候选" in p.view.value
    p.top_k.value, p.top_p.value = 0, 0.5
    assert "top-p=0.5" in p.view.value
    p.seed.value = 7
    assert p.view.value != first
