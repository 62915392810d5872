"""KV cache 计算器（第 14.5—14.6 节）：把公式里的每个数做成旋钮，看缓存有多大，MHA / GQA / MQA 各差多少。

公式与字节数全部来自 cost.kv_cache_bytes / kv_cache_comparison；这里只负责控件、代入数字的算式和条形图。
面板在浏览器里运行（js/kv_cache.js）：公式是几个小整数的乘积，浏览器里照同一个公式相乘（不用大表）。
默认值是课文第 14.5 节的设置：1 条序列、32 层、8,192 个 token、8 个 KV head（32 个 Query head 分 8 组的 GQA）、
每头 128 维、每个数 2 字节 → 1 GiB。
"""
from __future__ import annotations

import html

import traitlets

from ..cost import format_bytes, kv_cache_bytes, kv_cache_comparison, kv_heads
from ..svgplot import bar_chart
from ._client import ClientPanel

__all__ = ["KINDS", "BYTES_OPTIONS", "GROUPS_REASON", "divisors", "bytes_unit", "groups_reason", "kv_cache_html",
           "KVCachePanel"]

KINDS = ("MHA", "GQA", "MQA")
BYTES_OPTIONS = (("4（float32）", 4), ("2（float16 / bfloat16）", 2), ("1（8 位量化）", 1), ("0.5（4 位量化）", 0.5))
_KIND_NOTE = {"MHA": "普通多头注意力：每个 Query head 都有自己的一份 K/V",
              "GQA": "分组查询注意力：同组的 Query head 共享一份 K/V",
              "MQA": "多查询注意力：所有 Query head 共享同一份 K/V"}


def divisors(n: int) -> list[int]:
    """n 的全部正约数（GQA 的组数必须整除 Query head 数）。例：divisors(12) → [1, 2, 3, 4, 6, 12]"""
    return [g for g in range(1, n + 1) if n % g == 0]


_BINARY = (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10), ("B", 1))
CHART_WIDTH = 860  # 放得进 900 px 的 notebook 栏
TRY = "试一试：把“已缓存 token 数”拖到最右，再把注意力从 MHA 换成 MQA——缓存缩小了多少倍？"
GROUPS_REASON = {"MHA": "组数只对 GQA 有意义：MHA 每个 Query head 各有一份 K/V，不分组。",
                 "MQA": "组数只对 GQA 有意义：MQA 所有 Query head 共用一份 K/V，相当于只有 1 组。",
                 "GQA": "组数 = 要缓存的 KV head 数；只能取 Query head 数的约数。"}


def bytes_unit(n) -> tuple[str, int]:
    """按最大值挑图的单位（二进制）：例 bytes_unit(2**48) → ('TiB', 2**40)；bytes_unit(300) → ('B', 1)。"""
    return next((name, size) for name, size in _BINARY if n >= size or size == 1)


def _axis_number(v: float) -> str:
    """坐标刻度：千位分隔，最多两位小数，不用科学计数法。例：1500 → '1,500'；0.25 → '0.25'"""
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}".rstrip("0").rstrip(".")


def kv_cache_html(batch: int = 1, layers: int = 32, tokens: int = 8192, n_heads: int = 32, head_dim: int = 128,
                  bytes_per_number=2, kind: str = "GQA", groups: int = 8, width: int = CHART_WIDTH) -> str:
    """代入数字的算式、所选注意力的 KV cache 大小，以及 MHA / GQA / MQA 的条形图。

    图的单位跟着最大的那根柱子变（B、KiB、MiB、GiB、TiB），每根柱子上写它自己的大小（如“128 MiB”）。
    """
    h_kv = kv_heads(kind, n_heads, groups)
    total = kv_cache_bytes(batch, layers, tokens, h_kv, head_dim, bytes_per_number)
    cmp = kv_cache_comparison(batch, layers, tokens, n_heads, head_dim, groups, bytes_per_number)
    unit, size = bytes_unit(max(cmp.values()))
    labels = [f"MHA（{n_heads} 个 KV head）", f"GQA（{groups} 组 → {groups} 个）", "MQA（1 个）"]
    chart = bar_chart(labels, {f"KV cache（{unit}）": [cmp[k] / size for k in KINDS]},
                      title=f"同样 {n_heads} 个 Query head，要缓存的 K/V 有多少（纵轴单位 {unit}）", ylabel=unit,
                      fmt=lambda v: format_bytes(v * size, style="binary"), tick_fmt=_axis_number,
                      width=width, height=240)
    formula = (f"2 × {batch:,} × {layers:,} × {tokens:,} × <b>{h_kv:,}</b> × {head_dim:,} × {bytes_per_number:g} 字节"
               f" = <b>{total:,}</b> 字节 = <b>{html.escape(format_bytes(total))}</b>")
    legend = ("2（K 和 V）× 序列数 × 层数 × 已缓存 token 数 × <b>KV head 数</b> × 每头维度 × 每个数的字节数")
    ratio = round(cmp["MHA"] / total)  # KV head 数整除 Query head 数，所以是整数倍
    versus = "与 MHA 相同" if ratio == 1 else f"是 MHA 的 1/{ratio}"
    return (f"<div style='color:#555'>{html.escape(TRY)}</div>"
            f"<div><b>{kind}</b>：{_KIND_NOTE[kind]}，要缓存 <b>{h_kv}</b> 个 KV head。</div>"
            f"<div style='margin:4px 0;color:#555'>{legend}</div>"
            f"<div style='font-family:monospace;margin:4px 0'>{formula}</div>"
            f"<div>{versus}。只算缓存张量本身：不含模型权重、预分配空位、分页元数据、量化尺度等开销。</div>" + chart)


