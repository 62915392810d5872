"""第 13 章的注意力浏览器、第 14 章的步数面板和 KV cache 计算器：浏览器里的视图（js/<模块>.js 的纯函数 view）
与 Python 的 fallback_html 画出同样的东西。

用 Node 把 _kit.js + 模块当作 ES 模块导入，对控件取值的网格（或一大批随机取值）调用 view，再与 Python 在同样的
控件值下的 fallback_html 比较。比较前只抹掉写法上的差别：属性的引号（Python 用单引号）、斜纹图案的 id（浏览器里每张图
一个）、SVG 的 role/aria-label（Python 的条形图没有）；注意力浏览器的连线深浅（四位小数的不透明度、线宽、竖条高度）
在浏览器里来自三位小数的权重，也抹掉——表里显示的三位小数必须逐字相同。没有 node 时跳过。
"""
from __future__ import annotations

import random
import re

import numpy as np
import pytest

from _jsview import js_call, needs_node

pytestmark = needs_node


def _norm(h: str, drop=()) -> str:
    h = h.replace("&#x27;", "&#39;").replace("'", '"')
    h = re.sub(r"attn-hatch-\d+", "attn-hatch", h)
    for a in drop:
        h = re.sub(rf'{a}="[^"]*"', f'{a}=""', h)
        h = re.sub(rf"{a}:[^;\"]*", f"{a}:", h)
    return h


def _attention_panels():
    from nlpbook.tiny_transformer import load_pretrained
    from nlpbook.widgets.attention_explorer import AttentionExplorer
    text = "\n这家酒店的服务很好，房间也很干净，下次还会再来。"
    maps = np.array(load_pretrained().attention_maps(text))
    yield AttentionExplorer()
    yield AttentionExplorer.from_maps(maps, list(text), layer=1, head=3, query=list(text).index("还"))


@pytest.mark.parametrize("which", [0, 1], ids=["演示句", "训练好的模型"])
def test_attention_explorer_js_matches_python_on_every_state(which):
    from nlpbook.widgets.attention_explorer import OVERLAY
    p = list(_attention_panels())[which]
    states = [dict(query=q, step=s, head=h, causal=c, layer=L)
              for q in range(len(p.tokens)) for s in p._steps for h in [*p.data["heads"], OVERLAY]
              for c in ([True] if p.data["causal_fixed"] else [False, True]) for L in range(len(p._layers))]
    drop = ("data-weight", "stroke-opacity", "fill-opacity", "stroke-width", "height")
    for st, got in zip(states, js_call(p.module, p.data, [[s] for s in states])):
        for name, v in st.items():
            setattr(p, name, v)
        assert _norm(got, drop) == _norm(p.fallback_html(), drop), st
    assert len(states) >= 180


def test_parallel_steps_js_matches_python_on_the_whole_grid():
    from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel
    p = RNNvsTransformerPanel()
    calls = [[n, L, s] for n in range(1, 11) for L in range(1, 7) for s in range(0, n * L + 1)]
    for (n, L, s), got in zip(calls, js_call(p.module, p.data, calls)):
        p.n_tokens, p.layers = n, L
        p.step = s
        assert _norm(got) == _norm(p.fallback_html()), (n, L, s)


def test_kv_cache_js_matches_python_on_random_and_edge_settings():
    from nlpbook.widgets.kv_cache import BYTES_OPTIONS, KINDS, RANGES, KVCachePanel, divisors
    p = KVCachePanel()
    rng = random.Random(0)

    def pick(name):
        lo, hi, st = RANGES[name]
        return rng.choice([lo, hi, lo + st * rng.randrange((hi - lo) // st + 1)])

    states = []
    for _ in range(600):
        s = {k: pick(k) for k in RANGES}
        s.update(bytes_per_number=rng.choice([v for _, v in BYTES_OPTIONS]), kind=rng.choice(KINDS))
        s["groups"] = rng.choice(divisors(s["n_heads"]))
        states.append(s)
    states += [  # 全部拉满（256 TiB）、全部最小、恰好在两位小数正中的 1.125 MiB（Python 取偶数 1.12）、课文的设置
        dict(batch=64, layers=128, tokens=131_072, n_heads=128, head_dim=256, bytes_per_number=4, kind="MHA", groups=128),
        dict(batch=1, layers=1, tokens=256, n_heads=1, head_dim=16, bytes_per_number=0.5, kind="MQA", groups=1),
        dict(batch=1, layers=72, tokens=1024, n_heads=1, head_dim=16, bytes_per_number=0.5, kind="MHA", groups=1),
        dict(batch=1, layers=32, tokens=8192, n_heads=32, head_dim=128, bytes_per_number=2, kind="GQA", groups=8),
    ]
    for s, got in zip(states, js_call(p.module, p.data, [[s] for s in states])):
        p.n_heads = s["n_heads"]
        for name, v in s.items():
            setattr(p, name, v)
        assert _norm(re.sub(r' role="img" aria-label="[^"]*"', "", got)) == _norm(p.fallback_html()), s
    (tie,) = js_call(p.module, p.data, [[states[-2]]])
    assert "1.12 MiB（1.18 MB）" in tie                  # 1,179,648 字节 = 1.125 MiB：与 Python 一样取偶数
