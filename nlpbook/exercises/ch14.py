"""第 14 章的练习：数格子估成本。

q1 选择：输入长度翻倍，注意力匹配表多大、模型权重要不要翻倍（课文 14.6 节后的小练习）
q2 填数：4 条对话、32 层、32 个 Query head、MHA 的 KV cache（GiB）
q3 填数：改成 GQA（8 组）并把缓存量化到 1 字节（GiB）
q4 实现：my_kv_cache_bytes(…, kind, groups)——KV cache 字节数，分 MHA / GQA / MQA
q5 实现：my_block_params(d_model, d_ff, n_heads)——一个 Transformer 层有多少参数
q6 实现：my_layer_flops(n, d, ffn_mult)——一个 Transformer 层整段前向的运算量
q7 实验：用随包小 Transformer 逐字生成（不用 KV cache），字数翻倍后重算的位置数变成几倍（先预测）
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import cost
from ..transformer import init_block_params
from .compare import describe
from .experiments import ExperimentExercise
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]

_GiB = 2 ** 30

q1 = ChoiceExercise(
    "14.1", "输入长度翻倍，标准全注意力的匹配表有多大？模型权重也必须翻倍吗？",
    options={"A": "匹配表变成 2 倍；权重也要变成 2 倍",
             "B": "匹配表变成 4 倍；权重不用变",
             "C": "匹配表变成 4 倍；权重要变成 2 倍",
             "D": "匹配表变成 2 倍；权重不用变"},
    correct="B",
    reasons={"A": "每个位置都要和所有位置比：n 个 token 是 n × n 个分数，长度翻倍面积变四倍；"
                  "权重是固定的表格，和句子多长无关。",
             "C": "匹配表确实是 4 倍，但权重不随句长变化：14.1 的注意力层，100 个词和 200 个词用的是同一套参数。",
             "D": "权重确实不变，但匹配表是 n × n：(2n)² = 4n²，不是 2 倍。"},
    hints=["n 个 token 的匹配表有几行几列？",
           "14.1 的表里，句长 100 和 200 时参数个数分别是多少？"],
    answer="B。匹配表有 n × n 个元素，长度翻倍变成 (2n)² = 4n²，四倍；模型权重一个也不用变。"
           "参数是固定的表格，匹配表是运行时的中间结果，两者不是一回事。",
    stub='answer_1 = None   # 填 "A"、"B"、"C" 或 "D"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "14.2", "4 条对话各缓存 8,192 个 token；32 层、32 个 Query head、每头 128 维、每个数 2 字节。用 MHA 时 KV cache 多少 GiB？",
    expected=16.0, tol=1e-3,
    wrong=[(8.0, "最前面还有一个 2：K 和 V 各存一份。"),
           (4.0, "这是 1 条序列的结果：4 条对话各有一份缓存，要再乘以 4。"),
           (16 * _GiB / 1e9, "这是十进制的 GB（10⁹ 字节）；题目问的是 GiB（2³⁰ 字节）。"),
           (1.0, "这是课文 14.5 节的例子（1 条序列、8 个 KV head）；这里是 4 条序列、MHA 的 32 个 KV head。")],
    hints=["缓存字节数 = 2 × 序列数 × 层数 × token 数 × KV head 数 × 每头维度 × 每个数的字节数。",
           "MHA 里 KV head 数等于 Query head 数：32。算出的字节数再除以 2³⁰。"],
    answer="2 × 4 × 32 × 8,192 × 32 × 128 × 2 字节 = 17,179,869,184 字节 = 16 GiB："
           "比课文的例子多了 4 条序列（×4）和 4 倍的 KV head（×4）。",
    stub="answer_2 = None   # 填一个数，单位 GiB，保留三位小数即可",
    filled="answer_2 = 16",
)

q3 = NumberExercise(
    "14.3", "同一个服务改成 GQA（8 组），并把缓存量化到每个数 1 字节，KV cache 是多少 GiB？",
    expected=2.0, tol=1e-3,
    wrong=[(8.0, "GQA 要用 KV head 数（8 组就是 8 个），不是 32 个 Query head；你只算了量化那一步。"),
           (4.0, "还要把每个数从 2 字节降到 1 字节：再除以 2。"),
           (1.0, "要么忘了 K、V 两份的 ×2，要么把 KV head 数算成了 32 / 8 = 4：GQA 分 8 组，就是 8 个 KV head。"),
           (2 * _GiB / 1e9, "这是十进制的 GB；题目问的是 GiB（2³⁰ 字节）。")],
    hints=["和上一题比，变了两项：KV head 数从 32 变成几？每个数的字节从 2 变成 1。",
           "KV head 32 → 8 是 ÷4，字节 2 → 1 是 ÷2。"],
    answer="KV head 从 32 降到 8（÷4），每个数从 2 字节降到 1 字节（÷2）：16 GiB ÷ 8 = 2 GiB。"
           "这还没算模型权重本身。",
    stub="answer_3 = None   # 填一个数，单位 GiB，保留三位小数即可",
    filled="answer_3 = 2",
)


# ---- q4：KV cache ---------------------------------------------------------------
def _kv_ref(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    return cost.kv_cache_bytes(batch, layers, tokens, cost.kv_heads(kind, n_heads, groups), head_dim,
                               bytes_per_number)


def _kv_heads_right(kind, n_heads, groups):
    return {"MHA": n_heads, "GQA": groups, "MQA": 1}[kind.upper()]


def _kv_no_two(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    h = _kv_heads_right(kind, n_heads, groups)
    return batch * layers * tokens * h * head_dim * bytes_per_number


def _kv_query_heads(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    return 2 * batch * layers * tokens * n_heads * head_dim * bytes_per_number


def _kv_group_size(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    h = n_heads // groups if kind.upper() == "GQA" else _kv_heads_right(kind, n_heads, groups)
    return 2 * batch * layers * tokens * h * head_dim * bytes_per_number


def _kv_no_batch(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    h = _kv_heads_right(kind, n_heads, groups)
    return 2 * layers * tokens * h * head_dim * bytes_per_number


def _kv_random(rng):
    cases = []
    for kind in ("MHA", "GQA", "MQA", "GQA"):
        n_heads = int(rng.choice([8, 16, 32, 64]))
        groups = int(rng.choice([g for g in (2, 4, 8) if n_heads % g == 0 and g * g != n_heads]))
        args = (int(rng.integers(1, 9)), int(rng.choice([12, 24, 32, 48])), int(rng.choice([512, 2048, 4096])),
                n_heads, int(rng.choice([64, 128])), float(rng.choice([0.5, 1, 2, 4])))
        kwargs = {"kind": kind, "groups": groups} if kind == "GQA" else {"kind": kind}
        cases.append(Case(args, kwargs))
    return cases


q4 = FunctionExercise(
    "14.4", "实现 KV cache 的估算，分 MHA / GQA / MQA 三种",
    name="my_kv_cache_bytes", reference=_kv_ref,
    cases=[Case((1, 32, 8192, 8, 128, 2), {"kind": "MHA"}, note="课文 14.5 节：8 个 KV head → 1 GiB"),
           Case((1, 32, 8192, 32, 128, 2), {"kind": "MHA"}, note="MHA：32 个 Query head 各有一份 K/V"),
           Case((1, 32, 8192, 32, 128, 2), {"kind": "GQA", "groups": 8}, note="GQA：32 个 Query head 分 8 组"),
           Case((1, 32, 8192, 32, 128, 2), {"kind": "MQA"}, note="MQA：所有 Query head 共用一份"),
           Case((8, 24, 4096, 16, 64, 2), {"kind": "MHA"}, note="同时处理 8 条序列"),
           Case((2, 32, 8192, 32, 128, 0.5), {"kind": "GQA", "groups": 4}, note="4 位量化：每个数 0.5 字节")],
    random_cases=_kv_random,
    mistakes=[Mistake("GQA、MQA 要用 KV head 数，不是 Query head 数：GQA 是 groups 个，MQA 是 1 个。", _kv_query_heads),
              Mistake("GQA 的 KV head 数就是组数 groups；n_heads / groups 是每组有几个 Query head。", _kv_group_size),
              Mistake("最前面还有一个 2：K 和 V 各存一份。", _kv_no_two),
              Mistake("忘了乘同时处理的序列数 batch：每条序列各有一份缓存。", _kv_no_batch)],
    stub='''def my_kv_cache_bytes(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    """batch：同时处理的序列数；layers：层数；tokens：每条序列已缓存的 token 数；
    n_heads：Query head 数；head_dim：每个 head 的维度；bytes_per_number：每个数的字节数（可以是 0.5）；
    kind："MHA"、"GQA" 或 "MQA"；groups：GQA 的组数，也就是 K、V 各有几个 head（每组 Query head 共用一对；只有 GQA 用到）。
    返回 KV cache 的字节数（一个数）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_kv_cache_bytes(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind="MHA", groups=None):
    kv_heads = {"MHA": n_heads, "GQA": groups, "MQA": 1}[kind]   # 要缓存几份 K/V
    return 2 * batch * layers * tokens * kv_heads * head_dim * bytes_per_number
