"""完整的 Transformer 层与一个小的 decoder-only 语言模型（numpy，前向与手写反向）。

- 一层（第 13.8 节、附录 B）：Pre-LN：U = X + MHA(LN(X))，Y = U + FFN(LN(U))；
  对照用的 Post-LN（原始 Transformer）：Y = LN(X + MHA(X))，Z = LN(Y + FFN(Y))。
- 语言模型（第 11 章）：token 向量 + 位置向量 → L 个 Pre-LN 层（因果遮罩）→ 最后一个 LayerNorm →
  输出层 → 每个位置“下一个 token”的 logits；损失是错开一位的目标上的平均交叉熵。
  位置：默认可学习的位置向量（positions="learned"），也可用固定的正弦编码（"sinusoidal"，第 13.6 节）。
  输出层：默认单独一张 W_out (d, V)（tie=False）；tie=True 时与 token 向量表共享，logits = h @ Eᵀ + b。
- 参数是扁平字典：数组之外还有 params["config"]（头数、层数等），训练、保存、加载都靠它。
不做的事：不做 dropout、KV cache、批量生成、混合精度。注意力在 attention 模块，LayerNorm/FFN 在
layers 模块，Adam 在 optim 模块；训练（train_lm）、困惑度、生成用的 logits、注意力图与随包模型在 tiny_transformer
模块（它导入本模块，本模块不导入它：from nlpbook.tiny_transformer import train_lm）。
"""
from __future__ import annotations

import math

import numpy as np

from ._checks import as_float_array_keep, as_id_array, check_param_dict, check_positive, check_rng, check_upstream_grad
from .attention import causal_mask, init_mha_params, mha_backward, mha_forward, sinusoidal_positions
from .layers import (check_activation, ffn_backward, ffn_forward, init_ffn_params, layer_norm_backward,
                     layer_norm_forward)

__all__ = ["init_block_params", "block_forward", "block_backward", "init_lm_params", "lm_config", "lm_param_shapes",
           "lm_forward", "lm_loss_and_grads", "body_forward", "body_backward", "body_param_names", "lm_token_nll", "lm_next_logits", "layer_norm_forward",
           "layer_norm_backward", "ffn_forward", "ffn_backward"]

EPS = 1e-5
_ATT = ("Wq", "bq", "Wk", "bk", "Wv", "bv", "Wo", "bo")
_FFN = ("W1", "b1", "W2", "b2")
BLOCK_KEYS = ("ln1_g", "ln1_b") + _ATT + ("ln2_g", "ln2_b") + _FFN
_CONFIG_KEYS = ("vocab", "d_model", "n_layers", "n_heads", "d_ff", "max_len", "positions", "tie", "activation")
_float = as_float_array_keep  # float32/float64 原样保留，其余转成 float64；拒绝 NaN 与无穷大


# ---------- 第 13.8 节：一层 ----------
def init_block_params(d_model: int, d_ff: int, rng: np.random.Generator, dtype=np.float32) -> dict:
    """一层的参数：注意力（init_mha_params）、FFN（init_ffn_params）、两个 LayerNorm（gamma=1、beta=0）。"""
    P = {"ln1_g": np.ones(d_model, dtype), "ln1_b": np.zeros(d_model, dtype),
         "ln2_g": np.ones(d_model, dtype), "ln2_b": np.zeros(d_model, dtype)}
    P.update(init_mha_params(d_model, rng, bias=True, dtype=dtype))
    P.update(init_ffn_params(d_model, d_ff, rng, dtype))
    return {k: P[k] for k in BLOCK_KEYS}


def _block_params(params, d: int) -> dict:
    check_param_dict(params, BLOCK_KEYS, hint="（可用 init_block_params 生成）")
    P = {k: _float(params[k], k) for k in BLOCK_KEYS}
    f = P["W1"].shape[-1] if P["W1"].ndim == 2 else 0
    for k in BLOCK_KEYS:
        want = {"W1": (d, f), "b1": (f,), "W2": (f, d)}.get(k, (d, d) if k[0] == "W" else (d,))
        if P[k].shape != want:
            raise ValueError(f"{k} 的形状应为 {want}（d_model={d}），收到 {P[k].shape}")
    return P


