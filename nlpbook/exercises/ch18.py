"""第 18 章的练习：18.5 节回顾前面各章的八个手算，再加上实验本身的几道题。

q1 填数：“电影 不 好看”的七维词袋（第 3.1 节）
q2 填数：逻辑回归更新一步后的 w 和好评概率（第 4.3 节）
q3 填数：“猫 追 狗”“狗 追 猫”的平均特征与递归记录（第 8.1—8.2 节）
q4 填数：CBOW 三个候选的概率（第 7.2—7.3 节）
q5 填数：位置 A 的注意力权重与新表示（第 13.3 节）
q6 填数：加因果遮罩后的 3×3 权重表（第 13.5 节）
q7 填数：贪心、top-k、top-p 的结果（第 11.4 节）
q8 填数：严格实体级的 P、R、F1（第 16.2、16.4 节）
q9 解释：把三份数据合起来建词表和 IDF 有什么问题
q10 选择：看过测试集再调阈值，新分数还算测试集结果吗
q11 实现：my_masked_mean(vectors, mask)——带 padding 的平均（第 18.3 节）
q12 实现：my_confusion_matrix(y_true, y_pred, labels)
q13 实现：my_macro_f1(y_true, y_pred, labels)——分母为零时记 0
q14 实验：给 TF-IDF 逻辑回归换一个记录里没有的学习率，训练 3 个种子，按本章的选择规则判断它会不会被选中
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..attention import attention_steps, causal_mask
from ..datasets import TOY_VOCAB
from ..decoding import greedy, top_k_filter, top_p_filter
from ..embedding import mean_pool
from ..linear import predict_proba, sgd_step
from ..metrics import confusion_matrix, macro_prf
from ..rnn import toy_record
from ..tagging import entity_prf, tags_to_spans
from ..text import Vocab, bag_of_words
from ..word2vec import cbow_forward
from .compare import describe
from .experiments import ExperimentExercise, as_number
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, ExplainExercise, NumberExercise

__all__ = [f"q{i}" for i in range(1, 15)] + ["Q_ABC", "V_ABC"]

# 第 13.3 节的 A、B、C：Q = K = X，V 把第二维乘 2
Q_ABC = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V_ABC = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])

# ---- q1—q8：18.5 节的八个手算 --------------------------------------------------------
q1 = NumberExercise(
    "18.1", "词表 [电影, 剧情, 好看, 精彩, 难看, 无聊, 不] 下，“电影 不 好看”的七维计数向量",
    expected=bag_of_words(["电影", "不", "好看"], Vocab(TOY_VOCAB)), tol=1e-3,
    wrong=[([1, 0, 1, 0, 0, 0, 0], "这是“电影 好看”的词袋：“不”也在词表里（最后一列），要数上。"),
           ([1, 1, 1, 0, 0, 0, 0], "列的顺序由词表决定，不是按词在句子里出现的顺序往前填。")],
    hints=["七列依次是 电影、剧情、好看、精彩、难看、无聊、不。", "每一列写这个词在句子里出现了几次。"],
    answer="[1, 0, 1, 0, 0, 0, 1]：电影、好看、不各出现一次。",
    stub="answer_1 = None   # 保留三位小数即可，例如 [0, 0, 0, 0, 0, 0, 0]",
    filled="answer_1 = [1, 0, 1, 0, 0, 0, 1]",
)

_w_new, _ = sgd_step(np.zeros(1), 0.0, [[1.0]], [1], lr=0.2, fit_bias=False)
q2 = NumberExercise(
    "18.2", "x = 1、y = 1、w = 0、无偏置、学习率 0.2：更新一步后的 (w, 好评概率)",
    expected=(float(_w_new[0]), float(predict_proba(_w_new, 0.0, [[1.0]])[0])), tol=2e-3,
    wrong=[((-0.1, 1 / (1 + math.exp(0.1))), "梯度的符号反了：w 新 = w − 学习率 × (p − y) × x，而 p − y = −0.5。"),
           ((0.5, 1 / (1 + math.exp(-0.5))), "忘了乘学习率 0.2。"),
           ((0.1, 0.5), "w 已经变了，好评概率要用新的 w 重新算 σ(w × x)。")],
    hints=["先算 p = σ(0) = 0.5，梯度 (p − y)·x。", "w 新 = 0 − 0.2 × 梯度；再算 σ(w 新 × 1)。"],
    answer="p = σ(0) = 0.5，梯度 (0.5 − 1) × 1 = −0.5，w = 0 − 0.2 × (−0.5) = 0.1，σ(0.1) ≈ 0.525：(0.1, 0.525)。",
    stub="answer_2 = None   # 保留三位小数即可，例如 (0.0, 0.5)",
    filled="answer_2 = (0.1, 0.525)",
)

q3 = NumberExercise(
    "18.3", "猫 1、追 0、狗 2：两句的平均特征和“旧 × 0.5 + 当前”的最终记录",
    expected=(1.0, 1.0, toy_record([1, 0, 2])[-1], toy_record([2, 0, 1])[-1]), tol=1e-3,
    wrong=[((1.0, 1.0, 1.5, 2.25), "两句的记录写反了：“猫 追 狗”依次读 1、0、2。"),
           ((1.0, 1.0, 3.0, 3.0), "忘了每步把旧记录乘 0.5。"),
           ((1.0, 1.0, 1.125, 0.75), "0.5 只乘旧记录：新记录 = 旧记录 × 0.5 + 当前词特征，当前词不打折。")],
    hints=["平均值：(1 + 0 + 2) / 3，与顺序无关。", "“猫 追 狗”：0 → 0×0.5+1 = 1 → 1×0.5+0 = 0.5 → 0.5×0.5+2。"],
    answer="平均都是 1；记录 1 → 0.5 → 2.25 和 2 → 1 → 1.5：(1.0, 1.0, 2.25, 1.5)。",
    stub="answer_3 = None   # 保留三位小数即可，例如 (0.0, 0.0, 0.0, 0.0)",
    filled="answer_3 = (1.0, 1.0, 2.25, 1.5)",
)

q4 = NumberExercise(
    "18.4", "上下文“喜欢”[1, 0]、“电影”[0, 1]，候选 看 [2, 2]、吃 [0, 0]、买 [1, 1] 的概率",
    expected=cbow_forward([[1, 0], [0, 1]], [[2, 2], [0, 0], [1, 1]], [0, 1], 0)["probs"], tol=2e-3,
    wrong=[([2, 0, 1], "这是分数；还要做 softmax 变成概率。"),
           ([2 / 3, 0, 1 / 3], "把分数直接除以它们的和不是 softmax：要先取 exp。"),
           (np.exp([4, 0, 2]) / np.exp([4, 0, 2]).sum(), "上下文向量要取平均 [0.5, 0.5]，不是相加 [1, 1]。")],
    hints=["先把两个上下文向量平均。", "与每个候选的点积得到分数 [2, 0, 1]，再 softmax。"],
    answer="平均 [0.5, 0.5]；分数 [2, 0, 1]；softmax ≈ [0.665, 0.090, 0.245]。",
    stub="answer_4 = None   # 保留三位小数即可，例如 [0.333, 0.333, 0.333]",
    filled="answer_4 = [0.665, 0.090, 0.245]",
)

_st = attention_steps(Q_ABC, Q_ABC, V_ABC)
_st_noscale = attention_steps(Q_ABC, Q_ABC, V_ABC, scale=False)
q5 = NumberExercise(
    "18.5", "位置 A 对 A、B、C 的注意力权重，以及 A 的新表示",
    expected=(_st["weights"][0], _st["output"][0]), tol=2e-3,
    wrong=[((_st_noscale["weights"][0], _st_noscale["output"][0]), "点积要先除以 √2（√d，d = 2）再 softmax。"),
           ((_st["weights"][0], _st["weights"][0] @ Q_ABC), "权重算对了，但加权求和要用 V，不是 K。")],
    hints=["A 的 Q 与三个 K 的点积是 [1, 0, 1]。", "除以 √2、softmax，再用权重把三个 V 加起来。"],
    answer="点积 [1, 0, 1] → 缩放 [0.707, 0, 0.707] → 权重 [0.401, 0.198, 0.401] → 新表示 [0.802, 1.198]。",
    stub="answer_5 = None   # 保留三位小数即可，例如 ([0.333, 0.333, 0.333], [0.0, 0.0])",
    filled="answer_5 = ([0.401, 0.198, 0.401], [0.802, 1.198])",
)

q6 = NumberExercise(
    "18.6", "加因果遮罩后，A、B、C 三个位置的 3×3 注意力权重表",
    expected=attention_steps(Q_ABC, Q_ABC, V_ABC, mask=causal_mask(3))["weights"], tol=2e-3,
    wrong=[(attention_steps(Q_ABC, Q_ABC, V_ABC)["weights"], "这是没有遮罩的权重：每个位置只能读自己和前面的位置。"),
           (attention_steps(Q_ABC, Q_ABC, V_ABC, mask=causal_mask(3).T)["weights"],
            "遮罩方向反了：第 i 行只能读第 0..i 列（对角线及左下），右上方才是“未来”。"),
           (attention_steps(Q_ABC, Q_ABC, V_ABC, mask=causal_mask(3), scale=False)["weights"],
            "遮罩对了，但分数忘了除以 √2。")],
    hints=["第一行 A 只能读自己：权重 [1, 0, 0]。", "第 i 行只在前 i + 1 个位置上做 softmax（分数先除以 √2），其余为 0。"],
    answer="[[1, 0, 0], [0.330, 0.670, 0], [0.248, 0.248, 0.503]]：对角线右上方全是 0。",
    stub="answer_6 = None   # 保留三位小数即可，例如 [[1, 0, 0], [0, 1, 0], [0, 0, 1]]",
    filled="answer_6 = [[1, 0, 0], [0.330, 0.670, 0], [0.248, 0.248, 0.503]]",
)

_P7, _W7 = [0.6, 0.3, 0.1], ["电影", "音乐", "香蕉"]
q7 = NumberExercise(
    "18.7", "分布 [电影 0.6, 音乐 0.3, 香蕉 0.1]：贪心选的词、top-k（k = 2）和 top-p（p = 0.8）后的概率",
    expected=(_W7[greedy(_P7)], top_k_filter(_P7, 2), top_p_filter(_P7, 0.8)), tol=2e-3,
    wrong=[(("电影", [0.6, 0.3, 0.0], [0.6, 0.3, 0.0]), "留下的候选要重新归一化，让概率加起来等于 1。"),
           (("电影", [2 / 3, 1 / 3, 0.0], [1.0, 0.0, 0.0]),
            "top-p 要一直累加到至少 0.8：0.6 还不够，加上“音乐”到 0.9 才停。")],
    hints=["贪心选概率最大的词。", "top-k、top-p 都是先决定留下哪些词，再把留下的概率除以它们的和。"],
    answer="贪心“电影”；top-k 留电影、音乐 → [2/3, 1/3, 0]；top-p 累加 0.6、0.9 才到 0.8 → 也是 [2/3, 1/3, 0]。",
    stub='answer_7 = None   # 概率保留三位小数即可，例如 ("香蕉", [1, 0, 0], [1, 0, 0])',
    filled='answer_7 = ("电影", [0.667, 0.333, 0], [0.667, 0.333, 0])',
)

_prf8 = entity_prf([tags_to_spans(["B-PER", "O", "B-ORG", "I-ORG", "O"])],
                   [tags_to_spans(["B-PER", "O", "B-ORG", "O", "O"])])
q8 = NumberExercise(
    "18.8", "标注 B-PER O B-ORG I-ORG O、预测 B-PER O B-ORG O O：严格实体级的 (P, R, F1)",
    expected=(_prf8["precision"], _prf8["recall"], _prf8["f1"]), tol=2e-3,
    wrong=[((0.0, 0.0, 0.0), "“小王”这个 PER 类型、边界都对，算一个正确的实体。"),
           ((1.0, 1.0, 1.0), "“北京”和“北京 大学”边界不同，严格评价下不算对。"),
           ((0.8, 0.8, 0.8), "这是按词（token）算的准确率 4/5；实体级要整块比较。")],
    hints=["先列出两边的实体：标注 {小王 PER，北京大学 ORG}，预测 {小王 PER，北京 ORG}。",
           "P = 对的 / 预测的个数，R = 对的 / 标注的个数。"],
    answer="对 1 个、预测 2 个、标注 2 个：P = R = F1 = 0.5。",
    stub="answer_8 = None   # 保留三位小数即可，例如 (1.0, 1.0, 1.0)",
    filled="answer_8 = (0.5, 0.5, 0.5)",
)

# ---- q9、q10：实验的规矩 ------------------------------------------------------------
q9 = ExplainExercise(
    "18.9", "把训练集、验证集、测试集合在一起建词表和 IDF，理由是“反正没用标签”，问题在哪里？",
    hints=["词表和 IDF 是不是也从数据里“学”出来的？"],
    answer="词表和 IDF 也是从数据里学来的统计量：用了验证集和测试集，模型就提前知道了哪些词会在“没见过的数据”里"
           "出现、出现得多频繁，分数会比真实部署时乐观。本章有 4940 个词只在验证集或测试集出现过，按训练集建表时它们"
           "都是 <UNK>，这才和真实使用时遇到新词的情况一致。不用标签并不等于不泄漏信息。",
)

q10 = ChoiceExercise(
    "18.10", "看完测试集的混淆矩阵后把阈值从 0.5 调到 0.45，测试准确率更高了，再报告的分数还算“测试集结果”吗？",
    options={"A": "算：测试集本来就是用来报告结果的",
             "B": "不算：阈值是照着测试集选的，测试集成了验证集；应在验证集上选阈值，测试集只用一次",
             "C": "算，只要阈值改得很小"},
    correct="B",
    reasons={"A": "测试集只能报告，不能参与选择；用它挑了阈值，它就不再“没见过”，分数偏乐观。",
             "C": "改多改少都一样：只要是看了测试集才做的选择，测试集就参与了选择。"},
    hints=["阈值和学习率一样，是一个要“选”的设置。选设置用哪一份数据？"],
    answer="B。阈值按测试集选出，测试集就成了验证集，新分数偏乐观。应在验证集上选阈值，测试集只报告一次；"
           "已经看过测试集又改了方法，要如实说明，最好另找一份从没用过的数据评估。",
    stub='answer_10 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_10 = "B"',
)


# ---- q11：带 padding 的平均 ---------------------------------------------------------
def _mean_ref(vectors, mask):
    return mean_pool(vectors, mask)


def _mean_padded_len(vectors, mask):  # 分母是补齐后的长度
    v, m = np.asarray(vectors, float), np.asarray(mask)
    return (v * m[..., None]).sum(axis=-2) / v.shape[-2]


def _mean_batch_total(vectors, mask):  # 分母是整批的真实 token 总数
    v, m = np.asarray(vectors, float), np.asarray(mask)
    return (v * m[..., None]).sum(axis=-2) / m.sum()


def _mean_keeps_pad(vectors, mask):  # 分母对了，分子却把 <PAD> 的向量也加了进去
    v, m = np.asarray(vectors, float), np.asarray(mask)
    return v.sum(axis=-2) / m.sum(axis=-1, keepdims=True)


def _mean_wrong_axis(vectors, mask):  # 沿特征那一维求和
    v, m = np.asarray(vectors, float), np.asarray(mask)
    return (v * m[..., None]).sum(axis=-1) / m.sum(axis=-1, keepdims=True)


_SHORT = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
_BATCH = np.array([[[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]],     # 电影 好看 <PAD>
                   [[0.0, 1.0], [-1.0, 0.0], [1.0, 0.0]]])   # 电影 不 好看
_BATCH_MASK = np.array([[True, True, False], [True, True, True]])
_PAD9 = _BATCH.copy()
_PAD9[0, 2] = [9.0, -9.0]


def _mean_random(rng):
    cases = []
    for b, t, d in ((1, 4, 3), (3, 5, 2), (4, 6, 4)):
        lengths = rng.integers(1, t + 1, size=b)
        mask = np.arange(t) < lengths[:, None]
        cases.append(Case((rng.normal(size=(b, t, d)), mask)))   # <PAD> 位置也是随机数
    return cases


q11 = FunctionExercise(
    "18.11", "实现带 padding 的平均：只平均真实 token，分母是每句的真实长度",
    name="my_masked_mean", reference=_mean_ref,
    cases=[Case((_SHORT, np.array([True, True, False])), note="18.3 节的短句，应得 [0.5, 0.5]"),
           Case((_BATCH, _BATCH_MASK), note="短句和长句在同一批"),
           Case((_PAD9, _BATCH_MASK), note="<PAD> 的向量不是 0"),
           Case((_BATCH, np.array([[True, False, False], [True, True, True]])), note="有一句只有 1 个真实 token"),
           Case((_BATCH, np.array([[False, False, False], [True, True, True]])),
                note="有一句全是 <PAD>：平均值无定义，应抛出 ValueError")],
    random_cases=_mean_random,
    mistakes=[Mistake("分母用了补齐后的长度；应除以每句真实 token 的个数（mask 里 True 的个数）。", _mean_padded_len),
              Mistake("分母用了整批的真实 token 总数；每句要各自数自己的真实 token。", _mean_batch_total),
              Mistake("<PAD> 位置的向量也被加进了分子：先用 mask 把它们乘成 0（<PAD> 的向量不一定是 0）。",
                      _mean_keeps_pad),
              Mistake("求和的方向不对：应沿 token 那一维（倒数第二维）求和，保留特征那一维。", _mean_wrong_axis)],
    stub='''def my_masked_mean(vectors, mask):
    """vectors：形状 (T, d) 的一句话，或 (B, T, d) 的一批句子（<PAD> 位置的向量可以是任意数）；
    mask：形状 (T,) 或 (B, T) 的布尔数组，True 表示真实 token。
    返回每句真实 token 向量的平均：形状 (d,) 或 (B, d) 的 numpy 数组。
    某一句的 mask 全为 False 时平均值无定义：抛出 ValueError。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_masked_mean(vectors, mask):
    v = np.asarray(vectors, dtype=float)
    m = np.asarray(mask, dtype=bool)
    counts = m.sum(axis=-1, keepdims=True)           # 每句的真实 token 数
    if np.any(counts == 0):
        raise ValueError("有一句没有真实 token，平均值无定义")
    return (v * m[..., None]).sum(axis=-2) / counts  # <PAD> 位置乘成 0，再按真实长度相除
