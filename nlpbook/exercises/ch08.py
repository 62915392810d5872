"""第 8 章的练习：RNN。

q1 选择：读 100 个词，要不要为每个词准备一套更新权重（课文 8.5 节后的小练习）
q2 选择：记事本的系数换成 1，“猫追狗”和“狗追猫”的最终记录还不同吗
q3 填数：每步乘 0.5，至少再读几个词，第一个词的影响才降到 1% 以下
q4 实现：my_toy_record(features, decay)——8.2 节的一格记事本
q5 实现：my_rnn_cell(x, h_prev, Wx, Wh, b)——8.3 节的一步 RNN
q6 实现：my_run_rnn(xs, Wx, Wh, b)——用同一个单元从左到右读完一整句
q7 选择：记录里三个种子再训练一轮，平均结果会怎样（先预测，答案与记录对照）
"""
from __future__ import annotations

import numpy as np

from ..rnn import init_cell_params, rnn_cell, run_rnn, toy_record
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]

q1 = ChoiceExercise(
    "08.1", "RNN 读一段 100 个词的文本，需要为每个词准备一套不同的更新权重吗？",
    options={"A": "需要：100 个位置，就要 100 套 W_x、W_h、b",
             "B": "不需要：每一步共用同一套 W_x、W_h、b，不同的只是输入的词向量和带进来的状态",
             "C": "只需要为词表里的每个词各准备一套"},
    correct="B",
    reasons={"A": "那样参数会随句子变长而增多，也读不了比训练时更长的句子；8.3 节的单元读 3 个词和读 100 个词，"
                  "用的都是同样的 28 个数。",
             "C": "词和词的区别由查表得到的词向量 x_t 表达；更新规则 W_x、W_h、b 对所有词、所有位置都是同一套。"},
    hints=["回到 8.3 节：run_rnn 读“猫追狗”时，三步调用的 rnn_cell 用的是不是同一组参数？"],
    answer="B。所有时间步共享 W_x、W_h、b；每一步变的只是输入 x_t 和上一步的状态 h_(t-1)。"
           "所以参数个数与句子长短无关，同一个模型能读任意长的句子。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = ChoiceExercise(
    "08.2", "记事本的系数换成 1，“猫追狗”和“狗追猫”的最终记录还不同吗？",
    options={"A": "还不同：读的顺序不一样，记录就不一样",
             "B": "相同，都是 3：系数为 1 时记录就是所有特征之和",
             "C": "相同，都是 1：记录变成了特征的平均"},
    correct="B",
    reasons={"A": "按顺序读并不自动保留顺序：系数为 1 时每个特征原样加进来，1+0+2 和 2+0+1 一样大。",
             "C": "系数为 1 时每一步只是加上当前特征，没有除以词数：记录是和 3，不是平均 1。"},
    hints=["按新规则把“猫追狗”手算一遍：0×1+1，再 ×1+0，再 ×1+2。",
           "系数不是 1 时，越早的词被乘的次数越多——位置就是这样影响结果的。系数为 1 呢？"],
    answer="B。系数为 1 时，新记录 = 旧记录 + 当前特征，最终记录就是特征之和：1+0+2 = 2+0+1 = 3，"
           "又回到了 8.1 节“加法不管顺序”。只有系数不等于 1 时，越早的词被乘的次数越多，顺序才会留在结果里。",
    stub='answer_2 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_2 = "B"',
)

q3 = NumberExercise(
    "08.3", "每步乘 0.5：第一个词写进记录后，至少再读几个词，它的那一份才降到 1% 以下？",
    expected=7, tol=0,
    wrong=[(6, "0.5⁶ ≈ 0.0156，还在 1% 以上，要再读一个词。"),
           (8, "0.5⁷ ≈ 0.0078 已经低于 1%，不用读到第 8 个。"),
           (10, "0.5¹⁰ ≈ 0.000977 是降到 0.1% 以下的步数；1% 用不了这么多步。")],
    hints=["再读 k 个词后，第一个词的那一份是 0.5 的 k 次方（decay_influence(0.5, k)）。",
           "从 k = 1 开始依次算 0.5ᵏ，找第一个小于 0.01 的 k。"],
    answer="0.5⁶ ≈ 0.0156 > 0.01，0.5⁷ ≈ 0.0078 < 0.01，所以至少再读 7 个词。",
    stub="answer_3 = None   # 填一个整数",
    filled="answer_3 = 7",
)


