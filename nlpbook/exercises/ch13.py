"""第 13 章的练习：Transformer 的核心计算。

q1 选择：注意力得到 [0.802, 1.198] 后，是否已经输出了一个词（课文 13.x 的小练习）
q2 填数：仿照 13.3 节手算位置 B 的输出
q3 解释：打开“只看前文”后，“它”给“小猫”的权重为什么从 0.522 变大到 0.622
q4 选择：训练好的小模型里，第 2 层头 4 上“服”看得最多的是哪个位置
q5 实现：my_attention(q, k, v)，缩放点积注意力
q6 实现：my_masked_attention(q, k, v, mask)，再加上遮罩（因果遮罩、padding 遮罩）
q7 实现：my_split_heads(x, n_heads)，把特征维切给几个 head
q8 实现：my_layer_norm(x, gamma, beta, eps)，带 eps 的 LayerNorm
q9 实验：关掉随包小 Transformer 的一个 head，50 条验证评论上的困惑度涨多少（先预测）
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from ..attention import causal_mask, scaled_dot_product_attention, split_heads
from ..layers import layer_norm_forward
from .compare import describe
from .experiments import ExperimentExercise
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, ExplainExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9"]


# 13.3 节的 A、B、C
_X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
_V = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])


q1 = ChoiceExercise(
    "13.1", "注意力得到向量 [0.802, 1.198] 后，是否已经输出了一个词？",
    options={"A": "是：这个向量就是下一个词的概率分布",
             "B": "否：它只是位置 A 的新特征表示，还要经过后面的层和输出头",
             "C": "是：取最大的那一维（第 2 维）对应的词，就是输出"},
    correct="B",
    reasons={"A": "它只有 2 个数，和也不是 1；概率分布要由输出头在整个词表上算 softmax 才得到。",
             "C": "这两维是特征，不对应词表里的词；要由输出头把特征变成词表上每个词的分数。"},
    hints=["[0.802, 1.198] 是按权重混合 V 得到的；V 的每一维是什么？是词，还是特征？"],
    answer="B。注意力的输出是位置 A 的新特征表示（上下文化的表示），后面还有 FFN、更多层，"
           "最后由输出头（分类层或词表预测层）算出类别或下一个 token 的概率。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "13.2", "仿照 13.3 节，位置 B 的注意力输出是多少？",
    expected=[0.599, 1.604], tol=2e-3,
    wrong=[([0.802, 1.198], "这是位置 A 的输出；B 的 Q 是 [0, 1]，要重新和每个 K 打分。"),
           ([0.578, 1.689], "忘了除以 √d_k = √2：点积 [0, 1, 1] 要先缩放成 [0, 0.707, 0.707] 再 softmax。"),
           ([0.616, 1.535], "缩放时除以的是 d_k = 2，应该除以 √2 ≈ 1.414。"),
           ([0.599, 0.802], "加权求和要用 V（第二维乘过 2），不是 K 或输入 X。")],
    hints=["B 的 Q 是 [0, 1]，和 A、B、C 的 K 做点积，得到 [0, 1, 1]。",
           "除以 √2，softmax 得到权重 [0.198, 0.401, 0.401]，再按权重把 V 的三行加起来。"],
    answer="点积 [0, 1, 1] → 缩放 [0, 0.707, 0.707] → 权重 [0.198, 0.401, 0.401]；\n"
           "输出 = 0.198×[1, 0] + 0.401×[0, 2] + 0.401×[1, 2] ≈ [0.599, 1.604]。",
    stub="answer_2 = None   # 填两个数，如 [0.1, 0.2]，保留三位小数即可",
    filled="answer_2 = [0.599, 1.604]",
)

q3 = ExplainExercise(
    "13.3", "打开“只看前文”后，“它”给“小猫”的权重为什么从 0.522 变大到 0.622？能不能不重新 softmax 就算出来？",
    hints=["遮罩只改了“太、累、了”的分数；前面各词的 exp(分数) 变了吗？分母呢？"],
    answer="遮罩把后面三个词的分数变成 −∞，它们的 exp 变成 0；前面各词的 exp 不变，只是分母变小了。"
           "所以前面每个词的新权重 = 旧权重 ÷ 前 7 个词的旧权重之和：0.522 / 0.839 ≈ 0.622。",
)

q4 = ChoiceExercise(
    "13.4", "训练好的小模型里，第 2 层头 4 上，提问的字是“服”时，权重最大的是哪个位置？",
    options={"A": "它自己“服”", "B": "前一个字“的”", "C": "开头的换行 ⏎", "D": "第一个逗号“，”"},
    correct="C",
    reasons={"A": "这个头几乎不看自己（“服”给自己的权重约为 0）；几乎只看自己的是第 1 层的头 1、头 2。",
             "B": "“的”只分到约 0.15；这个头不是“看前一个字”的头。",
             "D": "第一个逗号在“服”的后面；这个模型是因果的，“服”还看不到它。"},
    hints=["先回忆这个头的外号：它看“最近的句首或标点”。", "“服”所在的小句从哪里开始？别忘了模型只能看前文。"],
    answer="C。第 2 层头 4 把大部分权重给最近的句首或逗号；“服”在第一个逗号之前，"
           "它所在的小句从开头的 ⏎ 开始，权重约 0.83。",
    stub='answer_4 = None   # 填 "A"、"B"、"C" 或 "D"',
    filled='answer_4 = "C"',
)


# ---- q5：缩放点积注意力 --------------------------------------------------------
def _attention_ref(q, k, v):
    return scaled_dot_product_attention(q, k, v)[0]


def _softmax_rows(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _att_no_scale(q, k, v):
    w = _softmax_rows(q @ k.T)
    return w @ v


def _att_div_d(q, k, v):
    w = _softmax_rows(q @ k.T / q.shape[-1])
    return w @ v


def _att_wrong_axis(q, k, v):  # 对每一列（同一个 key）归一化
    s = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(s - s.max(axis=0, keepdims=True))
    w = e / e.sum(axis=0, keepdims=True)
    return w @ v


def _att_sqrt_dv(q, k, v):  # 只在 d_v ≠ d_k 时出错
    w = _softmax_rows(q @ k.T / np.sqrt(v.shape[-1]))
    return w @ v


def _att_no_max(q, k, v):  # 只在分数很大时出错：exp 溢出，inf / inf = NaN
    e = np.exp(q @ k.T / np.sqrt(q.shape[-1]))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v


def _att_random(rng):
    cases = []
    for n_q, n_k, d_k, d_v in ((3, 3, 4, 4), (2, 5, 3, 2), (6, 4, 8, 5), (10, 10, 16, 16)):
        cases.append(Case((rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)),
                           rng.normal(size=(n_k, d_v)))))
    return cases


_ATT_STUB_DOC = '''    """q：(n_q, d_k)，k：(n_k, d_k)，v：(n_k, d_v)，都是二维 numpy 数组。
    先算权重 weights = softmax(q kᵀ / √d_k)：每一行（每个 query）各做一次 softmax，形状 (n_q, n_k)；
    返回 output = weights @ v，形状 (n_q, d_v)。'''

q5 = FunctionExercise(
    "13.5", "实现缩放点积注意力：softmax(q kᵀ / √d_k) v",
    name="my_attention", reference=_attention_ref,
    cases=[Case((_X, _X, _V), note="13.3 节的 A、B、C"),
           Case((np.array([[0.5, -1.0]]), np.array([[2.0, 1.0]]), np.array([[3.0, 4.0, 5.0]])),
                note="只有一个位置：权重就是 1"),
           Case((np.zeros((2, 2)), _X, _V), note="q 全为 0：所有分数相同，权重平均分"),
           Case((np.array([[1.0, 0.5, 0.0, 2.0], [0.0, 1.0, 1.0, 0.0]]),
                 np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]),
                 np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])),
                note="交叉注意力的形状：n_q = 2、n_k = 3，d_k = 4、d_v = 3"),
           Case((2000 * _X, _X, _V), note="分数很大（上千）：直接取 exp 会溢出")],
    random_cases=_att_random,
    mistakes=[Mistake("忘了除以 √d_k：点积直接进了 softmax。", _att_no_scale),
              Mistake("缩放时除以的是 d_k 本身，应该除以它的平方根 √d_k。", _att_div_d),
              Mistake("softmax 做在了错误的轴上：要让每一行（同一个 query 对所有 key）的权重和为 1，"
                      "沿 axis=-1 归一化。", _att_wrong_axis),
              Mistake("缩放用了 v 的维度 d_v；应该用 q、k 的维度 d_k（q.shape[-1]）。", _att_sqrt_dv),
              Mistake("分数很大时 np.exp 溢出成 inf，inf / inf 得到 NaN：先从每一行减去该行的最大值，再取指数。",
                      _att_no_max)],
    stub=f'''def my_attention(q, k, v):
{_ATT_STUB_DOC}
    """
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[-1])                 # (n_q, n_k)，除以 √d_k
    scores = scores - scores.max(axis=-1, keepdims=True)    # 每行减去最大值，exp 不会溢出
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)             # 每一行和为 1
    return weights @ v
''',
    hints=["四步：q @ k.T 得到分数表，除以 √d_k（d_k = q.shape[-1]），每行 softmax，再乘 v。",
           "softmax 沿最后一维（axis=-1, keepdims=True）做；先减去每行最大值再取 np.exp，分数很大也不会溢出。"],
)


# ---- q6：加上遮罩 --------------------------------------------------------------
def _masked_ref(q, k, v, mask):
    return scaled_dot_product_attention(q, k, v, mask=mask)[0]


def _scaled(q, k):
    return q @ k.T / np.sqrt(q.shape[-1])


def _mask_after_softmax(q, k, v, mask):  # 先 softmax 再清零，没有重新归一化
    w = _softmax_rows(_scaled(q, k)) * mask
    return w @ v


def _mask_reversed(q, k, v, mask):  # 把 True 当成“遮住”
    w = _softmax_rows(np.where(mask, -np.inf, _scaled(q, k)))
    return w @ v


def _mask_fill_zero(q, k, v, mask):  # 被禁止的分数设成 0 而不是 -inf
    w = _softmax_rows(np.where(mask, _scaled(q, k), 0.0))
    return w @ v


def _mask_no_scale(q, k, v, mask):
    w = _softmax_rows(np.where(mask, q @ k.T, -np.inf))
    return w @ v


def _mask_no_max(q, k, v, mask):  # 只在分数很大时出错
    e = np.exp(np.where(mask, _scaled(q, k), -np.inf))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v


def _masked_random(rng):
    cases = []
    for n_q, n_k, d_k, d_v, causal in ((4, 4, 3, 3, True), (3, 5, 4, 2, False), (6, 6, 8, 4, True),
                                        (5, 7, 6, 6, False)):
        if causal:
            mask = causal_mask(n_q)
        else:
            mask = rng.random((n_q, n_k)) < 0.5
            mask[np.arange(n_q), rng.integers(0, n_k, size=n_q)] = True   # 每行至少能读一个位置
        cases.append(Case((rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)),
                           rng.normal(size=(n_k, d_v)), mask)))
    return cases


_PAD = np.array([[True, True, False]] * 3)

q6 = FunctionExercise(
    "13.6", "再加上遮罩：被禁止的位置权重恰好为 0",
    name="my_masked_attention", reference=_masked_ref,
    cases=[Case((_X, _X, _V, _PAD), note="13.5 节的 padding 遮罩：C 是 PAD，谁都不读它"),
           Case((_X, _X, _V, causal_mask(3)), note="13.5 节的因果遮罩：A 只能读自己"),
           Case((_X, _X, _V, np.ones((3, 3), dtype=bool)), note="遮罩全是 True：和不加遮罩一样"),
           Case((np.array([[0.5, -1.0]]), np.array([[2.0, 1.0]]), np.array([[3.0, 4.0, 5.0]]),
                 np.array([[True]])), note="只有一个位置"),
           Case((2000 * _X, _X, _V, causal_mask(3)), note="分数很大（上千）：直接取 exp 会溢出"),
           Case((_X, _X, _V, np.array([[True, False, False], [False, False, False], [True, True, True]])),
                note="第 2 行全被遮住：应当抛出 ValueError")],
    random_cases=_masked_random,
    mistakes=[Mistake("你在 softmax 之后才把被遮住的权重清零，剩下的权重加起来不到 1："
                      "遮罩要在 softmax 之前，把被禁止的分数设成 -∞。", _mask_after_softmax),
              Mistake("遮罩方向反了：这里 True 表示“可以读取”，False 的位置才要设成 -∞。", _mask_reversed),
              Mistake("被禁止的分数设成了 0，可 e⁰ = 1，它们照样分到权重：要设成 -∞（np.where(mask, 分数, -np.inf)）。",
                      _mask_fill_zero),
              Mistake("忘了除以 √d_k：遮罩之前的分数要先缩放。", _mask_no_scale),
              Mistake("分数很大时 np.exp 溢出成 inf，inf / inf 得到 NaN：先从每一行减去该行的最大值（-∞ 不影响最大值），"
                      "再取指数。", _mask_no_max)],
    stub=f'''def my_masked_attention(q, k, v, mask):
{_ATT_STUB_DOC}
    mask：布尔数组，形状 (n_q, n_k)；True = 可以读取，False = 禁止读取（权重恰好为 0）。
    如果某一行全是 False（这个 query 没有可读的位置），抛出 ValueError。
    """
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_masked_attention(q, k, v, mask):
    if not mask.any(axis=-1).all():
        raise ValueError("有一行全被遮住：这个 query 没有可以读取的位置")
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)                # softmax 之前把禁止的分数设成 -∞
    scores = scores - scores.max(axis=-1, keepdims=True)    # 每行至少有一个有限值，最大值有限
    e = np.exp(scores)                                      # exp(-∞) = 0
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v
''',
    hints=["在练习 5 的基础上只多一步：softmax 之前，用 np.where(mask, 分数, -np.inf) 把禁止的分数换成 -∞。",
           "e^(-∞) = 0，所以被禁止的权重恰好为 0，剩下的权重自动重新归一化。",
           "一行全是 -∞ 时最大值也是 -∞，-∞ − (-∞) 是 NaN：先用 mask.any(axis=-1) 检查，有空行就 raise ValueError。"],
)


# ---- q7：拆成几个 head -----------------------------------------------------------
def _split_ref(x, n_heads):
    return split_heads(x, n_heads)


def _split_strided(x, n_heads):  # 隔 n_heads 维取一个，而不是连续的一段
    return np.stack([x[:, i::n_heads] for i in range(n_heads)])


def _split_no_swap(x, n_heads):  # 忘了交换前两维，形状是 (T, n_heads, d_head)
    return x.reshape(x.shape[0], n_heads, x.shape[1] // n_heads)


def _split_direct_reshape(x, n_heads):  # 只在 T > 1 时出错
    return x.reshape(n_heads, x.shape[0], x.shape[1] // n_heads)


def _split_random(rng):
    return [Case((rng.normal(size=(T, d)), h)) for T, d, h in ((4, 6, 3), (5, 8, 2), (10, 128, 4))]


q7 = FunctionExercise(
    "13.7", "把 d 维特征切成 n_heads 段：(T, d) → (n_heads, T, d / n_heads)",
    name="my_split_heads", reference=_split_ref,
    cases=[Case((np.array([[1.0, 2.0, 3.0, 4.0]]), 2), note="只有一个 token"),
           Case((np.arange(12.0).reshape(3, 4), 2), note="3 个 token、2 个 head，每个 head 2 维"),
           Case((np.arange(6.0).reshape(2, 3), 1), note="只有 1 个 head：整段特征都给它"),
           Case((np.arange(8.0).reshape(2, 4), 4), note="head 数等于特征维：每个 head 只有 1 维"),
           Case((np.arange(10.0).reshape(2, 5), 2), note="5 维分不成 2 个等长的 head：应当抛出 ValueError")],
    random_cases=_split_random,
    mistakes=[Mistake("每个 head 应该拿连续的一段特征（第 i 个 head 是第 i·d_head 到 (i+1)·d_head − 1 维），"
                      "不是隔 n_heads 维取一个。", _split_strided),
              Mistake("reshape 成 (T, n_heads, d_head) 之后还要交换前两维，变成 (n_heads, T, d_head)"
                      "（np.swapaxes(…, 0, 1)）。", _split_no_swap),
              Mistake("直接 reshape 成 (n_heads, T, d_head) 会把不同 token 的数混进同一个 head："
                      "先 reshape 成 (T, n_heads, d_head)，再交换前两维。", _split_direct_reshape)],
    stub='''def my_split_heads(x, n_heads):
    """x：形状 (T, d) 的 numpy 数组（T 个 token，每个 d 维）；n_heads：head 数。
    返回形状 (n_heads, T, d // n_heads) 的数组：第 i 个 head 拿每个 token 的第 i 段连续特征
    （第 i·d_head 到 (i+1)·d_head − 1 维，d_head = d // n_heads）。d 不能被 n_heads 整除时抛出 ValueError。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_split_heads(x, n_heads):
    T, d = x.shape
    if d % n_heads:
        raise ValueError(f"特征维 {d} 不能被 n_heads={n_heads} 整除")
    return np.swapaxes(x.reshape(T, n_heads, d // n_heads), 0, 1)
''',
    hints=["先想一个 token：它的 d 维切成 n_heads 段连续的小段，就是 reshape 成 (n_heads, d_head)。",
           "对整个 x：reshape 成 (T, n_heads, d_head)，再用 np.swapaxes(…, 0, 1) 把 head 维换到最前面。"],
)


# ---- q8：LayerNorm --------------------------------------------------------------
def _ln_ref(x, gamma, beta, eps=1e-5):
    return layer_norm_forward(x, gamma, beta, eps=eps)[0]


def _ln_ddof1(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(x.var(axis=-1, ddof=1, keepdims=True) + eps) + beta


def _ln_eps_outside(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / (x.std(axis=-1, keepdims=True) + eps) + beta


def _ln_no_eps(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / x.std(axis=-1, keepdims=True) + beta


def _ln_axis0(x, gamma, beta, eps=1e-5):  # 一维输入时看不出来
    mu = x.mean(axis=0, keepdims=True)
    return gamma * (x - mu) / np.sqrt(x.var(axis=0, keepdims=True) + eps) + beta


def _ln_no_affine(x, gamma, beta, eps=1e-5):  # gamma = 1、beta = 0 时看不出来
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def _ln_random(rng):
    cases = []
    for shape in ((4, 6), (3, 5, 8)):
        d = shape[-1]
        cases.append(Case((rng.normal(size=shape) * 3 + 1, rng.normal(size=d), rng.normal(size=d))))
    return cases


_ONE2, _ZERO2 = np.ones(2), np.zeros(2)
_ONE3, _ZERO3 = np.ones(3), np.zeros(3)

q8 = FunctionExercise(
    "13.8", "实现 LayerNorm：γ·(x − 均值) / √(方差 + eps) + β，对每个 token 各自做",
    name="my_layer_norm", reference=_ln_ref,
    cases=[Case((np.array([1.0, 3.0]), _ONE2, _ZERO2), note="13.8 节的 [1, 3]：结果是 ±0.999995"),
           Case((np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 60.0]]), _ONE3, _ZERO3),
                note="两个 token：每一行各自归一化"),
           Case((np.array([[5.0, 5.0, 5.0], [1.0, 2.0, 4.0]]), _ONE3, _ZERO3),
                note="第一个 token 的特征全相同：方差为 0"),
           Case((np.array([[1.0, 2.0, 4.0], [0.0, -1.0, 3.0]]), np.array([2.0, 0.5, 1.0]),
                 np.array([1.0, 0.0, -1.0])), note="gamma、beta 不是 1 和 0"),
           Case((np.array([1.0, 3.0]), _ONE2, _ZERO2), {"eps": 0.1}, note="eps 换成 0.1：要用传进来的 eps")],
    random_cases=_ln_random,
    mistakes=[Mistake("方差要用总体方差（除以 d，np.var 的默认），不是样本方差（除以 d − 1）。", _ln_ddof1),
              Mistake("eps 要加在方差上再开方：√(σ² + eps)；你把它加在了标准差上（σ + eps）。", _ln_eps_outside),
              Mistake("分母里少了 eps：一个 token 的特征全相同时方差为 0，除以 0 得到 NaN。", _ln_no_eps),
              Mistake("要对每个 token（每一行）各自归一化，沿最后一维 axis=-1 求均值和方差；"
                      "沿 axis=0（跨 token）是 BatchNorm 的做法。", _ln_axis0),
              Mistake("归一化之后还要乘 gamma、加 beta。", _ln_no_affine)],
    stub='''def my_layer_norm(x, gamma, beta, eps=1e-5):
    """x：形状 (..., d) 的 numpy 数组，最后一维是一个 token 的 d 个特征；gamma、beta：形状 (d,)。
    对每个 token 各自计算均值 μ 和（总体）方差 σ²，返回同形状的 gamma · (x − μ) / √(σ² + eps) + beta。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)          # 总体方差：除以 d
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
''',
    hints=["均值和方差都沿最后一维求（axis=-1），keepdims=True 让它们能和 x 直接相减、相除。",
           "np.var 默认就是总体方差（除以 d）；eps 加在方差上，再开平方。最后乘 gamma、加 beta。"],
    atol=1e-8, rtol=1e-8,
)


# ---- q9：关掉一个 head ------------------------------------------------------------
# 范围的来源：随包权重本身（nlpbook/weights/tiny_transformer_reviews.npz）。记录里没有存“关掉某个 head”的困惑度，
# 所以检查器用同样的权重、同样的 50 条验证评论（本章最后一节）现算一次；每个设置只算一次（约 0.4 秒）。
_N_VAL = 50
_REL_SLACK = 0.002   # 不同 BLAS 内核之间只差约 1e-8（相对）；任意两个 head 的结果至少差 0.7%


@functools.lru_cache(maxsize=1)
def _shipped_model():
    from ..tiny_transformer import load_pretrained
    return load_pretrained()


@functools.lru_cache(maxsize=1)
def _val_ids():
    from ..datasets import clean_reviews, load_raw_reviews, split_reviews
    val = [r.text for r in split_reviews(clean_reviews(load_raw_reviews())[0])["validation"]][:_N_VAL]
    return np.array(_shipped_model().encode("\n" + "\n".join(val) + "\n"), dtype=np.int32)


def _grid():
    cfg = _shipped_model().params["config"]
    return cfg["n_layers"], cfg["n_heads"], cfg["d_model"] // cfg["n_heads"]


def _layer_head(setting):
    """(层, 头)，都从 1 数；形式不对时返回 None。"""
    if isinstance(setting, np.ndarray):
        setting = setting.tolist()
    if not isinstance(setting, (tuple, list)) or len(setting) != 2:
        return None
    if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in setting):
        return None
    return int(setting[0]), int(setting[1])


def _head_validate(setting):
    n_layers, n_heads, _ = _grid()
    allowed = f"层是 1—{n_layers}、头是 1—{n_heads} 的整数，都从 1 数（和本章最后一节的表一样）"
    lh = _layer_head(setting)
    if lh is None:
        return f"请填两个整数 (层, 头)，如 (2, 4)；{allowed}。收到的是 {describe(setting)}。"
    layer, head = lh
    if not (1 <= layer <= n_layers and 1 <= head <= n_heads):
        return f"没有第 {layer} 层头 {head}：{allowed}。"
    return None


@functools.lru_cache(maxsize=None)
def _ablated_perplexity(layer: int, head: int) -> float:
    """关掉第 layer 层的第 head 个 head（都从 1 数；layer = 0 表示什么都不关）后，50 条验证评论上的困惑度。"""
    from ..tiny_transformer import lm_perplexity
    model = _shipped_model()
    params = dict(model.params)
    if layer:
        d_head = _grid()[2]
        Wo = params[f"L{layer - 1}.Wo"].copy()
        Wo[(head - 1) * d_head:head * d_head] = 0.0
        params[f"L{layer - 1}.Wo"] = Wo
    return lm_perplexity(params, _val_ids())


def _head_band(setting):
    v = _ablated_perplexity(*_layer_head(setting))
    return {"result": (v * (1 - _REL_SLACK), v * (1 + _REL_SLACK))}


_LITTLE, _LOT = 1.02, 1.25   # 困惑度是完整模型的几倍：不到 1.02 算“几乎不变”，超过 1.25 算“涨很多”


def _head_outcome(setting, result):
    ratio = float(result) / _ablated_perplexity(0, 0)
    return "A" if ratio < _LITTLE else ("B" if ratio <= _LOT else "C")


_HEAD_RUN = r'''    from nlpbook.datasets import clean_reviews, load_raw_reviews, split_reviews
    from nlpbook.tiny_transformer import lm_perplexity, load_pretrained
    model = load_pretrained()                   # 随包的小 Transformer，和本章最后一节是同一份
    val_texts = [r.text for r in split_reviews(clean_reviews(load_raw_reviews())[0])["validation"]][:50]
    val_ids = np.array(model.encode("\n" + "\n".join(val_texts) + "\n"), dtype=np.int32)
    layer, head = head_9
    d_head = model.params["config"]["d_model"] // model.params["config"]["n_heads"]   # 128 / 4 = 32
    params = dict(model.params)                 # 新的字典：下面只换掉一个数组，原模型不受影响
    Wo = params[f"L{layer - 1}.Wo"].copy()      # 参数名里的层号从 0 数
    Wo[(head - 1) * d_head:head * d_head] = 0   # 拼接后第 head 段 32 维来自这个 head，乘 Wo 时只经过这 32 行
    params[f"L{layer - 1}.Wo"] = Wo             # 这几行置 0：这个 head 的输出再也进不了残差流
    full = lm_perplexity(model.params, val_ids)
    result_9 = lm_perplexity(params, val_ids)
    print(f"完整模型的困惑度 {full:.2f}；关掉第 {layer} 层头 {head} 后 {result_9:.2f}（{result_9 / full - 1:+.1%}）")
