"""第 5 章的练习：相邻词组与 N-gram 语言模型。

q1 选择：“加了 bigram 特征的分类器”和“bigram 语言模型”是一回事吗（课文第 5 章末的小练习）
q2 填数：再加一句“我 喝 咖啡”后的 P(茶|喝) 与 P(咖啡|喝)
q3 选择：bigram 分类器怎样判“剧情 不 好看”
q4 实现：my_ngrams(tokens, n)——从左往右滑动宽 n 的窗口
q5 实现：my_bigram_counts(sentences)——补上 <BOS>/<EOS> 后数相邻词对
q6 实现：my_bigram_prob(sentences, prev, word, k)——加 k 平滑的 P(word | prev)
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from ..ngram import NGramModel, count_ngrams
from ..text import ngrams
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]


_B, _E = "<BOS>", "<EOS>"

q1 = ChoiceExercise(
    "05.1", "“加了 bigram 特征的分类器”和“bigram 语言模型”是一回事吗？",
    options={"A": "是一回事：两者都是在数相邻的两个词",
             "B": "不是：前者把词组当特征、输出类别；后者根据前一个词给下一个词打概率",
             "C": "不是：bigram 语言模型只能用在两个词的句子上"},
    correct="B",
    reasons={"A": "数相邻词对只是共同的原料。分类器拿词组当特征去预测好评/差评，需要标注；"
                  "语言模型用词对次数估计“下一个词是什么”，只需要原始文本。任务和输出都不同。",
             "C": "bigram 指每一步只看前一个词，句子可以任意长：整句的概率是一串 P(w_t | w_{t-1}) 连乘。"},
    hints=["分别问两个问题：它输出的是什么？训练它需要什么样的数据？"],
    answer="B。分类器（5.1 节）把“不_好看”这样的词组当作特征，输出好评或差评；"
           "语言模型（5.2—5.3 节）用前一个词预测下一个词的概率，可以续写、给句子打分。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "05.2", "三句话再加一句“我 喝 咖啡”，不做平滑时 P(茶|喝) 和 P(咖啡|喝) 各是多少？",
    expected=(0.5, 0.25), tol=2e-3,
    wrong=[((2 / 3, 0.0), "这是加句子之前的结果：“我 喝 咖啡”也要数进去，“喝”后面现在共有 4 次。"),
           ((0.25, 0.5), "两个数的顺序反了：先填 P(茶|喝)，再填 P(咖啡|喝)。"),
           ((0.25, 0.125), "分母应是“喝”作为前一个词出现的次数（4），不是全部相邻词对的个数（8）。"),
           ((3 / 7, 2 / 7), "题目要求不做平滑；(2+1)/(4+3) 这样的式子是加一平滑。")],
    hints=["先数“喝”后面一共跟过几次词，再数其中几次是“茶”、几次是“咖啡”。",
           "“喝”后面：茶 2 次、水 1 次、咖啡 1 次。"],
    answer="“喝”作为前一个词出现了 4 次：P(茶|喝) = 2/4 = 0.5，P(咖啡|喝) = 1/4 = 0.25。",
    stub="answer_2 = None   # 填两个数：(P(茶|喝), P(咖啡|喝))，保留三位小数即可",
    filled="answer_2 = (0.5, 0.25)",
)

q3 = ChoiceExercise(
    "05.3", "5.1 节训练好的 bigram 分类器会怎样判“剧情 不 好看”？",
    options={"A": "判为好评：“剧情”常出现在好评里",
             "B": "判为差评，而且很有把握",
             "C": "拿不准，好评概率约 0.5：这句话训练时没见过"},
    correct="B",
    reasons={"A": "“剧情”“好看”“不”这三个单词学到的权重都是 0，起作用的是词组；这里命中了“不_好看”。",
             "C": "整句没见过，但“不_好看”这个词组见过：它的权重约 −5.1，足以让模型很有把握地判为差评。"},
    hints=["列出这句话命中的特征：三个单词，加上两个 bigram 里在词表中的那个。",
           "回头看 5.1 节的权重表：单词的权重是多少？“不_好看”呢？"],
    answer="B。命中的特征是“剧情”“不”“好看”和“不_好看”（“剧情_不”不在词表里）。"
           "单词的权重都是 0，“不_好看”的权重约 −5.1，好评概率约 0.006。",
    stub='answer_3 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_3 = "B"',
)


# ---- q4：n-gram 片段 -------------------------------------------------------------
def _ngrams_ref(tokens, n):
    return ngrams(tokens, n)


def _ng_off_by_one(tokens, n):  # 少一个窗口
    return ["_".join(tokens[i:i + n]) for i in range(len(tokens) - n)]


def _ng_bigram_only(tokens, n):  # 窗口数写死成 T − 1
    return ["_".join(tokens[i:i + n]) for i in range(len(tokens) - 1)]


def _ng_at_least_one(tokens, n):  # 太短时也硬凑一个
    return ["_".join(tokens[i:i + n]) for i in range(max(1, len(tokens) - n + 1))]


def _ng_tails(tokens, n):  # 末尾凑不满 n 个的片段也算进去
    return ["_".join(tokens[i:i + n]) for i in range(len(tokens))]


def _ngrams_random(rng):
    words = ["我", "喝", "茶", "电影", "不", "好看", "很", "精彩"]
    cases = []
    for size, n in ((4, 2), (6, 3), (5, 4), (8, 2), (9, 3)):
        cases.append(Case((list(rng.choice(words, size=size)), n)))
    return cases


_EBH = ["电影", "不", "好看"]

q4 = FunctionExercise(
    "05.4", "实现 n-gram：从左往右滑动宽 n 的窗口，每个窗口用“_”连起来",
    name="my_ngrams", reference=_ngrams_ref,
    cases=[Case((_EBH, 2), note="课文 5.1 节的例子"),
           Case((_EBH, 3), note="trigram"),
           Case((_EBH, 1), note="n = 1：每个词自己就是一个片段"),
           Case((["我", "不", "觉得", "这", "部", "电影", "好看"], 2), note="5.1 节远处否定的句子"),
           Case((["不", "好看"], 2), note="token 数正好等于 n"),
           Case((["好看"], 2), note="token 比 n 少：一个完整的窗口也没有"),
           Case(([], 2), note="空句子")],
    random_cases=_ngrams_random,
    mistakes=[Mistake("窗口少了一个：T 个 token 有 T − n + 1 个 n-gram，range 的上界要写 len(tokens) − n + 1。",
                      _ng_off_by_one),
              Mistake("窗口个数写死成了 T − 1，那只对 bigram 成立；一般是 T − n + 1。", _ng_bigram_only),
              Mistake("token 比 n 少时凑不出完整的窗口，应返回空列表 []，不要硬凑一个不完整的片段。",
                      _ng_at_least_one),
              Mistake("句子末尾凑不满 n 个 token 的片段不是 n-gram：只保留长度正好为 n 的窗口。", _ng_tails)],
    stub='''def my_ngrams(tokens, n):
    """tokens：词的列表；n：窗口宽度（正整数）。
    返回列表：从左往右每 n 个相邻的词用 "_" 连成一个字符串，
    如 my_ngrams(["电影", "不", "好看"], 2) -> ["电影_不", "不_好看"]。token 比 n 少时返回 []。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_ngrams(tokens, n):
    return ["_".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
''',
    hints=["窗口的起点 i 从 0 开始；最后一个窗口的起点是多少，才能让它正好装下 n 个词？",
           "T 个词有 T − n + 1 个起点；T < n 时这个数 ≤ 0，range 自然什么也不产生。"],
)


# ---- q5：带句首句尾标记的 bigram 计数 ------------------------------------------------
def _counts_ref(sentences):
    return dict(count_ngrams(sentences, 2))


def _counts_no_marks(sentences):
    return dict(Counter((s[i], s[i + 1]) for s in sentences for i in range(len(s) - 1)))


def _counts_bos_only(sentences):
    return dict(Counter(p for s in sentences for p in zip([_B] + list(s), list(s))))


def _counts_joined(sentences):  # 整个语料首尾相接，只补一个 <BOS>、一个 <EOS>
    toks = [_B] + [t for s in sentences for t in s] + [_E]
    return dict(Counter(zip(toks, toks[1:])))


def _counts_once_per_sentence(sentences):  # 像 DF 那样每句只数一次
    out = Counter()
    for s in sentences:
        toks = [_B] + list(s) + [_E]
        out.update(set(zip(toks, toks[1:])))
    return dict(out)


def _counts_random(rng):
    words = ["我", "喝", "茶", "水", "咖啡", "很", "好"]
    cases = []
    for n_sent in (2, 3, 5):
        sents = [list(rng.choice(words, size=int(rng.integers(1, 6)))) for _ in range(n_sent)]
        cases.append(Case((sents,)))
    return cases


_TEA = [["我", "喝", "茶"], ["我", "喝", "茶"], ["我", "喝", "水"]]

q5 = FunctionExercise(
    "05.5", "数 bigram：每句补上 <BOS> 和 <EOS>，再数相邻的词对",
    name="my_bigram_counts", reference=_counts_ref,
    cases=[Case(([["我", "喝", "茶"]],), note="一句话"),
           Case((_TEA,), note="课文 5.2 节的三句话"),
           Case(([["好"]],), note="只有一个词的句子"),
           Case(([["好", "好", "好"]],), note="同一句里同一个词对出现两次"),
           Case(([[]],), note="空句子：只有 <BOS> → <EOS>")],
    random_cases=_counts_random,
    mistakes=[Mistake("没有补句首 <BOS> 和句尾 <EOS>：每句先写成 <BOS> w1 … wT <EOS>，再数相邻的词对。",
                      _counts_no_marks),
              Mistake("句尾也要补 <EOS>：模型要学会句子在哪里结束，比如 P(<EOS> | 茶)。", _counts_bos_only),
              Mistake("每句要单独补 <BOS>/<EOS>，不能把句子首尾相接：上一句的最后一个词和下一句的第一个词并不相邻。",
                      _counts_joined),
              Mistake("这里数的是出现次数：同一句里同一个词对出现两次就算 2 次，不要像 DF 那样每句只算一次。",
                      _counts_once_per_sentence)],
    stub='''def my_bigram_counts(sentences):
    """sentences：句子列表，每句是词的列表。
    每句先补成 ["<BOS>", 词1, …, 词T, "<EOS>"]，再数相邻的两个词。
    返回字典 {(前一个词, 后一个词): 次数}，如 {("<BOS>", "我"): 3, ("我", "喝"): 3, …}。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_bigram_counts(sentences):
    counts = {}
    for sent in sentences:
        toks = ["<BOS>"] + list(sent) + ["<EOS>"]
        for pair in zip(toks, toks[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts
''',
    hints=["先只处理一句：在两头补上标记，再用 zip(toks, toks[1:]) 得到相邻的词对。",
           "每句单独补标记、单独配对，把所有句子的词对次数加到同一个字典里。"],
)


# ---- q6：加 k 平滑的 bigram 概率 -----------------------------------------------------
def _prob_ref(sentences, prev, word, k):
    return NGramModel(2, k=k).fit(sentences).prob(word, [prev])


def _pair_counts(sentences, eos=True):
    out = Counter()
    for s in sentences:
        toks = [_B] + list(s) + ([_E] if eos else [])
        out.update(zip(toks, toks[1:]))
    return out


def _prob_parts(sentences, prev, word, eos=True):
    pairs = _pair_counts(sentences, eos)
    total = sum(c for (a, _), c in pairs.items() if a == prev)
    return pairs[(prev, word)], total, {t for s in sentences for t in s}


def _prob_plus_k(sentences, prev, word, k):  # 分母只加 k
    c, total, _ = _prob_parts(sentences, prev, word)
    return (c + k) / (total + k)


def _prob_no_eos_pad(sentences, prev, word, k):  # 数词对时没补 <EOS>
    c, total, words = _prob_parts(sentences, prev, word, eos=False)
    return (c + k) / (total + k * (len(words) + 1))


def _prob_v_no_eos(sentences, prev, word, k):  # 候选里没有 <EOS>
    c, total, words = _prob_parts(sentences, prev, word)
    return (c + k) / (total + k * len(words))


def _prob_v_with_bos(sentences, prev, word, k):  # 把 <BOS> 也算成候选
    c, total, words = _prob_parts(sentences, prev, word)
    return (c + k) / (total + k * (len(words) + 2))


def _prob_random(rng):
    words = ["我", "喝", "茶", "水", "咖啡", "很", "好"]
    cases = []
    for n_sent, k in ((3, 1.0), (4, 0.5), (5, 0.0), (6, 2.0), (8, 0.1)):
        sents = [list(rng.choice(words, size=int(rng.integers(1, 5)))) for _ in range(n_sent)]
        seen = [t for s in sents for t in s]
        prev = str(rng.choice([_B] + seen))   # 补了 <EOS> 以后，见过的词后面都跟过词：k = 0 也有定义
        word = str(rng.choice(sorted(set(seen)) + [_E]))
        cases.append(Case((sents, prev, word, k)))
    return cases


q6 = FunctionExercise(
    "05.6", "实现加 k 平滑的 bigram 概率 P(word | prev)",
    name="my_bigram_prob", reference=_prob_ref,
    cases=[Case((_TEA, "喝", "茶", 0.0), note="课文 5.2 节：不平滑，2/3"),
           Case((_TEA, "喝", "茶", 1.0), note="加一平滑，候选是 我、喝、茶、水、<EOS>"),
           Case((_TEA, "水", "茶", 1.0), note="没见过的词对“水 茶”"),
           Case((_TEA, "茶", _E, 1.0), note="句尾：“茶”后面跟的是 <EOS>"),
           Case((_TEA, _B, "我", 0.5), note="句首：前一个词是 <BOS>，k = 0.5"),
           Case((_TEA, "咖啡", "茶", 1.0), note="前一个词在语料里从没出现过")],
    random_cases=_prob_random,
    mistakes=[Mistake("分母要加 k × V（每个候选都加了 k），不是只加一个 k；否则所有候选的概率加起来会超过 1。",
                      _prob_plus_k),
              Mistake("句尾没有补 <EOS>：句子最后一个词后面也跟着一个“词”（<EOS>），"
                      "它作为前一个词的那一次也要数进 count(prev)。", _prob_no_eos_pad),
              Mistake("候选里要算上 <EOS>（句子也可能在这里结束）：V = 语料里不同的词数 + 1。", _prob_v_no_eos),
              Mistake("<BOS> 只出现在前文里，永远不会被预测，不算候选：V = 语料里不同的词数 + 1。",
                      _prob_v_with_bos)],
    stub='''def my_bigram_prob(sentences, prev, word, k):
    """sentences：句子列表（每句是词的列表）；prev：前一个词（可以是 "<BOS>"）；
    word：要算概率的词（一定是候选之一）；k：平滑常数（≥ 0）。
    每句补成 ["<BOS>", …, "<EOS>"] 后数词对；候选 = 语料里出现过的不同的词，再加 "<EOS>"，共 V 个。
    返回 (count(prev, word) + k) / (count(prev) + k·V)，count(prev) 是 prev 作为前一个词出现的次数。
    （测试里 k = 0 时，prev 一定在语料里作为前一个词出现过。）"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_bigram_prob(sentences, prev, word, k):
    pair, total = 0, 0
    vocab = {"<EOS>"}
    for sent in sentences:
        vocab.update(sent)
        toks = ["<BOS>"] + list(sent) + ["<EOS>"]
        for a, b in zip(toks, toks[1:]):
            if a == prev:
                total += 1
                pair += b == word
    return (pair + k) / (total + k * len(vocab))
''',
    hints=["先把三个数分别算出来：count(prev, word)、count(prev)、候选个数 V。",
           "5.4 节的例子：候选是 我、喝、茶、水、<EOS>，V = 5，所以加一后 P(茶 | 喝) = (2+1)/(3+5) = 0.375。",
           "count(prev) 要在补了 <EOS> 的句子上数：句子最后一个词后面跟着 <EOS>，那一次也算。"],
)
