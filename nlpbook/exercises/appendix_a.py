"""附录 A 的练习：朴素贝叶斯、GloVe 的共现表、fastText 的字符 n-gram、HMM。

q1 填数：好评先验改成 0.2 时，看到“精彩”后的好评概率
q2 选择：“不错 不错 不错”比“不错”更像好评，说明了哪一个假设
q3 填数：playing 按 fastText 的做法有多少个字符 n-gram
q4 选择：LOC → LOC 的转移概率改成 0，最优路径和 P(x) 变不变
q5 实现：my_nb_posterior(prior, likelihoods)——在对数空间里算后验
q6 实现：my_nb_predict(train_docs, train_labels, doc)——多项式朴素贝叶斯，加一平滑
q7 实现：my_char_ngrams(word, n_min, n_max)——带边界符的字符 n-gram
q8 实现：my_cooccurrence(sentences, vocab, window)——GloVe 要拟合的共现次数表
"""
from __future__ import annotations

import numpy as np

from ..naive_bayes import MultinomialNB, naive_bayes_posterior
from ..text import ngrams
from ..word2vec import skipgram_pairs
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"]

q1 = NumberExercise(
    "A.1", "好评先验是 0.2、差评 0.8，P(精彩|好评) = 0.4、P(精彩|差评) = 0.02：看到“精彩”后好评的概率",
    expected=float(naive_bayes_posterior([0.2, 0.8], [0.4, 0.02])[0]), tol=2e-3,
    wrong=[(0.952, "这是先验各 0.5 时的结果；先验换成了 0.2 和 0.8。"),
           (0.08, "0.2 × 0.4 = 0.08 只是未归一化的分数，还要除以两类分数之和。"),
           (1 / 6, "这是差评的后验；题目问的是好评。")],
    hints=["两类各算 先验 × 似然。", "好评 0.2 × 0.4，差评 0.8 × 0.02，再除以两者之和。"],
    answer="好评 0.2 × 0.4 = 0.08，差评 0.8 × 0.02 = 0.016；0.08 / 0.096 ≈ 0.833。",
    stub="answer_1 = None   # 填一个数，保留三位小数即可",
    filled="answer_1 = 0.833",
)

q2 = ChoiceExercise(
    "A.2", "“不错 不错 不错”的好评概率比“不错”高，这说明了朴素贝叶斯的哪一点？",
    options={"A": "先验：好评在训练集里更多",
             "B": "条件独立：同一个词的每次出现都被当作一条独立的证据，再乘一次",
             "C": "加一平滑：常见词的概率被抬高了"},
    correct="B",
    reasons={"A": "两条评论的先验完全一样，差别只来自“不错”被乘了几次；而且这份训练集里差评略多。",
             "C": "平滑只影响每个词的条件概率是多少，两条评论用的是同一个 P(不错|类别)。"},
    hints=["多项式模型里，一个词出现三次，它的条件概率就乘三次。这样做默认了什么？"],
    answer="B。给定类别后假设各词（包括同一个词的各次出现）彼此独立，出现三次就把 P(不错|类别) 乘三次，"
           "概率被推得更极端；真实语言里重复一个词并没有带来三倍的信息。",
    stub='answer_2 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_2 = "B"',
)

q3 = NumberExercise(
    "A.3", "按 fastText 的做法（加边界符，n = 3 到 6），playing 有多少个字符 n-gram（不含整词）？",
    expected=22, tol=0,
    wrong=[(14, "没有加边界符：先把词写成 <playing>，一共 9 个字符。"),
           (23, "整词 <playing> 是另外存的一份，不算在 3 到 6 的片段里。"),
           (18, "n 取到 6 为止（含 6）：还有 4 个 6-gram。")],
    hints=["加上边界符后是 <playing>，9 个字符。", "长度为 n 的片段有 9 − n + 1 个，n = 3, 4, 5, 6 分别相加。"],
    answer="<playing> 共 9 个字符：7 + 6 + 5 + 4 = 22 个。以 ing 结尾的是 ing、ying、aying、laying；"
           "带词尾边界的 ing> 才是和 going、reading 共享的那一份。",
    stub="answer_3 = None   # 填一个整数",
    filled="answer_3 = 22",
)

