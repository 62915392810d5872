"""retrieval：第 17.4 节的点积玩具例子、确定的排序、TF-IDF/BM25 检索与手算一致、按标题切分 notebook。"""
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from nlpbook import retrieval as R
from nlpbook.embedding import cosine_similarity
from nlpbook.text import Vocab, tf_idf

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def test_toy_example_of_17_4():
    """问题 [1,0]，文档 [0.9,0.1]、[0.1,0.9]：点积 0.9 和 0.1，优先返回第一篇。"""
    idx, scores = R.rank([1, 0], [[0.9, 0.1], [0.1, 0.9]])
    assert idx.tolist() == [0, 1] and np.allclose(scores, [0.9, 0.1])
    assert round(float(scores[0]), 3) == 0.9 and round(float(scores[1]), 3) == 0.1
    idx, scores = R.rank([1, 0], [[0.9, 0.1], [0.1, 0.9]], metric="cosine", k=1)
    assert idx.tolist() == [0] and round(float(scores[0]), 3) == 0.994
    # 点积不做长度归一化：把第二篇放大 10 倍，点积排序就变了，余弦不变
    assert R.rank([1, 0], [[0.9, 0.1], [1.0, 9.0]])[0].tolist() == [1, 0]
    assert R.rank([1, 0], [[0.9, 0.1], [1.0, 9.0]], metric="cosine")[0].tolist() == [0, 1]


def test_ties_break_by_index_and_zero_documents_score_zero():
    idx, scores = R.rank([1, 1], [[1, 0], [0, 0], [0, 1], [2, 2]], metric="dot")
    assert idx.tolist() == [3, 0, 2, 1] and scores.tolist() == [4, 1, 1, 0]
    idx, scores = R.rank([1, 1], [[1, 0], [0, 0], [0, 1], [2, 2]], metric="cosine", k=10)
    assert idx.tolist() == [3, 0, 2, 1] and scores[-1] == 0.0


def test_mathematically_equal_scores_keep_the_lower_index_first():
    """同一段落和它重复三遍的版本余弦相同，但浮点末位不同；排序仍按编号（问题 11 的第 2 个 bug）。"""
    d = np.array([-0.43643524714322124, -1.169801907772864, 1.739367877130134, -0.4959107284421519,
                  0.3289696294602021])
    q = np.array([-0.258572545473924, 1.5834728788021222, 1.3203609870818391, 0.6333526228249152,
                  -2.2035098806466507])
    idx, scores = R.rank(q, np.stack([d, 3 * d]), metric="cosine")
    assert idx.tolist() == [0, 1] and math.isclose(scores[0], scores[1])
    r = R.TfidfRetriever().fit([("其他", "无聊的电影"), ("原文", "电影好看"), ("重复", "电影好看。电影好看。电影好看")])
    s = r.scores("好看")
    assert math.isclose(s[1], s[2])
    assert [sid for sid, _ in r.search("好看")] == ["原文", "重复"]
    # 大分数（点积）也一样：末位的差别按相对大小判断
    idx, _ = R.rank([1e6, 1e6], [[1.0, 2.0], [1.0 + 1e-10, 2.0 - 1e-10]])
    assert idx.tolist() == [0, 1]


@settings(max_examples=100, deadline=None)
@given(arrays(float, 3, elements=st.floats(-3, 3)), arrays(float, (6, 3), elements=st.floats(-3, 3)))
def test_rank_properties(q, D):
    idx, scores = R.rank(q, D)
    tol = 1e-12 * max(np.abs(scores).max(), 1e-300)  # 相对差 1e-12 以内算相同分数，按编号排
    assert sorted(idx.tolist()) == list(range(6)) and np.all(np.diff(scores) <= tol)
    assert np.allclose(scores, D[idx] @ q)
    if np.linalg.norm(q) > 1e-3 and np.all(np.linalg.norm(D, axis=1) > 1e-3):
        _, cos = R.rank(q, D, metric="cosine")
        assert np.allclose(np.sort(cos)[::-1], np.sort(cosine_similarity(D, q))[::-1])
        assert np.all(np.abs(cos) <= 1 + 1e-12)


def test_char_bigram_tokenize():
    assert R.char_bigram_tokenize("命名实体 NER") == ["命", "名", "实", "体", "命名", "名实", "实体", "ner"]
    assert R.char_bigram_tokenize("第16章：RAG！") == ["第", "16", "章", "rag"]
    assert R.char_bigram_tokenize("，。 ") == []


