"""后训练的两步：SFT（只对回答算损失的监督微调）与 DPO（偏好优化），在本课程自己的小 Transformer 上真训练。

- 指令数据：真实评论 + 两种有唯一正确答案的指令（判断好评/差评；复述前五个字），提示模板见 TEMPLATE；
  评论只取前 REVIEW_CHARS 个字（更短的评论不用），整条“提示 + 回答”放得进 64 个字的窗口。
- 损失与梯度：主体用 transformer.body_forward / body_backward，输出层（hidden @ W_out + b_out）在这里算；
  只在计入损失的位置算输出层。SFT 损失与 objectives.masked_cross_entropy 相同，DPO 损失与 objectives.dpo_loss 相同。
- 评测：贪心解码（同一种指令的提示等长，整批一起解码），回答与标准答案逐字相同才算对（exact match）。
- DPO 实验（第 17.2 节，DPO 论文“控制情感的续写”的缩微版）：评论开头几个字当提示，参考模型整批采样续写；
  字袋逻辑回归当“评委”（CharJudge）给续写打 P(好评)；同一提示的两条续写按分数高低排成偏好对；
  train_dpo 对着冻结的参考模型训练；evaluate_policy 量奖励、KL(π‖π_ref) 与对参考模型的胜率。
  第二位评委 WordJudge（词级 TF-IDF 逻辑回归，第 18 章比较过的方法）不参与训练，只在评测时给同样的续写打分：
  训练用的评委分数涨了、它的分数不涨，就是奖励被钻了空子（reward hacking）。
不做的事：不做 KV cache、学习率调度、LoRA；不做在线采样（偏好对只在开始时采一次）。
例：pairs = instruction_pairs(reviews, "sentiment")；ids, targets, mask = encode_pairs(lm.encode, pairs)
"""
from __future__ import annotations

import numpy as np

from ._checks import as_id_array, check_positive, check_rng, check_texts
from .finetune import fixed_subset
from .linear import LogisticModel
from .linear import fit as fit_logistic
from .objectives import sft_loss_mask
from .optim import Adam, single_thread_blas
from .sparse import CountMatrix
from .text import Vocab, idf
from .transformer import body_backward, body_forward, lm_config

__all__ = ["KINDS", "TEMPLATE", "REVIEW_CHARS", "NEWLINE_ID", "instruction_pairs", "encode_pairs",
           "instruction_data", "exact_match_by_kind", "token_logprobs", "sft_loss_and_grads", "sequence_logprobs", "dpo_loss_and_grads",
           "greedy_answers", "exact_match", "train_sft", "review_prompts", "sample_continuations", "continuation_batch",
           "CharJudge", "fit_judge", "WordJudge", "fit_word_judge", "continuation_texts", "preference_pairs", "train_dpo", "evaluate_policy"]

# 两种指令：名字一样长（6 个字），所以同一批提示等长，可以整批解码
KINDS = {"sentiment": "判断好评差评", "copy5": "复述前五个字"}
TEMPLATE = "{instruction}：“{review}”答："
REVIEW_CHARS = 24
NEWLINE_ID = 0   # 随包模型的 vocab[0] 是换行：放在开头当“开始”，放在回答后面当“结束”


def instruction_pairs(reviews, kind: str, review_chars: int = REVIEW_CHARS) -> list:
    """评论 → [(提示, 标准回答), …]。教学位置：第 17.1 节。

    只用至少 review_chars 个字的评论，截取前 review_chars 个字放进 TEMPLATE。
    kind='sentiment' 的回答是“好评”或“差评”（按评论的 label）；'copy5' 的回答是评论的前五个字。
    例：Review('电影很好看，演员也不错……', 1) 与 'copy5' → ('复述前五个字：“电影很好看，……”答：', '电影很好看')
    """
    if kind not in KINDS:
        raise ValueError(f"kind 只能是 {tuple(KINDS)} 之一，收到 {kind!r}")
    check_positive(review_chars, "review_chars", integer=True)
    if review_chars < 5:
        raise ValueError(f"review_chars 至少为 5（'copy5' 要复述前五个字），收到 {review_chars}")
    out = []
    for r in reviews:
        text = r.text
        if len(text) < review_chars:
            continue
        review = text[:review_chars]
        prompt = TEMPLATE.format(instruction=KINDS[kind], review=review)
        answer = ("好评" if int(r.label) == 1 else "差评") if kind == "sentiment" else review[:5]
        out.append((prompt, answer))
    if not out:
        raise ValueError(f"没有一条评论至少有 {review_chars} 个字")
    return out


