"""混合检索的权重滑块（第 17.4 节）：BM25 和 LSA 各占多少，dev 问题上的 recall@1、recall@5、MRR 怎样变。

两种检索在 dev 问题上的分数（问题数 × 段落数）先在 notebook 里算好传进来；面板在浏览器里按权重混合、排名
（js/rag_panel.js），每动一次只是一个问题几百个段落的加法和排序。下拉框选一个 dev 问题，列出它排在前面的段落，
正确段落打 ✓。只用 dev：test 问题留给 notebook 里那张最后的表。
"""
from __future__ import annotations

import html

import numpy as np
import traitlets

from ..retrieval import fuse_scores, gold_ranks, mean_reciprocal_rank, order_by_score, recall_at_k
from ._client import ClientPanel
from ._html import table

STEP = 0.1
WEIGHTS = [round(STEP * i, 1) for i in range(11)]   # 滑块的格点 0.0, 0.1, …, 1.0
SCALE = 10_000                                      # 缩放后的分数存成万分之几的整数（4 位小数）
TRY = "试一试：把权重从 0 拖到 1，看三项指标先升后降；再换几个问题，看正确段落（✓）在哪个权重下排到第一。"


def rag_view(sparse, dense, gold, weight: float, question: int, ids, questions, k: int = 5,
             names=("BM25", "LSA")) -> dict:
    """面板显示的全部数字：某个权重下 dev 上的三项指标，和所选问题的前 k 个段落。"""
    fused = fuse_scores(sparse, dense, weight)
    ranks = gold_ranks(fused, gold)
    if not 0 <= question < len(questions):
        raise ValueError(f"question 必须在 0…{len(questions) - 1} 之间，收到 {question}")
    row = fused[question]
    top = [(ids[i], float(row[i]), int(i) == int(gold[question])) for i in order_by_score(row, k)]
    return {"weight": float(weight), "names": tuple(names), "n": len(gold),
            "recall1": recall_at_k(ranks, 1), "recall5": recall_at_k(ranks, 5), "mrr": mean_reciprocal_rank(ranks),
            "question": questions[question], "gold": ids[int(gold[question])], "gold_rank": int(ranks[question]),
            "top": top}


def view_text(v: dict) -> str:
    """rag_view 的纯文字版（notebook 里面板前一格打印的静态视图）。"""
    a, b = v["names"]
    lines = [f"权重 {v['weight']:.1f}（{a} 占 {v['weight']:.1f}，{b} 占 {1 - v['weight']:.1f}），"
             f"dev {v['n']} 题：recall@1 {v['recall1']:.3f}，recall@5 {v['recall5']:.3f}，MRR {v['mrr']:.3f}",
             f"问题：{v['question']}（正确段落排第 {v['gold_rank']}）"]
    lines += [f"  {i}. {s:.3f}  {sid}{'  ✓' if ok else ''}" for i, (sid, s, ok) in enumerate(v["top"], 1)]
    return "\n".join(lines)


def view_html(v: dict) -> str:
    a, b = v["names"]
    head = (f"<div>权重 <b>{v['weight']:.1f}</b>：{html.escape(a)} 占 {v['weight']:.1f}，{html.escape(b)} 占 "
            f"{1 - v['weight']:.1f}。dev {v['n']} 题上 recall@1 <b>{v['recall1']:.3f}</b>，recall@5 "
            f"<b>{v['recall5']:.3f}</b>，MRR <b>{v['mrr']:.3f}</b></div>"
            f"<div>问题：{html.escape(v['question'])}（正确段落排第 <b>{v['gold_rank']}</b>）</div>")
    rows = [(i, f"{s:.3f}", sid, "✓" if ok else "") for i, (sid, s, ok) in enumerate(v["top"], 1)]
    return head + table(["名次", "混合分数", "段落", "正确"], rows) + f"<div style='color:#555'>{TRY}</div>"


