"""第 12.5 节“真的训练一次”：字符级编码器—解码器（GRU），只传最终记录，或再加点积注意力。

玩具任务：把一串随机数字倒过来写（"3141" → "1413"）。输入越长，要记住的东西越多，正好检验
“整段输入只留一个最终记录”会不会在长输入上吃亏（第 12.2 节）。
- 两个模型只差一处：解码器每一步要么只看自己的状态 s_t（plain），要么再用点积注意力
  （分数 s_t · h_i，不缩放，同第 12 章练习 5）从编码器每一步的状态 h_i 里合成上下文 c_t（attention）。
  其余完全相同：解码器的初始状态都是编码器的最终记录，输出都是 tanh([s_t; c_t] W_c + b_c) 再接输出层。
- 训练用“老师带路”（teacher forcing）：解码器每一步的输入是正确答案的上一个字符；一批里输入等长，不需要补齐。
- 评估用贪心解码：每步取分数最高的字符，再喂回去；整串都对（并在末尾输出 <EOS>）才算对。
GRU 单元直接用 rnn 模块的 gru_step / gru_step_backward，优化器用 optim 的 adam_step；反向传播手写，测试里用有限差分检验。
不做的事：不做束搜索、双向编码器、多层、输入反馈（input feeding）或补齐；不是翻译模型，只是看清瓶颈的小实验。
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._checks import as_id_array, check_positive
from .attention import masked_softmax
from .optim import adam_step, clip_by_global_norm, single_thread_blas
from .rnn import gru_step, gru_step_backward, init_cell_params

__all__ = ["TOKENS", "BOS", "EOS", "KINDS", "reverse_task", "length_test_set", "init_seq2seq", "seq2seq_kind",
           "loss_and_grads", "greedy_decode", "exact_match", "evaluate", "bucket_accuracy", "Seq2Seq", "train_seq2seq"]

TOKENS = tuple("0123456789") + ("<BOS>", "<EOS>")   # 10 个数字，加开始符与结束符
N_DIGITS, BOS, EOS = 10, 10, 11
KINDS = ("plain", "attention")
_GRU = ("Wx", "Wh", "bx", "bh")
KEYS = {kind: ("E_src",) + tuple("enc_" + k for k in _GRU) + ("E_tgt",) + tuple("dec_" + k for k in _GRU)
        + ("W_c", "b_c", "W_out", "b_out") for kind in KINDS}


# ---------- 任务 ----------
def reverse_task(rng: np.random.Generator, n: int, batch: int) -> tuple[np.ndarray, np.ndarray]:
    """batch 条长度为 n 的随机数字串与它们的答案：返回 (src (batch, n), tgt (batch, n+1))，tgt = 倒序 + <EOS>。

    教学位置：第 12.5 节（真的训练一次：倒写数字串）。数字 0—9 的编号就是它本身。
    例：src [[3, 1, 4]] → tgt [[4, 1, 3, 11]]（11 是 <EOS>）
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng 必须是 np.random.Generator，收到 {type(rng).__name__}")
    check_positive(n, "n", integer=True)
    check_positive(batch, "batch", integer=True)
    src = rng.integers(0, N_DIGITS, size=(batch, n))
    return src, np.concatenate([src[:, ::-1], np.full((batch, 1), EOS)], axis=1)


def length_test_set(lengths=(3, 16), per_length: int = 200, seed: int = 0) -> list[np.ndarray]:
    """评测用的固定数字串：每个长度 per_length 条，返回各长度的 src 列表（从最短到最长）。教学位置：第 12.5 节。

    只由 seed 决定，与训练的种子无关，所以不同模型、不同训练种子都在同一批串上打分（可以配对比较）。
    短的串一共没几种（长度 3 只有 1,000 种），训练时多半见过；长的串几乎都没见过。
    例：[s.shape for s in length_test_set((3, 4), 5)] -> [(5, 3), (5, 4)]
    """
    lo, hi = _check_lengths(lengths)
    check_positive(per_length, "per_length", integer=True)
    check_positive(seed, "seed", integer=True, allow_zero=True)
    return [reverse_task(np.random.default_rng([seed, n]), n, per_length)[0] for n in range(lo, hi + 1)]