q4 = ChoiceExercise(
    "A.4", "A.3 的 HMM 里把 LOC → LOC 改成 0（LOC → O 改成 1），“住 在 北京”的最优路径和 P(x) 会变吗？",
    options={"A": "最优路径不变，P(x) 变", "B": "最优路径变，P(x) 不变",
             "C": "两者都不变", "D": "两者都变"},
    correct="A",
    reasons={"B": "最优路径 O O LOC 里没有 LOC → LOC 这一步，它的联合概率不变；而 P(x) 是所有路径之和，会变。",
             "C": "含 LOC → LOC 的路径（如 O LOC LOC）概率变成 0，含 LOC → O 的变大：所有路径之和 P(x) 会变。",
             "D": "O O LOC 只用到 O → O 和 O → LOC，它的联合概率 0.01008 不变，其他路径也都没有超过它。"},
    hints=["最优路径 O O LOC 用到了哪些转移？", "P(x) 是 8 条路径的联合概率之和。"],
    answer="A。O O LOC 没用到 LOC → LOC，联合概率不变，仍是最优；含 LOC → LOC 的路径变成 0、含 LOC → O 的变大，"
           "P(x) 随之改变。",
    stub='answer_4 = None   # 填 "A"、"B"、"C" 或 "D"',
    filled='answer_4 = "A"',
)


# ---- q5：贝叶斯后验，在对数空间里算 ---------------------------------------------------
def _post_ref(prior, likelihoods):
    return naive_bayes_posterior(prior, likelihoods)


def _as_2d(lik):
    lik = np.asarray(lik, dtype=float)
    return lik[:, None] if lik.ndim == 1 else lik


def _post_no_prior(prior, likelihoods):  # 对数空间做对了，却忘了先验
    with np.errstate(divide="ignore"):
        s = np.log(_as_2d(likelihoods)).sum(axis=1)
    e = np.exp(s - s.max())
    return e / e.sum()


def _post_unnormalized(prior, likelihoods):
    return np.asarray(prior, float) * _as_2d(likelihoods).prod(axis=1)


def _post_sum_lik(prior, likelihoods):  # 各词的似然相加而不是相乘
    s = np.asarray(prior, float) * _as_2d(likelihoods).sum(axis=1)
    return s / s.sum()


def _post_product(prior, likelihoods):  # 概率直接连乘：词多了就下溢成 0
    s = np.asarray(prior, float) * _as_2d(likelihoods).prod(axis=1)
    return s / s.sum()


_LONG_LIK = np.vstack([np.full(400, 0.0101), np.full(400, 0.01)])


def _post_random(rng):
    cases = []
    for c, n in ((2, 3), (3, 5), (4, 8)):
        prior = rng.dirichlet(np.ones(c))
        cases.append(Case((prior, rng.uniform(0.01, 0.5, size=(c, n)))))
    return cases


