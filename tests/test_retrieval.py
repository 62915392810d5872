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


# ---- 第 17.4 节的检索评测：BM25 手算、LSA、混合、指标、抽取式回答、快照与问题集 ----

def test_bm25_two_terms_and_length_normalisation_by_hand():
    """语料 d1 = 'a a b'（长 3），d2 = 'b c'（长 2），d3 = 'c'（长 1），平均长度 2；k1 = 1.5，b = 0.75。

    IDF(a) = ln(1 + (3 − 1 + 0.5)/(1 + 0.5)) = ln(8/3)；IDF(b) = ln(1 + 1.5/2.5) = ln 1.6。
    问题 'a b'：d1 = ln(8/3)·2·2.5/(2 + 1.5·(0.25 + 0.75·1.5)) + ln1.6·1·2.5/(1 + 1.5·1.375)
               d2 = ln1.6·2.5/(1 + 1.5·(0.25 + 0.75·1))；d3 = 0。
    """
    r = R.TfidfRetriever(method="bm25", k1=1.5, b=0.75).fit([("d1", "a a b"), ("d2", "b c"), ("d3", "c")],
                                                            tokenize=str.split)
    ia, ib = math.log(8 / 3), math.log(1.6)
    n1 = 1.5 * (0.25 + 0.75 * 1.5)
    d1 = ia * 2 * 2.5 / (2 + n1) + ib * 2.5 / (1 + n1)
    d2 = ib * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 1.0))
    assert np.allclose(r.scores("a b"), [d1, d2, 0.0])
    assert round(d1, 3) == 1.591 and round(d2, 3) == 0.470
    # b = 0：不按长度折算；k1 = 0：词频完全饱和，只剩 IDF
    assert np.allclose(R.TfidfRetriever("bm25", k1=0, b=0.75).fit([("d1", "a a b"), ("d2", "b c"), ("d3", "c")],
                                                                   tokenize=str.split).scores("a b"), [ia + ib, ib, 0])


def test_lsa_with_full_rank_equals_tfidf_cosine_and_ranks_synonyms():
    """k 取满秩时 LSA 只是换了一组坐标：段落之间的点积不变，问题则先投影到段落张成的空间里，
    所以分数等于 TF-IDF 余弦乘同一个常数 |q| / |q 的投影|（排序完全相同）；k 小时共现的词被压在一起。"""
    secs = [("猫", "猫 喵 宠物"), ("狗", "狗 汪 宠物"), ("车", "车 轮子 公路"), ("船", "船 水 港口")]
    tf = R.TfidfRetriever().fit(secs, tokenize=str.split)
    full = R.LsaRetriever(k=4).from_tfidf(tf)
    for q in ("猫 宠物", "公路", "水 港口 车"):
        a, b = full.scores(q), tf.scores(q)
        ratio = a[b > 0] / b[b > 0]
        assert np.allclose(ratio, ratio[0]) and ratio[0] >= 1 - 1e-12 and np.allclose(a[b == 0], 0)
        hits = [i for i, _ in tf.search(q, k=4)]
        assert [i for i, _ in full.search(q, k=4)][:len(hits)] == hits
    small = R.LsaRetriever(k=2).fit(secs, tokenize=str.split)
    assert small.embed("喵").shape == (2,)
    assert np.allclose(small.scores("没有的词"), 0) and small.search("猫", k=1)[0][0] == "猫"
    again = R.LsaRetriever(k=2).fit(secs, tokenize=str.split)
    assert np.array_equal(again.scores("宠物 喵"), small.scores("宠物 喵"))       # 确定性（固定了奇异向量的符号）


def test_fuse_scores_by_hand():
    assert np.allclose(R.fuse_scores([0, 10, 5], [1.0, 0.0, 0.8], 0.5), [0.5, 0.5, 0.65])
    assert np.allclose(R.fuse_scores([0, 10, 5], [1.0, 0.0, 0.8], 1.0), [0, 1, 0.5])
    assert np.allclose(R.fuse_scores([3, 3], [1, 2], 0.5), [0, 0.5])              # 全部相同的一行缩放成 0
    two = R.fuse_scores([[0, 2], [4, 0]], [[1, 0], [0, 1]], 0.25)                  # 二维：每行（每个问题）各自缩放
    assert np.allclose(two, [[0.75, 0.25], [0.25, 0.75]])


