"""第 4 章的练习：sigmoid、交叉熵与一步梯度下降。

q1 填数：同样输入“好看”、标签换成差评，初始 p = 0.5，梯度是多少（课文 4.4 的小练习）
q2 选择：单样本例子把学习率改成 10，走一步后损失会上升吗
q3 实现：my_sigmoid(z)，逐元素、数值稳定（|z| 上千也不出 NaN）
q4 实现：my_bce(p, y)，二分类交叉熵，逐个样本返回损失
q5 实现：my_sgd_step(w, b, X, y, lr)，带偏置的一步（全批量平均）梯度下降
"""
from __future__ import annotations

import math

import numpy as np

from ..datasets import TOY_REVIEWS, TOY_VOCAB
from ..functional import binary_cross_entropy, sigmoid
from ..linear import sgd_step
from ..text import Vocab, bag_of_words
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1 = NumberExercise(
    "04.1", "同样的输入“好看”（x = 1），标签换成差评（y = 0），初始 p = 0.5：梯度是多少？",
    expected=0.5, tol=1e-3,
    wrong=[(-0.5, "这是标签为好评（y = 1）时的梯度；现在 y = 0，p − y = 0.5 − 0。"),
           (-0.1, "这是更新后的权重 w = 0 − 0.2 × 0.5，不是梯度。"),
           (0.1, "这是学习率 × 梯度（这一步挪了多远）；梯度本身还没乘学习率。"),
           (0.693, "这是损失 −ln(1 − 0.5)，不是梯度。")],
    hints=["梯度 = (预测概率 − 正确标签) × 输入特征。", "p = 0.5，y = 0，x = 1。"],
    answer="(0.5 − 0) × 1 = 0.5。梯度为正，更新 w = 0 − 0.2 × 0.5 = −0.1，好评概率降到约 0.475。",
    stub="answer_1 = None   # 填一个数，保留三位小数即可",
    filled="answer_1 = 0.5",
)

q2 = ChoiceExercise(
    "04.2", "单样本例子（x = 1，y = 1，w = 0）把学习率从 0.2 改成 10，走一步之后损失会上升吗？",
    options={"A": "会：学习率太大，一步就跨过了谷底",
             "B": "不会：只有一条好评样本时，梯度永远是负的，w 越大损失越小",
             "C": "损失不变：学习率只影响走多快，不影响走到哪"},
    correct="B",
    reasons={"A": "这里没有“谷底”可跨：损失 −ln σ(w) 随 w 增大一直减小。要几条样本互相拉扯（如 A 与 E），"
                  "才会出现步子太大、损失上升。",
             "C": "w 从 0 变成 5，好评概率从 0.5 升到约 0.993，损失从 0.693 降到约 0.007，明显变了。"},
    hints=["算一下：新 w = 0 − 10 × (−0.5) = ?，再算 σ(新 w) 和 −ln σ(新 w)。",
           "梯度 (p − 1) × 1 什么时候会变成正的？"],
    answer="B。新 w = 5，好评概率约 0.993，损失约 0.007。只有一条好评样本时梯度 (p − 1)x 永远为负，"
           "更新只会让 w 变大、损失变小。",
    stub='answer_2 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_2 = "B"',
)


# ---- q3：sigmoid --------------------------------------------------------------
def _sigmoid_ref(z):
    return sigmoid(z)


def _sigmoid_exp_ratio(z):  # e^z / (1 + e^z)：z 很大时 inf / inf = NaN
    e = np.exp(np.asarray(z, dtype=float))
    return e / (1 + e)


def _sigmoid_sign(z):  # 指数的符号反了
    return 1 / (1 + np.exp(np.asarray(z, dtype=float)))


def _sigmoid_flat(z):  # 逐个元素算，结果却成了一维
    return np.array([1 / (1 + math.exp(-v)) if v >= 0 else math.exp(v) / (1 + math.exp(v))
                     for v in np.asarray(z, dtype=float).ravel()])


