"""第 17 章的练习：SFT、DPO、LoRA 与 RAG。

q1 选择：把新文档放进上下文，模型的权重改了吗（课文 17.5 的小练习）
q2 填数：768 × 768 的矩阵用 r = 4 的 LoRA，新增多少参数；α 改成 8 呢
q3 填数：好、差回答都比参考模型高 3 时的 DPO 损失
q4 实现：my_sft_loss(logits, targets, prompt_len)——只对回答部分求平均的交叉熵
q5 实现：my_dpo_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, beta)
q6 实现：my_lora_forward(x, W0, A, B, alpha)——(W0 + (α/r)·BA) x
q7 实现：my_rank(query_vec, doc_matrix, metric)——按点积或余弦给文档排序
q8 实验：换一个记录里没有的 β 做 50 步 DPO，看它落在“奖励—KL”平面上相邻两个 β 之间的哪里
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..cost import lora_scale
from ..objectives import dpo_loss, masked_cross_entropy, sft_loss_mask
from ..retrieval import rank
from .compare import describe
from .experiments import ExperimentExercise, as_number
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "SFT_TARGETS", "SFT_PROMPT_LEN"]

q1 = ChoiceExercise(
    "17.1", "把一份新课程文档放进上下文交给模型，它的权重一定被改过了吗？",
    options={"A": "是：模型读了这份文档，参数就跟着更新了",
             "B": "不是：只改变了这一次的输入，参数一个也没动",
             "C": "要看文档多长：放不进上下文窗口的部分会被写进参数"},
    correct="B",
    reasons={"A": "前向计算只读参数、不写参数；更新权重要靠训练（算梯度、走一步），读一遍输入做不到。",
             "C": "放不进窗口的部分只是被截掉、模型看不到，并不会写进参数。"},
    hints=["一次前向计算会不会改变 lm.params？想想 17.4 拼好的提示交给模型时发生了什么。"],
    answer="B。普通提示和 RAG 只改变这一次的输入；要改权重，得经过训练或明确的参数更新（如 SFT、LoRA）。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "17.2", "768 × 768 的矩阵用 r = 4 的 LoRA：新增参数、完整更新是它的几倍、α 从 4 改成 8 后的新增参数",
    expected=(6144, 96, 6144), tol=0.5,
    wrong=[((3072, 192, 3072), "只算了一个小矩阵：B 是 768×4，A 是 4×768，两个都要训练。"),
           ((6144, 96, 12288), "α 只改变缩放系数 α/r，不改变 B、A 的形状，参数个数不变。"),
           ((6144, 1 / 96, 6144), "第二项要填“完整更新是 LoRA 的几倍”，即 96，而不是分数 1/96。")],
    hints=["完整更新是 768 × 768 个参数；LoRA 训练 B（768 × r）和 A（r × 768）。",
           "α 出现在哪里？它只在 W0 + (α/r)·BA 的系数里。"],
    answer="完整 768×768 = 589,824；LoRA 768×4 + 4×768 = 6,144，完整的是它的 96 倍；α 改成 8 只把 α/r 从 1 变成 2，"
           "参数仍是 6,144。答案 (6144, 96, 6144)。",
    stub="answer_2 = None   # 填三个整数：(新增参数个数, 完整更新是它的几倍, α 改成 8 后的新增参数个数)",
    filled="answer_2 = (6144, 96, 6144)",
)

q3 = NumberExercise(
    "17.3", "17.2 的例子里，训练让 A、B 的对数概率都比参考模型高 3，DPO 损失（β = 0.1）是多少？",
    expected=math.log(2), tol=2e-3,
    wrong=[(0.513, "这是正文里 A 升 2、B 降 2 的结果；这里两条回答都升了 3。"),
           (-math.log(1 / (1 + math.exp(-0.6))), "你把两个“提高了多少”相加了（0.1 × 6）；DPO 看的是两者之差。"),
           (0.0, "差的差为 0 时 σ(0) = 0.5，损失是 −ln 0.5，不是 0。"),
           (1.0, "这是 −log₂ 0.5；课程的损失用自然对数 ln。")],
    hints=["先算两个“提高了多少”：π(A) − π_ref(A) 和 π(B) − π_ref(B)，再算它们的差。",
           "差的差为 0：损失 = −ln σ(0)。"],
    answer="两个“提高了多少”都是 +3，差的差为 0，损失 = −ln σ(0) = ln 2 ≈ 0.693，和训练前一样。",
    stub="answer_3 = None   # 填一个数，保留三位小数即可",
    filled="answer_3 = 0.693",
)


# ---- q4：只对回答算损失的 SFT 交叉熵 -----------------------------------------------
def _sft_ref(logits, targets, prompt_len):
    t = len(targets)
    return masked_cross_entropy(logits, targets, sft_loss_mask(prompt_len, t - prompt_len))


def _log_softmax(z):
    z = np.asarray(z, dtype=float)
    m = z.max(axis=-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))


def _per_token(logits, targets):
    return -_log_softmax(logits)[np.arange(len(targets)), targets]


def _sft_all_positions(logits, targets, prompt_len):
    return float(_per_token(logits, targets).mean())


def _sft_off_by_one(logits, targets, prompt_len):  # 回答从 prompt_len + 1 才开始
    return float(_per_token(logits, targets)[prompt_len + 1:].mean())


def _sft_divide_by_all(logits, targets, prompt_len):  # 分子只加回答，分母却是全部位置
    return float(_per_token(logits, targets)[prompt_len:].sum() / len(targets))


def _sft_naive_softmax(logits, targets, prompt_len):  # 不减最大值：超大 logits 时 exp 溢出
    z = np.asarray(logits, dtype=float)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    return float(-np.log(p[np.arange(len(targets)), targets])[prompt_len:].mean())


# 17.1 节的例子：“请判断下面影评的情感：电影很好看。”+“好评。”，错开一位后的目标编号
SFT_TARGETS = np.array([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 12, 1])
SFT_PROMPT_LEN = 11

_SMALL_LOGITS = np.array([[2.0, 0.0, 1.0], [0.5, 1.5, 0.0], [1.0, 1.0, 3.0], [0.0, 2.0, 1.0]])


def _sft_random(rng):
    cases = []
    for t, v in ((5, 4), (8, 6), (12, 10)):
        logits = rng.normal(scale=2.0, size=(t, v))
        targets = rng.integers(0, v, size=t)
        cases.append(Case((logits, targets, int(rng.integers(0, t)))))
    return cases


q4 = FunctionExercise(
    "17.4", "实现 SFT 的损失：只对回答部分的位置求平均交叉熵",
    name="my_sft_loss", reference=_sft_ref,
    cases=[Case((_SMALL_LOGITS, np.array([0, 1, 2, 1]), 2), note="4 个位置，前 2 个是提示"),
           Case((np.random.default_rng(0).normal(size=(14, 14)), SFT_TARGETS, SFT_PROMPT_LEN),
                note="17.1 节的例子，应得 3.637"),
           Case((_SMALL_LOGITS, np.array([0, 1, 2, 1]), 0), note="没有提示：每个位置都算"),
           Case((_SMALL_LOGITS, np.array([0, 1, 2, 1]), 3), note="回答只有最后一个位置"),
           Case((_SMALL_LOGITS * 1000, np.array([0, 0, 2, 2]), 1), note="超大 logits")],
    random_cases=_sft_random,
    mistakes=[Mistake("你对全部位置求了平均；SFT 只算回答部分，位置 prompt_len 之前的都不算。", _sft_all_positions),
              Mistake("回答的第一个位置被漏掉了：目标序列里下标 prompt_len 起就是回答（差一位）。", _sft_off_by_one),
              Mistake("分子只加了回答部分，分母却用了全部位置数；分母应是回答的位置数。", _sft_divide_by_all),
              Mistake("softmax 前没有减去每行的最大值，logits 很大时 exp 溢出成 inf，结果变成 NaN。"
                      "先减最大值（或用 log-sum-exp）。", _sft_naive_softmax)],
    stub='''def my_sft_loss(logits, targets, prompt_len):
    """logits：形状 (T, V) 的数组，第 t 行是位置 t 对下一个 token 的分数；
    targets：长度 T 的整数数组，位置 t 的正确下一个 token；
    prompt_len：前 prompt_len 个位置属于提示（0 <= prompt_len < T），其余属于回答。
    返回一个数：回答部分各位置 −ln p(正确 token) 的平均值（自然对数）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_sft_loss(logits, targets, prompt_len):
    z = np.asarray(logits, dtype=float)
    z = z - z.max(axis=1, keepdims=True)                       # 减去每行最大值，exp 不会溢出
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))   # log-softmax
    per_token = -log_p[np.arange(len(targets)), targets]
    return float(per_token[prompt_len:].mean())                # 只对回答部分求平均