class RagPanel(ClientPanel):
    """权重滑块（0…1，步长 0.1）和 dev 问题下拉框；在浏览器里重画（js/rag_panel.js）。

    ``data``：每个问题在全部段落上的两种分数，先按 fuse_scores 的做法各自缩放到 [0, 1]（每个问题的最小值 → 0、
    最大值 → 1），再四舍五入到 4 位小数、存成万分之几的整数（``a``：稀疏，``b``：稠密；``scale`` = 10000）；
    浏览器里按权重 w 算 w·a + (1 − w)·b，按 order_by_score 的规则排名（相对差 1e-12 以内算相同、下标小的在前），
    列出前 k 个段落和正确段落的名次。dev 上的三项指标（``metrics``，每个权重一行 [recall@1, recall@5, MRR]）
    由 Python 在滑块的 11 个权重上算好。静态视图（fallback_html）也用这份四舍五入后的分数，与浏览器里的逐字相同；
    四舍五入让别的 BLAS 上分数末位的差别不会改变保存的输出。
    """

    module = "rag_panel"
    controls = ("weight", "question")
    weight = traitlets.Float(0.5).tag(sync=True)
    question = traitlets.Int(0).tag(sync=True)

    def __init__(self, sparse, dense, gold, ids, questions, weight: float = 0.5, question: int = 0, k: int = 5,
                 names=("BM25", "LSA")):
        sparse, dense = np.asarray(sparse, float), np.asarray(dense, float)
        self.gold, self.ids, self.questions = np.asarray(gold), list(ids), list(questions)
        self.k, self.names = k, tuple(names)
        rag_view(sparse, dense, self.gold, weight, question, self.ids, self.questions, k, names)  # 先检查输入
        if abs(float(weight) * 10 - round(float(weight) * 10)) > 1e-9:
            raise ValueError(f"weight 取 0…1 中 {STEP} 的倍数（滑块的格点），收到 {weight!r}")
        if isinstance(question, bool) or int(question) != question:
            raise ValueError(f"question 必须是整数下标，收到 {question!r}")
        # 缩放到 [0, 1]：权重 1 只剩稀疏分数、权重 0 只剩稠密分数（就是 fuse_scores 里各自缩放的那一步）
        a = np.rint(fuse_scores(sparse, dense, 1.0) * SCALE).astype(int)
        b = np.rint(fuse_scores(sparse, dense, 0.0) * SCALE).astype(int)
        self._sparse, self._dense = a / SCALE, b / SCALE
        metrics = []
        for w in WEIGHTS:
            v = rag_view(self._sparse, self._dense, self.gold, w, 0, self.ids, self.questions, k, names)
            metrics.append([v["recall1"], v["recall5"], v["mrr"]])
        data = {"names": list(self.names), "ids": self.ids, "questions": self.questions,
                "gold": [int(g) for g in self.gold], "k": int(k), "scale": SCALE, "a": a.tolist(), "b": b.tolist(),
                "weights": WEIGHTS, "metrics": metrics, "try": TRY}
        super().__init__(weight=round(float(weight), 1), question=int(question), data=data)

    @classmethod
    def example(cls) -> "RagPanel":
        """测试用的小实例：3 个问题、4 个段落的玩具分数（稀疏偏爱第 0 段，稠密偏爱正确段落）。"""
        sparse = [[9.0, 1.0, 0.0, 2.0], [8.0, 0.0, 1.0, 3.0], [5.0, 4.0, 0.0, 0.0]]
        dense = [[0.1, 0.9, 0.2, 0.0], [0.0, 0.1, 0.8, 0.3], [0.2, 0.1, 0.0, 0.7]]
        return cls(sparse, dense, [1, 2, 3], ["甲", "乙", "丙", "丁"], ["问一", "问二", "问三"])

    def current_view(self) -> dict:
        """当前控件值下面板显示的全部数字（rag_view 的结果，用四舍五入后的分数）。"""
        return rag_view(self._sparse, self._dense, self.gold, round(float(self.weight), 1), int(self.question),
                        self.ids, self.questions, self.k, self.names)

    def fallback_html(self) -> str:
        return view_html(self.current_view())