''',
    hints=["分两步：先把 <PAD> 位置的向量乘成 0（m[..., None] 让 mask 多出特征那一维），再除以真实 token 数。",
           "一句和一批用同一套写法：沿倒数第二维（axis=-2）求和，mask 沿最后一维（axis=-1）数 True。",
           "数出来的个数有 0 时先 raise ValueError，别让它变成 0/0。"],
)


# ---- q12：混淆矩阵 -------------------------------------------------------------------
def _cm_ref(y_true, y_pred, labels):
    return confusion_matrix(y_true, y_pred, labels=labels)


def _cm_count(y_true, y_pred, rows):
    idx = {v: i for i, v in enumerate(rows)}
    out = np.zeros((len(rows), len(rows)), dtype=int)
    for t, p in zip(y_true, y_pred):
        out[idx[t], idx[p]] += 1
    return out


def _cm_sorted_labels(y_true, y_pred, labels):  # 不按 labels 给的顺序，而是自己排序
    return _cm_count(y_true, y_pred, sorted(labels))


def _cm_seen_labels(y_true, y_pred, labels):  # 只用数据里出现过的类别
    return _cm_count(y_true, y_pred, sorted(set(list(y_true) + list(y_pred))))


def _cm_transposed(y_true, y_pred, labels):  # 行是预测、列是真实
    return _cm_count(y_true, y_pred, labels).T


def _cm_random(rng):
    cases = []
    for k, n in ((2, 6), (3, 12), (4, 25)):
        cases.append(Case((rng.integers(0, k, size=n).tolist(), rng.integers(0, k, size=n).tolist(),
                           list(range(k)))))
    return cases


_Y_TOY = [1, 1, 0, 0, 0, 1]          # 六条教学评论 A—F 的真实标签

q12 = FunctionExercise(
    "18.12", "实现混淆矩阵：C[i, j] = 真实为 labels[i]、预测为 labels[j] 的样本数",
    name="my_confusion_matrix", reference=_cm_ref,
    cases=[Case(([1, 0, 1, 1], [1, 1, 1, 0], [0, 1])),
           Case((_Y_TOY, [1] * 6, [0, 1]), note="18.2 节：全判好评"),
           Case(([0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 2]), note="labels 里有一个从没出现的类别：那一行、一列全是 0"),
           Case(([1, 0, 1, 1], [1, 1, 1, 0], [1, 0]), note="labels 的顺序是 [1, 0]：行列都按这个顺序"),
           Case((["好评", "差评", "中性", "好评"], ["好评", "中性", "中性", "差评"], ["差评", "中性", "好评"]),
                note="字符串标签"),
           Case(([1], [0], [0, 1]), note="只有一个样本")],
    random_cases=_cm_random,
    mistakes=[Mistake("行和列弄反了：行是真实标签，列是预测标签。", _cm_transposed),
              Mistake("行、列要按 labels 给的顺序排，不要自己重新排序。", _cm_sorted_labels),
              Mistake("只用了数据里出现过的类别；labels 里的每个类别都要有一行一列（没出现的全是 0）。",
                      _cm_seen_labels)],
    stub='''def my_confusion_matrix(y_true, y_pred, labels):
    """y_true、y_pred：等长的标签列表（整数或字符串）；labels：全部类别的列表，决定行、列的顺序。
    返回形状 (len(labels), len(labels)) 的整数 numpy 数组 C：
    C[i, j] = 真实为 labels[i]、被预测为 labels[j] 的样本数（行 = 真实，列 = 预测）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_confusion_matrix(y_true, y_pred, labels):
    index = {c: i for i, c in enumerate(labels)}   # 类别 → 行号/列号
    C = np.zeros((len(labels), len(labels)), dtype=int)
    for t, p in zip(y_true, y_pred):
        C[index[t], index[p]] += 1
    return C
''',
    hints=["先建一个字典 {类别: 编号}，编号按 labels 的顺序。",
           "从全 0 的 k × k 数组开始，每个样本在 [真实的编号, 预测的编号] 那一格加 1。"],
)


# ---- q13：宏 F1 -------------------------------------------------------------------
def _f1_ref(y_true, y_pred, labels):
    return macro_prf(y_true, y_pred, labels=labels)["f1"]


def _counts(y_true, y_pred, labels):
    t, p = np.asarray(y_true), np.asarray(y_pred)
    tp = np.array([np.sum((t == c) & (p == c)) for c in labels], dtype=float)
    pred = np.array([np.sum(p == c) for c in labels], dtype=float)
    true = np.array([np.sum(t == c) for c in labels], dtype=float)
    return tp, pred, true


def _safe(a, b):
    return np.divide(a, b, out=np.zeros_like(a), where=b > 0)


def _f1_accuracy(y_true, y_pred, labels):
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def _f1_weighted(y_true, y_pred, labels):  # 按每类真实条数加权
    tp, pred, true = _counts(y_true, y_pred, labels)
    p, r = _safe(tp, pred), _safe(tp, true)
    f1 = _safe(2 * p * r, p + r)
    return float((f1 * true).sum() / true.sum())


def _f1_nan(y_true, y_pred, labels):  # 分母为零时得到 NaN
    tp, pred, true = _counts(y_true, y_pred, labels)
    with np.errstate(all="ignore"):
        p, r = tp / pred, tp / true
        return float(np.mean(2 * p * r / (p + r)))


def _f1_skip_undefined(y_true, y_pred, labels):  # 分母为零的类别干脆不参与平均
    tp, pred, true = _counts(y_true, y_pred, labels)
    with np.errstate(all="ignore"):
        p, r = tp / pred, tp / true
        f1 = 2 * p * r / (p + r)
    f1 = np.where((p == 0) & (r == 0), 0.0, f1)
    return float(np.nanmean(f1)) if np.isfinite(f1).any() else 0.0


def _f1_of_means(y_true, y_pred, labels):  # 先平均 P、R，再取调和平均
    tp, pred, true = _counts(y_true, y_pred, labels)
    p, r = _safe(tp, pred).mean(), _safe(tp, true).mean()
    return float(2 * p * r / (p + r)) if p + r > 0 else 0.0


def _f1_random(rng):
    cases = []
    for k, n in ((2, 8), (3, 10), (4, 20)):
        cases.append(Case((rng.integers(0, k, size=n).tolist(), rng.integers(0, k, size=n).tolist(),
                           list(range(k)))))
    return cases


q13 = FunctionExercise(
    "18.13", "实现宏 F1：每个类别的 F1 的简单平均，分母为零时那一项记 0",
    name="my_macro_f1", reference=_f1_ref,
    cases=[Case((_Y_TOY, [1] * 6, [0, 1]), note="18.2 节：全判好评，应得 0.333"),
           Case(([1, 0, 1, 1], [1, 1, 1, 0], [0, 1]), note="两类 F1 为 0 与 0.667"),
           Case(([0, 1, 2, 2], [0, 1, 2, 2], [0, 1, 2]), note="全部判对"),
           Case(([0, 0, 1, 1, 2, 2], [0, 1, 1, 2, 2, 0], [0, 1, 2]), note="三类"),
           Case(([0, 0, 1, 2, 2, 2, 2], [0, 0, 0, 2, 2, 1, 2], [0, 1, 2]), note="三类，各类条数不同"),
           Case(([0, 1, 0, 1], [0, 1, 1, 1], [0, 1, 2]), note="labels 里有一个从没出现的类别：它的 F1 记 0，也参与平均")],
    random_cases=_f1_random,
    mistakes=[Mistake("你按每类的真实条数加了权；宏平均让每个类别同等重要，直接求平均。", _f1_weighted),
              Mistake("这是准确率；宏 F1 要先算每个类别的 F1，再简单平均。", _f1_accuracy),
              Mistake("某类从没被预测过时精确率是 0/0，得到了 NaN；约定分母为零时那一项记 0。", _f1_nan),
              Mistake("分母为零的类别也要参与平均（它的 F1 记 0），不能跳过。", _f1_skip_undefined),
              Mistake("宏 F1 是各类 F1 的平均，不是“宏 P 与宏 R 的调和平均”。", _f1_of_means)],
    stub='''def my_macro_f1(y_true, y_pred, labels):
    """y_true、y_pred：等长的标签列表；labels：全部类别的列表（每个类别都参与平均）。
    返回一个数：宏 F1 = 各类 F1 的简单平均，F1 = 2PR / (P + R)。
    约定：精确率、召回率、F1 的分母为 0 时，那一项记为 0。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_macro_f1(y_true, y_pred, labels):
    t, p = np.asarray(y_true), np.asarray(y_pred)
    f1s = []
    for c in labels:
        tp = np.sum((t == c) & (p == c))
        n_pred, n_true = np.sum(p == c), np.sum(t == c)
        prec = tp / n_pred if n_pred > 0 else 0.0
        rec = tp / n_true if n_true > 0 else 0.0
        f1s.append(2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0)
    return float(np.mean(f1s))