q5 = FunctionExercise(
    "A.5", "实现贝叶斯后验：先验 × 各词似然，归一化；在对数空间里算",
    name="my_nb_posterior", reference=_post_ref,
    cases=[Case(([0.5, 0.5], [0.4, 0.02]), note="A.1 的例子，应得 [0.952, 0.048]"),
           Case(([0.2, 0.8], [0.4, 0.02]), note="先验不是 0.5"),
           Case(([0.5, 0.5], [[0.4, 0.01], [0.02, 0.3]]), note="两个词：精彩、无聊"),
           Case(([0.5, 0.3, 0.2], [[0.1, 0.2], [0.3, 0.1], [0.2, 0.2]]), note="三个类别"),
           Case(([0.5, 0.5], [[0.4, 0.0], [0.02, 0.3]]), note="有一个似然是 0：那一类的后验是 0"),
           Case(([0.5, 0.5], _LONG_LIK), note="400 个词：概率连乘会下溢成 0")],
    random_cases=_post_random,
    array_args=("prior", "likelihoods"),
    mistakes=[Mistake("没有除以各类分数之和：后验要归一化，加起来等于 1。", _post_unnormalized),
              Mistake("忘了乘先验；先验各 0.5 时看不出来。", _post_no_prior),
              Mistake("各个词的似然要相乘（取对数后相加），不是相加。", _post_sum_lik),
              Mistake("概率直接连乘，词一多就下溢成 0，0/0 得到 NaN。改成对数相加：ln 先验 + Σ ln 似然，"
                      "减去最大值再 exp、归一化。", _post_product)],
    stub='''def my_nb_posterior(prior, likelihoods):
    """prior：形状 (C,) 的先验概率；likelihoods：形状 (C,)（只看一个词），
    或 (C, n)（n 个词，第 c 行是各词在类别 c 里的条件概率）。
    返回形状 (C,) 的后验概率（和为 1）。词很多时概率连乘会下溢成 0：请在对数空间里算。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_nb_posterior(prior, likelihoods):
    prior = np.asarray(prior, dtype=float)
    lik = np.asarray(likelihoods, dtype=float)
    if lik.ndim == 1:
        lik = lik[:, None]                               # 一个词：变成 (C, 1)
    with np.errstate(divide="ignore"):                   # ln 0 = -inf：那一类的后验就是 0
        score = np.log(prior) + np.log(lik).sum(axis=1)  # 对数空间：连乘变相加
    e = np.exp(score - score.max())                      # 减去最大值再 exp，不会全部下溢
    return e / e.sum()
''',
    hints=["后验 ∝ 先验 × 各词似然的乘积；最后除以总和。",
           "几百个 0.01 相乘会下溢成 0。改算 ln 先验 + Σ ln 似然。",
           "对数分数要变回概率时，先减去最大的那个再 exp，然后归一化（和 softmax 一样）。"],
)


# ---- q6：多项式朴素贝叶斯，加一平滑 ----------------------------------------------------
def _nb_ref(train_docs, train_labels, doc):
    return MultinomialNB().fit(train_docs, train_labels, alpha=1.0).predict_proba([doc])[0]


def _nb_generic(train_docs, train_labels, doc, *, alpha=1.0, per_class_vocab=False, keep_unseen=False,
                uniform_prior=False, distinct=False, log_space=True):
    classes = sorted(set(train_labels))
    vocab = sorted({w for d in train_docs for w in d})
    words = [w for w in (set(doc) if distinct else doc) if keep_unseen or w in vocab]
    scores = []
    for c in classes:
        class_docs = [d for d, y in zip(train_docs, train_labels) if y == c]
        tokens = [w for d in class_docs for w in d]
        v = len(set(tokens)) if per_class_vocab else len(vocab)
        prior = 1 / len(classes) if uniform_prior else len(class_docs) / len(train_docs)
        probs = [(tokens.count(w) + alpha) / (len(tokens) + alpha * v) for w in words]
        if log_space:
            with np.errstate(divide="ignore"):
                scores.append(np.log(prior) + np.sum(np.log(probs)))
        else:
            scores.append(prior * np.prod(probs))
    s = np.array(scores)
    if log_space:
        e = np.exp(s - s.max())
        return e / e.sum()
    return s / s.sum()


def _nb_no_smoothing(train_docs, train_labels, doc):
    return _nb_generic(train_docs, train_labels, doc, alpha=0.0)


def _nb_class_vocab(train_docs, train_labels, doc):
    return _nb_generic(train_docs, train_labels, doc, per_class_vocab=True)


def _nb_keep_unseen(train_docs, train_labels, doc):
    return _nb_generic(train_docs, train_labels, doc, keep_unseen=True)


def _nb_uniform_prior(train_docs, train_labels, doc):
    return _nb_generic(train_docs, train_labels, doc, uniform_prior=True)


def _nb_distinct(train_docs, train_labels, doc):
    return _nb_generic(train_docs, train_labels, doc, distinct=True)


def _nb_product(train_docs, train_labels, doc):
    return _nb_generic(train_docs, train_labels, doc, log_space=False)


_TRAIN = [["电影", "好看"], ["剧情", "精彩"], ["电影", "难看"], ["剧情", "无聊"]]
_LABELS = [1, 1, 0, 0]
_WORDS = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不", "很"]


