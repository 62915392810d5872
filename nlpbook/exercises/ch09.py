"""第 9 章的练习：LSTM 与 GRU。

q1 选择：遗忘门为 1、输入门为 0 时会怎样（课文 9.4 节后的小练习）
q2 填数：不再写入时，记忆 0.8 经过 20 步还剩多少（遗忘门 0.5、0.9、0.99）
q3 实现：my_lstm_memory_update(c_prev, f, i, g)——9.2 节的记忆更新 c = f⊙c_prev + i⊙g
q4 实现：my_lstm_cell(x, h_prev, c_prev, params)——9.3 节完整的一步 LSTM
q5 实现：my_gru_cell(x, h_prev, params)——9.4 节的一步 GRU（包与 PyTorch 的约定）
"""
from __future__ import annotations

import numpy as np

from ..rnn import gru_cell, init_cell_params, lstm_cell, lstm_memory_update
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1 = ChoiceExercise(
    "09.1", "LSTM 的记忆更新里，遗忘门为 1、输入门为 0，会发生什么？",
    options={"A": "记忆原样保留；对外输出仍可能随输出门变化",
             "B": "记忆和对外输出都原样保留，这一步什么都没变",
             "C": "旧记忆被清空，换成候选内容"},
    correct="A",
    reasons={"B": "输出 h = o ⊙ tanh(c) 还要乘输出门 o：记忆不变，输出门变了，输出就跟着变。",
             "C": "清空旧记忆的是遗忘门 f = 0，换成候选内容要输入门 i = 1；f = 1、i = 0 正好相反。"},
    hints=["代进 c = f⊙c_prev + i⊙g：f = 1、i = 0 时 c 等于什么？",
           "再看输出 h = o⊙tanh(c)：c 不变时，h 还取决于谁？"],
    answer="A。c = 1×c_prev + 0×g = c_prev，记忆原样保留，与候选内容无关；"
           "但 h = o⊙tanh(c) 还取决于输出门 o，所以记忆不变时输出仍可能不同。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "A"',
)

q2 = NumberExercise(
    "09.2", "不再写入新内容时，记忆 0.8 经过 20 步还剩多少？（遗忘门 0.5、0.9、0.99）",
    expected=(0.8 * 0.5 ** 20, 0.8 * 0.9 ** 20, 0.8 * 0.99 ** 20), tol=2e-3,
    wrong=[((0.5 ** 20, 0.9 ** 20, 0.99 ** 20), "这是 f²⁰ 本身：别忘了乘上记忆的初值 0.8。"),
           ((0.8 * 0.5 ** 19, 0.8 * 0.9 ** 19, 0.8 * 0.99 ** 19), "只乘了 19 次：20 步要乘 20 次遗忘门。"),
           ((0.8 * 0.5 ** 21, 0.8 * 0.9 ** 21, 0.8 * 0.99 ** 21), "乘了 21 次：20 步只乘 20 次遗忘门。")],
    hints=["i = 0 时每一步 c = f × c，记忆每步乘一次遗忘门。",
           "20 步后是 0.8 × f²⁰；三个 f 各算一次，按 0.5、0.9、0.99 的顺序填成一个元组。"],
    answer="0.8 × f²⁰：f = 0.5 时约 7.63e-7，f = 0.9 时约 0.0973，f = 0.99 时约 0.654。",
    stub="answer_2 = None   # 填三个数的元组：(遗忘门 0.5 时, 0.9 时, 0.99 时)，保留三位小数即可",
    filled="answer_2 = (7.63e-7, 0.0973, 0.654)",
)


# ---- q3：一格记忆的更新 -----------------------------------------------------------
def _mem_ref(c_prev, f, i, g):
    return lstm_memory_update(c_prev, f, i, g)


def _mem_swapped(c_prev, f, i, g):
    return np.multiply(f, g) + np.multiply(i, c_prev)


def _mem_no_input_gate(c_prev, f, i, g):
    return np.multiply(f, c_prev) + np.asarray(g)


def _mem_coupled(c_prev, f, i, g):
    return np.multiply(f, c_prev) + (1 - np.asarray(f)) * g


def _mem_dot(c_prev, f, i, g):  # 标量时看不出来：点积对两个数就是乘法
    return np.dot(f, c_prev) + np.dot(i, g)


def _mem_random(rng):
    cases = []
    for shape in ((3,), (2, 4), (6,)):
        cases.append(Case((rng.normal(size=shape), rng.uniform(0, 1, shape), rng.uniform(0, 1, shape),
                           rng.uniform(-1, 1, shape))))
    return cases