def _block_fwd(x2, B, T, P, n_heads, mask, pre_ln, activation):
    """不做检查的内部版本：x2 形状 (B·T, d)，返回 (y2, cache)。"""
    N, d = x2.shape
    att_p, ffn_p = {k: P[k] for k in _ATT}, {k: P[k] for k in _FFN}
    if pre_ln:  # U = X + MHA(LN(X))；Y = U + FFN(LN(U))
        a, c1 = layer_norm_forward(x2, P["ln1_g"], P["ln1_b"], EPS)
        att, ca = mha_forward(a.reshape(B, T, d), att_p, n_heads, mask)
        u = att.reshape(N, d)
        u += x2
        b, c2 = layer_norm_forward(u, P["ln2_g"], P["ln2_b"], EPS)
        y, cf = ffn_forward(b, ffn_p, activation)
        y += u
    else:  # Y = LN(X + MHA(X))；Z = LN(Y + FFN(Y))
        att, ca = mha_forward(x2.reshape(B, T, d), att_p, n_heads, mask)
        s1 = att.reshape(N, d)
        s1 += x2
        y1, c1 = layer_norm_forward(s1, P["ln1_g"], P["ln1_b"], EPS)
        s2, cf = ffn_forward(y1, ffn_p, activation)
        s2 += y1
        y, c2 = layer_norm_forward(s2, P["ln2_g"], P["ln2_b"], EPS)
    return y, (c1, ca, c2, cf, pre_ln, (B, T, d))


def _block_bwd(dy2, cache):
    c1, ca, c2, cf, pre_ln, (B, T, d) = cache
    g = {}
    if pre_ln:
        db, g_ffn = ffn_backward(dy2, cf)
        du, g["ln2_g"], g["ln2_b"] = layer_norm_backward(db, c2)
        du += dy2
        da, g_att = mha_backward(du.reshape(B, T, d), ca)
        dx, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da.reshape(-1, d), c1)
        dx += du
    else:
        ds2, g["ln2_g"], g["ln2_b"] = layer_norm_backward(dy2, c2)
        dy1, g_ffn = ffn_backward(ds2, cf)
        dy1 += ds2
        ds1, g["ln1_g"], g["ln1_b"] = layer_norm_backward(dy1, c1)
        dxa, g_att = mha_backward(ds1.reshape(B, T, d), ca)
        dx = dxa.reshape(-1, d)
        dx += ds1
    g.update(g_att)
    g.update(g_ffn)
    return dx, {k: g[k] for k in BLOCK_KEYS}


def block_forward(x, params: dict, n_heads: int, mask=None, pre_ln: bool = True, activation: str = "gelu"):
    """一个完整的 Transformer 层（自注意力 + FFN，各带残差与 LayerNorm），返回 (y, cache)。

    教学位置：第 13.8 节、附录 B。x (T, d) 或 (batch, T, d)；mask 同 mha_forward（布尔、True = 可以读取）。
    pre_ln=True（默认）：U = X + MHA(LN(X))，Y = U + FFN(LN(U))；
    pre_ln=False：原始 Transformer 的 Post-LN，Y = LN(X + MHA(X))，Z = LN(Y + FFN(Y))。
    例：d=128、d_ff=512（课文的 128 → 512 → 128）时，输出形状与输入相同。
    """
    x = _float(x, "x")
    if x.ndim not in (2, 3):
        raise ValueError(f"x 的形状应为 (T, d_model) 或 (batch, T, d_model)，收到 {x.shape}")
    if not isinstance(pre_ln, bool):
        raise TypeError(f"pre_ln 必须是 True 或 False，收到 {pre_ln!r}")
    check_activation(activation)
    B, T, d = (1,) * (3 - x.ndim) + x.shape
    P = _block_params(params, d)
    y, inner = _block_fwd(x.reshape(B * T, d), B, T, P, n_heads, mask, pre_ln, activation)
    return y.reshape(x.shape), (inner, x.shape)


def block_backward(dy, cache):
    """block_forward 的反向：给 ∂L/∂y，返回 (dx, grads)，grads 的键与 params 相同。"""
    inner, shape = cache
    g = check_upstream_grad(dy, shape, "dy")
    dx, grads = _block_bwd(g.reshape(-1, shape[-1]), inner)
    return dx.reshape(shape), grads


