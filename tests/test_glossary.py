"""glossary：课文附录 C 的 29 条都在、每条字段齐全、章号有 notebook；search 的匹配规则、顺序与报错；
第 12—18 章里加粗的术语都收进了术语表。"""

import json
import re
import unicodedata
from pathlib import Path

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
                 "naive Bayes", "bag of words", "TF-IDF", "KV cache", "F1 score", "KL divergence", "reward model",
                 "reward hacking", "MRR", "recall@k", "BM25", "bootstrap", "macro-F1", "confusion matrix",
                 "linear probe", "exposure bias"):
        assert any(n.startswith(must) for n in names), must


def test_extra_terms_are_in_chapter_order():
    order = [str(i) for i in range(1, 19)] + ["A", "B", "C", "D"]
    extra = [order.index(t.chapter) for t in GLOSSARY if not t.in_text]
    assert extra == sorted(extra)


def test_definitions_say_what_the_chapters_say():
    by_zh = {t.zh: t for t in GLOSSARY}
    # 第 13.6 节：RoPE 不往输入上加向量，而是按位置旋转 Q 和 K
    assert "旋转 Q 和 K" in by_zh["位置编码"].definition and "RoPE" not in by_zh["位置编码"].definition.split("或者")[0]
    assert "不往输入上加向量" in by_zh["旋转位置编码"].definition and by_zh["旋转位置编码"].chapter == "13"
    # 第 17.1 节：“很多实现”只对回答算损失，不是全部
    assert "很多实现" in by_zh["监督微调"].definition
    # 第 13.1 节引入“上下文化的表示”
    assert by_zh["上下文化表示"].chapter == "13"


def test_chapters_and_notebooks():
    assert chapter_label(13) == "第 13 章" and chapter_label("a") == "附录 A"
    assert notebook_for(16) == "16-ner.ipynb" and notebook_for("C") == "C-glossary.ipynb"
    assert [notebook_for(i) for i in range(1, 19)] == sorted(notebook_for(i) for i in range(1, 19))
    by_en = {t.en: t for t in GLOSSARY}
    assert by_en["attention"].chapter == "12" and by_en["mask"].chapter == "13"
    assert by_en["token"].chapter == "2" and by_en["padding"].chapter == "18"


def test_search_is_case_insensitive_and_covers_all_fields():
    assert [t.zh for t in search("ATTENTION")] == ["注意力", "交叉注意力", "自注意力", "多头注意力", "分组查询注意力"]
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


# ---- 第 12—18 章加粗的术语都在术语表里 ----
# 一个加粗的短语算“收录了”：它（或它括号里的部分、紧跟着的括号注释，如“**交叉注意力**（cross-attention）”）
# 等于某条术语的中文名或英文名（名字按括号、顿号、逗号、斜杠拆开的每一段也算），或是名字的开头（简称：
# “多数类”之于“多数类基线”），或由几个这样的名字组成（“TF-IDF 逻辑回归”“TF-IDF 对词袋”）。
# 不是名字的加粗按形式认出来：整句或段首小标题、图号和练习号、带数字或公式的读数、描述性的短语
# （含“的”，或九个汉字以上）、以否定词开头的强调。剩下的强调词逐章列在 EMPHASIS 里。

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
_SEP = r"[（）()、,，/]"
_BOLD = re.compile(r"\*\*(.+?)\*\*(\s*[（(]([^）)]*)[）)])?")

# 加粗只是为了强调、不是术语的短语（按章；用 | 分开）。理由按类写在每章后面。
EMPHASIS = {
    "12": "固定|第一个词|每一步|有选择地|仅凭|互相读|完全不变|cats|两个模型|加注意力|只传最终记录",   # 强调词；cats 是例句里要生成的词；后三个是倒写数字串实验里两个模型的说法
    "13": "同一句话|能力|每一行|之前|之后|未来|有机会|加回|变大|指代头|邻近头",  # 强调词；两个手设演示头的名字
    "14": "一份|实际选出|规模怎样增长|最后",                                     # 强调词
    "15": "有标签|填空|续写|两侧|最后一个|同时|谁能读谁|同一批|读数|影评分类",   # 强调词；填空、续写是题目的白话说法
    "16": "每个 token 一个标签|每个位置|各自|整条|学到了|分数|严格|字|模型|人名最难|"
          "完整实体|汇总|nr|ns|nt|逐字独立",   # 强调词；完整实体、汇总引出实体级评价与微平均；nr/ns/nt 是语料的词性记号；逐字独立是本章模型的名字
    "17": "先预测|适时停下|提示部分|逐条|同样|确定地|改动|句子或文档|做选择|单一方法之间|注明出处|词袋里|好处|代价|都|"
          "它不是训练|词频会饱和|按长度折算|概括性段落|有唯一正确答案|判断好评差评|复述前五个字|独立评委|字袋逻辑回归|"
          "词级 TF-IDF 逻辑回归",   # 强调词；BM25 的两条性质；实验里两种指令、评委和模型的名字
    "18": "先预测|检查|排查方向|内容|真实 token 数|词|更简单|分不开|两种噪声|偏乐观|最自信|概率|均值和标准差|训练准确率|"
          "更可能是标签错了",       # 强调词；报告里的读数名
}


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", s).casefold()).strip()


