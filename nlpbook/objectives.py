"""预训练与后训练的“出题方式”（第 15 章、第 11.2 节、第 17.1—17.2 节）：同一个 Transformer，题目不同。

- BERT 掩码语言模型（MLM）、GPT 因果语言模型（错开一位）、T5 片段破坏（span corruption）的样本构造；
- 三种结构对应的注意力遮罩（True = 可以读取，与 attention 模块相同）；
- SFT 只对回答计算损失的遮罩，DPO 偏好损失。
随机性只来自显式传入的 rng（np.random.Generator）。
不做的事：不含模型本身，也不训练；不做下一句预测（NSP）；DPO 只给损失值，不做优化。
"""
from __future__ import annotations

import numpy as np

from ._checks import as_float_array, as_id_array, check_id, check_ids, check_positive, check_rng, check_tokens
from .attention import causal_mask
from .functional import binary_cross_entropy, cross_entropy

__all__ = ["IGNORE_INDEX", "masked_lm_examples", "causal_lm_pair", "span_corruption", "undo_span_corruption",
           "attention_mask_for", "cross_attention_mask", "sft_loss_mask", "masked_cross_entropy", "dpo_loss"]

IGNORE_INDEX = -100  # 标签里表示“这个位置不计损失”的值（与 PyTorch 的 ignore_index 默认值一致）


# ---------- 第 15.2 节：BERT 的掩码语言模型 ----------
def masked_lm_examples(ids, vocab_size: int, mask_id: int, rng, rate: float = 0.15, special_ids=(),
                       ignore_index: int = IGNORE_INDEX) -> tuple[np.ndarray, np.ndarray]:
    """按 BERT 的规则出填空题，返回 (inputs, labels)。教学位置：第 15.2 节。

    选位置：在非特殊 token（不在 special_ids 里、也不等于 mask_id）中不放回地选 max(1, ⌊rate·n + 0.5⌋) 个
    （与原始 BERT 一样按比例取整数个；rate > 0 且有可选位置时至少选 1 个；rate = 0 时一个不选）。
    选中的位置：80% 换成 [MASK]，10% 换成随机 token（从非特殊 token 中均匀抽，可能恰好抽到原 token），
    10% 保持不变。labels 在选中处是原 token，其余为 ignore_index（默认 -100，不计损失）。
    ids 可以是一维（一句）或二维（每行一句，逐行处理）。
    """
    check_rng(rng)
    V = check_positive(vocab_size, "vocab_size", integer=True)
    a = as_id_array(ids, "ids", size=V, ndims=(1, 2))
    mask_id = check_id(mask_id, "mask_id", size=V)
    if not 0 <= rate <= 1:
        raise ValueError(f"rate 必须在 [0, 1] 之间，收到 {rate}")
    special = set(check_ids(special_ids, "special_ids")) | {mask_id}
    pool = np.setdiff1d(np.arange(V), np.fromiter(special, dtype=np.int64))
    rows = a[None] if a.ndim == 1 else a               # 二维时逐行出题（检查与候选表只做一次）
    inputs, labels = rows.copy(), np.full(rows.shape, ignore_index, dtype=np.int64)
    is_special = np.isin(rows, np.fromiter(special, dtype=np.int64))
    for row in range(len(rows)):
        cand = np.flatnonzero(~is_special[row])
        n_sel = 0 if rate == 0 or cand.size == 0 else max(1, int(rate * cand.size + 0.5))
        if n_sel == 0:
            continue
        sel = np.sort(rng.choice(cand, size=n_sel, replace=False))
        labels[row, sel] = rows[row, sel]
        u = rng.random(n_sel)
        inputs[row, sel[u < 0.8]] = mask_id
        rand = sel[(u >= 0.8) & (u < 0.9)]
        inputs[row, rand] = rng.choice(pool, size=rand.size)
    return inputs.reshape(a.shape), labels.reshape(a.shape)


# ---------- 第 11.2、15.3 节：因果语言模型 ----------
def causal_lm_pair(ids, bos_id, eos_id):
    """输入与目标错开一位：inputs = [BOS] + ids，targets = ids + [EOS]。教学位置：第 11.2 节、第 15.3 节。

    例：['我', '喜欢', '电影'] → inputs ['<BOS>', '我', '喜欢', '电影']，targets ['我', '喜欢', '电影', '<EOS>']
    bos_id/eos_id 是字符串时按 token 处理并返回列表；是整数时按编号处理并返回 int64 数组。
    """
    if isinstance(bos_id, str) and isinstance(eos_id, str):
        seq = check_tokens(ids, "ids")
        return [bos_id] + seq, seq + [eos_id]
    a = as_id_array(ids, "ids", ndims=(1,))
    b, e = check_id(bos_id, "bos_id"), check_id(eos_id, "eos_id")
    return np.concatenate([[b], a]).astype(np.int64), np.concatenate([a, [e]]).astype(np.int64)


