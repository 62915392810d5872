"""数格子估成本：注意力表、词向量表、KV cache 的字节数，LoRA 的参数数，RNN 与 Transformer 层的运算量。

单位：MiB、GiB 是二进制（1 MiB = 2²⁰ 字节，1 GiB = 2³⁰ 字节）；MB、GB 是十进制（1 MB = 10⁶ 字节）。
课文第 14.2 节的“32 MiB、1 GiB”是二进制，第 14.3 节的“5.12 MB”是十进制（= 4.88 MiB）。format_bytes 两种都给。
运算量约定：一次乘加记 2 次浮点运算（FLOPs），只数矩阵乘法；softmax、激活、归一化、偏置、残差这些
与 n·d 或 n²·头数 同阶的小项不计。公式写在各函数的文档里。
不做的事：不估算实际耗时（取决于硬件、内存读写与实现），不计优化器状态、梯度、激活和实现开销。
"""
from __future__ import annotations

import numbers

from ._checks import check_positive

__all__ = ["attention_table_entries", "attention_growth_table", "attention_table_bytes", "embedding_table_bytes",
           "kv_cache_bytes", "kv_heads", "kv_cache_comparison", "dense_params", "lora_params", "lora_scale",
           "rnn_flops", "transformer_layer_flops", "transformer_decode_step_flops", "format_bytes"]


def _n(value, name: str) -> int:
    """正整数尺寸：非整数 TypeError，≤ 0 ValueError。"""
    return int(check_positive(value, name, integer=True))


def _bytes_per(value) -> float:
    """每个数的字节数：正数，可以是 0.5（4 位量化）。"""
    return check_positive(value, "bytes_per_number")


def _whole(x):
    """整数结果返回 int，否则 float。"""
    return int(x) if float(x).is_integer() else float(x)


# ---------- 第 14.2 节：注意力表 ----------
def attention_table_entries(n: int, heads: int = 1) -> int:
    """n 个 token 的注意力分数表元素数：heads × n × n。教学位置：第 13.4、14.2 节。

    例：4 → 16，8 → 64，16 → 256；4,096 → 16,777,216
    """
    return _n(heads, "heads") * _n(n, "n") ** 2


def attention_growth_table(lengths=(4, 8, 16)) -> list[tuple[int, int, int]]:
    """第 14.2 节的表：每行 (token 数, 每个位置比较多少个位置, 匹配分数总数)。

    例：attention_growth_table() → [(4, 4, 16), (8, 8, 64), (16, 16, 256)]；长度翻倍，面积变四倍。
    """
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        raise TypeError(f"lengths 必须是正整数的列表，收到 {type(lengths).__name__}")
    ns = [_n(n, "lengths 的每一项") for n in lengths]
    if not ns:
        raise ValueError("lengths 不能为空")
    return [(n, n, attention_table_entries(n)) for n in ns]


def attention_table_bytes(n: int, bytes_per_number=2, heads: int = 1, layers: int = 1, batch: int = 1):
    """显式保存注意力表的字节数：batch × layers × heads × n² × bytes_per_number。教学位置：第 14.2 节。

    例：n=4096、2 字节 → 33,554,432（32 MiB）；再乘 32 个 head → 1,073,741,824（1 GiB）。
    只是一份表：不含梯度和其他中间结果；高效实现（如 FlashAttention）不一定整张保存。
    """
    per = _bytes_per(bytes_per_number)
    return _whole(_n(batch, "batch") * _n(layers, "layers") * attention_table_entries(n, heads) * per)


# ---------- 第 14.3 节：词向量表 ----------
def embedding_table_bytes(vocab: int, dim: int, bytes_per_number=4):
    """词向量表的字节数：vocab × dim × bytes_per_number。教学位置：第 14.3 节。

    例：10,000 × 128 × 4 字节 = 5,120,000 字节 = 5.12 MB（十进制），约 4.88 MiB。
    """
    return _whole(_n(vocab, "vocab") * _n(dim, "dim") * _bytes_per(bytes_per_number))


