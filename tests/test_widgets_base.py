"""面板底座（nlpbook/widgets/_base.py）：重画期间又来的变化合并成一次，不排队；没有别的变化时同步重画。"""
import time

import ipywidgets as W
import pytest

from nlpbook.widgets._base import Panel


class Slow(Panel):
    """重画要 20 ms 的面板；第一次重画“期间”模拟又来了几次变化（在 update 里改控件的值）。"""

    def __init__(self, arrivals=()):
        self.n = W.IntSlider(value=0, min=0, max=100)
        self.view = W.HTML()
        self.drawn = []                # 每次真正重画时读到的值
        self.arrivals = list(arrivals)
        self.watch([self.n])

    def update(self):
        self.drawn.append(self.n.value)
        while self.arrivals:           # 计算进行到一半，浏览器又送来几次拖动
            self.n.value = self.arrivals.pop(0)
        time.sleep(0.02)
        self.view.value = f"n = {self.n.value}"


def test_changes_arriving_during_a_redraw_are_coalesced_not_queued():
    p = Slow(arrivals=[2, 3, 4, 5])
    p.n.value = 1
    # 第一次画（读到 1）期间来了 4 次变化：之后只补画一次，用最新的值 5；中间的 2、3、4 都不画
    assert p.drawn == [1, 5] and p.renders == 2
    assert p.view.value == "n = 5"


def test_without_pending_changes_redraw_is_synchronous():
    p = Slow()
    for v in (7, 8, 9):
        p.n.value = v
        assert p.view.value == f"n = {v}"      # 设完马上就能读到
    assert p.drawn == [7, 8, 9] and p.renders == 3


def test_a_failing_redraw_does_not_block_later_ones():
    class Boom(Slow):
        def update(self):
            if self.n.value == 13:
                raise ValueError("坏值")
            super().update()

    p = Boom()
    with pytest.raises(ValueError):
        p.n.value = 13
    p.n.value = 14
    assert p.view.value == "n = 14"


def test_kv_cache_head_change_that_moves_the_groups_redraws_once():
    from nlpbook.widgets.kv_cache import KVCachePanel
    p = KVCachePanel()
    before = p.renders
    p.n_heads.value = 12              # 原来的 8 组不整除 12：组数改成 6，选项也变了，但只重画一次
    assert p.groups.value == 6 and p.renders == before + 1
    assert "12" in p.view.value


def test_rnn_vs_transformer_size_change_redraws_once():
    from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel
    p = RNNvsTransformerPanel(step=10)
    before = p.renders
    p.n_tokens.value = 3              # 步数滑块换成上限 3 的新滑块，当前步截到 3
    assert p.step.value == 3 and p.renders == before + 1
    p.step.value = 2
    assert p.renders == before + 2


def test_trained_explorer_layer_change_redraws_once():
    import numpy as np
    from nlpbook.widgets.attention_explorer import AttentionExplorer
    maps = np.full((2, 2, 3, 3), 1 / 3)
    e = AttentionExplorer.from_maps(maps, list("abc"))
    before = e.renders
    e.layer.value = 1
    assert e.renders == before + 1 and "第 2 层" in e.view.value


def test_every_panel_is_built_on_the_base():
    import importlib
    import pkgutil

    import nlpbook.widgets as pkg
    panels = []
    for m in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"nlpbook.widgets.{m.name}")
        panels += [c for c in vars(mod).values() if isinstance(c, type) and c.__module__ == mod.__name__
                   and "update" in vars(c)]
    assert len(panels) >= 15 and all(issubclass(c, Panel) for c in panels), \
        [c.__name__ for c in panels if not issubclass(c, Panel)]