_NAMES = {_norm(part) for t in GLOSSARY for name in (t.zh, t.en) for part in [name, *re.split(_SEP, name)]
          if part.strip()}


def _is_name(v: str) -> bool:
    v = _norm(v)
    return bool(v) and (v in _NAMES or (len(v) >= 2 and any(n.startswith(v) for n in _NAMES)))


def _in_glossary(phrase: str, gloss: str) -> bool:
    if any(_is_name(v) for v in [phrase, *re.split(_SEP, phrase), *re.split(_SEP, gloss)]):
        return True
    pieces = [p for p in re.split(r"\s*(?:、|\+|和|对|\s)\s*", phrase) if p]
    return len(pieces) > 1 and all(_is_name(p) for p in pieces)


def _not_a_name(phrase: str) -> bool:
    return bool(re.search(r"[。：:？?！!.…]\s*$|[，；]", phrase)           # 整句、段首小标题
                or re.match(r"图 \d|练习", phrase)                           # 图号、练习号
                or re.search(r"(?<![A-Za-z0-9])\d|[=→±−$]", phrase)          # 读数、公式
                or "的" in phrase or len(re.findall(r"[\u4e00-\u9fff]", phrase)) >= 9   # 描述性短语
                or re.match(r"不|没|并不", phrase))                           # 否定的强调


def _bolded(chapters=range(12, 19)):
    """[(章, 加粗的短语, 紧跟着的括号注释)]，只看 markdown 单元。"""
    out = []
    for ch in chapters:
        for path in sorted(NOTEBOOKS.glob(f"{ch:02d}-*.ipynb")):
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
                if cell["cell_type"] == "markdown":
                    out += [(str(ch), m.group(1), m.group(3) or "") for m in _BOLD.finditer("".join(cell["source"]))]
    return out


def test_every_bolded_term_in_chapters_12_to_18_is_in_the_glossary():
    found = _bolded()
    if not found:
        pytest.skip("没有找到第 12—18 章的 notebook")
    allowed = {ch: set(v.split("|")) for ch, v in EMPHASIS.items()}
    missing = sorted({(ch, p) for ch, p, gloss in found
                      if not _in_glossary(p, gloss) and not _not_a_name(p) and p not in allowed.get(ch, ())})
    assert not missing, ("这些加粗的短语既不在术语表里，也不在 EMPHASIS 里（是术语就在 nlpbook/glossary.py 加一条，"
                         f"只是强调就加进 EMPHASIS）：{missing}")
    # 表不过期：列出的强调词仍在该章加粗出现，而且确实不是术语表里的名字
    for ch, words in allowed.items():
        here = {p for c, p, _ in found if c == ch}
        assert words <= here, f"第 {ch} 章不再加粗这些词，从 EMPHASIS 删掉：{sorted(words - here)}"
        assert not [w for w in words if _in_glossary(w, "")], f"第 {ch} 章：这些词已在术语表里，不必列"


@pytest.mark.parametrize("phrase, gloss, ok", [
    ("交叉注意力", "", True), ("恢复被破坏的文本", "span corruption", True), ("RoPE（旋转位置编码）", "", True),
    ("多数类", "", True), ("KL(π‖π_ref)", "", True), ("TF-IDF 逻辑回归", "", True), ("dev", "", True),
    ("词级 TF-IDF 逻辑回归", "", False), ("分数", "", False), ("cats", "", False),
])
def test_how_a_bolded_phrase_is_matched(phrase, gloss, ok):
    assert _in_glossary(phrase, gloss) is ok
