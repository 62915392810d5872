"""第 3 章的练习：词袋与 TF-IDF。

q1 选择：TF-IDF 能否区分“我喜欢你”和“你喜欢我”（课文 3.x 的小练习）
q2 填数：加入 D4 后“电影”的 IDF
q3 实现：my_bag_of_words(tokens, vocab)
q4 实现：my_tf_idf(docs, vocab)
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..text import Vocab, bag_of_words, tf_idf
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4"]

q1 = ChoiceExercise(
    "03.1", "把词频换成 TF-IDF，能区分“我喜欢你”和“你喜欢我”吗？",
    options={"A": "能：TF-IDF 给每个词不同的权重", "B": "不能：两句的 TF-IDF 向量完全相同",
             "C": "要看文档集合里有没有这两句"},
    correct="B",
    reasons={"A": "权重是按“词”给的，不是按位置给的；两句的词和次数都一样，乘上同样的 IDF，结果仍然一样。",
             "C": "同一个集合里，两句的词频相同、每个词的 IDF 也相同，不管集合里还有什么，它们的向量都相等。"},
    hints=["TF 只数每个词出现几次；IDF 只看一个词出现在几篇文档里。两者都和词序有关吗？"],
    answer="B。TF-IDF 只是给词袋的每一列换了权重，词序从一开始就丢掉了，换权重找不回来。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "03.2", "D1—D3 再加一篇 D4“好看 好看”，“电影”的 IDF 是多少？",
    expected=math.log(4 / 3), tol=2e-3,
    wrong=[(math.log2(4 / 3), "这是 log₂(4/3)；课程的 IDF 用自然对数 ln。"),
           (0.0, "加了 D4 以后文档总数是 4，而“电影”只出现在 3 篇里，IDF 不再是 0。"),
           (math.log(5 / 4) + 1, "这是 scikit-learn 的平滑公式 ln((1+N)/(1+df)) + 1；课程用 ln(N/df)。")],
    hints=["IDF = ln(文档总数 N / 包含这个词的文档数 df)。", "N = 4；“电影”出现在 D1、D2、D3 里。"],
    answer="N = 4，df(电影) = 3，IDF = ln(4/3) ≈ 0.288。",
    stub="answer_2 = None   # 填一个数，保留三位小数即可",
    filled="answer_2 = 0.288",
)


# ---- q3：词袋 ---------------------------------------------------------------
def _bow_ref(tokens, vocab):
    return bag_of_words(tokens, Vocab(vocab))


def _bow_binary(tokens, vocab):
    return np.array([1.0 if w in tokens else 0.0 for w in vocab])


def _bow_first_only(tokens, vocab):  # 只数到第一个不在词表里的词为止
    out = np.zeros(len(vocab))
    for t in tokens:
        if t not in vocab:
            break
        out[vocab.index(t)] += 1
    return out


def _bow_substring(tokens, vocab):  # 在整句里找子串：“很好看”也算一次“好看”
    return np.array([float(sum(t.count(w) for t in tokens)) for w in vocab])


def _bow_random(rng):
    words = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不", "很"]
    cases = []
    for n in (3, 5, 8, 12):
        vocab = list(rng.choice(words, size=5, replace=False))
        tokens = list(rng.choice(words, size=n))
        cases.append(Case((tokens, vocab)))
    return cases


_TOY = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不"]

q3 = FunctionExercise(
    "03.3", "实现词袋：按词表顺序数每个词出现几次",
    name="my_bag_of_words", reference=_bow_ref,
    cases=[Case((["电影", "好看"], _TOY)),
           Case((["电影", "不", "好看"], _TOY)),
           Case(([], _TOY), note="空句子"),
           Case((["好看", "好看", "电影"], _TOY), note="同一个词出现两次"),
           Case((["电影", "很", "好看"], _TOY), note="有一个词不在词表里：忽略它"),
           Case((["很好看", "电影"], _TOY), note="“很好看”是一个词、不在词表里：按整词数，不在词里找子串")],
    random_cases=_bow_random,
    mistakes=[Mistake("你只记了“出现没有”（0/1），没有数出现了几次。", _bow_binary),
              Mistake("遇到不在词表里的词就停下了；应该跳过它，继续数后面的词。", _bow_first_only),
              Mistake("你数的是子串：“很好看”里含着“好看”，却是另一个词。词袋按整个 token 数，"
                      "要 token 与词表里的词完全相同才算。", _bow_substring)],
    stub='''def my_bag_of_words(tokens, vocab):
    """tokens：词的列表；vocab：词表（列表，第 i 个词对应第 i 列）。
    返回长度为 len(vocab) 的 numpy 数组：每个词在 tokens 里出现的次数。不在词表里的词忽略。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_bag_of_words(tokens, vocab):
    col = {w: i for i, w in enumerate(vocab)}
    vec = np.zeros(len(vocab))
    for t in tokens:
        if t in col:
            vec[col[t]] += 1
    return vec
