"""序列标注（第 16 章、附录 A.3）：BIO 标签与实体片段互转、线性链 CRF、实体级评价。

- BIO 采用 IOB2 规范：每个实体都以 B-类型 开始，I-类型 只能接在同类型的 B/I 之后。
  实体片段写成 (类型, 起点, 终点)，终点不含（与 Python 切片相同）。
- 线性链 CRF：路径分数 = Σ 单位置分数 unary[t, y_t] + Σ 转移分数 transitions[y_{t-1}, y_t]
  （可选再加起始分数 start[y_0] 与结束分数 end[y_{T-1}]）。分数里允许 -inf，表示“明确禁止”；
  不允许 NaN 和 +inf。Viterbi 找最高分路径，前向算法用 logsumexp 求 log Z（稳定）。
- 只有 crf_nll_and_grads 接受补齐后的批量 (B, T, K)（真实数据上训练要快）；其余函数一次一句。
不做的事：不提取特征、不训练模型（只给出负对数似然及其梯度，训练循环由使用者写）；
不支持 BIOES 等其他标注规范。
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from ._checks import as_id_array, check_tags
from .spread import bootstrap_ci

__all__ = ["tags_to_spans", "spans_to_tags", "allowed_transitions", "allowed_starts", "path_score",
           "viterbi", "forward_log_partition", "path_log_prob", "crf_marginals", "crf_nll_and_grads",
           "decode_independent", "entity_prf", "entity_counts", "entity_f1_interval", "token_accuracy",
           "pos_to_char_bio", "POS_ENTITY_TYPES"]

# 《人民日报》词性标注里的三类专名 → 实体类型
POS_ENTITY_TYPES = {"nr": "PER", "ns": "LOC", "nt": "ORG"}


# ---------- BIO 标签 ↔ 实体片段（第 16.2 节） ----------
def _parse_tag(tag, i: int) -> tuple[str, str | None]:
    if tag == "O":
        return "O", None
    if isinstance(tag, str) and len(tag) > 2 and tag[:2] in ("B-", "I-"):
        return tag[0], tag[2:]
    raise ValueError(f"第 {i} 个标签 {tag!r} 不合法：只允许 'O'、'B-类型'、'I-类型'（如 'B-PER'）")


def tags_to_spans(tags, strict: bool = True) -> list[tuple[str, int, int]]:
    """BIO（IOB2）标签序列 → 实体片段列表 [(类型, 起点, 终点)]，终点不含，按起点排序。

    教学位置：第 16.2 节。
    例：['B-PER', 'O', 'B-ORG', 'I-ORG', 'O']（小王 在 北京 大学 工作）→ [('PER', 0, 1), ('ORG', 2, 4)]
    strict=True：I-X 不接在 B-X/I-X 之后（如句首 I-ORG、O 后的 I-X、B-PER 后的 I-ORG）时报错。
    strict=False（宽松转换，与 conlleval 相同）：这样的 I-X 当作一个新的 X 实体的开始。
    """
    tags = check_tags(tags, "tags")
    spans, cur = [], None  # cur = [类型, 起点]
    for i, tag in enumerate(tags):
        kind, typ = _parse_tag(tag, i)
        if kind == "I" and (cur is None or cur[0] != typ):
            if strict:
                prev = "句首" if i == 0 else repr(tags[i - 1])
                raise ValueError(f"第 {i} 个标签 {tag!r} 接在 {prev} 之后，不符合 IOB2：I-{typ} 只能接在 "
                                 f"B-{typ} 或 I-{typ} 之后；若要宽松转换请用 strict=False")
            kind = "B"
        if kind == "I":
            continue
        if cur is not None:
            spans.append((cur[0], cur[1], i))
        cur = [typ, i] if kind == "B" else None
    if cur is not None:
        spans.append((cur[0], cur[1], len(tags)))
    return spans


def _check_span(span, n: int | None) -> tuple[str, int, int]:
    if not isinstance(span, (tuple, list)) or len(span) != 3:
        raise TypeError(f"实体片段必须是 (类型, 起点, 终点) 三元组，收到 {span!r}")
    typ, s, e = span
    if not isinstance(typ, str) or not typ or typ == "O":
        raise ValueError(f"实体类型必须是非空字符串且不能是 'O'，收到 {typ!r}")
    for v in (s, e):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"起点和终点必须是整数，收到 {span!r}")
    if not 0 <= s < e or (n is not None and e > n):
        bound = "" if n is None else f" <= {n}"
        raise ValueError(f"实体片段 {span!r} 的范围不合法：需要 0 <= 起点 < 终点{bound}（终点不含）")
    return typ, int(s), int(e)


def spans_to_tags(spans, n: int) -> list[str]:
    """实体片段 → 长度为 n 的 BIO（IOB2）标签。片段重叠时报错。

    教学位置：第 16.2 节。例：[('PER', 0, 1), ('ORG', 2, 4)], n=5 → ['B-PER', 'O', 'B-ORG', 'I-ORG', 'O']
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n（句子长度）必须是非负整数，收到 {n!r}")
    tags = ["O"] * n
    owner = [None] * n
    for span in spans:
        typ, s, e = _check_span(span, n)
        for i in range(s, e):
            if owner[i] is not None:
                raise ValueError(f"实体片段 {span!r} 与 {owner[i]!r} 重叠（位置 {i}）；BIO 标注不能表示重叠实体")
            owner[i] = span
        tags[s] = "B-" + typ
        tags[s + 1:e] = ["I-" + typ] * (e - s - 1)
    return tags