SECTIONS = [
    ("15.2", "BERT 的掩码语言模型：遮住一部分词，根据两侧上下文补出来。"),
    ("16.1", "命名实体识别 NER：为句子中每个位置预测一个标签，找出人名、地名和组织名。"),
    ("16.3", "线性链 CRF 给整条标签序列打分，用 Viterbi 算法解码。"),
    ("17.4", "RAG：先检索相关文档，再把问题和段落一起交给模型回答。"),
]


def test_tfidf_retriever_finds_the_right_section():
    r = R.TfidfRetriever().fit(SECTIONS)
    hits = r.search("哪一节讲命名实体识别？", k=2)
    assert hits[0][0] == "16.1" and 0 < hits[0][1] <= 1
    assert r.search("Viterbi 解码", k=1)[0][0] == "16.3"
    assert r.search("检索文档", k=1)[0][0] == "17.4"
    assert r.search("xyz 乒乓") == []                      # 没有共同词：不返回
    assert len(r.search("的", k=4)) <= 4
    bm = R.TfidfRetriever(method="bm25").fit(SECTIONS)
    assert bm.search("哪一节讲命名实体识别？", k=1)[0][0] == "16.1"
    assert bm.search("Viterbi 解码", k=1)[0][0] == "16.3"
    words = R.TfidfRetriever().fit(SECTIONS, tokenize=str.split)  # 也可以传 jieba_cut 等词级分词
    assert words.search("CRF", k=1) == [("16.3", pytest.approx(words.scores("CRF")[2]))]


def test_tfidf_scores_equal_cosine_of_text_tf_idf():
    docs = [R.char_bigram_tokenize(t) for _, t in SECTIONS]
    M, vocab = tf_idf(docs)  # 课文定义：原始次数 × ln(N/df)
    query = "命名实体的标签序列"
    q = np.zeros(len(vocab))
    for t in R.char_bigram_tokenize(query):
        if t in vocab:
            q[vocab.id(t)] += 1
    q_w = tf_idf([R.char_bigram_tokenize(query)], vocab=vocab,
                 idf_table={t: math.log(len(docs) / sum(t in d for d in docs)) for t in vocab.itos})[0][0]
    expected = [float(M[i] @ q_w / (np.linalg.norm(M[i]) * np.linalg.norm(q_w))) for i in range(len(docs))]
    assert np.allclose(R.TfidfRetriever().fit(SECTIONS).scores(query), expected)
    assert isinstance(R.TfidfRetriever().fit(SECTIONS).vocab, Vocab)


def test_bm25_matches_hand_formula():
    secs = [("a", "猫 猫 狗"), ("b", "狗"), ("c", "鱼 鱼 鱼 鱼")]
    r = R.TfidfRetriever(method="bm25", k1=1.2, b=0.75).fit(secs, tokenize=str.split)
    avg = (3 + 1 + 4) / 3
    idf_cat = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expect_a = idf_cat * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / avg))
    assert np.allclose(r.scores("猫"), [expect_a, 0, 0])
    assert r.search("猫 狗", k=3)[0][0] == "a"


def _nb(cells):
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _md(text, as_list=True):
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(True) if as_list else text}


def _code(text):
    return {"cell_type": "code", "metadata": {}, "source": text, "outputs": [], "execution_count": None}


CH16 = _nb([
    _md("# 第 16 章　找出句子中的人名和地名：NER\n\n学完本章你能……"),
    _code("# 这是代码注释，不是标题\nimport numpy as np"),
    _md("## 16.1 每个位置一个答案\n\n命名实体识别（NER）给每个 token 一个标签。\n\n### 细节\n人物、地点。"),
    _md("```python\n# 围栏里的注释也不是标题\n```\n## 16.2 一个实体跨了多个 token", as_list=False),
    _md("BIO 标签：B 开始，I 内部，O 外部。"),
    _md("## 小练习\n\n北京大学算一个组织。"),
])


