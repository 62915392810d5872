"""逻辑回归：概率、损失、梯度、一步 SGD，以及带进度条的小批量训练。

X 可以是稠密数组 (样本数, 特征数)，也可以是 sparse.CountMatrix（真实评论的词袋）。
不做的事：不做正则化以外的技巧（无动量、无学习率调度），便于和第 4 章的手算一一对应。
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._checks import as_float_array, check_positive
from .functional import binary_cross_entropy, sigmoid
from .sparse import CountMatrix

__all__ = ["predict_proba", "loss", "gradient", "sgd_step", "fit", "descent_path", "LogisticModel"]


def _xy(X, y=None):
    if isinstance(X, CountMatrix):
        Xc = X
    else:
        Xc = as_float_array(X, "X")
        if Xc.ndim == 1:
            Xc = Xc[None, :]
        if Xc.ndim != 2:
            raise ValueError(f"X 必须是二维 (样本数, 特征数)，收到形状 {Xc.shape}")
    if y is None:
        return Xc, None
    y = as_float_array(y, "y")
    y = y.reshape(-1) if y.ndim else y[None]
    if len(y) != Xc.shape[0]:
        raise ValueError(f"y 有 {len(y)} 个标签，但 X 有 {Xc.shape[0]} 行")
    if np.any((y != 0) & (y != 1)):
        raise ValueError("y 只能取 0（差评）或 1（好评）")
    return Xc, y


def _scores(w, b, X):
    w = as_float_array(w, "w", min_ndim=0).reshape(-1)
    if X.shape[1] != len(w):
        raise ValueError(f"w 有 {len(w)} 个权重，但每个样本有 {X.shape[1]} 个特征")
    return (X.dot(w) if isinstance(X, CountMatrix) else X @ w) + float(b)


def predict_proba(w, b, X) -> np.ndarray:
    """好评概率 p = sigmoid(X·w + b)。教学位置：第 3.2 节。"""
    X, _ = _xy(X)
    return sigmoid(_scores(w, b, X))


def loss(w, b, X, y, l2: float = 0.0) -> float:
    """平均二分类交叉熵（可加 l2/2·|w|²）。教学位置：第 4.2 节。"""
    X, y = _xy(X, y)
    z = _scores(w, b, X)
    w = np.asarray(w, dtype=float).reshape(-1)
    return float(np.mean(binary_cross_entropy(logits=z, y=y)) + 0.5 * l2 * w @ w)


def gradient(w, b, X, y, l2: float = 0.0) -> tuple[np.ndarray, float]:
    """损失对 w 和 b 的梯度：(p - y)·x 的平均。教学位置：第 4.3 节。

    例：w=0, x=1, y=1 -> p=0.5，梯度 (0.5-1)×1 = -0.5
    """
    X, y = _xy(X, y)
    r = (sigmoid(_scores(w, b, X)) - y) / len(y)
    gw = X.rdot(r) if isinstance(X, CountMatrix) else X.T @ r
    return gw + l2 * np.asarray(w, dtype=float).reshape(-1), float(r.sum())


def sgd_step(w, b, X, y, lr: float, l2: float = 0.0, fit_bias: bool = True) -> tuple[np.ndarray, float]:
    """新参数 = 旧参数 - 学习率 × 梯度。教学位置：第 4.3 节（w: 0 -> 0.1）。

    fit_bias=False 时偏置保持不变（第 4 章的手算例子不用偏置）。
    """
    check_positive(lr, "lr")
    gw, gb = gradient(w, b, X, y, l2)
    new_b = float(b) - lr * gb if fit_bias else float(b)
    return np.asarray(w, dtype=float).reshape(-1) - lr * gw, new_b


@dataclass
class LogisticModel:
    """fit 的结果：权重、偏置，以及每轮结束时的训练（和验证）损失。"""
    w: np.ndarray
    b: float
    history: list = field(default_factory=list)

    def predict_proba(self, X) -> np.ndarray:
        return predict_proba(self.w, self.b, X)

    def predict(self, X, threshold: float = 0.5) -> np.ndarray:
        """概率 ≥ 阈值判为 1（好评）。"""
        return (self.predict_proba(X) >= threshold).astype(int)


def fit(X, y, *, lr: float = 0.5, epochs: int = 5, batch_size: int = 64, l2: float = 0.0, lr_decay: float = 0.0,
        seed: int = 0, X_val=None, y_val=None, progress: bool = False) -> LogisticModel:
    """小批量 SGD 训练逻辑回归；每轮打乱一次（由 seed 决定，可复现）。

    教学位置：第 4.3—4.4 节的循环在真实评论上重复多次。
    lr_decay：第 e 轮（从 1 数起）的学习率 = lr / (1 + lr_decay·(e − 1))；0 表示不衰减，1 表示第 e 轮用 lr/e。
    progress=True 时显示进度条（tqdm）；history 记录每轮的学习率和训练/验证损失。
    """
    X, y = _xy(X, y)
    check_positive(lr, "lr")
    check_positive(epochs, "epochs", integer=True)
    check_positive(batch_size, "batch_size", integer=True)
    check_positive(l2, "l2", allow_zero=True)
    check_positive(lr_decay, "lr_decay", allow_zero=True)
    if X_val is not None:
        X_val, y_val = _xy(X_val, y_val)
    rng = np.random.default_rng(seed)
    w, b = np.zeros(X.shape[1]), 0.0
    n = X.shape[0]
    steps = range(epochs)
    if progress:
        from tqdm.auto import tqdm  # 只在需要进度条时导入
        steps = tqdm(steps, desc="训练轮次")
    history = []
    for epoch in steps:
        order = rng.permutation(n)
        lr_epoch = lr / (1 + lr_decay * epoch)
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            Xb = X.rows(idx) if isinstance(X, CountMatrix) else X[idx]
            w, b = sgd_step(w, b, Xb, y[idx], lr_epoch, l2)
        row = {"epoch": epoch + 1, "lr": lr_epoch, "train_loss": loss(w, b, X, y, l2)}
        if X_val is not None:
            row["val_loss"] = loss(w, b, X_val, y_val)
        history.append(row)
    return LogisticModel(w, b, history)


def descent_path(X, y, *, lr: float, steps: int, w0=None, b0: float = 0.0,
                 fit_bias: bool = True) -> list[float]:
    """全批量梯度下降 steps 步，返回每一步之前和最后的损失（长度 steps+1）。

    教学位置：第 4.3 节（学习率太大时损失可能上升）。学习率滑块画的就是它。
    """
    X, y = _xy(X, y)
    check_positive(steps, "steps", integer=True)
    w = np.zeros(X.shape[1]) if w0 is None else as_float_array(w0, "w0").reshape(-1)
    b = float(b0)
    losses = [loss(w, b, X, y)]
    for _ in range(steps):
        w, b = sgd_step(w, b, X, y, lr, fit_bias=fit_bias)
        losses.append(loss(w, b, X, y))
    return losses
