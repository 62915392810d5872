"""第 17.4 节的混合权重面板：每个控件一动，视图就变；默认视图与 notebook 里静态打印的一致；更新足够快。"""
import re
import time

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from nlpbook.widgets.rag_panel import TRY, RagPanel, rag_view, view_text  # noqa: E402

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
    assert "MRR <b>1.000</b>" in p.view.value and "✓" in p.view.value and TRY in p.view.value
    before = p.view.value
    p.weight.value = 1.0
    assert p.view.value != before and "MRR <b>1.000</b>" not in p.view.value
    assert p.state()["gold_rank"] > 1 and p.state()["recall1"] == 0.0


def test_question_dropdown_changes_the_listed_sections():
    p = _panel(weight=0.5)
    first = p.view.value
    p.question.value = 2
    assert p.view.value != first and "问三" in p.view.value and "问一" not in p.view.value.split("<table>")[0]
    assert p.state()["gold"] == "丁"


def test_default_view_text_matches_panel_state():
    v = rag_view(SPARSE, DENSE, GOLD, 0.5, 0, IDS, QUESTIONS)
    text = view_text(v)
    p = _panel(weight=0.5, question=0)
    assert p.state() == v
    for sid, s, _ in v["top"]:
        assert f"{s:.3f}  {sid}" in text and f"<td style='padding:2px 8px'>{s:.3f}</td>" in p.view.value
    assert re.search(r"recall@1 0\.\d{3}，recall@5 \d\.\d{3}，MRR \d\.\d{3}", text)


def test_update_is_fast_on_a_course_sized_problem():
    rng = np.random.default_rng(0)
    sp, de = rng.random((30, 195)) * 20, rng.random((30, 195))
    p = RagPanel(sp, de, rng.integers(0, 195, 30), [f"s{i}" for i in range(195)], [f"q{i}" for i in range(30)])
    times = []
    for w in (0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8):
        t = time.perf_counter()
        p.weight.value = w
        times.append(time.perf_counter() - t)
    assert np.median(times) < 0.1


def test_bad_input():
    with pytest.raises(ValueError, match="question 必须在"):
        _panel(question=5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        _panel(weight=2.0)
