"""Word2Vec：第 7 章的 CBOW 手算例子、Skip-gram 词对、负采样，以及用 numpy 真正训练 SGNS 词向量。

cbow_*、skipgram_*、sgns_forward_backward 逐步对应课文的小数字，梯度手写并用有限差分检验；
train_sgns 在真实语料上训练 Skip-gram + 负采样（SGNS），做法与 word2vec 的 C 代码 / gensim 一致：
高频词下采样、动态窗口、噪声分布 count^0.75、学习率线性衰减、W_in 小随机数 / W_out 全零初始化。
不做的事：不实现层次 softmax、不做 CBOW 的大规模训练、不用多线程、不做短语检测；
最近邻查询在 nlpbook.embedding（nearest）。
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._checks import as_float_array, as_id_array, check_id, check_positive
from .functional import cross_entropy, sigmoid, softmax
from .optim import single_thread_blas

__all__ = ["cbow_forward", "cbow_backward", "cbow_step", "skipgram_pairs", "cbow_examples",
           "skipgram_forward_backward", "negative_sampling_loss", "sgns_forward_backward",
           "noise_distribution", "subsample_keep_prob", "train_sgns", "SGNSModel"]


def _tables(W_in, W_out):
    W_in, W_out = as_float_array(W_in, "W_in"), as_float_array(W_out, "W_out")
    for name, W in (("W_in", W_in), ("W_out", W_out)):
        if W.ndim != 2 or 0 in W.shape:
            raise ValueError(f"{name} 必须是非空的二维数组 (词数, 维数)，收到形状 {W.shape}")
    if W_in.shape[1] != W_out.shape[1]:
        raise ValueError(f"W_in 与 W_out 的维数必须相同，收到 {W_in.shape[1]} 和 {W_out.shape[1]}")
    return W_in, W_out


def _token_list(tokens, window) -> list:
    check_positive(window, "window", integer=True)
    if isinstance(tokens, (str, bytes)):
        raise TypeError(f"tokens 必须是 token 列表（如 ['我', '喜欢']），收到一个字符串 {tokens!r}；请先分词")
    try:
        return list(tokens)
    except TypeError as exc:
        raise TypeError(f"tokens 必须是 token 列表，收到 {type(tokens).__name__}") from exc


# ---------- 7.2—7.4 全 softmax 的 CBOW ----------

def _cbow(W_in, W_out, context_ids, target):
    W_in, W_out = _tables(W_in, W_out)
    ctx = as_id_array(context_ids, "context_ids", size=len(W_in), allow_empty=False).reshape(-1)
    return W_in, W_out, ctx, check_id(target, "target", size=len(W_out))


def cbow_forward(W_in, W_out, context_ids, target) -> dict:
    """CBOW 前向：上下文词向量取平均 → 与每个候选的输出向量做点积 → softmax → 交叉熵。

    教学位置：第 7.2—7.3 节。例：喜欢 [1,0]、电影 [0,1]，候选 看 [2,2]/吃 [0,0]/买 [1,1]，
    答案“看” -> scores [2, 0, 1]，probs [0.665, 0.090, 0.245]，loss 0.408。
    """
    W_in, W_out, ctx, t = _cbow(W_in, W_out, context_ids, target)
    hidden = W_in[ctx].mean(axis=0)
    scores = W_out @ hidden
    return {"hidden": hidden, "scores": scores, "probs": softmax(scores), "loss": cross_entropy(scores, t)}


def cbow_backward(W_in, W_out, context_ids, target) -> dict:
    """CBOW 反向：d_scores = probs − one-hot；d_hidden = W_outᵀ·d_scores；平均把它平分给每个上下文词。

    教学位置：第 7.4 节。例：d_scores [−0.335, 0.090, 0.245]，d_hidden [−0.425, −0.425]，每词 [−0.212, −0.212]。
    d_inputs 的第 i 行对应 context_ids[i]；d_W_out 是 d_scores 与 hidden 的外积。
    """
    f = cbow_forward(W_in, W_out, context_ids, target)
    _, W_out, ctx, t = _cbow(W_in, W_out, context_ids, target)
    d_scores = f["probs"].copy()
    d_scores[t] -= 1.0
    d_hidden = W_out.T @ d_scores
    return {"d_scores": d_scores, "d_hidden": d_hidden,
            "d_inputs": np.tile(d_hidden / len(ctx), (len(ctx), 1)), "d_W_out": np.outer(d_scores, f["hidden"])}


def cbow_step(W_in, W_out, context_ids, target, lr: float, update_output: bool = True):
    """一步梯度下降，返回新的 (W_in, W_out)，不修改传入的数组。

    教学位置：第 7.4 节。例：lr=0.1、update_output=False -> 喜欢 [1.021, 0.021]，电影 [0.021, 1.021]。
    同一个词在上下文里出现两次时，它的两份梯度相加。
    """
    check_positive(lr, "lr")
    g = cbow_backward(W_in, W_out, context_ids, target)
    W_in, W_out, ctx, _ = _cbow(W_in, W_out, context_ids, target)
    new_in = W_in.copy()
    np.add.at(new_in, ctx, -lr * g["d_inputs"])
    return new_in, (W_out - lr * g["d_W_out"] if update_output else W_out.copy())


# ---------- 7.1、7.5 训练样本与全 softmax 的 Skip-gram ----------

def _pair_positions(sent: np.ndarray, reach: np.ndarray, window: int):
    """向量化地列出 (中心位置, 周围位置)：同一句内、距离 ≤ reach[中心] 的邻居；先按中心、再按位置排序。"""
    offs = np.r_[-window:0, 1:window + 1]
    pos = np.arange(len(sent))[:, None] + offs
    ok = (pos >= 0) & (pos < len(sent)) & (np.abs(offs) <= reach[:, None])
    pos = np.clip(pos, 0, max(len(sent) - 1, 0))
    ok &= sent[pos] == sent[:, None]
    center, k = np.nonzero(ok)
    return center, pos[center, k]


def skipgram_pairs(tokens, window: int) -> list[tuple]:
    """Skip-gram 的 (中心词, 周围词) 词对：每个位置，左右各取 window 个邻居，按原文顺序。

    教学位置：第 7.5 节。例：skipgram_pairs(['我','喜欢','看','电影'], 1) ->
    [('我','喜欢'), ('喜欢','我'), ('喜欢','看'), ('看','喜欢'), ('看','电影'), ('电影','看')]
    """
    tokens = _token_list(tokens, window)
    n = len(tokens)
    c, o = _pair_positions(np.zeros(n, dtype=np.int64), np.full(n, window), int(window))
    return [(tokens[i], tokens[j]) for i, j in zip(c.tolist(), o.tolist())]


def cbow_examples(tokens, window: int) -> list[tuple[list, object]]:
    """CBOW 的填空题 (上下文词列表, 中心词)：上下文是左右各 window 个邻居（左边在前）。

    教学位置：第 7.1 节。例：cbow_examples(['我','喜欢','看','电影'], 1)[2] -> (['喜欢', '电影'], '看')
    没有任何邻居的位置（只有一个词的句子）不产生样本。
    """
    tokens = _token_list(tokens, window)
    out = [(tokens[max(0, i - window):i] + tokens[i + 1:i + 1 + window], t) for i, t in enumerate(tokens)]
    return [(ctx, t) for ctx, t in out if ctx]


def skipgram_forward_backward(W_in, W_out, center, context) -> dict:
    """全 softmax 的 Skip-gram：中心词向量给所有候选打分，预测周围词；返回损失和梯度。

    教学位置：第 7.5 节。d_center 是对 W_in[center] 的梯度，d_W_out 是对整张 W_out 的梯度。
    """
    W_in, W_out = _tables(W_in, W_out)
    c, o = check_id(center, "center", size=len(W_in)), check_id(context, "context", size=len(W_out))
    scores = W_out @ W_in[c]
    d_scores = softmax(scores)
    d_scores[o] -= 1.0
    return {"loss": cross_entropy(scores, o), "d_center": W_out.T @ d_scores, "d_W_out": np.outer(d_scores, W_in[c])}


# ---------- 7.6 负采样 ----------

def negative_sampling_loss(pos_score, neg_scores) -> float:
    """负采样损失 −ln σ(真实词对得分) − Σ ln σ(−噪声词对得分)，用 logaddexp 计算，稳定。

    教学位置：第 7.6 节。例：negative_sampling_loss(2, [-1]) -> 0.440（= 0.127 + 0.313）
    """
    pos = as_float_array(pos_score, "pos_score")
    if pos.ndim:
        raise ValueError(f"pos_score 必须是一个数，收到形状 {pos.shape}")
    neg = as_float_array(neg_scores, "neg_scores").reshape(-1)
    return float(np.logaddexp(0.0, -pos) + np.logaddexp(0.0, neg).sum())


def sgns_forward_backward(v_center, u_pos, u_negs) -> dict:
    """一个 SGNS 样本：中心词向量 v、真实周围词的输出向量 u_pos、k 个噪声词的输出向量 u_negs (k, d)。

    教学位置：第 7.6 节。返回 loss 与对 v、u_pos、u_negs 的梯度：d(真实得分) = σ(s) − 1，d(噪声得分) = σ(s)。
    例：v=[1,1]、u_pos=[1,1]、u_negs=[[-0.5,-0.5]]（得分 2 和 −1）-> loss 0.440
    """
    v, u, U = as_float_array(v_center, "v_center"), as_float_array(u_pos, "u_pos"), as_float_array(u_negs, "u_negs")
    if v.ndim != 1 or u.shape != v.shape:
        raise ValueError(f"v_center 和 u_pos 必须是等长的一维向量，收到形状 {v.shape} 和 {u.shape}")
    if U.ndim != 2 or U.shape[1] != len(v):
        raise ValueError(f"u_negs 必须是形状 (k, {len(v)}) 的二维数组，收到 {U.shape}")
    s_pos, s_neg = float(v @ u), U @ v
    g_pos, g_neg = sigmoid(s_pos) - 1.0, sigmoid(s_neg)
    return {"loss": negative_sampling_loss(s_pos, s_neg), "d_center": g_pos * u + U.T @ g_neg,
            "d_pos": g_pos * v, "d_negs": np.outer(g_neg, v)}


def _counts(counts) -> np.ndarray:
    c = as_float_array(counts, "counts")
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"counts 必须是非空的一维数组（每个词的出现次数），收到形状 {c.shape}")
    if np.any(c < 0) or c.sum() <= 0:
        raise ValueError("counts 不能有负数，且至少要有一个词出现过")
    return c


def noise_distribution(counts, power: float = 0.75) -> np.ndarray:
    """噪声词的抽样概率 ∝ count^power（word2vec 用 0.75：比按频率抽更常抽到中低频词）。

    教学位置：第 7.6 节。例：noise_distribution([16, 1]) -> [0.889, 0.111]（按频率则是 0.941、0.059）
    """
    check_positive(power, "power", allow_zero=True)
    c = _counts(counts)
    p = np.zeros_like(c)
    p[c > 0] = c[c > 0] ** power                       # 没出现过的词永远不会被抽到
    return p / p.sum()


def subsample_keep_prob(counts, t: float = 1e-4) -> np.ndarray:
    """高频词下采样：词每出现一次被保留的概率。公式取自 word2vec 的 C 代码（gensim 相同）：

    keep = (sqrt(f / (t·N)) + 1) · (t·N) / f，超过 1 的截为 1（f 为该词次数，N 为总词数）。
    教学位置：第 7.6 节（实现细节）。频率低于约 t 的词总是保留；“的”“，”这类词大多被丢掉。
    例：subsample_keep_prob([1000, 100, 10, 1, 0], t=1e-2) -> [0.117, 0.444, 1, 1, 1]
    """
    check_positive(t, "t")
    c = _counts(counts)
    thr = t * c.sum()
    with np.errstate(divide="ignore"):
        return np.minimum((np.sqrt(c / thr) + 1.0) * thr / c, 1.0)


# ---------- 真实训练：向量化的 SGNS ----------

@dataclass
class SGNSModel:
    """train_sgns 的结果：W_in（词向量，每行一个词）、W_out（输出侧向量）、
    loss_history（每段语料上每个词对的平均损失）、n_pairs（训练过的词对总数）。"""
    W_in: np.ndarray
    W_out: np.ndarray
    loss_history: list = field(default_factory=list)
    n_pairs: int = 0


def _sgns_batch(W_in, W_out, inputs, out_ids, alpha) -> float:
    """一个小批量：inputs 是输入词（查 W_in），out_ids 第 0 列是真实答案、其余是噪声词（查 W_out）。

    原地更新两张表，返回损失之和；结果等于把每个词对的梯度用 np.add.at 累加后走一步，但不用按行的
    np.add.at（它很慢）：取行用 np.take（比花式索引快），同一个词的梯度按排序后分段求和（np.add.reduceat）
    或先汇总系数再做矩阵乘法。
    """
    V, (n, k1) = len(W_out), out_ids.shape
    order = np.argsort(inputs, kind="stable")          # 输入词排好序：同一个词的位置挨在一起
    s = inputs[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    u_in = s[start]                                    # 批内不同的输入词（约 150 个）
    pos = np.empty(V, dtype=np.intp)
    pos[u_in] = np.arange(len(u_in))
    ip = pos[inputs]
    Vu = np.take(W_in, u_in, axis=0)
    v = np.take(Vu, ip, axis=0)                        # (B, d)
    flat = out_ids.reshape(-1)
    U2 = np.take(W_out, flat, axis=0)
    U = U2.reshape(n, k1, -1)                          # (B, 1+k, d)
    z = (U @ v[:, :, None])[:, :, 0]                   # 得分
    z[:, 1:] *= -1.0                                   # 噪声词对：要的是 σ(−s)
    np.maximum(z, -30.0, out=z)                        # 防止 exp 溢出（σ(−30) ≈ 1e-13）
    e = np.exp(-z)
    q = 1.0 / (1.0 + e)                                # σ(z)：判对的概率
    loss, g = -np.log(q), e * q                        # g = 1 − σ(z)
    g[:, 1:] *= -1.0
    hit = out_ids[:, 1:] == out_ids[:, :1]             # 抽到了真实答案本身：跳过（同 word2vec）
    g[:, 1:][hit] = 0.0
    loss[:, 1:][hit] = 0.0
    g *= alpha                                         # 沿负梯度方向走一步的系数
    dv = (g[:, None, :] @ U)[:, 0]
    W_in[u_in] = Vu + np.add.reduceat(np.take(dv, order, axis=0), start, axis=0)  # 同一输入词的梯度分段相加
    # W_out[j] += Σ g·v：批内只出现一次的 j 直接加；出现多次的 j 先按 (j, 输入词) 汇总系数，再乘 Vu（矩阵乘法）
    gf = g.reshape(-1)
    cnt = np.bincount(flat, minlength=V)
    once = cnt[flat] == 1
    i = np.flatnonzero(once)
    W_out[flat[i]] = np.take(U2, i, axis=0) + gf[i, None] * np.take(v, i // k1, axis=0)
    many = np.flatnonzero(cnt > 1)
    pos[many] = np.arange(len(many))
    i = np.flatnonzero(~once)
    G = np.bincount(pos[flat[i]] * len(u_in) + ip[i // k1], weights=gf[i], minlength=len(many) * len(u_in))
    W_out[many] += G.reshape(len(many), len(u_in)).astype(np.float32) @ Vu
    return float(loss.sum())


class _AliasSampler:
    """按给定概率 p 抽词编号的 Walker 别名表：建表 O(V)，每抽一次只要一个随机整数和一个随机小数。

    比在累积分布上二分查找快几倍，抽到每个词的概率严格等于 p（概率为 0 的词永远抽不到）。
    """

    def __init__(self, p: np.ndarray):
        self.ids = np.flatnonzero(p > 0)
        q = p[self.ids] / p[self.ids].sum() * len(self.ids)   # 平均为 1
        self.accept = np.ones(len(q))
        self.alias = np.arange(len(q))
        small, large = [i for i in range(len(q)) if q[i] < 1.0], [i for i in range(len(q)) if q[i] >= 1.0]
        while small and large:                         # 把“多余”的概率从大格子补到小格子里
            s, big = small.pop(), large.pop()
            self.accept[s], self.alias[s] = q[s], big
            q[big] -= 1.0 - q[s]
            (small if q[big] < 1.0 else large).append(big)

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        """抽 size 个编号（可以是形状）。例：_AliasSampler(np.array([0.5, 0, 0.5])).sample(rng, 4) 只含 0 和 2。"""
        slot = rng.integers(0, len(self.ids), size=size)
        slot = np.where(rng.random(size) < self.accept[slot], slot, self.alias[slot])
        return self.ids[slot]


def _corpus(sentences_ids, V: int):
    """句子列表 → (所有词编号连成的一维数组, 每个词属于第几句)；检查类型、范围、是否为空。"""
    if isinstance(sentences_ids, (str, bytes)) or not hasattr(sentences_ids, "__iter__"):
        raise TypeError("sentences_ids 必须是句子的列表，每句是词编号的列表，如 [[0, 5, 2], [3, 1]]")
    arrs = [np.asarray(s) for s in sentences_ids]
    if any(a.ndim != 1 for a in arrs):
        raise ValueError("sentences_ids 的每一句都必须是一维的词编号列表")
    lens = [a.size for a in arrs]
    if sum(lens) == 0:
        raise ValueError("语料为空：sentences_ids 里没有任何词")
    if max(lens) < 2:
        raise ValueError("没有任何词对：每句只有一个词；至少要有一句含两个以上的词")
    tokens = as_id_array(np.concatenate([a for a in arrs if a.size]), "sentences_ids 中的词编号", size=V)
    return tokens, np.repeat(np.arange(len(arrs)), lens)


def train_sgns(sentences_ids, vocab_size: int, counts, *, dim: int = 100, window: int = 5,
               negatives: int = 5, epochs: int = 1, lr: float = 0.025, min_lr: float = 0.0001,
               subsample: float | None = 1e-4, batch_size: int = 512, seed: int = 0,
               progress: bool = False) -> SGNSModel:
    """用 Skip-gram + 负采样在编号化的语料上训练词向量（float32，单线程，小批量）。

    教学位置：第 7.5—7.6 节的方法在《人民日报》语料上真正跑一遍。
    每轮：按 subsample_keep_prob 丢掉部分高频词（subsample=None 关闭）→ 每个中心词随机取 1..window 的
    有效窗口（动态窗口，同 word2vec）→ 按句子分段、向量化地生成词对 → 每对按 noise_distribution
    （用 Walker 别名表，每次抽样 O(1)）抽 negatives 个噪声词 → 每 batch_size 对更新一次。
    学习率按已处理的词数从 lr 线性降到 min_lr。与逐对 SGD 的区别：一个小批量里的梯度先相加再更新。
    方向同 word2vec 的 C 代码和 gensim：用周围词的 W_in 去预测中心词（W_out）。整个语料上词对集合相同，
    只是两张表的角色互换；实测这样得到的近邻比反过来更稳定、与 gensim 更一致。
    例：train_sgns([[0, 1, 2], [2, 1]], 3, [1, 2, 2], dim=8, window=1, subsample=None).W_in.shape -> (3, 8)
    """
    V = check_positive(vocab_size, "vocab_size", integer=True)
    for name, val in (("dim", dim), ("window", window), ("negatives", negatives), ("epochs", epochs),
                      ("batch_size", batch_size)):
        check_positive(val, name, integer=True)
    check_positive(lr, "lr")
    check_positive(min_lr, "min_lr", allow_zero=True)
    if min_lr > lr:
        raise ValueError(f"min_lr 不能大于 lr，收到 min_lr={min_lr}、lr={lr}")
    if subsample is not None:
        check_positive(subsample, "subsample")
    check_positive(seed, "seed", integer=True, allow_zero=True)
    c = _counts(counts)
    if len(c) != V:
        raise ValueError(f"counts 有 {len(c)} 个，应等于 vocab_size={V}")
    tokens, sent_of = _corpus(sentences_ids, V)
    n_tok, total_tok = len(tokens), epochs * len(tokens)

    rng = np.random.default_rng(seed)
    W_in = (rng.random((V, dim), dtype=np.float32) - np.float32(0.5)) / np.float32(dim)
    W_out = np.zeros((V, dim), dtype=np.float32)
    noise = _AliasSampler(noise_distribution(c))
    keep = subsample_keep_prob(c, subsample) if subsample is not None else np.ones(V)
    model = SGNSModel(W_in, W_out)
    chunk = max(4096, 16 * batch_size)                 # 每段约这么多个（下采样后的）词
    # 小批量里的矩阵乘法很小，多线程 BLAS 反而慢 2—3 倍，而且机器间结果的末位可能不同：训练时限定单线程
    with single_thread_blas():
        if progress:
            from tqdm.auto import tqdm  # 只在需要进度条时导入
            bar = tqdm(total=total_tok, desc="训练 SGNS（词）")
        for epoch in range(epochs):
            kept = np.flatnonzero(rng.random(n_tok) < keep[tokens])   # 下采样后留下的位置
            toks, sent = tokens[kept], sent_of[kept]
            reach = rng.integers(1, window + 1, size=len(toks))         # 动态窗口
            start = 0
            while start < len(toks):
                end = int(np.searchsorted(sent, sent[min(start + chunk, len(toks)) - 1], side="right"))  # 到句末
                ci, oi = _pair_positions(sent[start:end], reach[start:end], window)
                if len(ci):
                    out_ids = np.empty((len(ci), negatives + 1), dtype=np.int64)
                    out_ids[:, 0] = toks[start:end][ci]        # 答案：中心词
                    out_ids[:, 1:] = noise.sample(rng, (len(ci), negatives))
                    inputs, done = toks[start:end][oi], epoch * n_tok + kept[start:end][ci]  # 输入：周围词
                    loss = 0.0
                    for b in range(0, len(ci), batch_size):
                        alpha = np.float32(lr - (lr - min_lr) * done[b] / total_tok)
                        loss += _sgns_batch(W_in, W_out, inputs[b:b + batch_size], out_ids[b:b + batch_size], alpha)
                    model.loss_history.append(loss / len(ci))
                    model.n_pairs += len(ci)
                if progress:                               # 进度按原始词数计（含被下采样掉的词）
                    bar.update(epoch * n_tok + int(kept[end] if end < len(toks) else n_tok) - bar.n)
                start = end
            if progress:
                bar.update((epoch + 1) * n_tok - bar.n)
        if progress:
            bar.close()
    if model.n_pairs == 0:
        raise ValueError("下采样后没有剩下任何词对；语料太小时请用 subsample=None 关闭下采样")
    return model
