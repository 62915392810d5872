"""第 11 章的练习：语言模型的解码与困惑度。

q1 选择：模型给“电影”0.6 的概率，是不是必须选“电影”（课文 11.5 节后的小练习）
q2 填数：先用温度 T = 0.5、再用 top-p（p = 0.8）之后的最终分布
q3 实现：my_apply_temperature(logits, T)——带温度的 softmax，T = 0 约定为贪心
q4 实现：my_top_k(probs, k)——只留前 k 名，并列时留编号小的
q5 实现：my_top_p(probs, p)——累计到 p 为止（越过门槛的那个也留下）
q6 实现：my_perplexity(step_probs, targets)——从每一步的分布里取出真实 token 的概率，算困惑度
"""
from __future__ import annotations

import numpy as np

from ..decoding import apply_temperature, perplexity_from_probs, top_k_filter, top_p_filter
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]

q1 = ChoiceExercise(
    "11.1", "模型在“我 喜欢”之后给“电影”0.6 的概率，是不是表示它必须选“电影”？",
    options={"A": "是：概率最高的词就是模型的答案，一定输出它",
             "B": "不是：选哪个由解码方法决定；贪心会选它，随机采样大约四成的时候会选别的",
             "C": "不是：0.6 不到 1，所以不管用什么方法，每次都要随机抽"},
    correct="B",
    reasons={"A": "0.6 只是模型给出的概率，选词是解码方法的事：贪心确实选它，但随机采样、"
                  "top-k/top-p 之后再抽签，都可能选到“音乐”或“香蕉”。",
             "C": "贪心（temperature = 0）根本不抽签，每次都选概率最高的“电影”；"
                  "随不随机取决于解码方法，而不取决于 0.6 是否小于 1。"},
    hints=["把“模型给出的概率”和“怎样从概率里选一个词”分开想：11.4 节的表里同一组概率有五种选法。"],
    answer="B。概率是模型的输出，选哪个词由解码方法决定：贪心一定选“电影”，"
           "按概率随机采样时约 40% 的时候会选别的，top-k、top-p 只决定哪些候选还有机会被抽到。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "11.2", "[电影 0.6, 音乐 0.3, 香蕉 0.1] 先用温度 T = 0.5，再做 top-p（p = 0.8），最终分布是什么？",
    expected=[0.8, 0.2, 0.0], tol=2e-3,
    wrong=[([2 / 3, 1 / 3, 0.0], "这是不加温度、直接做 top-p 的结果；先把温度 T = 0.5 用上。"),
           ([0.586, 0.414, 0.0], "温度是把 logits 除以 T（T = 0.5 相当于乘 2，概率平方再归一化）；你像是乘了 T。"),
           ([1.0, 0.0, 0.0], "T = 0.5 之后“电影”是 0.783，还不到 0.8；top-p 要一直累加到“刚达到 p”为止，"
                             "越过门槛的“音乐”也要留下。"),
           ([0.783, 0.196, 0.0], "去掉“香蕉”之后要重新归一化：留下的两个数除以它们的和，让总和回到 1。"),
           ([0.783, 0.196, 0.022], "这只是温度之后的分布，还没有做 top-p。")],
    hints=["logits 取 ln[0.6, 0.3, 0.1] 时，温度 T 让概率正比于 pᵢ^(1/T)：T = 0.5 就是平方再归一化。",
           "0.36 : 0.09 : 0.01 → 0.783、0.196、0.022；从大到小累加，什么时候第一次达到 0.8？",
           "留下的候选再除以它们的概率之和。"],
    answer="T = 0.5：0.36 : 0.09 : 0.01，归一化得 0.783、0.196、0.022。0.783 < 0.8，加上音乐累计 0.978，"
           "留下电影、音乐两个；重新归一化：0.36/0.45 = 0.8，0.09/0.45 = 0.2，香蕉为 0。答案 [0.8, 0.2, 0]。",
    stub="answer_2 = None   # 填 [电影, 音乐, 香蕉] 三个概率，如 [0.5, 0.3, 0.2]，保留三位小数即可",
    filled="answer_2 = [0.8, 0.2, 0.0]",
)


# ---- q3：温度 -------------------------------------------------------------------
def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def _one_hot_first_max(z):
    out = np.zeros_like(z)
    out[int(np.argmax(z))] = 1.0
    return out


def _temp_times(logits, T):  # 乘以 T 而不是除以 T
    z = np.asarray(logits, dtype=float)
    return _one_hot_first_max(z) if T == 0 else _softmax(z * T)


