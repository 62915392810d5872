"""比较的结论由代码印出，prose 只解释印出来的东西（见 tests/_verdicts.py 的规则）。

NOT_A_COMPARISON：含结论词、却不是两个有噪声的结果之间的比较的句子（特征分不开、确定性的玩具计算、一次运行的描述），
每条写明理由。OPEN：还没有改成由 nlpbook.compare 印出结论的句子——这张表只许变短：新写的结论句必须有印出的结论，
改好的句子必须从表里删掉（见 test_open_list_is_current）。
"""
import json
from pathlib import Path

import pytest

from _verdicts import is_verdict, unsupported

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

NOT_A_COMPARISON = {
    "02": {"编号超过词表大小时就会出错": "出错的条件，不是比较"},
    "03": {"要让模型分得开": "两个输入的特征相同，谁也分不开——说的是表示，不是实验结果",
           "分类器再复杂也分不开": "同上"},
    "04": {"远高于起点的 0.693": "玩具数据上确定性的梯度下降路径，表里印着每一步，没有噪声",
           "还略低于训练损失 0.669": "同一次训练的两条损失曲线，不是两个方法的比较",
           "验证损失一直高于训练损失": "同上",
           "从第 2 轮起验证集的损失高于训练集": "图注，同上"},
    "05": {"第 4 章分不开的 A、C、E、F": "特征相同，说的是表示"},
    "06": {"一词多义分不开": "说的是表示"},
    "08": {"也分不开这两句话": "说的是表示", "梯度总长度超过上限": "裁剪的条件"},
    "11": {"乱码明显减少": "对几段样本的描述，下一句说明这是观感"},
    "12": {"能帮助发现明显的异常": "不是比较"},
    "16": {"地名、人名最明显": "描述一个模型学到的转移分数表（印在上面），不是两个结果的比较",
           "O → I-ORG 也明显为负": "同上"},
    "18": {"远低于准确率": "同一个确定性规则的两个指标",
           "会被选中": "练习 14 的三个选项：让读者先预测，不是本节的结论"},
    "A-": {"好评一侧更明显": "描述两张词表，不是比较结果"},
}

OPEN = {
}


def _flagged(path):
    key = path.name[:2]
    allowed = tuple(NOT_A_COMPARISON.get(key, {}))
    return key, unsupported(json.loads(path.read_text(encoding="utf-8")), allowed)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_verdict_sentence_is_printed_by_compare(path):
    key, bad = _flagged(path)
    new = [(i, s, why) for i, s, why in bad if not any(o in s for o in OPEN.get(key, []))]
    assert not new, "这些结论句没有本节印出的 compare 结论支持（用 nlpbook.compare 印出来，或改写成只陈述数字）：\n" + \
        "\n".join(f"  单元 {i}：{s}（{why}）" for i, s, why in new)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_open_list_is_current(path):
    key, bad = _flagged(path)
    stale = [o for o in OPEN.get(key, []) if not any(o in s for _, s, _ in bad)]
    assert not stale, f"这些句子已经改好（或不在了），从 OPEN 里删掉：{stale}"
    unused = [a for a in NOT_A_COMPARISON.get(key, {})
              if not any(a in "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"])]
    assert not unused, f"NOT_A_COMPARISON 里这些片段在 notebook 里找不到了：{unused}"


def _nb(*cells):
    return {"cells": [{"cell_type": t, "source": [s], **({"outputs": [{"output_type": "stream", "name": "stdout",
                                                                       "text": [o]}]} if t == "code" else {})}
                      for t, s, o in cells]}


# 检查过的 notebook 里真实出现过的结论句（只印了两组种子的 t 区间、没有配对比较时）
CAUGHT = [
    "在这份数据上，最便宜的学习方法（TF-IDF 逻辑回归）同时也是验证分数最高的：其余候选要么与它分得开、明显更低。",
    "- **RNN** 0.672 ± 0.062，均值也低于词袋，但区间 [0.517, 0.827] 宽到与词袋的 [0.788, 0.804] 重叠。",
    "曲线上看，全部微调在第 50 步（0.715）就已经超过随机初始化第 100 步的结果；",
    "尽管 RNN 这么不稳定，`separated` 仍然给出 −1：RNN 的区间整个落在词袋的下面——不过两者只隔了约 0.006，是勉强分开，多一个种子就可能变成分不开。",
    "四个 β 的奖励两两之间都分不开。",
]


@pytest.mark.parametrize("sentence", CAUGHT)
def test_checker_flags_unprinted_verdicts(sentence):
    nb = _nb(("markdown", "## 一节", ""), ("code", "print(0.849, 0.841)", "0.849 0.841\n"), ("markdown", sentence, ""))
    assert [s for _, s, _ in unsupported(nb)] == [sentence.strip()]


def test_checker_accepts_a_printed_verdict_of_the_same_polarity():
    out = "TextCNN − TF-IDF = −0.007 [−0.015, +0.001]：分不开（3 个种子 × 1753 条评测样本，样本配对）\n"
    ok = _nb(("markdown", "## 一节", ""), ("code", "print(c)", out), ("markdown", "两者分不开。", ""))
    assert unsupported(ok) == []
    wrong = _nb(("markdown", "## 一节", ""), ("code", "print(c)", out), ("markdown", "TextCNN 与 TF-IDF 分得开。", ""))
    assert len(unsupported(wrong)) == 1
    other_section = _nb(("markdown", "## 一节", ""), ("code", "print(c)", out), ("markdown", "### 下一节", ""),
                        ("markdown", "两者分不开。", ""))
    assert len(unsupported(other_section)) == 1


@pytest.mark.parametrize("sentence, verdict", [
    ("概率高于它（常用 0.5）就判好评。", False), ("超过两秒就停下。", False), ("余弦不超过 1。", False),
    ("模型远高于规则打分。", True), ("两者分不开。", True), ("GRU 明显更好。", True),
])
def test_thresholds_are_not_verdicts(sentence, verdict):
    assert is_verdict(sentence) is verdict