def _nb_random(rng):
    cases = []
    for n_docs, k in ((5, 2), (8, 3), (12, 3)):
        docs = [list(rng.choice(_WORDS, size=int(rng.integers(1, 5)))) for _ in range(n_docs)]
        labels = [int(v) for v in rng.integers(0, k, size=n_docs)]
        doc = list(rng.choice(_WORDS + ["惊艳"], size=int(rng.integers(1, 6))))
        cases.append(Case((docs, labels, doc)))
    return cases


q6 = FunctionExercise(
    "A.6", "实现多项式朴素贝叶斯：在训练文档上数数（加一平滑），给一篇新文档算各类的后验",
    name="my_nb_predict", reference=_nb_ref,
    cases=[Case((_TRAIN, _LABELS, ["电影", "好看"]), note="四篇教学评论"),
           Case((_TRAIN, _LABELS, ["好看", "好看"]), note="同一个词出现两次：乘两次"),
           Case(([["电影", "好看", "好看"]] + _TRAIN[1:], _LABELS, ["剧情", "惊艳"]), note="“惊艳”不在训练词表里：忽略它"),
           Case((_TRAIN + [["好看"]], _LABELS + [1], ["电影"]), note="两类文档数不同：先验是 3/5 与 2/5"),
           Case((_TRAIN, _LABELS, []), note="空文档：后验等于先验"),
           Case((_TRAIN, _LABELS, ["好看", "难看"] * 300 + ["好看"]), note="601 个词：概率连乘会下溢成 0")],
    random_cases=_nb_random,
    mistakes=[Mistake("概率直接连乘，词一多就下溢成 0，0/0 得到 NaN：改成对数相加，减去最大值再 exp。",
                      _nb_product),
              Mistake("没有加一平滑：某类里没出现过的词让这一类的概率直接变成 0。"
                      "P(w|c) = (次数 + 1) / (该类总词数 + |V|)。", _nb_no_smoothing),
              Mistake("|V| 要用整个训练词表的大小，不是这一类里出现过的词数。", _nb_class_vocab),
              Mistake("不在训练词表里的词要忽略；你给它算了一个平滑后的概率。", _nb_keep_unseen),
              Mistake("先验要按每类的训练文档数算（这里是 3/5 与 2/5），不是各类相等。", _nb_uniform_prior),
              Mistake("同一个词出现几次就乘几次（多项式模型）；你只算了一次。", _nb_distinct)],
    stub='''def my_nb_predict(train_docs, train_labels, doc):
    """train_docs：训练文档的列表，每篇是词的列表；train_labels：每篇的类别（整数）；
    doc：要判断的一篇文档（词的列表，可以为空）。
    返回 numpy 数组：doc 属于各类别的后验概率，类别按 sorted(set(train_labels)) 的顺序。
    先验 = 该类文档数 / 文档总数；P(w|c) = (c 类里 w 的总次数 + 1) / (c 类的总词数 + |V|)，
    |V| 是整个训练词表的大小；doc 里不在训练词表中的词忽略。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_nb_predict(train_docs, train_labels, doc):
    classes = sorted(set(train_labels))
    vocab = {w for d in train_docs for w in d}
    words = [w for w in doc if w in vocab]                       # 没见过的词忽略
    scores = []
    for c in classes:
        docs_c = [d for d, y in zip(train_docs, train_labels) if y == c]
        tokens = [w for d in docs_c for w in d]
        log_prior = np.log(len(docs_c) / len(train_docs))
        log_lik = sum(np.log((tokens.count(w) + 1) / (len(tokens) + len(vocab))) for w in words)
        scores.append(log_prior + log_lik)                       # 对数空间里相加
    s = np.array(scores)
    e = np.exp(s - s.max())
    return e / e.sum()
''',
    hints=["训练就是数数：每类有几篇文档（先验），每类里每个词出现几次、一共多少词（似然）。",
           "加一平滑：P(w|c) = (次数 + 1) / (该类总词数 + |V|)，|V| 是全部训练文档的不同词数。",
           "doc 里每出现一次词，就加一次 ln P(w|c)；最后像 A.5 一样减去最大值、exp、归一化。"],
)


# ---- q7：fastText 的字符 n-gram ----------------------------------------------------------
def _grams_ref(word, n_min, n_max):
    chars = list(f"<{word}>")
    return [g for n in range(n_min, n_max + 1) for g in ngrams(chars, n, joiner="")]


