"""注意力（numpy）：打分 → 缩放 → 遮罩 → softmax → 加权求和，多头注意力的前向与手写反向，位置编码。

约定（全模块统一）：
- mask 一律是布尔数组，True 表示“可以读取”，False 表示“禁止读取”；形状可广播到分数表 (..., n_q, n_k)。
  被禁止的分数在 softmax 前设为 -∞，权重恰好为 0。有的库用 True 表示“遮住”、或用 0/-∞ 的加法遮罩，
  这里不接受整数或浮点遮罩，免得方向弄反。某一行全被禁止时报错（不返回 NaN）。
- 行向量约定：Q = X @ W_Q（课文第 13.2 节的 Q=XW_Q），权重矩阵形状 (d_in, d_out)。
- float32 输入保持 float32（训练用），其余转成 float64。
不做的事：不做 dropout、KV cache、分块（FlashAttention 式）计算；LayerNorm、FFN 与整层 Transformer
不在这里。第 13 章“注意力浏览器”一节的演示数据在 attention_demo 模块。
"""
from __future__ import annotations

import math

import numpy as np

from ._checks import as_float_array, as_float_array_keep, check_param_dict, check_positive, check_rng, check_upstream_grad

__all__ = ["attention_scores", "apply_mask", "masked_softmax", "attention_steps",
           "scaled_dot_product_attention", "attention_from_scores", "causal_mask", "padding_mask",
           "split_heads", "merge_heads", "init_mha_params", "mha_forward", "mha_backward",
           "multi_head_attention", "sinusoidal_positions", "rope"]


# ---------- 输入检查 ----------
_arr = as_float_array_keep  # float32 原样保留，拒绝 NaN/inf（_checks 里的共用检查）


def _seq(a, name: str, what: str) -> np.ndarray:
    a = _arr(a, name)
    if a.ndim < 2:
        raise ValueError(f"{name} 的形状应为 {what}，至少 2 维，收到 {a.shape}；单个向量请写成 {name}[None]")
    return a


def _scores_arr(scores) -> np.ndarray:
    """分数表：允许 -∞（被遮罩的位置），不允许 NaN 与 +∞；float32 原样保留。"""
    s = as_float_array_keep(scores, "scores", allow_neg_inf=True)
    if s.ndim == 0 or s.shape[-1] == 0:
        raise ValueError(f"scores 至少要有 1 维且最后一维（候选位置数）不为 0，收到形状 {s.shape}")
    return s


def _bool_mask(mask, target: tuple) -> np.ndarray:
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"mask 必须是布尔数组（True = 可以读取，False = 禁止），收到 dtype {m.dtype}；"
                        "若是 0/1 数组，先确认 1 表示“可以读取”，再用 mask.astype(bool)")
    try:
        np.broadcast_shapes(m.shape, target)
    except ValueError:
        raise ValueError(f"mask 形状 {m.shape} 不能广播到分数表形状 {target}（..., n_q, n_k）") from None
    return m


def _empty_row_error(row_is_empty: np.ndarray) -> ValueError:
    idx = tuple(int(i) for i in np.argwhere(row_is_empty)[0])
    where = f"批量下标 {idx[:-1]}、" if len(idx) > 1 else ""
    return ValueError(f"第 {idx} 行（{where}query 位置 {idx[-1]}）的所有位置都被遮罩：没有可读取的 key，"
                      "softmax 无定义。请检查 mask，每个 query 至少要能读一个位置（因果遮罩下至少能读自己）")


# ---------- 第 12、13.3、13.5 节：一次注意力的各个步骤 ----------
def attention_scores(q, k, scale: bool = True) -> np.ndarray:
    """分数表 q @ kᵀ（scale=True 时再除以 √d_k）。教学位置：第 13.3 节第一、二步。

    q (..., n_q, d_k)，k (..., n_k, d_k) → (..., n_q, n_k)。
    例：q=[[1,0]]，k=[[1,0],[0,1],[1,1]] → [[0.707, 0, 0.707]]（未缩放时 [[1, 0, 1]]）
    """
    q = _seq(q, "q", "(..., n_q, d_k)")
    k = _seq(k, "k", "(..., n_k, d_k)")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q 与 k 的最后一维（d_k）必须相同，收到 q {q.shape}、k {k.shape}")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except ValueError:
        raise ValueError(f"q 与 k 的批量维无法广播，收到 q {q.shape}、k {k.shape}") from None
    s = q @ np.swapaxes(k, -1, -2)
    return s / math.sqrt(q.shape[-1]) if scale else s