def instruction_data(splits, n_train: int, n_held: int, subset_seed: int = 0, held_seed: int = 1,
                     review_chars: int = REVIEW_CHARS):
    """评论的划分 {'train': …, 'validation': …} → (训练用的指令对, {指令种类: 留出的指令对})。教学位置：第 17.1 节。

    训练：从 train 里按 subset_seed 固定抽 n_train 条评论，每种指令各出一条（两种混在一起）；
    留出：validation 里每种指令按 held_seed 固定抽 n_held 条。splits 可用 datasets.load_reviews(tokenize=False)。
    """
    if not isinstance(splits, dict) or not {"train", "validation"} <= set(splits):
        raise TypeError("splits 必须是含 'train' 与 'validation' 的字典（如 load_reviews(tokenize=False)）")
    tr = [splits["train"][i] for i in fixed_subset(len(splits["train"]), n_train, subset_seed)]
    train = [pa for k in KINDS for pa in instruction_pairs(tr, k, review_chars)]
    held = {}
    for k in KINDS:
        v = instruction_pairs(splits["validation"], k, review_chars)
        held[k] = [v[i] for i in fixed_subset(len(v), n_held, held_seed)]
    return train, held


def encode_pairs(encode, pairs, answer_only: bool = True, max_len: int = 64):
    """[(提示, 回答), …] → (ids, targets, mask)，形状都是 (N, T)，T = 最长一条的长度。教学位置：第 17.1 节。

    每条序列是 换行 + 提示 + 回答 + 换行，ids = 序列[:-1]，targets = 序列[1:]（错开一位）。
    answer_only=True 时 mask 只在回答（含结尾的换行）处为 True（objectives.sft_loss_mask）；
    False 时提示部分也计入损失。右侧用 0 补齐，补齐处 mask 为 False（因果注意力下补齐不影响前面的位置）。
    """
    if not callable(encode):
        raise TypeError("encode 必须是函数：文本 → 编号列表（如 load_pretrained().encode）")
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs 不能为空")
    seqs, masks = [], []
    for i, pa in enumerate(pairs):
        if not (isinstance(pa, tuple) and len(pa) == 2 and all(isinstance(s, str) for s in pa)):
            raise TypeError(f"pairs 的每一项必须是 (提示, 回答) 两个字符串，第 {i} 项是 {pa!r}")
        p, a = list(encode(pa[0])), list(encode(pa[1]))
        if not a:
            raise ValueError(f"第 {i} 条的回答是空的")
        seq = [NEWLINE_ID] + p + a + [NEWLINE_ID]
        if len(seq) - 1 > max_len:
            raise ValueError(f"第 {i} 条有 {len(seq) - 1} 个输入 token，超过窗口 max_len={max_len}；请截短评论")
        seqs.append(seq)
        masks.append(sft_loss_mask(len(p), len(a) + 1) if answer_only else np.ones(len(seq) - 1, bool))
    T = max(len(s) for s in seqs) - 1
    ids = np.zeros((len(seqs), T), np.int64)
    targets = np.zeros((len(seqs), T), np.int64)
    mask = np.zeros((len(seqs), T), bool)
    for i, (s, m) in enumerate(zip(seqs, masks)):
        ids[i, :len(s) - 1], targets[i, :len(s) - 1], mask[i, :len(m)] = s[:-1], s[1:], m
    return ids, targets, mask


def _check_batch(params, ids, targets, mask):
    cfg = lm_config(params)
    x = as_id_array(ids, "ids", size=cfg["vocab"], allow_empty=False, ndims=(2,))
    y = as_id_array(targets, "targets", size=cfg["vocab"], ndims=(2,))
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"mask 必须是布尔数组（True = 计入），收到 dtype {m.dtype}")
    if y.shape != x.shape or m.shape != x.shape:
        raise ValueError(f"ids、targets、mask 形状必须相同，收到 {x.shape}、{y.shape}、{m.shape}")
    if not m.any(axis=1).all():
        raise ValueError("mask 的每一行至少要有一个 True（每条序列至少一个位置计入）")
    return cfg, x, y, m


def _out_weight(params, cfg):
    return params["tok_emb"].T if cfg["tie"] else params["W_out"]


def _forward_rows(params, cfg, ids, targets, mask):
    """主体 + 只在 mask 处算输出层：返回 (各计入位置的 log p (n,) float64, 概率 (n, V), h (n, d), cache)。"""
    hidden, cache = body_forward(params, ids)
    rows = mask.reshape(-1)
    h = hidden.reshape(-1, cfg["d_model"])[rows]
    z = h @ _out_weight(params, cfg) + params["b_out"]
    z -= z.max(axis=1, keepdims=True)
    y = targets.reshape(-1)[rows]
    zt = z[np.arange(len(y)), y].astype(np.float64)
    np.exp(z, out=z)
    s = z.sum(axis=1, keepdims=True)
    z /= s
    return zt - np.log(s[:, 0].astype(np.float64)), z, h, (cache, hidden.shape, rows, y)