def _grams_no_markers(word, n_min, n_max):
    return [word[i:i + n] for n in range(n_min, n_max + 1) for i in range(len(word) - n + 1)]


def _grams_off_by_one(word, n_min, n_max):  # 最后一个片段漏了
    w = f"<{word}>"
    return [w[i:i + n] for n in range(n_min, n_max + 1) for i in range(len(w) - n)]


def _grams_exclusive(word, n_min, n_max):  # n 没有取到 n_max
    w = f"<{word}>"
    return [w[i:i + n] for n in range(n_min, n_max) for i in range(len(w) - n + 1)]


def _grams_by_position(word, n_min, n_max):  # 先按位置、再按长度
    w = f"<{word}>"
    return [w[i:i + n] for i in range(len(w)) for n in range(n_min, n_max + 1) if i + n <= len(w)]


def _grams_drop_whole(word, n_min, n_max):  # 把 <词> 本身当成“整词”扔掉了
    return [g for g in _grams_ref(word, n_min, n_max) if g != f"<{word}>"]


def _grams_random(rng):
    words = ["where", "her", "reading", "电影院", "不好看", "a", "language"]
    cases = []
    for _ in range(4):
        n_min = int(rng.integers(1, 4))
        cases.append(Case((str(rng.choice(words)), n_min, n_min + int(rng.integers(0, 4)))))
    return cases


q7 = FunctionExercise(
    "A.7", "实现 fastText 的字符 n-gram：两端加 < >，取长度 n_min 到 n_max 的全部片段",
    name="my_char_ngrams", reference=_grams_ref,
    cases=[Case(("where", 3, 3), note="A.2 的例子，应得 5 个"),
           Case(("超好看", 2, 3), note="A.2 的中文例子"),
           Case(("going", 3, 6)),
           Case(("好", 2, 4), note="一个字的词：<好> 本身也是一个 3-gram"),
           Case(("ab", 3, 6), note="n_max 比加了边界符的词还长"),
           Case(("我", 4, 6), note="一个片段都没有：返回空列表"),
           Case(("banana", 3, 3), note="同一个片段 ana 出现两次：两次都要列出")],
    random_cases=_grams_random,
    mistakes=[Mistake("忘了在词的两端加边界符：先把词写成 <词>。", _grams_no_markers),
              Mistake("每种长度都漏了最后一个片段：长度 L 的字符串有 L − n + 1 个长度为 n 的片段。", _grams_off_by_one),
              Mistake("n 要取到 n_max（含 n_max）：range(n_min, n_max + 1)。", _grams_exclusive),
              Mistake("顺序不对：先列出全部最短的片段（按位置），再列下一种长度。", _grams_by_position),
              Mistake("<词> 的长度落在 n_min..n_max 之内时，它也是一个片段，不要去掉。", _grams_drop_whole)],
    stub='''def my_char_ngrams(word, n_min, n_max):
    """word：一个词（字符串）；n_min、n_max：片段长度的范围（含两端）。
    先在两端加边界符，写成 "<" + word + ">"，再取所有长度为 n_min..n_max 的连续片段。
    返回字符串列表：先按长度从短到长，同一长度按出现位置从左到右；一个都没有时返回 []。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_char_ngrams(word, n_min, n_max):
    w = "<" + word + ">"
    return [w[i:i + n] for n in range(n_min, n_max + 1)        # 先按长度
            for i in range(len(w) - n + 1)]                     # 再按位置；长度 L 有 L − n + 1 个
''',
    hints=['先写 w = "<" + word + ">"。',
           "两层循环：外层 n 从 n_min 到 n_max（含），内层起点 i 从 0 到 len(w) − n（含）。"],
)


# ---- q8：GloVe 的共现表 ---------------------------------------------------------------
def _cooc_ref(sentences, vocab, window):
    index = {w: i for i, w in enumerate(vocab)}
    X = np.zeros((len(vocab), len(vocab)), dtype=int)
    for sent in sentences:
        for a, b in skipgram_pairs(sent, window):   # 第 7 章的 (中心词, 周围词) 词对
            X[index[a], index[b]] += 1
    return X


