"""课程里三个字级语言模型的统一接口：字级 n 元模型、字级 GRU、小 Transformer 都回答同一组问题。

- vocab、encode(文本) → 编号、decode(编号) → 文本；vocab[0] 是换行 "\\n"（文本的开头与结尾）。
- next_logits(前文编号) → 下一个字的分数 (V,)，可直接交给 decoding.generate。
- text_nll(texts) → (每条文本的总 −ln P, 每条被预测的字数)；perplexity(texts) = exp(总和 ÷ 字数)。
  被预测的字只有一种定义：把文本排成 "\\n" + "\\n".join(texts) + "\\n"，第一个换行之后的每个字都被预测一次，
  即每条文本的每个字加上它结尾的换行（len(文本) + 1 个）。前文怎么读由模型决定：
  n 元模型每条文本从头读（开头补换行），GRU 与 Transformer 沿这一整串往下读。
- generate(提示词, …)：只在这里实现一次——提示词前补一个换行（从一条文本的开头写起），交给 decoding.generate。
- compare(models, texts, prompt)：几个模型并排：参数个数、困惑度及其自助法区间、同一提示词同一解码设置的续写。
不做的事：不做批量生成、不缓存前文；各模型自己的训练与保存不在这里。
"""
from __future__ import annotations

import math

import numpy as np

from ._checks import check_positive, check_texts
from .decoding import generate as _decode_generate
from .spread import bootstrap_ci

__all__ = ["BOUNDARY", "LanguageModel", "perplexity_interval", "compare"]

BOUNDARY = "\n"  # 文本的开头与结尾标记；三个模型的 vocab[0]


class LanguageModel:
    """字级语言模型的共同接口（第 11 章）。子类给出 vocab、next_logits、text_nll 与 n_params。

    教学位置：第 11.1 节（语言模型是一类任务：前文 → 下一个字的分布）、第 11.5 节（困惑度）、第 13 章（三个模型并排）。
    例：m.generate("这本书", 20, temperature=0) → 贪心续写的 20 个字（不含提示词）
    """

    vocab: list
    eos_id = 0  # vocab[0] = "\n"

    # ---------- 编码 ----------
    def _stoi(self) -> dict:
        vocab = getattr(self, "vocab", None)
        if not vocab:
            raise ValueError(f"{type(self).__name__} 还没有字表 vocab：先训练（fit）或给出字表")
        cached = self.__dict__.get("_stoi_cache")
        if cached is None or cached[0] is not vocab:
            cached = (vocab, {ch: i for i, ch in enumerate(vocab)})
            self._stoi_cache = cached
        return cached[1]

    def encode(self, text: str) -> list[int]:
        """文本 → 编号列表（不加开头结尾）；字表外的字编为 <UNK>。例：encode("好") -> [好的编号]"""
        stoi = self._stoi()
        if not isinstance(text, str):
            raise TypeError(f"text 必须是 str，收到 {type(text).__name__}")
        unk = stoi.get("<UNK>")
        if unk is None and any(c not in stoi for c in text):
            raise ValueError("text 含有字表外的字，而字表里没有 <UNK>")
        return [stoi.get(c, unk) for c in text]

    def decode(self, ids) -> str:
        """编号列表 → 文本。例：decode(encode("好")) -> "好" """
        V = len(self._stoi())
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < V:
                raise ValueError(f"ids 里的编号必须是 0..{V - 1} 的整数，收到 {i!r}")
            out.append(self.vocab[int(i)])
        return "".join(out)

    def prompt_ids(self, prompt: str) -> list[int]:
        """提示词 → 从“一条文本的开头”写起的前文编号：encode("\\n" + prompt)。例：prompt_ids("") -> [0]"""
        if not isinstance(prompt, str):
            raise TypeError(f"prompt 必须是 str，收到 {type(prompt).__name__}")
        return self.encode(BOUNDARY + prompt)

    # ---------- 子类给出 ----------
    def next_logits(self, prefix_ids) -> np.ndarray:
        raise NotImplementedError

    def text_nll(self, texts) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def n_params(self) -> int:
        raise NotImplementedError

    # ---------- 共同实现 ----------
    def perplexity(self, texts) -> float:
        """每字困惑度 exp(总 −ln P ÷ 被预测的字数)，被预测的字见模块说明。教学位置：第 11.5 节。

        例：三个被预测的字概率 0.5、0.25、0.125 → exp(平均 1.386) = 4
        """
        nll, counts = self.text_nll(texts)
        return math.exp(float(nll.sum()) / float(counts.sum()))

    def generate(self, prompt: str, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None,
                 top_p: float | None = None, seed: int = 0, stop_at_end: bool = True) -> str:
        """接着提示词往下写，返回新写的部分（不含提示词）。教学位置：第 11.3—11.4 节。

        前文是 "\\n" + prompt（从一条文本的开头写起）；每步 decoding.generate 按 温度 → top-k → top-p 选字，
        temperature=0 是贪心；随机性只来自 seed。stop_at_end=True 时写出换行（文本结束）就停，换行留在结果末尾。
        例：m.generate("这家酒店", 10, temperature=0) 两次调用结果相同
        """
        check_positive(max_new_tokens, "max_new_tokens", integer=True, allow_zero=True)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed 必须是 >= 0 的整数，收到 {seed!r}")
        start = self.prompt_ids(prompt)
        ids = _decode_generate(self.next_logits, start, max_new_tokens, temperature, top_k, top_p,
                               rng=np.random.default_rng(int(seed)), eos_id=self.eos_id if stop_at_end else None)
        return self.decode(ids[len(start):])


