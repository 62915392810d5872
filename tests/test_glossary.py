"""glossary：课文附录 C 的 29 条都在、每条字段齐全、章号有 notebook；search 的匹配规则、顺序与报错。"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nlpbook.glossary import CHAPTER_NOTEBOOKS, GLOSSARY, Term, chapter_label, notebook_for, search

# 课文附录 C 的术语（英文名），顺序同课文
TEXT_TERMS = ["corpus", "token", "vocabulary", "token ID", "vector", "matrix", "dimension", "tensor", "feature",
              "parameter", "embedding", "hidden state", "context", "logits", "loss", "gradient",
              "backpropagation", "batch", "padding", "mask", "attention", "head", "encoder", "decoder",
              "pretraining", "fine-tuning", "inference", "decoding", "trade-off"]


def test_every_term_of_appendix_c_in_the_text_order():
    in_text = [t for t in GLOSSARY if t.in_text]
    assert [t.en for t in in_text] == TEXT_TERMS
    assert GLOSSARY[:29] == tuple(in_text)          # 课文的 29 条在前，补充的在后


def test_entries_are_complete_and_unique():
    for t in GLOSSARY:
        assert isinstance(t, Term) and t.zh.strip() and t.en.strip() and len(t.definition) >= 10
        assert t.chapter in CHAPTER_NOTEBOOKS, t
        assert t.definition.endswith("。"), t.zh
    assert len({t.zh for t in GLOSSARY}) == len(GLOSSARY)
    assert len({t.en.casefold() for t in GLOSSARY}) == len(GLOSSARY)
    # 课程主线的核心术语都有（补充部分）
    names = {t.en.split(" (")[0] for t in GLOSSARY} | {t.zh for t in GLOSSARY}
    for must in ("softmax", "cross-entropy", "perplexity", "self-attention", "LSTM", "CRF", "LoRA", "RAG",
                 "naive Bayes", "bag of words", "TF-IDF", "KV cache", "F1 score"):
        assert any(n.startswith(must) for n in names), must


def test_chapters_and_notebooks():
    assert chapter_label(13) == "第 13 章" and chapter_label("a") == "附录 A"
    assert notebook_for(16) == "16-ner.ipynb" and notebook_for("C") == "C-glossary.ipynb"
    assert [notebook_for(i) for i in range(1, 19)] == sorted(notebook_for(i) for i in range(1, 19))
    by_en = {t.en: t for t in GLOSSARY}
    assert by_en["attention"].chapter == "12" and by_en["mask"].chapter == "13"
    assert by_en["token"].chapter == "2" and by_en["padding"].chapter == "18"


def test_search_is_case_insensitive_and_covers_all_fields():
    assert [t.zh for t in search("ATTENTION")] == ["注意力", "自注意力", "多头注意力"]
    assert [t.en for t in search("Token id")] == ["token ID"]
    assert search("ｌｏｇｉｔｓ") == search("logits")                       # 全角也能查
    assert search("  softmax 之前  ")[0].en == "logits"                  # 解释里的子串，首尾空白忽略
    hits = search("注意力")
    assert hits[0].zh == "注意力" and {"遮罩", "补齐"} <= {t.zh for t in hits}


def test_name_matches_come_before_definition_matches():
    hits = search("梯度")
    names = [t for t in hits if "梯度" in t.zh]
    assert hits[:len(names)] == names and len(names) < len(hits)
    order = {t: i for i, t in enumerate(GLOSSARY)}
    assert [order[t] for t in names] == sorted(order[t] for t in names)
    rest = hits[len(names):]
    assert [order[t] for t in rest] == sorted(order[t] for t in rest)


def test_empty_query_and_chapter_filter():
    assert search() == list(GLOSSARY) and search("   ") == list(GLOSSARY)
    ch13 = search(chapter=13)
    assert ch13 and all(t.chapter == "13" for t in ch13)
    assert search("注意力", chapter="13") == [t for t in search("注意力") if t.chapter == "13"]
    assert search("这个词肯定不在术语表里") == []


@given(st.text(max_size=6))
def test_search_properties(q):
    hits = search(q)
    assert hits == search(q)                                  # 确定
    assert len(set(hits)) == len(hits) and set(hits) <= set(GLOSSARY)
    assert search(q.upper()) == search(q.lower()) or q.upper().lower() != q.lower()


@pytest.mark.parametrize("call, exc, match", [
    (lambda: search(None), TypeError, "query 必须是字符串"),
    (lambda: search(3), TypeError, "收到 int"),
    (lambda: search(["注意力"]), TypeError, "字符串"),
    (lambda: search("x", chapter=19), ValueError, "没有这一章"),
    (lambda: search("x", chapter=True), TypeError, "章号"),
    (lambda: notebook_for("E"), ValueError, "1—18 和 A—D"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