def _sigmoid_random(rng):
    return [Case((rng.normal(scale=s, size=n),)) for s, n in ((1.0, 4), (5.0, 8), (50.0, 16))]


q3 = FunctionExercise(
    "04.3", "实现 sigmoid：逐元素算 1 / (1 + e^(−z))，|z| 很大时也不能出 NaN",
    name="my_sigmoid", reference=_sigmoid_ref,
    cases=[Case((np.array([0.0]),), note="z = 0：没有倾向"),
           Case((np.array([-2.0, -1.0, 0.0, 1.0, 2.0]),), note="第 3.2 节的 sigmoid 表"),
           Case((np.array([-30.0, 30.0]),), note="较大的 |z|：很接近 0 和 1"),
           Case((np.array([-1000.0, 1000.0]),), note="超大的 |z|：e^1000 会溢出成无穷大"),
           Case((np.array([[0.0, 1.0], [-1.0, 3.0]]),), note="二维数组：逐元素计算，形状不变")],
    random_cases=_sigmoid_random,
    mistakes=[Mistake("指数的符号反了：sigmoid(z) = 1 / (1 + e^(−z))，z 越大结果越接近 1。", _sigmoid_sign),
              Mistake("e^z / (1 + e^z) 在 z 很大时是 inf / inf = NaN。z ≥ 0 时用 1 / (1 + e^(−z))，"
                      "z < 0 时才用 e^z / (1 + e^z)，这样指数永远不会上溢。", _sigmoid_exp_ratio),
              Mistake("结果的形状要和输入一样：你把二维数组拉平成了一维（用 np.exp 整体计算，"
                      "或最后 reshape(z.shape)）。", _sigmoid_flat)],
    stub='''def my_sigmoid(z):
    """z：numpy 数组（任意形状）。返回同样形状的数组，每个元素是 1 / (1 + e^(-z))。
    z 里有 ±1000 这样的值时，结果也必须是正常的数（接近 0 或 1），不能是 NaN。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_sigmoid(z):
    z = np.asarray(z, dtype=float)
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))     # z ≥ 0：e^(-z) ≤ 1，不会上溢
    ez = np.exp(z[~pos])                          # z < 0：e^z < 1，也不会上溢
    out[~pos] = ez / (1.0 + ez)
    return out
''',
    hints=["np.exp 作用在整个数组上，结果形状不变。",
           "e^z 在 z 很大时溢出成 inf；想一想哪种写法里指数的参数永远 ≤ 0。",
           "分两组：z ≥ 0 用 1 / (1 + e^(−z))，z < 0 用 e^z / (1 + e^z)，两式在数学上相等。"],
)


# ---- q4：二分类交叉熵 ------------------------------------------------------------
def _bce_ref(p, y):
    return binary_cross_entropy(np.asarray(p, dtype=float), np.asarray(y, dtype=float))


def _bce_log2(p, y):
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    return -(y * np.log2(p) + (1 - y) * np.log2(1 - p))


def _bce_no_minus(p, y):
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    return y * np.log(p) + (1 - y) * np.log(1 - p)


def _bce_mean(p, y):  # 返回了平均值，而不是每个样本的损失
    return float(np.mean(_bce_ref(p, y)))


def _bce_positive_only(p, y):  # 只写了 y = 1 的那一项
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    return -(y * np.log(p))


def _bce_nan(p, y):  # 0 × ln 0 = NaN
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def _bce_random(rng):
    cases = []
    for n in (3, 8, 20):
        p = rng.uniform(0.01, 0.99, size=n)
        y = rng.integers(0, 2, size=n)
        cases.append(Case((p, y)))
    return cases