def allowed_transitions(tag_names, forbidden: float = -np.inf) -> np.ndarray:
    """IOB2 允许的转移：(K, K) 矩阵，允许处为 0，不允许（O → I-X、B-X/I-X → I-Y, Y≠X）处为 forbidden。

    教学位置：第 16.3 节（“若要严格禁止不合法转移，需要明确加约束”）。
    把它加到学到的转移分数上即为硬约束；forbidden 也可取一个很大的负数（如 -1e4）作为软约束。
    """
    names = check_tags(tag_names, "tag_names")
    if forbidden > 0 or np.isnan(forbidden):
        raise ValueError(f"forbidden 必须 <= 0（-inf 或很大的负数），收到 {forbidden}")
    parsed = [_parse_tag(t, i) for i, t in enumerate(names)]
    out = np.zeros((len(names), len(names)))
    for j, (kind, typ) in enumerate(parsed):
        if kind == "I":
            for i, (_, prev_typ) in enumerate(parsed):
                if prev_typ != typ:
                    out[i, j] = forbidden
    return out


def allowed_starts(tag_names, forbidden: float = -np.inf) -> np.ndarray:
    """IOB2 允许的起始标签：(K,) 向量，I-X 处为 forbidden（句首不能是 I-X），其余为 0。教学位置：第 16.3 节。"""
    names = check_tags(tag_names, "tag_names")
    if forbidden > 0 or np.isnan(forbidden):
        raise ValueError(f"forbidden 必须 <= 0，收到 {forbidden}")
    return np.array([forbidden if _parse_tag(t, i)[0] == "I" else 0.0 for i, t in enumerate(names)])


# ---------- 线性链 CRF（第 16.3 节） ----------
def _scores(a, name: str, shape: tuple | None = None, ndim: int | None = None) -> np.ndarray:
    try:
        a = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} 必须是数值数组") from exc
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} 必须是 {ndim} 维数组，收到形状 {a.shape}")
    if shape is not None and a.shape != shape:
        raise ValueError(f"{name} 的形状应为 {shape}，收到 {a.shape}")
    if np.any(np.isnan(a)) or np.any(a == np.inf):
        raise ValueError(f"{name} 含有 NaN 或 +inf；只允许有限的数或 -inf（表示禁止）")
    return a


def _crf_inputs(unary, transitions, start, end):
    u = _scores(unary, "unary", ndim=2)
    T, K = u.shape
    if T == 0 or K == 0:
        raise ValueError(f"unary 形状 (T, K) 中 T 与 K 都必须 >= 1，收到 {u.shape}")
    tr = _scores(transitions, "transitions", shape=(K, K))
    st = np.zeros(K) if start is None else _scores(start, "start", shape=(K,))
    en = np.zeros(K) if end is None else _scores(end, "end", shape=(K,))
    return u, tr, st, en


def _path(tags, T: int, K: int) -> np.ndarray:
    y = as_id_array(tags, "标签路径", size=K, ndims=(1,))
    if len(y) != T:
        raise ValueError(f"标签路径长度 {len(y)} 与 unary 的位置数 T={T} 不一致")
    return y


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    """稳定的 log Σ exp；全为 -inf 时结果为 -inf（不产生 NaN）。"""
    m = a.max(axis=axis, keepdims=True)
    if m.min() > -np.inf:  # 常见情形：最大值有限，求和 >= 1，不会出现 log 0
        return np.log(np.exp(a - m).sum(axis=axis)) + m.squeeze(axis)
    m[m == -np.inf] = 0.0
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - m).sum(axis=axis)) + m.squeeze(axis)


