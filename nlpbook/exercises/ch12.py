"""第 12 章的练习：注意力权重与上下文向量。

q1 选择：生成 I 和生成 cats 时，为什么不该强制用同一组输入权重（课文 12.5 节后的小练习）
q2 填数：12.3 的分数都乘以 2 之后的上下文向量
q3 选择：分数都加上 5，权重会怎样
q4 实现：my_attention_from_scores(scores, values)——分数 → softmax 权重 → 加权求和
q5 实现：my_dot_attention(decoder_state, encoder_states)——自己用点积打分，再做一遍
"""
from __future__ import annotations

import numpy as np

from ..attention import attention_from_scores, attention_scores
from .compare import same
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "VALUES"]

# 12.4 节三个输入位置（我、喜欢、猫）的内容向量
VALUES = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])

q1 = ChoiceExercise(
    "12.1", "生成 I 和生成 cats 时，为什么不应该强制使用同一组输入权重？",
    options={"A": "共用一组权重时，权重加起来就不再等于 1 了",
             "B": "不同的输出步骤需要输入里不同的信息；共用一组权重，每一步读到的上下文都一样，又退回了“一个固定记录”",
             "C": "每一步重新算权重能减少计算量"},
    correct="B",
    reasons={"A": "softmax 算出的任何一组权重都加起来等于 1，与各步是否共用无关。",
             "C": "正好相反：每一步都要重新打分、重新 softmax，还要存下编码器的全部状态，计算更多；"
                  "换来的是每一步能读到不同的信息。"},
    hints=["写 I 时最需要输入里的哪个词？写 cats 时呢？如果两步的权重一样，两步拿到的上下文向量会一样吗？"],
    answer="B。写 I 要的是“我”，写 cats 要的是“猫”。共用一组权重，每一步拿到的都是同一个上下文向量，"
           "又回到了“整句只留一个记录”的老问题；注意力让每一步重新决定怎样组合输入状态。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

_W2 = np.exp([0.0, 2.0, 4.0]) / np.exp([0.0, 2.0, 4.0]).sum()

q2 = NumberExercise(
    "12.2", "12.3 的分数 0、1、2 都乘以 2（变成 0、2、4），上下文向量变成多少？",
    expected=_W2 @ VALUES, tol=2e-3,
    wrong=[([0.755, 0.910], "这是原来分数 0、1、2 的结果；分数乘以 2 以后差距拉大，权重会变。"),
           ([2 / 3, 1.0], "权重要先取指数再除以总和（softmax）；你像是直接用 0、2、4 除以它们的和 6。"),
           ([1.0, 1.0], "注意力是“软”的：每个位置都有一点权重，不是只取分数最高的“猫”。"),
           ([0.016, 0.117, 0.867], "这是三个权重；题目要的是按权重加起来的上下文向量（2 维）。")],
    hints=["先算 softmax([0, 2, 4])：e⁰、e²、e⁴ 除以它们的和。",
           "上下文 = w₁×[1,0] + w₂×[0,1] + w₃×[1,1]：第一维是 w₁ + w₃，第二维是 w₂ + w₃。"],
    answer="softmax([0, 2, 4]) = [1, 7.389, 54.598] / 62.987 ≈ [0.016, 0.117, 0.867]；"
           "上下文 = [0.016 + 0.867, 0.117 + 0.867] ≈ [0.883, 0.984]，比原来更靠近“猫”的 [1, 1]。",
    stub="answer_2 = None   # 填上下文向量的两个数，如 [0.5, 0.5]，保留三位小数即可",
    filled="answer_2 = [0.883, 0.984]",
)

q3 = ChoiceExercise(
    "12.3", "把分数都加上 5（变成 5、6、7），注意力权重会怎样？",
    options={"A": "更集中到“猫”上", "B": "完全不变，仍是 0.090、0.245、0.665", "C": "更平均"},
    correct="B",
    reasons={"A": "让权重更集中的是拉大分数之间的差（比如乘以 2）；加同一个数，差一点没变。",
             "C": "分数整体变大，但两两之间的差没变；softmax 只看差，所以权重也不会变平。"},
    hints=["e^(s+5) = e^s × e⁵：每个指数都多乘了同一个数，除以总和时会怎样？"],
    answer="B。每个指数都多乘了同一个 e⁵，除以总和时约掉了；softmax 只看分数之间的差。"
           "这也是 masked_softmax 可以先减去最大值的原因。",
    stub='answer_3 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_3 = "B"',
)


# ---- q4：分数 → 权重 → 上下文 ---------------------------------------------------------
def _pair(expected, got):
    """q4、q5 返回 (上下文, 权重) 两项：先说清“少了一项”，再逐项比较。"""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        what = f"{len(got)} 项" if isinstance(got, (tuple, list)) else f"一个 {type(got).__name__}"
        return False, f"应返回两项 (context, weights)——上下文向量和权重，你返回的是{what}"
    for name, e, g in (("上下文", expected[0], got[0]), ("权重", expected[1], got[1])):
        ok, why = same(e, g, atol=1e-6, rtol=1e-6)
        if not ok:
            return False, f"{name}：{why}"
    return True, ""


def _afs_ref(scores, values):
    return attention_from_scores(scores, values)


def _afs_linear(scores, values):  # 不取指数，直接除以总和
    s = np.asarray(scores, dtype=float)
    w = s / s.sum(axis=-1, keepdims=True)
    return w @ np.asarray(values, dtype=float), w


def _afs_swapped(scores, values):  # 返回顺序弄反
    c, w = attention_from_scores(scores, values)
    return w, c


def _afs_no_shift(scores, values):  # 不减最大值
    e = np.exp(np.asarray(scores, dtype=float))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ np.asarray(values, dtype=float), w


def _afs_axis0(scores, values):  # 沿第 0 维（列方向）做 softmax：一维时碰巧没错
    s = np.asarray(scores, dtype=float)
    e = np.exp(s - s.max(axis=0, keepdims=True))
    w = e / e.sum(axis=0, keepdims=True)
    return w @ np.asarray(values, dtype=float), w


def _afs_random(rng):
    cases = []
    for n_q, n_k, d_v in ((2, 3, 2), (3, 4, 3), (4, 6, 2), (5, 8, 4)):
        scores = np.round(rng.normal(scale=2.0, size=(n_q, n_k)), 3)
        values = np.round(rng.normal(size=(n_k, d_v)), 3)
        cases.append(Case((scores, values)))
    return cases


_STEPS = np.array([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 1.0, 2.0]])

