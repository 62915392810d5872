"""解码：同一组下一 token 概率，怎样选出下一个 token，以及怎样用困惑度评价模型。

包含温度、top-k、top-p、贪心、随机采样、beam search、逐步生成与困惑度（第 11.4—11.5 节）。
模型只通过一个函数接入：给前文编号列表，返回下一个 token 的 logits（或对数概率）。
不做的事：不做批量解码、重复惩罚、投机解码；不缓存前文的计算结果。
随机性只来自显式传入的 rng（np.random.Generator）。
"""
from __future__ import annotations

import math
import numbers
from typing import Callable, NamedTuple, Sequence

import numpy as np

from ._checks import as_float_array, check_id, check_ids, check_positive, check_rng
from .functional import softmax

__all__ = ["apply_temperature", "top_k_filter", "top_p_filter", "greedy", "sample", "decode_step",
           "Hypothesis", "beam_search", "token_losses", "perplexity_from_probs", "generate"]

_SUM_TOL = 1e-6  # 概率向量的和与 1 的允许误差


def _check_distribution(probs, name: str = "probs") -> np.ndarray:
    """检查 probs 是一维概率分布：非负、有限、和为 1（误差 1e-6 内）。"""
    p = as_float_array(probs, name)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"{name} 必须是非空的一维概率向量（每个候选一个概率），收到形状 {p.shape}")
    if np.any(p < 0):
        raise ValueError(f"{name} 不是概率分布：含有负数（最小值 {p.min():.4g}）")
    s = float(p.sum())
    if abs(s - 1.0) > _SUM_TOL:
        raise ValueError(f"{name} 不是概率分布：各项之和应为 1，收到 {s:.6g}；"
                         "若手里是 logits，请先用 apply_temperature 或 softmax")
    return p


def _check_temperature(temperature) -> float:
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise TypeError(f"temperature 必须是数，收到 {type(temperature).__name__}")
    t = float(temperature)
    if math.isnan(t):
        raise ValueError("temperature 不能是 NaN；允许 0（贪心）或正的有限数")
    if t < 0:
        raise ValueError(f"temperature 必须 >= 0，收到 {temperature}")
    if math.isinf(t):
        raise ValueError("temperature 必须是有限数，收到 inf；想要接近均匀分布，请用一个大的有限值")
    return t


def _check_logits(logits) -> np.ndarray:
    """一维有限分数；允许 -inf（表示该候选被屏蔽、概率为 0），但不能全是 -inf。"""
    z = as_float_array(logits, "logits", allow_neg_inf=True)
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"logits 必须是非空的一维向量（每个候选一个分数），收到形状 {z.shape}")
    if np.all(z == -np.inf):
        raise ValueError("logits 全是 -inf：所有候选都被屏蔽，没有可选的 token")
    return z


def apply_temperature(logits, temperature: float = 1.0) -> np.ndarray:
    """logits → 概率：softmax(z / T)。教学位置：第 11.4 节（温度）。

    T=1 保持原分布；T 越小越尖（T→0⁺ 时集中到最高分，并列最高分平分）；T 越大越接近均匀。
    约定：temperature=0 表示贪心——返回最高分位置的 one-hot 分布；并列最高分取编号最小的那个。
    （0 不能直接代入公式，这是接口约定，见课文。）
    logits 里的 -inf 表示屏蔽（概率恰为 0）。
    例：apply_temperature([2, 0, 1], 0) -> [1, 0, 0]
    """
    t = _check_temperature(temperature)
    z = _check_logits(logits)
    if t == 0.0:
        out = np.zeros_like(z)
        out[int(np.argmax(z))] = 1.0  # argmax 在并列时返回第一个
        return out
    shifted = z - z.max()
    with np.errstate(over="ignore"):
        scaled = shifted / t
    # T 极小时 (z - max)/T 可能下溢为 -inf；此时对应概率本来就是 0，截到一个很负的有限数即可
    scaled = np.maximum(scaled, -1e300)
    return softmax(scaled)


def top_k_filter(probs, k: int) -> np.ndarray:
    """只保留概率最高的 k 个候选，其余置 0，再重新归一化。教学位置：第 11.4 节。

    k 必须是 >= 1 的整数；k 大于候选数时不做任何过滤。边界上概率并列时，保留编号小的。
    例：top_k_filter([0.6, 0.3, 0.1], 2) -> [2/3, 1/3, 0]
    """
    p = _check_distribution(probs)
    check_positive(k, "k", integer=True)
    if k >= p.size:
        return p / p.sum()
    keep = np.argsort(-p, kind="stable")[:k]  # 稳定排序：并列时编号小的在前
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()


