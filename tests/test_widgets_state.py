"""面板的控件之间的联动（一个值变了，另一个跟着改）在 Python 这边也成立；只有一种面板：ClientPanel。"""
import importlib
import pkgutil

import nlpbook.widgets as pkg
from nlpbook.widgets._client import ClientPanel


def test_kv_cache_head_change_moves_the_groups_in_the_same_change():
    """（面板在浏览器里运行：js/kv_cache.js 在重画前把组数改好；Python 这边在同一次赋值里改好。）"""
    from nlpbook.widgets.kv_cache import KVCachePanel
    p = KVCachePanel()
    p.n_heads = 12                    # 原来的 8 组不整除 12：组数改成 6
    assert p.groups == 6 and "<b>6</b> 个 KV head" in p.fallback_html() and "12 个 KV head" in p.fallback_html()


def test_rnn_vs_transformer_size_change_clamps_the_step():
    from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel
    p = RNNvsTransformerPanel(step=10)
    p.n_tokens = 3                    # 步数上限变成 3，当前步截到 3
    assert p.step == 3 and p.step_max == 3
    p.step = 2
    assert "已走 <b>2</b> / 3 步" in p.fallback_html()


def test_trained_explorer_layer_change_redraws():
    import numpy as np
    from nlpbook.widgets.attention_explorer import AttentionExplorer
    maps = np.full((2, 2, 3, 3), 1 / 3)
    e = AttentionExplorer.from_maps(maps, list("abc"))
    e.layer = 1
    assert "第 2 层" in e.fallback_html() and e.heads is e._layers[1]


def test_every_panel_is_a_client_panel_and_no_kernel_redraw_is_left():
    """只有一种写法（docs/panels.md）：每个面板类都是 ClientPanel，没有留下旧的 update/watch 重画代码。"""
    panels, old = [], []
    for m in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"nlpbook.widgets.{m.name}")
        for c in vars(mod).values():
            if isinstance(c, type) and c.__module__ == mod.__name__ and c is not ClientPanel:
                if issubclass(c, ClientPanel):
                    panels.append(c)
                if "update" in vars(c) or "watch" in vars(c) or "view" in vars(c):
                    old.append(c.__name__)
    assert len(panels) >= 16 and not old, old
