"""附录 C 的术语搜索框：改输入框的 value，表格跟着变；表格里章号链接到 notebook，命中处高亮且已转义。"""
from nlpbook.glossary import GLOSSARY, search
from nlpbook.widgets.glossary_search import GlossarySearch, glossary_html


def test_default_view_is_the_attention_search():
    box = GlossarySearch()
    v = box.view.value
    assert box.text.value == "注意力" and f"找到 <b>{len(search('注意力'))}</b> 条" in v
    assert '<a href="12-attention.ipynb">第 12 章</a>' in v and "<mark" in v


def test_typing_changes_the_view():
    box = GlossarySearch("")
    full = box.view.value
    assert f"全部术语：<b>{len(GLOSSARY)}</b> 条" in full and full.count("<tr>") == len(GLOSSARY) + 1
    box.text.value = "lora"
    assert box.view.value != full and "17-sft-lora-rag.ipynb" in box.view.value
    assert box.view.value.count("<tr>") == len(search("lora")) + 1
    box.text.value = "查无此词"
    assert "找到 <b>0</b> 条" in box.view.value and "<table" not in box.view.value


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