''',
    hints=["公式：2 × batch × layers × tokens × KV head 数 × head_dim × bytes_per_number。",
           "KV head 数：MHA 等于 n_heads；GQA 每组共用一份，等于 groups；MQA 所有 head 共用一份，等于 1。"],
)


# ---- q5：一层的参数 ---------------------------------------------------------------
def _block_ref(d_model, d_ff, n_heads):
    params = init_block_params(d_model, d_ff, np.random.default_rng(0))
    return int(sum(p.size for p in params.values()))


def _blk(d, f, h, *, bias=True, ln=True, heads=False, b1=None):
    attn = 4 * d * d * (h if heads else 1) + (4 * d if bias else 0)
    ffn = 2 * d * f + ((b1 if b1 is not None else f) + d if bias else 0)
    return attn + ffn + (4 * d if ln else 0)


def _blk_no_bias(d_model, d_ff, n_heads):
    return _blk(d_model, d_ff, n_heads, bias=False)


def _blk_no_ln(d_model, d_ff, n_heads):
    return _blk(d_model, d_ff, n_heads, ln=False)


def _blk_b1_d(d_model, d_ff, n_heads):  # 把 b1 也当成 d_model 个
    return _blk(d_model, d_ff, n_heads, b1=d_model)


def _blk_heads(d_model, d_ff, n_heads):  # 每个 head 各一套 d×d 矩阵
    return _blk(d_model, d_ff, n_heads, heads=True)


def _blk_random(rng):
    cases = []
    for d, h in ((16, 2), (32, 4), (96, 6), (256, 8)):
        cases.append(Case((d, int(rng.choice([2, 4])) * d, h)))
    return cases


q5 = FunctionExercise(
    "14.5", "数一数一个 Transformer 层（第 13 章的 Pre-LN 层）有多少参数",
    name="my_block_params", reference=_block_ref,
    cases=[Case((4, 16, 1), note="很小的层：d = 4、d_ff = 16、1 个 head"),
           Case((64, 256, 4), note="14.1 节的注意力层 d = 64、4 个 head，注意力部分 16,640 个"),
           Case((128, 512, 4), note="第 13 章 FFN 的例子 128 → 512 → 128"),
           Case((128, 512, 8), note="同样大小，8 个 head")],
    random_cases=_blk_random,
    mistakes=[Mistake("忘了偏置：注意力有 bq、bk、bv、bo（各 d 个），FFN 有 b1（d_ff 个）和 b2（d 个）。", _blk_no_bias),
              Mistake("忘了两个 LayerNorm：每个都有 γ 和 β，各 d 个。", _blk_no_ln),
              Mistake("b1 加在 FFN 中间层上，有 d_ff 个，不是 d 个。", _blk_b1_d),
              Mistake("多头不增加参数：h 个 head 是把 d 维切成 h 段，每段 d/h 维；Wq、Wk、Wv、Wo 仍各是 d × d。",
                      _blk_heads)],
    stub='''def my_block_params(d_model, d_ff, n_heads):
    """一个 Pre-LN Transformer 层（第 13 章）的参数个数，返回一个整数。包括：
    多头注意力的 Wq、Wk、Wv、Wo（各 d_model × d_model）和它们的偏置；
    FFN 的 W1（d_model × d_ff）、b1、W2（d_ff × d_model）、b2；两个 LayerNorm 的 γ 与 β。
    n_heads：head 个数（d_model 能被它整除）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_block_params(d_model, d_ff, n_heads):
    d = d_model
    attention = 4 * d * d + 4 * d            # Wq、Wk、Wv、Wo 与 4 个偏置；head 数不影响
    ffn = d * d_ff + d_ff + d_ff * d + d     # W1、b1、W2、b2
    layer_norms = 2 * (d + d)                # 两个 LayerNorm，各有 γ、β
    return attention + ffn + layer_norms
''',
    hints=["分三块数：注意力、FFN、两个 LayerNorm。每个矩阵是行数 × 列数，每个偏置的长度等于它加到的那一层的宽度。",
           "多头只是把 d 维切成几段，Wq 仍是一个 d × d 的矩阵：head 数不改变参数个数。",
           "14.1 节 d = 64 的注意力层有 4 × 64 × 64 + 4 × 64 = 16,640 个参数，可以拿来核对注意力那一块。"],
)


# ---- q6：一层的运算量 ---------------------------------------------------------------
def _fl_ref(n, d, ffn_mult=4):
    return cost.transformer_layer_flops(n, d, ffn_mult)


def _fl_macs(n, d, ffn_mult=4):  # 一次乘加只记 1 次
    return (8 + 4 * ffn_mult) * n * d * d // 2 + 2 * n * n * d


def _fl_no_attention(n, d, ffn_mult=4):  # 漏了 n² 那一项
    return (8 + 4 * ffn_mult) * n * d * d


def _fl_qk_only(n, d, ffn_mult=4):  # 只算了 QKᵀ，漏了 权重 @ V
    return (8 + 4 * ffn_mult) * n * d * d + 2 * n * n * d


def _fl_fixed_mult(n, d, ffn_mult=4):  # FFN 倍数写死成 4
    return 24 * n * d * d + 4 * n * n * d


def _fl_random(rng):
    cases = []
    for n, d in ((16, 32), (100, 64), (1000, 256), (4096, 512)):
        cases.append(Case((n, d), {"ffn_mult": int(rng.choice([2, 4, 8]))}))
    return cases


q6 = FunctionExercise(
    "14.6", "实现一个 Transformer 层整段前向的运算量：(8 + 4·倍数)·n·d² + 4·n²·d 是怎么来的",
    name="my_layer_flops", reference=_fl_ref,
    cases=[Case((10, 512), note="14.4 节：10 个 token、d = 512 → 63,119,360"),
           Case((128, 512), note="14.6 节表格的第一行"),
           Case((3072, 512), note="n = 6d：两项正好相等"),
           Case((1, 1), note="最小的层"),
           Case((8, 16), {"ffn_mult": 2}, note="FFN 中间层只有 2d"),
           Case((64, 32), {"ffn_mult": 8}, note="FFN 中间层 8d")],
    random_cases=_fl_random,
    mistakes=[Mistake("一次乘加要记 2 次运算（一次乘法、一次加法）；你只记了 1 次，结果少了一半。", _fl_macs),
              Mistake("漏了位置之间的交互：QKᵀ 与 权重 @ V 合起来还有 4·n²·d。", _fl_no_attention),
              Mistake("注意力交互有两次矩阵乘：QKᵀ（n×d 乘 d×n）和 权重 @ V（n×n 乘 n×d），各 2·n²·d；你只算了一次。",
                      _fl_qk_only),
              Mistake("FFN 的中间维是 ffn_mult × d，别把倍数写死成 4：用参数 ffn_mult。", _fl_fixed_mult)],
    stub='''def my_layer_flops(n, d, ffn_mult=4):
    """一个标准 Transformer 层对 n 个 token 整段前向的运算量（单条序列），返回一个整数。
    只数矩阵乘法，(a×b) 乘 (b×c) 记 2·a·b·c 次运算（一次乘加算 2 次）。要数的是：
    Q、K、V 和输出四个投影（各是 n×d 乘 d×d）；QKᵀ 与 权重 @ V；
    FFN 的两个矩阵乘 d → ffn_mult·d → d。softmax、偏置、LayerNorm 等小项不计。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_layer_flops(n, d, ffn_mult=4):
    projections = 4 * (2 * n * d * d)                 # Q、K、V、输出：各是 (n×d)(d×d)
    attention = 2 * n * n * d + 2 * n * n * d          # QKᵀ：(n×d)(d×n)；权重 @ V：(n×n)(n×d)
    ffn = 2 * (2 * n * d * (ffn_mult * d))             # (n×d)(d×md) 和 (n×md)(md×d)
    return projections + attention + ffn