''',
    hints=["先对每一行做 log-softmax，再取出正确 token 那一列：得到每个位置的 −ln p。",
           "回答部分是下标 prompt_len 到 T−1 的位置；只对它们求平均，分母是它们的个数。",
           "logits 可能很大：log-softmax 前先减去每行的最大值。"],
)


# ---- q5：DPO 损失 ---------------------------------------------------------------
def _dpo_ref(logp_chosen, logp_rejected, ref_chosen, ref_rejected, beta):
    return float(dpo_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, beta=beta))


def _margin(pc, pr, rc, rr):
    return (pc - rc) - (pr - rr)


def _neg_log_sigmoid(z):  # 稳定的 −ln σ(z)
    return float(np.logaddexp(0.0, -z))


def _dpo_swapped(pc, pr, rc, rr, beta):
    return _neg_log_sigmoid(-beta * _margin(pc, pr, rc, rr))


def _dpo_no_beta(pc, pr, rc, rr, beta):
    return _neg_log_sigmoid(_margin(pc, pr, rc, rr))


def _dpo_no_reference(pc, pr, rc, rr, beta):
    return _neg_log_sigmoid(beta * (pc - pr))


def _dpo_naive(pc, pr, rc, rr, beta):  # −ln(1/(1+e^{−z}))：z 很负时 e^{−z} 溢出，σ 变成 0，−ln 0 = inf
    z = beta * _margin(pc, pr, rc, rr)
    return float(-np.log(1.0 / (1.0 + np.exp(-z))))


def _dpo_random(rng):
    cases = []
    for beta in (0.1, 0.5, 2.0):
        pc, pr, rc, rr = (float(-rng.uniform(1, 40)) for _ in range(4))
        cases.append(Case((pc, pr, rc, rr, beta)))
    return cases


q5 = FunctionExercise(
    "17.5", "实现 DPO 损失 −ln σ(β[(ln π(A) − ln π_ref(A)) − (ln π(B) − ln π_ref(B))])",
    name="my_dpo_loss", reference=_dpo_ref,
    cases=[Case((-12.0, -15.0, -14.0, -13.0, 0.1), note="17.2 节的例子，应得 0.513"),
           Case((-78.998, -41.693, -78.998, -41.693, 0.1), note="训练前 π 就是 π_ref，应得 ln 2"),
           Case((-5.0, -9.0, -6.0, -6.0, 0.5), note="β = 0.5"),
           Case((-3.0, -4.0, -8.0, -2.0, 1.0), note="好回答反而相对降低：损失大于 ln 2"),
           Case((-2000.0, -1.0, -10.0, -10.0, 1.0), note="好回答相对参考降了很多：σ(z) 小到下溢"),
           Case((-1.0, -2000.0, -10.0, -10.0, 1.0), note="好回答遥遥领先：损失接近 0")],
    random_cases=_dpo_random,
    mistakes=[Mistake("好、差回答弄反了：括号里应是“好回答提高的”减去“差回答提高的”。", _dpo_swapped),
              Mistake("忘了乘 β：σ 里面是 β × (差的差)。", _dpo_no_beta),
              Mistake("没有减去参考模型的对数概率：DPO 比较的是相对 π_ref 提高了多少，不是 ln π(A) − ln π(B)。",
                      _dpo_no_reference),
              Mistake("先算 σ(z) 再取 −ln：z 很负时 σ(z) 下溢成 0，−ln 0 = inf。"
                      "改用 −ln σ(z) = ln(1 + e^(−z))，并用 np.logaddexp(0, −z) 稳定地算。", _dpo_naive)],
    stub='''def my_dpo_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, beta):
    """前四个参数都是整条回答的对数概率（一个 <= 0 的数）：
    logp_chosen / logp_rejected：训练中的模型给好回答 A / 差回答 B；
    ref_chosen / ref_rejected：冻结的参考模型给 A / B。beta：正数。
    返回一个数：DPO 损失 −ln σ(β[(logp_chosen − ref_chosen) − (logp_rejected − ref_rejected)])。
    括号里的差很大（如 ±1000）时结果也必须是有限的数（不能是 inf 或 NaN）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_dpo_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, beta):
    z = beta * ((logp_chosen - ref_chosen) - (logp_rejected - ref_rejected))
    return float(np.logaddexp(0.0, -z))        # −ln σ(z) = ln(1 + e^(−z))，z 很大或很小都不会溢出
''',
    hints=["照 17.2 节一步一步来：两个“提高了多少”，它们的差，乘 β，得到 z。",
           "−ln σ(z) = ln(1 + e^(−z))。",
           "z 可能是 −2000：e^2000 会溢出。np.logaddexp(0, −z) 正好算 ln(e^0 + e^(−z))，而且稳定。"],
)


# ---- q6：LoRA 的前向计算 ------------------------------------------------------------
def _lora_ref(x, W0, A, B, alpha):
    W = np.asarray(W0, float) + lora_scale(alpha, np.shape(A)[0]) * (np.asarray(B, float) @ np.asarray(A, float))
    return W @ np.asarray(x, float)


def _lora_no_w0(x, W0, A, B, alpha):
    return (alpha / np.shape(A)[0]) * (np.asarray(B) @ (np.asarray(A) @ np.asarray(x)))


def _lora_no_scale(x, W0, A, B, alpha):
    return np.asarray(W0) @ x + np.asarray(B) @ (np.asarray(A) @ x)


def _lora_alpha_only(x, W0, A, B, alpha):
    return np.asarray(W0) @ x + alpha * (np.asarray(B) @ (np.asarray(A) @ x))


def _lora_r_over_alpha(x, W0, A, B, alpha):
    return np.asarray(W0) @ x + (np.shape(A)[0] / alpha) * (np.asarray(B) @ (np.asarray(A) @ x))


def _lora_transposed(x, W0, A, B, alpha):  # 把 W0 乘反了：x @ W0 = W0ᵀ x
    return np.asarray(x) @ np.asarray(W0) + (alpha / np.shape(A)[0]) * (np.asarray(B) @ (np.asarray(A) @ x))


_rng0 = np.random.default_rng(0)
_W0 = _rng0.normal(size=(4, 4))
_A = _rng0.normal(scale=0.5, size=(1, 4))
_X = np.array([1.0, 2.0, -1.0, 0.5])
_B_TRAINED = np.array([[0.3], [-0.2], [0.0], [0.5]])
_rng1 = np.random.default_rng(1)
_W0_35 = np.round(_rng1.normal(size=(3, 5)), 1)
_A_25 = np.round(_rng1.normal(size=(2, 5)), 1)
_B_32 = np.round(_rng1.normal(size=(3, 2)), 1)
_X5 = np.array([1.0, 0.0, -1.0, 2.0, 0.5])


def _lora_random(rng):
    cases = []
    for d_out, d_in, r in ((2, 3, 1), (5, 4, 2), (6, 8, 3)):
        cases.append(Case((rng.normal(size=d_in), rng.normal(size=(d_out, d_in)), rng.normal(size=(r, d_in)),
                           rng.normal(size=(d_out, r)), float(rng.choice([1.0, 4.0, 16.0])))))
    return cases


q6 = FunctionExercise(
    "17.6", "实现 LoRA 层的输出 (W0 + (α/r)·B·A) x",
    name="my_lora_forward", reference=_lora_ref,
    cases=[Case((_X, _W0, _A, np.zeros((4, 1)), 2.0), note="17.3 节：B 初始为 0，输出应等于 W0 x"),
           Case((_X, _W0, _A, _B_TRAINED, 2.0), note="17.3 节：训练后的 B，α = 2、r = 1"),
           Case((_X5, _W0_35, _A_25, _B_32, 4.0), note="r = 2、α = 4，矩阵不是方的"),
           Case((_X5, _W0_35, _A_25, _B_32, 2.0), note="α = r：系数为 1")],
    random_cases=_lora_random,
    mistakes=[Mistake("输出里少了原权重那一路：应是 W0 x 加上低秩旁路 (α/r)·B(Ax)。", _lora_no_w0),
              Mistake("W0 乘反了：W0 的形状是 (d_out, d_in)，输出是 W0 @ x，不是 x @ W0。", _lora_transposed),
              Mistake("忘了缩放系数 α/r：旁路要乘 α/r。", _lora_no_scale),
              Mistake("系数写成了 α/r 的倒数 r/α。", _lora_r_over_alpha),
              Mistake("系数只乘了 α，没有除以 r（r 是 A 的行数）；r = 1 时看不出来。", _lora_alpha_only)],
    stub='''def my_lora_forward(x, W0, A, B, alpha):
    """x：长度 d_in 的输入向量；W0：(d_out, d_in) 冻结的原权重；
    A：(r, d_in)；B：(d_out, r)，r 就是 A 的行数；alpha：缩放用的正数。
    返回长度 d_out 的 numpy 数组：(W0 + (alpha / r) · B @ A) @ x。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_lora_forward(x, W0, A, B, alpha):
    x, W0, A, B = (np.asarray(v, dtype=float) for v in (x, W0, A, B))
    r = A.shape[0]
    return W0 @ x + (alpha / r) * (B @ (A @ x))     # 原路 + 低秩旁路；先算 A @ x 只要 r 个数