def _backward_rows(params, cfg, w, probs, h, extra):
    """∂(Σ w_i · log p_i)/∂参数：w (n,) 是每个计入位置的权重。"""
    cache, shape, rows, y = extra
    dz = probs * (-w[:, None]).astype(probs.dtype)        # ∂log p_y/∂z = onehot − p
    dz[np.arange(len(y)), y] += w.astype(probs.dtype)
    dh = np.zeros((rows.size, shape[-1]), probs.dtype)
    dh[rows] = dz @ _out_weight(params, cfg).T
    g = body_backward(dh.reshape(shape), cache)
    g["b_out"] = dz.sum(axis=0)
    if cfg["tie"]:
        g["tok_emb"] = g["tok_emb"] + dz.T @ h
    else:
        g["W_out"] = h.T @ dz
    return g


def token_logprobs(params: dict, ids, targets, mask) -> np.ndarray:
    """每条序列在 mask 处的 ln p(目标)，返回 (N, T) 的 float64 数组（mask 外为 0）。教学位置：第 17.1 节。"""
    cfg, x, y, m = _check_batch(params, ids, targets, mask)
    out = np.zeros(m.shape)
    for s in range(0, len(x), 64):              # 每次 64 条：逐位置的 softmax（条数 × 位置 × 字表）不占太多内存
        lp, *_ = _forward_rows(params, cfg, x[s:s + 64], y[s:s + 64], m[s:s + 64])
        out[s:s + 64][m[s:s + 64]] = lp
    return out


def sft_loss_and_grads(params: dict, ids, targets, mask):
    """SFT 损失（mask 处的平均交叉熵，= objectives.masked_cross_entropy）与全部参数的梯度。教学位置：第 17.1 节。

    ids、targets、mask 形状 (N, T)（encode_pairs 给出）。返回 (loss, grads)，grads 的键与 params 的数组键相同。
    """
    cfg, x, y, m = _check_batch(params, ids, targets, mask)
    lp, probs, h, extra = _forward_rows(params, cfg, x, y, m)
    n = len(lp)
    return float(-lp.mean()), _backward_rows(params, cfg, np.full(n, -1.0 / n), probs, h, extra)


def sequence_logprobs(params: dict, ids, targets, mask) -> np.ndarray:
    """整条回答的对数概率：每行 mask 处 ln p 之和，形状 (N,)（DPO 用的 ln π）。教学位置：第 17.2 节。"""
    return token_logprobs(params, ids, targets, mask).sum(axis=1)


def dpo_loss_and_grads(params: dict, chosen, rejected, ref_chosen, ref_rejected, beta: float = 0.1):
    """DPO 损失（对偏好对取平均，= objectives.dpo_loss）与策略全部参数的梯度。教学位置：第 17.2 节。

    chosen、rejected 各是 (ids, targets, mask)，第 i 行是第 i 对的好/差回答（两者 T 相同）；
    ref_chosen、ref_rejected 是冻结参考模型给它们的 sequence_logprobs (N,)。
    返回 (loss, grads, info)，info 含 'margin'：β[(ln π(好) − ref) − (ln π(差) − ref)] 的平均。
    """
    check_positive(beta, "beta")
    (xc, yc, mc), (xr, yr, mr) = chosen, rejected
    if np.shape(xc) != np.shape(xr):
        raise ValueError(f"chosen 与 rejected 的形状必须相同，收到 {np.shape(xc)} 与 {np.shape(xr)}")
    x, y, m = (np.concatenate([a, b]) for a, b in ((xc, xr), (yc, yr), (mc, mr)))
    cfg, x, y, m = _check_batch(params, x, y, m)
    N = len(xc)
    rc, rr = (np.asarray(v, np.float64).reshape(-1) for v in (ref_chosen, ref_rejected))
    if rc.shape != (N,) or rr.shape != (N,):
        raise ValueError(f"ref_chosen、ref_rejected 必须各有 {N} 个数（每对一个）")
    lp, probs, h, extra = _forward_rows(params, cfg, x, y, m)
    row = np.repeat(np.arange(2 * N), m.sum(axis=1))      # 每个计入位置属于哪一行
    seq = np.bincount(row, weights=lp, minlength=2 * N)
    z = beta * ((seq[:N] - rc) - (seq[N:] - rr))
    loss = float(np.mean(np.logaddexp(0.0, -z)))           # −ln σ(z)，数值稳定
    dz = -0.5 * (1 - np.tanh(z / 2)) / N                    # ∂loss/∂z = −σ(−z)/N
    d_seq = np.concatenate([beta * dz, -beta * dz])
    grads = _backward_rows(params, cfg, d_seq[row], probs, h, extra)
    return loss, grads, {"margin": float(z.mean())}


