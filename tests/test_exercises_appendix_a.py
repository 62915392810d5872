"""附录 A 练习的检查器：A.1 的 0.952 与 0.833、A.2 的 where 片段与共现表、playing 的 22 个片段；
再拿练习模块里没有列出的错误答案和错误实现去考它，每个都必须被拒绝，而且说明要指出问题在哪里。"""
import numpy as np

from nlpbook import exercises as E
from nlpbook.exercises import appendix_a as ex
from _exercise_checks import fails as _fails, first_failing_case as _first_failing_case


# ---- 课文的数字 -----------------------------------------------------------------------
def test_worked_numbers():
    assert round(ex.q1.expected, 3) == 0.833
    assert np.allclose(ex.q5.reference([0.5, 0.5], [0.4, 0.02]), [0.952, 0.048], atol=5e-4)
    assert np.allclose(ex.q5.reference([0.5, 0.5], [[0.4, 0.01], [0.02, 0.3]]), [0.4, 0.6])
    assert ex.q7.reference("where", 3, 3) == ["<wh", "whe", "her", "ere", "re>"]
    assert len(ex.q7.reference("playing", 3, 6)) == ex.q3.expected == 22
    X = ex.q8.reference(ex._CORPUS, ex._CORPUS_VOCAB, 1)
    assert X[ex._CORPUS_VOCAB.index("喜欢")].tolist() == [2, 1, 0, 2, 1, 0]        # A.2 表里“喜欢”那一行
    assert X.sum() == 16 and np.array_equal(X, X.T)                                 # 16 个词对，表是对称的
    post = ex.q6.reference(ex._TRAIN, ex._LABELS, ["电影", "好看"])
    assert np.allclose(post, [1 / 3, 2 / 3])   # (2/10)(1/10) 对 (2/10)(2/10)


# ---- 填数题、选择题：列表之外的错答 ----------------------------------------------------------
def test_number_and_choice_exercises_reject_other_wrong_answers():
    _fails(ex.q1, 0.048, "你填的是 0.048")        # 拿了 A.1 里差评的后验
    _fails(ex.q3, 21, "你填的是 21")
    assert ex.q3.evaluate(22.0).status == E.PASS
    _fails(ex.q2, "D", "没有选项")
    _fails(ex.q4, "E", "没有选项")
    assert ex.q4.evaluate(" a ").status == E.PASS


# ---- q5：贝叶斯后验 --------------------------------------------------------------------
def post_log_only(prior, likelihoods):            # 停在对数分数，忘了变回概率
    lik = np.asarray(likelihoods, float)
    lik = lik[:, None] if lik.ndim == 1 else lik
    return np.log(prior) + np.log(lik).sum(axis=1)


def post_one_word_as_row(prior, likelihoods):     # 把一维的似然当成“一个类别、多个词”
    lik = np.atleast_2d(np.asarray(likelihoods, float))
    s = np.log(prior) + np.log(lik).sum(axis=1)
    e = np.exp(s - s.max())
    return e / e.sum()


def test_posterior_rejects_stopping_at_log_scores():
    _fails(ex.q5, post_log_only, "第 1 个例子")


def test_posterior_rejects_reading_one_word_as_one_class():
    _fails(ex.q5, post_one_word_as_row, "第 1 个例子")


# ---- q6：多项式朴素贝叶斯 -----------------------------------------------------------------
def _nb(train_docs, train_labels, doc, classes, alpha=1.0):
    vocab = {w for d in train_docs for w in d}
    scores = []
    for c in classes:
        docs_c = [d for d, y in zip(train_docs, train_labels) if y == c]
        tokens = [w for d in docs_c for w in d]
        s = np.log(len(docs_c) / len(train_docs))
        s += sum(np.log((tokens.count(w) + alpha) / (len(tokens) + alpha * len(vocab))) for w in doc if w in vocab)
        scores.append(s)
    e = np.exp(np.array(scores) - max(scores))
    return e / e.sum()


def nb_first_seen_order(train_docs, train_labels, doc):     # 类别按第一次出现的顺序，而不是排序
    return _nb(train_docs, train_labels, doc, list(dict.fromkeys(train_labels)))


def nb_half_smoothing(train_docs, train_labels, doc):       # 平滑用了 0.5
    return _nb(train_docs, train_labels, doc, sorted(set(train_labels)), alpha=0.5)


def test_naive_bayes_rejects_classes_in_first_seen_order():
    _fails(ex.q6, nb_first_seen_order, "第 1 个例子", "第 0 项")


def test_naive_bayes_rejects_other_smoothing():
    _fails(ex.q6, nb_half_smoothing, "第 1 个例子")


# ---- q7：字符 n-gram ---------------------------------------------------------------------
def grams_deduplicated(word, n_min, n_max):                 # 去掉了重复的片段
    w = f"<{word}>"
    grams = [w[i:i + n] for n in range(n_min, n_max + 1) for i in range(len(w) - n + 1)]
    return list(dict.fromkeys(grams))


def grams_square_brackets(word, n_min, n_max):
    w = f"[{word}]"
    return [w[i:i + n] for n in range(n_min, n_max + 1) for i in range(len(w) - n + 1)]


def test_char_ngrams_keep_repeated_pieces():
    msg = _fails(ex.q7, grams_deduplicated, "ana", "banana")
    assert _first_failing_case(msg) == len(ex.q7.cases)


def test_char_ngrams_reject_other_boundary_symbols():
    _fails(ex.q7, grams_square_brackets, "第 1 个例子", "'<wh'")


# ---- q8：共现表 ----------------------------------------------------------------------------
def cooc_upper_triangle(sentences, vocab, window):          # 每对只记一次（只记在 i < j 的格子）
    idx = {w: i for i, w in enumerate(vocab)}
    X = np.zeros((len(vocab), len(vocab)), dtype=int)
    for s in sentences:
        for i in range(len(s)):
            for j in range(i + 1, min(len(s), i + window + 1)):
                X[idx[s[i]], idx[s[j]]] += 1
    return X


def cooc_distance_weighted(sentences, vocab, window):       # GloVe 论文里的 1/距离 加权：本课程的表不加权
    idx = {w: i for i, w in enumerate(vocab)}
    X = np.zeros((len(vocab), len(vocab)))
    for s in sentences:
        for i in range(len(s)):
            for j in range(max(0, i - window), min(len(s), i + window + 1)):
                if j != i:
                    X[idx[s[i]], idx[s[j]]] += 1 / abs(i - j)
    return X


def test_cooccurrence_rejects_counting_each_pair_once():
    _fails(ex.q8, cooc_upper_triangle, "第 1 个例子")


def test_cooccurrence_rejects_distance_weighting_only_from_window_two_on():
    msg = _fails(ex.q8, cooc_distance_weighted, "窗口 2")
    assert _first_failing_case(msg) == 2

