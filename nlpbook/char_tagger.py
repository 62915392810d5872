"""字级实体标注器（第 16 章“在真实数据上试一试”）：稀疏特征的线性模型，逐字 softmax 或线性链 CRF 训练。

- 特征：每个字看自己和左右各两个字（5 个单字特征），再加“左字+本字”“本字+右字”两个双字特征，
  共 7 个模板（TEMPLATES）。句子两端之外用边界符补齐；训练时没见过的字记作“未登录字”。
- 模型：单位置分数 unary[t] = Σ_模板 W[特征行号] + b，形状 (T, K)。特征表只收训练集里出现
  至少 min_count 次的特征；查不到的特征指向 W 的最后一行，它恒为 0、从不更新。
- 两种训练方式用同一套特征：mode="independent" 逐字 softmax 交叉熵；mode="crf" 再学转移、
  起始、结束分数，损失是 CRF 负对数似然（梯度由 tagging.crf_nll_and_grads 给出）。
  两者的损失都按字数平均。优化器是 AdaGrad（每个参数各自的步长；只更新本批用到的特征行）。
- 解码：decoder="independent" 逐字取最高分；"viterbi" 在学到的转移上再加 IOB2 硬约束
  （tagging.allowed_transitions / allowed_starts），输出一定合法。
不做的事：不用词向量或神经网络，不做特征哈希、正则化与早停，不支持 BIO 以外的标注规范。
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._checks import as_id_array, check_positive, check_tags, check_tokens
from .functional import log_softmax
from .optim import single_thread_blas
from .tagging import (allowed_starts, allowed_transitions, crf_nll_and_grads, decode_independent,
                      tags_to_spans, viterbi)

__all__ = ["TEMPLATES", "CharTagger", "char_feature_keys", "loss_and_grads", "train_char_tagger"]

TEMPLATES = ((-2,), (-1,), (0,), (1,), (2,), (-1, 0), (0, 1))  # 相对当前字的位置
_BOUNDARY, _UNKNOWN = 0, 1                                      # 两个特殊字编号，真实字从 2 开始


def _check_sentence(chars, name: str = "chars") -> list[str]:
    chars = list(chars) if isinstance(chars, str) else check_tokens(chars, name)
    if not chars:
        raise ValueError(f"{name} 是空句子；每句至少要有一个字")
    return chars


def char_feature_keys(char_ids, n_chars: int) -> np.ndarray:
    """字编号 (T,) → 每个位置 7 个模板的特征键 (T, 7)，int64；键 = 模板号·n² + 编码（单字 c，双字 a·n+c）。

    教学位置：第 16 章“在真实数据上试一试”。n_chars 是字表大小（含编号 0 的边界符、1 的未登录字）。
    """
    if isinstance(n_chars, bool) or not isinstance(n_chars, (int, np.integer)) or n_chars < 2:
        raise ValueError(f"n_chars 必须是 >= 2 的整数（字表大小），收到 {n_chars!r}")
    ids = as_id_array(char_ids, "char_ids", size=n_chars, allow_empty=False, ndims=(1,))
    n = np.int64(n_chars)
    pad = np.concatenate([[_BOUNDARY] * 2, ids, [_BOUNDARY] * 2]).astype(np.int64)
    T = len(ids)
    at = {o: pad[2 + o:2 + o + T] for o in (-2, -1, 0, 1, 2)}
    cols = [j * n * n + (at[t[0]] if len(t) == 1 else at[t[0]] * n + at[t[1]])
            for j, t in enumerate(TEMPLATES)]
    return np.stack(cols, axis=1)


def _stacked_keys(char_index: dict, sents: list) -> np.ndarray:
    """多句话的特征键叠成 (字数总和, 7)：每句后面接两个边界符拼成一串一次算完，再去掉边界符那几行。"""
    ends = np.cumsum([len(s) + 2 for s in sents])            # 每句（连同其后两个边界符）的终点
    is_char = np.ones(ends[-1], dtype=bool)
    is_char[np.r_[ends - 1, ends - 2]] = False
    ids = np.full(ends[-1], _BOUNDARY, dtype=np.int64)
    ids[is_char] = [char_index.get(c, _UNKNOWN) for s in sents for c in s]
    return char_feature_keys(ids, len(char_index) + 2)[is_char]


def _lookup(keys: np.ndarray, k: np.ndarray) -> np.ndarray:
    """特征键 → W 的行号；不在 keys（排好序）里的键指向最后一行 len(keys)。"""
    pos = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
    return np.where(keys[pos] == k, pos, len(keys))


@dataclass
class CharTagger:
    """训练好的字级标注器。参数都是 float32；transitions/start/end 在 independent 模式下恒为 0。"""
    tag_names: tuple
    char_index: dict          # 字 → 编号（从 2 开始）
    keys: np.ndarray          # 排好序的特征键 (F,)
    params: dict              # W (F+1, K)、b (K,)、transitions (K, K)、start (K,)、end (K,)
    mode: str
    history: list = field(default_factory=list)

    def rows_many(self, sentences) -> list[np.ndarray]:
        """多句话 → 每句 (T, 7) 的特征行号；没见过的特征指向恒为 0 的最后一行。"""
        sents = [_check_sentence(s, f"第 {k} 句") for k, s in enumerate(sentences)]
        if not sents:
            raise ValueError("sentences 不能为空")
        r = _lookup(self.keys, _stacked_keys(self.char_index, sents))
        return np.split(r, np.cumsum([len(s) for s in sents])[:-1])

    def unary(self, chars) -> np.ndarray:
        """一句话 → 单位置分数 (T, K)（float64，便于交给 tagging 的函数）。"""
        P = self.params
        return (P["W"][self.rows_many([chars])[0]].sum(axis=1) + P["b"]).astype(np.float64)

    def predict(self, chars, decoder: str = "viterbi") -> list[str]:
        """一句话 → BIO 标签列表。decoder="independent" 逐字取最高分（可能不合法）；
        "viterbi" 用学到的转移加 IOB2 硬约束（输出一定合法）。"""
        return self.predict_many([chars], decoder)[0]

    def predict_many(self, sentences, decoder: str = "viterbi") -> list[list[str]]:
        """多句话的 predict（特征一次算完，比逐句调用快）。"""
        if decoder not in ("independent", "viterbi"):
            raise ValueError(f"decoder 只能是 'independent' 或 'viterbi'，收到 {decoder!r}")
        P, out = self.params, []
        trans = P["transitions"] + allowed_transitions(self.tag_names)
        start = P["start"] + allowed_starts(self.tag_names)
        for r in self.rows_many(sentences):
            u = (P["W"][r].sum(axis=1) + P["b"]).astype(np.float64)
            path = decode_independent(u) if decoder == "independent" else viterbi(u, trans, start, P["end"])[0]
            out.append([self.tag_names[j] for j in path])
        return out


def loss_and_grads(params: dict, rows, tags, lengths, mode: str) -> tuple[float, dict]:
    """一批补齐后的句子：平均每字损失及梯度。rows (B, T, 7) 行号，tags (B, T) 标签编号，lengths (B,)。

    教学位置：第 16.3 节（CRF 训练）与第 4 章（交叉熵）。补齐位置的 rows/tags 取任意合法值，会被忽略。
    W 的梯度是稀疏的：grads["W"] = (行号 (U,), 各行梯度 (U, K))，只含本批真实位置用到的行
    （不含恒为 0 的最后一行）。independent 模式没有 transitions/start/end 的梯度。
    """
    if mode not in ("independent", "crf"):
        raise ValueError(f"mode 只能是 'independent' 或 'crf'，收到 {mode!r}")
    W, b = params["W"], params["b"]
    rows, tags, lengths = np.asarray(rows), np.asarray(tags), np.asarray(lengths)
    if rows.ndim != 3 or rows.shape[2] != len(TEMPLATES) or tags.shape != rows.shape[:2]:
        raise ValueError(f"rows 应为 (B, T, {len(TEMPLATES)})、tags 应为 (B, T)，收到 {rows.shape} 与 {tags.shape}")
    if lengths.shape != rows.shape[:1] or lengths.min() < 1 or lengths.max() > rows.shape[1]:
        raise ValueError(f"lengths 必须是 {rows.shape[0]} 个 1..{rows.shape[1]} 之间的整数")
    B, T, J = rows.shape
    valid = np.arange(T)[None, :] < lengths[:, None]
    n_chars = int(valid.sum())
    u = W[rows].sum(axis=2) + b                                       # (B, T, K)
    if mode == "independent":
        logp = log_softmax(u.astype(np.float64), axis=-1)
        y = tags[..., None]
        loss = -float(np.take_along_axis(logp, y, axis=2)[..., 0][valid].sum())
        g_u = np.exp(logp)                                            # softmax − one-hot
        np.put_along_axis(g_u, y, np.take_along_axis(g_u, y, axis=2) - 1.0, axis=2)
        g_u *= valid[..., None]
        grads = {}
    else:
        loss, g = crf_nll_and_grads(u, params["transitions"], tags, params["start"], params["end"], lengths)
        g_u = g["unary"]
        grads = {k: g[k] / n_chars for k in ("transitions", "start", "end")}
    g_u = g_u / n_chars
    grads["b"] = g_u.sum(axis=(0, 1))
    flat = rows[valid].ravel()                                        # 各真实位置的 7 个行号
    vals = np.repeat(g_u[valid], J, axis=0)                           # 每个行号分到它那个位置的梯度
    order = np.argsort(flat, kind="stable")                           # 同一行可能出现多次：排序后分段求和
    s = flat[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    uniq, summed = s[starts], np.add.reduceat(vals[order], starts, axis=0)
    keep = uniq != len(W) - 1
    grads["W"] = (uniq[keep], summed[keep])
    return loss / n_chars, grads


def _check_data(sentences, tags) -> tuple[list, list, list]:
    """逐句转成列表并核对长度；字和标签的类型用集合一次查完（逐个 isinstance 在几十万字上太慢）。"""
    out = []
    for name, seqs in (("sentences", sentences), ("tags", tags)):
        if isinstance(seqs, str):
            raise TypeError(f"{name} 必须是多句话的列表，收到一个字符串")
        try:
            out.append([list(s) for s in seqs])
        except TypeError as exc:
            raise TypeError(f"{name} 的每一句都必须是列表（sentences 也可以是字符串）") from exc
    sentences, tags = out
    if not sentences or len(sentences) != len(tags):
        raise ValueError(f"sentences 与 tags 必须非空且句数相同，收到 {len(sentences)} 与 {len(tags)} 句")
    for k, (s, t) in enumerate(zip(sentences, tags)):
        if not s or len(s) != len(t):
            raise ValueError(f"第 {k} 句有 {len(s)} 个字，却有 {len(t)} 个标签；必须一字一个标签，且不能是空句")
    try:
        chars, seen = set().union(*map(set, sentences)), set().union(*map(set, tags))
    except TypeError as exc:
        raise TypeError("句子里的字和标签都必须是字符串") from exc
    check_tokens(sorted(chars, key=str), "句子里的字")
    seen = sorted(check_tags(sorted(seen, key=str), "标签"))
    tags_to_spans(seen, strict=False)  # 只检查每个标签的写法：'O'、'B-类型' 或 'I-类型'
    return sentences, tags, sorted(chars), seen


def train_char_tagger(sentences, tags, *, mode: str = "crf", epochs: int = 3, lr: float = 0.1,
                      batch_size: int = 32, min_count: int = 1, seed: int = 0,
                      progress: bool = False, on_epoch=None) -> CharTagger:
    """训练字级标注器：sentences 是字列表（或字符串）的列表，tags 是对应的 BIO 标签列表。

    教学位置：第 16 章“在真实数据上试一试”。句子按长度排序后切成批（少补齐），
    每轮按 seed 决定的顺序打乱各批；AdaGrad 学习率 lr。history 记录每轮的平均每字训练损失。
    标签集合 = 'O' 加数据里各类型的 B-/I-（按类型名排序）。训练时 BLAS 限定单线程。
    on_epoch(epoch, model)：每轮结束后调用一次（epoch 从 1 起），例如在验证集上评价、挑选轮数；
    它不应修改 model。
    """
    if mode not in ("independent", "crf"):
        raise ValueError(f"mode 只能是 'independent' 或 'crf'，收到 {mode!r}")
    check_positive(epochs, "epochs", integer=True)
    check_positive(lr, "lr")
    check_positive(batch_size, "batch_size", integer=True)
    check_positive(min_count, "min_count", integer=True)
    if on_epoch is not None and not callable(on_epoch):
        raise TypeError(f"on_epoch 必须是函数 on_epoch(epoch, model) 或 None，收到 {type(on_epoch).__name__}")
    sentences, tags, chars, seen = _check_data(sentences, tags)
    types = sorted({t[2:] for t in seen if t != "O"})
    tag_names = ("O",) + tuple(f"{p}-{x}" for x in types for p in "BI")
    tag_id = {t: j for j, t in enumerate(tag_names)}
    char_index = {c: j + 2 for j, c in enumerate(chars)}
    keys = _stacked_keys(char_index, sentences)
    uniq, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    if not np.any(counts >= min_count):
        raise ValueError(f"没有任何特征在训练集里出现至少 min_count={min_count} 次；请调小 min_count")
    K = len(tag_names)
    kept = uniq[counts >= min_count]
    params = {"W": np.zeros((len(kept) + 1, K), np.float32), "b": np.zeros(K, np.float32),
              "transitions": np.zeros((K, K), np.float32), "start": np.zeros(K, np.float32),
              "end": np.zeros(K, np.float32)}
    model = CharTagger(tag_names, char_index, kept, params, mode)
    row_of_uniq = np.where(counts >= min_count, np.cumsum(counts >= min_count) - 1, len(kept))
    rows = np.split(row_of_uniq[inverse.reshape(keys.shape)], np.cumsum([len(s) for s in sentences])[:-1])
    ys = [np.array([tag_id[t] for t in ts]) for ts in tags]
    order = np.argsort([len(s) for s in sentences], kind="stable")
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    accum = {k: np.zeros_like(v) for k, v in params.items()}      # AdaGrad：各参数梯度平方的累计
    rng = np.random.default_rng(seed)
    with single_thread_blas():
        bar = None
        if progress:
            from tqdm.auto import tqdm  # 只在需要进度条时导入
            bar = tqdm(total=epochs * len(batches), desc=f"训练字级标注器（{mode}，批）")
        for epoch in range(epochs):
            total = 0.0
            for bi in rng.permutation(len(batches)):
                idx = batches[bi]
                L = np.array([len(rows[i]) for i in idx])
                R = np.full((len(idx), L.max(), len(TEMPLATES)), len(kept))
                Y = np.zeros((len(idx), L.max()), dtype=np.int64)
                for r, i in enumerate(idx):
                    R[r, :L[r]], Y[r, :L[r]] = rows[i], ys[i]
                loss, grads = loss_and_grads(params, R, Y, L, mode)
                if not math.isfinite(loss):
                    raise ValueError("训练损失变成了 NaN 或无穷大；请调小学习率 lr")
                total += loss * L.sum()
                for k, g in grads.items():
                    r = slice(None)
                    if k == "W":
                        r, g = g
                    g = g.astype(np.float32)
                    a = accum[k][r] + g * g
                    accum[k][r] = a
                    params[k][r] -= np.float32(lr) * g / (np.sqrt(a) + np.float32(1e-8))
                if bar is not None:
                    bar.update(1)
            model.history.append({"epoch": epoch + 1, "train_loss": float(total / len(keys))})
            if on_epoch is not None:
                on_epoch(epoch + 1, model)
        if bar is not None:
            bar.close()
    return model