def greedy_answers(params: dict, prompt_ids, n_new: int) -> np.ndarray:
    """等长的提示 (N, P) → 贪心续写的 n_new 个编号 (N, n_new)，整批一起算。教学位置：第 17.1 节。

    每步把当前全部编号送进模型、取最后一个位置 logits 的最大值（与 decoding.greedy 相同）。
    """
    cfg = lm_config(params)
    x = as_id_array(prompt_ids, "prompt_ids", size=cfg["vocab"], allow_empty=False, ndims=(2,))
    check_positive(n_new, "n_new", integer=True)
    if x.shape[1] + n_new - 1 > cfg["max_len"]:
        raise ValueError(f"提示 {x.shape[1]} 个 + 续写 {n_new} 个超过窗口 max_len={cfg['max_len']}")
    W = _out_weight(params, cfg)
    for _ in range(n_new):
        hidden, _ = body_forward(params, x)
        z = hidden[:, -1] @ W + params["b_out"]
        x = np.concatenate([x, z.argmax(axis=1)[:, None]], axis=1)
    return x[:, -n_new:]


def exact_match(params: dict, encode, pairs) -> np.ndarray:
    """每条 (提示, 回答) 是否答对：贪心续写与“回答 + 换行”逐字相同，返回布尔数组 (N,)。教学位置：第 17.1 节。

    同一组里提示与回答的长度必须各自相同（instruction_pairs 给出的同一种指令满足这一点）。
    例：模型续写“好评\\n” → 对；“好评好评” 或 “好\\n” → 错。
    """
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs 不能为空")
    P = [[NEWLINE_ID] + list(encode(p)) for p, _ in pairs]
    A = [list(encode(a)) + [NEWLINE_ID] for _, a in pairs]
    if len({len(p) for p in P}) != 1 or len({len(a) for a in A}) != 1:
        raise ValueError("同一组里提示与回答的长度必须各自相同（请按指令种类分组）")
    out = np.zeros(len(pairs), bool)
    for s in range(0, len(pairs), 128):
        got = greedy_answers(params, np.array(P[s:s + 128]), len(A[0]))
        out[s:s + 128] = (got == np.array(A[s:s + 128])).all(axis=1)
    return out


def exact_match_by_kind(params: dict, encode, held: dict) -> dict:
    """{指令种类: 指令对} → {指令种类: exact match 的比例}。教学位置：第 17.1 节。"""
    return {k: float(exact_match(params, encode, v).mean()) for k, v in held.items()}


def train_sft(params: dict, train, *, steps: int, batch_size: int = 16, lr: float = 1e-3, seed: int = 0,
              clip: float | None = 1.0, eval_at=(), eval_fn=None, progress: bool = False):
    """从 params 的副本出发做 SFT：每步按 seed 有放回地抽 batch_size 条，Adam（固定学习率）。教学位置：第 17.1 节。

    train 是 encode_pairs 给出的 (ids, targets, mask)。学习率不变，所以跑 s 步的结果与长一些的训练在第 s 步时相同。
    返回 (params, history)：history 每步一行 {'step', 'loss'}；eval_at 里的步数再加上 eval_fn(params) 的结果（一个字典）。
    """
    X, Y, M = (np.asarray(a) for a in train)
    _check_batch(params, X[:1], Y[:1], M[:1])

    def step_fn(P, idx):
        T = int(np.flatnonzero(M[idx].any(axis=0)).max()) + 1
        loss, g = sft_loss_and_grads(P, X[idx, :T], Y[idx, :T], M[idx, :T])
        return loss, g, {}

    return _train_loop(params, len(X), step_fn, steps=steps, batch_size=batch_size, lr=lr, seed=seed, clip=clip,
                       eval_at=eval_at, eval_fn=eval_fn, progress=progress, desc="SFT 训练步数")