# ---------- 参数 ----------
def init_seq2seq(kind: str = "attention", hidden: int = 32, dim: int = 16, seed: int = 0) -> dict:
    """两个 GRU（编码器 enc_*、解码器 dec_*）、两张字符向量表、组合层 W_c、输出层 W_out。教学位置：第 12.1 节、第 12.5 节。

    kind="plain"：W_c 形状 (hidden, hidden)，只看解码器状态；kind="attention"：W_c 形状 (2·hidden, hidden)，
    看 [解码器状态; 注意力上下文]。float64。例：init_seq2seq("attention", 8, 4)["W_c"].shape -> (16, 8)
    """
    _check_kind(kind)
    check_positive(hidden, "hidden", integer=True)
    check_positive(dim, "dim", integer=True)
    V = len(TOKENS)
    P = {"enc_" + k: v for k, v in init_cell_params("gru", dim, hidden, seed=seed).items()}
    P.update({"dec_" + k: v for k, v in init_cell_params("gru", dim, hidden, seed=seed + 10_000).items()})
    rng = np.random.default_rng([seed, 12])
    d_c = 2 * hidden if kind == "attention" else hidden
    P["E_src"] = 0.3 * rng.standard_normal((V, dim))
    P["E_tgt"] = 0.3 * rng.standard_normal((V, dim))
    P["W_out"] = rng.standard_normal((hidden, V)) / math.sqrt(hidden)
    P["b_out"] = np.zeros(V)
    # W_c 另用一条随机流：两种模型其余参数的初值完全相同；attention 的 W_c 前 hidden 行（读 s_t 的部分）
    # 与 plain 的 W_c 是同一组随机数，只是按各自的输入维数缩放
    w = np.random.default_rng([seed, 13]).standard_normal((2 * hidden, hidden)) / math.sqrt(d_c)
    P["W_c"] = w[:d_c]
    P["b_c"] = np.zeros(hidden)
    return {k: P[k] for k in KEYS[kind]}


def _check_kind(kind) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind 只能是 'plain'（只传最终记录）或 'attention'（加点积注意力），收到 {kind!r}")


def seq2seq_kind(params) -> str:
    """从参数认出模型：W_c 的行数是解码器隐藏维的 2 倍 → 'attention'，相等 → 'plain'。教学位置：第 12.5 节。"""
    P = getattr(params, "params", params)
    if not isinstance(P, dict) or any(k not in P for k in KEYS["plain"]):
        raise ValueError(f"Seq2Seq 参数必须是含 {KEYS['plain']} 的字典；可用 init_seq2seq 生成")
    H = P["dec_Wh"].shape[0]
    rows = P["W_c"].shape[0]
    if rows not in (H, 2 * H):
        raise ValueError(f"W_c 的行数 {rows} 应为解码器隐藏维 {H}（plain）或 {2 * H}（attention）")
    return "attention" if rows == 2 * H else "plain"


def _ids(a, name: str) -> np.ndarray:
    return as_id_array(a, name, size=len(TOKENS), allow_empty=False, ndims=(2,))


# ---------- 前向与反向 ----------
def _encode(P, src):
    """编码器读完 src (B, n)：每一步的状态 Hs (B, n, H) 与反向要用的中间量。"""
    gx = P["E_src"][src] @ P["enc_Wx"] + P["enc_bx"]
    B, n = src.shape
    h = np.zeros((B, P["enc_Wh"].shape[0]))
    Hs, cores = np.empty((B, n, h.shape[1])), []
    for i in range(n):
        h, core = gru_step(gx[:, i], h, P["enc_Wh"], P["enc_bh"])
        Hs[:, i] = h
        cores.append(core)
    return Hs, cores


def _read(P, S, Hs, attention: bool):
    """解码器状态 S (B, m, H) → 输出层之前的 O (B, m, H)；attention 时先按 S·Hᵀ 的 softmax 合成上下文 C。"""
    if attention:
        A = masked_softmax(S @ Hs.transpose(0, 2, 1))       # (B, m, n)：每个输出步对每个输入位置的权重
        Z = np.concatenate([S, A @ Hs], axis=-1)
    else:
        A, Z = None, S
    return np.tanh(Z @ P["W_c"] + P["b_c"]), Z, A


