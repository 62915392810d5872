"""附录 D 的脚本：第 11—18 章与附录 A（生成、注意力、Transformer、成本、预训练、NER、后训练与 RAG、实验、
朴素贝叶斯）。只用标准库。

每章一个不带参数的函数，返回 {名称: 数值}；tests/test_examples.py 把它们和 nlpbook 的 numpy 代码逐项对照。
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

from .common import BOS, EOS, NEG_INF, cosine, dot, mean, sigmoid, softmax

__all__ = ["chapter11", "chapter12", "chapter13", "chapter14", "chapter15", "chapter16", "chapter17",
           "chapter18", "appendix_a", "attend", "layer_flops"]

def chapter11() -> dict:
    """第 11 章：错开一位的训练对、贪心 / top-k / top-p、温度、困惑度。"""
    sent = ["我", "喜欢", "电影"]
    words, probs = ["电影", "音乐", "香蕉"], [0.6, 0.3, 0.1]

    def keep(k):  # 保留概率最高的 k 个，再重新归一化
        top = sorted(range(len(probs)), key=lambda i: -probs[i])[:k]
        total = sum(probs[i] for i in top)
        return [probs[i] / total if i in top else 0.0 for i in range(len(probs))]
    k_p, cum = 0, 0.0
    while cum < 0.8 - 1e-9:  # top-p：从大到小累加到至少 0.8
        cum += sorted(probs, reverse=True)[k_p]
        k_p += 1
    out = {"输入": [BOS] + sent, "目标": sent + [EOS], "贪心选": words[probs.index(max(probs))],
           "top-k (k=2)": keep(2), "top-p (p=0.8) 保留几个": k_p, "top-p (p=0.8)": keep(k_p)}
    for t in (0.5, 1.0, 2.0):  # 把 ln(概率) 当作分数，再除以温度
        out[f"温度 T={t:g}"] = softmax([math.log(p) / t for p in probs])
    losses = [-math.log(p) for p in (0.5, 0.25, 0.125)]
    out.update({"每步损失": losses, "平均损失": sum(losses) / 3, "困惑度": math.exp(sum(losses) / 3),
                "每步都是 1/4 的困惑度": math.exp(-math.log(0.25))})
    return out


def chapter12() -> dict:
    """第 12 章：分数 0、1、2 → softmax 权重 → 加权合成上下文向量。"""
    scores = [0, 1, 2]
    values = [[1, 0], [0, 1], [1, 1]]  # 我、喜欢、猫
    w = softmax(scores)
    return {"指数": [math.exp(s) for s in scores], "注意力权重 我/喜欢/猫": w,
            "上下文向量": [sum(wi * v[j] for wi, v in zip(w, values)) for j in range(2)]}


def attend(q, keys, values, allowed=None) -> dict:
    """一个 query 的缩放点积注意力，逐步返回。allowed[j] 为 False 的位置分数设为 -inf。"""
    raw = [dot(q, k) for k in keys]
    scaled = [s / math.sqrt(len(q)) for s in raw]
    masked = [s if allowed is None or allowed[j] else NEG_INF for j, s in enumerate(scaled)]
    w = softmax(masked)
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w,
            "output": [sum(wi * v[j] for wi, v in zip(w, values)) for j in range(len(values[0]))]}


def chapter13() -> dict:
    """第 13 章：A/B/C 的一次自注意力、3×3 权重表、因果遮罩、多头维数、LayerNorm 的 [1,3]。"""
    X = [[1, 0], [0, 1], [1, 1]]
    W_V = [[1, 0], [0, 2]]
    Q = K = X  # W_Q = W_K = 单位矩阵
    V = [[sum(x[i] * W_V[i][j] for i in range(2)) for j in range(2)] for x in X]
    a = attend(Q[0], K, V)
    causal = [[int(j <= i) for j in range(3)] for i in range(3)]
    c = attend(Q[0], K, V, causal[0])
    x = [1.0, 3.0]
    mu = sum(x) / 2
    var = sum((v - mu) ** 2 for v in x) / 2
    return {"V": V, "A 的点积": a["raw"], "A 缩放后": a["scaled"],
            "A 的指数": [math.exp(s) for s in a["scaled"]], "指数之和": sum(math.exp(s) for s in a["scaled"]),
            "A 的权重": a["weights"], "A 的新表示": a["output"],
            "3×3 权重表": [attend(q, K, V)["weights"] for q in Q],
            "三个位置的输出": [attend(q, K, V)["output"] for q in Q],
            "因果遮罩（1=可读）": causal, "A 遮罩后": c["masked"], "A 遮罩后的权重": c["weights"],
            "A 遮罩后的输出": c["output"], "100 个 token 的分数个数": 100 * 100,
            "128 维分 4 个 head，每头": 128 // 4,
            "[1,3] 的均值": mu, "[1,3] 减去均值": [v - mu for v in x],
            "[1,3] 的 LayerNorm（eps=1e-5）": [(v - mu) / math.sqrt(var + 1e-5) for v in x]}


def chapter14() -> dict:
    """第 14 章：数格子——n² 的表、注意力表与词向量表的字节数、KV cache（MHA/GQA/MQA）、一层的运算次数。"""
    MiB, GiB = 2 ** 20, 2 ** 30

    def kv(kv_heads):  # 2 × 序列数 × 层数 × token 数 × KV head 数 × 每头维数 × 字节数
        return 2 * 1 * 32 * 8192 * kv_heads * 128 * 2
    table = 4096 * 4096
    emb = 10_000 * 128
    return {"n² 表 (n, n, n²)": [[n, n, n * n] for n in (4, 8, 16)],
            "4096×4096 的元素数": table, "一张表的字节数（2 字节）": table * 2, "一张表 (MiB)": table * 2 // MiB,
            "32 个 head (GiB)": 32 * table * 2 // GiB,
            "词向量表的数字个数": emb, "词向量表的字节数（4 字节）": emb * 4, "词向量表 (MB)": emb * 4 / 1e6,
            "词表翻倍的倍数": 2, "词表和维度都翻倍的倍数": (2 * 10_000) * (2 * 128) // emb,
            "KV cache 字节数": kv(8), "KV cache (GiB)": kv(8) // GiB,
            "32 个 Query head：MHA (GiB)": kv(32) // GiB, "GQA 8 组 (GiB)": kv(8) // GiB,
            "MQA (MiB)": kv(1) // MiB,
            "10 个 token、d=512 一层的运算次数": layer_flops(10, 512), "n²d 项超过 nd² 项的长度（d=512）": 6 * 512}


def layer_flops(n: int, d: int, ffn_mult: int = 4) -> int:
    """一个 Transformer 层整段前向的运算次数（一次乘加记 2 次）：Q/K/V/输出投影 4·2nd²，
    QKᵀ 与 权重×V 各 2n²d，FFN 两个矩阵 2·2·n·d·(ffn_mult·d)。"""
    return 4 * 2 * n * d * d + 2 * 2 * n * n * d + 2 * 2 * n * d * (ffn_mult * d)


def chapter15() -> dict:
    """第 15 章：遮罩 15 % 与 80/10/10、错开一位的因果训练对、T5 片段破坏的个数、三种注意力遮罩能看到的格子。"""
    n_tokens = 100
    chosen = max(1, math.floor(0.15 * n_tokens + 0.5))
    sent = ["这部", "电影", "非常", "精彩"]
    n = 4
    masks = {"编码器（双向）": [[1] * n for _ in range(n)],
             "解码器（因果）": [[int(j <= i) for j in range(n)] for i in range(n)],
             "前缀（前 2 个互相可见）": [[int(j <= i or j < 2) for j in range(n)] for i in range(n)]}
    out = {"100 个 token 选中几个": chosen, "其中换成 [MASK]（期望）": chosen * 0.8,
           "换成随机 token（期望）": chosen * 0.1, "保持不变（期望）": chosen * 0.1,
           "因果输入": [BOS] + sent, "因果目标": sent + [EOS]}
    n_row = 126                                           # 一行 128 个位置去掉 [CLS]、[SEP]
    noise = math.floor(n_row * 0.15 + 0.5)                # 破坏 15 %
    spans = math.floor(noise / 3 + 0.5)                   # 平均每段 3 个
    out.update({"126 个 token 片段破坏几个": noise, "分成几段": spans,
                "T5 输入长度（保留的 + 每段一个哨兵）": n_row - noise + spans,
                "T5 目标长度（被拿走的 + 哨兵 + 结束哨兵）": noise + spans + 1})
    for name, m in masks.items():
        out[f"{name} 遮罩"] = m
        out[f"{name} 可读格数"] = sum(map(sum, m))
    return out


def chapter16() -> dict:
    """第 16 章：BIO 标签、CRF 路径分数、独立选择与最优路径、前向算法的概率（软 CRF 与加了硬约束的各算一次）、
    实体级 P/R/F1。软 CRF 只靠学到的转移分数，不合法的 [O, I-ORG] 也分到概率；硬约束把它的分数设为 -∞。"""
    toks = ["小王", "在", "北京", "大学", "工作"]
    tags = ["B-PER", "O", "B-ORG", "I-ORG", "O"]
    spans, i = [], 0
    while i < len(tags):  # IOB2 → (类型, 起点, 终点)
        if tags[i].startswith("B-"):
            j = i + 1
            while j < len(tags) and tags[j] == "I-" + tags[i][2:]:
                j += 1
            spans.append([tags[i][2:], i, j, "".join(toks[i:j])])
            i = j
        else:
            i += 1
    unary = [{"B-ORG": 2, "O": 1}, {"I-ORG": 1.5, "O": 1.8}]  # 北京、大学；其他候选暂时忽略
    trans = {("B-ORG", "I-ORG"): 1}

    def score(path):
        return sum(u[t] for u, t in zip(unary, path)) + sum(trans.get(p, 0) for p in zip(path, path[1:]))
    paths = list(itertools.product(*unary))                               # 四条路径
    legal = [p for p in paths if p != ("O", "I-ORG")]                      # 硬约束：O → I-ORG 不合 IOB2，分数为 -∞
    best = max(paths, key=score)                                           # 软 CRF 与硬约束下都是它
    log_z_soft = math.log(sum(math.exp(score(p)) for p in paths))
    log_z_hard = math.log(sum(math.exp(score(p)) for p in legal))
    tp, n_pred, n_gold = 8, 10, 12
    p, r = Fraction(tp, n_pred), Fraction(tp, n_gold)
    return {"BIO 标签": tags, "实体片段": spans,
            "路径 [B-ORG, I-ORG]": score(("B-ORG", "I-ORG")), "路径 [B-ORG, O]": score(("B-ORG", "O")),
            "路径 [O, O]": score(("O", "O")), "违反 IOB2 的 [O, I-ORG]": score(("O", "I-ORG")),
            "逐位置独立选": [max(u, key=u.get) for u in unary], "最高分路径（软 CRF、硬约束都是）": list(best),
            "软 CRF：log Z（四条路径）": log_z_soft, "软 CRF：P([B-ORG, I-ORG])": math.exp(score(best) - log_z_soft),
            "软 CRF：P([O, I-ORG])": math.exp(score(("O", "I-ORG")) - log_z_soft),
            "硬约束：log Z（三条合法路径）": log_z_hard, "硬约束：P([B-ORG, I-ORG])": math.exp(score(best) - log_z_hard),
            "全判“其他”的 token 准确率": (1000 - 20) / 1000, "它找到的实体": 0,
            "正确 / 预测 / 标注的实体数": [tp, n_pred, n_gold], "精确率": p, "召回率": r, "F1": 2 * p * r / (p + r)}


def chapter17() -> dict:
    """第 17 章：只对回答算损失的遮罩、DPO 的玩具数、LoRA 的参数数、RAG 的点积打分、recall@k 与 MRR。"""
    prompt = ["请", "判断", "下面", "影评", "的", "情感", "：", "电影", "很", "好看", "。"]
    answer = ["好评", "。", EOS]

    def dpo(pc, pr, rc, rr, beta=0.1):
        return -math.log(sigmoid(beta * ((pc - rc) - (pr - rr))))
    docs = [[0.9, 0.1], [0.1, 0.9]]
    q = [1, 0]
    dots = [dot(q, d) for d in docs]
    ranks = [1, 3, 8]                                     # 17.4 节手算的例子
    return {"SFT 计损失的位置（1=回答）": [0] * len(prompt) + [1] * len(answer),
            "DPO 损失（策略=参考）": dpo(-10, -12, -10, -12),
            "DPO 损失（好 +2、差 −2，β=0.1）": dpo(-8, -14, -10, -12),
            "4×4 矩阵的参数": 4 * 4, "4×1 加 1×4 的参数": 4 * 1 + 1 * 4,
            "4096×4096 的参数": 4096 * 4096, "LoRA r=8 的参数": 4096 * 8 + 8 * 4096,
            "LoRA 占完整的比例": Fraction(4096 * 8 + 8 * 4096, 4096 * 4096), "α/r（α=16, r=8）": 16 / 8,
            "文档点积": dots, "先返回第几篇（从 1 数）": dots.index(max(dots)) + 1,
            "文档余弦": [cosine(q, d) for d in docs],
            "三个问题正确段落的名次": ranks, "recall@1": Fraction(sum(r <= 1 for r in ranks), len(ranks)),
            "recall@5": Fraction(sum(r <= 5 for r in ranks), len(ranks)),
            "MRR": sum(Fraction(1, r) for r in ranks) / len(ranks)}


def chapter18() -> dict:
    """第 18 章：“全判好评”的准确率、混淆矩阵、每类 P/R/F1 与宏 F1（分母为 0 记 0）；带 <PAD> 的平均用真实 token 数。"""
    y_true = [1, 1, 0, 0, 0, 1]                          # 六条教学评论 A—F 的标签：1 = 好评
    y_pred = [1] * 6                                     # 全判好评
    cm = [[sum(t == a and p == b for t, p in zip(y_true, y_pred)) for b in (0, 1)] for a in (0, 1)]

    def prf(c):                                          # 这一类的 (P, R, F1)，分母为 0 时记 0
        tp, n_pred, n_true = cm[c][c], cm[0][c] + cm[1][c], sum(cm[c])
        p = Fraction(tp, n_pred) if n_pred else Fraction(0)
        r = Fraction(tp, n_true) if n_true else Fraction(0)
        return [p, r, 2 * p * r / (p + r) if p + r else Fraction(0)]
    vectors = [[0, 1], [1, 0], [0, 0]]  # 电影、好看、<PAD>（零向量）
    real = [1, 1, 0]
    total = [sum(v[j] * m for v, m in zip(vectors, real)) for j in range(2)]
    return {"全判好评的准确率": Fraction(cm[0][0] + cm[1][1], len(y_true)),
            "混淆矩阵（行 = 真实 差评/好评，列 = 预测）": cm, "差评 P、R、F1": prf(0), "好评 P、R、F1": prf(1),
            "宏 F1": (prf(0)[2] + prf(1)[2]) / 2,
            "正确平均（除以 2）": [t / sum(real) for t in total], "错误平均（除以 3）": mean(vectors)}


def appendix_a() -> dict:
    """附录 A.1：只看“精彩”一个词的贝叶斯公式。"""
    prior, like_pos, like_neg = 0.5, 0.4, 0.02
    pos, neg = prior * like_pos, prior * like_neg
    return {"好评分数 0.5×0.4": pos, "差评分数 0.5×0.02": neg,
            "好评概率": pos / (pos + neg), "差评概率": neg / (pos + neg)}
