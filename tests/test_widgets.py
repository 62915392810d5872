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
