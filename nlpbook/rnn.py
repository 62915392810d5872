"""循环单元（numpy）：第 8 章的记事本与 RNN，第 9 章的 LSTM/GRU 与双向。
用它们搭成的影评分类器见 rnn_classifier 模块，字符级语言模型见 char_rnn 模块。

形状约定（全模块统一，按行排批量）：x (batch, d_in)，h (batch, d_h)，Wx (d_in, d_h)，Wh (d_h, d_h)，
即 h = tanh(x @ Wx + h_prev @ Wh + b)。课文写 W_x x_t（列向量），这里的 Wx 是它的转置。
单元函数也接受一维向量（当作 batch=1，返回一维）；序列形状为 (T, batch, d)。
门控里的 sigmoid 写成 0.5·(1 + tanh(a/2))（数学上相同、稳定，且保持 float32，训练循环不被升成 float64）。
不做的事：不做多层堆叠、dropout、注意力；不自动求导——每个单元有手写的 *_backward，测试用有限差分检验。
"""
from __future__ import annotations

import math

import numpy as np

from ._checks import (as_float_array, as_float_array_keep, as_float_array_of_shape, check_param_dict, check_positive,
                      check_upstream_grad)

__all__ = ["toy_record", "decay_influence", "rnn_cell", "rnn_cell_backward", "lstm_memory_update",
           "lstm_output", "lstm_cell", "lstm_cell_backward", "gru_step", "gru_step_backward", "gru_cell",
           "gru_cell_backward", "init_cell_params", "run_rnn", "bidirectional"]

CELLS = ("rnn", "lstm", "gru")


# ---------- 第 8.2、8.5 节：一格的记事本 ----------
def toy_record(features, decay: float = 0.5, start: float = 0.0) -> list[float]:
    """新记录 = 旧记录 × decay + 当前词的特征；返回读完每个词后的记录。教学位置：第 8.2 节。

    例：猫追狗 [1, 0, 2] -> [1, 0.5, 2.25]；狗追猫 [2, 0, 1] -> [2, 1, 1.5]
    """
    f = as_float_array(features, "features")
    if f.ndim != 1:
        raise ValueError(f"features 必须是一维的逐词特征，收到形状 {f.shape}")
    rec, d = float(as_float_array(start, "start")), float(as_float_array(decay, "decay"))
    out = []
    for v in f:
        rec = rec * d + float(v)
        out.append(rec)
    return out


def decay_influence(decay: float, steps: int) -> float:
    """一个词的信息再经过 steps 次更新后剩下的倍数 decay**steps。教学位置：第 8.5 节。

    例：decay_influence(0.5, 10) ≈ 0.000977；decay_influence(0.5, 20) ≈ 0.000000954
    """
    check_positive(steps, "steps", integer=True, allow_zero=True)
    return float(as_float_array(decay, "decay")) ** steps


# ---------- 输入检查 ----------
_arr = as_float_array_keep  # float32 原样保留，拒绝 NaN/inf（_checks 里的共用检查）
_mat = as_float_array_of_shape  # 同上，且形状必须正好是给定的 shape


def _xh(x, h_prev, d_in: int, d_h: int, hname: str = "h_prev"):
    """把 x、h_prev 统一成二维 (batch, ·)，检查列数与批量；返回 (x, h, 是否原本是一维)。"""
    x, h = _arr(x, "x"), _arr(h_prev, hname)
    vec = x.ndim == 1
    x = x[None] if vec else x
    h = h[None] if h.ndim == 1 else h
    if x.ndim != 2 or x.shape[1] != d_in:
        raise ValueError(f"x 应为 (batch, {d_in})（与 Wx 的行数一致）或长 {d_in} 的向量，收到形状 {x.shape}")
    if h.shape != (x.shape[0], d_h):
        raise ValueError(f"{hname} 应为 ({x.shape[0]}, {d_h})（batch 与 x 相同，列数是隐藏维 d_h），收到 {h.shape}")
    return x, h, vec


def _params(params, keys: tuple, cell: str) -> dict:
    check_param_dict(params, keys, f"{cell} 的参数", hint="（可用 init_cell_params 生成）")
    return {k: _arr(params[k], k) for k in keys}