''',
    hints=["(a×b) 乘 (b×c) 有 a·c 个结果，每个要 b 次乘加：2·a·b·c 次运算。",
           "四个投影各 2·n·d²；QKᵀ 和 权重 @ V 各 2·n²·d；FFN 两个矩阵乘各 2·n·d·(ffn_mult·d)。",
           "ffn_mult = 4 时合计 24·n·d² + 4·n²·d；用 14.4 节的 n = 10、d = 512 核对：63,119,360。"],
)


# ---- q7：不用 KV cache 逐字生成，一共重算多少个位置 ----------------------------------
# 范围的来源：14.5 节的计数（不用缓存时第 t 步为前面 t 个位置重算 K、V）加上随包模型存下的窗口 max_len
# （nlpbook/weights 里的 config：前文超过它时只读最后 max_len 个）。计数是整数，和 CPU 无关，所以不放宽。
_G_MIN, _G_MAX = 5, 300   # G = 300 时两次生成共 900 步，单核约 2.5 秒


@functools.lru_cache(maxsize=1)
def _window() -> int:
    from ..tiny_transformer import load_pretrained
    return int(load_pretrained().params["config"]["max_len"])


def _positions(n_new: int, prompt_len: int = 1) -> int:
    """从 prompt_len 个字的提示开始、不用缓存逐字生成 n_new 个字，模型一共从头算了多少个位置。"""
    w = _window()
    return sum(min(prompt_len + t, w) for t in range(n_new))


def _count_validate(setting):
    if isinstance(setting, bool) or not isinstance(setting, numbers.Integral):
        return (f"字数 G 要填一个整数，{_G_MIN} 到 {_G_MAX} 之间（检查器还会看 2G 个字）；"
                f"收到的是 {describe(setting)}。")
    if not _G_MIN <= int(setting) <= _G_MAX:
        return f"字数 G 要在 {_G_MIN} 到 {_G_MAX} 之间（再大，2G 个字要跑很久）；收到 {int(setting)}。"
    return None


def _count_band(setting):
    g = int(setting)
    a, b = _positions(g), _positions(2 * g)
    return {"positions": (a, a), "positions_2x": (b, b)}


def _count_outcome(setting, result):
    ratio = float(result["positions_2x"]) / float(result["positions"])
    return "B" if ratio >= 3.5 else ("A" if ratio < 2.5 else "C")


_COUNT_RUN = r'''    from nlpbook.decoding import generate
    from nlpbook.tiny_transformer import load_pretrained
    model = load_pretrained()                   # 第 13 章随包的小 Transformer：没有 KV cache
    window = model.params["config"]["max_len"]  # 窗口 64 个字：前文更长时，模型只读最后 64 个
    counts = {}
    for G in (n_new_7, 2 * n_new_7):
        per_step = []                           # 每一步模型读进来、从头算一遍的位置数
        def counting_logits(ids):
            per_step.append(len(ids[-window:]))
            return model.next_logits(ids)
        generate(counting_logits, model.encode("\n"), G, temperature=0)   # 从一条评论的开头贪心地写 G 个字
        counts[G] = sum(per_step)
    G, G2 = n_new_7, 2 * n_new_7
    result_7 = {"positions": counts[G], "positions_2x": counts[G2]}
    print(f"写 {G} 个字：一共算了 {counts[G]:,} 个位置；写 {G2} 个字：{counts[G2]:,} 个，是 {counts[G2] / counts[G]:.2f} 倍")
    print(f"（用 KV cache 的话每步只算 1 个新位置：{G} 个和 {G2} 个）")