def _train_loop(params, n, step_fn, *, steps, batch_size, lr, seed, clip, eval_at, eval_fn, progress, desc):
    """train_sft 与 train_dpo 共用的循环：从 params 的副本出发，每步按 seed 有放回地抽 batch_size 个下标 idx，
    step_fn(P, idx) → (损失, 梯度, 要记下的其他数)，Adam（固定学习率、按全局范数裁剪），BLAS 单线程。
    返回 (P, history)：每步一行 {'step', 'loss', …}；eval_at 里的步数再加上 eval_fn(P) 的结果。"""
    check_positive(steps, "steps", integer=True)
    check_positive(batch_size, "batch_size", integer=True)
    check_positive(lr, "lr")
    eval_at = {int(check_positive(s, "eval_at 里的步数", integer=True)) for s in eval_at}
    if eval_at and eval_fn is None:
        raise ValueError("给了 eval_at 就要给 eval_fn（params → 指标字典）")
    rng = np.random.default_rng(seed)
    P = {k: (dict(v) if k == "config" else v.copy()) for k, v in params.items()}
    opt = Adam(lr, clip=clip)
    history = []
    with single_thread_blas():  # 与其他训练函数一样固定 BLAS 单线程，结果可复现
        it = range(1, steps + 1)
        if progress:
            from tqdm.auto import tqdm  # 只在需要进度条时导入
            it = tqdm(it, desc=desc)
        for step in it:
            loss, g, extra = step_fn(P, rng.integers(0, n, size=batch_size))
            opt.step(P, g)
            row = {"step": step, "loss": round(loss, 6), **{k: round(v, 6) for k, v in extra.items()}}
            if step in eval_at:
                row.update(eval_fn(P))
            history.append(row)
        if progress:
            it.close()
    return P, history


# ---------- 第 17.2 节：DPO 实验（控制情感的续写） ----------

def review_prompts(encode, reviews, n: int, prompt_chars: int = 5, seed: int = 0, min_chars: int = 10) -> np.ndarray:
    """评论 → 等长的提示编号 (n, 1 + prompt_chars)：换行（开始）+ 评论的前 prompt_chars 个字。教学位置：第 17.2 节。

    只用至少 min_chars 个字的评论（提示不是整条评论），按 seed 固定抽 n 条（finetune.fixed_subset）。
    例：'这本书写得很好，推荐' 与 prompt_chars=5 → [换行, 这, 本, 书, 写, 得]
    """
    if not callable(encode):
        raise TypeError("encode 必须是函数：文本 → 编号列表（如 load_pretrained().encode）")
    check_positive(prompt_chars, "prompt_chars", integer=True)
    check_positive(min_chars, "min_chars", integer=True)
    if min_chars <= prompt_chars:
        raise ValueError(f"min_chars（{min_chars}）必须大于 prompt_chars（{prompt_chars}）：提示不能是整条评论")
    texts = [r.text for r in reviews if len(r.text) >= min_chars]
    if len(texts) < n:
        raise ValueError(f"只有 {len(texts)} 条评论至少有 {min_chars} 个字，不够抽 n={n} 条")
    return np.array([[NEWLINE_ID] + list(encode(texts[i][:prompt_chars])) for i in fixed_subset(len(texts), n, seed)],
                    np.int64)


def sample_continuations(params: dict, prompt_ids, n_new: int, rng, temperature: float = 1.0) -> np.ndarray:
    """等长的提示 (N, P) → 按温度采样续写的 n_new 个编号 (N, n_new)，整批一起算。教学位置：第 17.2 节。

    每步取最后一个位置的 softmax(logits / temperature)，每行用一个均匀数按累积概率挑一个编号
    （与 decoding.sample 的逆累积分布法相同，只是整批）。均匀数一次从 rng 取出 (N, n_new) 个，第 i 行只用第 i 行，
    所以同一个 rng 状态、同样的参数 → 同样的续写，而且前 k 个提示的续写不随 N 改变。
    例：sample_continuations(lm.params, [[0, 这, 本, 书, 写, 得]], 14, np.random.default_rng(0)) → (1, 14) 的编号
    """
    cfg = lm_config(params)
    x = as_id_array(prompt_ids, "prompt_ids", size=cfg["vocab"], allow_empty=False, ndims=(2,))
    check_positive(n_new, "n_new", integer=True)
    check_positive(temperature, "temperature")
    check_rng(rng)
    if x.shape[1] + n_new - 1 > cfg["max_len"]:
        raise ValueError(f"提示 {x.shape[1]} 个 + 续写 {n_new} 个超过窗口 max_len={cfg['max_len']}")
    # 在 float64 里算：float32 的 logits 末位随 CPU 的 BLAS 内核而变，逆累积分布法碰到边界就会挑出另一个字，
    # 之后整条续写都不同；float64 的舍入差别（约 1e-16）碰不上边界，所以续写在每台机器上都一样
    params = {k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype == np.float32 else v)
              for k, v in params.items()}
    W = _out_weight(params, cfg)
    uniforms = rng.random((len(x), n_new))       # 第 i 行只用第 i 行的均匀数：前 k 个提示的续写与 N 无关
    out = np.empty((len(x), n_new), np.int64)
    for s in range(0, len(x), 64):               # 每次 64 行，主体的中间结果不占太多内存
        xb = x[s:s + 64]
        for t in range(n_new):
            hidden, _ = body_forward(params, xb)
            z = (hidden[:, -1] @ W + params["b_out"]).astype(np.float64) / temperature
            p = np.exp(z - z.max(axis=1, keepdims=True))
            cdf = np.cumsum(p, axis=1)
            u = uniforms[s:s + 64, t] * cdf[:, -1]
            nxt = np.minimum((cdf < u[:, None]).sum(axis=1), cfg["vocab"] - 1)
            xb = np.concatenate([xb, nxt[:, None]], axis=1)
        out[s:s + 64] = xb[:, -n_new:]
    return out


