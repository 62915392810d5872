"""把预训练的小 Transformer 改成情感分类器：分类头、池化、损失与梯度、三种训练方式。

- 编码：评论按预训练模型的字表编号，只读前 max_len 个字（随包模型 max_len = 64），右侧用 0 补齐。
- 池化：最后 LayerNorm 之后的表示，在真实（非补齐）位置上取平均。因果注意力下，补在右边的位置
  不会被前面的真实位置读到，所以补多少都不改变真实位置的表示，不需要额外的遮罩。
- 分类头：两类的逻辑回归，logit = 池化向量 · w + b；损失是平均二元交叉熵。
- 三种方式（同样的步数、批大小、数据）：scratch（同一结构、随机初始化、全部训练）、
  probe（主体冻结：特征只算一次，再训练逻辑回归）、full（从预训练权重出发、全部训练）。
不做的事：不做 dropout、学习率调度与早停；主体的前向与反向在 transformer 模块（body_forward / body_backward）。
例：head = init_head(128)；loss, g_head, g_body = classifier_loss_and_grads(params, head, ids, lengths, y)
"""
from __future__ import annotations

import copy

import numpy as np

from ._checks import as_float_array_keep, check_positive, check_rng
from .optim import Adam, single_thread_blas
from .transformer import body_backward, body_forward, body_param_names, init_lm_params, lm_config

__all__ = ["REGIMES", "encode_texts", "encode_reviews", "fixed_subset", "mean_pool", "mean_pool_backward", "init_head", "classifier_forward",
           "classifier_loss_and_grads", "extract_features", "predict_proba", "accuracy", "check_schedule", "train_steps", "train_classifier"]

REGIMES = ("scratch", "probe", "full")
PAD_ID = 0


def encode_texts(encode, texts, max_len: int = 64):
    """一组文本 → (ids (N, max_len) 的 int64 数组, lengths (N,))。教学位置：第 15.6 节。

    encode 是“文本 → 编号列表”的函数（如 load_pretrained().encode）；每条只取前 max_len 个字，右侧补 0。
    例：encode_texts(lm.encode, ["很好", "差"], 4) → ids [[a, b, 0, 0], [c, 0, 0, 0]]，lengths [2, 1]
    """
    if not callable(encode):
        raise TypeError("encode 必须是函数：文本 → 编号列表（如 load_pretrained().encode）")
    check_positive(max_len, "max_len", integer=True)
    if isinstance(texts, str):
        raise TypeError("texts 必须是文本列表，收到一个字符串")
    texts = list(texts)
    if not texts:
        raise ValueError("texts 不能为空")
    ids = np.full((len(texts), max_len), PAD_ID, dtype=np.int64)
    lengths = np.zeros(len(texts), dtype=np.int64)
    for i, t in enumerate(texts):
        e = list(encode(t))[:max_len]
        if not e:
            raise ValueError(f"第 {i} 条文本是空的：每条至少要有一个字")
        ids[i, :len(e)] = e
        lengths[i] = len(e)
    return ids, lengths


def encode_reviews(reviews, encode, max_len: int = 64):
    """评论（有 .text 与 .label 的对象，如 datasets.load_reviews 给的 Review）→ (ids, lengths, y)。

    教学位置：第 15.6 节。ids、lengths 同 encode_texts；y 是 0/1 标签（int64）。
    """
    reviews = list(reviews)
    ids, lengths = encode_texts(encode, [r.text for r in reviews], max_len)
    return ids, lengths, np.array([int(r.label) for r in reviews], dtype=np.int64)


def fixed_subset(n: int, size: int, seed: int = 0) -> np.ndarray:
    """从 n 条里按 seed 固定地抽 size 条（不放回），返回排好序的下标。例：fixed_subset(10, 3) 每次都相同。"""
    check_positive(n, "n", integer=True)
    check_positive(size, "size", integer=True)
    if size > n:
        raise ValueError(f"size={size} 不能超过总条数 n={n}")
    return np.sort(np.random.default_rng(seed).permutation(n)[:size])