# ---------- 第 14.5、14.6 节：KV cache 与 MHA/GQA/MQA ----------
def kv_cache_bytes(batch: int, layers: int, tokens: int, kv_heads: int, head_dim: int, bytes_per_number=2):
    """KV cache 字节数 = 2 × batch × layers × tokens × kv_heads × head_dim × bytes_per_number。教学位置：第 14.5 节。

    2 表示 K、V 两份；kv_heads 是 KV head 数（GQA/MQA 下少于 Query head 数，见 kv_heads）。
    例：1 条序列、32 层、8,192 token、8 个 KV head、每头 128 维、2 字节 → 1,073,741,824（1 GiB）。
    假设各层同宽、K 与 V 等宽；不含预分配空位、分页元数据、量化尺度等实现开销，也不含模型权重。
    """
    size = 2 * _n(batch, "batch") * _n(layers, "layers") * _n(tokens, "tokens")
    return _whole(size * _n(kv_heads, "kv_heads") * _n(head_dim, "head_dim") * _bytes_per(bytes_per_number))


def kv_heads(kind: str, n_heads: int, groups: int | None = None) -> int:
    """要缓存的 KV head 数：MHA = n_heads，GQA = groups（每组 n_heads/groups 个 Query head 共享一份 K/V），
    MQA = 1。教学位置：第 14.5、14.6 节。例：kv_heads('GQA', 32, groups=8) → 8
    """
    h = _n(n_heads, "n_heads")
    k = kind.upper() if isinstance(kind, str) else None
    if k == "MHA":
        return h
    if k == "MQA":
        return 1
    if k == "GQA":
        if groups is None:
            raise ValueError("GQA 需要给出 groups（KV head 的组数）")
        g = _n(groups, "groups")
        if h % g:
            raise ValueError(f"groups={g} 必须整除 n_heads={h}（每组的 Query head 数相同）")
        return g
    raise ValueError(f"kind 只能是 'MHA'、'GQA' 或 'MQA'，收到 {kind!r}")


def kv_cache_comparison(batch: int, layers: int, tokens: int, n_heads: int, head_dim: int, groups: int,
                        bytes_per_number=2) -> dict:
    """同一模型尺寸下三种注意力的 KV cache 字节数 {'MHA': …, 'GQA': …, 'MQA': …}。教学位置：第 14.6 节。

    例：32 个 Query head、groups=8，其余同第 14.5 节 → MHA 4 GiB，GQA 1 GiB，MQA 128 MiB。
    """
    return {kind: kv_cache_bytes(batch, layers, tokens, kv_heads(kind, n_heads, groups), head_dim, bytes_per_number)
            for kind in ("MHA", "GQA", "MQA")}


# ---------- 第 17.3 节：LoRA ----------
def dense_params(d_in: int, d_out: int) -> int:
    """完整更新一个 d_out × d_in 矩阵的参数数。例：4×4 → 16；4,096×4,096 → 16,777,216"""
    return _n(d_in, "d_in") * _n(d_out, "d_out")


def lora_params(d_in: int, d_out: int, r: int) -> int:
    """LoRA 新增的可训练参数数：B (d_out × r) 加 A (r × d_in) = r × (d_in + d_out)。教学位置：第 17.3 节。

    例：4×4、r=1 → 8（完整是 16）；4,096×4,096、r=8 → 65,536（完整的 1/256）。
    r 不能超过 min(d_in, d_out)：BA 的秩最多就这么大。
    """
    d_in, d_out, r = _n(d_in, "d_in"), _n(d_out, "d_out"), _n(r, "r")
    if r > min(d_in, d_out):
        raise ValueError(f"r={r} 超过了 min(d_in, d_out)={min(d_in, d_out)}：BA 的秩最多是它，再大没有意义")
    return r * (d_in + d_out)


def lora_scale(alpha, r: int) -> float:
    """LoRA 的缩放系数 α/r：W = W₀ + (α/r)·B·A。教学位置：第 17.3 节。缩放不改变参数个数。

    例：lora_scale(16, 8) → 2.0；α = r 时为 1，才简写成“原权重 + B×A”。
    """
    return float(check_positive(alpha, "alpha")) / _n(r, "r")