# ---------- 第 11 章：小语言模型 ----------
def init_lm_params(vocab: int, d_model: int, n_layers: int, n_heads: int, d_ff: int, max_len: int,
                   rng: np.random.Generator, *, positions: str = "learned", tie: bool = False,
                   activation: str = "gelu", dtype=np.float32) -> dict:
    """decoder-only 语言模型的参数字典。教学位置：第 11 章、第 13.8 节（“最后接词表预测层”）。

    键：tok_emb (V, d)、pos_emb (max_len, d)（仅 learned）、每层 "L{i}.{名字}"（见 init_block_params）、
    lnf_g/lnf_b（最后的 LayerNorm）、W_out (d, V)（仅 tie=False）、b_out (V,)，以及 config。
    初始化（GPT-2 的做法）：向量表与 W_out ~ N(0, 0.02²)；每层写回残差的 Wo、W2 再乘 1/√(2·层数)。
    例：init_lm_params(3311, 128, 2, 4, 512, 64, rng)（随包模型的设置）有 1,255,919 个参数。
    """
    for name, v in (("vocab", vocab), ("d_model", d_model), ("n_layers", n_layers), ("n_heads", n_heads),
                    ("d_ff", d_ff), ("max_len", max_len)):
        check_positive(v, name, integer=True)
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} 必须能被 n_heads={n_heads} 整除（每个 head 分到 d_model/n_heads 维）")
    if positions not in ("learned", "sinusoidal"):
        raise ValueError(f"positions 只能是 'learned' 或 'sinusoidal'，收到 {positions!r}")
    if positions == "sinusoidal" and d_model % 2:
        raise ValueError(f"正弦位置编码需要偶数的 d_model，收到 {d_model}")
    if not isinstance(tie, bool):
        raise TypeError(f"tie 必须是 True 或 False，收到 {tie!r}")
    check_activation(activation)
    check_rng(rng)
    cfg = dict(vocab=vocab, d_model=d_model, n_layers=n_layers, n_heads=n_heads, d_ff=d_ff, max_len=max_len,
               positions=positions, tie=tie, activation=activation)
    P = {"config": cfg, "tok_emb": (0.02 * rng.standard_normal((vocab, d_model))).astype(dtype)}
    if positions == "learned":
        P["pos_emb"] = (0.02 * rng.standard_normal((max_len, d_model))).astype(dtype)
    for i in range(n_layers):
        blk = init_block_params(d_model, d_ff, rng, dtype)
        for k in ("Wo", "W2"):
            blk[k] *= 1.0 / math.sqrt(2 * n_layers)
        P.update({f"L{i}.{k}": v for k, v in blk.items()})
    P["lnf_g"], P["lnf_b"] = np.ones(d_model, dtype), np.zeros(d_model, dtype)
    if not tie:
        P["W_out"] = (0.02 * rng.standard_normal((d_model, vocab))).astype(dtype)
    P["b_out"] = np.zeros(vocab, dtype)
    return P


def _shapes(cfg: dict) -> dict:
    V, d, f, L = cfg["vocab"], cfg["d_model"], cfg["d_ff"], cfg["max_len"]
    s = {"tok_emb": (V, d)}
    if cfg["positions"] == "learned":
        s["pos_emb"] = (L, d)
    blk = {k: {"W1": (d, f), "b1": (f,), "W2": (f, d)}.get(k, (d, d) if k[0] == "W" else (d,)) for k in BLOCK_KEYS}
    for i in range(cfg["n_layers"]):
        s.update({f"L{i}.{k}": v for k, v in blk.items()})
    s.update({"lnf_g": (d,), "lnf_b": (d,)})
    if not cfg["tie"]:
        s["W_out"] = (d, V)
    s["b_out"] = (V,)
    return s


def _check_config(cfg, name: str) -> dict:
    return check_param_dict(cfg, _CONFIG_KEYS, name, hint="（init_lm_params 记下的设置）")


def lm_param_shapes(config: dict) -> dict:
    """由 config 算出每个参数数组的名字与形状（顺序固定）。教学位置：第 13.8 节；保存、加载模型时按它逐个读写。"""
    return _shapes(_check_config(config, "config"))


def lm_config(params) -> dict:
    """检查语言模型的参数字典（键、dtype、形状、数值有限），返回其中的 config。教学位置：第 11 章、第 13.8 节。"""
    if not isinstance(params, dict) or not isinstance(params.get("config"), dict):
        raise TypeError("params 必须是 init_lm_params（或 train_lm、load_lm）给出的字典，含 'config'")
    cfg = _check_config(params["config"], "params['config']")
    for k, shape in _shapes(cfg).items():
        if k not in params:
            raise ValueError(f"params 缺少 {k!r}")
        a = params[k]
        if not isinstance(a, np.ndarray) or a.dtype not in (np.float32, np.float64):
            raise TypeError(f"params[{k!r}] 必须是 float32 或 float64 的 numpy 数组，收到 {type(a).__name__}")
        _float(a, k)
        if a.shape != shape:
            raise ValueError(f"{k} 的形状应为 {shape}，收到 {a.shape}")
    return cfg