def continuation_batch(prompt_ids, cont_ids):
    """提示 (N, P) 与续写 (N, n) → (ids, targets, mask)，形状 (N, P + n − 1)，mask 只在续写处为 True。教学位置：第 17.2 节。

    序列 = 提示 + 续写，ids = 序列[:, :-1]，targets = 序列[:, 1:]；于是 sequence_logprobs 给出整条续写的 ln π。
    例：提示 [0, 5]、续写 [7, 8] → ids [0, 5, 7]，targets [5, 7, 8]，mask [F, T, T]
    """
    p = as_id_array(prompt_ids, "prompt_ids", allow_empty=False, ndims=(2,))
    c = as_id_array(cont_ids, "cont_ids", allow_empty=False, ndims=(2,))
    if len(p) != len(c):
        raise ValueError(f"提示有 {len(p)} 行，续写有 {len(c)} 行；必须一一对应")
    seq = np.concatenate([p, c], axis=1)
    mask = np.zeros((len(p), seq.shape[1] - 1), bool)
    mask[:, p.shape[1] - 1:] = True
    return seq[:, :-1], seq[:, 1:], mask


class CharJudge:
    """“评委”：字袋（每个字的出现次数）逻辑回归，给一段文本打 P(好评)。教学位置：第 17.2 节。

    由 fit_judge 在训练集评论上训练；它只认得字，不懂语序和否定，所以是一个会被钻空子的奖励模型。
    例：judge.reward(['非常好，推荐', '质量太差']) → 前一个高、后一个低
    """

    def __init__(self, vocab: Vocab, model: LogisticModel):
        self.vocab, self.model = vocab, model

    def reward(self, texts) -> np.ndarray:
        """文本列表 → 每条的 P(好评)，形状 (N,)。空文本得到的是只看偏置的分数。"""
        texts = check_texts(texts)
        return self.model.predict_proba(CountMatrix.from_docs([list(t) for t in texts], self.vocab))


def fit_judge(reviews, chars: int = 32, epochs: int = 5, lr: float = 0.2, seed: int = 0) -> CharJudge:
    """带标签的评论 → CharJudge：每条只用前 chars 个字（评委要打分的续写也很短），linear.fit 小批量训练。
    教学位置：第 17.2 节（第 4 章的逻辑回归，特征换成字袋）。

    例：fit_judge(load_reviews(tokenize=False)['train']).reward(['很好看'])
    """
    check_positive(chars, "chars", integer=True)
    reviews = list(reviews)
    if not reviews:
        raise ValueError("reviews 不能为空")
    docs = [list(r.text[:chars]) for r in reviews]
    vocab = Vocab([c for d in docs for c in d])
    y = np.array([int(r.label) for r in reviews])
    model = fit_logistic(CountMatrix.from_docs(docs, vocab), y, lr=lr, epochs=epochs, batch_size=64, seed=seed)
    return CharJudge(vocab, model)


class WordJudge:
    """独立的第二位评委：词级 TF-IDF 逻辑回归（第 18 章比较过的方法），给一段文本打 P(好评)。教学位置：第 17.2 节。

    它从不参与 DPO 训练（偏好对由 CharJudge 排出），只在评测时给同样的续写打分，用来检查训练评委的分数是否
    “真的”代表更正面。tokenize 是分词函数（文本 → 词列表，如 datasets.jieba_cut），weights 是每个词的 IDF。
    例：judge.reward(['非常好，推荐', '质量太差']) → 前一个高、后一个低
    """

    def __init__(self, vocab: Vocab, weights: dict, model: LogisticModel, tokenize):
        if not callable(tokenize):
            raise TypeError("tokenize 必须是函数：文本 → 词列表（如 datasets.jieba_cut）")
        self.vocab, self.weights, self.model, self.tokenize = vocab, weights, model, tokenize

    def reward(self, texts) -> np.ndarray:
        """文本列表 → 每条的 P(好评)，形状 (N,)。"""
        texts = check_texts(texts)
        docs = [list(self.tokenize(t)) for t in texts]
        return self.model.predict_proba(CountMatrix.from_docs(docs, self.vocab, weights=self.weights))