def _temp_after_softmax(logits, T):  # 先 softmax，再把概率除以 T
    z = np.asarray(logits, dtype=float)
    return _one_hot_first_max(z) if T == 0 else _softmax(z) / T


def _temp_no_shift(logits, T):  # 不减最大值：logits 很大时 exp 溢出
    z = np.asarray(logits, dtype=float)
    if T == 0:
        return _one_hot_first_max(z)
    e = np.exp(z / T)
    return e / e.sum()


def _temp_zero_as_one(logits, T):  # T = 0 时当作 T = 1
    z = np.asarray(logits, dtype=float)
    return _softmax(z / (T or 1.0))


def _temp_tie_split(logits, T):  # T = 0 时把概率平分给并列最高分（这是极限，不是约定）
    z = np.asarray(logits, dtype=float)
    if T == 0:
        top = (z == z.max()).astype(float)
        return top / top.sum()
    return _softmax(z / T)


_INT_ZERO = 0


def _temp_zero_is_int(logits, T):  # 用 T is 0 判断：浮点数 0.0 走进了公式，除以 0
    z = np.asarray(logits, dtype=float)
    if T is _INT_ZERO:  # 故意写错（等同于 T is 0）：这正是要诊断的错误
        out = np.zeros_like(z)
        out[np.argmax(z)] = 1.0
        return out
    return _softmax(z / T)


def _temp_random(rng):
    cases = []
    for n, T in ((3, 0.7), (5, 1.5), (8, 0.3), (12, 2.5)):
        cases.append(Case((np.round(rng.normal(scale=2.0, size=n), 3), T)))
    return cases


_Z = np.log([0.6, 0.3, 0.1])

q3 = FunctionExercise(
    "11.3", "实现带温度的 softmax：p = softmax(z / T)，T = 0 约定为贪心",
    name="my_apply_temperature", reference=apply_temperature,
    cases=[Case((_Z, 1.0), note="T = 1：还是 0.6、0.3、0.1"),
           Case((_Z, 0.5), note="11.4 节的例子：T = 0.5"),
           Case((_Z, 2.0), note="T = 2：分布变平"),
           Case(([1000.0, 999.0, 998.0], 1.0), note="超大 logits：要先减去最大值"),
           Case(([2.0, 0.0, 1.0], 0), note="temperature = 0：约定为贪心，返回 one-hot"),
           Case(([1.0, 1.0, 0.0], 0), note="temperature = 0 且最高分并列：取编号最小的"),
           Case(([2.0, 0.0, 1.0], 0.0), note="temperature = 0.0（浮点数的 0）也是贪心"),
           Case((np.array([0.0, -np.inf, 1.0]), 0.7), note="-inf 表示屏蔽，概率恰为 0"),
           Case(([2.0, 1.0, 0.0], 0.01), note="很小的温度：几乎全部集中到最高分")],
    random_cases=_temp_random,
    mistakes=[Mistake("温度要“除”：softmax(z / T)。你乘了 T，T < 1 时分布反而变平了。", _temp_times),
              Mistake("温度要在 softmax 之前作用在 logits 上；你把概率除以了 T，结果加起来不再等于 1。",
                      _temp_after_softmax),
              Mistake("没有先减去最大值：logits 很大时 exp 溢出成 inf，inf / inf 得到 NaN。"
                      "先算 z − max(z)，结果不变。", _temp_no_shift),
              Mistake("temperature = 0 不能代入公式，也不是“不加温度”：按约定返回最高分位置的 one-hot 分布。",
                      _temp_zero_as_one),
              Mistake("temperature = 0 是“贪心”的约定：最高分并列时只取编号最小的那一个（np.argmax 就是这样），"
                      "平分是 T → 0⁺ 的极限，不是这个约定。", _temp_tie_split),
              Mistake("温度是浮点数 0.0 时也要按贪心处理：用 T == 0 判断，不要用 T is 0（0.0 is 0 是 False）。",
                      _temp_zero_is_int)],
    stub='''def my_apply_temperature(logits, T):
    """logits：一维分数，列表或数组都可能（可以含 -inf，表示屏蔽）；T：温度，T >= 0（整数或浮点数）。
    返回一维 numpy 概率数组 softmax(logits / T)。
    T = 0 按约定表示贪心：返回最高分位置为 1、其余为 0 的数组（最高分并列时取编号最小的）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_apply_temperature(logits, T):
    z = np.asarray(logits, dtype=float)
    if T == 0:                       # 约定：贪心
        out = np.zeros_like(z)
        out[np.argmax(z)] = 1.0      # 并列时 argmax 取第一个
        return out
    s = (z - z.max()) / T            # 先减最大值，防止 exp 溢出
    e = np.exp(s)
    return e / e.sum()
''',
    hints=["公式：pᵢ = exp(zᵢ/T) / Σⱼ exp(zⱼ/T)。T = 0 单独处理。",
           "算 exp 之前先减去 z 的最大值：分子分母同乘一个常数，结果不变，却不会溢出。",
           "T = 0：np.zeros_like(z)，再在 np.argmax(z) 处放 1。"],
)


