"""第 10 章的练习：TextCNN。

q1 选择：宽度 3 的单层卷积，能让相距 20 个词的两个位置直接交互吗（课文 10.2 节后的小练习）
q2 填数：“不 太 好看”出现两次，核 1 最大池化后的值
q3 实现：my_conv1d(x, kernel)——10.2 节的标量一维卷积（步长 1、不补零）
q4 实现：my_conv_relu_max(x, kernels, bias)——多维词向量、多个核：卷积 → ReLU → 最大池化
q5 实现：my_layers_needed(width, span, dilation)——感受野至少覆盖 span 个词要堆几层
"""
from __future__ import annotations

import numpy as np

from ..cnn import conv1d, conv_relu_max, receptive_field
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1 = ChoiceExercise(
    "10.1", "窗口宽度只有 3 的单层卷积，能让相距 20 个词的两个位置在同一个窗口里直接交互吗？",
    options={"A": "能：窗口从句首滑到句尾，每个位置都会被看到",
             "B": "不能：一个窗口只覆盖 3 个相邻的词；要堆叠多层、用扩张卷积，或换成让全句直接交互的方法",
             "C": "能：卷积后面接上最大池化就行"},
    correct="B",
    reasons={"A": "每个位置都会落进某个窗口，但没有哪一个窗口同时含位置 0 和位置 20：同一窗口里的词最远只隔 2 个位置。",
             "C": "最大池化只是在各窗口的结果里挑最大的一个，不会把两个窗口里的词放到一起计算。"},
    hints=["宽度 3 的窗口里，第一个词和最后一个词相隔几个位置？"],
    answer="B。单层宽度 3 的卷积，一个输出只看 3 个相邻的词；要让相距 20 的两个位置交互，"
           "感受野至少要 21：堆 10 层宽度 3 的卷积，或用扩张卷积，或换成注意力这样的全局交互。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "10.2", "“不 太 好看 真的 不 太 好看”：核 1 最大池化后的值是多少？",
    expected=1.0, tol=2e-3,
    wrong=[(2.0, "这是求和池化：把两次出现加在一起。最大池化只留最强的一次。"),
           (0.4, "这是平均池化：(1 + 0 + 0 + 0 + 1) / 5。最大池化取各窗口里最大的那个。")],
    hints=["7 个词、宽度 3，有 5 个窗口；核 1 只在窗口正好是 [不, 太, 好看] 时得 1 分，其余经过 ReLU 都是 0。",
           "把 5 个窗口的值写出来，再取最大值。"],
    answer="5 个窗口的核 1 特征图是 [1, 0, 0, 0, 1]，最大值是 1——和只出现一次时一样。",
    stub="answer_2 = None   # 填一个数，保留三位小数即可",
    filled="answer_2 = 1",
)


# ---- q3：标量一维卷积 -------------------------------------------------------------
def _conv_ref(x, kernel):
    return conv1d(x, kernel)[:, 0]


def _conv_flipped(x, kernel):
    return np.convolve(np.asarray(x, float), np.asarray(kernel, float), mode="valid")


def _conv_one_short(x, kernel):
    x, k = np.asarray(x, float), np.asarray(kernel, float)
    return np.array([x[i:i + len(k)] @ k for i in range(len(x) - len(k))])


def _conv_full(x, kernel):
    return np.correlate(np.asarray(x, float), np.asarray(kernel, float), mode="full")


def _conv_stride_width(x, kernel):  # 句子只有一个窗口长时看不出来
    x, k = np.asarray(x, float), np.asarray(kernel, float)
    return np.array([x[i:i + len(k)] @ k for i in range(0, len(x) - len(k) + 1, len(k))])


def _conv_random(rng):
    cases = []
    for T, w in ((6, 2), (9, 3), (15, 4)):
        cases.append(Case((np.round(rng.uniform(-1, 1, T), 2), np.round(rng.uniform(-2, 2, w), 2))))
    return cases