def test_gold_ranks_recall_and_mrr_by_hand():
    S = [[0.1, 0.9, 0.5], [0.3, 0.2, 0.1], [0.0, 0.0, 0.0]]
    ranks = R.gold_ranks(S, [2, 2, 1])
    assert ranks.tolist() == [2, 3, 2]                                            # 全零时按下标：下标 1 排第 2
    assert R.recall_at_k([1, 3, 8], 1) == pytest.approx(1 / 3)
    assert R.recall_at_k([1, 3, 8], 5) == pytest.approx(2 / 3)
    assert R.mean_reciprocal_rank([1, 2, 4]) == pytest.approx(0.583, abs=5e-4)
    assert R.mean_reciprocal_rank([1, 3, 8]) == pytest.approx((1 + 1 / 3 + 1 / 8) / 3)


def test_best_sentences_picks_the_matching_sentence():
    text = "NER 很难。B 表示实体开始，I 表示内部。\n| O | 表示外部 |\n| --- | --- |"
    assert R.best_sentences("BIO 的 B 是什么", text) == ["B 表示实体开始，I 表示内部。"]
    assert R.best_sentences("外部用什么表示", text) == ["O | 表示外部"]
    assert R.best_sentences("乒乓", text) == []
    assert R.best_sentences("表示", text, n=2) == ["B 表示实体开始，I 表示内部。", "O | 表示外部"]  # 按原文顺序
    # 权重：到处都有的字记 0 分，就不会因为它选中句子
    assert R.best_sentences("的猫", "今天的天气。猫在睡觉。", weights={"的": 0.0, "猫": 2.0}) == ["猫在睡觉。"]
    assert R.split_sentences("A 是 B。为什么？\n| --- |\n| x | y |") == ["A 是 B。", "为什么？", "x | y"]


def test_plain_text_and_question_split():
    assert R.plain_text("**RAG** 见 [第 17 章](17.ipynb)<br>\n\n![徽章](x.svg) `k`") == "RAG 见 第 17 章\nk"
    assert R.question_split("什么是 BM25？") in ("dev", "test")
    assert R.question_split("什么是 BM25？") == R.question_split("什么是 BM25？")


# ---- 随包附带的快照与问题集 ----

def test_snapshot_is_well_formed():
    sections = R.course_sections()
    ids = [sid for sid, _ in sections]
    assert len(ids) == len(set(ids)) >= 150
    bodies = dict(R.course_sections(with_heading=False))
    snap = json.loads((R.RAG_DATA / "course_sections.json").read_text(encoding="utf-8"))
    assert "17-sft-lora-rag" not in snap["notebooks"]                              # 本章自己不收录
    for s in snap["sections"]:
        assert set(s) == {"id", "notebook", "heading", "text"} and s["id"].startswith(s["notebook"] + " · ")
        assert s["notebook"] in snap["notebooks"] and "](" not in s["text"] and "<details>" not in s["text"]
    assert all(text.startswith(dict((x["id"], x["heading"]) for x in snap["sections"])[sid])
               for sid, text in sections)
    assert sum(len(t) for t in bodies.values()) > 100_000


def test_question_set_is_well_formed_and_split_by_hash():
    qs = R.rag_questions()
    ids = {sid for sid, _ in R.course_sections()}
    assert len(qs) >= 60 and len({q["question"] for q in qs}) == len(qs)
    for q in qs:
        assert q["gold"] in ids, f"正确段落不在快照里：{q['gold']}"
        assert q["split"] == R.question_split(q["question"])
        assert q["kind"] in {"定义", "为什么", "数字", "比较", "怎么做"}
    dev, test = R.rag_questions("dev"), R.rag_questions("test")
    assert len(dev) >= 30 and len(test) >= 30 and len(dev) + len(test) == len(qs)
    assert len({q["gold"].split(" · ")[0] for q in qs}) >= 18                     # 覆盖大多数章
    # 问题不是正文句子的照抄：没有一个问题原样出现在它的正确段落里
    bodies = dict(R.course_sections(with_heading=False))
    assert not any(q["question"] in bodies[q["gold"]] for q in qs)


def test_gold_headings_still_exist_in_the_live_notebooks():
    """各章改写文字不算问题（快照不变）；但正确段落的标题在现在的 notebook 里没了，问题集就该维护了。"""
    live = {sid for name in json.loads((R.RAG_DATA / "course_sections.json").read_text(encoding="utf-8"))["notebooks"]
            if (NOTEBOOKS / f"{name}.ipynb").exists()
            for sid, _ in R.notebook_sections(NOTEBOOKS / f"{name}.ipynb")}
    if not live:
        pytest.skip("没有找到课程 notebook")
    missing = sorted({q["gold"] for q in R.rag_questions()} - live)
    assert not missing, ("这些正确段落的标题在 notebook 里已经不存在：" + "；".join(missing)
                         + "。请更新 nlpbook/rag/questions.json，再运行 scripts/build_rag_snapshot.py")


