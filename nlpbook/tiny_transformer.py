"""小 Transformer 语言模型的训练、评估与生成接口，以及随包附带的真实评论字符模型（保存、加载）。

- train_lm：Adam + 学习率预热与余弦衰减，随机窗口取批次；lm_perplexity：留出文本的困惑度；
  generate_logits：给 decoding.generate 用的下一 token logits；attention_maps：每层各 head 的权重。
- 随包权重 nlpbook/weights/tiny_transformer_reviews.npz 由 scripts/train_tiny_transformer.py 生成：
  真实评论训练集（字级，出现 ≥ 3 次的字，其余合并为 <UNK>）上的 2 层 Pre-LN decoder-only 模型。
  文件是压缩的 .npz（参数存成 float16），同一文件里有 config、词表与 meta（训练设置、用时、困惑度对照、样例），
  读取不用 pickle。load_pretrained() 返回 TinyTransformerLM（带词表的便捷接口）。
模型本身（层、前向、手写反向）在 transformer 模块；依赖是单向的：本模块导入 transformer，反过来不导入。
不做的事：不下载任何东西；不做 KV cache（生成时每步重算整个窗口，长度 ≤ max_len，足够快）。
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ._checks import as_id_array, check_positive, check_texts
from .lm import LanguageModel
from .optim import Adam, single_thread_blas
from .transformer import (init_lm_params, lm_config, lm_forward, lm_loss_and_grads, lm_next_logits, lm_param_shapes,
                          lm_token_nll)

__all__ = ["train_lm", "window_token_nll", "lm_perplexity", "generate_logits", "attention_maps", "TinyTransformerLM", "save_lm",
           "load_lm", "load_pretrained", "WEIGHTS"]

WEIGHTS = "tiny_transformer_reviews.npz"


# ---------- 训练 ----------
def _lr_at(step: int, lr: float, warmup: int, steps: int, min_ratio: float) -> float:
    """学习率：前 warmup 步线性升到 lr，之后按余弦降到 lr·min_ratio（step 从 1 开始）。"""
    if step <= warmup:
        return lr * step / warmup
    frac = (step - warmup) / max(1, steps - warmup)
    return lr * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0))))


def train_lm(ids, vocab_size: int, *, d_model: int = 128, n_layers: int = 2, n_heads: int = 4, d_ff: int = 512,
             max_len: int | None = None, positions: str = "learned", tie: bool = False, activation: str = "gelu",
             steps: int = 1000, batch_size: int = 32, seq_len: int = 64, lr: float = 3e-3, warmup: int = 100,
             min_lr_ratio: float = 0.1, weight_decay: float = 0.01, clip: float | None = 1.0,
             beta2: float = 0.99, seed: int = 0, val_ids=None, eval_every=None,
             max_seconds: float | None = None, progress: bool = False):
    """用 Adam 训练 decoder-only 语言模型（float32）。返回 (params, history)。教学位置：第 11 章、第 13.8 节。

    ids 是整段文本的编号（一维）。每步从 seed 决定的随机起点取 batch_size 段长 seq_len 的窗口，
    目标是错开一位的下一个 token。学习率先预热 warmup 步，再按余弦降到 lr·min_lr_ratio。
    history 每步一行 {'step', 'loss', 'lr', 'seconds', 'cpu_seconds'}（累计训练的墙钟时间与本进程 CPU 时间，
    不含评估；机器繁忙时 CPU 时间更接近“独占一个核”的用时）；
    给了 val_ids 与 eval_every 时，每 eval_every 步（及最后一步）的那一行再加 'val_ppl'（验证集困惑度）；
    eval_every 也可以是步数的列表，如 [50, 200, 1000]。
    到 steps 步或 max_seconds 秒（先到为准）停止。同样的参数与 seed 得到同样的结果。
    """
    for name, v in (("steps", steps), ("batch_size", batch_size), ("seq_len", seq_len)):
        check_positive(v, name, integer=True)
    check_positive(warmup, "warmup", integer=True, allow_zero=True)
    check_positive(min_lr_ratio, "min_lr_ratio", allow_zero=True)
    max_len = seq_len if max_len is None else max_len
    if seq_len > max_len:
        raise ValueError(f"seq_len={seq_len} 不能超过 max_len={max_len}")
    if max_seconds is not None:
        check_positive(max_seconds, "max_seconds")
    if eval_every is None or isinstance(eval_every, (int, np.integer)):
        if eval_every is not None:
            check_positive(eval_every, "eval_every", integer=True)
        eval_at = set(range(eval_every, steps + 1, eval_every)) if eval_every else set()
    else:
        eval_at = {int(check_positive(e, "eval_every 里的步数", integer=True)) for e in eval_every}
    rng = np.random.default_rng(seed)
    P = init_lm_params(vocab_size, d_model, n_layers, n_heads, d_ff, max_len, rng, positions=positions,
                       tie=tie, activation=activation)
    data = as_id_array(ids, "ids", size=vocab_size).reshape(-1)
    if len(data) < seq_len + 1:
        raise ValueError(f"文本太短：{len(data)} 个 token，至少要 seq_len + 1 = {seq_len + 1} 个")
    if val_ids is not None:
        val_ids = as_id_array(val_ids, "val_ids", size=vocab_size).reshape(-1)
    opt = Adam(lr, beta2=beta2, weight_decay=weight_decay, clip=clip)
    offsets = np.arange(seq_len)
    history, elapsed, cpu = [], 0.0, 0.0
    it = range(1, steps + 1)
    if progress:
        from tqdm.auto import tqdm  # 只在需要进度条时导入
        it = tqdm(it, desc="训练步数")
    with single_thread_blas():  # 与其他训练函数一样固定 BLAS 单线程，结果可复现
        for step in it:
            t0, c0 = time.perf_counter(), time.process_time()
            starts = rng.integers(0, len(data) - seq_len, size=batch_size)
            x = data[starts[:, None] + offsets]
            loss, grads = lm_loss_and_grads(P, x, data[starts[:, None] + offsets + 1])
            opt.lr = _lr_at(step, lr, warmup, steps, min_lr_ratio)
            opt.step(P, grads)
            elapsed += time.perf_counter() - t0
            cpu += time.process_time() - c0
            row = {"step": step, "loss": loss, "lr": opt.lr, "seconds": elapsed, "cpu_seconds": cpu}
            done = step == steps or (max_seconds is not None and elapsed >= max_seconds)
            if val_ids is not None and eval_every is not None and (step in eval_at or done):
                row["val_ppl"] = lm_perplexity(P, val_ids, seq_len)
            history.append(row)
            if done and step < steps:   # 时间用完提前停；跑满 steps 时让循环自然结束，进度条才会走到 40/40
                break
    if progress:
        it.close()
    return P, history


# ---------- 评估与生成 ----------
def window_token_nll(params: dict, ids, seq_len: int | None = None) -> np.ndarray:
    """每个位置的 −ln P(ids[t+1] | 前文)，形状 (N−1,)：把 ids 切成长 seq_len 的窗口（默认 max_len），每个 token
    （第一个除外）恰好被预测一次，前文是它所在窗口里前面的部分。教学位置：第 11.5 节。

    例：三个真实 token 的概率 0.5、0.25、0.125 → [0.693, 1.386, 2.079]
    """
    cfg = lm_config(params)
    seq_len = cfg["max_len"] if seq_len is None else seq_len
    check_positive(seq_len, "seq_len", integer=True)
    a = as_id_array(ids, "ids", size=cfg["vocab"]).reshape(-1)
    if seq_len > cfg["max_len"]:
        raise ValueError(f"seq_len={seq_len} 超过模型的 max_len={cfg['max_len']}")
    n = len(a) - 1
    if n < 1:
        raise ValueError("ids 至少要有 2 个 token（第一个作前文，之后的才被预测）")
    out, full = np.empty(n), n // seq_len
    per = max(1, 4_000_000 // (seq_len * cfg["vocab"]))  # 每批 logits 不超过约 16 MB
    pieces = [(s, min(s + per, full), seq_len) for s in range(0, full, per)]
    if n % seq_len:
        pieces.append((full, full + 1, n % seq_len))
    for lo, hi, L in pieces:
        starts = np.arange(lo, hi) * seq_len
        x = a[starts[:, None] + np.arange(L)]
        y = a[starts[:, None] + np.arange(1, L + 1)]
        out[lo * seq_len:lo * seq_len + x.size] = lm_token_nll(params, x, y).reshape(-1)
    return out


def lm_perplexity(params: dict, ids, seq_len: int | None = None) -> float:
    """困惑度 exp(平均 −ln P)，按 window_token_nll 的窗口读。教学位置：第 11.5 节。

    例：三个真实 token 的概率 0.5、0.25、0.125 → 平均损失 1.386，困惑度 4。
    """
    return math.exp(float(window_token_nll(params, ids, seq_len).mean()))


def generate_logits(params: dict, prefix_ids) -> np.ndarray:
    """前文编号 → 下一个 token 的 logits (V,)（float64），可直接交给 decoding.generate。教学位置：第 11.3—11.4 节。

    前文长于 max_len 时只看最后 max_len 个（滑动窗口）。前文不能为空：想从文本开头写起，给换行符的编号。
    """
    cfg = lm_config(params)
    p = as_id_array(prefix_ids, "prefix_ids", size=cfg["vocab"], ndims=(1,))
    if p.size == 0:
        raise ValueError("prefix_ids 不能为空：Transformer 只能接着已有的 token 往后预测；"
                         "从头生成时先放文本开头符号（如换行）的编号")
    return lm_next_logits(params, p[-cfg["max_len"]:]).astype(np.float64)


def attention_maps(params: dict, ids) -> list:
    """一段文本在每一层各 head 的注意力权重：列表（每层一个）里是 (n_heads, T, T) 数组。

    教学位置：第 13.3—13.7 节（注意力浏览器：训练好的模型每个 head 在看哪里）。因果遮罩下右上三角为 0。
    """
    a = np.asarray(ids)
    if a.ndim != 1:
        raise ValueError(f"ids 必须是一维编号序列（一段文本），收到形状 {a.shape}")
    _, cache = lm_forward(params, a)
    return [w[0].astype(np.float64) for w in cache["attention"]]


# ---------- 保存与加载 ----------
def save_lm(path, params: dict, vocab=None, meta: dict | None = None, dtype=np.float16) -> None:
    """把参数（默认存成 float16）、config、词表和说明信息存进一个压缩的 .npz（不用 pickle）。"""
    cfg = lm_config(params)
    arrays = {f"p/{k}": np.asarray(params[k]).astype(dtype) for k in lm_param_shapes(cfg)}
    arrays["config"] = np.array(json.dumps(cfg))
    arrays["meta"] = np.array(json.dumps(meta or {}, ensure_ascii=False))
    if vocab is not None:
        vocab = [str(v) for v in vocab]
        if len(vocab) != cfg["vocab"]:
            raise ValueError(f"vocab 有 {len(vocab)} 项，模型的词表大小是 {cfg['vocab']}")
        arrays["vocab"] = np.array(vocab)
    np.savez_compressed(path, **arrays)


@dataclass
class TinyTransformerLM(LanguageModel):
    """加载好的字符语言模型：参数、词表（vocab[i] 是编号 i 的字符）与训练说明 meta。教学位置：第 11 章、第 13 章。

    vocab[0] 是换行符（评论之间的分隔，也是“文本开头/结束”），vocab[1] 是 <UNK>（罕见字）。
    满足 lm.LanguageModel 的接口（encode、decode、next_logits、text_nll、perplexity、generate）。
    例：m = load_pretrained(); m.perplexity(["这本书很好"])
    """
    params: dict
    vocab: list
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        self.unk_id = self._stoi().get("<UNK>")

    def next_logits(self, prefix_ids) -> np.ndarray:
        """前文编号（不能为空）→ 下一个字的 logits (V,)；前文长于 max_len 时只看最后 max_len 个。"""
        return generate_logits(self.params, prefix_ids)

    def token_nll(self, ids, seq_len: int | None = None) -> np.ndarray:
        """每个位置的 −ln P(ids[t+1] | 前文) (N−1,)，见 window_token_nll；exp(平均) 等于 lm_perplexity。"""
        return window_token_nll(self.params, ids, seq_len)

    def text_nll(self, texts, seq_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """每条文本的总 −ln P 与被预测的字数（len + 1）：拼成 "\\n" + "\\n".join(texts) + "\\n" 按窗口读，
        与 charlm.CharNGramLM 预测的是同一批字（每条评论的每个字及其结尾的换行）。"""
        texts = check_texts(texts)
        counts = np.array([len(t) + 1 for t in texts], dtype=np.int64)
        nll = self.token_nll(self.encode("\n" + "\n".join(texts) + "\n"), seq_len)
        return np.add.reduceat(nll, np.r_[0, np.cumsum(counts)[:-1]]), counts

    def n_params(self) -> int:
        """参数个数（不含 config）。"""
        return int(sum(np.asarray(v).size for k, v in self.params.items() if k != "config"))

    def attention_maps(self, text: str) -> list:
        return attention_maps(self.params, self.encode(text))


def load_lm(path) -> TinyTransformerLM:
    """读回 save_lm 存的文件；参数转成 float32。"""
    with np.load(path, allow_pickle=False) as f:
        cfg = json.loads(str(f["config"]))
        P = {"config": cfg}
        P.update({k: f[f"p/{k}"].astype(np.float32) for k in lm_param_shapes(cfg)})
        vocab = [str(v) for v in f["vocab"]] if "vocab" in f else [str(i) for i in range(cfg["vocab"])]
        meta = json.loads(str(f["meta"]))
    lm_config(P)
    return TinyTransformerLM(P, vocab, meta)


def load_pretrained() -> TinyTransformerLM:
    """随包附带的字符级小 Transformer（在真实评论训练集上训练，见 scripts/train_tiny_transformer.py）。

    教学位置：第 11 章（生成、困惑度）、第 13 章（注意力浏览器里看训练好的 head）。meta 记录了训练设置、
    用时、验证集困惑度以及一元/二元字模型的困惑度（对照）。
    """
    from importlib.resources import as_file, files
    res = files("nlpbook") / "weights" / WEIGHTS
    if not res.is_file():
        raise FileNotFoundError("找不到随包的权重 nlpbook/weights/tiny_transformer_reviews.npz；"
                                "可运行 scripts/train_tiny_transformer.py 重新训练")
    with as_file(res) as p:
        return load_lm(p)