def apply_mask(scores, mask) -> np.ndarray:
    """把 mask 为 False 的分数设为 -∞（mask 为 True = 可以读取）。教学位置：第 13.5 节。

    例：apply_mask([[0.707, 0, 0.707]], causal_mask(3)[:1]) → [[0.707, -inf, -inf]]
    """
    s = _scores_arr(scores)
    if mask is None:
        return s.copy()
    m = _bool_mask(mask, s.shape)
    return np.where(m, s, -np.inf).astype(s.dtype, copy=False)


def masked_softmax(scores) -> np.ndarray:
    """在最后一维上做 softmax，接受 -∞（权重恰好为 0）；整行都是 -∞ 时报错并指出是哪一行。

    教学位置：第 12.3 节、第 13.3 节第三步、第 13.5 节。先减去每行最大值再取指数，稳定。
    （functional.softmax 不接受 -∞，所以遮罩后的分数用这个函数。）
    例：masked_softmax([0, 1, 2]) → [0.090, 0.245, 0.665]；[0.707, -inf, -inf] → [1, 0, 0]
    """
    s = _scores_arr(scores)
    mx = s.max(axis=-1, keepdims=True)
    if np.isneginf(mx).any():
        raise _empty_row_error(np.isneginf(mx[..., 0]).reshape(mx.shape[:-1] or (1,)))
    e = np.exp(s - mx)
    return e / e.sum(axis=-1, keepdims=True)


def attention_steps(q, k, v, mask=None, scale: bool = True) -> dict:
    """把一次注意力拆成几步，便于逐步展示。教学位置：第 13.3 节的四步、第 13.5 节。

    返回 dict：scores（q·kᵀ）、scaled（÷√d_k；scale=False 时同 scores）、masked（禁止处为 -∞）、
    weights（softmax，每行和为 1）、output（weights @ v，形状 (..., n_q, d_v)）。
    """
    scores = attention_scores(q, k, scale=False)
    q, k, v = _arr(q, "q"), _arr(k, "k"), _seq(v, "v", "(..., n_k, d_v)")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"k 与 v 的位置数（倒数第二维 n_k）必须相同，收到 q {q.shape}、k {k.shape}、v {v.shape}")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(f"q、k、v 的批量维无法广播，收到 q {q.shape}、k {k.shape}、v {v.shape}") from None
    scaled = scores / math.sqrt(q.shape[-1]) if scale else scores
    masked = apply_mask(scaled, mask)
    weights = masked_softmax(masked)
    return {"scores": scores, "scaled": scaled, "masked": masked, "weights": weights, "output": weights @ v}


def scaled_dot_product_attention(q, k, v, mask=None, scale: bool = True):
    """softmax(q kᵀ / √d_k) v，返回 (output, weights)。教学位置：第 13.3 节的公式。

    q (..., n_q, d_k)，k (..., n_k, d_k)，v (..., n_k, d_v)；mask 为布尔、True = 可以读取，
    可广播到 (..., n_q, n_k)。被遮罩的权重恰好为 0；形状不合时报错并列出收到的形状。
    例：第 13.3 节 A/B/C → A 的权重 [0.401, 0.198, 0.401]，输出 [0.802, 1.198]
    """
    st = attention_steps(q, k, v, mask=mask, scale=scale)
    return st["output"], st["weights"]


def attention_from_scores(scores, v, mask=None):
    """分数已经算好时：softmax 成权重，再按权重组合 v。返回 (context, weights)。教学位置：第 12.3—12.4 节。

    scores (..., n_q, n_k) 或一维 (n_k,)，v (..., n_k, d_v)。
    例：scores [0, 1, 2]，v [[1,0],[0,1],[1,1]] → 权重 [0.090, 0.245, 0.665]，上下文 [0.755, 0.910]
    """
    s = _scores_arr(scores)
    v = _seq(v, "v", "(..., n_k, d_v)")
    if s.shape[-1] != v.shape[-2]:
        raise ValueError(f"scores 的候选数 {s.shape[-1]} 必须等于 v 的位置数（倒数第二维），"
                         f"收到 scores {s.shape}、v {v.shape}")
    w = masked_softmax(apply_mask(s, mask))
    return w @ v, w