def top_p_filter(probs, p: float) -> np.ndarray:
    """top-p（nucleus）：按概率从大到小累加，保留累计概率刚达到 p 的最短前缀，再重新归一化。

    教学位置：第 11.4 节。0 < p <= 1；至少保留一个候选；并列时编号小的在前。
    比较“累计 >= p”时留 1e-9 的浮点余量（0.6 + 0.3 在浮点里是 0.8999…，仍算达到 0.9）。
    例：top_p_filter([0.6, 0.3, 0.1], 0.8) -> [2/3, 1/3, 0]（保留电影、音乐）
    """
    probs = _check_distribution(probs)
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"p 必须是数，收到 {type(p).__name__}")
    if not (0 < p <= 1):  # NaN 也在这里被拒绝
        raise ValueError(f"p 必须满足 0 < p <= 1，收到 {p}")
    order = np.argsort(-probs, kind="stable")
    cum = np.cumsum(probs[order]) / probs.sum()
    m = min(int(np.searchsorted(cum, p - 1e-9, side="left")) + 1, probs.size)
    out = np.zeros_like(probs)
    out[order[:m]] = probs[order[:m]]
    return out / out.sum()


def greedy(probs) -> int:
    """贪心：直接选概率最大的编号；并列时选编号最小的。教学位置：第 11.4 节。

    例：greedy([0.6, 0.3, 0.1]) -> 0（电影）
    """
    return int(np.argmax(_check_distribution(probs)))


def sample(probs, rng: np.random.Generator) -> int:
    """按概率随机抽一个编号（逆分布函数法，概率为 0 的候选永远不会被抽到）。教学位置：第 11.4 节。

    rng 必须是 np.random.Generator；同一个种子得到同样的结果。
    """
    p = _check_distribution(probs)
    check_rng(rng)
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return int(min(np.searchsorted(cdf, rng.random(), side="right"), p.size - 1))


def decode_step(logits, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None,
                rng: np.random.Generator | None = None) -> tuple[int, np.ndarray]:
    """一步解码：温度 → top-k → top-p（按这个顺序），然后选词。教学位置：第 11.4 节。

    temperature=0 时按贪心选（不需要 rng）；temperature>0 时随机采样，必须给 rng。
    返回 (选中的编号, 过滤并归一化后的最终分布)。
    """
    probs = apply_temperature(logits, temperature)
    if top_k is not None:
        probs = top_k_filter(probs, top_k)
    if top_p is not None:
        probs = top_p_filter(probs, top_p)
    if float(temperature) == 0.0:
        return int(np.argmax(probs)), probs
    if rng is None:
        raise TypeError("temperature > 0 时要随机采样，需要显式的 rng=np.random.default_rng(种子)；"
                        "想要确定的结果请用 temperature=0（贪心）")
    return sample(probs, rng), probs


def generate(next_logits_fn: Callable[[list[int]], Sequence[float]], prompt_ids, max_new_tokens: int,
             temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None,
             rng: np.random.Generator | None = None, eos_id: int | None = None) -> list[int]:
    """逐步生成：每步调用 next_logits_fn(当前全部编号) 得到 logits，用 decode_step 选词并接到后面。

    教学位置：第 11.3 节（用自己刚写的前文继续）、第 11.4 节。
    生成 max_new_tokens 个，或选到 eos_id 时停止（eos_id 会包含在结果里）。
    返回 prompt 加上新生成的编号；同一个 rng 种子得到同样的结果。
    """
    ids = check_ids(prompt_ids, "prompt_ids")
    check_positive(max_new_tokens, "max_new_tokens", integer=True, allow_zero=True)
    if eos_id is not None:
        check_id(eos_id, "eos_id")
    if not callable(next_logits_fn):
        raise TypeError("next_logits_fn 必须是函数：输入编号列表，返回下一个 token 的 logits")
    for _ in range(max_new_tokens):
        tok, _probs = decode_step(next_logits_fn(list(ids)), temperature, top_k, top_p, rng)
        ids.append(tok)
        if eos_id is not None and tok == eos_id:
            break
    return ids


class Hypothesis(NamedTuple):
    """beam search 的一条结果：完整编号序列、总对数概率、排序用的分数、是否以 EOS 结束。"""
    ids: list
    logprob: float
    score: float
    finished: bool


def _length_norm(n_new: int, alpha: float) -> float:
    """GNMT 长度惩罚 lp = ((5 + 长度) / 6)^α；α=0 时为 1（不做长度处理）。"""
    return ((5.0 + n_new) / 6.0) ** alpha


def _check_logprobs(lp, name: str = "step_fn 的返回值") -> np.ndarray:
    lp = np.asarray(lp, dtype=float)
    if lp.ndim != 1 or lp.size == 0:
        raise ValueError(f"{name} 必须是非空一维对数概率向量，收到形状 {lp.shape}")
    if np.any(np.isnan(lp)) or np.any(lp == np.inf):
        raise ValueError(f"{name} 含有 NaN 或 +inf；只允许 <= 0 的对数概率（-inf 表示概率 0）")
    m = lp.max()
    total = m + math.log(np.exp(lp - m).sum()) if np.isfinite(m) else -math.inf
    if abs(total) > 1e-6:
        raise ValueError(f"{name} 必须是对数概率（exp 之和为 1），收到 exp 之和 {math.exp(total):.6g}；"
                         "若手里是 logits，请先用 functional.log_softmax")
    return lp