q4 = FunctionExercise(
    "04.4", "实现二分类交叉熵：L = −[y ln p + (1 − y) ln(1 − p)]，每个样本一个损失",
    name="my_bce", reference=_bce_ref,
    cases=[Case((np.array([0.5]), np.array([1])), note="p = 0.5：ln 2"),
           Case((np.array([0.1, 0.5, 0.9]), np.array([1, 1, 1])), note="课文 4.2 的损失表"),
           Case((np.array([0.1, 0.5, 0.9]), np.array([0, 0, 0])), note="差评样本：关心的是 1 − p"),
           Case((np.array([0.525, 0.475]), np.array([1, 0])), note="走一步之后的两种情形"),
           Case((np.array([0.0, 1.0, 0.3]), np.array([0, 1, 0])),
                note="p 恰好是 0 或 1 而且判对了：损失是 0，不是 NaN"),
           Case((np.array([0.0, 1.0, 0.5]), np.array([1, 0, 1])),
                note="p 恰好是 0 或 1 却完全判反了：损失是无穷大 inf")],
    random_cases=_bce_random,
    mistakes=[Mistake("前面的负号不能丢：ln p ≤ 0，损失要取它的相反数，才是 ≥ 0 的数。", _bce_no_minus),
              Mistake("你用了以 2 为底的对数；课程的交叉熵用自然对数 ln（np.log），p = 0.5 时是 0.693。", _bce_log2),
              Mistake("要返回每个样本的损失（和 p 一样形状的数组），不要取平均。", _bce_mean),
              Mistake("少了 (1 − y) ln(1 − p) 那一项：标签是差评（y = 0）时，损失是 −ln(1 − p)。",
                      _bce_positive_only),
              Mistake("y = 0、p = 0 时，y ln p 是 0 × (−∞) = NaN。系数为 0 的那一项直接当 0，"
                      "比如用 np.where(y > 0, y * np.log(p), 0.0)。", _bce_nan)],
    stub='''def my_bce(p, y):
    """p：好评概率的数组（每个在 [0, 1] 之间）；y：同样形状的标签数组，1 好评、0 差评。
    返回同样形状的数组：每个样本的损失 −[y ln p + (1 − y) ln(1 − p)]（自然对数）。
    p 恰好是 0 或 1、而且和标签一致时，损失是 0（0 × ln 0 按 0 算），不能是 NaN；
    完全判反时（y = 1、p = 0，或 y = 0、p = 1），损失是无穷大 inf（np.inf），不要报错。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_bce(p, y):
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):   # 0 × ln 0 先算出 NaN，再被 where 丢掉
        pos = np.where(y > 0, y * np.log(p), 0.0)            # y = 0 时这一项是 0
        neg = np.where(y < 1, (1 - y) * np.log(1 - p), 0.0)  # y = 1 时这一项是 0
    return -(pos + neg)
''',
    hints=["先照公式用 np.log 写出来，检查课文的表：p = 0.1、0.5、0.9 时损失 2.303、0.693、0.105。",
           "y = 0 时第一项应当消失。可 p = 0 时 np.log(p) 是 −∞，0 × (−∞) 是 NaN。",
           "用 np.where(条件, 算式, 0.0) 让系数为 0 的那一项直接取 0。"],
)


# ---- q5：一步梯度下降（带偏置） ------------------------------------------------------
def _step_ref(w, b, X, y, lr):
    return sgd_step(w, b, X, y, lr)


def _parts(w, b, X, y):
    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    p = sigmoid(X @ w + b)
    return w, X, y, p


def _step_no_bias(w, b, X, y, lr):
    w, X, y, p = _parts(w, b, X, y)
    return w - lr * X.T @ (p - y) / len(y), float(b)


def _step_no_sigmoid(w, b, X, y, lr):  # 把分数 z 直接当成了概率
    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    r = (X @ w + b - y) / len(y)
    return w - lr * X.T @ r, float(b) - lr * float(r.sum())


def _step_ascent(w, b, X, y, lr):  # 朝梯度方向走
    w, X, y, p = _parts(w, b, X, y)
    r = (p - y) / len(y)
    return w + lr * X.T @ r, float(b) + lr * float(r.sum())


def _step_sum(w, b, X, y, lr):  # 梯度求和而没有取平均
    w, X, y, p = _parts(w, b, X, y)
    r = p - y
    return w - lr * X.T @ r, float(b) - lr * float(r.sum())