def fit_word_judge(docs, labels, tokenize, min_count: int = 2, lr: float = 0.05, epochs: int = 10,
                   batch_size: int = 64, seed: int = 0) -> WordJudge:
    """分好词的评论 docs 与标签 → WordJudge：词表（至少出现 min_count 次）、IDF 都只在 docs 上算，
    TF-IDF 特征上 linear.fit 小批量训练逻辑回归。默认值是固定学习率 0.05、10 轮、每批 64（第 18 章的候选之一用过的学习率，这里不衰减）。
    教学位置：第 17.2 节。例：fit_word_judge([r.tokens for r in train], [r.label for r in train], jieba_cut)
    """
    docs = [list(d) for d in docs]
    y = np.asarray(labels)
    if not docs or len(docs) != len(y):
        raise ValueError(f"docs 与 labels 必须非空且等长，收到 {len(docs)} 与 {len(y)}")
    vocab = Vocab.build(docs, min_count=min_count)
    weights = idf(docs)
    model = fit_logistic(CountMatrix.from_docs(docs, vocab, weights=weights), y, lr=lr, epochs=epochs,
                         batch_size=batch_size, seed=seed)
    return WordJudge(vocab, weights, model, tokenize)


def continuation_texts(decode, prompt_ids, cont_ids) -> list:
    """提示 + 续写的编号 → 评委要看的文本：去掉开头的换行，到续写里第一个换行（评论结束）为止。教学位置：第 17.2 节。

    例：提示 [换行, 这, 本]、续写 [书, 好, 换行, 我] → '这本书好'
    """
    if not callable(decode):
        raise TypeError("decode 必须是函数：编号列表 → 文本（如 load_pretrained().decode）")
    p, c = np.asarray(prompt_ids), np.asarray(cont_ids)
    return [decode(list(pr[1:])) + decode(list(co)).split("\n")[0] for pr, co in zip(p, c)]


def preference_pairs(params: dict, prompt_ids, n_new: int, reward_fn, seed: int = 0, min_gap: float = 0.1):
    """参考模型对每个提示采样两条续写，奖励高的当“好”、低的当“差”，差距小于 min_gap 的提示丢掉。教学位置：第 17.2 节。

    reward_fn(提示编号, 续写编号) → 每行的奖励 (N,)。返回 (chosen, rejected, info)：chosen、rejected 各是
    continuation_batch 的 (ids, targets, mask)；info 含 'kept'（留下的提示下标）、'r_chosen'、'r_rejected'。
    """
    check_positive(min_gap, "min_gap", allow_zero=True)
    if not callable(reward_fn):
        raise TypeError("reward_fn 必须是函数：(提示编号, 续写编号) → 每行的奖励")
    rng = np.random.default_rng(seed)
    P = as_id_array(prompt_ids, "prompt_ids", allow_empty=False, ndims=(2,))
    with single_thread_blas():
        a, b = (sample_continuations(params, P, n_new, rng) for _ in range(2))
    ra, rb = (np.asarray(reward_fn(P, c), np.float64) for c in (a, b))
    keep = np.flatnonzero(np.abs(ra - rb) >= min_gap)
    if keep.size == 0:
        raise ValueError(f"没有一个提示的两条续写奖励相差至少 min_gap={min_gap}")
    first = (ra >= rb)[keep, None]
    good, bad = np.where(first, a[keep], b[keep]), np.where(first, b[keep], a[keep])
    info = {"kept": keep, "r_chosen": np.maximum(ra, rb)[keep], "r_rejected": np.minimum(ra, rb)[keep]}
    return continuation_batch(P[keep], good), continuation_batch(P[keep], bad), info