def beam_search(step_fn: Callable[[list[int]], Sequence[float]], start, beam_width: int, max_len: int,
                eos_id: int, length_penalty: float = 0.0) -> list[Hypothesis]:
    """beam search：每步保留 beam_width 条总对数概率最高的未完成前缀。教学位置：第 11.4 节。

    step_fn(前缀编号列表) 返回下一 token 的对数概率（exp 之和为 1，-inf 表示不可能）。
    每步把所有“前缀 + 一个 token”按总对数概率排序：排在前 beam_width 名里、以 eos_id 结尾的
    收进“已完成”列表（放在一边，不再扩展）；未结束的取前 beam_width 条继续。最多生成 max_len 个新 token，
    到时仍未结束的也作为候选（finished=False）。
    长度处理：排序分数 score = logprob / ((5 + 新 token 数) / 6)^α（GNMT 式，α = length_penalty >= 0，
    EOS 计入长度）。α=0 即整句对数概率（默认，越短的句子乘的概率越少，天然占便宜）；α 越大越偏向长句。
    当已完成的第 beam_width 好分数不低于任何未完成前缀可能达到的最高分时提前停止。
    返回按 score 从高到低的至多 beam_width 条 Hypothesis（ids 含 start）。
    """
    start = check_ids(start, "start")
    check_positive(beam_width, "beam_width", integer=True)
    check_positive(max_len, "max_len", integer=True)
    check_id(eos_id, "eos_id")
    check_positive(length_penalty, "length_penalty", allow_zero=True)
    if not callable(step_fn):
        raise TypeError("step_fn 必须是函数：输入前缀编号列表，返回下一个 token 的对数概率")
    alpha = float(length_penalty)
    beams: list[tuple[list[int], float]] = [(start, 0.0)]
    finished: list[Hypothesis] = []
    for step in range(1, max_len + 1):
        cands = []
        for seq, score in beams:
            lp = _check_logprobs(step_fn(list(seq)))
            best = np.argsort(-lp, kind="stable")[:beam_width]  # 每条前缀只需看自己的前 beam_width 个
            cands.extend((score + float(lp[t]), seq + [int(t)]) for t in best if np.isfinite(lp[t]))
        cands.sort(key=lambda c: -c[0])  # 稳定排序：分数相同按产生的先后
        beams = []
        for rank, (score, seq) in enumerate(cands):
            if seq[-1] == eos_id:
                if rank < beam_width:
                    finished.append(Hypothesis(seq, score, score / _length_norm(step, alpha), True))
            elif len(beams) < beam_width:
                beams.append((seq, score))
        if not beams:
            break
        if len(finished) >= beam_width:
            kth = sorted(h.score for h in finished)[-beam_width]
            # 对数概率只会越加越小；除以更大的 lp 最多把它拉回到 best / lp(max_len)
            bound = max(s for _, s in beams) / _length_norm(max_len, alpha)
            if kth >= bound:
                beams = []
                break
    pool = finished + [Hypothesis(seq, s, s / _length_norm(len(seq) - len(start), alpha), False)
                       for seq, s in beams]
    pool.sort(key=lambda h: -h.score)
    return pool[:beam_width]


def token_losses(probs_of_true_tokens) -> np.ndarray:
    """每个真实 token 的损失 -ln p。教学位置：第 11.5 节。

    例：token_losses([0.5, 0.25, 0.125]) -> [0.693, 1.386, 2.079]；p=0 的损失是 inf。
    """
    p = as_float_array(probs_of_true_tokens, "probs_of_true_tokens")
    p = p.reshape(-1)
    if p.size == 0:
        raise ValueError("probs_of_true_tokens 不能为空：至少需要一个真实 token 的概率")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("probs_of_true_tokens 是概率，必须在 [0, 1] 之内")
    with np.errstate(divide="ignore"):
        return -np.log(p)


def perplexity_from_probs(probs_of_true_tokens) -> float:
    """困惑度 PPL = exp(平均损失)，平均损失 = 每个真实 token 的 -ln p 的平均。教学位置：第 11.5 节。

    例：[0.5, 0.25, 0.125] -> 平均损失 1.386 -> PPL 4；每步都是 1/4 也得到 4。
    有一个 p=0 时 PPL 为 inf（模型认为真实文本不可能出现）。
    """
    return float(math.exp(float(np.mean(token_losses(probs_of_true_tokens)))))