def path_score(unary, transitions, tags_ids, start=None, end=None) -> float:
    """一条标签路径的分数：Σ unary[t, y_t] + Σ transitions[y_{t-1}, y_t] (+ start[y_0] + end[y_{T-1}])。

    教学位置：第 16.3 节。例（北京 大学，B-ORG → I-ORG 转移为 1）：[B-ORG, I-ORG] → 2+1.5+1 = 4.5
    """
    u, tr, st, en = _crf_inputs(unary, transitions, start, end)
    y = _path(tags_ids, *u.shape)
    return float(u[np.arange(len(y)), y].sum() + tr[y[:-1], y[1:]].sum() + st[y[0]] + en[y[-1]])


def viterbi(unary, transitions, start=None, end=None) -> tuple[list[int], float]:
    """Viterbi 算法：最高分标签路径及其分数。每一步遇到同分时取编号较小的标签（结果确定）。

    教学位置：第 16.3 节。例：课文“北京 大学”一例 → ([B-ORG, I-ORG], 4.5)
    所有路径都被禁止（分数 -inf）时报错。
    """
    u, tr, st, en = _crf_inputs(unary, transitions, start, end)
    T, K = u.shape
    delta = st + u[0]
    back = np.zeros((T, K), dtype=np.int64)
    for t in range(1, T):
        cand = delta[:, None] + tr  # cand[i, j]：前一位置 i → 当前 j
        back[t] = cand.argmax(axis=0)
        delta = cand[back[t], np.arange(K)] + u[t]
    delta = delta + en
    best = int(delta.argmax())
    if delta[best] == -np.inf:
        raise ValueError("所有标签路径的分数都是 -inf（都被禁止），没有可选的路径；请检查约束")
    path = [best]
    for t in range(T - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    return path[::-1], float(delta[best])


def _forward_backward(u, tr, st, en, lengths, backward: bool = True):
    """批量前向（—后向）。u (B, T, K)，lengths (B,)；超出句长的位置不参与计算。

    alpha[b, t] 只在 t < lengths[b] 时有意义（之后沿用最后一个有效值）；beta 同理。
    """
    B, T, K = u.shape
    alpha = np.empty((B, T, K))
    alpha[:, 0] = st + u[:, 0]
    for t in range(1, T):
        new = _logsumexp(alpha[:, t - 1, :, None] + tr, axis=1) + u[:, t]
        alpha[:, t] = np.where((t < lengths)[:, None], new, alpha[:, t - 1])
    log_z = _logsumexp(alpha[:, -1] + en, axis=1)
    if np.any(log_z == -np.inf):
        raise ValueError("所有标签路径的分数都是 -inf（都被禁止），log Z 无定义；请检查约束")
    if not backward:
        return alpha, None, log_z
    beta = np.empty((B, T, K))
    beta[:, -1] = en
    for t in range(T - 2, -1, -1):
        new = _logsumexp(tr + (u[:, t + 1] + beta[:, t + 1])[:, None, :], axis=2)
        beta[:, t] = np.where((t + 1 < lengths)[:, None], new, en)
    return alpha, beta, log_z


def forward_log_partition(unary, transitions, start=None, end=None) -> float:
    """前向算法求 log Z = log Σ_所有路径 exp(路径分数)，每一步用 logsumexp（分数上千也不溢出）。

    教学位置：第 16.3 节（训练时的归一化项）。所有路径都被禁止时报错。
    """
    u, tr, st, en = _crf_inputs(unary, transitions, start, end)
    return float(_forward_backward(u[None], tr, st, en, np.array([len(u)]), backward=False)[2][0])


def path_log_prob(unary, transitions, tags_ids, start=None, end=None) -> float:
    """log P(路径 | 句子) = 路径分数 − log Z。被禁止的路径返回 -inf。教学位置：第 16.3 节。"""
    s = path_score(unary, transitions, tags_ids, start, end)
    return s - forward_log_partition(unary, transitions, start, end)


def crf_marginals(unary, transitions, start=None, end=None) -> tuple[np.ndarray, np.ndarray, float]:
    """前向—后向算法：每个位置的标签边缘概率 (T, K)、相邻两位置的转移边缘概率 (T-1, K, K) 与 log Z。

    教学位置：第 16.3 节、附录 A.3（训练 CRF 时求梯度要用）。
    """
    u, tr, st, en = _crf_inputs(unary, transitions, start, end)
    alpha, beta, log_z = _forward_backward(u[None], tr, st, en, np.array([len(u)]))
    alpha, beta, log_z = alpha[0], beta[0], float(log_z[0])
    node = np.exp(alpha + beta - log_z)
    edge = np.exp(alpha[:-1, :, None] + tr[None] + (u[1:] + beta[1:])[:, None, :] - log_z)
    return node, edge, log_z


def _batch_inputs(unary, transitions, tags, start, end, lengths):
    u = _scores(unary, "unary")
    single = u.ndim == 2
    if single:
        if lengths is not None:
            raise ValueError("一句话（unary 为 (T, K)）时不需要 lengths；批量时 unary 为 (B, T, K)")
        u = u[None]
    if u.ndim != 3 or 0 in u.shape:
        raise ValueError(f"unary 必须是 (T, K) 或批量的 (B, T, K)，且各维 >= 1，收到形状 {u.shape}")
    B, T, K = u.shape
    _, tr, st, en = _crf_inputs(u[0], transitions, start, end)
    y = np.asarray(tags)
    if y.dtype.kind not in "iu":
        raise TypeError(f"tags 必须是整数标签编号，收到 dtype {y.dtype}")
    y = y[None] if single else y
    if y.shape != (B, T):
        raise ValueError(f"tags 形状 {y.shape if not single else y.shape[1:]} 与 unary 的位置数不一致"
                         f"（应为 {(T,) if single else (B, T)}）")
    L = np.full(B, T) if lengths is None else np.asarray(lengths)
    if L.dtype.kind not in "iu" or L.shape != (B,) or L.min() < 1 or L.max() > T:
        raise ValueError(f"lengths 必须是 {B} 个 1..{T} 之间的整数（每句的真实长度）")
    valid = np.arange(T)[None, :] < L[:, None]
    if np.any(((y < 0) | (y >= K)) & valid):
        raise ValueError(f"标签编号必须在 0..{K - 1} 之间")
    u = np.where(valid[..., None], u, 0.0)  # 补齐位置的分数清零，免得其中的 -inf 或极大值产生 NaN
    return u, tr, st, en, np.where(valid, y, 0), L, valid, single


def crf_nll_and_grads(unary, transitions, tags, start=None, end=None, lengths=None) -> tuple[float, dict]:
    """CRF 负对数似然 −log P(gold | 句子) = log Z − 路径分数，及其对各分数的梯度。

    教学位置：第 16.3 节（在真实数据上学习转移分数）。
    一句话：unary (T, K)、tags (T,)。批量：unary (B, T, K)、tags (B, T)、lengths (B,)（补齐位置的
    unary 与 tags 取任意值，会被忽略）；批量时返回各句 nll 之和与梯度之和（要平均请自己除以 B）。
    返回 (nll, grads)，grads 含 'unary'（形状同 unary）、'transitions' (K, K)、'start' (K,)、'end' (K,)：
    梯度 = 模型的期望次数（边缘概率）− 标准答案里的实际次数。start/end 为 None 时按 0 计算，其梯度照样给出。
    """
    u, tr, st, en, y, L, valid, single = _batch_inputs(unary, transitions, tags, start, end, lengths)
    B, T, K = u.shape
    rows = np.arange(B)
    last = y[rows, L - 1]
    gold = np.take_along_axis(u, y[..., None], axis=2)[..., 0].sum(axis=1)
    gold += np.where(valid[:, 1:], tr[y[:, :-1], y[:, 1:]], 0.0).sum(axis=1) + st[y[:, 0]] + en[last]
    if np.any(gold == -np.inf):
        raise ValueError("标准答案路径的分数是 -inf（被约束禁止），负对数似然为无穷大；请检查标签或约束")
    alpha, beta, log_z = _forward_backward(u, tr, st, en, L)
    node = np.where(valid[..., None], np.exp(alpha + beta - log_z[:, None, None]), 0.0)
    g_tr = np.zeros((K, K))
    for t in range(1, T):  # 逐位置累加转移的边缘概率，避免 (B, T, K, K) 的大数组
        b = np.flatnonzero(valid[:, t])
        e = np.exp(alpha[b, t - 1, :, None] + tr + (u[b, t] + beta[b, t])[:, None, :] - log_z[b, None, None])
        g_tr += e.sum(axis=0)
    g_u = node.copy()
    bb, tt = np.nonzero(valid)
    np.add.at(g_u, (bb, tt, y[bb, tt]), -1.0)
    pairs = valid[:, 1:]
    np.add.at(g_tr, (y[:, :-1][pairs], y[:, 1:][pairs]), -1.0)  # 同一转移可能出现多次
    g_st = node[:, 0].sum(axis=0)
    np.add.at(g_st, y[:, 0], -1.0)
    g_en = node[rows, L - 1].sum(axis=0)
    np.add.at(g_en, last, -1.0)
    grads = {"unary": g_u[0] if single else g_u, "transitions": g_tr, "start": g_st, "end": g_en}
    return float((log_z - gold).sum()), grads


def decode_independent(unary) -> list[int]:
    """每个位置各自取分数最高的标签（不看转移），用来和 Viterbi 对比。分数相同取编号小的。

    教学位置：第 16.3 节。例：课文“北京 大学”一例 → [B-ORG, O]，第二个词被漏掉。
    """
    u = _scores(unary, "unary", ndim=2)
    if u.shape[0] == 0 or u.shape[1] == 0:
        raise ValueError(f"unary 形状 (T, K) 中 T 与 K 都必须 >= 1，收到 {u.shape}")
    return [int(j) for j in u.argmax(axis=1)]


# ---------- 评价（第 16.4 节） ----------
def entity_prf(gold_spans_list, pred_spans_list) -> dict:
    """实体级精确率、召回率、F1：类型、起点、终点完全相同才算对；先汇总所有句子的计数再算（micro）。

    教学位置：第 16.4 节。例：预测 10 个、对 8 个、标注 12 个 → P = 0.8，R ≈ 0.667，F1 ≈ 0.727
    分母为零的约定：没有任何预测时 P = 0；没有任何标注实体时 R = 0；P + R = 0 时 F1 = 0
    （因此“标注和预测都为空”也记为 0，而不是 1）。同一句里重复的片段报错。
    返回 dict(precision, recall, f1, tp, fp, fn)。
    """
    gold_spans_list, pred_spans_list = list(gold_spans_list), list(pred_spans_list)
    if len(gold_spans_list) != len(pred_spans_list):
        raise ValueError(f"标注有 {len(gold_spans_list)} 句，预测有 {len(pred_spans_list)} 句；句数必须相同")
    tp = fp = fn = 0
    for k, (gold, pred) in enumerate(zip(gold_spans_list, pred_spans_list)):
        sets = []
        for name, spans in (("标注", gold), ("预测", pred)):
            items = [_check_span(tuple(s) if isinstance(s, list) else s, None) for s in spans]
            dup = [s for s, c in Counter(items).items() if c > 1]
            if dup:
                raise ValueError(f"第 {k} 句的{name}里有重复的实体片段 {dup[0]!r}")
            sets.append(set(items))
        hit = len(sets[0] & sets[1])
        tp, fp, fn = tp + hit, fp + len(sets[1]) - hit, fn + len(sets[0]) - hit
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def entity_counts(gold_spans_list, pred_spans_list) -> np.ndarray:
    """逐句的实体计数：形状 (句数, 3)，每行是这一句的 (tp, fp, fn)，规则与 entity_prf 相同。

    教学位置：第 16 章“在真实数据上试一试”（按句子重抽样求区间）。
    例：[[('PER', 0, 1)]] 对 [[('PER', 0, 1), ('LOC', 2, 3)]] → [[1, 1, 0]]
    """
    gold_spans_list, pred_spans_list = list(gold_spans_list), list(pred_spans_list)
    if len(gold_spans_list) != len(pred_spans_list):
        raise ValueError(f"标注有 {len(gold_spans_list)} 句，预测有 {len(pred_spans_list)} 句；句数必须相同")
    if not gold_spans_list:
        raise ValueError("至少要有一句")
    rows = []
    for g, p in zip(gold_spans_list, pred_spans_list):
        r = entity_prf([g], [p])
        rows.append((r["tp"], r["fp"], r["fn"]))
    return np.array(rows, dtype=np.int64)


def _f1_of_counts(counts: np.ndarray) -> float:
    tp, fp, fn = counts.sum(axis=0)
    return float(2 * tp / (2 * tp + fp + fn)) if tp else 0.0   # 与 entity_prf 的 F1 相同（tp = 0 时为 0）


def entity_f1_interval(gold_spans_list, pred_a, n_boot: int = 1000, seed: int = 0,
                       level: float = 0.95) -> tuple[float, float, float]:
    """实体级 F1（micro）的自助法区间，按句子有放回地重抽样：返回 (点估计, 下界, 上界)。

    教学位置：第 16 章“在真实数据上试一试”。比较两个方法用 nlpbook.compare.compare（逐句 entity_counts，
    stat=f1_from_counts），它配对重抽同一批句子。
    每次重抽样都先把所抽句子的 tp、fp、fn 加起来再算 F1，与 entity_prf 的 micro 口径一致。
    例：entity_f1_interval(标注, CRF 的预测) → (0.81, 0.79, 0.83) 这样的三个数
    """
    ca = entity_counts(gold_spans_list, pred_a)
    n = len(ca)
    idx = np.arange(n)
    return bootstrap_ci(idx, idx, metric=lambda t, i: _f1_of_counts(ca[i]), n_boot=n_boot, seed=seed, level=level)


def _flat_tags(seqs, name: str) -> list[list]:
    seqs = check_tags(seqs, name) if isinstance(seqs, str) else list(seqs)
    if all(isinstance(s, str) for s in seqs):
        return [seqs]
    if any(isinstance(s, str) for s in seqs):
        raise TypeError(f"{name} 要么是一句话的标签列表，要么是多句话（每句一个标签列表），不能混合")
    return [list(s) for s in seqs]


def token_accuracy(gold_tags, pred_tags) -> float:
    """逐位置（token）准确率。可以给一句话的标签，也可以给多句（每句一个列表，逐句长度须一致）。

    教学位置：第 16.4 节的陷阱：1,000 个 token 中只有 20 个属于实体，全部预测 O 也有 0.98，
    但实体级 F1 为 0。没有任何 token 时报错。
    """
    gold, pred = _flat_tags(gold_tags, "gold_tags"), _flat_tags(pred_tags, "pred_tags")
    if len(gold) != len(pred):
        raise ValueError(f"gold_tags 有 {len(gold)} 句，pred_tags 有 {len(pred)} 句；句数必须相同")
    right = total = 0
    for k, (g, p) in enumerate(zip(gold, pred)):
        if len(g) != len(p):
            raise ValueError(f"第 {k} 句的标注有 {len(g)} 个标签，预测有 {len(p)} 个；长度必须相同")
        right += sum(a == b for a, b in zip(g, p))
        total += len(g)
    if total == 0:
        raise ValueError("没有任何 token，准确率无定义")
    return right / total


# ---------- 真实数据：《人民日报》词性 → 字级 BIO（第 16 章） ----------
def pos_to_char_bio(sentence_pairs, type_map=None, merge_nr: bool = True) -> tuple[list[str], list[str]]:
    """把一句 (词, 词性) 列表变成字级 BIO：返回 (字列表, 标签列表)。

    教学位置：第 16 章“在真实数据上试一试”。输入即 datasets.load_peoples_daily(with_tags=True) 的一句。
    默认 nr → PER，ns → LOC，nt → ORG（type_map 可改），其他词性的字都标 O。
    merge_nr=True 时连续的 nr 词合成一个 PER 实体（语料把姓和名分开标：江/nr 泽民/nr → 江泽民）；
    代价：两个紧挨着、中间没有标点的人名也会被合成一个。其他类型相邻时仍是两个实体。
    例：[('江', 'nr'), ('泽民', 'nr'), ('在', 'p'), ('北京', 'ns')]
        → (['江', '泽', '民', '在', '北', '京'], ['B-PER', 'I-PER', 'I-PER', 'O', 'B-LOC', 'I-LOC'])
    """
    type_map = POS_ENTITY_TYPES if type_map is None else dict(type_map)
    if isinstance(sentence_pairs, str):
        raise TypeError("sentence_pairs 必须是 (词, 词性) 对的列表，收到一个字符串")
    chars, tags = [], []
    prev_pos = None
    for k, pair in enumerate(sentence_pairs):
        try:
            word, pos = pair
        except (TypeError, ValueError):
            word = pos = None
        if type(pair) not in (tuple, list) or not isinstance(word, str) or not isinstance(pos, str):
            raise TypeError(f"第 {k} 项必须是 (词, 词性) 两个字符串，收到 {pair!r}")
        if not word:
            raise ValueError(f"第 {k} 项的词是空字符串")
        typ = type_map.get(pos)
        if typ is None:
            tags += ["O"] * len(word)
        else:
            cont = merge_nr and pos == "nr" and prev_pos == "nr"
            tags += [("I-" if cont else "B-") + typ] + ["I-" + typ] * (len(word) - 1)
        chars += word
        prev_pos = pos
    return chars, tags