def _grad_in(d, cache: dict, shape: tuple, name: str):
    """反向传播收到的上游梯度：形状必须与该单元的输出相同（一维输入时输出也是一维），再统一成二维。"""
    return check_upstream_grad(d, shape[1:] if cache["vec"] else shape, name).reshape(shape)


def _sig(a):
    return 0.5 * (1.0 + np.tanh(0.5 * a))


def _out(a, vec):
    return a[0] if vec else a


# ---------- 第 8.3 节：RNN 单元 ----------
def rnn_cell(x, h_prev, Wx, Wh, b, return_cache: bool = False):
    """h = tanh(x @ Wx + h_prev @ Wh + b)。教学位置：第 8.3 节。

    x (batch, d_in)，h_prev (batch, d_h)，Wx (d_in, d_h)，Wh (d_h, d_h)，b (d_h,)。
    return_cache=True 时返回 (h, cache)，cache 交给 rnn_cell_backward。
    """
    Wx = _arr(Wx, "Wx")
    if Wx.ndim != 2:
        raise ValueError(f"Wx 必须是二维 (d_in, d_h)，收到形状 {Wx.shape}")
    d_in, d_h = Wx.shape
    Wh, b = _mat(Wh, "Wh", (d_h, d_h)), _mat(b, "b", (d_h,))
    x, h, vec = _xh(x, h_prev, d_in, d_h)
    h_new = np.tanh(x @ Wx + h @ Wh + b)
    if not return_cache:
        return _out(h_new, vec)
    return _out(h_new, vec), {"x": x, "h_prev": h, "h": h_new, "Wx": Wx, "Wh": Wh, "vec": vec}


def rnn_cell_backward(dh, cache):
    """rnn_cell 的反向：给 ∂L/∂h，返回 (∂L/∂x, ∂L/∂h_prev, {'Wx','Wh','b'} 的梯度)。教学位置：第 8.4 节。"""
    da = _grad_in(dh, cache, cache["h"].shape, "dh") * (1 - cache["h"] * cache["h"])
    grads = {"Wx": cache["x"].T @ da, "Wh": cache["h_prev"].T @ da, "b": da.sum(0)}
    v = cache["vec"]
    return _out(da @ cache["Wx"].T, v), _out(da @ cache["Wh"].T, v), grads


# ---------- 第 9.2、9.3 节：LSTM ----------
def _gate(a, name: str, lo: float = 0.0):
    a = _arr(a, name)
    if a.size and (a.min() < lo or a.max() > 1):
        raise ValueError(f"{name} 必须在 [{lo:g}, 1] 之间（门是 0—1 的比例，候选内容来自 tanh），"
                         f"收到 {a.min():.4g}..{a.max():.4g}")
    return a


def _scalar_or(a):
    return float(a) if np.ndim(a) == 0 else a


def lstm_memory_update(c_prev, f, i, g):
    """新记忆 c = f ⊙ c_prev + i ⊙ g（逐格相乘）。教学位置：第 9.2 节。

    例：lstm_memory_update(0.8, f=0.9, i=0.2, g=0.5) -> 0.82；f=1、i=0 时记忆原样保留。
    """
    c_prev = _arr(c_prev, "c_prev")
    f, i, g = _gate(f, "f（遗忘门）"), _gate(i, "i（输入门）"), _gate(g, "g（候选内容）", lo=-1.0)
    try:
        np.broadcast_shapes(c_prev.shape, f.shape, i.shape, g.shape)
    except ValueError:
        raise ValueError(f"c_prev、f、i、g 的形状不一致：{c_prev.shape}、{f.shape}、{i.shape}、{g.shape}") from None
    return _scalar_or(f * c_prev + i * g)


def lstm_output(c, o):
    """对外输出 h = o ⊙ tanh(c)。教学位置：第 9.2 节。例：lstm_output(0.82, 0.7) ≈ 0.473"""
    c, o = _arr(c, "c"), _gate(o, "o（输出门）")
    try:
        np.broadcast_shapes(c.shape, o.shape)
    except ValueError:
        raise ValueError(f"c 与 o 的形状不一致：{c.shape}、{o.shape}") from None
    return _scalar_or(o * np.tanh(c))