def _lengths(lengths, B: int, T: int) -> np.ndarray:
    a = np.asarray(lengths)
    if a.shape != (B,) or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"lengths 必须是 {B} 个整数，收到形状 {a.shape}、类型 {a.dtype}")
    if (a < 1).any() or (a > T).any():
        raise ValueError(f"lengths 的每个值必须在 1..{T} 之间（至少一个真实位置，不超过序列长度）")
    return a


def mean_pool(h, lengths) -> np.ndarray:
    """h (B, T, d)，只在每条的前 lengths[i] 个位置上取平均 → (B, d)。教学位置：第 15.6 节。

    例：h[0] 的三行是 [1, 1]、[3, 3]、[9, 9]（最后一行是补齐），lengths [2] → [2, 2]
    """
    h = as_float_array_keep(h, "h")
    if h.ndim != 3:
        raise ValueError(f"h 的形状应为 (batch, T, d)，收到 {h.shape}")
    B, T, _ = h.shape
    n = _lengths(lengths, B, T)
    m = (np.arange(T)[None, :] < n[:, None]).astype(h.dtype)
    return np.einsum("bt,btd->bd", m, h) / n[:, None].astype(h.dtype)


def mean_pool_backward(d_pooled, lengths, T: int) -> np.ndarray:
    """mean_pool 的反向：∂L/∂pooled (B, d) → ∂L/∂h (B, T, d)；补齐位置的梯度为 0。"""
    g = as_float_array_keep(d_pooled, "d_pooled")
    if g.ndim != 2:
        raise ValueError(f"d_pooled 的形状应为 (batch, d)，收到 {g.shape}")
    n = _lengths(lengths, g.shape[0], T)
    m = (np.arange(T)[None, :] < n[:, None]).astype(g.dtype) / n[:, None].astype(g.dtype)
    return m[:, :, None] * g[:, None, :]


def init_head(d_model: int, dtype=np.float32) -> dict:
    """分类头 {'w_cls': (d,), 'b_cls': (1,)}，全 0 起步（与第 4 章的逻辑回归一样：起点预测概率 0.5）。"""
    check_positive(d_model, "d_model", integer=True)
    return {"w_cls": np.zeros(d_model, dtype), "b_cls": np.zeros(1, dtype)}


def _check_head(head, d: int) -> None:
    if not isinstance(head, dict) or set(head) != {"w_cls", "b_cls"}:
        raise TypeError("head 必须是 init_head 给出的字典 {'w_cls', 'b_cls'}")
    if np.shape(head["w_cls"]) != (d,) or np.shape(head["b_cls"]) != (1,):
        raise ValueError(f"head 的形状应为 w_cls ({d},)、b_cls (1,)，收到 {np.shape(head['w_cls'])}、"
                         f"{np.shape(head['b_cls'])}")


def _labels(y, B: int) -> np.ndarray:
    a = np.asarray(y)
    if a.shape != (B,) or not np.isin(a, (0, 1)).all():
        raise ValueError(f"y 必须是 {B} 个 0/1 标签（0 = 差评，1 = 好评）")
    return a.astype(np.float64)


def classifier_forward(params: dict, head: dict, ids, lengths):
    """主体 → 平均池化 → 分类头，返回 (logits (B,), cache)。教学位置：第 15.6 节。ids 形状 (B, T)。"""
    if np.ndim(ids) != 2:
        raise ValueError(f"ids 的形状应为 (batch, T)，收到 {np.shape(ids)}")
    h, cache = body_forward(params, ids)
    _check_head(head, h.shape[-1])
    pooled = mean_pool(h, lengths)
    z = pooled @ head["w_cls"] + head["b_cls"][0]
    return z, (cache, pooled, np.asarray(lengths), h.shape[1])


def _bce(z, y):
    """平均二元交叉熵（用 logaddexp，数值稳定）与 ∂L/∂z。"""
    z64 = z.astype(np.float64)
    loss = float(np.mean(np.logaddexp(0.0, z64) - y * z64))
    return loss, (1.0 / (1.0 + np.exp(-z64)) - y) / len(y)


