"""TextCNN 影评分类器的批量训练（第 10 章“在真实数据上试一试”，第 18 章的方法比较也用它）。

结构同 Kim（2014）：查词向量 → 每种宽度一组卷积核，卷积 → ReLU → 沿时间最大池化 → 拼接 → 逻辑回归。
一批评论补齐成 (B, T) 的编号和掩码；含 <PAD> 的窗口不参与池化（cnn.conv_relu_max 的批量形式），
所以补多少个 <PAD> 都不改变结果。比最宽的核还短的评论，先在末尾补 <PAD> 到那么长（这几个 <PAD> 算作内容）。
反向传播手写：输出层 p − y，卷积部分用 cnn.conv_relu_max_backward，词向量的梯度按编号累加；Adam 更新。
不做的事：不做 dropout、多层卷积或预训练词向量。
例：train_textcnn([[2, 3, 4], [5, 6, 7]], [1, 0], vocab_size=8, epochs=1).predict([[2, 3, 4]]) -> [0] 或 [1]
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._checks import as_id_array, check_positive
from .cnn import conv_relu_max, conv_relu_max_backward
from .functional import binary_cross_entropy, sigmoid
from .optim import adam_step, single_thread_blas
from .rnn_classifier import pad_batch

__all__ = ["init_textcnn", "pad_for_cnn", "loss_and_grads", "predict_proba", "TextCNN", "train_textcnn"]


def _widths(params) -> list[int]:
    return sorted(int(k[1:]) for k in params if k.startswith("K"))


def init_textcnn(vocab_size: int, dim: int = 16, n_kernels: int = 16, widths=(3,), seed: int = 0) -> dict:
    """参数字典：词向量表 E (V, dim)；每种宽度 w 一组核 K{w} (n_kernels, w, dim) 与偏置 b{w}；输出层 w_out、b_out。

    教学位置：第 10 章。例：init_textcnn(100, 8, 4, (2, 3))['K3'].shape -> (4, 3, 8)
    """
    for name, v in (("vocab_size", vocab_size), ("dim", dim), ("n_kernels", n_kernels), ("seed", seed)):
        check_positive(v, name, integer=True, allow_zero=name == "seed")
    widths = tuple(widths)
    if not widths or len(set(widths)) != len(widths):
        raise ValueError(f"widths 必须是互不相同的正整数（卷积宽度），至少一个，收到 {widths}")
    for w in widths:
        check_positive(w, "widths 里的宽度", integer=True)
    rng = np.random.default_rng(seed)
    P = {"E": 0.1 * rng.standard_normal((vocab_size, dim))}
    for w in sorted(widths):
        P[f"K{w}"] = rng.standard_normal((n_kernels, w, dim)) / math.sqrt(w * dim)
        P[f"b{w}"] = np.zeros(n_kernels)
    n_feat = n_kernels * len(widths)
    P["w_out"] = rng.uniform(-1, 1, n_feat) / math.sqrt(n_feat)
    P["b_out"] = np.zeros(())
    return P


def pad_for_cnn(seqs, width: int, pad_id: int = 0, max_len: int | None = None):
    """补齐一批编号序列：先截到 max_len，比 width 短的在末尾补 pad_id 到 width 个（算作内容），再按 pad_batch 补齐。

    教学位置：第 10 章。返回 (ids (B, T), mask (B, T))。例：pad_for_cnn([[5], [6, 7, 8, 9]], 3)
    -> ids [[5, 0, 0, 0], [6, 7, 8, 9]]，mask [[T, T, T, F], [T, T, T, T]]
    """
    check_positive(width, "width", integer=True)
    if max_len is not None:
        check_positive(max_len, "max_len", integer=True)
        if max_len < width:
            raise ValueError(f"max_len={max_len} 比最宽的卷积核 {width} 还短，一个完整窗口也没有")
    seqs = [list(s)[:max_len] for s in seqs]
    if not seqs or min(len(s) for s in seqs) == 0:
        raise ValueError("seqs 不能为空，且每条序列至少要有一个 token")
    return pad_batch([s + [pad_id] * (width - len(s)) for s in seqs], pad_id=pad_id)


def _check(params, ids, mask, y=None):
    P = getattr(params, "params", params)
    if not isinstance(P, dict) or not {"E", "w_out", "b_out"} <= set(P) or not _widths(P):
        raise ValueError("TextCNN 参数必须是含 E、K{宽度}、b{宽度}、w_out、b_out 的字典；可用 init_textcnn 生成")
    ids = as_id_array(ids, "ids", size=P["E"].shape[0], ndims=(2,))
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.shape != ids.shape:
        raise ValueError(f"mask 必须是与 ids 同形状 {ids.shape} 的布尔数组（True 为真实 token），"
                         f"收到 dtype {mask.dtype}、形状 {mask.shape}")
    if y is not None:
        y = np.asarray(y, dtype=float).reshape(-1)
        if y.shape != (ids.shape[0],) or np.any((y != 0) & (y != 1)):
            raise ValueError(f"y 必须是 {ids.shape[0]} 个 0（差评）或 1（好评）")
    return P, ids, mask, y


def _forward(P, ids, mask):
    x = P["E"][ids]                                               # (B, T, dim)
    outs = [conv_relu_max(x, P[f"K{w}"], P[f"b{w}"], mask) for w in _widths(P)]
    feats = np.concatenate([o[0] for o in outs], axis=1)          # (B, n_kernels × 宽度种数)
    return feats @ P["w_out"] + P["b_out"], feats, [o[1] for o in outs]


def loss_and_grads(params, ids, mask, y):
    """一批的平均二分类交叉熵与全部参数的梯度（手写反向传播）。教学位置：第 10 章。

    ids (B, T) 整数，mask (B, T) 布尔（每句至少要有一个完整窗口），y (B,) 取 0/1。返回 (loss, {键同参数的梯度})。
    """
    P, ids, mask, y = _check(params, ids, mask, y)
    logits, feats, caches = _forward(P, ids, mask)
    loss = float(np.mean(binary_cross_entropy(logits=logits, y=y)))
    dlogit = (sigmoid(logits) - y) / len(y)                      # ∂L/∂分数（第 4.3 节的 p − y，再取平均）
    g = {"w_out": feats.T @ dlogit, "b_out": np.asarray(dlogit.sum())}
    dfeats = dlogit[:, None] * P["w_out"]
    dx = np.zeros(ids.shape + (P["E"].shape[1],))
    n_k = P[f"K{_widths(P)[0]}"].shape[0]
    for j, (w, cache) in enumerate(zip(_widths(P), caches)):
        dxw, g[f"K{w}"], g[f"b{w}"] = conv_relu_max_backward(dfeats[:, j * n_k:(j + 1) * n_k], cache)
        dx += dxw
    g["E"] = np.zeros_like(P["E"])
    np.add.at(g["E"], ids.reshape(-1), dx.reshape(-1, dx.shape[-1]))  # 同一个词出现多次，梯度要累加
    return loss, g


def predict_proba(params, seqs, max_len: int | None = None, pad_id: int = 0) -> np.ndarray:
    """一批编号序列（长短不一）的好评概率 (len(seqs),)。每次前向 512 条，省内存。教学位置：第 10 章。"""
    P = getattr(params, "params", params)
    width = max(_widths(P)) if isinstance(P, dict) and _widths(P) else 1
    seqs = list(seqs)
    if not seqs:
        raise ValueError("seqs 不能为空")
    out = []
    for s in range(0, len(seqs), 512):
        ids, mask = pad_for_cnn(seqs[s:s + 512], width, pad_id, max_len)
        P, ids, mask, _ = _check(params, ids, mask)
        out.append(sigmoid(_forward(P, ids, mask)[0]))
    return np.concatenate(out)


@dataclass
class TextCNN:
    """train_textcnn 的结果：参数、每轮的记录（history）与训练设置（predict 时沿用 max_len、pad_id）。"""
    params: dict
    history: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    def predict_proba(self, seqs) -> np.ndarray:
        return predict_proba(self.params, seqs, self.settings.get("max_len"), self.settings.get("pad_id", 0))

    def predict(self, seqs, threshold: float = 0.5) -> np.ndarray:
        return (self.predict_proba(seqs) >= threshold).astype(int)

    def features(self, seqs):
        """每条评论池化后的特征 (len(seqs), n_kernels × 宽度种数) 与每个核取最大值的窗口编号（看核学到了什么用）。"""
        width = max(_widths(self.params))
        ids, mask = pad_for_cnn(seqs, width, self.settings.get("pad_id", 0), self.settings.get("max_len"))
        P, ids, mask, _ = _check(self.params, ids, mask)
        _, feats, caches = _forward(P, ids, mask)
        return feats, np.concatenate([c["pos"] for c in caches], axis=1)


def train_textcnn(train_ids, train_y, vocab_size: int, *, dim: int = 16, n_kernels: int = 16, widths=(3,),
                  epochs: int = 3, lr: float = 0.005, batch_size: int = 32, max_len: int | None = 60,
                  pad_id: int = 0, seed: int = 0, val_ids=None, val_y=None, progress: bool = False) -> TextCNN:
    """用 Adam 训练 TextCNN（float64；每轮按 seed 打乱，每批补齐）。教学位置：第 10 章；第 18 章的比较。

    train_ids 是编号序列的列表（每条只取前 max_len 个）；history 每轮一行：train_loss（本轮各批平均），
    给了验证集时还有 val_acc。同样的参数与 seed，结果逐位相同（训练时 BLAS 限定单线程）。
    """
    y = np.asarray(train_y, dtype=float).reshape(-1)
    if len(y) != len(train_ids) or len(y) == 0:
        raise ValueError(f"train_y 有 {len(y)} 个标签，train_ids 有 {len(train_ids)} 个序列；两者要等长且非空")
    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        check_positive(v, name, integer=True)
    check_positive(lr, "lr")
    if (val_ids is None) != (val_y is None):
        raise ValueError("val_ids 与 val_y 要么都给，要么都不给")
    P = init_textcnn(vocab_size, dim, n_kernels, widths, seed)
    width = max(widths)
    rng, state, history = np.random.default_rng([seed, 1]), {}, []
    epoch_iter = range(epochs)
    if progress:
        from tqdm.auto import tqdm  # 只在需要进度条时导入
        epoch_iter = tqdm(epoch_iter, desc="训练轮次")
    # 与 train_rnn_classifier 相同：训练时限定单线程 BLAS，结果与机器核数无关
    with single_thread_blas():
        for epoch in epoch_iter:
            order, losses = rng.permutation(len(y)), []
            for s in range(0, len(y), batch_size):
                idx = order[s:s + batch_size]
                ids, mask = pad_for_cnn([train_ids[i] for i in idx], width, pad_id, max_len)
                loss, g = loss_and_grads(P, ids, mask, y[idx])
                adam_step(P, g, state, lr)
                losses.append(loss)
            row = {"epoch": epoch + 1, "train_loss": float(np.mean(losses))}
            if val_ids is not None:
                p = predict_proba(P, val_ids, max_len, pad_id)
                row["val_acc"] = float(np.mean((p >= 0.5) == np.asarray(val_y, dtype=float)))
            history.append(row)
    settings = {"dim": dim, "n_kernels": n_kernels, "widths": tuple(widths), "epochs": epochs, "lr": lr,
                "batch_size": batch_size, "max_len": max_len, "pad_id": pad_id, "seed": seed}
    return TextCNN(P, history, settings)
