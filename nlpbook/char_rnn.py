"""第 11 章：字符级 GRU 语言模型（截断 BPTT，隐藏状态在窗口之间接力），给生成面板提供真实的下一字分布。

形状约定同 rnn 模块。next_logits(params, prefix_ids) 可直接交给 decoding.generate。
不做的事：不做多层、dropout 或采样之外的解码（解码见 decoding 模块）。
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._checks import as_float_array_of_shape, as_id_array, check_positive, check_texts
from .lm import LanguageModel
from .optim import adam_step, clip_by_global_norm, single_thread_blas
from .rnn import GRU_KEYS, gru_step, gru_step_backward, init_cell_params
from .text import UNK

__all__ = ["init_char_rnn", "char_lm_loss_and_grads", "next_logits", "perplexity", "token_nll", "text_nll", "CharRNNLM",
           "train_char_rnn", "char_codec", "load_pretrained", "WEIGHTS"]


# ---------- 第 11 章：字符级 GRU 语言模型 ----------
LM_KEYS = ("E",) + GRU_KEYS + ("W_out", "b_out")


def init_char_rnn(vocab_size: int, hidden: int = 128, dim: int = 32, seed: int = 0, dtype=np.float32) -> dict:
    """字符语言模型参数：字符向量 E (V, dim)，GRU 的 Wx/Wh/bx/bh，输出层 W_out (hidden, V)、b_out (V,)。

    教学位置：第 11.1 节（分类的选项换成词表里的每个字符）。
    """
    check_positive(vocab_size, "vocab_size", integer=True)
    P = init_cell_params("gru", dim, hidden, seed, dtype)
    rng = np.random.default_rng([seed, 2])
    P["E"] = (0.1 * rng.standard_normal((vocab_size, dim))).astype(dtype)
    P["W_out"] = (rng.standard_normal((hidden, vocab_size)) / math.sqrt(hidden)).astype(dtype)
    P["b_out"] = np.zeros(vocab_size, dtype)
    return P


def _lm_params(params):
    P = getattr(params, "params", params)
    if not isinstance(P, dict) or any(k not in P for k in LM_KEYS):
        raise ValueError(f"语言模型参数必须是含 {LM_KEYS} 的字典；可用 init_char_rnn 生成")
    return P


def _lm_forward(P, x, h0):
    """x (B, T) → 每步隐藏状态 (B, T, H)、最后状态、每步的中间量。"""
    gx = P["E"][x] @ P["Wx"] + P["bx"]
    h, cores, hs = h0, [], np.empty(x.shape + (h0.shape[1],), h0.dtype)
    for t in range(x.shape[1]):
        h, core = gru_step(gx[:, t], h, P["Wh"], P["bh"])
        cores.append(core)
        hs[:, t] = h
    return hs, h, cores


def _softmax_nll(P, hs, y):
    """输出层：返回 (每个位置正确字符的负对数概率, softmax 概率)。exp 只算一遍（它是最慢的一步）。"""
    z = hs @ P["W_out"] + P["b_out"]
    z -= z.max(axis=-1, keepdims=True)
    zt = np.take_along_axis(z, y[..., None], axis=-1)[..., 0]
    e = np.exp(z, out=z)
    s = e.sum(axis=-1, keepdims=True)
    e /= s
    return np.log(s[..., 0]) - zt, e


def char_lm_loss_and_grads(params, x, y, h0=None):
    """一批窗口上的平均交叉熵（每个位置预测下一个字符）与梯度（BPTT）。教学位置：第 11.1—11.2 节。

    x、y 形状 (B, T)，y 是 x 错开一位的下一个字符；h0 为上一段带过来的状态（None 为零）。
    返回 (loss, grads, h_last)；h_last 可作为下一段的 h0（截断的 BPTT：梯度不穿过段的边界）。
    """
    P = _lm_params(params)
    V, H = P["W_out"].shape[1], P["Wh"].shape[0]
    x, y = as_id_array(x, "x", size=V), as_id_array(y, "y", size=V)
    if x.ndim != 2 or x.shape != y.shape or x.shape[1] == 0:
        raise ValueError(f"x 与 y 必须是同形状的 (B, T)，收到 {x.shape} 与 {y.shape}")
    B, T = x.shape
    h0 = np.zeros((B, H), P["Wh"].dtype) if h0 is None else as_float_array_of_shape(h0, "h0", (B, H))
    hs, h_last, cores = _lm_forward(P, x, h0)
    nll, dz = _softmax_nll(P, hs, y)
    loss = float(nll.mean(dtype=np.float64))
    dz = dz.reshape(B * T, V)
    dz[np.arange(B * T), y.reshape(-1)] -= 1
    dz /= B * T
    hf = hs.reshape(B * T, H)
    g = {"W_out": hf.T @ dz, "b_out": dz.sum(0), "Wh": np.zeros_like(P["Wh"]), "bh": np.zeros_like(P["bh"])}
    dhs = (dz @ P["W_out"].T).reshape(B, T, H)
    dgx = np.empty((B, T, 3 * H), hs.dtype)
    dh = np.zeros_like(h0)
    for t in range(T - 1, -1, -1):
        dgx[:, t], dh, dgh = gru_step_backward(dh + dhs[:, t], cores[t], P["Wh"])
        g["Wh"] += cores[t][0].T @ dgh
        g["bh"] += dgh.sum(0)
    d = P["Wx"].shape[0]
    dgx = dgx.reshape(B * T, 3 * H)
    g["Wx"] = P["E"][x].reshape(-1, d).T @ dgx
    g["bx"] = dgx.sum(0)
    g["E"] = np.zeros_like(P["E"])
    np.add.at(g["E"], x.reshape(-1), dgx @ P["Wx"].T)
    return loss, g, h_last


def next_logits(params, prefix_ids) -> np.ndarray:
    """从零状态读完 prefix_ids，返回下一个字符的分数 (V,)（softmax 前）。教学位置：第 11.3—11.4 节。

    训练文本里评论之间用换行分隔，想从“一条评论的开头”写起，就在前面加上换行的编号。
    """
    P = _lm_params(params)
    p = as_id_array(prefix_ids, "prefix_ids", size=P["W_out"].shape[1], ndims=(1,))
    h = np.zeros((1, P["Wh"].shape[0]), P["Wh"].dtype)
    if len(p):
        h = _lm_forward(P, p[None], h)[1]
    return (h @ P["W_out"] + P["b_out"])[0].astype(np.float64)


def _nll_chunks(P, ids, n_tracks: int):
    """把 ids 切成 n_tracks 条并行的轨道，逐块给出 (每个位置的负对数概率 (轨道, 块长), 哪些位置是真的)。"""
    V, H = P["W_out"].shape[1], P["Wh"].shape[0]
    ids = as_id_array(ids, "ids", size=V).reshape(-1)
    if len(ids) < 2:
        raise ValueError("ids 至少要有 2 个字符（第一个作前文，之后的才被预测）")
    check_positive(n_tracks, "n_tracks", integer=True)
    n = len(ids) - 1
    L = -(-n // n_tracks)
    starts = range(0, n, L)
    x = np.zeros((len(starts), L), np.int64)
    y, m = np.zeros_like(x), np.zeros(x.shape, bool)
    for r, s in enumerate(starts):
        k = min(L, n - s)
        x[r, :k], y[r, :k], m[r, :k] = ids[s:s + k], ids[s + 1:s + k + 1], True
    h = np.zeros((len(starts), H), P["Wh"].dtype)
    chunk = max(8, min(256, 2_000_000 // (len(starts) * V)))  # 每块的 logits 不超过约 8 MB
    for s in range(0, L, chunk):
        hs, h, _ = _lm_forward(P, x[:, s:s + chunk], h)
        yield _softmax_nll(P, hs, y[:, s:s + chunk])[0], m[:, s:s + chunk]


def perplexity(params, ids, n_tracks: int = 1) -> float:
    """困惑度 exp(平均负对数概率)：用 ids[:t] 预测 ids[t]，t = 1..N-1，状态一路带下去。教学位置：第 11.5 节。

    n_tracks>1 时把长序列切成几段并行算（每段从零状态开始，结果略有不同，但快得多）。
    """
    P = _lm_params(params)
    total, n = 0.0, 0
    with single_thread_blas():  # BLAS 单线程：结果可复现，也不和别的进程抢核
        for nll, m in _nll_chunks(P, ids, n_tracks):
            total += float(nll[m].sum(dtype=np.float64))
            n += int(m.sum())
    return math.exp(total / n)


def token_nll(params, ids) -> np.ndarray:
    """每个位置的负对数概率 (N-1,)，float64：第 t 个是 −ln P(ids[t+1] | ids[:t+1])，状态一路带下去。

    教学位置：第 11.5 节（困惑度 = exp(它的平均)，与 perplexity(params, ids) 相同）。
    例：token_nll(params, [0, 5, 7]) → 两个数：−ln P(5 | 0)、−ln P(7 | 0 5)
    """
    P = _lm_params(params)
    with single_thread_blas():  # BLAS 单线程，同 perplexity
        return np.concatenate([nll[0] for nll, _ in _nll_chunks(P, ids, 1)]).astype(np.float64)


def text_nll(params, texts, vocab) -> tuple[np.ndarray, np.ndarray]:
    """多条文本各自的总负对数概率与被预测的字数：返回 (nll (条数,), 字数 (条数,))。教学位置：第 11.5 节。

    与训练和 perplexity 的读法相同：文本用换行连成一串（开头、结尾也各一个换行），状态一路带下去；
    第 k 条文本负责预测它的每个字和结尾的换行，所以字数 = len(文本) + 1。
    exp(nll.sum() / 字数.sum()) 就是这串文本的困惑度；按文本重抽样即可得到困惑度的自助法区间。
    例：text_nll(params, ["好", "不错"], vocab) → (两个数, [2, 3])
    """
    texts = check_texts(texts)
    encode, _ = char_codec(vocab)
    counts = np.array([len(t) + 1 for t in texts], dtype=np.int64)
    nll = token_nll(params, encode("\n" + "\n".join(texts) + "\n"))
    return np.add.reduceat(nll, np.r_[0, np.cumsum(counts)[:-1]]), counts


@dataclass
class CharRNNLM(LanguageModel):
    """字符级 GRU 语言模型：参数字典、训练记录（每步的 step、loss、seconds）、字表与说明 meta。教学位置：第 11 章。

    满足 lm.LanguageModel 的接口：有了 vocab（load_pretrained 带着字表；train_char_rnn 的结果要自己设
    model.vocab = 字表）就能 encode、decode、text_nll、perplexity(texts)、generate。
    例：gru = load_pretrained(); gru.perplexity(["这本书很好"])
    """
    params: dict
    history: list = field(default_factory=list)
    vocab: list | None = None
    meta: dict = field(default_factory=dict)

    def loss_and_grads(self, x, y, h0=None):
        return char_lm_loss_and_grads(self.params, x, y, h0)

    def next_logits(self, prefix_ids) -> np.ndarray:
        """前文编号 → 下一个字的分数 (V,)：从零状态读完前文（见模块函数 next_logits）。"""
        return next_logits(self.params, prefix_ids)

    def text_nll(self, texts) -> tuple[np.ndarray, np.ndarray]:
        """每条文本的总 −ln P 与被预测的字数（len + 1）：沿 "\\n" + "\\n".join(texts) + "\\n" 一路读下去。"""
        self._stoi()  # 没有字表时给出清楚的错误
        return text_nll(self.params, texts, self.vocab)

    def n_params(self) -> int:
        """参数个数（字向量、GRU、输出层）。"""
        return int(sum(np.asarray(self.params[k]).size for k in LM_KEYS))


def train_char_rnn(ids, vocab_size: int, *, hidden: int = 128, dim: int = 32, seq_len: int = 32,
                   batch_size: int = 16, steps: int = 1000, lr: float = 0.01, clip: float | None = 5.0,
                   seed: int = 0, max_seconds: float | None = None, progress: bool = False) -> CharRNNLM:
    """训练字符级 GRU 语言模型（Adam，float32，截断 BPTT）。教学位置：第 11 章。

    ids 是整段文本的字符编号。把它切成 batch_size 条并排的长轨道，每步取每条轨道接下来的 seq_len 个字符，
    隐藏状态从上一段带过来（梯度不穿过段边界）；走完一遍后换一个随机起点再来。
    到 steps 步或 max_seconds 秒（先到为准）停止。
    """
    for name, v in (("hidden", hidden), ("dim", dim), ("seq_len", seq_len), ("batch_size", batch_size),
                    ("steps", steps)):
        check_positive(v, name, integer=True)
    check_positive(lr, "lr")
    if max_seconds is not None:
        check_positive(max_seconds, "max_seconds")
    ids = as_id_array(ids, "ids", size=check_positive(vocab_size, "vocab_size", integer=True)).reshape(-1)
    track = (len(ids) - 1 - seq_len) // batch_size
    if track < seq_len:
        raise ValueError(f"文本太短：{len(ids)} 个字符不够切成 {batch_size} 条、每条至少 seq_len={seq_len} 的轨道")
    P = init_char_rnn(vocab_size, hidden, dim, seed)
    rng, state, history = np.random.default_rng(seed), {}, []
    pos, h, t0 = track, None, time.perf_counter()
    it = range(steps)
    if progress:
        from tqdm.auto import tqdm  # 只在需要进度条时导入
        it = tqdm(it, desc="训练步数")
    with single_thread_blas():  # 与其他训练函数一样固定 BLAS 单线程
        for step in it:
            if pos + seq_len > track:  # 新一遍：起点随机错开 0..seq_len-1 个字符，状态清零
                base = int(rng.integers(0, seq_len)) + np.arange(batch_size) * track
                pos, h = 0, None
            x = ids[base[:, None] + pos + np.arange(seq_len)]
            y = ids[base[:, None] + pos + 1 + np.arange(seq_len)]
            loss, g, h = char_lm_loss_and_grads(P, x, y, h)
            pos += seq_len
            if clip is not None:
                g, _ = clip_by_global_norm(g, clip)
            adam_step(P, g, state, lr)
            history.append({"step": step + 1, "loss": loss, "seconds": time.perf_counter() - t0})
            if max_seconds is not None and history[-1]["seconds"] >= max_seconds:
                break
    return CharRNNLM(P, history)


# ---------- 随包附带的权重（scripts/train_char_rnn.py 训练） ----------
WEIGHTS = "char_gru_reviews.npz"


def char_codec(vocab):
    """字表 → (encode, decode)。encode(文本) → 编号列表，字表外的字编为 <UNK>；decode(编号) → 文本。

    例：encode, decode = char_codec(["\\n", "<UNK>", "好"]); encode("好吗") -> [2, 1]
    """
    vocab = [str(v) for v in vocab]
    stoi = {ch: i for i, ch in enumerate(vocab)}
    unk = stoi.get(UNK)

    def encode(text: str) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text 必须是 str，收到 {type(text).__name__}")
        if unk is None and any(c not in stoi for c in text):
            raise ValueError("字表里没有 <UNK>，文本里却有字表外的字")
        return [stoi.get(c, unk) for c in text]

    def decode(ids) -> str:
        return "".join(vocab[int(i)] for i in ids)

    return encode, decode


def load_pretrained(path=None) -> CharRNNLM:
    """读入随包附带的字符 GRU（真实评论训练集上训练）。返回带字表 vocab 与说明 meta 的 CharRNNLM；参数转成 float32。

    教学位置：第 11 章生成面板、第 13 章三个模型并排。meta 记录训练设置、用时、验证集困惑度和二元/三元字模型的对照困惑度。
    例：gru = load_pretrained(); gru.generate("这本书", 20, temperature=0)
    """
    path = Path(__file__).parent / "weights" / WEIGHTS if path is None else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"找不到字符 GRU 权重 {path.name}；可运行 python scripts/train_char_rnn.py "
                                "重新训练并生成（固定种子，单核约 6 分钟）")
    with np.load(path, allow_pickle=False) as f:
        params = {k: f[f"p/{k}"].astype(np.float32) for k in LM_KEYS}
        vocab = [str(v) for v in f["vocab"]]
        meta = json.loads(str(f["meta"]))
    _lm_params(params)
    return CharRNNLM(params, vocab=vocab, meta=meta)
