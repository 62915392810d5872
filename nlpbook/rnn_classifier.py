"""第 8.4 节：Elman RNN 影评分类器，手写随时间反向传播（BPTT），Adam 训练；第 9 章换成 LSTM、GRU 单元。

形状约定同 rnn 模块（按行排批量）。padding 位置把状态（LSTM 还有记忆 c）原样传下去，所以补多少个 <PAD> 都不改变结果。
LSTM、GRU 直接调用 rnn 模块的 lstm_cell / gru_step 及其反向函数，不另写一遍。
不做的事：不做多层、双向或注意力；梯度全部手写并用有限差分检验。
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ._checks import as_id_array, check_positive
from .functional import binary_cross_entropy, sigmoid
from .optim import adam_step, clip_by_global_norm, global_norm, single_thread_blas
from .text import Vocab
from .rnn import CELLS, gru_step, gru_step_backward, init_cell_params, lstm_cell, lstm_cell_backward

__all__ = ["pad_batch", "init_rnn_classifier", "classifier_cell", "predict_proba", "loss_and_grads",
           "hidden_grad_norms", "RNNClassifier", "train_rnn_classifier",
           "accuracy_by_length", "review_task"]


# ---------- 第 8.4 节：Elman RNN 影评分类器（手写 BPTT） ----------
CLS_KEYS = ("E", "Wx", "Wh", "b", "w_out", "b_out")
# 第 9 章：同样的词向量表与输出层，循环部分换成 LSTM（W, b）或 GRU（Wx, Wh, bx, bh）
CLS_KEYS_BY_CELL = {"rnn": CLS_KEYS, "lstm": ("E", "W", "b", "w_out", "b_out"),
                    "gru": ("E", "Wx", "Wh", "bx", "bh", "w_out", "b_out")}


def pad_batch(seqs, pad_id: int = 0, max_len: int | None = None):
    """把变长的编号序列补齐成 (ids (B, T) int64, mask (B, T) bool)；max_len 给定时只保留前 max_len 个。

    教学位置：第 18.3 节（padding 与掩码）。例：[[5, 2], [7]] -> ids [[5, 2], [7, 0]]，mask [[T, T], [T, F]]
    """
    if max_len is not None:
        check_positive(max_len, "max_len", integer=True)
    seqs = [list(s)[:max_len] for s in seqs]
    if not seqs or min(len(s) for s in seqs) == 0:
        raise ValueError("seqs 不能为空，且每个序列至少要有一个 token")
    T = max(len(s) for s in seqs)
    ids = np.full((len(seqs), T), pad_id, dtype=np.int64)
    mask = np.zeros((len(seqs), T), dtype=bool)
    for r, s in enumerate(seqs):
        ids[r, :len(s)], mask[r, :len(s)] = s, True
    return ids, mask


def init_rnn_classifier(vocab_size: int, dim: int = 32, hidden: int = 32, seed: int = 0,
                        dtype=np.float32, cell: str = "rnn") -> dict:
    """分类器参数：词向量表 E (V, dim)、Wx (dim, hidden)、Wh (hidden, hidden)、b、w_out (hidden,)、b_out（0 维）。

    教学位置：第 8.4 节；cell="lstm" 或 "gru" 时循环部分换成对应单元的参数（键名见 rnn.init_cell_params），第 9 章。
    例：init_rnn_classifier(100, 8, 4, cell="gru")["Wh"].shape -> (4, 12)
    """
    check_positive(vocab_size, "vocab_size", integer=True)
    if cell not in CELLS:
        raise ValueError(f"cell 只能是 'rnn'、'lstm' 或 'gru'，收到 {cell!r}")
    P = init_cell_params(cell, dim, hidden, seed, dtype)
    rng = np.random.default_rng([seed, 1])
    P["E"] = (0.1 * rng.standard_normal((vocab_size, dim))).astype(dtype)
    P["w_out"] = (rng.uniform(-1, 1, hidden) / math.sqrt(hidden)).astype(dtype)
    P["b_out"] = np.zeros((), dtype)
    return P


def classifier_cell(params) -> str:
    """从参数的键名认出分类器用的单元：'rnn'、'lstm' 或 'gru'。教学位置：第 9 章“在真实数据上试一试”。

    例：classifier_cell(init_rnn_classifier(10, cell="lstm")) -> 'lstm'
    """
    P = getattr(params, "params", params)
    if isinstance(P, dict):
        for cell in ("lstm", "gru", "rnn"):
            if all(k in P for k in CLS_KEYS_BY_CELL[cell]):
                return cell
    raise ValueError(f"分类器参数必须是含 {CLS_KEYS}（或 LSTM 的 {CLS_KEYS_BY_CELL['lstm']}、"
                     f"GRU 的 {CLS_KEYS_BY_CELL['gru']}）的字典；可用 init_rnn_classifier 生成")


def _cls_check(params, ids, mask, y=None):
    P = getattr(params, "params", params)
    cell = classifier_cell(P)
    V, d = P["E"].shape
    H = np.shape(P["b"])[0] // 4 if cell == "lstm" else np.shape(P["Wh"])[0]
    shapes = {"rnn": (("Wx", (d, H)), ("Wh", (H, H)), ("b", (H,))),
              "lstm": (("W", (d + H, 4 * H)), ("b", (4 * H,))),
              "gru": (("Wx", (d, 3 * H)), ("Wh", (H, 3 * H)), ("bx", (3 * H,)), ("bh", (3 * H,)))}[cell]
    for k, s in shapes + (("w_out", (H,)), ("b_out", ())):
        if np.shape(P[k]) != s:
            raise ValueError(f"{k} 的形状应为 {s}，收到 {np.shape(P[k])}")
    ids, mask = as_id_array(ids, "ids", size=V, ndims=(2,)), np.asarray(mask)
    if mask.dtype != bool or mask.shape != ids.shape:
        raise ValueError(f"mask 必须是与 ids 同形状 {ids.shape} 的布尔数组（True 为真实 token），"
                         f"收到 dtype {mask.dtype}、形状 {mask.shape}")
    if not mask.any(axis=1).all():
        raise ValueError("有的句子 mask 全为 False（没有真实 token），最终状态无定义")
    if y is not None:
        y = np.asarray(y, dtype=float).reshape(-1)
        if y.shape != (ids.shape[0],) or np.any((y != 0) & (y != 1)):
            raise ValueError(f"y 必须是 {ids.shape[0]} 个 0（差评）或 1（好评）")
    return P, ids, mask, y


def _cls_forward(P, ids, mask):
    """逐步更新状态；padding 位置（mask=False）状态原样带过，所以最终状态 = 最后一个真实词处的状态。"""
    xs = P["E"][ids]
    xw = xs @ P["Wx"] + P["b"]
    B, T = ids.shape
    hs = np.zeros((T + 1, B, P["Wh"].shape[0]), P["Wh"].dtype)
    hn = np.empty_like(hs[1:])
    for t in range(T):
        hn[t] = np.tanh(xw[:, t] + hs[t] @ P["Wh"])
        hs[t + 1] = np.where(mask[:, t, None], hn[t], hs[t])
    return hs[T] @ P["w_out"] + P["b_out"], (xs, hs, hn)


def predict_proba(params, ids, mask) -> np.ndarray:
    """好评概率 sigmoid(w_out · h_最终 + b_out)，形状 (batch,)。教学位置：第 8.4 节。

    每次前向 1,024 条：整批一次算会同时存下每一步的隐藏状态，几千条评论就要几百 MB。
    """
    P, ids, mask, _ = _cls_check(params, ids, mask)
    forward = _cls_forward if classifier_cell(P) == "rnn" else partial(_gated_forward, keep=False)
    return np.concatenate([sigmoid(forward(P, ids[s:s + 1024], mask[s:s + 1024])[0])
                           for s in range(0, max(len(ids), 1), 1024)])


def _gated_forward(P, ids, mask, keep: bool = True):
    """LSTM / GRU 版的 _cls_forward：每一步调用 rnn 模块的单元；padding 位置把 h（和 LSTM 的 c）原样带过。

    keep=False 时不存每一步的中间量（只预测、不反向时省内存）。
    """
    cell = classifier_cell(P)
    xs = P["E"][ids]
    B, T = ids.shape
    H = P["w_out"].shape[0]
    h = np.zeros((B, H), P["w_out"].dtype)
    c = np.zeros_like(h)
    caches = []
    gx = xs @ P["Wx"] + P["bx"] if cell == "gru" else None  # GRU：输入部分一次算好整段
    for t in range(T):
        if cell == "lstm":
            h_new, c_new, cache = lstm_cell(xs[:, t], h, c, {"W": P["W"], "b": P["b"]})
            c = np.where(mask[:, t, None], c_new, c)
        else:
            h_new, cache = gru_step(gx[:, t], h, P["Wh"], P["bh"])
        h = np.where(mask[:, t, None], h_new, h)
        if keep:
            caches.append(cache)
    return h @ P["w_out"] + P["b_out"], (xs, h, caches)


def _gated_backward(P, ids, mask, y):
    """LSTM / GRU 版的 _cls_backward：逐步调用 lstm_cell_backward / gru_step_backward。

    padding 位置：上游梯度不进单元，原样传给上一步（前向时状态原样带过，反向时梯度也原样带回）。
    """
    cell = classifier_cell(P)
    logits, (xs, h_last, caches) = _gated_forward(P, ids, mask)
    loss = float(np.mean(binary_cross_entropy(logits=logits, y=y)))
    B, T = ids.shape
    dt = P["w_out"].dtype
    dlogit = ((sigmoid(logits) - y) / B).astype(dt)
    g = {k: np.zeros_like(P[k]) for k in CLS_KEYS_BY_CELL[cell]}
    g["w_out"], g["b_out"] = h_last.T @ dlogit, np.asarray(dlogit.sum(), dt)
    dh = dlogit[:, None] * P["w_out"]
    dc = np.zeros_like(dh)
    dxs = np.zeros_like(xs)                                  # LSTM：∂L/∂x_t
    dgx = np.zeros((B, T, 3 * dh.shape[1]), dt) if cell == "gru" else None
    norms = np.empty(T)
    for t in range(T - 1, -1, -1):
        norms[t] = np.linalg.norm(dh)  # ‖∂L/∂h_t‖
        m = mask[:, t, None]
        dh_in = np.where(m, dh, 0).astype(dt)
        if cell == "lstm":
            dx, dh_prev, dc_prev, gw = lstm_cell_backward(dh_in, np.where(m, dc, 0).astype(dt), caches[t])
            dxs[:, t] = dx
            g["W"] += gw["W"]
            g["b"] += gw["b"]
            dc = np.where(m, dc_prev, dc)
        else:
            dgx[:, t], dh_prev, dgh = gru_step_backward(dh_in, caches[t], P["Wh"])
            g["Wh"] += caches[t][0].T @ dgh
            g["bh"] += dgh.sum(0)
        dh = np.where(m, dh_prev, dh)
    d = P["E"].shape[1]
    if cell == "gru":
        g["Wx"] = xs.reshape(-1, d).T @ dgx.reshape(B * T, -1)
        g["bx"] = dgx.sum((0, 1))
        dxs = dgx @ P["Wx"].T
    np.add.at(g["E"], ids.reshape(-1), dxs.reshape(-1, d))  # 重复的词要累加
    return loss, g, norms


def _cls_backward(P, ids, mask, y):
    logits, (xs, hs, hn) = _cls_forward(P, ids, mask)
    loss = float(np.mean(binary_cross_entropy(logits=logits, y=y)))
    B, T = ids.shape
    dt = P["Wh"].dtype
    dlogit = ((sigmoid(logits) - y) / B).astype(dt)
    g = {"w_out": hs[T].T @ dlogit, "b_out": dlogit.sum(), "Wh": np.zeros_like(P["Wh"])}
    dh = dlogit[:, None] * P["w_out"]
    dxw = np.zeros_like(hn)
    norms = np.empty(T)
    for t in range(T - 1, -1, -1):
        norms[t] = np.linalg.norm(dh)  # ‖∂L/∂h_t‖
        m = mask[:, t, None]
        da = np.where(m, dh * (1 - hn[t] * hn[t]), 0)
        g["Wh"] += hs[t].T @ da
        dxw[t] = da
        dh = np.where(m, 0, dh) + da @ P["Wh"].T
    dxw = dxw.transpose(1, 0, 2)  # (B, T, H)
    d, H = P["Wx"].shape
    g["Wx"] = xs.reshape(-1, d).T @ dxw.reshape(-1, H)
    g["b"] = dxw.sum((0, 1))
    g["E"] = np.zeros_like(P["E"])
    np.add.at(g["E"], ids.reshape(-1), (dxw @ P["Wx"].T).reshape(-1, d))  # 重复的词要累加
    g["b_out"] = np.asarray(g["b_out"], dt)
    return loss, g, norms


def loss_and_grads(params, ids, mask, y):
    """平均二分类交叉熵与所有参数的梯度（手写的沿时间反向传播 BPTT）。教学位置：第 8.4—8.5 节。

    ids (B, T) 整数，mask (B, T) 布尔，y (B,) 取 0/1。返回 (loss, {键同参数的梯度})，梯度与参数同 dtype。
    LSTM、GRU 分类器的参数（init_rnn_classifier(cell=…)）同样适用：第 9 章。
    """
    P, ids, mask, y = _cls_check(params, ids, mask, y)
    loss, g, _ = _backward_for(P)(P, ids, mask, y)
    return loss, g


def hidden_grad_norms(params, ids, mask, y) -> np.ndarray:
    """每个时间步 ‖∂L/∂h_t‖（对整批求范数），形状 (T,)。教学位置：第 8.5 节（梯度消失/爆炸）。

    越早的位置离损失越远；|Wh| 小时越往前越小（消失），大时可能越往前越大（爆炸）。
    画图时建议用等长、无 padding 的一批句子。
    """
    P, ids, mask, y = _cls_check(params, ids, mask, y)
    return _backward_for(P)(P, ids, mask, y)[2]


def _backward_for(P):
    return _cls_backward if classifier_cell(P) == "rnn" else _gated_backward


@dataclass
class RNNClassifier:
    """train_rnn_classifier 的结果：参数字典与每轮的记录。教学位置：第 8.4 节。"""
    params: dict
    history: list = field(default_factory=list)
    # Adam 的一阶、二阶矩与打乱顺序用的随机数状态：交给 train_rnn_classifier(resume=…) 接着训练
    train_state: dict = field(default_factory=dict, repr=False, compare=False)

    def predict_proba(self, ids, mask) -> np.ndarray:
        return predict_proba(self.params, ids, mask)

    def predict(self, ids, mask, threshold: float = 0.5) -> np.ndarray:
        return (self.predict_proba(ids, mask) >= threshold).astype(int)

    @property
    def cell(self) -> str:
        """用的循环单元：'rnn'、'lstm' 或 'gru'（由参数的键名认出）。"""
        return classifier_cell(self.params)


def train_rnn_classifier(train_ids, train_y, vocab_size: int, *, dim: int = 32, hidden: int = 32,
                         epochs: int = 3, lr: float = 0.005, batch_size: int = 32, clip: float | None = 5.0,
                         max_len: int | None = 100, seed: int = 0, val_ids=None, val_y=None,
                         progress: bool = False, resume: RNNClassifier | None = None,
                         cell: str = "rnn") -> RNNClassifier:
    """用 Adam 训练 Elman RNN 分类器（float32；每轮按 seed 打乱；clip 为全局梯度范数上限，None 不裁剪）。

    教学位置：第 8.4 节。train_ids 是编号序列的列表（长短不一，每批内补齐；只保留前 max_len 个词），
    编号 0 约定为 <PAD>。history 每轮一行：train_loss（本轮各批平均）、grad_norm（裁剪前平均），
    给了验证集时还有 val_loss、val_acc。
    resume：一个已训练的模型，从它停下的地方再训练 epochs 轮（参数、Adam 状态、打乱顺序都接着用，
    原模型不变）；其余设置要与当初相同，这样先训 2 轮再接 1 轮，与一口气训 3 轮的结果完全相同。
    此时 vocab_size、dim、hidden、seed、cell 不再使用。教学位置：第 8 章练习（多训一轮会怎样）。
    cell：'rnn'（默认，第 8 章）、'lstm' 或 'gru'（第 9 章）；其余流程完全相同，所以可以在同样的预算下比较。
    """
    y = np.asarray(train_y, dtype=float).reshape(-1)
    if len(y) != len(train_ids):
        raise ValueError(f"train_y 有 {len(y)} 个标签，train_ids 却有 {len(train_ids)} 个序列")
    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        check_positive(v, name, integer=True)
    check_positive(lr, "lr")
    if resume is None:
        P = init_rnn_classifier(vocab_size, dim, hidden, seed, cell=cell)
        rng, state, history = np.random.default_rng(seed), {}, []
    else:
        if not isinstance(resume, RNNClassifier) or "rng" not in resume.train_state:
            raise ValueError("resume 必须是 train_rnn_classifier 训练出的 RNNClassifier（它带着优化器状态）")
        P = {k: np.array(v, copy=True) for k, v in resume.params.items()}
        state = {k: (np.array(v, copy=True) if isinstance(v, np.ndarray) else v)
                 for k, v in resume.train_state["adam"].items()}
        rng = np.random.default_rng()
        rng.bit_generator.state = resume.train_state["rng"]
        history = [dict(row) for row in resume.history]
    done = len(history)
    epoch_iter = range(epochs)
    if progress:
        from tqdm.auto import tqdm  # 只在需要进度条时导入
        epoch_iter = tqdm(epoch_iter, desc="训练轮次")
    # 小矩阵的多线程 BLAS 更慢，且线程数不同会让训练结果的末位不同：训练时限定单线程，结果与机器核数无关
    with single_thread_blas():
        for epoch in epoch_iter:
            order, losses, norms = rng.permutation(len(y)), [], []
            for s in range(0, len(y), batch_size):
                idx = order[s:s + batch_size]
                ids, mask = pad_batch([train_ids[i] for i in idx], max_len=max_len)
                loss, g = loss_and_grads(P, ids, mask, y[idx])
                g, n = clip_by_global_norm(g, clip) if clip is not None else (g, global_norm(g))
                adam_step(P, g, state, lr)
                losses.append(loss)
                norms.append(n)
            row = {"epoch": done + epoch + 1, "train_loss": float(np.mean(losses)),
                   "grad_norm": float(np.mean(norms))}
            if val_ids is not None:
                ids, mask = pad_batch(val_ids, max_len=max_len)
                p = predict_proba(P, ids, mask)
                yv = np.asarray(val_y, dtype=float)
                row["val_loss"] = float(np.mean(binary_cross_entropy(p=np.clip(p, 1e-7, 1 - 1e-7), y=yv)))
                row["val_acc"] = float(np.mean((p >= 0.5) == yv))
            history.append(row)
    return RNNClassifier(P, history, {"adam": state, "rng": rng.bit_generator.state})


def accuracy_by_length(y_true, y_pred, lengths, edges=(20, 50)) -> list[dict]:
    """按长度分桶的准确率：edges=(20, 50) 分成 ≤20、21—50、>50 三桶，每桶给出条数与准确率。

    教学位置：第 9 章“在真实数据上试一试”（门控是否在长评论上更有用）。空桶的准确率为 None。
    例：accuracy_by_length([1, 0, 1], [1, 1, 1], [5, 30, 80]) ->
        [{'bucket': '≤20', 'n': 1, 'acc': 1.0}, {'bucket': '21—50', 'n': 1, 'acc': 0.0}, {'bucket': '>50', 'n': 1, 'acc': 1.0}]
    """
    t, p = np.asarray(y_true).reshape(-1), np.asarray(y_pred).reshape(-1)
    n = np.asarray(lengths).reshape(-1)
    if not len(t) == len(p) == len(n) or len(t) == 0:
        raise ValueError(f"y_true、y_pred、lengths 必须是等长的非空一维序列，收到长度 {len(t)}、{len(p)}、{len(n)}")
    edges = [int(e) for e in edges]
    if not edges or any(e < 1 for e in edges) or edges != sorted(set(edges)):
        raise ValueError(f"edges 必须是严格递增的正整数，收到 {edges}")
    lows = [0] + edges
    highs = edges + [None]
    out = []
    for k, (lo, hi) in enumerate(zip(lows, highs)):
        sel = (n > lo) & (n <= hi) if hi is not None else n > lo
        name = f"≤{hi}" if k == 0 else (f">{lo}" if hi is None else f"{lo + 1}—{hi}")
        acc = float(np.mean(t[sel] == p[sel])) if sel.any() else None
        out.append({"bucket": name, "n": int(sel.sum()), "acc": acc})
    return out


def review_task(reviews: dict, n_train: int = 6000, min_count: int = 2, seed: int = 0) -> dict:
    """第 8、9 章在真实评论上共用的设置：词表只从完整训练集建（出现 ≥ min_count 次），
    训练用其中 n_train 条（种子 seed 打乱编号取前 n_train 个，再按原顺序排好），验证集全部使用。

    教学位置：第 8 章、第 9 章“在真实数据上试一试”。reviews 是 datasets.load_reviews() 的结果。
    返回 {'vocab', 'train'（子集评论）, 'ids', 'y', 'val'（验证集评论）, 'val_ids', 'val_y'}；编号 0 是 <PAD>。
    """
    if not isinstance(reviews, dict) or not {"train", "validation"} <= set(reviews):
        raise TypeError("reviews 必须是 load_reviews() 返回的 {'train': […], 'validation': […], …} 字典")
    train, val = reviews["train"], reviews["validation"]
    check_positive(n_train, "n_train", integer=True)
    if n_train > len(train):
        raise ValueError(f"n_train={n_train} 超过了训练集的 {len(train)} 条")
    vocab = Vocab.build([r.tokens for r in train], min_count=min_count)
    sub = [train[i] for i in np.sort(np.random.default_rng(seed).permutation(len(train))[:n_train])]
    return {"vocab": vocab, "train": sub, "ids": [vocab.encode(r.tokens) for r in sub],
            "y": np.array([r.label for r in sub]), "val": list(val),
            "val_ids": [vocab.encode(r.tokens) for r in val], "val_y": np.array([r.label for r in val])}