def loss_and_grads(params, src, tgt) -> tuple[float, dict]:
    """一批（老师带路）的平均每字符交叉熵与全部参数的梯度。教学位置：第 12.5 节（训练会自动调整对齐方式）。

    src (B, n) 输入编号，tgt (B, m) 答案编号（最后一个通常是 <EOS>）；解码器第 t 步的输入是 tgt[:, t-1]
    （第 0 步是 <BOS>）。返回 (loss, {键同参数的梯度})。
    """
    P = getattr(params, "params", params)
    attention = seq2seq_kind(P) == "attention"
    src, tgt = _ids(src, "src"), _ids(tgt, "tgt")
    if src.shape[0] != tgt.shape[0]:
        raise ValueError(f"src 与 tgt 的条数必须相同，收到 {src.shape} 与 {tgt.shape}")
    B, m = tgt.shape
    H = P["dec_Wh"].shape[0]
    Hs, enc_cores = _encode(P, src)
    tin = np.concatenate([np.full((B, 1), BOS), tgt[:, :-1]], axis=1)
    gy = P["E_tgt"][tin] @ P["dec_Wx"] + P["dec_bx"]
    s, S, dec_cores = Hs[:, -1], np.empty((B, m, H)), []
    for t in range(m):
        s, core = gru_step(gy[:, t], s, P["dec_Wh"], P["dec_bh"])
        S[:, t] = s
        dec_cores.append(core)
    O, Z, A = _read(P, S, Hs, attention)
    z = O @ P["W_out"] + P["b_out"]
    z -= z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    total = p.sum(axis=-1, keepdims=True)
    p /= total
    rows, flat = np.arange(B * m), tgt.reshape(-1)
    p2, z2 = p.reshape(B * m, -1), z.reshape(B * m, -1)
    loss = float(np.mean(np.log(total.reshape(-1)) - z2[rows, flat]))     # −ln softmax，不会出现 ln 0

    # 反向：输出层 → 组合层 →（注意力）→ 解码器 BPTT → 编码器 BPTT
    dz = p2.copy()
    dz[rows, flat] -= 1.0
    dz /= B * m
    O2 = O.reshape(B * m, H)
    g = {"W_out": O2.T @ dz, "b_out": dz.sum(0)}
    da = (dz @ P["W_out"].T) * (1.0 - O2 * O2)
    g["W_c"] = Z.reshape(B * m, -1).T @ da
    g["b_c"] = da.sum(0)
    dZ = (da @ P["W_c"].T).reshape(B, m, -1)
    dS = dZ[..., :H].copy()
    if attention:
        dC = dZ[..., H:]
        dHs = A.transpose(0, 2, 1) @ dC                                  # 上下文 = Σ 权重 × h_i
        dA = dC @ Hs.transpose(0, 2, 1)
        dscore = A * (dA - (A * dA).sum(axis=-1, keepdims=True))        # softmax 的反向
        dS += dscore @ Hs
        dHs += dscore.transpose(0, 2, 1) @ S
    else:
        dHs = np.zeros_like(Hs)
    for name, cores, d_states, ids in (("dec", dec_cores, dS, tin), ("enc", enc_cores, dHs, src)):
        Wh, T = P[name + "_Wh"], len(cores)
        dg, dgh = np.empty((T, B, 3 * H)), np.empty((T, B, 3 * H))
        dh = np.zeros((B, H))
        for t in range(T - 1, -1, -1):
            dg[t], dh, dgh[t] = gru_step_backward(dh + d_states[:, t], cores[t], Wh)
        h_prev = np.stack([c[0] for c in cores]).reshape(T * B, H)   # 每一步读进来的旧状态
        g[name + "_Wh"] = h_prev.T @ dgh.reshape(T * B, 3 * H)
        g[name + "_bh"] = dgh.sum(axis=(0, 1))
        dg = dg.transpose(1, 0, 2)
        E = "E_tgt" if name == "dec" else "E_src"
        dg2 = dg.reshape(-1, 3 * H)
        g[name + "_Wx"] = P[E][ids].reshape(dg2.shape[0], -1).T @ dg2
        g[name + "_bx"] = dg2.sum(0)
        g[E] = np.zeros_like(P[E])
        np.add.at(g[E], ids.reshape(-1), dg2 @ P[name + "_Wx"].T)
        if name == "dec":
            dHs[:, -1] += dh              # 解码器的初始状态就是编码器的最终记录
    return loss, {k: g[k] for k in P}