def lstm_cell(x, h_prev, c_prev, params):
    """LSTM 一步：返回 (h, c, cache)。教学位置：第 9.3 节与附录 B。

    params = {'W': (d_in + d_h, 4·d_h), 'b': (4·d_h,)}；z = [x; h_prev]，a = z @ W + b，
    a 的四段依次是 f（遗忘门）、i（输入门）、g（候选内容）、o（输出门）：
    f=σ(a_f)，i=σ(a_i)，g=tanh(a_g)，o=σ(a_o)，c = f⊙c_prev + i⊙g，h = o⊙tanh(c)。
    """
    P = _params(params, ("W", "b"), "lstm")
    W, b = P["W"], P["b"]
    if W.ndim != 2 or W.shape[1] % 4:
        raise ValueError(f"W 必须是 (d_in + d_h, 4·d_h)，收到形状 {W.shape}")
    H = W.shape[1] // 4
    d_in = W.shape[0] - H
    if d_in < 1:
        raise ValueError(f"W 的行数 {W.shape[0]} 应为 d_in + d_h（d_h={H}），d_in 至少为 1")
    _mat(b, "b", (4 * H,))
    x, h, vec = _xh(x, h_prev, d_in, H)
    c = _arr(c_prev, "c_prev")
    c = c[None] if c.ndim == 1 else c
    if c.shape != h.shape:
        raise ValueError(f"c_prev 的形状应与 h_prev 相同 {h.shape}，收到 {c.shape}")
    z = np.concatenate([x, h], axis=1)
    a = z @ W + b
    f, i, g, o = _sig(a[:, :H]), _sig(a[:, H:2 * H]), np.tanh(a[:, 2 * H:3 * H]), _sig(a[:, 3 * H:])
    c_new = lstm_memory_update(c, f, i, g)
    h_new, tc = lstm_output(c_new, o), np.tanh(c_new)
    cache = {"z": z, "f": f, "i": i, "g": g, "o": o, "c_prev": c, "tc": tc, "W": W, "d_in": d_in, "vec": vec}
    return _out(h_new, vec), _out(c_new, vec), cache


def lstm_cell_backward(dh, dc, cache):
    """lstm_cell 的反向：给 ∂L/∂h 与 ∂L/∂c（可为 None），返回 (dx, dh_prev, dc_prev, {'W','b'} 的梯度)。

    教学位置：第 9.4 节（门控改善梯度传播：dc_prev = dc_total ⊙ f，遗忘门接近 1 时梯度几乎原样传回）。
    """
    f, i, g, o, tc = (cache[k] for k in ("f", "i", "g", "o", "tc"))
    dh = _grad_in(dh, cache, tc.shape, "dh")
    dc = np.zeros_like(tc) if dc is None else _grad_in(dc, cache, tc.shape, "dc")
    dct = dc + dh * o * (1 - tc * tc)
    da = np.concatenate([dct * cache["c_prev"] * f * (1 - f), dct * g * i * (1 - i),
                         dct * i * (1 - g * g), dh * tc * o * (1 - o)], axis=1)
    dz = da @ cache["W"].T
    v, k = cache["vec"], cache["d_in"]
    return _out(dz[:, :k], v), _out(dz[:, k:], v), _out(dct * f, v), {"W": cache["z"].T @ da, "b": da.sum(0)}


# ---------- 第 9.4 节：GRU（PyTorch 约定） ----------
def _check_step_arrays(**arrays) -> None:
    for name, a in arrays.items():
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{name} 必须是 numpy 数组（逐步调用时不做转换；单独算一步请用 gru_cell），"
                            f"收到 {type(a).__name__}")


def gru_step(gx, h, Wh, bh):
    """GRU 一步的核心：gx = x @ Wx + bx 已算好，返回 (h_new, core)。教学位置：第 9.4 节。

    公式同 gru_cell；core 是反向要用的中间量，交给 gru_step_backward。gx (batch, 3·d_h)，h (batch, d_h)，
    Wh (d_h, 3·d_h)，bh (3·d_h,)。字符 GRU 语言模型（char_rnn）先一次算好整段的 gx，再每个时间步调用它一次，
    所以这里只检查类型与形状；单独算一步请用 gru_cell。
    """
    _check_step_arrays(gx=gx, h=h, Wh=Wh, bh=bh)
    if h.ndim != 2:
        raise ValueError(f"h 应为 (batch, d_h)，收到形状 {h.shape}")
    B, H = h.shape
    for name, a, want in (("gx", gx, (B, 3 * H)), ("Wh", Wh, (H, 3 * H)), ("bh", bh, (3 * H,))):
        if a.shape != want:
            raise ValueError(f"{name} 的形状应为 {want}（batch={B}、d_h={H}），收到 {a.shape}")
    gh = h @ Wh + bh
    r = _sig(gx[:, :H] + gh[:, :H])
    u = _sig(gx[:, H:2 * H] + gh[:, H:2 * H])
    n = np.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
    return n + u * (h - n), (h, r, u, n, gh[:, 2 * H:])