def classifier_loss_and_grads(params: dict, head: dict, ids, lengths, y, train_body: bool = True):
    """平均二元交叉熵与梯度，返回 (loss, head_grads, body_grads)；train_body=False 时 body_grads 为 None。

    教学位置：第 15.6 节。反向：∂L/∂z = (σ(z) − y)/B → 头：∂w = pooledᵀ·∂z，∂b = Σ∂z；
    → 池化向量 ∂pooled = ∂z·wᵀ → 每个真实位置分到 ∂pooled/长度 → body_backward 传回主体的每个参数。
    """
    z, (cache, pooled, n, T) = classifier_forward(params, head, ids, lengths)
    loss, dz = _bce(z, _labels(y, len(z)))
    dz = dz.astype(pooled.dtype)
    g_head = {"w_cls": pooled.T @ dz, "b_cls": np.array([dz.sum()], dtype=pooled.dtype)}
    if not train_body:
        return loss, g_head, None
    dh = mean_pool_backward(np.outer(dz, head["w_cls"]).astype(pooled.dtype), n, T)
    return loss, g_head, body_backward(dh, cache)


def _batches(lengths, batch_size: int):
    """按长度排序后分批（每批只补齐到本批最长的那条，省时间）；返回下标数组的列表。"""
    order = np.argsort(lengths, kind="stable")
    return [order[s:s + batch_size] for s in range(0, len(order), batch_size)]


def extract_features(params: dict, ids, lengths, batch_size: int = 64) -> np.ndarray:
    """冻结的主体给每条文本一个池化向量 (N, d)（float64）。教学位置：第 15.6 节（线性探针的特征）。"""
    lm_config(params)
    ids = np.asarray(ids)
    n = _lengths(lengths, len(ids), ids.shape[1])
    check_positive(batch_size, "batch_size", integer=True)
    out = np.zeros((len(ids), params["config"]["d_model"]))
    for idx in _batches(n, batch_size):
        T = int(n[idx].max())
        h, _ = body_forward(params, ids[idx, :T])
        out[idx] = mean_pool(h, n[idx])
    return out


def predict_proba(params: dict, head: dict, ids, lengths, batch_size: int = 64) -> np.ndarray:
    """每条文本是好评的概率 σ(logit)（float64）。"""
    f = extract_features(params, ids, lengths, batch_size)
    _check_head(head, f.shape[1])
    z = f @ head["w_cls"].astype(np.float64) + float(head["b_cls"][0])
    return 1.0 / (1.0 + np.exp(-z))


def accuracy(params: dict, head: dict, ids, lengths, y) -> float:
    """准确率：概率 ≥ 0.5 判为好评。"""
    p = predict_proba(params, head, ids, lengths)
    return float(np.mean((p >= 0.5) == (_labels(y, len(p)) == 1)))


def _probe_acc(head, F, y):
    z = F @ head["w_cls"].astype(np.float64) + float(head["b_cls"][0])
    return float(np.mean((z >= 0) == (y == 1)))


def check_schedule(steps, batch_size, lr, eval_at) -> set:
    """训练步数的设置：steps、batch_size 是正整数，lr > 0；返回要评估的步数集合（eval_at 加上最后一步）。

    教学位置：第 15.6 节。例：check_schedule(300, 32, 1e-3, [50, 100]) -> {50, 100, 300}
    """
    check_positive(steps, "steps", integer=True)
    check_positive(batch_size, "batch_size", integer=True)
    check_positive(lr, "lr")
    return {int(check_positive(s, "eval_at 里的步数", integer=True)) for s in eval_at} | {steps}


def train_steps(step_fn, evaluate, n_train: int, rng, *, steps: int, batch_size: int, lr: float, eval_at=(),
                clip: float | None = 1.0, progress: bool = False, desc: str = "训练步数") -> list:
    """分类器训练共用的循环（train_classifier 与 lora.train_lora）：返回 history。教学位置：第 15.6 节、第 17 章。

    每步用 rng 从 n_train 条里有放回地抽 batch_size 个下标 idx，调用 step_fn(idx, opt) → 该批的损失
    （它算梯度并调用 opt.step；opt 是 Adam(lr, clip=clip)）；在 eval_at 的每一步和最后一步
    记一行 {'step', 'loss'（保留 6 位小数）, 'val_acc': evaluate()}。训练期间 BLAS 单线程。
    例：history = train_steps(step_fn, evaluate, len(X), np.random.default_rng(0), steps=300, batch_size=32, lr=1e-3)
    """
    eval_at = check_schedule(steps, batch_size, lr, eval_at)
    check_positive(n_train, "n_train", integer=True)
    check_rng(rng)
    if not callable(step_fn) or not callable(evaluate):
        raise TypeError("step_fn(idx, opt) 与 evaluate() 都必须是函数")
    opt, history = Adam(lr, clip=clip), []
    with single_thread_blas():  # 与其他训练函数一样固定 BLAS 单线程，结果可复现
        it = range(1, steps + 1)
        if progress:
            from tqdm.auto import tqdm  # 只在需要进度条时导入
            it = tqdm(it, desc=desc)
        for step in it:
            loss = step_fn(rng.integers(0, n_train, size=batch_size), opt)
            if step in eval_at:
                history.append({"step": step, "loss": round(loss, 6), "val_acc": evaluate()})
        if progress:
            it.close()
    return history


