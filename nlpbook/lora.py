"""LoRA（低秩适配）：冻结预训练权重 W0，只训练每个目标矩阵旁边的一对小矩阵 A、B。

- 行向量约定 y = x @ W（W 形状 (d_in, d_out)，与 attention、layers 模块一致）下，
  适配后的权重 W = W0 + (α/r)·A @ B，A 形状 (d_in, r)、B 形状 (r, d_out)；
  它就是论文里 W0 + (α/r)·B·A 的转置写法（论文按列向量写，W 形状 (d_out, d_in)）。
- 初始化：A ~ N(0, 1/d_in)，B = 0，所以训练开始时模型与预训练模型完全相同。
- 目标矩阵：默认注意力的四个投影 Wq、Wk、Wv、Wo（可加上 FFN 的 W1、W2）；偏置、LayerNorm、向量表都冻结。
- 前向：x @ W0 + (α/r)·(x @ A) @ B（lora_linear）。对这么小的模型，训练时每步先合并再走一遍主体，
  数学上相同：∂L/∂A = (α/r)·∂L/∂W @ Bᵀ，∂L/∂B = (α/r)·Aᵀ @ ∂L/∂W（∂L/∂W 由 body_backward 给出）。
- 可训练的只有 A、B 与分类头；优化器状态也只为它们存一份。
不做的事：不做 dropout、量化（QLoRA）、多个适配器切换。分类头、池化、损失在 finetune 模块。
例：adapters = init_lora(params, rng, r=4, alpha=8)；merged = merge(params, adapters)
"""
from __future__ import annotations

import numpy as np

from ._checks import as_float_array_keep, check_positive, check_rng
from .finetune import check_schedule, classifier_loss_and_grads, extract_features, init_head, train_steps
from .transformer import body_param_names, lm_config

__all__ = ["TARGETS", "init_lora", "lora_scale", "lora_linear", "merge", "lora_loss_and_grads", "count_trainable",
           "train_lora"]

TARGETS = ("Wq", "Wk", "Wv", "Wo")
_ALLOWED = TARGETS + ("W1", "W2")


def init_lora(params: dict, rng, r: int = 4, alpha: float = 8.0, targets=TARGETS) -> dict:
    """每层每个目标矩阵一对 A (d_in, r)、B (r, d_out)；键 "L{i}.{名字}.A" / ".B"，另有 config。教学位置：第 17 章（LoRA）。

    例：随包模型（2 层，d=128）、r=4、四个注意力投影 → 2·4·(128·4 + 4·128) = 8,192 个 LoRA 参数。
    """
    cfg = lm_config(params)
    check_rng(rng)
    check_positive(r, "r", integer=True)
    check_positive(alpha, "alpha")
    targets = tuple(targets)
    if not targets or any(t not in _ALLOWED for t in targets) or len(set(targets)) != len(targets):
        raise ValueError(f"targets 只能从 {_ALLOWED} 里选（不重复、不为空），收到 {targets}")
    dtype = params["tok_emb"].dtype
    A = {"config": {"r": int(r), "alpha": float(alpha), "targets": list(targets)}}
    for i in range(cfg["n_layers"]):
        for t in targets:
            d_in, d_out = params[f"L{i}.{t}"].shape
            if r > min(d_in, d_out):
                raise ValueError(f"r={r} 不能超过矩阵 {t} 的较小一维 {min(d_in, d_out)}")
            A[f"L{i}.{t}.A"] = (rng.standard_normal((d_in, r)) / np.sqrt(d_in)).astype(dtype)
            A[f"L{i}.{t}.B"] = np.zeros((r, d_out), dtype)
    return A


def _check_adapters(adapters) -> dict:
    if not isinstance(adapters, dict) or not isinstance(adapters.get("config"), dict):
        raise TypeError("adapters 必须是 init_lora 给出的字典（含 'config'）")
    return adapters["config"]


def lora_scale(adapters: dict) -> float:
    """缩放系数 α/r。例：r=4、α=8 → 2.0。"""
    c = _check_adapters(adapters)
    return c["alpha"] / c["r"]


def _pairs(adapters):
    return [k[:-2] for k in adapters if k.endswith(".A")]