def gru_step_backward(dh, core, Wh):
    """gru_step 的反向：给 ∂L/∂h_new，返回 (∂L/∂gx, ∂L/∂h_prev, ∂L/∂gh)。教学位置：第 9.4 节。

    gh = h_prev @ Wh + bh，所以 ∂L/∂Wh = h_prevᵀ @ ∂L/∂gh，∂L/∂bh 是 ∂L/∂gh 按行求和（见 gru_cell_backward）。
    与 gru_step 一样只检查类型与形状。
    """
    if not (isinstance(core, tuple) and len(core) == 5):
        raise TypeError("core 必须是 gru_step 返回的中间量（5 个数组的元组）")
    _check_step_arrays(dh=dh, Wh=Wh)
    h, r, u, n, ghn = core
    if dh.shape != h.shape or Wh.shape != (h.shape[1], 3 * h.shape[1]):
        raise ValueError(f"dh 的形状应与 h 相同 {h.shape}、Wh 应为 {(h.shape[1], 3 * h.shape[1])}，"
                         f"收到 {dh.shape} 与 {Wh.shape}")
    dn = dh * (1 - u)
    dan = dn * (1 - n * n)
    dar = dan * ghn * r * (1 - r)
    dau = dh * (h - n) * u * (1 - u)
    dgh = np.concatenate([dar, dau, dan * r], axis=1)
    return np.concatenate([dar, dau, dan], axis=1), dh * u + dgh @ Wh.T, dgh


GRU_KEYS = ("Wx", "Wh", "bx", "bh")


def _gru_params(params):
    P = _params(params, GRU_KEYS, "gru")
    if P["Wx"].ndim != 2 or P["Wx"].shape[1] % 3:
        raise ValueError(f"Wx 必须是 (d_in, 3·d_h)，收到形状 {P['Wx'].shape}")
    H = P["Wx"].shape[1] // 3
    for k, s in (("Wh", (H, 3 * H)), ("bx", (3 * H,)), ("bh", (3 * H,))):
        _mat(P[k], k, s)
    return P, H


def gru_cell(x, h_prev, params, return_cache: bool = False):
    """GRU 一步（与 PyTorch 的 nn.GRU 相同的约定）。教学位置：第 9.4 节。

    params = {'Wx': (d_in, 3·d_h), 'Wh': (d_h, 3·d_h), 'bx': (3·d_h,), 'bh': (3·d_h,)}，三段依次是 r、z、n：
    r = σ(x Wx_r + bx_r + h Wh_r + bh_r)，z = σ(…_z)，n = tanh(x Wx_n + bx_n + r ⊙ (h Wh_n + bh_n))，
    h = (1 − z) ⊙ n + z ⊙ h_prev（z 接近 1 时保留旧状态）。
    """
    P, H = _gru_params(params)
    x, h, vec = _xh(x, h_prev, P["Wx"].shape[0], H)
    h_new, core = gru_step(x @ P["Wx"] + P["bx"], h, P["Wh"], P["bh"])
    if not return_cache:
        return _out(h_new, vec)
    return _out(h_new, vec), {"x": x, "core": core, "Wx": P["Wx"], "Wh": P["Wh"], "vec": vec}


def gru_cell_backward(dh, cache):
    """gru_cell 的反向：返回 (dx, dh_prev, {'Wx','Wh','bx','bh'} 的梯度)。教学位置：第 9.4 节。"""
    h = cache["core"][0]
    dgx, dh_prev, dgh = gru_step_backward(_grad_in(dh, cache, h.shape, "dh"), cache["core"], cache["Wh"])
    grads = {"Wx": cache["x"].T @ dgx, "Wh": h.T @ dgh, "bx": dgx.sum(0), "bh": dgh.sum(0)}
    v = cache["vec"]
    return _out(dgx @ cache["Wx"].T, v), _out(dh_prev, v), grads


