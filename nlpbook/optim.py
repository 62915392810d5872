"""训练用的共同部件：Adam/AdamW（类 Adam 与函数式 adam_step 共用同一条更新）、按全局范数裁剪、单线程 BLAS。

- 更新规则只有一条（与 PyTorch 的 torch.optim.Adam/AdamW 相同）：t 从 1 开始，
  m ← β1·m + (1−β1)·g，v ← β2·v + (1−β2)·g²，参数 ← 参数 − lr·m̂/(√v̂ + eps)，
  m̂ = m/(1−β1ᵗ)，v̂ = v/(1−β2ᵗ)；AdamW 另减 lr·weight_decay·参数（只对矩阵）。
- Adam（类）：带权重衰减与裁剪，Transformer 的各个训练函数用它；adam_step（函数）：状态放在调用方的字典里，
  RNN 分类器、字符 GRU、TextCNN 用它（状态可以随模型保存，接着训练）。
- BLAS 线程的规则：每个训练函数在训练期间用 single_thread_blas() 把 BLAS 限定为单线程（小矩阵多线程反而慢，
  而线程数不同会让结果的末位不同）；scripts/ 里产生记录的脚本把整个运行（训练与评估）包在同一个
  single_thread_blas() 里。别的模块不直接导入 threadpoolctl。
不做的事：不做学习率调度（由调用方在两步之间改 lr）、动量 SGD、二阶方法。
例：opt = Adam(lr=0.1)；opt.step({"w": np.array([1.0])}, {"w": np.array([0.5])}) → w 变成 ≈ 0.9
"""
from __future__ import annotations

import math

import numpy as np

from ._checks import as_float_array_keep, check_adam_settings, check_positive

__all__ = ["single_thread_blas", "blas_kernels", "global_norm", "clip_by_global_norm", "Adam", "adam_step"]


def single_thread_blas():
    """把 BLAS 限定为单线程。教学位置：第 8.4 节（训练结果可复现）。

    两种用法：with single_thread_blas(): …（离开 with 块时恢复原来的线程数），或者在 notebook 开头调用一次、
    留着返回值，整章都单线程（与 scripts/ 里的脚本把整个运行包起来的做法一致）。
    例：with single_thread_blas(): model = train_rnn_classifier(...)
    """
    from threadpoolctl import threadpool_limits  # 只在需要时导入
    return threadpool_limits(limits=1, user_api="blas")


def blas_kernels() -> list[str]:
    """这台机器上 numpy 用的 BLAS 与它选的内核，例如 ['openblas 0.3.31 SkylakeX']。教学位置：教师指南第九节。

    不同 CPU 上 OpenBLAS 选不同的内核，矩阵乘法的最后一位因此不同，训练会把这点差别放大（见第 8.4 节的现场训练）。
    """
    import numpy  # noqa: F401  先加载 numpy，threadpoolctl 才看得到它带的 BLAS
    from threadpoolctl import threadpool_info
    return [" ".join(str(v) for v in (i.get("internal_api"), i.get("version"), i.get("architecture")) if v)
            for i in threadpool_info() if i.get("user_api") == "blas"]


def global_norm(grads: dict) -> float:
    """全部梯度拼成一个向量后的长度 √(Σ g²)。教学位置：第 8.5 节。

    例：{'a': [3, 4]} -> 5.0
    """
    if not isinstance(grads, dict) or not grads:
        raise TypeError("grads 必须是非空的 {名字: 梯度数组} 字典")
    norm = math.sqrt(sum(float(np.vdot(g.ravel(), g.ravel())) for g in grads.values()))
    if not math.isfinite(norm):
        raise ValueError("梯度含 NaN 或无穷大（可能学习率太大、发生了梯度爆炸）；参数没有更新")
    return norm


def clip_by_global_norm(grads: dict, max_norm: float):
    """全部梯度拼成一个向量，范数超过 max_norm 就等比例缩小。返回 (新梯度, 缩放前的范数)。教学位置：第 8.5 节。

    例：梯度 {'a': [3, 4]}，max_norm=1 -> {'a': [0.6, 0.8]}，范数 5
    """
    check_positive(max_norm, "max_norm")
    if not isinstance(grads, dict) or not grads:
        raise TypeError("grads 必须是非空的 {名字: 梯度数组} 字典")
    grads = {k: as_float_array_keep(g, f"grads[{k!r}]") for k, g in grads.items()}
    norm = global_norm(grads)
    if norm <= max_norm:
        return grads, norm
    s = max_norm / norm
    return {k: (g * s).astype(g.dtype) for k, g in grads.items()}, norm


def _check_step(params, grads) -> None:
    if not isinstance(params, dict) or not isinstance(grads, dict) or not grads:
        raise TypeError("params 与 grads 必须是字典，grads 非空：{名字: 数组}")
    for k, g in grads.items():
        p = params.get(k)
        if not isinstance(p, np.ndarray) or not isinstance(g, (np.ndarray, np.generic)) or np.shape(g) != p.shape:
            raise ValueError(f"grads[{k!r}] 必须是与 params[{k!r}]（numpy 数组，原地更新）同形状的数组")