'''


def _count_cells(prediction: str, setting: str) -> str:
    return (f'prediction_7 = {prediction}\n'
            f'n_new_7 = {setting}\n'
            'result_7 = None\n'
            'if n_new_7 is not None:\n'
            + _COUNT_RUN +
            'answer_7 = {"prediction": prediction_7, "setting": n_new_7, "result": result_7}\n')


q7 = ExperimentExercise(
    "14.7", "不用 KV cache 逐字生成：要写的字数翻倍，模型一共要重算的位置数变成几倍？",
    options={"A": "不到 2.5 倍（接近 2 倍）：总量大致和字数成正比",
             "B": "3.5 倍以上（接近 4 倍）：总量大致按字数的平方增长",
             "C": "2.5 倍到 3.5 倍之间"},
    outcome=_count_outcome,
    reasons={"A": "前文超过 64 个字以后，模型每一步只读最近的 64 个字，每步都重算 64 个位置，总量约是 64 × 字数，"
                  "和字数成正比，所以翻倍只多出一倍左右。这不是 KV cache 的功劳：用缓存每步只算 1 个新位置，"
                  "这里每步却要算 64 个。",
             "B": "这个模型没有 KV cache，第 t 步把前面 t 个位置全部重算一遍：写 G 个字共算 1 + 2 + … + G = G(G+1)/2 个"
                  "（14.5 节的公式）。2G 个字时前文仍装得进 64 个字的窗口，所以总量约是 4 倍。"
                  "用 KV cache 的话每步只算 1 个新位置，总量只和字数成正比。",
             "C": "前文不到 64 个字的那一段，每步重算的位置越来越多，总量按平方增长；窗口满了以后，每步固定重算 64 个，"
                  "总量按字数线性增长。写 G 个字时前一段占的比重大，写到 2G 个字时后一段占的比重大，倍数就落在 2 和 4 之间。"},
    validate=_count_validate,
    band=_count_band,
    basis="范围由 14.5 节的计数（第 t 步重算前面 t 个位置）加上随包模型的窗口 max_len = 64（前文更长时每步只算最近 64 个）"
          "算出；位置数是整数，和 CPU 无关，所以必须完全相等",
    hints=["第 t 步模型读进来的是整个前文（最多 64 个字），每个位置都从头算一遍：这一步的计数就是前文的长度。",
           "前文不超过 64 个字时，总数是 1 + 2 + … + G；超过以后，每一步都是 64。",
           "挑一个远小于 64 的 G，再挑一个远大于 64 的 G，各跑一次比一比。"],
    answer="课程的小 Transformer 没有 KV cache，第 t 步把窗口里的全部位置重算一遍。窗口没装满时，写 G 个字一共算 "
           "1 + 2 + … + G = G(G+1)/2 个位置（14.5 节的公式），字数翻倍约变 4 倍（G = 20：210 → 820，3.9 倍）；"
           "窗口装满以后每步固定重算 64 个，总量约 64G，只和字数成正比（G = 200：10,784 → 23,584，2.2 倍）；"
           "G 在两者之间时倍数也在两者之间（G = 64：2,080 → 6,176，约 3 倍）。用 KV cache，每步只为 1 个新位置算 K、V，"
           "写 G 个字只要算 G 个位置；省下的计算换成了随长度增长的缓存。",
    stub=_count_cells('None   # 先预测，跑之前填好：字数翻倍后，一共要算的位置数变成几倍？'
                      '"A" 不到 2.5 倍；"B" 3.5 倍以上；"C" 2.5 倍到 3.5 倍之间',
                      f'None        # 你要让模型写的字数 G：{_G_MIN}—{_G_MAX} 的整数（实验会分别写 G 个和 2G 个字）'),
    filled=_count_cells('"B"', "20"),
)