# ---------- 整段序列与双向 ----------
def _check_cell(cell):
    if cell not in CELLS:
        raise ValueError(f"cell 只能是 'rnn'、'lstm' 或 'gru'，收到 {cell!r}")


def init_cell_params(cell: str, d_in: int, d_h: int, seed: int = 0, dtype=np.float64) -> dict:
    """随机初始化一个单元的参数（均匀分布 ±1/√d_h，与 PyTorch 相同）。教学位置：第 8.3 节、第 9 章。

    键名见 rnn_cell（Wx, Wh, b）、lstm_cell（W, b）、gru_cell（Wx, Wh, bx, bh）。
    """
    _check_cell(cell)
    check_positive(d_in, "d_in", integer=True)
    check_positive(d_h, "d_h", integer=True)
    rng, s = np.random.default_rng(seed), 1 / math.sqrt(d_h)
    shapes = {"rnn": {"Wx": (d_in, d_h), "Wh": (d_h, d_h), "b": (d_h,)},
              "lstm": {"W": (d_in + d_h, 4 * d_h), "b": (4 * d_h,)},
              "gru": {"Wx": (d_in, 3 * d_h), "Wh": (d_h, 3 * d_h), "bx": (3 * d_h,), "bh": (3 * d_h,)}}[cell]
    return {k: rng.uniform(-s, s, size=v).astype(dtype) for k, v in shapes.items()}


def run_rnn(xs, h0, params, cell: str = "rnn", c0=None) -> np.ndarray:
    """从左到右读完整段序列，返回每一步的隐藏状态 (T, batch, d_h)。教学位置：第 8.3 节、第 9 章。

    xs (T, batch, d_in)（或 (T, d_in)，此时返回 (T, d_h)）；h0 为 None 时从全零开始；
    params 的键见对应单元；LSTM 的记忆初值 c0 缺省为零。每一步共享同一套参数。
    """
    _check_cell(cell)
    xs = _arr(xs, "xs")
    if xs.ndim not in (2, 3) or xs.shape[0] == 0:
        raise ValueError(f"xs 必须是 (T, batch, d_in) 或 (T, d_in) 且 T ≥ 1，收到形状 {xs.shape}")
    squeeze = xs.ndim == 2
    xs = xs[:, None] if squeeze else xs
    keys = {"rnn": ("Wx", "Wh", "b"), "lstm": ("W", "b"), "gru": GRU_KEYS}[cell]
    params = _params(params, keys, cell)
    d_h = params["b"].shape[0] // 4 if cell == "lstm" else params["Wh"].shape[0]
    h = np.zeros((xs.shape[1], d_h), xs.dtype) if h0 is None else h0
    c = np.zeros((xs.shape[1], d_h), xs.dtype) if c0 is None else c0
    out = []
    for x in xs:
        if cell == "rnn":
            h = rnn_cell(x, h, params["Wx"], params["Wh"], params["b"])
        elif cell == "lstm":
            h, c, _ = lstm_cell(x, h, c, params)
        else:
            h = gru_cell(x, h, params)
        out.append(h)
    hs = np.stack(out)
    return hs[:, 0] if squeeze else hs


def bidirectional(xs, params_fwd, params_bwd, cell: str = "rnn") -> np.ndarray:
    """双向：从左往右读一遍、从右往左读一遍，在最后一维拼接 [正向; 反向]，形状 (T, batch, 2·d_h)。

    教学位置：第 9.4 节。第 t 行的反向部分是从句尾读到第 t 个词的状态。
    不处理 padding：批量里的句子须等长（变长句子请逐句调用）。生成任务不能用（未来的词还不存在）。
    """
    fwd = run_rnn(xs, None, params_fwd, cell)
    bwd = run_rnn(_arr(xs, "xs")[::-1], None, params_bwd, cell)[::-1]
    if fwd.shape[:-1] != bwd.shape[:-1]:
        raise ValueError("正反两个方向的输出形状不一致")
    return np.concatenate([fwd, bwd], axis=-1)