def causal_mask(n: int) -> np.ndarray:
    """因果遮罩 (n, n)：下三角（含对角线）为 True，位置 i 只能读 0..i。教学位置：第 13.5 节。

    例：causal_mask(3) → [[T,F,F],[T,T,F],[T,T,T]]
    """
    check_positive(n, "n", integer=True)
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(lengths, n: int) -> np.ndarray:
    """padding 遮罩 (batch, 1, n)：真实 token 为 True，补齐的占位符为 False。教学位置：第 13.5 节。

    中间的 1 让它按 key 的位置广播到每个 query；与因果遮罩合用：causal_mask(n) & padding_mask(lengths, n)
    → (batch, n, n)。例：padding_mask([2, 3], 3) → [[[T,T,F]], [[T,T,T]]]
    """
    check_positive(n, "n", integer=True)
    L = np.asarray(lengths)
    if L.dtype.kind not in "iu" or L.ndim != 1 or L.size == 0:
        raise TypeError(f"lengths 必须是非空的一维整数数组（每条序列的真实长度），收到 dtype {L.dtype}、形状 {L.shape}")
    if L.min() < 1 or L.max() > n:
        raise ValueError(f"lengths 必须在 1..{n} 之间（长度 0 的序列没有可读取的位置），收到 {L.tolist()}")
    return (np.arange(n)[None, :] < L[:, None])[:, None, :]


# ---------- 第 13.7 节：多头 ----------
def split_heads(x, n_heads: int) -> np.ndarray:
    """(..., T, d) → (..., n_heads, T, d/n_heads)：把特征维切成几段，每个 head 一段。教学位置：第 13.7 节。

    例：d=128、4 个 head → 每个 head 32 维。merge_heads 是它的逆运算。
    """
    x = _seq(x, "x", "(..., T, d)")
    check_positive(n_heads, "n_heads", integer=True)
    if x.shape[-1] % n_heads:
        raise ValueError(f"特征维 d={x.shape[-1]} 必须能被 n_heads={n_heads} 整除（x 形状 {x.shape}）")
    return _split(x, n_heads)


def merge_heads(x) -> np.ndarray:
    """(..., n_heads, T, d_head) → (..., T, n_heads·d_head)：把各 head 的结果拼接回来。教学位置：第 13.7 节。"""
    x = _arr(x, "x")
    if x.ndim < 3:
        raise ValueError(f"x 的形状应为 (..., n_heads, T, d_head)，至少 3 维，收到 {x.shape}")
    return _merge(x)