# ---- q4：top-k ------------------------------------------------------------------
def _topk_no_renorm(probs, k):
    p = np.asarray(probs, dtype=float)
    keep = np.argsort(-p, kind="stable")[:k]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out


def _topk_ties_last(probs, k):  # 升序排好再倒过来：并列时编号大的排在前面
    p = np.asarray(probs, dtype=float)
    keep = np.argsort(p, kind="stable")[::-1][:k]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()


def _topk_threshold(probs, k):  # 留下所有 >= 第 k 大的值：并列时会多留
    p = np.asarray(probs, dtype=float)
    if k >= p.size:
        return p / p.sum()
    kth = np.sort(p)[::-1][k - 1]
    out = np.where(p >= kth, p, 0.0)
    return out / out.sum()


def _topk_unstable(probs, k):  # 默认（不稳定）的排序：并列的顺序由排序算法决定
    p = np.asarray(probs, dtype=float)
    keep = np.argsort(-p)[:k]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()


# 4 个 0.05、2 个 0.1 与 36 个 1/60（和为 1）：k = 20 的边界落在 36 个并列的候选中间
_P_MANY_TIES = np.array([0.05] * 4 + [1 / 60] * 30 + [0.1] * 2 + [1 / 60] * 6)


def _topk_random(rng):
    cases = []
    for n, k in ((4, 2), (6, 3), (10, 4), (20, 7)):
        cases.append(Case((rng.dirichlet(np.ones(n)), k)))
    return cases


q4 = FunctionExercise(
    "11.4", "实现 top-k：只留概率最高的 k 个候选，再重新归一化",
    name="my_top_k", reference=top_k_filter,
    cases=[Case(([0.6, 0.3, 0.1], 2), note="11.4 节的例子"),
           Case(([0.6, 0.3, 0.1], 1), note="k = 1：和贪心一样只留一个"),
           Case(([0.6, 0.3, 0.1], 3), note="k 等于候选数：不过滤"),
           Case(([0.6, 0.3, 0.1], 5), note="k 大于候选数：不过滤"),
           Case(([0.1, 0.3, 0.6], 2), note="概率没有按从大到小排"),
           Case(([0.4, 0.2, 0.2, 0.2], 2), note="边界上三个并列：只留编号小的那个"),
           Case((_P_MANY_TIES, 20), note="42 个候选、36 个并列：不稳定的排序会留错编号")],
    random_cases=_topk_random,
    array_args=("probs",),
    mistakes=[Mistake("去掉候选之后要重新归一化：留下的概率除以它们的和，总和回到 1。", _topk_no_renorm),
              Mistake("边界上概率并列时，应保留编号小的：用 np.argsort(-p, kind='stable')，"
                      "而不是把升序结果倒过来（那样并列的编号大的排在前面）。", _topk_ties_last),
              Mistake("你留下了所有“不小于第 k 大”的候选：并列时会多于 k 个。top-k 恰好留 k 个。",
                      _topk_threshold),
              Mistake("np.argsort 默认的排序不稳定：候选一多，并列的编号谁先谁后说不准。"
                      "加 kind='stable'，并列时编号小的才一定在前。", _topk_unstable)],
    stub='''def my_top_k(probs, k):
    """probs：一维概率数组（和为 1）；k：正整数。
    返回同样长度的 numpy 数组：只保留概率最高的 k 个（并列时保留编号小的），其余为 0，再重新归一化。
    k 大于候选数时不做任何过滤。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_top_k(probs, k):
    p = np.asarray(probs, dtype=float)
    keep = np.argsort(-p, kind="stable")[:k]   # 从大到小；稳定排序让并列时编号小的在前
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()
''',
    hints=["np.argsort(-p) 给出从大到小的编号；取前 k 个。",
           "并列时要编号小的在前：argsort 加 kind='stable'。",
           "其余位置置 0，最后除以留下的概率之和。"],
)