# ---- q4：一格的记事本 ----------------------------------------------------------
def _record_ref(features, decay=0.5):
    return toy_record(features, decay=decay)


def _record_add_then_multiply(features, decay=0.5):
    rec, out = 0.0, []
    for v in features:
        rec = (rec + v) * decay
        out.append(rec)
    return out


def _record_before_update(features, decay=0.5):
    rec, out = 0.0, []
    for v in features:
        out.append(rec)
        rec = rec * decay + v
    return out


def _record_last_only(features, decay=0.5):
    rec = 0.0
    for v in features:
        rec = rec * decay + v
    return rec


def _record_fixed_half(features, decay=0.5):  # 只在 decay 不是 0.5 的例子上出错
    rec, out = 0.0, []
    for v in features:
        rec = rec * 0.5 + v
        out.append(rec)
    return out


def _record_random(rng):
    cases = []
    for n, decay in ((2, 0.3), (5, 0.8), (12, 1.2)):
        feats = [float(v) for v in np.round(rng.uniform(-2, 2, size=n), 2)]
        cases.append(Case((feats,), {"decay": decay}))
    return cases


q4 = FunctionExercise(
    "08.4", "实现 8.2 节的记事本：新记录 = 旧记录 × decay + 当前词的特征",
    name="my_toy_record", reference=_record_ref,
    cases=[Case(([1, 0, 2],), note="猫追狗"),
           Case(([2, 0, 1],), note="狗追猫"),
           Case(([],), note="空句子：返回空列表"),
           Case(([3],), note="只有一个词"),
           Case(([1, 0, 2],), {"decay": 1.0}, note="系数 1（练习 2）"),
           Case(([2, 0, 1],), {"decay": 0.9}, note="系数 0.9")],
    random_cases=_record_random,
    mistakes=[Mistake("顺序反了：先用旧记录乘 decay，再加当前词的特征（你先加后乘了）。", _record_add_then_multiply),
              Mistake("你记下的是更新前的旧记录；应在更新之后，把新记录放进结果。", _record_before_update),
              Mistake("要返回读完每个词之后的记录（一个列表），不只是最后一个数。", _record_last_only),
              Mistake("系数写死成了 0.5：要用参数 decay。", _record_fixed_half)],
    stub='''def my_toy_record(features, decay=0.5):
    """features：每个词的特征（数的列表）；decay：每步乘的系数。记录从 0 开始。
    返回列表：读完每个词之后的记录，长度等于词数（空句子返回空列表）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_toy_record(features, decay=0.5):
    record, out = 0.0, []
    for v in features:
        record = record * decay + v
        out.append(record)
    return out
''',
    hints=["用一个变量存当前的记录，初值 0；逐个读特征。",
           "每读一个特征：record = record * decay + v，然后把新的 record 追加到结果里。"],
)


# ---- q5：一步 RNN ---------------------------------------------------------------
# 8.3 节的手算例子，写成包的约定（按行）：Wx = 课文 W_x 的转置
_X = np.array([1.0, 2.0, 0.5])
_H = np.array([0.2, -0.1])
_WX = np.array([[0.5, -0.4, 0.2], [0.3, 0.1, -0.6]]).T
_WH = np.array([[0.4, 0.1], [-0.3, 0.6]]).T
_B = np.array([0.0, 0.1])


def _cell_ref(x, h_prev, Wx, Wh, b):
    return rnn_cell(x, h_prev, Wx, Wh, b)


def _cell_no_bias(x, h_prev, Wx, Wh, b):
    return np.tanh(np.asarray(x) @ Wx + np.asarray(h_prev) @ Wh)


def _cell_sigmoid(x, h_prev, Wx, Wh, b):
    return 1 / (1 + np.exp(-(np.asarray(x) @ Wx + np.asarray(h_prev) @ Wh + b)))


def _cell_wh_transposed(x, h_prev, Wx, Wh, b):  # h_prev 全 0 时看不出来
    return np.tanh(np.asarray(x) @ Wx + np.asarray(h_prev) @ np.asarray(Wh).T + b)


def _cell_exp_tanh(x, h_prev, Wx, Wh, b):  # 分数很大时 inf/inf = NaN
    a = np.asarray(x) @ Wx + np.asarray(h_prev) @ Wh + b
    return (np.exp(a) - np.exp(-a)) / (np.exp(a) + np.exp(-a))