q3 = FunctionExercise(
    "09.3", "实现 LSTM 的记忆更新：c = f⊙c_prev + i⊙g（逐格相乘）",
    name="my_lstm_memory_update", reference=_mem_ref,
    cases=[Case((0.8, 0.9, 0.2, 0.5), note="9.2 节的一格：0.8×0.9 + 0.2×0.5"),
           Case((0.8, 1.0, 0.0, 0.5), note="f = 1、i = 0：原样保留"),
           Case((0.8, 0.0, 1.0, 0.5), note="f = 0、i = 1：换成候选内容"),
           Case((np.array([0.8, -0.4]), np.array([0.9, 0.1]), np.array([0.2, 0.7]), np.array([0.5, -1.0])),
                note="两格记忆：每格有自己的门值")],
    random_cases=_mem_random,
    mistakes=[Mistake("门乘错了对象：遗忘门 f 乘旧记忆 c_prev，输入门 i 乘候选内容 g。", _mem_swapped),
              Mistake("候选内容 g 要先乘输入门 i 再写进记忆，你直接把 g 加上去了。", _mem_no_input_gate),
              Mistake("你用 1 − f 当写入比例（把两个门绑在一起了）；LSTM 的输入门 i 是独立的一个门。",
                      _mem_coupled),
              Mistake("⊙ 是逐格相乘（numpy 的 *），不是点积或矩阵乘法；只有一格时两者一样，多格就不同了。",
                      _mem_dot)],
    stub='''def my_lstm_memory_update(c_prev, f, i, g):
    """c_prev：旧记忆；f：遗忘门；i：输入门；g：候选内容。四者是同样形状的数或 numpy 数组。
    返回新记忆 f⊙c_prev + i⊙g（逐格相乘），形状与输入相同。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_lstm_memory_update(c_prev, f, i, g):
    return f * c_prev + i * g
''',
    hints=["新记忆 = 保留下来的旧记忆 + 写进来的新内容。",
           "保留下来的是 f * c_prev，写进来的是 i * g；numpy 的 * 就是逐格相乘。"],
)


# ---- q4：一步 LSTM --------------------------------------------------------------
class _Params(dict):
    """参数字典；失败说明里只写每个数组的形状，免得一长串数字淹没输入。"""

    def __repr__(self):
        return "{" + ", ".join(f"'{k}': 形状 {np.shape(v)} 的数组" for k, v in self.items()) + "}"


def _params(cell, d_in, d_h, seed):
    return _Params(init_cell_params(cell, d_in, d_h, seed=seed))


_LSTM_P = _params("lstm", 3, 2, seed=0)                  # 9.3 节：输入 3 维、隐藏 2 维
_X = np.array([1.0, -0.5, 0.3])
_H = np.array([0.1, -0.2])
_C = np.array([0.8, -0.4])


def _sig(a):
    return 1 / (1 + np.exp(-a))


def _lstm_ref(x, h_prev, c_prev, params):
    h, c, _ = lstm_cell(x, h_prev, c_prev, params)
    return h, c


def _lstm_parts(x, h_prev, params, order=("f", "i", "g", "o"), z_first="x"):
    """照着某种写法算四段分数（供错误实现复用）。"""
    W, b = params["W"], params["b"]
    z = np.concatenate([x, h_prev], axis=-1) if z_first == "x" else np.concatenate([h_prev, x], axis=-1)
    a = z @ W + b
    H = W.shape[1] // 4
    seg = {name: a[..., k * H:(k + 1) * H] for k, name in enumerate(order)}
    return seg["f"], seg["i"], seg["g"], seg["o"]


def _lstm_torch_order(x, h_prev, c_prev, params):
    af, ai, ag, ao = _lstm_parts(x, h_prev, params, order=("i", "f", "g", "o"))
    c = _sig(af) * c_prev + _sig(ai) * np.tanh(ag)
    return _sig(ao) * np.tanh(c), c


def _lstm_sigmoid_g(x, h_prev, c_prev, params):
    af, ai, ag, ao = _lstm_parts(x, h_prev, params)
    c = _sig(af) * c_prev + _sig(ai) * _sig(ag)
    return _sig(ao) * np.tanh(c), c


def _lstm_no_tanh_out(x, h_prev, c_prev, params):
    af, ai, ag, ao = _lstm_parts(x, h_prev, params)
    c = _sig(af) * c_prev + _sig(ai) * np.tanh(ag)
    return _sig(ao) * c, c


def _lstm_h_first(x, h_prev, c_prev, params):
    af, ai, ag, ao = _lstm_parts(x, h_prev, params, z_first="h")
    c = _sig(af) * c_prev + _sig(ai) * np.tanh(ag)
    return _sig(ao) * np.tanh(c), c


def _lstm_no_forget(x, h_prev, c_prev, params):  # c_prev 全 0 时看不出来
    af, ai, ag, ao = _lstm_parts(x, h_prev, params)
    c = c_prev + _sig(ai) * np.tanh(ag)
    return _sig(ao) * np.tanh(c), c