def _update(params, grads, moments, t, lr, b1, b2, eps, weight_decay=0.0, scale=1.0) -> None:
    """唯一的更新公式（类与函数都调用它）。moments(k, p) 给出参数 k 的 (m, v)，原地修改。"""
    step = lr / (1.0 - b1 ** t)
    vfix = 1.0 / math.sqrt(1.0 - b2 ** t)
    for k, g in grads.items():
        p = params[k]
        m, v = moments(k, p)
        gs = g * scale if scale != 1.0 else g
        m *= b1
        m += (1.0 - b1) * gs
        v *= b2
        v += (1.0 - b2) * (gs * gs)
        denom = np.sqrt(v)
        denom *= vfix          # √v̂ = √v / √(1−β2ᵗ)
        denom += eps
        if weight_decay and p.ndim >= 2:
            p -= (lr * weight_decay) * p
        p -= step * (m / denom)


class Adam:
    """Adam（Kingma & Ba 2015）；weight_decay > 0 时是 AdamW（解耦的权重衰减）。

    教学位置：第 4.3 节“新参数 = 旧参数 − 学习率 × 梯度”的改进版（课文未展开；训练第 13 章的小模型时使用）。

    每一步（t 从 1 开始，g 为梯度）：
      若 clip 不为 None 且全部梯度的总范数 ‖g‖ > clip：g ← g · clip/‖g‖（按全局范数裁剪）
      m ← β1·m + (1−β1)·g；v ← β2·v + (1−β2)·g²
      参数 ← 参数 − lr·( m/(1−β1ᵗ) / (√(v/(1−β2ᵗ)) + eps) + weight_decay·参数 )
    权重衰减只作用于二维及以上的数组（矩阵、词向量表），不作用于偏置与 LayerNorm 的 gamma/beta。
    例：第一步 g = 0.5、lr = 0.1 → m̂ = 0.5，v̂ = 0.25，参数减少 0.1·0.5/(0.5 + 1e-8) ≈ 0.1。
    step 原地修改 params 里的数组，返回裁剪前的梯度总范数。lr 可在两步之间修改（学习率调度）。
    """

    def __init__(self, lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 weight_decay: float = 0.0, clip: float | None = None):
        check_adam_settings(lr, {"beta1": beta1, "beta2": beta2}, eps)
        check_positive(weight_decay, "weight_decay", allow_zero=True)
        if clip is not None:
            check_positive(clip, "clip")
        self.lr, self.beta1, self.beta2, self.eps = float(lr), float(beta1), float(beta2), float(eps)
        self.weight_decay, self.clip = float(weight_decay), clip
        self.t = 0
        self.m: dict = {}
        self.v: dict = {}

    def _moments(self, k, p):
        if k not in self.m:
            self.m[k], self.v[k] = np.zeros_like(p), np.zeros_like(p)
        return self.m[k], self.v[k]

    def step(self, params: dict, grads: dict) -> float:
        _check_step(params, grads)
        norm = global_norm(grads)
        scale = self.clip / norm if self.clip is not None and norm > self.clip else 1.0
        self.t += 1
        _update(params, grads, self._moments, self.t, self.lr, self.beta1, self.beta2, self.eps,
                self.weight_decay, scale)
        return norm


def adam_step(P: dict, g: dict, state: dict, lr: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8):
    """Adam 一步的函数写法：按梯度 g 原地更新参数 P，一阶、二阶矩与步数存在 state 里。教学位置：第 8.4 节。

    公式与 Adam 类完全相同（同一段代码），只是没有权重衰减与裁剪（需要裁剪时先调 clip_by_global_norm）。
    state 第一次传空字典 {}，之后每步传同一个；它的键是 't'、'm_<名字>'、'v_<名字>'，
    接着训练时连同参数一起保存。返回梯度的总范数。
    例：P = {'w': np.array([1.0])}；adam_step(P, {'w': np.array([0.5])}, {}, lr=0.1) → P['w'] ≈ [0.9]
    """
    if not isinstance(state, dict):
        raise TypeError("P、g、state 必须是字典（g 非空：{名字: 梯度数组}；state 第一次传 {}）")
    check_adam_settings(lr, {"b1": b1, "b2": b2}, eps)
    _check_step(P, g)
    norm = global_norm(g)
    state["t"] = t = state.get("t", 0) + 1

    def moments(k, p):
        if "m_" + k not in state:
            state["m_" + k], state["v_" + k] = np.zeros_like(p), np.zeros_like(p)
        return state["m_" + k], state["v_" + k]

    _update(P, g, moments, t, float(lr), float(b1), float(b2), float(eps))
    return norm