q3 = FunctionExercise(
    "10.3", "实现 10.2 节的一维卷积（标量特征，步长 1、不补零、不翻转核）",
    name="my_conv1d", reference=_conv_ref,
    cases=[Case(([-1.0, 0.5, 1.0], [2.0, 1.0, 1.0]), note="10.2 节的 [不, 太, 好看]"),
           Case(([1.0, 0.5, -1.0], [2.0, 1.0, 1.0]), note="倒序的 [好看, 太, 不]"),
           Case(([0.0, 0.3, -1.0, 0.5, 1.0], [2.0, 1.0, 1.0]), note="5 个词：3 个窗口"),
           Case(([1.0, -2.0, 3.0], [2.0]), note="宽度 1：每个词自成一个窗口"),
           Case(([1.0, 2.0], [1.0, 1.0, 1.0]), note="句子比窗口短：应当抛出 ValueError")],
    random_cases=_conv_random,
    mistakes=[Mistake("核被翻转了（np.convolve 会先把核倒过来）；课程和深度学习框架的“卷积”不翻转，"
                      "窗口第 j 个数乘核的第 j 个权重。", _conv_flipped),
              Mistake("少了最后一个窗口：T 个词、宽度 w，应有 T − w + 1 个窗口。", _conv_one_short),
              Mistake("不要补零：只算完整落在句子里的窗口（np.correlate 的 'full' 会在两头补 0）。", _conv_full),
              Mistake("窗口每次只右移一格（步长 1），相邻窗口是重叠的；你每次跳过了整个窗口宽度。",
                      _conv_stride_width)],
    stub='''def my_conv1d(x, kernel):
    """x：每个词一个数的特征，长 T 的列表或数组；kernel：卷积核，长 w 的列表或数组。
    返回长 T − w + 1 的 numpy 数组：第 i 个数 = sum_j x[i + j] × kernel[j]（步长 1、不补零、不翻转核）。
    句子比核短（T < w）时 raise ValueError。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_conv1d(x, kernel):
    x, k = np.asarray(x, dtype=float), np.asarray(kernel, dtype=float)
    if len(x) < len(k):
        raise ValueError("句子比卷积核短，一个完整窗口也没有")
    return np.array([x[i:i + len(k)] @ k for i in range(len(x) - len(k) + 1)])
''',
    hints=["T 个词、宽度 w，窗口从第 0 个词开始，一直到第 T − w 个词开始，共 T − w + 1 个。",
           "第 i 个窗口是 x[i:i + w]；它和核逐位置相乘再相加：np.sum(x[i:i + w] * kernel)。",
           "别忘了开头检查 len(x) < len(kernel) 时 raise ValueError。"],
)


# ---- q4：卷积 → ReLU → 最大池化 ---------------------------------------------------
# 10.2 节的小词表、one-hot 词向量与手设的核 1（不太好看）、核 2（没被否定的好看）
_VOCAB = ["这部", "电影", "不", "太", "好看", "真的", "很", "说实话", "的"]
_ID = {w: k for k, w in enumerate(_VOCAB)}
_K = np.zeros((2, 3, len(_VOCAB)))
_K[0, 0, _ID["不"]] = _K[0, 1, _ID["太"]] = _K[0, 2, _ID["好看"]] = 1
_K[1, 2, _ID["好看"]] = 1
_K[1, 0, _ID["不"]] = _K[1, 1, _ID["不"]] = -1
_BIAS = np.array([-2.0, 0.0])


def _embed(tokens):
    return np.eye(len(_VOCAB))[[_ID[t] for t in tokens]]


def _crm_ref(x, kernels, bias):
    return conv_relu_max(x, kernels, bias)[0]


def _feature_map(x, kernels, bias, stop=None):
    x, K = np.asarray(x, float), np.asarray(kernels, float)
    w = K.shape[1]
    n = x.shape[0] - w + 1 if stop is None else stop
    return np.array([[np.sum(x[i:i + w] * K[k]) + bias[k] for k in range(K.shape[0])] for i in range(n)])


def _crm_wrong_axis(x, kernels, bias):
    return np.maximum(_feature_map(x, kernels, bias), 0).max(axis=1)


def _crm_mean(x, kernels, bias):
    return np.maximum(_feature_map(x, kernels, bias), 0).mean(axis=0)


def _crm_no_bias(x, kernels, bias):
    return np.maximum(_feature_map(x, kernels, np.zeros(len(bias))), 0).max(axis=0)


def _crm_one_short(x, kernels, bias):
    T, w = np.shape(x)[0], np.shape(kernels)[1]
    fm = _feature_map(x, kernels, bias, stop=max(T - w, 1))
    return np.maximum(fm, 0).max(axis=0)


def _crm_no_relu(x, kernels, bias):  # 某个核在所有窗口都是负分时才看得出来
    return _feature_map(x, kernels, bias).max(axis=0)


def _crm_random(rng):
    cases = []
    for T, n_k, w, d in ((6, 3, 2, 4), (10, 4, 3, 5), (15, 5, 4, 6)):
        cases.append(Case((rng.normal(size=(T, d)), rng.normal(size=(n_k, w, d)) * 0.5,
                           rng.normal(size=n_k) * 0.5)))
    return cases