# ---- q5：top-p ------------------------------------------------------------------
def _topp_core(q, p, *, strict=False, eps=1e-9, sort=True, stable_desc=True, renorm=True):
    q = np.asarray(q, dtype=float)
    if not sort:
        order = np.arange(q.size)
    elif stable_desc:
        order = np.argsort(-q, kind="stable")
    else:
        order = np.argsort(q, kind="stable")[::-1]
    cum = np.cumsum(q[order])
    if strict:  # 只留累计 < p 的：越过门槛的那个被丢掉
        m = int(np.sum(cum < p))
    else:
        reached = cum >= p - eps
        m = int(np.argmax(reached)) + 1 if reached.any() else q.size
    out = np.zeros_like(q)
    out[order[:m]] = q[order[:m]]
    return out / out.sum() if renorm else out


def _topp_exclusive(probs, p):
    return _topp_core(probs, p, strict=True)


def _topp_no_renorm(probs, p):
    return _topp_core(probs, p, renorm=False)


def _topp_unsorted(probs, p):
    return _topp_core(probs, p, sort=False)


def _topp_no_eps(probs, p):
    return _topp_core(probs, p, eps=0.0)


def _topp_ties_last(probs, p):
    return _topp_core(probs, p, stable_desc=False)


def _topp_random(rng):
    cases = []
    for n, p in ((4, 0.5), (6, 0.9), (10, 0.7), (20, 0.95)):
        cases.append(Case((rng.dirichlet(np.ones(n)), p)))
    return cases


q5 = FunctionExercise(
    "11.5", "实现 top-p（nucleus）：从大到小累加，留下累计刚达到 p 的最短前缀",
    name="my_top_p", reference=top_p_filter,
    cases=[Case(([0.6, 0.3, 0.1], 0.8), note="11.4 节的例子：留电影、音乐"),
           Case(([0.6, 0.3, 0.1], 0.5), note="第一个就已经达到 p"),
           Case(([0.5, 0.25, 0.25], 1.0), note="p = 1：全部留下"),
           Case(([0.1, 0.3, 0.6], 0.8), note="概率没有按从大到小排"),
           Case(([0.4, 0.35, 0.25], 0.8), note="拿不准的分布：三个都要留"),
           Case(([0.6, 0.3, 0.1], 0.6), note="累计恰好等于 p"),
           Case(([0.6, 0.3, 0.1], 0.9), note="浮点：0.6 + 0.3 算出来是 0.8999…，仍算达到 0.9"),
           Case(([0.3, 0.4, 0.3], 0.5), note="并列：编号小的先累加")],
    random_cases=_topp_random,
    array_args=("probs",),
    mistakes=[Mistake("越过门槛的那个候选也要留下：top-p 留的是“累计刚达到 p”的最短前缀，"
                      "你只留了累计还小于 p 的那些。", _topp_exclusive),
              Mistake("去掉候选之后要重新归一化：留下的概率除以它们的和。", _topp_no_renorm),
              Mistake("要先按概率从大到小排序再累加；你按原来的编号顺序累加了。", _topp_unsorted),
              Mistake("浮点误差：0.6 + 0.3 在计算机里是 0.8999…，比 0.9 小一点点。"
                      "比较时留一点余量，如 cum >= p - 1e-9。", _topp_no_eps),
              Mistake("概率并列时，编号小的应先累加：排序用 np.argsort(-p, kind='stable')。", _topp_ties_last)],
    stub='''def my_top_p(probs, p):
    """probs：一维概率数组（和为 1）；p：0 < p <= 1。
    返回同样长度的 numpy 数组：按概率从大到小累加（并列时编号小的在前），
    保留累计概率第一次达到 p 时为止的那些候选（达到 p 的那一个也保留），其余为 0，再重新归一化。
    比较“累计 >= p”时请留 1e-9 的浮点余量。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_top_p(probs, p):
    q = np.asarray(probs, dtype=float)
    order = np.argsort(-q, kind="stable")           # 从大到小，并列时编号小的在前
    cum = np.cumsum(q[order])
    m = int(np.argmax(cum >= p - 1e-9)) + 1         # 第一个达到 p 的位置，它自己也留下
    out = np.zeros_like(q)
    out[order[:m]] = q[order[:m]]
    return out / out.sum()
''',
    hints=["先排序：order = np.argsort(-q, kind='stable')，再 np.cumsum(q[order])。",
           "找第一个累计 >= p 的位置 i（np.argmax(条件) 给出第一个 True），留下 order[:i + 1]。",
           "0.6 + 0.3 在浮点里是 0.8999…：比较时写 cum >= p - 1e-9。最后别忘了重新归一化。"],
)


# ---- q6：困惑度 -------------------------------------------------------------------
def _ppl_ref(step_probs, targets):
    P = np.asarray(step_probs, dtype=float)
    return perplexity_from_probs(P[np.arange(len(targets)), list(targets)])