q4 = FunctionExercise(
    "12.4", "实现“分数 → softmax 权重 → 加权求和”，返回 (上下文, 权重)",
    name="my_attention_from_scores", reference=_afs_ref, compare=_pair,
    cases=[Case(([0.0, 1.0, 2.0], VALUES), note="12.3—12.4 节的例子：上下文 [0.755, 0.910]"),
           Case(([0.0, 2.0, 4.0], VALUES), note="分数乘以 2"),
           Case(([5.0, 6.0, 7.0], VALUES), note="分数加上 5：权重不变"),
           Case(([1000.0, 1001.0, 1002.0], VALUES), note="分数很大：要先减去最大值"),
           Case(([3.0], [[0.5, 2.0]]), note="只有一个输入位置：权重就是 1"),
           Case((_STEPS, VALUES), note="12.4 节的表：三个生成步骤各一行分数")],
    random_cases=_afs_random,
    array_args=("scores", "values"),
    mistakes=[Mistake("权重要先取指数再除以总和（softmax）；你直接用分数除以了分数之和。", _afs_linear),
              Mistake("返回顺序是 (上下文, 权重)，你把两者对调了。", _afs_swapped),
              Mistake("没有先减去最大值：分数很大时 exp 溢出成 inf，inf / inf 得到 NaN。"
                      "先减去每一行的最大值，结果不变。", _afs_no_shift),
              Mistake("分数是一张“输出步 × 输入位置”的表时，softmax 要沿最后一维（每一行）做：axis=-1。"
                      "你沿第 0 维做了，结果是每一列加起来等于 1。", _afs_axis0)],
    stub='''def my_attention_from_scores(scores, values):
    """scores：一维 (n_k,) 的分数，或二维 (n_q, n_k) 的表（每行是一个输出步骤对各输入位置的分数）；
    values：形状 (n_k, d_v)，每个输入位置的内容向量。
    返回 (context, weights)：weights 与 scores 同形状，是每一行的 softmax；context = weights @ values。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_attention_from_scores(scores, values):
    s = np.asarray(scores, dtype=float)
    e = np.exp(s - s.max(axis=-1, keepdims=True))   # 先减每行最大值，防止溢出
    weights = e / e.sum(axis=-1, keepdims=True)     # 每一行和为 1
    context = weights @ np.asarray(values, dtype=float)
    return context, weights
''',
    hints=["先把分数变成权重：e = np.exp(s - 最大值)，再除以 e 的和。",
           "二维的分数表要每一行各做一次 softmax：max 和 sum 都用 axis=-1、keepdims=True。",
           "上下文就是 weights @ values；最后 return context, weights。"],
)