q4 = FunctionExercise(
    "10.4", "实现 TextCNN 的一层：多个核的卷积 → ReLU → 沿时间的最大池化",
    name="my_conv_relu_max", reference=_crm_ref,
    cases=[Case((_embed(["说实话", "这部", "电影", "真的", "不", "太", "好看"]), _K, _BIAS),
                note="10.2 节的核 1、核 2 读“说实话 这部 电影 真的 不 太 好看”"),
           Case((_embed(["这部", "电影", "真的", "很", "好看"]), _K, _BIAS),
                note="没有“不 太 好看”：核 1 在每个窗口都是负分"),
           Case((_embed(["不", "太", "好看"]), _K, _BIAS), note="句子正好一个窗口长")],
    random_cases=_crm_random,
    mistakes=[Mistake("最大值要沿窗口（第 0 维）取：每个核留一个数，结果长度等于核的个数。", _crm_wrong_axis),
              Mistake("这是平均池化；最大池化取每个核在所有窗口里的最大值。", _crm_mean),
              Mistake("忘了给每个窗口的分数加上这个核的偏置。", _crm_no_bias),
              Mistake("少了最后一个窗口：T 个词、宽度 w，应有 T − w + 1 个窗口。", _crm_one_short),
              Mistake("忘了 ReLU，或把它放在加偏置之前了：ReLU 作用在加上偏置之后的分数上；"
                      "某个核在所有窗口都是负分时，池化值应当是 0，不是那个负数。", _crm_no_relu)],
    stub='''def my_conv_relu_max(x, kernels, bias):
    """x：一句话的词向量，形状 (T, d)；kernels：卷积核，形状 (n_k, w, d)；bias：每个核一个偏置，形状 (n_k,)。
    第 i 个窗口、第 k 个核的分数 = np.sum(x[i:i + w] * kernels[k]) + bias[k]（步长 1、不补零）；
    分数过 ReLU（max(0, ·)），再对每个核取所有窗口里的最大值。返回形状 (n_k,) 的数组。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_conv_relu_max(x, kernels, bias):
    n_k, w, d = kernels.shape
    n_win = x.shape[0] - w + 1
    scores = np.array([[np.sum(x[i:i + w] * kernels[k]) + bias[k] for k in range(n_k)]
                       for i in range(n_win)])          # (窗口数, n_k) 的特征图
    return np.maximum(scores, 0).max(axis=0)
''',
    hints=["先算特征图：一个 (窗口数, n_k) 的表，每个窗口、每个核一个分数；窗口数 = T − w + 1。",
           "一个窗口 x[i:i + w] 形状 (w, d)，和 kernels[k]（也是 (w, d)）逐格相乘、全部相加，再加 bias[k]。",
           "np.maximum(特征图, 0) 是 ReLU；.max(axis=0) 沿窗口取最大，每个核留一个数。"],
)


# ---- q5：堆几层 --------------------------------------------------------------------
def _layers_ref(width, span, dilation=1):
    layers = 1
    while receptive_field(width, layers, dilation) < span:
        layers += 1
    return layers


def _layers_floor(width, span, dilation=1):  # 除得尽时看不出来
    return max(1, (span - 1) // ((width - 1) * dilation))


def _layers_no_dilation(width, span, dilation=1):
    return max(1, -(-(span - 1) // (width - 1)))


def _layers_no_one(width, span, dilation=1):
    return max(1, -(-span // ((width - 1) * dilation)))


def _layers_full_width(width, span, dilation=1):
    return max(1, -(-(span - 1) // (width * dilation)))


def _layers_zero(width, span, dilation=1):  # 只看一个词时才看得出来
    return -(-(span - 1) // ((width - 1) * dilation))


def _layers_random(rng):
    cases = []
    for _ in range(4):
        width, span, dilation = int(rng.integers(2, 8)), int(rng.integers(2, 200)), int(rng.integers(1, 5))
        cases.append(Case((width, span), {"dilation": dilation}))
    return cases


q5 = FunctionExercise(
    "10.5", "感受野至少覆盖 span 个词，要堆几层步长 1 的卷积？",
    name="my_layers_needed", reference=_layers_ref,
    cases=[Case((3, 21), note="相距 20 个词（共 21 个词）、宽度 3"),
           Case((3, 21), {"dilation": 2}, note="每层扩张率 2"),
           Case((3, 21), {"dilation": 4}, note="每层扩张率 4：3 层的感受野 25，超过一点也行"),
           Case((3, 22), note="除不尽：要向上取整"),
           Case((5, 3), note="宽度 5：一层就够"),
           Case((3, 1), note="只看一个词：也至少要一层")],
    random_cases=_layers_random,
    mistakes=[Mistake("除不尽时要向上取整：层数不够，感受野就差一点盖不住。", _layers_floor),
              Mistake("每多一层，感受野增加 (w − 1) × 扩张率：相邻窗口重叠一格，不是增加 w。", _layers_full_width),
              Mistake("感受野 = 1 + 层数 × (w − 1) × 扩张率：开头的那个 1 别忘了，要补足的是 span − 1。",
                      _layers_no_one),
              Mistake("忘了扩张率：每层的跨度是 (w − 1) × dilation。", _layers_no_dilation),
              Mistake("至少要有一层卷积：span 不超过 w 时答案是 1，不是 0。", _layers_zero)],
    stub='''def my_layers_needed(width, span, dilation=1):
    """width：卷积宽度（≥ 2）；span：要覆盖的词数（≥ 1）；dilation：每层相同的扩张率（≥ 1）。
    堆 L 层后感受野是 1 + L × (width − 1) × dilation。返回让感受野 ≥ span 的最小层数 L（至少为 1），整数。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_layers_needed(width, span, dilation=1):
    layers = 1
    while 1 + layers * (width - 1) * dilation < span:
        layers += 1
    return layers
''',
    hints=["从 1 层开始，按公式算感受野；不够 span 就加一层。",
           "也可以直接算：L = ⌈(span − 1) / ((width − 1) × dilation)⌉，但别忘了 L 至少是 1。"],
)