def _split(x: np.ndarray, h: int) -> np.ndarray:  # 不做检查的内部版本（训练循环里用）
    return np.swapaxes(x.reshape(*x.shape[:-1], h, x.shape[-1] // h), -2, -3)


def _merge(x: np.ndarray) -> np.ndarray:
    y = np.swapaxes(x, -2, -3)
    return y.reshape(*y.shape[:-2], y.shape[-2] * y.shape[-1])


_W, _B = ("Wq", "Wk", "Wv", "Wo"), ("bq", "bk", "bv", "bo")


def init_mha_params(d_model: int, rng: np.random.Generator, bias: bool = True, dtype=np.float32) -> dict:
    """多头注意力参数：Wq、Wk、Wv、Wo 为 (d_model, d_model)，元素 ~ N(0, 1/d_model)；bias=True 时偏置为 0。"""
    check_positive(d_model, "d_model", integer=True)
    check_rng(rng)
    p = {w: (rng.standard_normal((d_model, d_model)) / math.sqrt(d_model)).astype(dtype) for w in _W}
    if bias:
        p.update({b: np.zeros(d_model, dtype=dtype) for b in _B})
    return p


def _mha_params(params, d: int) -> dict:
    check_param_dict(params, _W, hint=f"（偏置 {_B} 可选；可用 init_mha_params 生成）")
    P = {}
    for w in _W:
        P[w] = _arr(params[w], w)
        if P[w].shape != (d, d):
            raise ValueError(f"{w} 的形状应为 ({d}, {d})（d_model × d_model），收到 {P[w].shape}")
    for b in _B:
        if params.get(b) is not None:
            P[b] = _arr(params[b], b)
            if P[b].shape != (d,):
                raise ValueError(f"{b} 的形状应为 ({d},)，收到 {P[b].shape}")
    return P


def mha_forward(x, params: dict, n_heads: int, mask=None):
    """多头自注意力前向：返回 (out, cache)。教学位置：第 13.7 节（还不含残差与 LayerNorm）。

    x (T, d) 或 (batch, T, d)；params 见 init_mha_params；mask 布尔、True = 可以读取，
    可广播到 (batch, T, T)，如 causal_mask(T)、padding_mask(lengths, T) 或两者的 &，各 head 共用。
    计算：Q=xWq+bq（K、V 同理）→ 拆成 n_heads 份 → softmax(QKᵀ/√d_head + 遮罩) V → 拼接 → @Wo+bo。
    cache["weights"] 是各 head 的权重 (batch, n_heads, T, T)；cache 交给 mha_backward。
    """
    x = _arr(x, "x")
    if x.ndim not in (2, 3):
        raise ValueError(f"x 的形状应为 (T, d_model) 或 (batch, T, d_model)，收到 {x.shape}")
    xb = x[None] if x.ndim == 2 else x
    B, T, d = xb.shape
    P = _mha_params(params, d)
    check_positive(n_heads, "n_heads", integer=True)
    if d % n_heads:
        raise ValueError(f"d_model={d} 必须能被 n_heads={n_heads} 整除")
    blocked = None
    if mask is not None:
        m = _bool_mask(mask, (B, T, T))
        if np.broadcast_shapes(m.shape, (B, T, T)) != (B, T, T):
            raise ValueError(f"mask 形状 {m.shape} 广播后应为 (batch, T, T) = {(B, T, T)}")
        m = np.broadcast_to(m, (B, T, T))
        row_ok = m.any(axis=-1)
        if not row_ok.all():
            raise _empty_row_error(~row_ok)
        blocked = ~m[:, None]  # (B, 1, T, T)，各 head 共用
    x2 = xb.reshape(B * T, d)

    def proj(w, b):
        y = x2 @ P[w]
        if b in P:
            y += P[b]
        return _split(y.reshape(B, T, d), n_heads)  # (B, h, T, d_head)

    q, k, v = proj("Wq", "bq"), proj("Wk", "bk"), proj("Wv", "bv")
    scale = 1.0 / math.sqrt(d // n_heads)
    s = q @ np.swapaxes(k, -1, -2)
    s *= scale
    if blocked is not None:
        np.copyto(s, -np.inf, where=blocked)
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)  # 现在 s 就是权重
    ctx2 = _merge(s @ v).reshape(B * T, d)
    out = ctx2 @ P["Wo"]
    if "bo" in P:
        out += P["bo"]
    cache = {"x2": x2, "q": q, "k": k, "v": v, "weights": s, "ctx2": ctx2, "params": P,
             "n_heads": n_heads, "scale": scale, "shape": (B, T, d), "x_shape": x.shape}
    return out.reshape(x.shape), cache


def mha_backward(d_out, cache: dict):
    """mha_forward 的反向：给 ∂L/∂out（形状同 out），返回 (dx, grads)，grads 的键与 params 相同。

    softmax 的反向：dS = P ⊙ (dP − Σ_j dP⊙P)，被遮罩处 P=0，梯度也为 0。测试用有限差分检验。
    """
    B, T, d = cache["shape"]
    P, h, scale = cache["params"], cache["n_heads"], cache["scale"]
    g = check_upstream_grad(d_out, cache["x_shape"], "d_out")
    g2 = g.reshape(B * T, d)
    q, k, v, w = cache["q"], cache["k"], cache["v"], cache["weights"]
    grads = {"Wo": cache["ctx2"].T @ g2}
    dy = _split((g2 @ P["Wo"].T).reshape(B, T, d), h)
    dv = np.swapaxes(w, -1, -2) @ dy
    ds = dy @ np.swapaxes(v, -1, -2)
    ds -= (ds * w).sum(axis=-1, keepdims=True)
    ds *= w
    ds *= scale
    dq, dk = ds @ k, np.swapaxes(ds, -1, -2) @ q
    dx2 = None
    for name, dh in (("q", dq), ("k", dk), ("v", dv)):
        d2 = _merge(dh).reshape(B * T, d)
        grads["W" + name] = cache["x2"].T @ d2
        if "b" + name in P:
            grads["b" + name] = d2.sum(axis=0)
        part = d2 @ P["W" + name].T
        if dx2 is None:
            dx2 = part
        else:
            dx2 += part
    if "bo" in P:
        grads["bo"] = g2.sum(axis=0)
    return dx2.reshape(cache["x_shape"]), {key: grads[key] for key in P}


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads: int, mask=None):
    """不带偏置的多头自注意力，返回 (out, 各 head 的权重)。教学位置：第 13.7 节。

    x (T, d) → 权重 (n_heads, T, T)；x (batch, T, d) → (batch, n_heads, T, T)。训练请用 mha_forward/mha_backward。
    """
    out, cache = mha_forward(x, {"Wq": Wq, "Wk": Wk, "Wv": Wv, "Wo": Wo}, n_heads, mask)
    w = cache["weights"]
    return out, (w[0] if np.ndim(x) == 2 else w)


# ---------- 第 13.6 节：位置 ----------
def sinusoidal_positions(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """正弦/余弦位置编码 (n, d)（Vaswani 等 2017 §3.5）。教学位置：第 13.6 节。

    PE[pos, 2i] = sin(pos / base^(2i/d))，PE[pos, 2i+1] = cos(pos / base^(2i/d))。用法：token 向量 + 位置向量。
    例：sinusoidal_positions(2, 4)[1] → [0.841, 0.540, 0.010, 1.000]
    """
    check_positive(n, "n", integer=True)
    check_positive(d, "d", integer=True)
    check_positive(base, "base")
    ang = np.arange(n)[:, None] / base ** (np.arange(0, d, 2) / d)
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(ang)
    pe[:, 1::2] = np.cos(ang)[:, :d // 2]
    return pe


def rope(x, positions=None, base: float = 10000.0) -> np.ndarray:
    """旋转位置编码 RoPE（Su 等 2021）：把第 (2i, 2i+1) 两维看作平面上的点，按位置 m 旋转角度 m·θ_i，
    θ_i = base^(-2i/d)。教学位置：第 13.6 节。

    x (..., T, d)（d 为偶数），positions 默认 0..T-1，也可给整数或可广播到 x.shape[:-1] 的数组
    （x 是单个向量 (d,) 时必须给出）。性质：⟨rope(q, m), rope(k, n)⟩ 只取决于 m − n（相对位置）。
    旋转是正交变换，反向就是反着转：∂L/∂x = rope(∂L/∂y, -positions)。
    """
    x = _arr(x, "x")
    if x.ndim == 0 or x.shape[-1] % 2:
        raise ValueError(f"RoPE 把相邻两维配成一对来旋转，最后一维必须是偶数，收到形状 {x.shape}")
    check_positive(base, "base")
    if positions is None:
        if x.ndim < 2:
            raise ValueError("x 是单个向量时请给出 positions（它所在的位置）")
        pos = np.arange(x.shape[-2], dtype=float)
    else:
        pos = as_float_array(positions, "positions")
    try:
        np.broadcast_shapes(pos.shape, x.shape[:-1])
    except ValueError:
        raise ValueError(f"positions 形状 {pos.shape} 不能广播到 x 去掉最后一维的形状 {x.shape[:-1]}") from None
    d = x.shape[-1]
    ang = pos[..., None] * base ** (-np.arange(0, d, 2) / d)
    c, s = np.cos(ang).astype(x.dtype), np.sin(ang).astype(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    y0, y1 = x0 * c - x1 * s, x0 * s + x1 * c
    return np.stack([y0, y1], axis=-1).reshape(*y0.shape[:-1], d)
