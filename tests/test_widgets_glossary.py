"""附录 C 的术语搜索框：改搜索词，表格跟着变；表格里章号链接到 notebook，命中处高亮且已转义。"""
from nlpbook.glossary import GLOSSARY, search
from nlpbook.widgets.glossary_search import MAX_ROWS, GlossarySearch, glossary_html


def test_default_view_is_the_attention_search():
    box = GlossarySearch()
    v = box.fallback_html()
    assert box.query == "注意力" and f"找到 <b>{len(search('注意力'))}</b> 条" in v
    assert '<a href="12-attention.ipynb">第 12 章</a>' in v and "<mark" in v


def test_data_is_the_whole_glossary_in_order():
    terms = GlossarySearch().data["terms"]
    assert len(terms) == len(GLOSSARY) == 151
    zh, en, definition, chapter, notebook, in_text = terms[0]
    t = GLOSSARY[0]
    assert (zh, en, definition, in_text) == (t.zh, t.en, t.definition, t.in_text)
    assert (chapter, notebook) == ("第 5 章", "05-ngrams.ipynb")
    assert [row[0] for row in terms] == [t.zh for t in GLOSSARY]


def test_glossary_normal_form_needs_no_full_casefold():
    """浏览器里的 _norm 用 NFKC + toLowerCase：对术语表里的每一段文字，它与 Python 的 casefold 结果相同。"""
    import unicodedata
    for t in GLOSSARY:
        for text in (t.zh, t.en, t.definition):
            nfkc = unicodedata.normalize("NFKC", text)
            assert nfkc.casefold() == nfkc.lower(), text


def test_typing_changes_the_view():
    box = GlossarySearch("")
    full = box.fallback_html()
    assert f"全部术语：<b>{len(GLOSSARY)}</b> 条" in full and full.count("<tr>") == MAX_ROWS + 1
    assert f"只列出了前 <b>{MAX_ROWS}</b> 条（共 {len(GLOSSARY)} 条）" in full
    assert glossary_html("").count("<tr>") == len(GLOSSARY) + 1 and "只列出了" not in glossary_html("")   # C.1 的全表
    box.query = "lora"
    assert box.fallback_html() != full and "17-sft-lora-rag.ipynb" in box.fallback_html()
    assert box.fallback_html().count("<tr>") == len(search("lora")) + 1
    assert "只列出了" not in box.fallback_html()
    box.query = "查无此词"
    assert "找到 <b>0</b> 条" in box.fallback_html() and "<table" not in box.fallback_html()


def test_html_escapes_and_highlights_case_insensitively():
    v = glossary_html("<UNK>")
    assert "<UNK>" not in v.replace("<mark", "").replace("</mark>", "") and "&lt;UNK&gt;" in v
    v = glossary_html("Attention")
    assert ">attention</mark>" in v and ">Attention</mark>" not in v.split("</div>", 1)[1].split("<td")[0]
    assert "课文附录 C" in v and "补充" in v


def test_chapter_filter_and_appendix_links():
    v = glossary_html("", chapter="A")
    assert "（只看附录 A）" in v and '<a href="A-side-topics.ipynb">附录 A</a>' in v
    assert v.count("<tr>") == len(search(chapter="A")) + 1


def test_max_rows_is_checked():
    import pytest
    assert glossary_html("的", max_rows=3).count("<tr>") == 4
    with pytest.raises(ValueError, match="max_rows"):
        glossary_html("", max_rows=0)
