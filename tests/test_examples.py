"""附录 D 的标准库脚本与 numpy 代码逐项对照：两份独立实现给出同样的数。"""
import math
import subprocess
import sys

import numpy as np

from nlpbook import examples as E
from nlpbook import functional as F
from nlpbook import linear as L
from nlpbook.datasets import TFIDF_DOCS, TOY_REVIEWS, TOY_VOCAB
from nlpbook.rules import rule_predict, rule_score
from nlpbook.text import Vocab, bag_of_words, tf_idf


def test_chapter1_matches_rules():
    ex = E.chapter1()
    for r in TOY_REVIEWS:
        assert ex[f"{r.name} 规则分数"] == rule_score(r.tokens)
        assert ex[f"{r.name} 判对了吗"] == int(rule_predict(r.tokens) == r.label)


def test_chapter2_and_3_match_text_module():
    v = Vocab(TOY_VOCAB)
    assert E.chapter2()["电影不好看 的编号"] == v.encode(["电影", "不", "好看"])
    ex = E.chapter3()
    assert ex["电影不好看 词袋"] == bag_of_words(["电影", "不", "好看"], v).tolist()
    w = np.array([0, 0, 1, 1, -1, -1, 0])
    for r in TOY_REVIEWS:
        z = bag_of_words(r.tokens, v) @ w
        assert ex[f"{r.name} 分数"] == z
        assert math.isclose(ex[f"{r.name} 好评概率"], F.sigmoid(z))
    m, _ = tf_idf(TFIDF_DOCS)
    assert np.allclose(ex["D1 TF-IDF"], m[0])


def test_chapter4_matches_linear():
    ex = E.chapter4()
    w, _ = L.sgd_step([0.0], 0.0, [[1.0]], [1], lr=0.2, fit_bias=False)
    assert math.isclose(ex["新权重"], w[0])
    assert math.isclose(ex["新损失"], L.loss(w, 0.0, [[1.0]], [1]))
    assert math.isclose(ex["梯度"], L.gradient([0.0], 0.0, [[1.0]], [1])[0][0])
    assert np.allclose([ex["损失(p=0.1)"], ex["损失(p=0.5)"], ex["损失(p=0.9)"]],
                       F.binary_cross_entropy([0.1, 0.5, 0.9], [1, 1, 1]))
    assert round(ex["新概率"], 3) == 0.525 and round(ex["新损失"], 3) == 0.644


def test_script_runs_with_standard_library_only():
    code = ("import sys; sys.modules['numpy'] = None; import runpy; "
            "runpy.run_module('nlpbook.examples', run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "新损失: 0.644" in out.stdout and "IDF(好看): 1.099" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "nlpbook.examples", "99"], capture_output=True, text=True)
    assert bad.returncode == 2 and "可选" in bad.stderr