def _step_x_not_transposed(w, b, X, y, lr):  # X @ r 而不是 X.T @ r（方阵时不报错）
    w, X, y, p = _parts(w, b, X, y)
    r = (p - y) / len(y)
    return w - lr * X @ r, float(b) - lr * float(r.sum())


def _toy_xy():
    vocab = Vocab(TOY_VOCAB)
    X = np.stack([bag_of_words(r.tokens, vocab) for r in TOY_REVIEWS])
    return X, np.array([r.label for r in TOY_REVIEWS])


_X_TOY, _Y_TOY = _toy_xy()


def _sgd_random(rng):
    cases = []
    for n, d in ((3, 2), (5, 4), (16, 7)):
        X = rng.integers(0, 3, size=(n, d)).astype(float)
        y = rng.integers(0, 2, size=n)
        w = rng.normal(scale=0.5, size=d)
        cases.append(Case((w, float(rng.normal(scale=0.5)), X, y, 0.3)))
    return cases


q5 = FunctionExercise(
    "04.5", "实现一步梯度下降：w 和偏置 b 一起更新，梯度是 (p − y)x 在全部样本上的平均",
    name="my_sgd_step", reference=_step_ref,
    cases=[Case((np.array([0.0]), 0.0, np.array([[1.0]]), np.array([1]), 0.2),
                note="课文 4.3 的例子，这次偏置也一起更新"),
           Case((np.array([0.0]), 0.0, np.array([[1.0]]), np.array([0]), 0.2), note="练习 1：标签换成差评"),
           Case((np.array([0.0, 0.0]), 0.0, np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1, 0]), 0.5),
                note="两条样本：梯度取平均"),
           Case((np.array([0.2, -0.1, 0.4]), 0.1, np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]]),
                 np.array([1, 0]), 0.5), note="两条样本、三个特征，X 不是方阵"),
           Case((np.zeros(7), 0.0, _X_TOY, _Y_TOY, 0.2), note="评论 A—F 的词袋，全 0 出发")],
    random_cases=_sgd_random,
    mistakes=[Mistake("偏置 b 也要更新：它的梯度是 (p − y) 的平均（相当于一个永远等于 1 的特征）。", _step_no_bias),
              Mistake("梯度里的 p 是概率 sigmoid(z)，不是分数 z 本身。", _step_no_sigmoid),
              Mistake("方向反了：梯度指向损失上升的方向，更新要减去学习率 × 梯度。", _step_ascent),
              Mistake("梯度要在样本上取平均（除以样本数）；你把各样本的梯度加起来了。", _step_sum),
              Mistake("w 的梯度是 Xᵀ(p − y) / n：每个特征一行，要用 X.T，而不是 X。", _step_x_not_transposed)],
    stub='''def my_sgd_step(w, b, X, y, lr):
    """w：权重数组 (特征数,)；b：偏置（一个数）；X：特征矩阵 (样本数, 特征数)；
    y：标签数组 (样本数,)，1 好评、0 差评；lr：学习率。
    p = sigmoid(X·w + b)；w 的梯度 = Σ (p − y)·x / 样本数，b 的梯度 = Σ (p − y) / 样本数。
    返回 (新 w, 新 b)：新参数 = 旧参数 − lr × 梯度。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_sgd_step(w, b, X, y, lr):
    p = 1 / (1 + np.exp(-(X @ w + b)))     # 这里的分数不大，直接用公式即可
    r = (p - y) / len(y)                   # 每个样本的 (p − y)，顺便除以样本数
    return w - lr * (X.T @ r), b - lr * r.sum()
''',
    hints=["先算每个样本的 p = sigmoid(X @ w + b)，再算 r = p − y。",
           "w 的梯度是 X.T @ r / 样本数（每个特征把各样本的 (p − y)·x 加起来再平均）；b 的梯度是 r 的平均。",
           "课文的例子：w = 0、b = 0、x = 1、y = 1、lr = 0.2，走一步后 w = 0.1，b 也是 0.1。"],
)