def _cell_random(rng):
    cases = []
    for d_in, d_h, batch in ((2, 3, None), (4, 4, None), (3, 5, 3)):
        shape_x = (d_in,) if batch is None else (batch, d_in)
        shape_h = (d_h,) if batch is None else (batch, d_h)
        cases.append(Case((rng.normal(size=shape_x), rng.normal(size=shape_h) * 0.5,
                           rng.normal(size=(d_in, d_h)) * 0.5, rng.normal(size=(d_h, d_h)) * 0.5,
                           rng.normal(size=d_h) * 0.1)))
    return cases


q5 = FunctionExercise(
    "08.5", "实现一步 RNN：h = tanh(x Wx + h_prev Wh + b)（包的按行约定）",
    name="my_rnn_cell", reference=_cell_ref,
    cases=[Case((_X, np.zeros(2), _WX, _WH, _B), note="读第一个词：h_prev 全是 0"),
           Case((_X, _H, _WX, _WH, _B), note="8.3 节手算的一步"),
           Case((np.array([800.0, -600.0, 400.0]), _H, _WX, _WH, _B), note="分数很大：tanh 饱和在 ±1"),
           Case((np.array([_X, -_X]), np.array([_H, _H]), _WX, _WH, _B), note="一批两句：x 形状 (2, 3)")],
    random_cases=_cell_random,
    mistakes=[Mistake("忘了加偏置 b。", _cell_no_bias),
              Mistake("RNN 的状态用 tanh（取值 −1 到 1），你用的是 sigmoid。", _cell_sigmoid),
              Mistake("旧状态一项写成了 Wh @ h_prev（课文的列向量写法）；包的约定按行算，是 h_prev @ Wh。"
                      "h_prev 全 0 时两者一样，所以第一步看不出来。", _cell_wh_transposed),
              Mistake("用 exp 自己拼 tanh，分数很大时 exp 溢出成 inf，inf/inf 得到 NaN；直接用 np.tanh。",
                      _cell_exp_tanh)],
    stub='''def my_rnn_cell(x, h_prev, Wx, Wh, b):
    """x：当前词的向量，形状 (d_in,) 或一批 (batch, d_in)；h_prev：上一步的状态 (d_h,) 或 (batch, d_h)。
    Wx (d_in, d_h)、Wh (d_h, d_h)、b (d_h,)，按包的约定按行相乘（Wx 是课文 W_x 的转置）。
    返回新状态 tanh(x @ Wx + h_prev @ Wh + b)，形状与 h_prev 相同。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_rnn_cell(x, h_prev, Wx, Wh, b):
    return np.tanh(x @ Wx + h_prev @ Wh + b)
''',
    hints=["三项相加：当前词 x @ Wx、旧状态 h_prev @ Wh、偏置 b，再整体过一次 tanh。",
           "用 @ 做矩阵乘法，一维向量和一批（二维）输入写法完全一样；tanh 直接用 np.tanh。"],
)


# ---- q6：读完一整句 ----------------------------------------------------------------
_P = init_cell_params("rnn", d_in=2, d_h=4, seed=0)            # 8.3 节那个单元
_EMB = np.random.default_rng(1).normal(size=(3, 2))            # 猫、追、狗 的 2 维词向量
_CAT_CHASES_DOG, _DOG_CHASES_CAT = _EMB[[0, 1, 2]], _EMB[[2, 1, 0]]


def _run_ref(xs, Wx, Wh, b):
    return run_rnn(xs, None, {"Wx": Wx, "Wh": Wh, "b": b})


def _run_last_only(xs, Wx, Wh, b):
    h = np.zeros(np.shape(Wh)[0])
    for x in xs:
        h = np.tanh(x @ Wx + h @ Wh + b)
    return h


def _run_old_state(xs, Wx, Wh, b):
    h, out = np.zeros(np.shape(Wh)[0]), []
    for x in xs:
        out.append(h)
        h = np.tanh(x @ Wx + h @ Wh + b)
    return np.array(out)


def _run_no_carry(xs, Wx, Wh, b):  # 每一步都从全 0 开始：只有一个词时看不出来
    h0 = np.zeros(np.shape(Wh)[0])
    return np.array([np.tanh(x @ Wx + h0 @ Wh + b) for x in xs])


def _run_backwards(xs, Wx, Wh, b):  # 从右往左读：只有一个词时看不出来
    h, out = np.zeros(np.shape(Wh)[0]), []
    for x in np.asarray(xs)[::-1]:
        h = np.tanh(x @ Wx + h @ Wh + b)
        out.append(h)
    return np.array(out[::-1])