''',
    hints=["先准备一个全 0 的数组，长度等于词表大小。",
           "用字典 {词: 列号} 查每个 token 的列，查到就在那一列加 1；查不到就跳过。"],
)


# ---- q4：TF-IDF ---------------------------------------------------------------
def _tfidf_ref(docs, vocab):
    return tf_idf(docs, Vocab(vocab))[0]


def _df(docs):
    df = Counter()
    for d in docs:
        df.update(set(d))
    return df


def _tfidf_log2(docs, vocab):
    df, n = _df(docs), len(docs)
    return np.array([[d.count(w) * (math.log2(n / df[w]) if df[w] else 0.0) for w in vocab] for d in docs])


def _tfidf_count_all(docs, vocab):  # df 数的是总出现次数，不是文档数
    total, n = Counter(t for d in docs for t in d), len(docs)
    return np.array([[d.count(w) * (math.log(n / total[w]) if total[w] else 0.0) for w in vocab] for d in docs])


def _tfidf_sklearn(docs, vocab):
    df, n = _df(docs), len(docs)
    return np.array([[d.count(w) * (math.log((1 + n) / (1 + df[w])) + 1) for w in vocab] for d in docs])


def _tfidf_tf_norm(docs, vocab):  # TF 除以文档长度
    df, n = _df(docs), len(docs)
    return np.array([[(d.count(w) / len(d) if d else 0.0) * (math.log(n / df[w]) if df[w] else 0.0)
                      for w in vocab] for d in docs])


def _tfidf_df_zero(docs, vocab):  # 只在“词表里有没出现过的词”时出错：ln(N/0) = inf，0 × inf = NaN
    n = len(docs)
    df = np.array([sum(w in d for d in docs) for w in vocab], dtype=float)
    counts = np.array([[d.count(w) for w in vocab] for d in docs], dtype=float)
    return counts * np.log(n / df)


def _tfidf_random(rng):
    words = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不"]
    cases = []
    for n_docs in (2, 4, 6):
        docs = [list(rng.choice(words, size=int(rng.integers(1, 6)))) for _ in range(n_docs)]
        cases.append(Case((docs, words)))
    return cases


_D = [["电影", "好看"], ["电影", "精彩"], ["电影", "无聊"]]
_COLS = ["电影", "好看", "精彩", "无聊"]

q4 = FunctionExercise(
    "03.4", "实现 TF-IDF：TF 是原始计数，IDF = ln(N / df)",
    name="my_tf_idf", reference=_tfidf_ref,
    cases=[Case((_D, _COLS), note="课文 3.4 节的 D1—D3"),
           Case((_D + [["好看", "好看"]], _COLS), note="加上 D4“好看 好看”"),
           Case(([["好看"], ["难看"]], _COLS), note="词表里有从没出现过的词：这一列全是 0")],
    random_cases=_tfidf_random,
    mistakes=[Mistake("你用了以 2 为底的对数；课程的 IDF 用自然对数 ln（np.log）。", _tfidf_log2),
              Mistake("df 应该数“出现在几篇文档里”（一篇里出现多次只算一次），你数的是总出现次数。",
                      _tfidf_count_all),
              Mistake("这是 scikit-learn 的平滑 IDF ln((1+N)/(1+df)) + 1；课程用不平滑的 ln(N/df)。", _tfidf_sklearn),
              Mistake("TF 是原始计数，不要除以文档长度。", _tfidf_tf_norm),
              Mistake("从没出现过的词 df = 0，ln(N/0) 是无穷大，再乘计数 0 就成了 NaN：df 为 0 时让 IDF 取 0。",
                      _tfidf_df_zero)],
    stub='''def my_tf_idf(docs, vocab):
    """docs：文档列表，每篇是词的列表；vocab：词表（列表）。
    返回形状 (文档数, len(vocab)) 的 numpy 数组：计数 × ln(N / df)。
    df = 这个词出现在几篇文档里；从没出现过的词，整列为 0。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_tf_idf(docs, vocab):
    n = len(docs)
    df = {w: sum(w in d for d in docs) for w in vocab}
    idf = np.array([np.log(n / df[w]) if df[w] else 0.0 for w in vocab])
    counts = np.array([[d.count(w) for w in vocab] for d in docs], dtype=float)
    return counts * idf
''',
    hints=["分两步：先算每个词的 df（出现在几篇文档里），再算 IDF = ln(N/df)。",
           "计数矩阵的第 i 行第 j 列是 docs[i].count(vocab[j])；最后每一列乘上那个词的 IDF。",
           "df 为 0 的词没法算 ln(N/0)：让它的 IDF 为 0（整列都是 0）。"],
)