''',
    hints=["r 从哪里来？A 的形状是 (r, d_in)。",
           "不必真的算出 ΔW：W0 @ x 加上 (α/r) · B @ (A @ x)，结果和合并后再乘一样。"],
)


# ---- q7：检索打分排序 -------------------------------------------------------------
def _rank_ref(query_vec, doc_matrix, metric="dot"):
    return rank(query_vec, doc_matrix, metric=metric)


def _scores_dot(q, D):
    return np.asarray(D, float) @ np.asarray(q, float)


def _sort(scores):  # 从高到低，同分编号小的在前
    order = np.argsort(-scores, kind="stable")
    return order, scores[order]


def _rank_always_dot(query_vec, doc_matrix, metric="dot"):
    return _sort(_scores_dot(query_vec, doc_matrix))


def _rank_ascending(query_vec, doc_matrix, metric="dot"):
    s = _scores_dot(query_vec, doc_matrix)
    if metric == "cosine":
        dn = np.linalg.norm(doc_matrix, axis=1)
        s = np.divide(s, dn * np.linalg.norm(query_vec), out=np.zeros_like(s), where=dn > 0)
    order = np.argsort(s, kind="stable")
    return order, s[order]


def _rank_ties_reversed(query_vec, doc_matrix, metric="dot"):
    s = _scores_dot(query_vec, doc_matrix)
    if metric == "cosine":
        dn = np.linalg.norm(doc_matrix, axis=1)
        s = np.divide(s, dn * np.linalg.norm(query_vec), out=np.zeros_like(s), where=dn > 0)
    order = np.argsort(s, kind="stable")[::-1]
    return order, s[order]


def _rank_nan_zero_doc(query_vec, doc_matrix, metric="dot"):
    s = _scores_dot(query_vec, doc_matrix)
    if metric == "cosine":
        s = s / (np.linalg.norm(doc_matrix, axis=1) * np.linalg.norm(query_vec))
    return _sort(s)


def _rank_no_query_norm(query_vec, doc_matrix, metric="dot"):
    s = _scores_dot(query_vec, doc_matrix)
    if metric == "cosine":
        dn = np.linalg.norm(doc_matrix, axis=1)
        s = np.divide(s, dn, out=np.zeros_like(s), where=dn > 0)
    return _sort(s)


def _rank_random(rng):
    cases = []
    for n_docs, dim, metric in ((3, 2, "dot"), (5, 3, "cosine"), (8, 4, "dot"), (8, 4, "cosine")):
        q = rng.integers(0, 3, size=dim).astype(float)
        q[0] += 1.0  # 问题向量不为零
        cases.append(Case((q, rng.integers(0, 3, size=(n_docs, dim)).astype(float), metric)))
    return cases


_Q = np.array([1.0, 0.0])
_DOCS = np.array([[0.9, 0.1], [0.1, 0.9]])
_LONG = np.array([[0.9, 0.1], [1.0, 9.0]])

q7 = FunctionExercise(
    "17.7", "实现检索的打分与排序：点积或余弦，分数从高到低",
    name="my_rank", reference=_rank_ref,
    cases=[Case((_Q, _DOCS, "dot"), note="17.4 节的玩具例子"),
           Case((_Q, _LONG, "dot"), note="第二篇长了十倍：点积被长度放大"),
           Case((_Q, _LONG, "cosine"), note="同一组文档，改用余弦"),
           Case((np.array([1.0, 1.0]), np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]), "dot"),
                note="两篇同分：编号小的在前"),
           Case((np.array([3.0, 4.0]), np.array([[3.0, 4.0], [4.0, 3.0], [1.0, 0.0]]), "cosine"),
                note="问题向量的长度不是 1"),
           Case((_Q, np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]]), "cosine"),
                note="有一篇文档是零向量：余弦记为 0")],
    random_cases=_rank_random,
    mistakes=[Mistake("顺序反了：应从分数最高的排起。", _rank_ascending),
              Mistake("metric='cosine' 时要除以两个向量的长度；你的函数总是用点积。", _rank_always_dot),
              Mistake("同分时应让编号小的在前；把升序结果倒过来会让同分的编号变成从大到小。"
                      "用 np.argsort(-scores, kind='stable')。", _rank_ties_reversed),
              Mistake("余弦只除了文档的长度，忘了除以问题向量的长度。", _rank_no_query_norm),
              Mistake("零向量文档的余弦是 0/0 = NaN；约定它的分数记为 0。", _rank_nan_zero_doc)],
    stub='''def my_rank(query_vec, doc_matrix, metric="dot"):
    """query_vec：长度 d 的问题向量（不是零向量）；doc_matrix：(文档数, d)，每行一篇文档；
    metric："dot"（点积）或 "cosine"（余弦；零向量文档的分数记为 0）。
    返回 (order, scores)：order 是文档编号，按分数从高到低排（同分时编号小的在前），
    scores 是与 order 对应的分数。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_rank(query_vec, doc_matrix, metric="dot"):
    q, D = np.asarray(query_vec, dtype=float), np.asarray(doc_matrix, dtype=float)
    scores = D @ q
    if metric == "cosine":
        dn = np.linalg.norm(D, axis=1)
        scores = np.divide(scores, dn * np.linalg.norm(q), out=np.zeros_like(scores), where=dn > 0)
    order = np.argsort(-scores, kind="stable")       # 从高到低；stable 让同分的保持编号顺序
    return order, scores[order]
''',
    hints=["先算每篇文档的分数：D @ q 就是所有点积。",
           "余弦 = 点积 / (|d| · |q|)；|d| 为 0 的文档直接记 0（np.divide 的 where 参数）。",
           "排序用 np.argsort(-scores, kind='stable')：从高到低，同分时编号小的在前。"],
)


# ---- q8：实验——记录里没有的 β ---------------------------------------------------------
# 记录 dpo_reviews 在 25、50、100 步都量过；练习跑 50 步：25 步时相邻 β 的差别还淹没在评测的抽样误差里，
# 100 步又超出单核半分钟的预算。种子固定为 0（和 17.2 现场那一格一样），所以范围用记录里种子 0 的值。
DPO_STEPS, DPO_SEED = 50, 0


@functools.lru_cache(maxsize=1)
def _dpo_record() -> dict:
    """记录里每个 β 在种子 0、DPO_STEPS 步时的 (奖励, KL)，以及评测抽样的标准误 (奖励, KL)。

    标准误由记录里逐条的结果算（最后一步、种子 0 的 192 个留出提示：标准差 / √192）；那是 100 步时的，
    KL 比 50 步时大，所以这个误差偏大一些，只会让范围更宽。"""
    from ..spread import load_record, record_path
    rec = load_record(record_path("dpo_reviews"))
    s, res = rec["settings"], rec["results"]
    i = list(rec["seeds"]).index(DPO_SEED)
    point, se = {}, {}
    for b in s["betas"]:
        r = res[f"beta={b:g}"]
        point[b] = (r[f"reward@{DPO_STEPS}"].values[i], r[f"kl@{DPO_STEPS}"].values[i])
        rows = s["items"][f"beta={b:g}"]
        se[b] = tuple(float(np.std(rows[k][i], ddof=1) / math.sqrt(len(rows[k][i]))) for k in ("reward", "kl"))
    return {"betas": tuple(sorted(s["betas"])), "point": point, "se": se}


def _beta_neighbours(beta: float) -> tuple:
    betas = _dpo_record()["betas"]
    return max(b for b in betas if b < beta), min(b for b in betas if b > beta)


def _validate_beta(beta):
    b = as_number(beta)
    if b is None or not math.isfinite(b):
        return f"β 要是一个数（如 0.5），收到 {describe(beta)}。"
    betas = _dpo_record()["betas"]
    listed = "、".join(f"{v:g}" for v in betas)
    if not betas[0] < b < betas[-1]:
        return (f"β 要在 {betas[0]:g} 与 {betas[-1]:g} 之间（不含两端），收到 {b:g}：范围由两边相邻的记录值推出，"
                "记录之外没有依据。")
    if any(math.isclose(b, v, rel_tol=1e-9) for v in betas):
        return f"β = {b:g} 记录里已经有了（记录有 {listed}）；换一个记录里没有的值，如 0.5。"
    return None


def _beta_band(beta) -> dict:
    rec = _dpo_record()
    near = _beta_neighbours(float(beta))
    out = {}
    for j, name in enumerate(("reward", "kl")):
        vals = [rec["point"][b][j] for b in near]
        pad = max(rec["se"][b][j] for b in near)
        out[name] = (min(vals) - pad, max(vals) + pad)
    return out


def _beta_outcome(beta, result) -> str:
    rec = _dpo_record()
    near = [rec["point"][b] for b in _beta_neighbours(float(beta))]
    reward, kl = float(result["reward"]), float(result["kl"])
    if kl > max(p[1] for p in near):
        return "C"
    if kl < min(p[1] for p in near):
        return "D"
    return "A" if min(p[0] for p in near) <= reward <= max(p[0] for p in near) else "B"


_DPO_RUN = """    from nlpbook import tuning as TU
    from nlpbook.datasets import load_reviews
    from nlpbook.spread import load_record, record_path
    from nlpbook.tiny_transformer import load_pretrained
    dpo_rec = load_record(record_path("dpo_reviews"))            # 17.2 的记录：设置与现场那一格相同
    D = dpo_rec["settings"]
    lm = load_pretrained()
    review_splits = load_reviews(tokenize=False)                 # 评委只看字，用不着分词
    judge = TU.fit_judge(review_splits["train"], chars=D["judge_chars"], epochs=D["judge_epochs"], lr=D["judge_lr"])
    reward_fn = lambda P, C: judge.reward(TU.continuation_texts(lm.decode, P, C))
    train_prompts, eval_prompts = (
        TU.review_prompts(lm.encode, review_splits[split], D[n], D["prompt_chars"], D[seed], D["min_chars"])
        for split, n, seed in (("train", "n_train_prompts", "train_prompt_seed"),
                               ("validation", "n_eval", "eval_prompt_seed")))
    chosen, rejected, _ = TU.preference_pairs(lm.params, train_prompts, D["n_new"], reward_fn, seed=0,
                                              min_gap=D["min_gap"])
    dpo_eval = lambda P: TU.evaluate_policy(P, lm.params, eval_prompts, D["n_new"], reward_fn, seed=D["eval_seed"])
    _, hist = TU.train_dpo(lm.params, chosen, rejected, beta=beta_8, steps=50, batch_size=D["batch_size"],
                           lr=D["lr"], seed=0, clip=D["clip"], eval_at=[50], eval_fn=dpo_eval, progress=True)
    result_8 = {"reward": hist[-1]["reward"], "kl": hist[-1]["kl"]}
    print(f"你的 β = {beta_8:g}（种子 0，50 步）：奖励 {result_8['reward']:.3f}，KL {result_8['kl']:.2f} 奈特")
    for b in (max(b for b in D["betas"] if b < beta_8), min(b for b in D["betas"] if b > beta_8)):
        r = dpo_rec["results"][f"beta={b:g}"]
        print(f"记录里相邻的 β = {b:g}（种子 0，50 步）：奖励 {r['reward@50'].values[0]:.3f}，"
              f"KL {r['kl@50'].values[0]:.2f} 奈特")