# ---------- 第 15.4 节：T5 的片段破坏 ----------
def _segment(n_items: int, n_segments: int, rng) -> np.ndarray:
    """把 n_items 随机切成 n_segments 段，每段至少 1 个。"""
    cuts = np.sort(rng.choice(np.arange(1, n_items), size=n_segments - 1, replace=False))
    return np.diff(np.concatenate([[0], cuts, [n_items]]))


def span_corruption(ids, rng, noise_density: float = 0.15, mean_span_length: float = 3.0, *,
                    sentinel_ids) -> tuple[np.ndarray, np.ndarray]:
    """T5 式片段破坏：几段连续 token 在输入里各换成一个哨兵，目标依次写出“哨兵 + 原片段”。

    教学位置：第 15.4 节（恢复被破坏的文本）。
    例（示意）：[A B C D E F]，破坏 C D 与 F → inputs [A B <0> E <1>]，targets [<0> C D <1> F <2>]
    （最后的 <2> 表示结束，与 T5 论文的示例相同）。
    破坏 token 数 = round(n·noise_density)，限制在 1..n−1；片段数 = round(破坏数 / mean_span_length)，至少 1。
    片段布局同 T5：不破坏段与破坏段交替，从不破坏段开始（所以首个 token 不会被破坏），各段长度随机。
    sentinel_ids：哨兵编号，至少要有 片段数 + 1 个，且不能出现在 ids 里（否则无法还原）。
    undo_span_corruption(inputs, targets, sentinel_ids) 可以还原原序列。
    """
    check_rng(rng)
    a = as_id_array(ids, "ids", ndims=(1,))
    n = a.size
    if n < 2:
        raise ValueError(f"ids 至少要有 2 个 token（要同时有被破坏和保留的部分），收到 {n} 个")
    if not 0 < noise_density < 1:
        raise ValueError(f"noise_density 必须在 (0, 1) 之间，收到 {noise_density}")
    check_positive(mean_span_length, "mean_span_length")
    sent = as_id_array(sentinel_ids, "sentinel_ids", ndims=(1,))
    if len(set(sent.tolist())) != sent.size:
        raise ValueError("sentinel_ids 不能有重复")
    if np.isin(sent, a).any():
        raise ValueError("sentinel_ids 里的编号出现在了 ids 中，还原时无法区分；请用词表里专门的哨兵编号")
    n_noise = min(max(int(n * noise_density + 0.5), 1), n - 1)
    n_spans = min(max(int(n_noise / mean_span_length + 0.5), 1), n_noise, n - n_noise)
    if sent.size < n_spans + 1:
        raise ValueError(f"需要至少 {n_spans + 1} 个哨兵编号（{n_spans} 个片段 + 1 个结束），收到 {sent.size} 个")
    noise_len, keep_len = _segment(n_noise, n_spans, rng), _segment(n - n_noise, n_spans, rng)
    inputs, targets, pos = [], [], 0
    for i in range(n_spans):
        inputs.extend(a[pos:pos + keep_len[i]])
        pos += keep_len[i]
        inputs.append(sent[i])
        targets.append(sent[i])
        targets.extend(a[pos:pos + noise_len[i]])
        pos += noise_len[i]
    targets.append(sent[n_spans])
    return np.array(inputs, dtype=np.int64), np.array(targets, dtype=np.int64)


def undo_span_corruption(inputs, targets, sentinel_ids) -> np.ndarray:
    """由 span_corruption 的 (inputs, targets) 还原原序列：把输入里的每个哨兵换回目标里它后面的片段。

    教学位置：第 15.4 节。哨兵在输入里出现而目标里没有时报错。
    """
    x, y, sent = (as_id_array(v, name, ndims=(1,)) for v, name in
                  ((inputs, "inputs"), (targets, "targets"), (sentinel_ids, "sentinel_ids")))
    is_sent = set(sent.tolist())
    if y.size == 0 or int(y[0]) not in is_sent:
        raise ValueError("targets 必须以哨兵开头（格式：哨兵 片段 哨兵 片段 … 结束哨兵）")
    spans: dict[int, list] = {}
    cur = None
    for t in y.tolist():
        if t in is_sent:
            cur = spans.setdefault(t, [])
        else:
            cur.append(t)
    out = []
    for t in x.tolist():
        if t in is_sent:
            if t not in spans:
                raise ValueError(f"输入里的哨兵 {t} 在 targets 中没有对应片段")
            out.extend(spans[t])
        else:
            out.append(t)
    return np.array(out, dtype=np.int64)