def _lstm_random(rng):
    cases = []
    for d_in, d_h, batch, seed in ((2, 3, None, 11), (4, 2, 3, 12), (5, 4, None, 13)):
        P = _params("lstm", d_in, d_h, seed=seed)
        lead = () if batch is None else (batch,)
        cases.append(Case((rng.normal(size=lead + (d_in,)), rng.uniform(-1, 1, lead + (d_h,)),
                           rng.normal(size=lead + (d_h,)), P)))
    return cases


q4 = FunctionExercise(
    "09.4", "实现完整的一步 LSTM：四个门的分数来自 z = [x; h_prev] @ W + b",
    name="my_lstm_cell", reference=_lstm_ref,
    cases=[Case((_X, np.zeros(2), np.zeros(2), _LSTM_P), note="第一步：h_prev、c_prev 全是 0"),
           Case((_X, _H, _C, _LSTM_P), note="9.3 节逐项手算的一步"),
           Case((np.array([_X, -_X]), np.array([_H, -_H]), np.array([_C, _C]), _LSTM_P),
                note="一批两句：x 形状 (2, 3)")],
    random_cases=_lstm_random,
    mistakes=[Mistake("四段分数的顺序是 f、i、g、o（PyTorch 的 nn.LSTM 是 i、f、g、o，别混）。", _lstm_torch_order),
              Mistake("候选内容 g 用 tanh（可以是负数），三个门才用 sigmoid。", _lstm_sigmoid_g),
              Mistake("输出是 h = o ⊙ tanh(c)：新记忆要先过 tanh 再乘输出门。", _lstm_no_tanh_out),
              Mistake("拼接的顺序是 z = [x; h_prev]：先 x 后 h_prev，W 的前 d_in 行对应 x。", _lstm_h_first),
              Mistake("旧记忆要先乘遗忘门 f 再加新内容；c_prev 全 0 时看不出来，所以第一步碰巧对了。",
                      _lstm_no_forget)],
    stub='''def my_lstm_cell(x, h_prev, c_prev, params):
    """x：当前输入 (d_in,) 或 (batch, d_in)；h_prev、c_prev：上一步的输出和记忆 (d_h,) 或 (batch, d_h)。
    params = {"W": (d_in + d_h, 4·d_h), "b": (4·d_h,)}。z = [x; h_prev]（最后一维拼接），a = z @ W + b，
    a 的四段依次是 f、i、g、o 的分数：f、i、o 用 sigmoid，g 用 tanh。
    返回元组 (h, c)：c = f⊙c_prev + i⊙g，h = o⊙tanh(c)。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_lstm_cell(x, h_prev, c_prev, params):
    W, b = params["W"], params["b"]
    H = W.shape[1] // 4
    a = np.concatenate([x, h_prev], axis=-1) @ W + b
    sig = lambda s: 1 / (1 + np.exp(-s))
    f, i = sig(a[..., :H]), sig(a[..., H:2 * H])
    g, o = np.tanh(a[..., 2 * H:3 * H]), sig(a[..., 3 * H:])
    c = f * c_prev + i * g
    h = o * np.tanh(c)
    return h, c
''',
    hints=["先拼接 z = np.concatenate([x, h_prev], axis=-1)，一次算出 a = z @ W + b；d_h = W 的列数 // 4。",
           "按 f、i、g、o 的顺序把 a 的最后一维切成四段（a[..., :d_h] 是 f 的分数），门用 sigmoid，g 用 tanh。",
           "最后两行就是练习 3 的记忆更新和 9.2 节的输出：c = f*c_prev + i*g，h = o*np.tanh(c)。"],
)


# ---- q5：一步 GRU ---------------------------------------------------------------
_GRU_P = _params("gru", 3, 2, seed=1)                    # 9.4 节的例子
_GRU_P0 = _Params(_GRU_P, bh=np.zeros(6))                # 旧状态一侧的偏置取 0


def _gru_ref(x, h_prev, params):
    return gru_cell(x, h_prev, params)


def _gru_parts(x, h_prev, params):
    H = params["Wh"].shape[0]
    gx = x @ params["Wx"] + params["bx"]
    gh = h_prev @ params["Wh"] + params["bh"]
    return H, gx, gh


def _gru_flipped(x, h_prev, params):
    H, gx, gh = _gru_parts(x, h_prev, params)
    r, u = _sig(gx[..., :H] + gh[..., :H]), _sig(gx[..., H:2 * H] + gh[..., H:2 * H])
    n = np.tanh(gx[..., 2 * H:] + r * gh[..., 2 * H:])
    return u * n + (1 - u) * h_prev