def _check_ids(ids, cfg: dict, name: str = "ids") -> np.ndarray:
    """整数编号 (T,) 或 (B, T) → (B, T)；检查范围（0..vocab-1）、T ≥ 1 与 T ≤ max_len。"""
    a = as_id_array(ids, name, size=cfg["vocab"], allow_empty=False, ndims=(1, 2))
    if a.shape[-1] > cfg["max_len"]:
        raise ValueError(f"序列长度 T={a.shape[-1]} 超过模型的 max_len={cfg['max_len']}；请截短或分段")
    return a.reshape(-1, a.shape[-1])


def _blocks(P, cfg):
    return [{k: P[f"L{i}.{k}"] for k in BLOCK_KEYS} for i in range(cfg["n_layers"])]


def _lm_fwd(P, cfg, ids2):
    """ids2 (B, T) → 最后 LayerNorm 之后的表示 hn (B·T, d) 与反向要用的 cache。"""
    B, T = ids2.shape
    d = cfg["d_model"]
    h = P["tok_emb"][ids2.reshape(-1)]
    pos = P["pos_emb"][:T] if cfg["positions"] == "learned" else sinusoidal_positions(T, d).astype(h.dtype)
    h.reshape(B, T, d)[...] += pos
    mask = causal_mask(T)
    caches = []
    for blk in _blocks(P, cfg):
        h, c = _block_fwd(h, B, T, blk, cfg["n_heads"], mask, True, cfg["activation"])
        caches.append(c)
    hn, cf = layer_norm_forward(h, P["lnf_g"], P["lnf_b"], EPS)
    return hn, (caches, cf, ids2)


def _logits(P, cfg, hn):
    z = hn @ (P["tok_emb"].T if cfg["tie"] else P["W_out"])
    z += P["b_out"]
    return z


def _nll_rows(z, y):
    """就地：z 变成 softmax 概率；返回每行 −ln p(目标)（float64）。"""
    z -= z.max(axis=1, keepdims=True)
    zt = z[np.arange(len(y)), y].astype(np.float64)
    np.exp(z, out=z)
    s = z.sum(axis=1, keepdims=True)
    z /= s
    return np.log(s[:, 0].astype(np.float64)) - zt


def _lm_loss_grads(P, cfg, ids2, y2):
    hn, (caches, cf, _) = _lm_fwd(P, cfg, ids2)
    N = hn.shape[0]
    y = y2.reshape(-1)
    dz = _logits(P, cfg, hn)
    loss = float(_nll_rows(dz, y).mean())
    dz[np.arange(N), y] -= 1.0
    dz *= 1.0 / N
    g = {"b_out": dz.sum(axis=0)}
    if cfg["tie"]:
        dE = dz.T @ hn
        dh = dz @ P["tok_emb"]
    else:
        g["W_out"] = hn.T @ dz
        dE = np.zeros_like(P["tok_emb"])
        dh = dz @ P["W_out"].T
    del dz
    _body_bwd(P, cfg, dh, caches, cf, ids2, dE, g)
    return loss, {k: g[k] for k in _shapes(cfg)}


def _body_bwd(P, cfg, dh, caches, cf, ids2, dE, g):
    """从 ∂L/∂hn (B·T, d) 反传到最后的 LayerNorm、各层、位置向量与 token 向量表；梯度写进 g（就地）。"""
    dh, g["lnf_g"], g["lnf_b"] = layer_norm_backward(dh, cf)
    for i in range(cfg["n_layers"] - 1, -1, -1):
        dh, gi = _block_bwd(dh, caches[i])
        g.update({f"L{i}.{k}": v for k, v in gi.items()})
    B, T = ids2.shape
    if cfg["positions"] == "learned":
        g["pos_emb"] = np.zeros_like(P["pos_emb"])
        g["pos_emb"][:T] = dh.reshape(B, T, -1).sum(axis=0)
    np.add.at(dE, ids2.reshape(-1), dh)  # 同一个 token 出现多次时梯度要累加（不能写 dE[ids] += dh）
    g["tok_emb"] = dE


def lm_forward(params: dict, ids):
    """ids (T,) 或 (batch, T) → (logits, cache)，logits 形状 (..., T, V)：每个位置“下一个 token”的分数。

    教学位置：第 11.1—11.2 节、第 13.5 节（因果遮罩：位置 t 只读 0..t，改动后面的 token 不影响前面的 logits）。
    cache["hidden"] 是最后 LayerNorm 之后的表示，cache["attention"] 是每层各 head 的权重 (batch, h, T, T)。
    """
    cfg = lm_config(params)
    ids2 = _check_ids(ids, cfg)
    hn, (caches, _, _) = _lm_fwd(params, cfg, ids2)
    shape = np.shape(ids)
    z = _logits(params, cfg, hn).reshape(shape + (cfg["vocab"],))
    cache = {"hidden": hn.reshape(shape + (cfg["d_model"],)), "attention": [c[1]["weights"] for c in caches]}
    return z, cache