def train_classifier(params: dict, train, val, *, regime: str, steps: int = 300, batch_size: int = 32,
                     lr: float = 1e-3, seed: int = 0, eval_at=(), clip: float | None = 1.0, progress: bool = False):
    """按一种方式训练分类器，返回 (params, head, history)。教学位置：第 15.6 节。

    train、val 都是 (ids, lengths, y)。regime：'scratch'（同一 config 随机初始化，seed 决定初值）、
    'probe'（params 冻结，特征只算一次，只训练头）、'full'（从 params 的副本出发全部训练）。
    每步按 seed 有放回地抽 batch_size 条，Adam（lr，按全局范数 clip 裁剪）。params 本身不被修改；
    返回的 params 里输出层 W_out、b_out 原样带着（分类用不到它们，也不训练）。
    history：每个 eval_at 里的步数（及最后一步）一行 {'step', 'loss', 'val_acc'}，loss 是该步的训练批损失。
    """
    if regime not in REGIMES:
        raise ValueError(f"regime 只能是 {REGIMES} 之一，收到 {regime!r}")
    cfg = lm_config(params)
    check_schedule(steps, batch_size, lr, eval_at)
    (X, n, y), (Xv, nv, yv) = train, val
    X, Xv = np.asarray(X), np.asarray(Xv)
    n, nv = _lengths(n, len(X), X.shape[1]), _lengths(nv, len(Xv), Xv.shape[1])
    y, yv = _labels(y, len(X)), _labels(yv, len(Xv))
    rng = np.random.default_rng(seed)
    check_rng(rng)
    if regime == "scratch":
        dtype = params["tok_emb"].dtype
        P = init_lm_params(cfg["vocab"], cfg["d_model"], cfg["n_layers"], cfg["n_heads"], cfg["d_ff"],
                           cfg["max_len"], rng, positions=cfg["positions"], tie=cfg["tie"],
                           activation=cfg["activation"], dtype=dtype)
    else:
        P = {k: (dict(v) if k == "config" else v.copy()) for k, v in params.items()}
    head = init_head(cfg["d_model"], P["tok_emb"].dtype)
    if regime == "probe":  # 主体冻结：特征只算一次，之后只训练逻辑回归
        with single_thread_blas():
            F, Fv = extract_features(P, X, n), extract_features(P, Xv, nv)

        def step_fn(idx, opt):
            fb = F[idx].astype(head["w_cls"].dtype)
            loss, dz = _bce(fb @ head["w_cls"] + head["b_cls"][0], y[idx])
            dz = dz.astype(fb.dtype)
            opt.step(head, {"w_cls": fb.T @ dz, "b_cls": np.array([dz.sum()], dtype=fb.dtype)})
            return loss

        def evaluate():
            return _probe_acc(head, Fv, yv)
    else:
        def step_fn(idx, opt):
            T = int(n[idx].max())
            loss, g_head, g_body = classifier_loss_and_grads(P, head, X[idx, :T], n[idx], y[idx])
            opt.step({**P, **head}, {**g_body, **g_head})
            return loss

        def evaluate():
            return _probe_acc(head, extract_features(P, Xv, nv), yv)
    history = train_steps(step_fn, evaluate, len(X), rng, steps=steps, batch_size=batch_size, lr=lr, eval_at=eval_at,
                          clip=clip, progress=progress, desc=f"{regime} 训练步数")
    return P, head, history