def lora_linear(x, W0, A, B, scale: float) -> np.ndarray:
    """适配后的线性层（不含偏置）：x @ W0 + scale·(x @ A) @ B。教学位置：第 17 章（LoRA 的前向）。

    先乘 A 把 d_in 维压到 r 维，再乘 B 回到 d_out 维：不必显式算出 d_in × d_out 的增量。
    """
    x, W0, A, B = (as_float_array_keep(a, n) for a, n in ((x, "x"), (W0, "W0"), (A, "A"), (B, "B")))
    if A.shape != (W0.shape[0], A.shape[1]) or B.shape != (A.shape[1], W0.shape[1]):
        raise ValueError(f"A 应为 ({W0.shape[0]}, r)、B 应为 (r, {W0.shape[1]})，收到 {A.shape}、{B.shape}")
    return x @ W0 + scale * ((x @ A) @ B)


def merge(params: dict, adapters: dict) -> dict:
    """合并：返回新的参数字典，目标矩阵换成 W0 + (α/r)·A @ B，其余原样（共用数组）。部署时就没有额外开销。"""
    lm_config(params)
    s = lora_scale(adapters)
    out = dict(params)
    for name in _pairs(adapters):
        out[name] = params[name] + (s * (adapters[name + ".A"] @ adapters[name + ".B"])).astype(params[name].dtype)
    return out


def lora_loss_and_grads(params: dict, adapters: dict, head: dict, ids, lengths, y):
    """分类损失与梯度，只对 A、B 与分类头：返回 (loss, adapter_grads, head_grads)。教学位置：第 17 章。"""
    s = lora_scale(adapters)
    loss, g_head, g_body = classifier_loss_and_grads(merge(params, adapters), head, ids, lengths, y)
    g = {}
    for name in _pairs(adapters):
        dW, A, B = g_body[name], adapters[name + ".A"], adapters[name + ".B"]
        g[name + ".A"] = s * (dW @ B.T)
        g[name + ".B"] = s * (A.T @ dW)
    return loss, g, g_head


def count_trainable(params: dict, adapters: dict | None = None) -> dict:
    """可训练参数的个数：{'full': 主体全部 + 头, 'lora': A、B + 头, 'probe': 只有头}。"""
    cfg = lm_config(params)
    head = cfg["d_model"] + 1
    full = sum(params[k].size for k in body_param_names(cfg)) + head
    out = {"full": int(full), "probe": int(head)}
    if adapters is not None:
        _check_adapters(adapters)
        out["lora"] = int(sum(v.size for k, v in adapters.items() if k != "config") + head)
    return out


def train_lora(params: dict, train, val, *, r: int = 4, alpha: float = 8.0, targets=TARGETS, steps: int = 100,
               batch_size: int = 16, lr: float = 1e-3, seed: int = 0, eval_at=(), clip: float | None = 1.0):
    """冻结 params，只训练 LoRA 与分类头；返回 (adapters, head, history)。教学位置：第 17 章。

    train、val、抽样、优化器、history 的格式都与 finetune.train_classifier 相同，便于在同样的步数下比较。
    """
    cfg = lm_config(params)
    check_schedule(steps, batch_size, lr, eval_at)
    (X, n, y), (Xv, nv, yv) = train, val
    X, n, y, Xv, nv, yv = (np.asarray(a) for a in (X, n, y, Xv, nv, yv))
    rng = np.random.default_rng(seed)
    adapters = init_lora(params, rng, r, alpha, targets)
    head = init_head(cfg["d_model"], params["tok_emb"].dtype)

    def step_fn(idx, opt):
        T = int(n[idx].max())
        loss, g_ad, g_head = lora_loss_and_grads(params, adapters, head, X[idx, :T], n[idx], y[idx])
        opt.step({**adapters, **head}, {**g_ad, **g_head})
        return loss

    def evaluate():
        f = extract_features(merge(params, adapters), Xv, nv)
        z = f @ head["w_cls"].astype(np.float64) + float(head["b_cls"][0])
        return float(np.mean((z >= 0) == (yv == 1)))

    history = train_steps(step_fn, evaluate, len(X), rng, steps=steps, batch_size=batch_size, lr=lr, eval_at=eval_at,
                          clip=clip)
    return adapters, head, history