'''


def _head_cells(prediction: str, setting: str) -> str:
    return (f'prediction_9 = {prediction}\n'
            f'head_9 = {setting}\n'
            'result_9 = None\n'
            'if head_9 is not None:\n'
            + _HEAD_RUN +
            'answer_9 = {"prediction": prediction_9, "setting": head_9, "result": result_9}\n')


q9 = ExperimentExercise(
    "13.9", "关掉随包小 Transformer 的一个 head，验证评论上的困惑度会涨多少？",
    options={"A": "几乎不变（涨不到 2%）：每层还有另外 3 个 head，少一个无所谓",
             "B": "涨一些（2% 到 25%）",
             "C": "涨很多（超过 25%）"},
    outcome=_head_outcome,
    reasons={"A": "这个只有 2 层、每层 4 个 head 的小模型里没有闲着的 head：关掉哪一个，困惑度都至少涨约 5%。",
             "B": "第 2 层的 4 个 head、第 1 层的头 3 和头 4 都是这样：关掉一个，模型的其余部分还撑得住，"
                  "困惑度涨 5% 到 20% 左右；第 1 层的 head 比第 2 层的更要紧。",
             "C": "第 1 层头 1、头 2 的权重几乎全给自己，看起来什么也没读，关掉后困惑度却涨了四成多。"
                  "只看自己不等于没做事：它把本位置的表示经 W_V、W_O 变换后加回残差流，"
                  "后面的层和输出层都在用这些特征。注意力权重说明 head 读了哪里，说明不了它写进去的东西有多重要。"},
    validate=_head_validate,
    band=_head_band,
    basis="范围是检查器用随包权重、在同样 50 条验证评论上关掉同一个 head 现算的困惑度，上下各放宽 0.2%"
          "（不同 CPU 上的舍入差别不到它的万分之一）",
    hints=["一个 head 的输出在拼接后占连续的 32 维（第 head 段），乘 Wo 时只经过 Wo 的这 32 行："
           "起始代码把这几行置 0，就关掉了这个 head，别的 head 照常工作。",
           "权重几乎全给自己的 head，输出是不是就等于输入？想想 W_V、W_O 对这个位置的表示做了什么。",
           "跑完一个，再换另一层的 head 比一比：第 1 层和第 2 层，哪一层的 head 更要紧？"],
    answer="关掉哪一个 head 困惑度都会涨，但差得很多：第 2 层的 4 个 head 各涨约 5%—10%，"
           "第 1 层头 3、头 4 涨约 17%—20%；最要紧的反而是几乎只看自己的第 1 层头 1、头 2，"
           "关掉后困惑度从 83.6 涨到 120 左右（四成多）。只看自己的 head 并没有闲着：它把本位置的表示经 W_V、W_O "
           "变换后加回残差流，给后面的层添了一组特征。注意力图只说明一个 head 读了哪里，说明不了它写进去的东西有多重要。",
    stub=_head_cells('None   # 先预测，跑之前填好："A" 几乎不变（涨不到 2%）；"B" 涨一些（2% 到 25%）；"C" 涨很多（超过 25%）',
                     'None         # 你要关掉的 head：(层, 头)，层 1—2、头 1—4，如 (2, 4)'),
    filled=_head_cells('"B"', "(1, 1)"),
)