def test_report_drift_between_snapshot_and_live_notebooks(capsys):
    """只报告、不失败：快照之后各章改写了多少段文字（重新生成快照要运行 scripts/build_rag_snapshot.py）。"""
    snap = json.loads((R.RAG_DATA / "course_sections.json").read_text(encoding="utf-8"))
    old = {s["id"]: s["text"] for s in snap["sections"]}
    changed = 0
    for name in snap["notebooks"]:
        path = NOTEBOOKS / f"{name}.ipynb"
        if path.exists():
            for sid, text in R.notebook_sections(path):
                body = R.plain_text(text[len(sid.split(" · ", 1)[1]):])
                changed += sid in old and old[sid] != body
    with capsys.disabled():
        print(f"\n[retrieval] 快照之后文字改动过的段落：{changed} 个（不影响第 17 章的输出）")


@pytest.mark.record
def test_retrieval_evaluation_reproduces_the_notebook_numbers():
    """第 17 章 test 表里混合检索（w = 0.5）的数：recall@1 0.769、recall@5 0.974、MRR 0.866。"""
    sections = R.course_sections()
    ids = [sid for sid, _ in sections]
    tf = R.TfidfRetriever().fit(sections)
    bm = R.TfidfRetriever(method="bm25").fit(sections)
    lsa = R.LsaRetriever(k=100).from_tfidf(tf)
    test = R.rag_questions("test")
    gold = np.array([ids.index(q["gold"]) for q in test])
    fused = R.fuse_scores(np.array([bm.scores(q["question"]) for q in test]),
                          np.array([lsa.scores(q["question"]) for q in test]), 0.5)
    ranks = R.gold_ranks(fused, gold)
    assert [round(R.recall_at_k(ranks, 1), 3), round(R.recall_at_k(ranks, 5), 3),
            round(R.mean_reciprocal_rank(ranks), 3)] == [0.769, 0.974, 0.866]


@pytest.mark.parametrize("call, exc, match", [
    (lambda: R.LsaRetriever(k=0), ValueError, "k 必须 > 0"),
    (lambda: R.LsaRetriever(k=10).fit(SECTIONS), ValueError, "k 不能超过"),
    (lambda: R.LsaRetriever().scores("x"), RuntimeError, "先调用 fit"),
    (lambda: R.LsaRetriever(k=2).from_tfidf(R.TfidfRetriever("bm25").fit(SECTIONS)), TypeError, "method='tfidf'"),
    (lambda: R.LsaRetriever(k=2).fit(SECTIONS).scores(3), TypeError, "query 必须是字符串"),
    (lambda: R.fuse_scores([1, 2], [1, 2, 3], 0.5), ValueError, "形状相同"),
    (lambda: R.fuse_scores([1, 2], [1, 2], 1.5), ValueError, r"\[0, 1\]"),
    (lambda: R.fuse_scores([1, np.nan], [1, 2], 0.5), ValueError, "NaN"),
    (lambda: R.gold_ranks([0.1, 0.2], [0]), ValueError, "二维"),
    (lambda: R.gold_ranks([[0.1, 0.2]], [2]), ValueError, "整数下标"),
    (lambda: R.gold_ranks([[0.1, 0.2]], [0.0]), ValueError, "整数下标"),
    (lambda: R.recall_at_k([0, 1], 1), ValueError, "名次从 1 起"),
    (lambda: R.recall_at_k([], 1), ValueError, "非空"),
    (lambda: R.recall_at_k([1, 2], 0), ValueError, "k 必须 > 0"),
    (lambda: R.mean_reciprocal_rank([1.5]), ValueError, "正整数"),
    (lambda: R.best_sentences(None, "x"), TypeError, "字符串"),
    (lambda: R.best_sentences("x", "x", n=0), ValueError, "n 必须 > 0"),
    (lambda: R.split_sentences(b"x"), TypeError, "字符串"),
    (lambda: R.plain_text(None), TypeError, "字符串"),
    (lambda: R.question_split(""), ValueError, "非空字符串"),
    (lambda: R.rag_questions("train"), ValueError, "'dev'、'test'"),
])
def test_rag_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
