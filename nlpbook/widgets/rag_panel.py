"""混合检索的权重滑块（第 17.4 节）：BM25 和 LSA 各占多少，dev 问题上的 recall@1、recall@5、MRR 怎样变。

两种检索在 dev 问题上的分数（问题数 × 段落数）先在 notebook 里算好传进来；滑块只做 fuse_scores 和排名，
每动一次只是几十行 × 几百列的加法和排序，远在 100 ms 以内。下拉框选一个 dev 问题，列出它排在前面的段落，
正确段落打 ✓。只用 dev：test 问题留给 notebook 里那张最后的表。
"""
from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from ..retrieval import fuse_scores, gold_ranks, mean_reciprocal_rank, order_by_score, recall_at_k
from ._base import Panel
from ._html import table

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


class RagPanel(Panel):
    """权重滑块（0…1，步长 0.1）和问题下拉框；``view`` 显示 dev 指标与所选问题的排名。"""

    def __init__(self, sparse, dense, gold, ids, questions, weight: float = 0.5, question: int = 0, k: int = 5,
                 names=("BM25", "LSA")):
        self.sparse, self.dense = np.asarray(sparse, float), np.asarray(dense, float)
        self.gold, self.ids, self.questions = np.asarray(gold), list(ids), list(questions)
        self.k, self.names = k, tuple(names)
        rag_view(self.sparse, self.dense, self.gold, weight, question, self.ids, self.questions, k, names)  # 先检查输入
        style = {"description_width": "initial"}
        self.weight = W.FloatSlider(value=weight, min=0.0, max=1.0, step=0.1, description=f"{names[0]} 的权重",
                                    readout_format=".1f", style=style)
        self.question = W.Dropdown(options=[(q, i) for i, q in enumerate(self.questions)], value=question,
                                   description="dev 问题", style=style, layout=W.Layout(width="640px"))
        self.view = W.HTML()
        self.watch((self.weight, self.question))
        self.update()
        self.widget = W.VBox([self.weight, self.question, self.view])

    def state(self) -> dict:
        return rag_view(self.sparse, self.dense, self.gold, round(float(self.weight.value), 1), int(self.question.value),
                        self.ids, self.questions, self.k, self.names)

    def update(self) -> None:
        self.view.value = view_html(self.state())