def train_dpo(params: dict, chosen, rejected, *, beta: float, steps: int, batch_size: int = 32, lr: float = 1e-4,
              seed: int = 0, clip: float | None = 1.0, eval_at=(), eval_fn=None, progress: bool = False):
    """从参考模型 params 的副本出发做 DPO：参考模型冻结，它给每对的 ln π_ref 只算一次。教学位置：第 17.2 节。

    chosen、rejected 是 preference_pairs 给出的 (ids, targets, mask)，第 i 行是第 i 对。每步按 seed 有放回地抽
    batch_size 对，dpo_loss_and_grads 求梯度，Adam（固定学习率），BLAS 单线程。
    返回 (params, history)：history 每步一行 {'step', 'loss', 'margin'}；eval_at 里的步数再加上 eval_fn(params) 的结果。
    例：P, hist = train_dpo(lm.params, chosen, rejected, beta=0.1, steps=100)；hist[0]['loss'] ≈ ln 2
    """
    check_positive(beta, "beta")
    C, R = (tuple(np.asarray(a) for a in batch) for batch in (chosen, rejected))
    if len(C) != 3 or len(R) != 3:
        raise ValueError("chosen 与 rejected 必须各是 (ids, targets, mask) 三个数组")
    if C[0].shape != R[0].shape:
        raise ValueError(f"chosen 与 rejected 的形状必须相同，收到 {C[0].shape} 与 {R[0].shape}")
    _check_batch(params, *C)
    _check_batch(params, *R)
    with single_thread_blas():
        ref_c, ref_r = (np.concatenate([sequence_logprobs(params, *(a[s:s + 256] for a in B))
                                        for s in range(0, len(B[0]), 256)]) for B in (C, R))

    def step_fn(P, idx):
        loss, g, info = dpo_loss_and_grads(P, tuple(a[idx] for a in C), tuple(a[idx] for a in R),
                                           ref_c[idx], ref_r[idx], beta=beta)
        return loss, g, {"margin": info["margin"]}

    return _train_loop(params, len(C[0]), step_fn, steps=steps, batch_size=batch_size, lr=lr, seed=seed, clip=clip,
                       eval_at=eval_at, eval_fn=eval_fn, progress=progress, desc="DPO 训练步数")


def evaluate_policy(params: dict, ref_params: dict, prompt_ids, n_new: int, reward_fn, seed: int = 0,
                    keep: dict | None = None, judges: dict | None = None) -> dict:
    """留出提示上比较策略与参考模型，返回 {'reward', 'kl', 'win'}。教学位置：第 17.2 节。

    - reward：策略每个提示采样一条续写，reward_fn 打分的平均；
    - kl：KL(π‖π_ref) 的采样估计，对策略的样本 y 求 Σ_t [ln π(y_t) − ln π_ref(y_t)]（续写的 n_new 个位置，
      单位是奈特：自然对数）再对提示平均；
    - win：策略的续写对参考模型的续写（同一提示）奖励更高的比例，相等算半个。
    两个模型用同一个 seed 的均匀数采样（公共随机数）：策略就是参考模型时两边续写相同，KL = 0、胜率 = 0.5。
    judges 给 {名字: 奖励函数} 时，每位额外的评委给同样的续写打分，结果里多 '名字_reward' 与 '名字_win'。
    keep 给一个字典时，把逐条的结果存进去：两边的续写编号（'policy'、'reference'）、奖励（'r_policy'、
    'r_reference'）、每个提示的 'kl' 与 'win'；每位额外的评委一项 {名字: {'r_policy', 'r_reference', 'win'}}。
    """
    if keep is not None and not isinstance(keep, dict):
        raise TypeError(f"keep 必须是字典或 None，收到 {type(keep).__name__}")
    judges = {} if judges is None else judges
    if not isinstance(judges, dict) or not all(isinstance(k, str) and callable(f) for k, f in judges.items()):
        raise TypeError("judges 必须是 {名字: 奖励函数} 的字典或 None")
    clash = [k for k in judges if not k or k in ("policy", "reference", "r_policy", "r_reference", "kl", "win")]
    if clash:
        raise ValueError(f"judges 的名字不能为空，也不能与 keep 里已有的键相同，收到 {clash}")
    if not callable(reward_fn):
        raise TypeError("reward_fn 必须是函数：(提示编号, 续写编号) → 每行的奖励")
    P = as_id_array(prompt_ids, "prompt_ids", allow_empty=False, ndims=(2,))
    with single_thread_blas():
        y_pol = sample_continuations(params, P, n_new, np.random.default_rng(seed))
        y_ref = sample_continuations(ref_params, P, n_new, np.random.default_rng(seed))
        batch = continuation_batch(P, y_pol)
        kl = sequence_logprobs(params, *batch) - sequence_logprobs(ref_params, *batch)

    def score(fn):
        r_pol, r_ref = (np.asarray(fn(P, y), np.float64) for y in (y_pol, y_ref))
        return r_pol, r_ref, np.where(r_pol > r_ref, 1.0, np.where(r_pol == r_ref, 0.5, 0.0))

    r_pol, r_ref, win = score(reward_fn)
    out = {"reward": round(float(r_pol.mean()), 6), "kl": round(float(kl.mean()), 6), "win": round(float(win.mean()), 6)}
    extra = {}
    for name, fn in judges.items():
        j_pol, j_ref, j_win = score(fn)
        out[f"{name}_reward"], out[f"{name}_win"] = round(float(j_pol.mean()), 6), round(float(j_win.mean()), 6)
        extra[name] = {"r_policy": j_pol, "r_reference": j_ref, "win": j_win}
    if keep is not None:
        keep.update(policy=y_pol, reference=y_ref, r_policy=r_pol, r_reference=r_ref, kl=kl, win=win, **extra)
    return out