# ---- q5：自己用点积打分 ------------------------------------------------------------
def _dot_ref(decoder_state, encoder_states):
    H = np.asarray(encoder_states, dtype=float)
    s = np.asarray(decoder_state, dtype=float)
    scores = attention_scores(s[None, :], H, scale=False)[0]
    return attention_from_scores(scores, H)


def _dot_scaled(decoder_state, encoder_states):  # 除以了 √d：那是第 13 章的缩放点积
    H = np.asarray(encoder_states, dtype=float)
    s = np.asarray(decoder_state, dtype=float)
    scores = H @ s / np.sqrt(H.shape[1])
    return attention_from_scores(scores, H)


def _dot_no_softmax(decoder_state, encoder_states):  # 分数直接当权重
    H = np.asarray(encoder_states, dtype=float)
    w = H @ np.asarray(decoder_state, dtype=float)
    return w @ H, w


def _dot_no_shift(decoder_state, encoder_states):
    H = np.asarray(encoder_states, dtype=float)
    e = np.exp(H @ np.asarray(decoder_state, dtype=float))
    w = e / e.sum()
    return w @ H, w


def _dot_random(rng):
    cases = []
    for d, n in ((2, 3), (3, 4), (4, 6), (8, 5)):
        cases.append(Case((np.round(rng.normal(size=d), 3), np.round(rng.normal(size=(n, d)), 3))))
    return cases


q5 = FunctionExercise(
    "12.5", "自己打分：用点积 s·hᵢ 给每个编码器状态打分，再算权重和上下文",
    name="my_dot_attention", reference=_dot_ref, compare=_pair,
    cases=[Case(([1.0, 1.0], [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]), note="点积正好是 12.3 节的分数 0、1、2"),
           Case(([1.0, 0.0], VALUES), note="12.4 节的三个内容向量"),
           Case(([0.5, -1.0], [[2.0, 3.0]]), note="只有一个输入位置"),
           Case(([20.0, 20.0], [[20.0, 0.0], [0.0, 20.0], [20.0, 20.0]]), note="状态的数值大：点积上百"),
           Case(([1.0, 0.0, -1.0, 2.0], [[1.0, 2.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0], [2.0, 0.0, 1.0, 0.0],
                                         [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]), note="4 维、5 个位置")],
    random_cases=_dot_random,
    array_args=("decoder_state", "encoder_states"),
    mistakes=[Mistake("本章的点积打分不缩放：分数就是 s·hᵢ。除以 √d 是下一章 Transformer 的缩放点积。", _dot_scaled),
              Mistake("忘了 softmax：点积分数要先变成和为 1 的权重，再去加权求和。", _dot_no_softmax),
              Mistake("没有先减去最大值：点积很大时 exp 溢出成 inf，inf / inf 得到 NaN。", _dot_no_shift)],
    stub='''def my_dot_attention(decoder_state, encoder_states):
    """decoder_state：形状 (d,)，解码器当前的状态 s；encoder_states：形状 (n, d)，编码器每一步的状态 hᵢ。
    分数 scoreᵢ = s · hᵢ（点积，不除以 √d）；权重 = softmax(分数)；上下文 = Σ 权重ᵢ × hᵢ。
    返回 (context, weights)：context 形状 (d,)，weights 形状 (n,)。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_dot_attention(decoder_state, encoder_states):
    H = np.asarray(encoder_states, dtype=float)
    scores = H @ np.asarray(decoder_state, dtype=float)   # 每个编码器状态与 s 的点积
    e = np.exp(scores - scores.max())
    weights = e / e.sum()
    return weights @ H, weights
''',
    hints=["n 个分数一次算出：encoder_states @ decoder_state，形状 (n,)。",
           "接下来和上一题一样：减最大值、exp、除以总和，再用权重把 encoder_states 的各行加起来。"],
)