''',
    hints=["对每个类别 c 数三样：判对的 tp、判成 c 的个数、真实是 c 的个数。",
           "P = tp / 判成 c 的个数，R = tp / 真实是 c 的个数；分母为 0 就记 0。",
           "F1 的分母 P + R 也可能是 0，同样记 0。最后对所有类别的 F1 求简单平均。"],
)


# ---- q14：实验——一个新候选走一遍选择规则 ------------------------------------------------------
_FAMILY = "TF-IDF 逻辑回归"          # 本章选中的那一族：练习只换它的起始学习率
F1_SLACK = 0.008                      # 网格点之间 3 个种子的均值可能比两端都高（实测最多约 0.004），放宽两倍
SAME_MARGIN = 0.02                    # 本章规则里“实际上一样”的最大差距


@functools.lru_cache(maxsize=1)
def _selection_record() -> dict:
    """记录 experiments_reviews 里这一族的学习率与验证宏 F1 均值、均值最高的候选（规则选中的那个）的均值，
    以及这一族每个候选对它的差的区间半宽（compare：3 个种子 × 验证评论，样本配对）。"""
    from ..compare import binary_counts, compare, macro_f1_from_counts, unpack_rows
    from ..datasets import load_reviews
    from ..spread import load_record, record_path
    rec = load_record(record_path("experiments_reviews"))
    s, res = rec["settings"], rec["results"]
    key = lambda m, setting: f"{m} / {setting}"  # noqa: E731
    top = max((key(m, setting) for m, setting, _ in s["grid"]), key=lambda k: res[k]["val_f1"].mean)
    family = {lr: key(m, setting) for m, setting, lr in s["grid"] if m == _FAMILY}
    if not top.startswith(_FAMILY):
        raise RuntimeError(f"记录里均值最高的是 {top}，不是 {_FAMILY}：这道题的说法要跟着改")
    y_val = np.array([r.label for r in load_reviews(tokenize=False)["validation"]])
    counts = {k: binary_counts(y_val, unpack_rows(res[k]["val_pred"], len(y_val))) for k in family.values()}
    half = [(c.hi - c.lo) / 2 for c in (compare(counts[k], counts[top], stat=macro_f1_from_counts)
                                        for k in family.values())]
    return {"lrs": tuple(sorted(family)), "f1": {lr: res[k]["val_f1"].mean for lr, k in family.items()},
            "top": res[top]["val_f1"].mean, "top_lr": next(lr for lr, k in family.items() if k == top),
            "half": (min(half), max(half))}


def _lr_neighbours(lr: float) -> tuple:
    lrs = _selection_record()["lrs"]
    return max(v for v in lrs if v < lr), min(v for v in lrs if v > lr)


def _validate_lr(lr):
    x = as_number(lr)
    if x is None or not math.isfinite(x):
        return f"学习率要是一个数（如 0.1），收到 {describe(lr)}。"
    lrs = _selection_record()["lrs"]
    if not lrs[0] < x < lrs[-1]:
        return (f"学习率要在 {lrs[0]:g} 与 {lrs[-1]:g} 之间（不含两端），收到 {x:g}：范围由记录里相邻的两个学习率推出，"
                "网格之外没有依据。")
    if any(math.isclose(x, v, rel_tol=1e-9) for v in lrs):
        listed = "、".join(f"{v:g}" for v in lrs)
        return f"学习率 {x:g} 记录里已经有了（记录有 {listed}）；换一个记录里没有的值，如 0.1 或 0.3。"
    return None


def _lr_band(lr) -> dict:
    rec = _selection_record()
    vals = [rec["f1"][v] for v in _lr_neighbours(float(lr))]
    f1_lo, f1_hi = min(vals) - F1_SLACK, max(vals) + F1_SLACK
    h_lo, h_hi = rec["half"][0] / 2, rec["half"][1] * 1.5
    d_lo, d_hi = f1_lo - rec["top"], f1_hi - rec["top"]
    return {"val_f1": (f1_lo, f1_hi), "lo": (d_lo - h_hi, d_hi - h_lo), "hi": (d_lo + h_lo, d_hi + h_hi)}


def _lr_outcome(lr, result) -> str:
    if float(result["val_f1"]) > _selection_record()["top"]:
        return "A"
    lo, hi = float(result["lo"]), float(result["hi"])
    return "B" if lo <= 0 <= hi and lo >= -SAME_MARGIN else "C"


_LR_RUN = """    from nlpbook import metrics
    from nlpbook.compare import binary_counts, compare, macro_f1_from_counts, unpack_rows
    from nlpbook.datasets import load_reviews
    from nlpbook.linear import fit
    from nlpbook.sparse import CountMatrix
    from nlpbook.spread import load_record, record_path
    from nlpbook.text import Vocab, idf
    rec = load_record(record_path("experiments_reviews"))       # 第 6 步的记录：设置、种子、逐条预测
    S, res = rec["settings"], rec["results"]
    reviews = load_reviews()
    train_docs = [list(r.tokens) for r in reviews["train"]]
    vocab, idf_table = Vocab.build(train_docs, min_count=2), idf(train_docs)      # 只在训练集上拟合
    X_train = CountMatrix.from_docs(train_docs, vocab, weights=idf_table)
    X_val = CountMatrix.from_docs([list(r.tokens) for r in reviews["validation"]], vocab, weights=idf_table)
    y_train = np.array([r.label for r in reviews["train"]])
    y_val = np.array([r.label for r in reviews["validation"]])
    preds = np.array([fit(X_train, y_train, lr=lr_14, seed=s, **S["logistic_regression"]).predict(X_val)
                      for s in rec["seeds"]])                        # 3 个种子，和记录里每个候选一样
    f1s = [metrics.macro_prf(y_val, p)["f1"] for p in preds]
    picked = "TF-IDF 逻辑回归 / 学习率 0.2"                          # 本章按规则选中的候选
    d = compare(binary_counts(y_val, preds), binary_counts(y_val, unpack_rows(res[picked]["val_pred"], len(y_val))),
                names=(f"TF-IDF（学习率 {lr_14:g}）", "TF-IDF（学习率 0.2）"), stat=macro_f1_from_counts)
    print(f"各种子的验证宏 F1：{', '.join(f'{v:.4f}' for v in f1s)}，均值 {np.mean(f1s):.4f}"
          f"（选中者 {res[picked]['val_f1'].mean:.4f}）")
    print(d)
    result_14 = {"val_f1": float(np.mean(f1s)), "lo": d.lo, "hi": d.hi}
"""

_LR_STUB_HEAD = (
    'prediction_14 = None   # 先预测，跑之前填好："A" 它会被选中；"B" 不会被选中，但按规则算“一样好”；'
    '"C" 不会被选中，也不算一样好\n'
    "lr_14 = None           # 你要试的 TF-IDF 逻辑回归起始学习率：0.05 与 0.5 之间、记录里没有的数"
    "（记录有 0.05、0.2、0.5），如 0.1\n"
    "result_14 = None\n"
    "if lr_14 is not None:   # 单核约 10 秒：准备特征，3 个种子各训练一次，再与选中者配对比较\n")
_LR_FILLED_HEAD = 'prediction_14 = "A"\nlr_14 = 0.1\nresult_14 = None\nif lr_14 is not None:\n'
_LR_TAIL = 'answer_14 = {"prediction": prediction_14, "setting": lr_14, "result": result_14}\n'

q14 = ExperimentExercise(
    "18.14", "给 TF-IDF 逻辑回归换一个记录里没有的学习率，按本章写好的规则，它会被选中吗？",
    options={"A": "会被选中：它的验证宏 F1 均值超过现在的 0.847，成了新的最高者",
             "B": "不会被选中，但按规则和现在的选择“一样好”（差的区间含 0，下端不低于 −0.02）",
             "C": "不会被选中，也不算一样好（差的区间整个在 0 以下，或下端低于 −0.02）"},
    outcome=_lr_outcome,
    reasons={"A": "起始学习率在 0.1 附近时，3 个种子的均值约 0.850—0.851，比记录里两端（0.05 的 0.844、0.2 的 0.847）"
                  "都高：三个点的网格没踩到峰顶。规则第 1 条取均值最高者；它和学习率 0.2 同样简单，所以改选它。"
                  "可它与 0.2 的差的区间含 0——被选中不等于确认更好；多试一个候选再取最大值，挑出来的验证分数也更偏乐观，"
                  "这正是测试集要留到最后的原因。",
             "B": "它和学习率 0.2 分不开，差的下端也不低于 −0.02，按规则算“一样好”。但规则第 2 条只在更简单的候选里改选；"
                  "两者同是 TF-IDF 逻辑回归，均值更高的 0.2 留下。“一样好”不等于“换上它”。",
             "C": "学习率偏大（约 0.35 以上）时，前几轮的步子太大，均值掉到 0.84 以下，与 0.2 的差整个在 0 以下："
                  "分得开，更低。区间虽含 0、下端却低于 −0.02 时同样不算一样好——那只是“还说不清”。"},
    validate=_validate_lr,
    band=_lr_band,
    basis="val_f1：记录里 TF-IDF 逻辑回归与它相邻的两个学习率的验证宏 F1（3 个种子的均值）之间，两边各放宽 0.008；"
          "lo、hi：这个范围减去选中者的均值 0.847，再减、加记录里这一族三个候选对选中者的区间半宽"
          "（最小者的一半到最大者的 1.5 倍）",
    hints=["只改 lr_14：特征、轮数、批大小、种子都照记录（S['logistic_regression']、rec['seeds']）。",
           "先看记录：学习率 0.05、0.2、0.5 的均值是 0.844、0.847、0.830。你的学习率夹在哪两个之间？峰顶一定落在网格点上吗？",
           "判断照本章的规则：均值最高者先入选；只有更简单的候选和它“一样好”时才改选。"],
    answer="以学习率 0.1 为例：三个种子的验证宏 F1 是 0.852、0.850、0.850，均值 0.851，比选中的 0.847 高 0.003，"
           "差的区间约 [−0.004, +0.010]，含 0。按规则它成了均值最高者，又和 0.2 同样简单，于是改选它（A）。"
           "但这不说明它更好：区间含 0；多试一个候选再挑最大，挑出来的验证分数更偏乐观。"
           "试 0.3 得均值 0.843、区间约 [−0.011, +0.001]：一样好，但不换人（B）；试 0.4 得 0.836、约 [−0.018, −0.005]："
           "分得开，更低（C）。",
    stub=_LR_STUB_HEAD + _LR_RUN + _LR_TAIL,
    filled=_LR_FILLED_HEAD + _LR_RUN + _LR_TAIL,
)