def test_notebook_sections_split_on_headings():
    secs = R.notebook_sections(CH16)
    assert [s for s, _ in secs] == ["第 16 章　找出句子中的人名和地名：NER", "16.1 每个位置一个答案",
                                    "16.2 一个实体跨了多个 token", "小练习"]
    text = dict(secs)
    assert "### 细节" in text["16.1 每个位置一个答案"]            # 更深的标题留在段落里
    assert "围栏里的注释" in text["16.1 每个位置一个答案"]          # 代码围栏里的 # 不切段
    assert "import numpy" not in "".join(text.values())             # 代码单元不收录
    assert text["16.2 一个实体跨了多个 token"].endswith("BIO 标签：B 开始，I 内部，O 外部。")
    assert [s for s, _ in R.notebook_sections(CH16, level=1)] == ["第 16 章　找出句子中的人名和地名：NER"]
    assert R.notebook_sections(json.dumps(CH16), name="16-ner")[1][0] == "16-ner · 16.1 每个位置一个答案"
    assert R.notebook_sections(_nb([_md("前言文字"), _md("## A\nx")]))[0] == ("(开头)", "前言文字")


def test_retriever_over_course_notebooks_answers_which_chapter(tmp_path):
    """“哪一章讲命名实体识别？” → 第 16 章的段落。先只用三个小 notebook，再混入本课程已有的 notebook。"""
    ch15 = _nb([_md("# 第 15 章　BERT、GPT、T5\n## 15.2 BERT：补出被遮住的部分\n掩码语言建模，两侧上下文。")])
    ch17 = _nb([_md("# 第 17 章　SFT、偏好优化、LoRA 与 RAG\n## 17.4 RAG\n先检索资料，再放到问题旁边。")])
    for name, nb in (("t15-pretraining", ch15), ("t16-ner", CH16), ("t17-post-training", ch17)):
        (tmp_path / f"{name}.ipynb").write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    own = [s for p in sorted(tmp_path.glob("*.ipynb")) for s in R.notebook_sections(p)]
    r = R.TfidfRetriever().fit(own)
    assert r.search("哪一章讲命名实体识别？", k=1)[0][0].startswith("t16-ner · ")
    assert r.search("检索增强生成 RAG", k=1)[0][0] == "t17-post-training · 17.4 RAG"
    course = [s for p in sorted(NOTEBOOKS.glob("*.ipynb")) for s in R.notebook_sections(p)]
    sections = own + course
    assert len({s for s, _ in sections}) == len(sections)  # 加了文件名，编号不重复
    r = R.TfidfRetriever().fit(sections)
    top = [sid for sid, _ in r.search("哪一章讲命名实体识别？", k=3)]
    assert any("16" in sid.split(" · ")[0] for sid in top)
    if (NOTEBOOKS / "03-bow-tfidf.ipynb").exists():
        assert r.search("TF-IDF 给到处出现的词少一点权重", k=1)[0][0].startswith("03-bow-tfidf · 3.4")


@pytest.mark.parametrize("call, exc, match", [
    (lambda: R.rank([1, 0], [[1, 0, 0]]), ValueError, "与问题向量同维"),
    (lambda: R.rank([[1, 0]], [[1, 0]]), ValueError, "一维向量"),
    (lambda: R.rank([0, 0], [[1, 0]], metric="cosine"), ValueError, "零向量"),
    (lambda: R.rank([1, 0], [[1, 0]], metric="l2"), ValueError, "'dot' 或 'cosine'"),
    (lambda: R.rank([1, 0], [[1, 0]], k=0), ValueError, "k 必须 > 0"),
    (lambda: R.rank([1, np.nan], [[1, 0]]), ValueError, "NaN"),
    (lambda: R.TfidfRetriever(method="dense"), ValueError, "'tfidf' 或 'bm25'"),
    (lambda: R.TfidfRetriever(b=2), ValueError, r"\[0, 1\]"),
    (lambda: R.TfidfRetriever().fit([]), ValueError, "不能为空"),
    (lambda: R.TfidfRetriever().fit(["16.1 NER"]), TypeError, "段落编号, 文本"),
    (lambda: R.TfidfRetriever().fit([("a", "x")], tokenize="jieba"), TypeError, "tokenize 必须是函数"),
    (lambda: R.TfidfRetriever().fit([("a", "x")], tokenize=lambda s: s), TypeError, "一个字符串"),
    (lambda: R.TfidfRetriever().search("x"), RuntimeError, "先调用 fit"),
    (lambda: R.TfidfRetriever().fit(SECTIONS).search(["NER"]), TypeError, "query 必须是字符串"),
    (lambda: R.TfidfRetriever().fit(SECTIONS).search("NER", k=0), ValueError, "k 必须 > 0"),
    (lambda: R.char_bigram_tokenize(None), TypeError, "字符串"),
    (lambda: R.notebook_sections({"foo": 1}), ValueError, "cells"),
    (lambda: R.notebook_sections(42), TypeError, "notebook 文件路径"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