def groups_reason(kind: str, groups: int) -> str:
    """GQA 组数下拉框旁边的说明：为什么组数只能取约数，或（MHA、MQA 下）为什么它变灰。"""
    reason = GROUPS_REASON[kind]
    if kind != "GQA":
        reason += f"图中 GQA 那一栏仍按 {groups} 组画；选 GQA 后可以改。"
    return reason


# 滑块：(最小, 最大, 步长)
RANGES = {"batch": (1, 64, 1), "layers": (1, 128, 1), "tokens": (256, 131_072, 256), "n_heads": (1, 128, 1),
          "head_dim": (16, 256, 16)}


class KVCachePanel(ClientPanel):
    """序列数、层数、token 数、Query head 数、每头维度的滑块，字节数下拉框，MHA / GQA / MQA 切换和 GQA 组数；
    在浏览器里重画（js/kv_cache.js）。

    组数的选项随 Query head 数变化（只列出它的约数），原来的组数不再整除时取不超过它的最大约数；
    注意力不是 GQA 时组数下拉框变灰，旁边写明原因（groups_reason）。
    ``data``：公式的各项说明、每个 Query head 数的约数表、字节数选项；浏览器里只把公式的几项整数乘起来
    （最大 2⁴⁸，JavaScript 的数能精确表示），换算单位、画三根柱子。
    """

    module = "kv_cache"
    controls = ("batch", "layers", "tokens", "n_heads", "head_dim", "bytes_per_number", "kind", "groups")
    batch = traitlets.Int(1).tag(sync=True)
    layers = traitlets.Int(32).tag(sync=True)
    tokens = traitlets.Int(8192).tag(sync=True)
    n_heads = traitlets.Int(32).tag(sync=True)
    head_dim = traitlets.Int(128).tag(sync=True)
    bytes_per_number = traitlets.Union([traitlets.Int(), traitlets.Float()], default_value=2).tag(sync=True)
    kind = traitlets.Unicode("GQA").tag(sync=True)
    groups = traitlets.Int(8).tag(sync=True)

    def __init__(self, batch: int = 1, layers: int = 32, tokens: int = 8192, n_heads: int = 32, head_dim: int = 128,
                 bytes_per_number=2, kind: str = "GQA", groups: int = 8):
        kv_cache_html(batch, layers, tokens, n_heads, head_dim, bytes_per_number, kind, groups)   # 先检查输入
        data = {"ranges": {k: list(v) for k, v in RANGES.items()},
                "bytes_options": [list(o) for o in BYTES_OPTIONS], "kinds": list(KINDS), "kind_notes": _KIND_NOTE,
                "reasons": GROUPS_REASON, "divisors": [divisors(h) for h in range(1, RANGES["n_heads"][1] + 1)],
                "try": TRY, "chart_width": CHART_WIDTH}
        super().__init__(batch=batch, layers=layers, tokens=tokens, n_heads=n_heads, head_dim=head_dim,
                         bytes_per_number=bytes_per_number, kind=kind, groups=groups, data=data)

    @traitlets.validate("batch", "layers", "tokens", "n_heads", "head_dim")
    def _valid_size(self, proposal):
        name, v = proposal["trait"].name, proposal["value"]
        lo, hi, step = RANGES[name]
        if not lo <= v <= hi or (v - lo) % step:
            raise traitlets.TraitError(f"{name} 取 {lo:,}—{hi:,} 中步长 {step} 的整数，收到 {v!r}")
        return v

    @traitlets.validate("bytes_per_number")
    def _valid_bytes(self, proposal):
        allowed = [v for _, v in BYTES_OPTIONS]
        if proposal["value"] not in allowed:
            raise traitlets.TraitError(f"bytes_per_number 只能是 {allowed} 之一，收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("kind")
    def _valid_kind(self, proposal):
        if proposal["value"] not in KINDS:
            raise traitlets.TraitError(f"kind 只能是 {list(KINDS)} 之一，收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("groups")
    def _valid_groups(self, proposal):
        if proposal["value"] not in divisors(self.n_heads):
            raise traitlets.TraitError(f"groups 只能取 Query head 数 {self.n_heads} 的约数 {divisors(self.n_heads)}，"
                                       f"收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.observe("n_heads")
    def _heads_changed(self, _change) -> None:
        """Query head 数变了：组数只能取它的约数，原来的组数不再整除时取不超过它的最大约数。"""
        opts = divisors(self.n_heads)
        if self.groups not in opts:
            self.groups = max(d for d in opts if d <= self.groups)

    @property
    def group_options(self) -> list[int]:
        """组数下拉框的选项：Query head 数的全部约数。"""
        return divisors(self.n_heads)

    @property
    def groups_disabled(self) -> bool:
        """MHA、MQA 下组数没有意义：下拉框变灰。"""
        return self.kind != "GQA"

    def fallback_html(self) -> str:
        return kv_cache_html(self.batch, self.layers, self.tokens, self.n_heads, self.head_dim, self.bytes_per_number,
                             self.kind, self.groups)