def lm_loss_and_grads(params: dict, ids, targets):
    """平均交叉熵（每个位置预测下一个 token）与全部参数的梯度（手写反向，含词向量表）。返回 (loss, grads)。

    教学位置：第 11.2 节（输入与目标错开一位：ids = 文本[:-1]，targets = 文本[1:]）。
    ids、targets 同形状 (T,) 或 (batch, T)。grads 的键与 params 的数组键相同（不含 config）。
    """
    cfg = lm_config(params)
    ids2 = _check_ids(ids, cfg)
    y2 = _check_ids(targets, cfg, "targets")
    if np.shape(ids) != np.shape(targets):
        raise ValueError(f"ids 与 targets 形状必须相同，收到 {np.shape(ids)} 与 {np.shape(targets)}")
    return _lm_loss_grads(params, cfg, ids2, y2)


def body_param_names(config: dict) -> list:
    """主体（输出层之前）的参数名：token/位置向量、各层、最后的 LayerNorm；不含 W_out、b_out。教学位置：第 15.6 节。"""
    return [k for k in _shapes(_check_config(config, "config")) if k not in ("W_out", "b_out")]


def body_forward(params: dict, ids):
    """只算主体：ids (T,) 或 (batch, T) → (hidden, cache)，hidden 是最后 LayerNorm 之后的表示 (..., T, d)。

    教学位置：第 15.6 节（预训练的主体接一个分类头：不需要词表上的输出层）。
    cache 交给 body_backward。例：随包模型、ids 形状 (8, 64) → hidden 形状 (8, 64, 128)。
    """
    cfg = lm_config(params)
    ids2 = _check_ids(ids, cfg)
    hn, (caches, cf, _) = _lm_fwd(params, cfg, ids2)
    shape = np.shape(ids)
    return hn.reshape(shape + (cfg["d_model"],)), {"cfg": cfg, "params": params, "caches": caches, "cf": cf,
                                                   "ids2": ids2, "shape": shape}


def body_backward(d_hidden, cache) -> dict:
    """body_forward 的反向：给 ∂L/∂hidden（形状同 hidden），返回主体全部参数的梯度（键见 body_param_names）。"""
    if not isinstance(cache, dict) or "caches" not in cache:
        raise TypeError("cache 必须是 body_forward 返回的第二项")
    cfg, P, ids2 = cache["cfg"], cache["params"], cache["ids2"]
    dh = check_upstream_grad(d_hidden, cache["shape"] + (cfg["d_model"],), "d_hidden")
    dh = dh.reshape(-1, cfg["d_model"]).astype(P["tok_emb"].dtype, copy=True)
    g = {}
    _body_bwd(P, cfg, dh, cache["caches"], cache["cf"], ids2, np.zeros_like(P["tok_emb"]), g)
    return {k: g[k] for k in body_param_names(cfg)}


def lm_token_nll(params: dict, ids, targets) -> np.ndarray:
    """每个位置上目标 token 的负对数概率 −ln p（float64），形状同 ids。教学位置：第 11.2、11.5 节。

    ids、targets 同 lm_loss_and_grads；平均起来就是损失，exp(平均) 就是困惑度（tiny_transformer.lm_perplexity）。
    """
    cfg = lm_config(params)
    ids2 = _check_ids(ids, cfg)
    y2 = _check_ids(targets, cfg, "targets")
    if np.shape(ids) != np.shape(targets):
        raise ValueError(f"ids 与 targets 形状必须相同，收到 {np.shape(ids)} 与 {np.shape(targets)}")
    hn, _ = _lm_fwd(params, cfg, ids2)
    return _nll_rows(_logits(params, cfg, hn), y2.reshape(-1)).reshape(np.shape(ids))


def lm_next_logits(params: dict, ids) -> np.ndarray:
    """读完 ids (T,)，只在最后一个位置算输出层：下一个 token 的 logits (V,)。教学位置：第 11.1 节。

    逐字生成时每步只需要它，不必算其余位置的输出层。T 不能超过 max_len
    （更长的前文先截取最后 max_len 个，见 tiny_transformer.generate_logits）。
    """
    cfg = lm_config(params)
    ids2 = _check_ids(ids, cfg)
    if np.ndim(ids) != 1:
        raise ValueError(f"ids 必须是一维编号序列 (T,)，收到形状 {np.shape(ids)}")
    hn, _ = _lm_fwd(params, cfg, ids2)
    return _logits(params, cfg, hn[-1:])[0]