def _gru_swapped_gates(x, h_prev, params):  # 把第一段当成更新门、第二段当成重置门
    H, gx, gh = _gru_parts(x, h_prev, params)
    u, r = _sig(gx[..., :H] + gh[..., :H]), _sig(gx[..., H:2 * H] + gh[..., H:2 * H])
    n = np.tanh(gx[..., 2 * H:] + r * gh[..., 2 * H:])
    return (1 - u) * n + u * h_prev


def _gru_reset_outside_bias(x, h_prev, params):  # bh 为 0 时看不出来
    H, gx, gh = _gru_parts(x, h_prev, params)
    r, u = _sig(gx[..., :H] + gh[..., :H]), _sig(gx[..., H:2 * H] + gh[..., H:2 * H])
    n = np.tanh(gx[..., 2 * H:] + r * (h_prev @ params["Wh"][:, 2 * H:]) + params["bh"][2 * H:])
    return (1 - u) * n + u * h_prev


def _gru_no_reset(x, h_prev, params):  # h_prev 与 bh 都为 0 时看不出来
    H, gx, gh = _gru_parts(x, h_prev, params)
    u = _sig(gx[..., H:2 * H] + gh[..., H:2 * H])
    n = np.tanh(gx[..., 2 * H:] + gh[..., 2 * H:])
    return (1 - u) * n + u * h_prev


def _gru_random(rng):
    cases = []
    for d_in, d_h, batch, seed in ((2, 3, None, 21), (4, 2, 3, 22), (5, 4, None, 23)):
        P = _params("gru", d_in, d_h, seed=seed)
        lead = () if batch is None else (batch,)
        cases.append(Case((rng.normal(size=lead + (d_in,)), rng.uniform(-1, 1, lead + (d_h,)), P)))
    return cases


q5 = FunctionExercise(
    "09.5", "实现一步 GRU：h = (1 − u)⊙n + u⊙h_prev（包与 PyTorch 的约定）",
    name="my_gru_cell", reference=_gru_ref,
    cases=[Case((_X, np.zeros(2), _GRU_P0), note="第一步：h_prev 全 0，旧状态一侧的偏置 bh 也是 0"),
           Case((_X, _H, _GRU_P), note="9.4 节逐项手算的一步"),
           Case((np.array([_X, -_X]), np.array([_H, -_H]), _GRU_P), note="一批两句：x 形状 (2, 3)")],
    random_cases=_gru_random,
    mistakes=[Mistake("约定反了：按包（和 PyTorch）的写法，u 接近 1 时保留旧状态，h = (1 − u)⊙n + u⊙h_prev。",
                      _gru_flipped),
              Mistake("三段的顺序是 r（重置门）、u（更新门）、n（候选），你把前两段对调了。", _gru_swapped_gates),
              Mistake("重置门 r 乘的是 (h_prev @ Wh_n + bh_n) 整体，偏置 bh_n 也在括号里；"
                      "bh 为 0 时看不出来。", _gru_reset_outside_bias),
              Mistake("候选 n 里少了重置门：旧状态那一段要先乘 r 再加进来。", _gru_no_reset)],
    stub='''def my_gru_cell(x, h_prev, params):
    """x：当前输入 (d_in,) 或 (batch, d_in)；h_prev：上一步的状态 (d_h,) 或 (batch, d_h)。
    params = {"Wx": (d_in, 3·d_h), "Wh": (d_h, 3·d_h), "bx": (3·d_h,), "bh": (3·d_h,)}，
    三段依次是 r（重置门）、u（更新门）、n（候选）：gx = x @ Wx + bx，gh = h_prev @ Wh + bh，
    r = σ(gx_r + gh_r)，u = σ(gx_u + gh_u)，n = tanh(gx_n + r⊙gh_n)。
    返回新状态 h = (1 − u)⊙n + u⊙h_prev。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_gru_cell(x, h_prev, params):
    H = params["Wh"].shape[0]
    gx = x @ params["Wx"] + params["bx"]
    gh = h_prev @ params["Wh"] + params["bh"]
    sig = lambda s: 1 / (1 + np.exp(-s))
    r = sig(gx[..., :H] + gh[..., :H])
    u = sig(gx[..., H:2 * H] + gh[..., H:2 * H])
    n = np.tanh(gx[..., 2 * H:] + r * gh[..., 2 * H:])
    return (1 - u) * n + u * h_prev
''',
    hints=["先分别算输入一侧 gx = x @ Wx + bx 和旧状态一侧 gh = h_prev @ Wh + bh，各有 3·d_h 个分数。",
           "按 r、u、n 的顺序切最后一维；r、u 把两侧对应的段相加再过 sigmoid。",
           "候选 n = tanh(gx 的 n 段 + r * gh 的 n 段)；最后 h = (1 - u) * n + u * h_prev。"],
)
