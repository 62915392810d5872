"""attention_demo.demo_score_matrix：整张手设分数表，与 demo_scores、demo_heads 一致。"""
import numpy as np
import pytest

from nlpbook.attention import apply_mask, causal_mask, masked_softmax
from nlpbook.attention_demo import HEADS, IT_INDEX, demo_heads, demo_score_matrix, demo_scores


def test_rows_are_demo_scores_and_softmax_gives_demo_heads():
    for h in HEADS:
        s = demo_score_matrix(h)
        assert s.shape == (10, 10)
        for i in range(10):
            assert np.array_equal(s[i], demo_scores(i, h))
        for causal in (False, True):
            mask = causal_mask(10) if causal else None
            assert np.allclose(masked_softmax(apply_mask(s, mask)), demo_heads(causal)[h])


def test_neighbour_head_row_of_it():
    row = demo_score_matrix("邻近头")[IT_INDEX]
    assert row.tolist() == [-1, -1, -1, -1, -1, 2, 1, 2, -1, -1]


def test_returns_a_copy():
    s = demo_score_matrix("指代头")
    s[:] = 0
    assert demo_score_matrix("指代头")[IT_INDEX, 0] == 3.0


def test_bad_head():
    with pytest.raises(ValueError, match="head 只能是"):
        demo_score_matrix("主语头")
    with pytest.raises(TypeError, match="head 必须是字符串"):
        demo_score_matrix(0)