def _true_probs(step_probs, targets):
    P = np.asarray(step_probs, dtype=float)
    return P[np.arange(len(targets)), list(targets)]


def _ppl_max(step_probs, targets):  # 取了每一步的最大概率，而不是真实 token 的概率
    P = np.asarray(step_probs, dtype=float)
    return float(np.exp(np.mean(-np.log(P.max(axis=1)))))


def _ppl_sum(step_probs, targets):  # 忘了取平均
    return float(np.exp(np.sum(-np.log(_true_probs(step_probs, targets)))))


def _ppl_log2(step_probs, targets):  # log₂ 配 exp
    return float(np.exp(np.mean(-np.log2(_true_probs(step_probs, targets)))))


def _ppl_mean_inverse(step_probs, targets):  # 1/p 的算术平均
    return float(np.mean(1.0 / _true_probs(step_probs, targets)))


def _ppl_product(step_probs, targets):  # 几何平均直接连乘：长序列下溢成 0
    p = _true_probs(step_probs, targets)
    return float(np.prod(p) ** (-1.0 / len(p)))


def _ppl_random(rng):
    cases = []
    for T, V in ((3, 4), (5, 6), (8, 5), (12, 10)):
        P = rng.dirichlet(np.ones(V), size=T)
        cases.append(Case((P, [int(t) for t in rng.integers(0, V, size=T)])))
    return cases


_P_TEXT = [[0.5, 0.25, 0.125, 0.125],      # 真实 token 的概率依次是 0.5、0.25、0.125，
           [0.125, 0.25, 0.5, 0.125],      # 后两步都不是这一行最大的那个
           [0.125, 0.125, 0.25, 0.5]]
_P_LONG = np.tile([0.001, 0.999], (200, 1))

q6 = FunctionExercise(
    "11.6", "实现困惑度：取出每一步真实 token 的概率，PPL = exp(平均的 −ln p)",
    name="my_perplexity", reference=_ppl_ref,
    cases=[Case((_P_TEXT, [0, 1, 0]), note="11.5 节：真实 token 的概率 0.5、0.25、0.125 → PPL 4"),
           Case(([[0.25] * 4] * 3, [2, 0, 3]), note="每一步都是 1/4"),
           Case(([[0.2, 0.8]], [0]), note="只有一步"),
           Case(([[0.5, 0.5], [1.0, 0.0]], [0, 1]), note="真实 token 的概率是 0：PPL 为无穷大"),
           Case((_P_LONG, [0] * 200), note="200 步、每步 0.001：连乘会下溢")],
    random_cases=_ppl_random,
    array_args=("step_probs",),
    mistakes=[Mistake("要用“真实的下一个 token”的概率 step_probs[t, targets[t]]，不是每一步最大的那个概率。",
                      _ppl_max),
              Mistake("直接连乘概率再开方：很多个小于 1 的数相乘会下溢成 0（200 个 0.001 是 1e-600，"
                      "超出了浮点数的范围）。先取对数、求平均，最后再 exp。", _ppl_product),
              Mistake("损失要先取平均（除以步数）再 exp；你把损失加起来就 exp 了。", _ppl_sum),
              Mistake("对数和指数要配套：用 ln（np.log）就配 exp；你用了 log₂ 却配 exp。", _ppl_log2),
              Mistake("PPL 是几何平均的倒数，不是 1/p 的算术平均：先对 −ln p 取平均，再 exp。", _ppl_mean_inverse)],
    stub='''def my_perplexity(step_probs, targets):
    """step_probs：形状 (T, V) 的数组，第 t 行是模型在第 t 步给整个词表的概率；
    targets：长度 T 的整数列表，第 t 个是第 t 步真实的下一个 token 的编号。
    返回一个数：困惑度 exp(平均的 −ln p)，p 是每一步真实 token 的概率。某一步 p = 0 时返回 inf。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_perplexity(step_probs, targets):
    P = np.asarray(step_probs, dtype=float)
    p_true = P[np.arange(len(targets)), targets]    # 每一步真实 token 的概率
    with np.errstate(divide="ignore"):              # p = 0 时 −ln p = inf，PPL 也是 inf
        losses = -np.log(p_true)
    return float(np.exp(np.mean(losses)))
''',
    hints=["先取出每一步真实 token 的概率：P[np.arange(T), targets]。",
           "每一步的损失是 −ln p；对所有步取平均，再 exp。",
           "别用连乘再开方：很多个小概率相乘会下溢成 0。"],
)