def greedy_decode(params, src, steps: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """贪心解码：每步取分数最高的字符喂回去，共 steps 步（默认 n+1）。教学位置：第 12.1 节、第 12.5 节。

    与第 11 章的贪心解码相同，只是每一步的分数来自解码器。返回 (输出编号 (B, steps), 注意力权重 (B, steps, n)；plain 模型为 None)。
    """
    P = getattr(params, "params", params)
    attention = seq2seq_kind(P) == "attention"
    src = _ids(src, "src")
    steps = src.shape[1] + 1 if steps is None else check_positive(steps, "steps", integer=True)
    Hs, _ = _encode(P, src)
    s, prev = Hs[:, -1], np.full(src.shape[0], BOS)
    out, weights = np.empty((src.shape[0], steps), np.int64), []
    for t in range(steps):
        s, _ = gru_step(P["E_tgt"][prev] @ P["dec_Wx"] + P["dec_bx"], s, P["dec_Wh"], P["dec_bh"])
        O, _, A = _read(P, s[:, None], Hs, attention)
        prev = out[:, t] = np.argmax(O[:, 0] @ P["W_out"] + P["b_out"], axis=-1)
        if attention:
            weights.append(A[:, 0])
    return out, (np.stack(weights, axis=1) if attention else None)


def exact_match(params, src) -> np.ndarray:
    """每条输入是否整串倒写正确（贪心解码的前 n 个字符是倒序，第 n+1 个是 <EOS>）：布尔 (B,)。教学位置：第 12.5 节。"""
    src = _ids(src, "src")
    out, _ = greedy_decode(params, src)
    return np.all(out[:, :-1] == src[:, ::-1], axis=1) & (out[:, -1] == EOS)


def evaluate(params, srcs) -> tuple[np.ndarray, np.ndarray]:
    """多组输入（每组等长，如 length_test_set 的结果）逐条是否倒写正确：返回 (correct (N,) 0/1, 每条的长度 (N,))。

    教学位置：第 12.5 节。correct 按组的顺序连在一起，可以直接交给 compare.pack_correct 或 bucket_accuracy。
    """
    if isinstance(srcs, np.ndarray) or not len(srcs):
        raise TypeError("srcs 必须是非空的列表，每个元素是一组等长的输入 (B, n)")
    correct = [exact_match(params, s).astype(np.int8) for s in srcs]
    return np.concatenate(correct), np.concatenate([np.full(len(c), s.shape[1]) for c, s in zip(correct, srcs)])


def bucket_accuracy(correct, lengths, width: int = 2) -> dict:
    """按输入长度每 width 个一档的准确率：{'3—4': 0.99, …}（从最短的长度起分档）。教学位置：第 12.5 节。

    例：bucket_accuracy([1, 0, 1, 1], [3, 4, 5, 6]) -> {'3—4': 0.5, '5—6': 1.0}
    """
    c, n = np.asarray(correct, dtype=float).reshape(-1), np.asarray(lengths).reshape(-1)
    if len(c) != len(n) or not len(c):
        raise ValueError(f"correct 与 lengths 必须是等长的非空序列，收到 {len(c)} 与 {len(n)}")
    check_positive(width, "width", integer=True)
    out, lo = {}, int(n.min())
    while lo <= n.max():
        hi = lo + width - 1
        sel = (n >= lo) & (n <= hi)
        if sel.any():
            out[f"{lo}—{hi}" if width > 1 else str(lo)] = float(c[sel].mean())
        lo = hi + 1
    return out


# ---------- 训练 ----------
@dataclass
class Seq2Seq:
    """训练好的编码器—解码器：参数、种类（'plain' 或 'attention'）、训练记录（每 log_every 步的平均损失）。"""
    params: dict
    kind: str
    history: list = field(default_factory=list)

    def decode(self, src, steps: int | None = None):
        return greedy_decode(self.params, src, steps)

    def exact_match(self, src) -> np.ndarray:
        return exact_match(self.params, src)


def train_seq2seq(kind: str = "attention", *, lengths=(3, 16), hidden: int = 32, dim: int = 16, steps: int = 2000,
                  batch_size: int = 32, lr: float = 0.01, clip: float = 5.0, seed: int = 0, log_every: int = 100,
                  progress: bool = False) -> Seq2Seq:
    """在倒写数字串的任务上训练（Adam，老师带路）。教学位置：第 12.5 节（真的训练一次）。

    每一步先从 lengths = (最短, 最长) 里均匀抽一个长度 n，再随机生成 batch_size 条长度为 n 的数字串；
    种子决定初始化和全部训练数据。训练期间 BLAS 限定单线程。
    """
    _check_kind(kind)
    lo, hi = _check_lengths(lengths)
    for name, v in (("steps", steps), ("batch_size", batch_size), ("log_every", log_every)):
        check_positive(v, name, integer=True)
    check_positive(lr, "lr")
    check_positive(clip, "clip")
    P = init_seq2seq(kind, hidden, dim, seed)
    rng, state, history, total = np.random.default_rng([seed, 1212]), {}, [], 0.0
    it = range(steps)
    if progress:
        from tqdm.auto import tqdm  # 只在需要进度条时导入
        it = tqdm(it, desc=f"训练 {kind}")
    with single_thread_blas():
        for step in it:
            src, tgt = reverse_task(rng, int(rng.integers(lo, hi + 1)), batch_size)
            loss, g = loss_and_grads(P, src, tgt)
            g, _ = clip_by_global_norm(g, clip)
            adam_step(P, g, state, lr * (1.0 - step / steps))   # 学习率从 lr 线性降到接近 0
            total += loss
            if (step + 1) % log_every == 0:
                history.append({"step": step + 1, "loss": total / log_every})
                total = 0.0
    return Seq2Seq(P, kind, history)


def _check_lengths(lengths) -> tuple[int, int]:
    try:
        lo, hi = lengths
    except (TypeError, ValueError):
        raise TypeError(f"lengths 必须是 (最短, 最长) 两个整数，收到 {lengths!r}") from None
    check_positive(lo, "最短长度", integer=True)
    check_positive(hi, "最长长度", integer=True)
    if lo > hi:
        raise ValueError(f"lengths 的最短 {lo} 不能大于最长 {hi}")
    return int(lo), int(hi)
