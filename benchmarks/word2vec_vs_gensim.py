"""把 nlpbook.word2vec.train_sgns 和 gensim 的 Word2Vec 放在同一次运行里比较（这是测量，不是测试）。

  python benchmarks/word2vec_vs_gensim.py

语料：《人民日报》1998 年 1 月（nlpbook.datasets.load_peoples_daily）。两边设置相同：
min_count 5、dim 100、window 5、negative 5、sample 1e-4、1 轮、alpha 0.025 → 0.0001、单线程。
进程绑到 0 号核。机器上有别的负载时单次计时会飘，所以两边交替（我们、gensim、我们、gensim……）重复 REPEATS 轮，
时间比取两边 CPU 时间中位数之比。打印：各自的训练时间（墙钟 / CPU）、我们每秒处理的词对数、时间比（我们 / gensim），
以及 20 个常见词的前 10 个近邻的平均重合率：我们 vs gensim，gensim 种子两两之间（参照：同一实现换种子能重合多少），
我们种子两两之间。
gensim 只是这个测量的可选依赖，不是课程依赖；没装时跳过 gensim 部分。
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # 必须在导入 numpy 之前
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {0})

import time  # noqa: E402

import numpy as np  # noqa: E402

from nlpbook.datasets import load_peoples_daily  # noqa: E402
from nlpbook.text import Vocab  # noqa: E402
from nlpbook.word2vec import train_sgns  # noqa: E402

WORDS = ["中国", "北京", "经济", "发展", "记者", "人民", "工作", "企业", "国家", "政府",
         "改革", "市场", "美国", "农民", "技术", "文化", "教育", "银行", "问题", "干部"]
SETTINGS = dict(min_count=5, dim=100, window=5, negatives=5, sample=1e-4, epochs=1, alpha=0.025,
                min_alpha=0.0001)
SEEDS = (1, 2, 3)                                  # 近邻重合取三对种子的平均（单独一对的波动约 ±0.02）
REPEATS = 2                                        # 交替计时的轮数；近邻重合只用第一轮


def neighbours(W: np.ndarray, words: list[str], queries=WORDS, k: int = 10) -> dict[str, set]:
    """每个查询词按余弦相似度的前 k 个近邻（不含自己）。"""
    index = {w: i for i, w in enumerate(words)}
    Wn = W / np.maximum(np.linalg.norm(W, axis=1, keepdims=True), 1e-12)
    out = {}
    for q in queries:
        s = Wn @ Wn[index[q]]
        s[index[q]] = -np.inf
        out[q] = {words[i] for i in np.argsort(-s, kind="stable")[:k]}
    return out


def overlap(a: dict, b: dict) -> float:
    return float(np.mean([len(a[q] & b[q]) / len(a[q]) for q in a]))


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    s = SETTINGS
    sentences = load_peoples_daily()
    vocab = Vocab.build(sentences, min_count=s["min_count"], specials=())
    ids = [[vocab.stoi[w] for w in sent if w in vocab.stoi] for sent in sentences]
    counts = np.bincount(np.concatenate([np.asarray(x, dtype=np.int64) for x in ids]), minlength=len(vocab))
    words = vocab.itos
    print(f"语料：{len(sentences):,} 句，{sum(map(len, sentences)):,} 词；词表（次数 ≥ {s['min_count']}）"
          f"{len(vocab):,} 个词，保留 {int(counts.sum()):,} 个词")
    print(f"设置：{s}；绑定的核：{sorted(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}")
    print(f"机器负载（1 分钟平均）：{os.getloadavg()[0]:.1f}；负载高时墙钟时间不可靠，以 CPU 时间为准\n")

    try:
        from gensim.models import Word2Vec
    except ImportError:
        print("没有安装 gensim，只测我们自己（pip install gensim 只用于这个测量）。\n")
        Word2Vec = None

    def run_ours(seed):
        m, wall, cpu = timed(lambda: train_sgns(ids, len(vocab), counts, dim=s["dim"], window=s["window"],
                                                negatives=s["negatives"], epochs=s["epochs"], lr=s["alpha"],
                                                min_lr=s["min_alpha"], subsample=s["sample"], seed=seed))
        print(f"nlpbook 种子 {seed}：{wall:.1f} s 墙钟 / {cpu:.1f} s CPU，{m.n_pairs:,} 个词对，"
              f"{m.n_pairs / cpu:,.0f} 对/秒（按 CPU 时间）；损失 {m.loss_history[0]:.3f} → {m.loss_history[-1]:.3f}")
        return neighbours(m.W_in, words), wall, cpu

    def run_gensim(seed):
        model = Word2Vec(vector_size=s["dim"], window=s["window"], negative=s["negatives"], sample=s["sample"],
                         min_count=s["min_count"], alpha=s["alpha"], min_alpha=s["min_alpha"], sg=1, hs=0,
                         workers=1, seed=seed)
        model.build_vocab(sentences)
        _, wall, cpu = timed(lambda: model.train(sentences, total_examples=model.corpus_count, epochs=s["epochs"]))
        print(f"gensim  种子 {seed}：{wall:.1f} s 墙钟 / {cpu:.1f} s CPU（只计 train，不含建词表）")
        return neighbours(model.wv.vectors, list(model.wv.index_to_key)), wall, cpu

    ours, gs = {}, {}                                  # 种子 -> [(近邻, 墙钟, CPU), ...]（每轮一个）
    for rep in range(REPEATS):
        print(f"—— 第 {rep + 1}/{REPEATS} 轮 ——")
        for seed in SEEDS:
            ours.setdefault(seed, []).append(run_ours(seed))
            if Word2Vec is not None:
                gs.setdefault(seed, []).append(run_gensim(seed))

    print("\n—— 汇总 ——")
    med = lambda runs, k: float(np.median([r[k] for rs in runs.values() for r in rs]))  # noqa: E731
    pairs = [(x, y) for i, x in enumerate(SEEDS) for y in SEEDS[i + 1:]]
    nb = lambda runs: {seed: rs[0][0] for seed, rs in runs.items()}  # noqa: E731
    within = lambda n: float(np.mean([overlap(n[x], n[y]) for x, y in pairs]))  # noqa: E731
    o_nb = nb(ours)
    print(f"我们：CPU 中位数 {med(ours, 2):.1f} s（墙钟 {med(ours, 1):.1f} s），{REPEATS} 轮 × {len(SEEDS)} 个种子")
    print(f"我们 种子两两之间（{len(pairs)} 对）前 10 近邻平均重合：{within(o_nb):.3f}")
    if gs:
        g_nb = nb(gs)
        print(f"gensim：CPU 中位数 {med(gs, 2):.1f} s（墙钟 {med(gs, 1):.1f} s）")
        print(f"时间比 我们 / gensim（中位数之比）：CPU {med(ours, 2) / med(gs, 2):.2f}×，"
              f"墙钟 {med(ours, 1) / med(gs, 1):.2f}×")
        cross = np.mean([overlap(o_nb[x], g_nb[y]) for x in SEEDS for y in SEEDS])
        print(f"gensim 种子两两之间（{len(pairs)} 对）前 10 近邻平均重合（参照）：{within(g_nb):.3f}")
        print(f"我们 vs gensim 前 10 近邻平均重合（{len(SEEDS) ** 2} 种组合的平均）：{cross:.3f}")


if __name__ == "__main__":
    main()