def _run_random(rng):
    cases = []
    for T, d_in, d_h in ((4, 3, 2), (10, 2, 5), (30, 4, 4)):
        cases.append(Case((rng.normal(size=(T, d_in)), rng.normal(size=(d_in, d_h)) * 0.5,
                           rng.normal(size=(d_h, d_h)) * 0.5, rng.normal(size=d_h) * 0.1)))
    return cases


q6 = FunctionExercise(
    "08.6", "用同一个单元从左到右读完一整句，返回每一步的状态",
    name="my_run_rnn", reference=_run_ref,
    cases=[Case((_EMB[[0]], _P["Wx"], _P["Wh"], _P["b"]), note="只有一个词“猫”"),
           Case((_CAT_CHASES_DOG, _P["Wx"], _P["Wh"], _P["b"]), note="8.3 节的“猫追狗”"),
           Case((_DOG_CHASES_CAT, _P["Wx"], _P["Wh"], _P["b"]), note="8.3 节的“狗追猫”")],
    random_cases=_run_random,
    mistakes=[Mistake("要返回每一步的状态，形状 (T, d_h)，不只是最后一步的状态。", _run_last_only),
              Mistake("你记下的是更新前的旧状态（第一行是全 0）；应记下读完每个词之后的新状态。", _run_old_state),
              Mistake("状态没有传下去：每一步都要用上一步算出的 h，你的每一步都从全 0 开始（等于忘了 Wh 那一项）。",
                      _run_no_carry),
              Mistake("读的方向反了：从第一个词读到最后一个词，第 t 行是读完第 t 个词后的状态。", _run_backwards)],
    stub='''def my_run_rnn(xs, Wx, Wh, b):
    """xs：一句话的词向量，形状 (T, d_in)，第 t 行是第 t 个词；Wx (d_in, d_h)、Wh (d_h, d_h)、b (d_h,)。
    状态从全 0 开始，从左到右每读一个词更新一次：h = tanh(x @ Wx + h @ Wh + b)。
    返回形状 (T, d_h) 的数组：第 t 行是读完第 t 个词之后的状态。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_run_rnn(xs, Wx, Wh, b):
    h = np.zeros(Wh.shape[0])
    states = []
    for x in xs:
        h = np.tanh(x @ Wx + h @ Wh + b)
        states.append(h)
    return np.array(states)
''',
    hints=["先准备全 0 的状态 h（长度 d_h = Wh 的行数），再用 for 循环逐行读 xs。",
           "每一步都用同一组 Wx、Wh、b 更新 h（就是练习 5 的一步），更新之后把 h 放进列表，最后 np.array(列表)。"],
)

q7 = ChoiceExercise(
    "08.7", "记录里的三个种子都从第 2 轮停下的地方再训练一轮。到第 3 轮，三个种子的平均结果会怎样？",
    options={"A": "都变好：验证准确率的均值上升，验证损失的均值下降",
             "B": "训练损失的均值继续大降，验证损失的均值却略有升高；验证准确率的均值只降了一点，比种子之间的差别还小",
             "C": "基本不变：训练损失和验证损失两轮就已经收敛了"},
    correct="B",
    reasons={"A": "训练损失还在降，可模型越来越多地记住训练集里的个别评论，在没见过的评论上损失反而变大"
                  "（验证损失的均值 0.460 → 0.466）；准确率均值从 0.806 降到 0.801。",
             "C": "第 1 轮到第 2 轮，训练损失的均值从 0.670 降到 0.479，还在快速下降，离收敛还远。"},
    hints=["先看记录里第 1、2 轮：训练损失和验证损失各降了多少？两者的差距在变大还是变小？",
           "准确率只有三个种子：均值的小变化，要和种子之间差多少比一比。"],
    answer="B。三个种子的训练损失均值从 0.479 降到 0.313，验证损失的均值却从 0.460 略升到 0.466，两者的差距拉开到约 0.15："
           "模型在记训练集，这是过拟合开始的信号。验证准确率的均值从 0.806 变成 0.801，三个种子各降了 0.006、0.001、0.008，"
           "和种子之间的差别（标准差 0.006）差不多大——只看一个种子的准确率，分不清这是过拟合还是运气。"
           "实际训练要在验证集上挑结果最好的那一轮（早停）。",
    stub='answer_7 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_7 = "B"',
)
