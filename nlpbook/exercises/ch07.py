"""第 7 章的练习：Word2Vec（CBOW、Skip-gram、负采样）。

q1 解释：Word2Vec 的训练答案来自哪里，要不要人工语义标签（课文第 7 章末的小练习）
q2 填数：噪声词对得分从 −1 变成 +1 后的负采样损失
q3 填数：窗口 2 时，“我 喜欢 看 电影”以“看”为中心的词对数、整句的词对数
q4 实现：my_softmax(z)——超大分数也不能出 NaN，二维时每行各自归一化
q5 实现：my_skipgram_pairs(tokens, window)——句子两端不越界、不绕回
q6 实现：my_sgns(v, u_pos, u_negs)——一个真实词对、k 个噪声词对的损失与梯度
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..functional import softmax
from ..word2vec import sgns_forward_backward, skipgram_pairs
from .functions import Case, FunctionExercise, Mistake
from .kinds import ExplainExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]


q1 = ExplainExercise(
    "07.1", "Word2Vec 训练时的“正确答案”来自哪里？需要人工给每个词标注含义吗？",
    hints=["回到 7.1 节的填空题：题目和答案分别是从哪里拿来的？"],
    answer="答案来自原文本身：CBOW 的答案是被遮住的中心词，Skip-gram 的答案是中心词周围的词，"
           "负采样的“真实词对”也是从原文里读出来的。不需要任何人给词标注含义；"
           "模型在完成“猜邻近的词”这个任务的过程中，顺带学到了可以复用的词向量。",
)


def _sig(z):
    return 1.0 / (1.0 + math.exp(-z))


q2 = NumberExercise(
    "07.2", "7.6 节的例子里，噪声词对（看, 香蕉）的得分从 −1 变成 +1，负采样损失是多少？",
    expected=-math.log(_sig(2.0)) - math.log(1.0 - _sig(1.0)), tol=2e-3,
    wrong=[(-math.log(_sig(2.0)) - math.log(_sig(1.0)),
            "这是 0.440，和原来一样。噪声一项是 −ln(1 − σ(+1)) = −ln σ(−1) ≈ 1.313：得分变大，"
            "模型越像是把噪声当成真实词对，惩罚应当变重。"),
           (-math.log(1.0 - _sig(1.0)), "这只是噪声那一项；真实词对那一项 −ln σ(2) ≈ 0.127 也要加上。"),
           ((-math.log(_sig(2.0)) - math.log(1.0 - _sig(1.0))) / math.log(2),
            "你用了以 2 为底的对数；课程的损失用自然对数 ln。")],
    hints=["损失 = −ln σ(真实得分) − ln(1 − σ(噪声得分))。",
           "σ(2) ≈ 0.881，σ(1) ≈ 0.731，所以 1 − σ(1) ≈ 0.269。"],
    answer="−ln σ(2) − ln(1 − σ(1)) = −ln 0.881 − ln 0.269 ≈ 0.127 + 1.313 = 1.440。"
           "真实词对那一项不变，噪声那一项从 0.313 涨到 1.313。",
    stub="answer_2 = None   # 填一个数，保留三位小数即可",
    filled="answer_2 = 1.440",
)

q3 = NumberExercise(
    "07.3", "窗口开到 2，“我 喜欢 看 电影”以“看”为中心有几个 Skip-gram 词对？整句一共几个？",
    expected=(3, 10), tol=0.0,
    wrong=[((2, 6), "这是窗口 1 的答案。窗口 2 时左右各看两个位置。"),
           ((4, 16), "句子两端没有那么多邻居：“看”的右边只有“电影”一个词，“我”的左边一个也没有。"),
           ((3, 5), "每个位置都要当一次中心词：（看, 电影）和（电影, 看）是两个不同的词对。"),
           ((10, 3), "两个数的顺序反了：先填以“看”为中心的词对数，再填整句的。")],
    hints=["“看”是第 3 个词：左边两个位置都有词，右边只有一个。",
           "对每个词数一数：左边最多 2 个邻居、右边最多 2 个邻居，再加起来。"],
    answer="以“看”为中心：左边“我”“喜欢”，右边“电影”，共 3 对。整句：“我”2 个、“喜欢”3 个、"
           "“看”3 个、“电影”2 个邻居，共 2 + 3 + 3 + 2 = 10 对。",
    stub="answer_3 = None   # 填两个整数：(以“看”为中心的词对数, 整句的词对数)",
    filled="answer_3 = (3, 10)",
)


# ---- q4：稳定的 softmax ------------------------------------------------------------
def _softmax_ref(z):
    return softmax(z)


def _sm_naive(z):
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _sm_divide_scores(z):
    return z / z.sum(axis=-1, keepdims=True)


def _sm_sum_all(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum()


def _sm_global_max(z):
    e = np.exp(z - z.max())
    return e / e.sum(axis=-1, keepdims=True)


def _sm_row_min(z):  # 减的是每行的最小值：一行里分数相差超过约 709 时 exp 溢出
    e = np.exp(z - z.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_random(rng):
    cases = [Case((rng.normal(scale=s, size=n),)) for n, s in ((3, 1.0), (5, 3.0), (8, 10.0))]
    cases += [Case((rng.normal(scale=s, size=(b, n)),)) for b, n, s in ((2, 3, 1.0), (4, 5, 5.0), (3, 6, 30.0))]
    return cases


def _f(*xs):
    return np.array(xs, dtype=float)


q4 = FunctionExercise(
    "07.4", "实现 softmax：先减去最大值再取指数，二维时每一行各自归一化",
    name="my_softmax", reference=_softmax_ref,
    cases=[Case((_f(2.0, 0.0, 1.0),), note="课文 7.3 节：看、吃、买"),
           Case((_f(1000.0, 999.0, 998.0),), note="超大的分数"),
           Case((_f(-1000.0, -1001.0, -1002.0),), note="分数都很负"),
           Case((_f(0.0, 800.0),), note="一行里分数相差 800：减最小值的话 e^800 会溢出"),
           Case((_f(5.0),), note="只有一个候选"),
           Case((_f(1.0, 1.0, 1.0, 1.0),), note="分数全都相同"),
           Case((np.array([[2.0, 0.0, 1.0], [0.0, 0.0, 0.0]]),), note="一批两行：每行各自做 softmax"),
           Case((np.array([[0.0, 1.0], [1000.0, 1001.0]]),), note="两行的分数相差很大")],
    random_cases=_softmax_random,
    mistakes=[Mistake("没有先减去最大值：exp(1000) 溢出成无穷大，inf/inf 得到 NaN（分数都很负时则是 0/0）。"
                      "先算 z − max(z)，结果不变。", _sm_naive),
              Mistake("要先取指数再归一化：直接除以分数之和，负分数会得到负“概率”，分数之和为 0 时还会除以 0。",
                      _sm_divide_scores),
              Mistake("分母应是每一行自己的指数之和（sum(axis=-1, keepdims=True)），你除以的是整个数组的和。",
                      _sm_sum_all),
              Mistake("减去的是整个数组的最大值：两行分数相差很大时，小的那一行会全部下溢成 0，0/0 得到 NaN。"
                      "要每行减自己的最大值：z.max(axis=-1, keepdims=True)。", _sm_global_max),
              Mistake("减的是最小值：一行里分数相差超过约 709 时，最大的那个 e^(z − min) 溢出成无穷大，inf/inf 得到 NaN。"
                      "要减最大值，最大的指数才是 e^0 = 1。", _sm_row_min)],
    stub='''def my_softmax(z):
    """z：一维数组（一组候选分数），或二维数组（每行一组）。
    返回同样形状的数组：沿最后一维做 softmax，每行的和为 1。分数很大（如 1000）时也不能出现 NaN。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_softmax(z):
    shifted = z - z.max(axis=-1, keepdims=True)      # 每行减去自己的最大值：最大的指数是 e^0 = 1
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)
''',
    hints=["softmax(z) 和 softmax(z − c) 相等（分子分母同乘 e^(−c)）。取 c = max(z)，指数就不会溢出。",
           "二维时每一行要各自减最大值、各自求和：用 axis=-1 和 keepdims=True。"],
)


# ---- q5：Skip-gram 词对 ----------------------------------------------------------
def _same_pairs(expected, got):
    """词对的顺序不限，只比较“有哪些词对、各几次”。"""
    if not isinstance(got, (list, tuple)):
        return False, f"应返回词对的列表，得到 {type(got).__name__}"
    try:
        got_pairs = [tuple(p) for p in got]
    except TypeError:
        return False, "列表里的每一项应是一个 (中心词, 周围词) 元组"
    want, have = Counter(map(tuple, expected)), Counter(got_pairs)
    if want == have:
        return True, ""
    parts = [f"应有 {len(expected)} 个词对，得到 {len(got_pairs)} 个"]
    for label, diff in (("少了", want - have), ("多了", have - want)):
        if diff:
            shown = sorted(diff.elements())
            more = "…" if len(shown) > 4 else ""
            parts.append(f"{label} {', '.join(map(repr, shown[:4]))}{more}")
    return False, "；".join(parts)


def _pairs_ref(tokens, window):
    return skipgram_pairs(tokens, window)


def _pairs_right_short(tokens, window):  # range 的上界少了 1
    n = len(tokens)
    return [(tokens[i], tokens[j]) for i in range(n) for j in range(max(0, i - window), min(n, i + window))
            if j != i]


def _pairs_with_self(tokens, window):
    n = len(tokens)
    return [(tokens[i], tokens[j]) for i in range(n) for j in range(max(0, i - window), min(n, i + window + 1))]


def _pairs_wrap(tokens, window):  # 负下标从句尾绕回来
    n = len(tokens)
    return [(tokens[i], tokens[j]) for i in range(n) for j in range(i - window, i + window + 1) if j != i and j < n]


def _pairs_negative_slice(tokens, window):  # tokens[i-window:i] 在 i < window 时是空的
    out = []
    for i, t in enumerate(tokens):
        out += [(t, c) for c in tokens[i - window:i] + tokens[i + 1:i + 1 + window]]
    return out


def _pairs_random(rng):
    words = ["我", "喜欢", "看", "电影", "很", "好", "的"]
    return [Case((list(rng.choice(words, size=n)), w)) for n, w in ((5, 1), (6, 2), (7, 3), (9, 2), (4, 4))]


_SENT = ["我", "喜欢", "看", "电影"]

q5 = FunctionExercise(
    "07.5", "实现 Skip-gram 词对：每个中心词和左右各 window 个邻居配对",
    name="my_skipgram_pairs", reference=_pairs_ref, compare=_same_pairs,
    cases=[Case((_SENT, 1), note="课文 7.5 节，窗口 1"),
           Case((_SENT, 2), note="窗口 2（练习 3）"),
           Case((_SENT, 5), note="窗口比句子还长"),
           Case((["好"], 2), note="只有一个词：没有词对"),
           Case(([], 1), note="空句子"),
           Case((["很", "很", "好"], 1), note="重复的词：（很, 很）也是词对"),
           Case(("我 周末 常常 和 朋友 一起 去 电影院 看 新 上映 的 电影".split(), 3), note="7.5 节的长句子，窗口 3")],
    random_cases=_pairs_random,
    mistakes=[Mistake("右边少取了一个邻居：range 的上界要写 i + window + 1（上界本身取不到）。", _pairs_right_short),
              Mistake("中心词不和自己配对：跳过 j == i 的位置。", _pairs_with_self),
              Mistake("句首往左数时下标成了负数，Python 会从句尾取词，于是出现了（我, 电影）这样不相邻的词对。"
                      "要跳过 j < 0 的位置。", _pairs_wrap),
              Mistake("切片 tokens[i − window:i] 在 i < window 时起点是负数，会从句尾数起，得到空列表，"
                      "把左边的邻居漏掉了：起点要写 max(0, i − window)。", _pairs_negative_slice)],
    stub='''def my_skipgram_pairs(tokens, window):
    """tokens：词的列表；window：左右各看几个位置（正整数）。
    返回 (中心词, 周围词) 元组的列表：每个位置当一次中心词，和左右各 window 个位置内的词配对；
    超出句子两端的位置没有词。顺序不限，如窗口 1 时 [("我", "喜欢"), ("喜欢", "我"), …]。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_skipgram_pairs(tokens, window):
    pairs = []
    for i, center in enumerate(tokens):
        for j in range(max(0, i - window), min(len(tokens), i + window + 1)):
            if j != i:
                pairs.append((center, tokens[j]))
    return pairs
''',
    hints=["对每个中心位置 i，邻居的位置 j 从 i − window 到 i + window，但不包括 i 自己。",
           "两端要截断：j 不能小于 0，也不能大于等于 len(tokens)。Python 的负下标不会报错，而是从句尾取词。"],
)


# ---- q6：负采样的损失与梯度 -------------------------------------------------------------
def _sgns_ref(v, u_pos, u_negs):
    return sgns_forward_backward(v, u_pos, u_negs)


def _stable_sig(z):
    z = np.asarray(z, dtype=float)
    return np.exp(-np.logaddexp(0.0, -z))


def _sgns_parts(v, u_pos, u_negs):
    s_pos, s_neg = float(v @ u_pos), u_negs @ v
    return s_pos, s_neg, _stable_sig(s_pos) - 1.0, _stable_sig(s_neg)


def _sgns_out(loss, v, u_pos, u_negs, g_pos, g_neg):
    return {"loss": float(loss), "d_center": g_pos * u_pos + u_negs.T @ g_neg,
            "d_pos": g_pos * v, "d_negs": np.outer(g_neg, v)}


def _sgns_noise_sign(v, u_pos, u_negs):  # 噪声词对也当成“真实”来判
    s_pos, s_neg, g_pos, _ = _sgns_parts(v, u_pos, u_negs)
    loss = np.logaddexp(0.0, -s_pos) + np.logaddexp(0.0, -s_neg).sum()
    return _sgns_out(loss, v, u_pos, u_negs, g_pos, _stable_sig(s_neg) - 1.0)


def _sgns_pos_grad_sign(v, u_pos, u_negs):
    s_pos, s_neg, g_pos, g_neg = _sgns_parts(v, u_pos, u_negs)
    loss = np.logaddexp(0.0, -s_pos) + np.logaddexp(0.0, s_neg).sum()
    return _sgns_out(loss, v, u_pos, u_negs, -g_pos, g_neg)


def _sgns_center_no_negs(v, u_pos, u_negs):
    s_pos, s_neg, g_pos, g_neg = _sgns_parts(v, u_pos, u_negs)
    out = _sgns_out(np.logaddexp(0.0, -s_pos) + np.logaddexp(0.0, s_neg).sum(), v, u_pos, u_negs, g_pos, g_neg)
    out["d_center"] = g_pos * u_pos
    return out


def _sgns_naive_log(v, u_pos, u_negs):  # −ln σ(s) 直接算：σ 舍入成 0 或 1 时得到无穷大
    s_pos, s_neg, g_pos, g_neg = _sgns_parts(v, u_pos, u_negs)
    with np.errstate(divide="ignore"):
        loss = -np.log(_stable_sig(s_pos)) - np.log(1.0 - _stable_sig(s_neg)).sum()
    return _sgns_out(loss, v, u_pos, u_negs, g_pos, g_neg)


def _sgns_random(rng):
    cases = []
    for d, k in ((2, 1), (3, 2), (4, 5), (6, 3)):
        cases.append(Case((rng.normal(size=d), rng.normal(size=d), rng.normal(size=(k, d)))))
    return cases


q6 = FunctionExercise(
    "07.6", "实现一个负采样样本的损失和梯度：1 个真实词对、k 个噪声词对",
    name="my_sgns", reference=_sgns_ref,
    cases=[Case((_f(1.0, 1.0), _f(1.0, 1.0), np.array([[-0.5, -0.5]])), note="课文 7.6 节：得分 2 和 −1"),
           Case((_f(1.0, 1.0), _f(1.0, 1.0), np.array([[0.5, 0.5]])), note="练习 2：噪声得分 +1"),
           Case((_f(0.5, -1.0, 2.0), _f(1.0, 0.0, 0.5), np.array([[0.2, 0.1, -0.3], [1.0, 1.0, 1.0], [-0.5, 0.0, 0.4]])),
                note="三个噪声词"),
           Case((_f(0.3, -0.2), np.zeros(2), np.zeros((5, 2))), note="输出向量全是 0：六个判断都是五五开"),
           Case((_f(20.0, 20.0), _f(-20.0, -20.0), np.array([[20.0, 20.0]])), note="得分 −800 和 +800")],
    random_cases=_sgns_random,
    mistakes=[Mistake("噪声词对的那一项应是 −ln σ(−s)（判为噪声的概率是 1 − σ(s) = σ(−s)），"
                      "你写成了 −ln σ(s)，把噪声也当成真实词对在训练。", _sgns_noise_sign),
              Mistake("真实词对得分的梯度是 σ(s) − 1（是负数：更新时要把得分往上推），你的符号反了。",
                      _sgns_pos_grad_sign),
              Mistake("中心词向量的梯度要把噪声词那几项也加上：d_center = (σ(s⁺) − 1)·u⁺ + Σ σ(sᵢ⁻)·uᵢ⁻。",
                      _sgns_center_no_negs),
              Mistake("得分很大时 σ 会被舍入成 1 或 0，ln 0 = −∞：用 np.logaddexp(0, −s) 计算 −ln σ(s)。",
                      _sgns_naive_log)],
    stub='''def my_sgns(v, u_pos, u_negs):
    """v：中心词的输入向量 (d,)；u_pos：真实周围词的输出向量 (d,)；u_negs：k 个噪声词的输出向量 (k, d)。
    得分 s⁺ = v·u_pos，sᵢ⁻ = v·u_negs[i]。损失 = −ln σ(s⁺) − Σ ln σ(−sᵢ⁻)（得分 ±800 时也要是有限的数）。
    返回字典 {"loss": 损失, "d_center": 对 v 的梯度 (d,),
             "d_pos": 对 u_pos 的梯度 (d,), "d_negs": 对 u_negs 的梯度 (k, d)}。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_sgns(v, u_pos, u_negs):
    s_pos = v @ u_pos                                   # 一个数
    s_neg = u_negs @ v                                  # (k,)
    loss = np.logaddexp(0, -s_pos) + np.logaddexp(0, s_neg).sum()   # −ln σ(s) = ln(1 + e^(−s))
    sig = lambda s: np.exp(-np.logaddexp(0, -s))       # σ(s) = e^(ln σ(s))，s 很大或很负都不溢出
    g_pos = sig(s_pos) - 1                              # ∂L/∂s⁺ = σ(s⁺) − 1
    g_neg = sig(s_neg)                                  # ∂L/∂sᵢ⁻ = σ(sᵢ⁻)
    return {"loss": float(loss),
            "d_center": g_pos * u_pos + u_negs.T @ g_neg,
            "d_pos": g_pos * v,
            "d_negs": np.outer(g_neg, v)}
''',
    hints=["先算得分：s⁺ = v @ u_pos，s⁻ = u_negs @ v（k 个数）。",
           "−ln σ(s) = ln(1 + e^(−s)) = np.logaddexp(0, −s)；噪声那一项 −ln σ(−s) = np.logaddexp(0, s)。",
           "对得分的梯度：真实词对 σ(s⁺) − 1，噪声词对 σ(sᵢ⁻)。再用链式法则：得分 = v·u，"
           "所以对 u 的梯度是“得分的梯度 × v”，对 v 的梯度是“得分的梯度 × u”之和。"],
)