# ---------- 第 15.4—15.5 节：三种结构的注意力遮罩 ----------
def attention_mask_for(kind: str, n: int, prefix_len: int | None = None) -> np.ndarray:
    """(n, n) 布尔遮罩，True = 可以读取（与 attention 模块相同）。教学位置：第 15.2—15.4 节。

    kind='encoder'：全为 True（BERT，双向）；'decoder' 或 'causal'：下三角（GPT，只看前文和自己）；
    'prefix'：前 prefix_len 个位置互相全可见，之后的位置看全部前缀和自己之前的位置（前缀语言模型）。
    例：attention_mask_for('prefix', 3, prefix_len=2) → [[T,T,F],[T,T,F],[T,T,T]]
    """
    check_positive(n, "n", integer=True)
    if kind == "encoder":
        return np.ones((n, n), dtype=bool)
    if kind in ("decoder", "causal"):
        return causal_mask(n)
    if kind == "prefix":
        if prefix_len is None:
            raise ValueError("kind='prefix' 需要给出 prefix_len（前缀长度）")
        p = check_positive(prefix_len, "prefix_len", integer=True, allow_zero=True)
        if p > n:
            raise ValueError(f"prefix_len 必须在 0..{n} 之间，收到 {p}")
        m = causal_mask(n)
        m[:, :p] = True
        return m
    raise ValueError(f"kind 只能是 'encoder'、'decoder'、'causal' 或 'prefix'，收到 {kind!r}")


def cross_attention_mask(n_dec: int, n_enc: int) -> np.ndarray:
    """编码器—解码器的交叉注意力遮罩 (n_dec, n_enc)：解码器每个位置都可以读输入的全部位置（全 True）。

    教学位置：第 15.4 节。输入有 padding 时再与 attention.padding_mask 相与。
    """
    check_positive(n_dec, "n_dec", integer=True)
    check_positive(n_enc, "n_enc", integer=True)
    return np.ones((n_dec, n_enc), dtype=bool)


# ---------- 第 17.1—17.2 节：SFT 与 DPO ----------
def sft_loss_mask(prompt_len: int, answer_len: int) -> np.ndarray:
    """只对回答计算损失：长度 prompt_len + answer_len 的布尔数组，提示部分 False，回答部分 True。

    教学位置：第 17.1 节（“有些实现只对回答部分计算损失”）。与目标序列逐位对齐：
    若用 causal_lm_pair(提示 + 回答) 构造目标，目标末尾多一个 <EOS>，它也属于回答，answer_len 要加 1。
    例：sft_loss_mask(3, 2) → [F, F, F, T, T]
    """
    p = check_positive(prompt_len, "prompt_len", integer=True, allow_zero=True)
    a = check_positive(answer_len, "answer_len", integer=True)
    return np.arange(p + a) >= p


def masked_cross_entropy(logits, targets, mask) -> float:
    """只在 mask 为 True 的位置求平均交叉熵（分母是 True 的个数）。教学位置：第 15.2 节、第 17.1 节。

    logits (T, V)，targets (T,) 整数，mask (T,) 布尔。mask 为 False 处的目标可以是任意整数（如 -100）。
    MLM 的用法：mask = labels != IGNORE_INDEX。
    """
    z = as_float_array(logits, "logits")
    t = np.asarray(targets)
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"mask 必须是布尔数组（True = 计入损失），收到 dtype {m.dtype}")
    if z.ndim < 2 or t.shape != z.shape[:-1] or m.shape != t.shape:
        raise ValueError(f"形状不一致：logits {z.shape} 应为 targets/mask 的形状再加一维词表，"
                         f"收到 targets {t.shape}、mask {m.shape}")
    if not m.any():
        raise ValueError("mask 全为 False：没有位置计入损失，平均值无定义")
    if t.dtype.kind not in "iu":
        raise TypeError(f"targets 必须是整数编号，收到 dtype {t.dtype}")
    return float(np.mean(cross_entropy(z[m], t[m])))


def dpo_loss(logp_chosen, logp_rejected, ref_logp_chosen, ref_logp_rejected, beta: float = 0.1):
    """DPO 损失 −ln σ(β[(logπ(好) − logπ_ref(好)) − (logπ(差) − logπ_ref(差))])。

    教学位置：第 17.2 节。输入是整条回答的对数概率（各 token 的 log p 之和），可以是数或等长数组。
    例：策略与参考模型完全相同时，括号里为 0，损失 = ln 2 ≈ 0.693；
    β=0.1，好回答相对参考提高 2、差回答降低 2 → −ln σ(0.4) ≈ 0.513。
    """
    check_positive(beta, "beta")
    arrs = [as_float_array(x, name) for x, name in ((logp_chosen, "logp_chosen"), (logp_rejected, "logp_rejected"),
                                                    (ref_logp_chosen, "ref_logp_chosen"),
                                                    (ref_logp_rejected, "ref_logp_rejected"))]
    try:
        pc, pr, rc, rr = np.broadcast_arrays(*arrs)
    except ValueError:
        raise ValueError(f"四组对数概率的形状不一致：{[x.shape for x in arrs]}") from None
    if np.any(np.stack([pc, pr, rc, rr]) > 0):
        raise ValueError("对数概率必须 <= 0（概率不超过 1）")
    z = beta * ((pc - rc) - (pr - rr))
    return binary_cross_entropy(logits=z, y=np.ones_like(z))