def _cooc_generic(sentences, vocab, window, *, right_only=False, skip_same=False):
    index = {w: i for i, w in enumerate(vocab)}
    X = np.zeros((len(vocab), len(vocab)), dtype=int)
    for sent in sentences:
        for i, a in enumerate(sent):
            lo = i + 1 if right_only else max(0, i - window)
            for j in range(lo, min(len(sent), i + window + 1)):
                if j != i and not (skip_same and sent[j] == a):
                    X[index[a], index[sent[j]]] += 1
    return X


def _cooc_right_only(sentences, vocab, window):
    return _cooc_generic(sentences, vocab, window, right_only=True)


def _cooc_across(sentences, vocab, window):  # 把所有句子接成一长串
    return _cooc_generic([[w for s in sentences for w in s]], vocab, window)


def _cooc_window_plus_one(sentences, vocab, window):
    return _cooc_generic(sentences, vocab, window + 1)


def _cooc_skip_same(sentences, vocab, window):
    return _cooc_generic(sentences, vocab, window, skip_same=True)


_CORPUS = [["我", "喜欢", "看", "电影"], ["我", "喜欢", "看", "书"], ["你", "喜欢", "电影"]]
_CORPUS_VOCAB = ["我", "你", "喜欢", "看", "电影", "书"]


def _cooc_random(rng):
    words = ["我", "你", "喜欢", "看", "电影", "书", "好看"]
    cases = []
    for n_sent, window in ((2, 1), (3, 2), (4, 3)):
        sents = [list(rng.choice(words, size=int(rng.integers(1, 7)))) for _ in range(n_sent)]
        cases.append(Case((sents, words, window)))
    return cases


q8 = FunctionExercise(
    "A.8", "实现 GloVe 的共现表：X[i, j] = 词 j 出现在词 i 左右 window 个位置以内的次数",
    name="my_cooccurrence", reference=_cooc_ref,
    cases=[Case((_CORPUS, _CORPUS_VOCAB, 1), note="A.2 的三句玩具语料"),
           Case((_CORPUS, _CORPUS_VOCAB, 2), note="窗口 2"),
           Case(([["很", "好看", "好看"]], ["很", "好看"], 1), note="同一个词相邻出现：对角线也要数"),
           Case(([["电影"], ["电影", "好看"]], ["电影", "好看"], 1), note="只有一个词的句子没有邻居"),
           Case(([["我", "喜欢", "书"]], ["我", "喜欢", "书"], 5), note="窗口比句子还长")],
    random_cases=_cooc_random,
    mistakes=[Mistake("只数了右边的邻居；左右各 window 个位置都要数（表应是对称的）。", _cooc_right_only),
              Mistake("把句子接在一起数了：窗口不能跨过句子的边界。", _cooc_across),
              Mistake("窗口多算了一个位置：只看左右各 window 个邻居。", _cooc_window_plus_one),
              Mistake("相同的词在不同位置也算一次共现（如“好看 好看”）；只跳过中心词自己那个位置。", _cooc_skip_same)],
    stub='''def my_cooccurrence(sentences, vocab, window):
    """sentences：句子的列表，每句是词的列表（所有词都在 vocab 里）；vocab：词表（列表）；
    window：正整数。返回形状 (len(vocab), len(vocab)) 的整数 numpy 数组 X：
    X[i, j] = 在同一句里，词 vocab[j] 出现在词 vocab[i] 左右各 window 个位置以内的次数。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_cooccurrence(sentences, vocab, window):
    index = {w: i for i, w in enumerate(vocab)}
    X = np.zeros((len(vocab), len(vocab)), dtype=int)
    for sent in sentences:                                      # 每句单独数，窗口不跨句
        for i, center in enumerate(sent):
            for j in range(max(0, i - window), min(len(sent), i + window + 1)):
                if j != i:                                      # 只跳过中心词自己的位置
                    X[index[center], index[sent[j]]] += 1
    return X
''',
    hints=["对每句、每个位置 i，看 i − window 到 i + window 之间（不含 i 自己、不越出句子）的每个位置 j。",
           "在 X[中心词的编号, 位置 j 上那个词的编号] 加 1。"],
)
