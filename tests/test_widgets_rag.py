"""第 17.4 节的混合权重面板：每个控件一动，视图就变；默认视图与 notebook 里静态打印的一致；
浏览器用的数据是缩放到 [0, 1]、四舍五入到 4 位小数的分数和 11 个权重上的 dev 指标。"""
import re

import numpy as np
import pytest

from nlpbook.retrieval import fuse_scores, gold_ranks, mean_reciprocal_rank, recall_at_k
from nlpbook.widgets.rag_panel import SCALE, TRY, WEIGHTS, RagPanel, rag_view, view_text

IDS = ["甲", "乙", "丙", "丁"]
QUESTIONS = ["问一", "问二", "问三"]
# 稀疏分数偏爱下标 0，稠密分数偏爱正确段落：权重越偏稀疏，正确段落排得越后
SPARSE = np.array([[9.0, 1.0, 0.0, 2.0], [8.0, 0.0, 1.0, 3.0], [5.0, 4.0, 0.0, 0.0]])
DENSE = np.array([[0.1, 0.9, 0.2, 0.0], [0.0, 0.1, 0.8, 0.3], [0.2, 0.1, 0.0, 0.7]])
GOLD = np.array([1, 2, 3])


def _panel(**kw):
    return RagPanel(SPARSE, DENSE, GOLD, IDS, QUESTIONS, **kw)


def test_weight_slider_changes_metrics_and_ranking():
    p = _panel(weight=0.0)
    assert "MRR <b>1.000</b>" in p.fallback_html() and "✓" in p.fallback_html() and TRY in p.fallback_html()
    before = p.fallback_html()
    p.weight = 1.0
    assert p.fallback_html() != before and "MRR <b>1.000</b>" not in p.fallback_html()
    assert p.current_view()["gold_rank"] > 1 and p.current_view()["recall1"] == 0.0


def test_question_dropdown_changes_the_listed_sections():
    p = _panel(weight=0.5)
    first = p.fallback_html()
    p.question = 2
    assert p.fallback_html() != first and "问三" in p.fallback_html() and "问一" not in p.fallback_html().split("<table>")[0]
    assert p.current_view()["gold"] == "丁"


def test_default_view_text_matches_panel_view():
    v = rag_view(SPARSE, DENSE, GOLD, 0.5, 0, IDS, QUESTIONS)
    text = view_text(v)
    p = _panel(weight=0.5, question=0)
    mine = p.current_view()               # 面板用四舍五入到 4 位小数的缩放分数：名次、指标相同，分数只差末位
    assert {k: x for k, x in mine.items() if k != "top"} == {k: x for k, x in v.items() if k != "top"}
    assert [(sid, ok) for sid, _, ok in mine["top"]] == [(sid, ok) for sid, _, ok in v["top"]]
    assert [s for _, s, _ in mine["top"]] == pytest.approx([s for _, s, _ in v["top"]], abs=1e-4)
    for sid, s, _ in v["top"]:
        assert f"{s:.3f}  {sid}" in text and f"<td style='padding:2px 8px'>{s:.3f}</td>" in p.fallback_html()
    assert re.search(r"recall@1 0\.\d{3}，recall@5 \d\.\d{3}，MRR \d\.\d{3}", text)


def test_data_holds_scaled_scores_and_metrics_on_the_weight_grid():
    p = _panel()
    d = p.data
    assert d["weights"] == WEIGHTS and len(WEIGHTS) == 11 and d["scale"] == SCALE == 10_000
    # 第一个问题的稀疏分数 [9, 1, 0, 2] 缩放到 [0, 1]：[1, 1/9, 0, 2/9] → 万分之几
    assert d["a"][0] == [10_000, 1_111, 0, 2_222] and d["b"][0] == [1_111, 10_000, 2_222, 0]
    assert d["gold"] == [1, 2, 3] and d["ids"] == IDS and d["questions"] == QUESTIONS and d["k"] == 5
    for w, (r1, r5, mrr) in zip(WEIGHTS, d["metrics"]):
        ranks = gold_ranks(fuse_scores(SPARSE, DENSE, w), GOLD)
        assert (r1, r5) == (recall_at_k(ranks, 1), recall_at_k(ranks, 5)) and mrr == pytest.approx(mean_reciprocal_rank(ranks))
    assert d["metrics"][0] == [1.0, 1.0, 1.0]


def test_course_sized_scores_are_rounded_to_four_decimals():
    rng = np.random.default_rng(0)
    sp, de = rng.random((30, 195)) * 20, rng.random((30, 195))
    p = RagPanel(sp, de, rng.integers(0, 195, 30), [f"s{i}" for i in range(195)], [f"q{i}" for i in range(30)])
    a = np.array(p.data["a"])
    assert a.shape == (30, 195) and a.min() == 0 and a.max() == SCALE
    assert np.abs(a / SCALE - fuse_scores(sp, de, 1.0)).max() <= 0.5 / SCALE
    p.weight, p.question = 0.3, 7
    assert p.current_view()["weight"] == 0.3 and p.current_view()["question"] == "q7"


def test_bad_input():
    with pytest.raises(ValueError, match="question 必须在"):
        _panel(question=5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        _panel(weight=2.0)
    with pytest.raises(ValueError, match="0.1 的倍数"):
        _panel(weight=0.25)
