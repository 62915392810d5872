"""读者随便输入的面板（规则打分、分词器、术语搜索）和在浏览器里混合排名的检索面板：浏览器里的视图与 Python 的
fallback_html 逐字相同。

每个模块（js/<模块>.js）的默认导出除了 render 还带着纯函数 view(data, …)；这里用 Node 把 _kit.js + 模块当作
ES 模块导入，对一批刁钻的输入（空串、中英混排、emoji、生僻字、组合字符、全角字母、孤立的代理字符、HTML 特殊字符、
超长文本）调用 view，再与 Python 在同样的控件值下的 fallback_html 比较。没有 node 时跳过。
另外不靠 Node 也检查：演示分词器对这些输入切出的 token 正是下面写明的（浏览器里实现的就是这个算法）。
"""
from __future__ import annotations

import numpy as np
import pytest

from nlpbook.tokenizers import demo_tokenizer
from nlpbook.widgets.glossary_search import GlossarySearch
from nlpbook.widgets.rag_panel import WEIGHTS, RagPanel
from nlpbook.widgets.rule_scorer import RuleScorerBox
from nlpbook.widgets.tokenizer_playground import TokenizerPlayground

from _jsview import js_call, needs_node


TEXTS = ["", "电影不好看", "小猫没有跳上桌子，因为它太累了。龘👍", "好看好看好看，精彩！难看？无聊无聊",
         "<b>好看</b> & 'x' \"y\"", "龘👍ok", "很好", "e\u0301", "𠀀𠀁", "ＡＢＣ", "\t\n", "我喜欢NLP!",
         "👨\u200d👩\u200d👧", "a\ud800b", "\udc00", "自然语言处理 abc DEF 123 !?",
         "小猫没有跳上桌子，因为它太累了。龘👍" * 120, "好" * 2100 + "\ud800"]

# 演示分词器（第 2 章）对刁钻输入的切分：浏览器里的最长匹配 + 字节回退必须给出同样的 token
TRICKY = [
    ("", []),
    ("小猫没有跳上桌子", ["小猫", "没有", "跳上", "桌子"]),
    ("自然语言处理", ["自然", "语言", "处理"]),
    ("龘", ["<0xE9>", "<0xBE>", "<0x98>"]),                       # 生僻字：3 个字节
    ("👍", ["<0xF0>", "<0x9F>", "<0x91>", "<0x8D>"]),             # emoji：4 个字节（一个码位，JS 里是两个 UTF-16 单元）
    ("𠀀", ["<0xF0>", "<0xA0>", "<0x80>", "<0x80>"]),             # 扩展 B 区汉字
    ("很好", ["<0xE5>", "<0xBE>", "<0x88>", "好"]),
    ("ok 123", ["o", "k", " ", "1", "2", "3"]),
    ("我喜欢NLP!", ["我", "喜欢", "N", "L", "P", "!"]),
    ("e\u0301", ["e", "<0xCC>", "<0x81>"]),                       # 组合字符不做规范化
    ("ＡＢ", ["<0xEF>", "<0xBC>", "<0xA1>", "<0xEF>", "<0xBC>", "<0xA2>"]),   # 全角字母不转半角
    ("\t\n", ["<0x09>", "<0x0A>"]),
    ("龘👍ok", ["<0xE9>", "<0xBE>", "<0x98>", "<0xF0>", "<0x9F>", "<0x91>", "<0x8D>", "o", "k"]),
]


@pytest.mark.parametrize("text, want", TRICKY, ids=[repr(t) for t, _ in TRICKY])
def test_demo_tokenizer_on_tricky_strings(text, want):
    tok = demo_tokenizer()
    assert [t.text for t in tok.tokenize(text)] == want
    assert tok.decode(tok.encode(text)) == text
    html = TokenizerPlayground(text).fallback_html()
    n_bytes = sum(w.startswith("<0x") for w in want)
    assert f"{len(text)} 个字符 → <b>{len(want)} 个 token</b>（其中 {n_bytes} 个是字节回退片段）；解码后与原文一致" in html


def _same(panel, trait: str, values, extra=()) -> None:
    js = js_call(panel.module, panel.data, [[v, *extra] for v in values])
    for v, got in zip(values, js):
        setattr(panel, trait, v)
        assert got == panel.fallback_html(), f"{panel.module}：{v!r:.60} 时浏览器与 Python 的视图不同"


@needs_node
@pytest.mark.parametrize("lexicon", [None, {"好": 0.5, "不": -1, "很": 2.0, "😀": 1e-5, "a": 3}])
def test_rule_scorer_js_matches_python(lexicon):
    p = RuleScorerBox() if lexicon is None else RuleScorerBox(lexicon=lexicon)
    _same(p, "text", TEXTS + ["好好好很不😀a", "很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很很", "好" * 5])


@needs_node
def test_tokenizer_js_matches_python():
    _same(TokenizerPlayground(), "text", TEXTS + [t for t, _ in TRICKY])


@needs_node
def test_tokenizer_js_with_a_longer_vocabulary():
    from nlpbook.tokenizers import LongestMatchTokenizer
    tok = LongestMatchTokenizer(["自然", "自然语言", "语言处理", "处理", "👍👍", "e\u0301", "<b>", "a"])
    _same(TokenizerPlayground(tokenizer=tok), "text", ["自然语言处理", "👍👍👍", "e\u0301e", "<b>a</b>", "自然语"])


@needs_node
def test_glossary_js_matches_python():
    queries = ["注意力", "", "  lora ", "LoRA", "Ｌｏｒａ", "<UNK>", "查无此词", "a", "(", "[", ".", "\\", "$", "/",
               "attention", "ATTENTION", "softmax", " ", "\u3000词\u3000", "e", "的", "token", "BPE", "k/v", "Q/K/V"]
    _same(GlossarySearch(), "query", queries)


@needs_node
def test_glossary_js_links_point_at_site_pages_offline():
    p = GlossarySearch("lora")
    (view,) = js_call(p.module, p.data, [["lora", True]])
    assert '<a href="17-sft-lora-rag.html">第 17 章</a>' in view and ".ipynb" not in view


def _rag_cases():
    rng = np.random.default_rng(1)
    sp, de = rng.random((12, 60)) * 20, rng.random((12, 60))
    sp[:, 5] = sp[:, 6]                   # 两个段落分数完全相同：按下标排
    sp[3] = 0.0                           # 一个问题的稀疏分数全为 0：缩放后全是 0
    de[4, :10] = de[4, 10]
    return RagPanel(sp, de, rng.integers(0, 60, 12), [f"第 {i} 段 <{i}>" for i in range(60)],
                    [f"问题 {i} & “引号”" for i in range(12)], k=7)


@needs_node
def test_rag_js_matches_python_on_every_weight_and_question():
    p = _rag_cases()
    calls = [[w, q] for w in WEIGHTS for q in range(len(p.questions))]
    calls.append([0.30000000000000004, 2])          # 滑块读回来的浮点末位不影响
    for (w, q), got in zip(calls, js_call(p.module, p.data, calls)):
        p.weight, p.question = w, q
        assert got == p.fallback_html(), f"权重 {w}、问题 {q} 时浏览器与 Python 的视图不同"