def perplexity_interval(nll, counts, n_boot: int = 1000, seed: int = 0,
                        level: float = 0.95) -> tuple[float, float, float]:
    """按文本重抽样的困惑度区间：返回 (点估计, 下界, 上界)。教学位置：第 11.5 节（困惑度也有波动）。

    nll、counts：每条文本的总负对数概率与被预测的字数（任一模型 text_nll 的结果）。
    每次有放回地抽同样多条文本，困惑度 = exp(所抽文本的 nll 之和 / 字数之和)。
    比较两个模型用 nlpbook.compare.compare（逐条 (nll, counts)，stat=perplexity_from_sums），它配对重抽同一批文本。
    例：perplexity_interval([4.0, 2.0], [2, 1]) 的点估计是 exp(6 / 3) ≈ 7.389
    """
    nll = np.asarray(nll, dtype=np.float64)
    counts = np.asarray(counts)
    if nll.ndim != 1 or counts.shape != nll.shape or nll.size == 0:
        raise ValueError(f"nll 与 counts 必须是等长的非空一维数组，收到形状 {nll.shape} 与 {counts.shape}")
    if not np.all(np.isfinite(nll)) or np.any(nll < 0):
        raise ValueError("nll 必须是有限的非负数（每条文本的总负对数概率）")
    if not np.issubdtype(counts.dtype, np.integer) or np.any(counts < 1):
        raise ValueError("counts 必须是 >= 1 的整数（每条文本被预测的字数）")

    def ppl(n, total):
        return math.exp(float(total.sum()) / float(n.sum()))

    return bootstrap_ci(counts, nll, metric=ppl, n_boot=n_boot, seed=seed, level=level)


def compare(models: dict, texts, prompt: str, max_new_tokens: int = 30, temperature: float = 1.0,
            top_k: int | None = None, top_p: float | None = None, seed: int = 0, n_boot: int = 1000) -> list[dict]:
    """几个语言模型并排：同一批文本上的困惑度（按文本重抽样的 95% 区间）与同一提示词、同一解码设置的续写。

    教学位置：第 13 章（n 元模型、GRU、Transformer 并排）。models 是 {名字: LanguageModel}，字表必须相同
    （否则困惑度不能比，第 11.5 节）。每个模型一行：{'name', 'params', 'perplexity', 'low', 'high', 'sample',
    'nll', 'counts'}；nll、counts 留给配对比较（nlpbook.compare.compare，stat=perplexity_from_sums）。
    例：compare({"三元": lm3, "GRU": gru}, held_out, "这本书", 20, temperature=0)
    """
    if not isinstance(models, dict) or not models:
        raise ValueError("models 必须是非空字典：{名字: 语言模型}")
    bad = [name for name, m in models.items() if not isinstance(m, LanguageModel)]
    if bad:
        raise TypeError(f"这些不是 LanguageModel（需要 vocab、encode、next_logits、text_nll）：{bad}")
    vocabs = {name: list(m.vocab) for name, m in models.items()}
    first = next(iter(vocabs.values()))
    if any(v != first for v in vocabs.values()):
        raise ValueError("这些模型的字表不同，困惑度不能直接比（第 11.5 节）；请用同一个字表的模型")
    texts = check_texts(texts)
    rows = []
    for name, m in models.items():
        nll, counts = m.text_nll(texts)
        point, low, high = perplexity_interval(nll, counts, n_boot=n_boot, seed=seed)
        rows.append({"name": name, "params": int(m.n_params()), "perplexity": point, "low": low, "high": high,
                     "sample": m.generate(prompt, max_new_tokens, temperature, top_k, top_p, seed),
                     "nll": nll, "counts": counts})
    return rows