"""

_DPO_STUB_HEAD = (
    'prediction_8 = None   # 先预测，跑之前填好："A" KL 和奖励都在相邻两个 β 之间；"B" KL 在两者之间、奖励不在；'
    '"C" KL 比两者都大；"D" KL 比两者都小\n'
    "beta_8 = None         # 你要试的 β：0.05 与 1 之间、记录里没有的数（记录有 0.05、0.1、0.3、1），如 0.5\n"
    "result_8 = None\n"
    "if beta_8 is not None:   # 单核约 20 秒：采偏好对、训练 50 步、在留出提示上评测\n")
_DPO_FILLED_HEAD = 'prediction_8 = "A"\nbeta_8 = 0.5\nresult_8 = None\nif beta_8 is not None:\n'
_DPO_TAIL = 'answer_8 = {"prediction": prediction_8, "setting": beta_8, "result": result_8}\n'

q8 = ExperimentExercise(
    "17.8", "换一个记录里没有的 β 做一次 DPO，它落在“奖励—KL”平面上的什么位置？",
    options={"A": "KL 和奖励都落在相邻两个记录 β 的值之间",
             "B": "KL 落在两者之间，奖励却比两者都高或都低",
             "C": "KL 比相邻两个 β 的都大",
             "D": "KL 比相邻两个 β 的都小"},
    outcome=_beta_outcome,
    reasons={"A": "β 是偏离参考模型的“价格”：同一批偏好对、同样的小批量顺序下，β 越大，σ(β × 差距) 越早饱和、"
                  "梯度越早变小，50 步里离参考模型越近。β 夹在两个记录值之间，KL 也就夹在它们的 KL 之间；"
                  "奖励跟着 KL 走（图 17.2 那条很快变平的曲线），也落在两者之间。",
             "B": "KL 的先后由 β 决定，奖励却是 192 个留出提示上各采一条续写、由评委打分的平均，"
                  "评测抽样误差约 0.014；相邻两个 β 的奖励本来只差零点零几，有时比这个误差还小，"
                  "所以落到两者之外并不奇怪，也不说明你的 β 更好或更差。",
             "C": "相邻两个记录 β 的 KL 很接近时（0.05 与 0.1 在 50 步时只差约 0.34 奈特），"
                  "KL 的采样估计误差（记录里约 0.3—0.4 奈特）盖过了 β 的作用：β 稍一变，就有几条续写采出不同的字，"
                  "平均值跟着跳。KL 比两边都大，不说明 β 失效，只说明一个种子、50 步分辨不出这么小的差别。",
             "D": "相邻两个记录 β 的 KL 很接近时（0.05 与 0.1 在 50 步时只差约 0.34 奈特），"
                  "KL 的采样估计误差（记录里约 0.3—0.4 奈特）盖过了 β 的作用：β 稍一变，就有几条续写采出不同的字，"
                  "平均值跟着跳。KL 比两边都小，不说明 β 的作用反了，只说明一个种子、50 步分辨不出这么小的差别。"},
    validate=_validate_beta,
    band=_beta_band,
    basis="记录 dpo_reviews 里与它相邻的两个 β 在种子 0、训练 50 步时的奖励和 KL 之间，两边各放宽一个评测抽样"
          "标准误（由记录里这两个 β 逐条的结果算出：奖励约 0.014，KL 约 0.1—0.4 奈特）",
    hints=["只改 beta_8：其余照抄 17.2 现场那一格（种子 0），只是训练 50 步——记录里有这一步的值。",
           "先看图 17.2 下面打印的各 β 在 50 步时的 (KL, 奖励)：你的 β 夹在哪两个之间？β 越大，KL 越大还是越小？",
           "相邻两个 β 的 KL 差得比 KL 的抽样误差（约 0.3 奈特）还小时，结果的先后可能颠倒。"],
    answer="以 β = 0.5 为例（种子 0，50 步）：奖励约 0.618、KL 约 2.16 奈特，落在 β = 0.3（0.627、2.96）"
           "与 β = 1（0.578、1.28）之间——β 越大离参考模型越近，奖励也少拿一点，点落在两个记录点之间的前沿上。"
           "换到 0.05 与 0.1 之间（如 0.06、0.08），两个记录点的 KL 只差 0.34 奈特，比 KL 的抽样误差还小，"
           "结果常常落在两者之外：一个种子、50 步分辨不出这么近的两个 β。",
    stub=_DPO_STUB_HEAD + _DPO_RUN + _DPO_TAIL,
    filled=_DPO_FILLED_HEAD + _DPO_RUN + _DPO_TAIL,
)