# ---------- 第 14.6 节：运算量 ----------
def rnn_flops(n: int, d: int, d_in: int | None = None) -> int:
    """普通稠密 RNN 读完 n 个 token 的 FLOPs：n × 2 × (d_in·d + d·d)，即每步 x@Wx 与 h@Wh 两次矩阵乘。

    教学位置：第 14.6 节，O(n·d²)。d_in 默认等于 d（输入与隐藏维同阶），此时为 4·n·d²。
    """
    n, d = _n(n, "n"), _n(d, "d")
    d_in = d if d_in is None else _n(d_in, "d_in")
    return 2 * n * (d_in * d + d * d)


def transformer_layer_flops(n: int, d: int, ffn_mult: int = 4, breakdown: bool = False):
    """一个标准 Transformer 层对 n 个 token 整段前向的 FLOPs（单条序列）。教学位置：第 14.6 节，O(n·d² + n²·d)。

    投影 Q、K、V、输出：4 × 2·n·d² = 8·n·d²；
    注意力 QKᵀ 与 权重@V：2 × 2·n²·d = 4·n²·d（各 head 合计，与 head 数无关）；
    FFN d → ffn_mult·d → d：2 × 2·n·d·(ffn_mult·d) = 4·ffn_mult·n·d²。
    合计 (8 + 4·ffn_mult)·n·d² + 4·n²·d；ffn_mult=4 时 24·n·d² + 4·n²·d。不含输出词表层。
    breakdown=True 返回 {'projections', 'attention', 'ffn', 'total'}。
    """
    n, d, m = _n(n, "n"), _n(d, "d"), _n(ffn_mult, "ffn_mult")
    parts = {"projections": 8 * n * d * d, "attention": 4 * n * n * d, "ffn": 4 * m * n * d * d}
    parts["total"] = sum(parts.values())
    return parts if breakdown else parts["total"]


def transformer_decode_step_flops(n: int, d: int, ffn_mult: int = 4, kv_cache: bool = True) -> int:
    """生成一个新 token 时一层的 FLOPs；n 是新 token 要读取的位置数（历史加它自己）。教学位置：第 14.5、14.6 节。

    kv_cache=True：只为新 token 做投影与 FFN，(8 + 4·ffn_mult)·d²，加上读取 n 个缓存位置的 4·n·d，
    即 O(d² + n·d)。kv_cache=False：整段 n 个 token 重算一遍，等于 transformer_layer_flops(n, d)。
    """
    if not isinstance(kv_cache, bool):
        raise TypeError(f"kv_cache 必须是 True 或 False，收到 {type(kv_cache).__name__}")
    if not kv_cache:
        return transformer_layer_flops(n, d, ffn_mult)
    n, d, m = _n(n, "n"), _n(d, "d"), _n(ffn_mult, "ffn_mult")
    return (8 + 4 * m) * d * d + 4 * n * d


# ---------- 单位 ----------
def _num(v: float) -> str:
    if abs(v - round(v)) < 1e-9:
        return f"{round(v):,}"
    return f"{v:,.2f}".rstrip("0").rstrip(".")


def _unit(n: float, step: int, units: tuple) -> str:
    i = 0
    while i + 1 < len(units) and n >= step ** (i + 1):
        i += 1
    return f"{_num(n / step ** i)} {units[i]}"


def format_bytes(n, style: str = "both") -> str:
    """把字节数写成人看的单位。style='binary'（KiB/MiB/GiB）、'decimal'（kB/MB/GB）或 'both'（默认）。

    例：format_bytes(33_554_432) → '32 MiB（33.55 MB）'；format_bytes(5_120_000) → '4.88 MiB（5.12 MB）'；
    format_bytes(2**30) → '1 GiB（1.07 GB）'。不足 1000 字节只写 'B'。
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Real):
        raise TypeError(f"n 必须是字节数（数），收到 {type(n).__name__}")
    check_positive(n, "n", allow_zero=True)
    binary = _unit(n, 1024, ("B", "KiB", "MiB", "GiB", "TiB", "PiB"))
    decimal = _unit(n, 1000, ("B", "kB", "MB", "GB", "TB", "PB"))
    if style == "binary":
        return binary
    if style == "decimal":
        return decimal
    if style != "both":
        raise ValueError(f"style 只能是 'both'、'binary' 或 'decimal'，收到 {style!r}")
    return binary if binary == decimal else f"{binary}（{decimal}）"
