"""注意力浏览器（第 13 章“注意力浏览器”一节；原理见第 13.3—13.7 节）：选一个提问的词，按“① 打分 → ② softmax → ③ 加权求和”
一步步看它在每个头里读取了谁；可以单看一个头，也可以把几个头叠加；“只看前文”打开因果遮罩。

两种数据：
- 分数表（kind="scores"）：每个头一张 (T, T) 原始分数表，例如 attention_demo 里手设的“指代头”“邻近头”；
  权重 = 逐行（先套遮罩）做 softmax，加权求和用 values。
- 权重表（kind="weights"）：已经归一化的权重，例如 tiny_transformer.attention_maps 给出的训练好的模型的各个头；
  只能看第 ② 步。遮罩后的权重 = 把看不到的位置置 0 再按行重新归一化（与先遮罩再 softmax 完全相同）。
计算全在 explorer_data 里，explorer_html 只负责画（也是保存的静态视图）；AttentionExplorer 在浏览器里运行
（js/attention_explorer.js）：Python 用 explorer_data 把每一层、每个提问的词、遮罩开关下各头的分数与权重算一次
（按显示的位数取三位小数），放进 ``data``，浏览器只查表、画连线图和表格。
第 ② ③ 步上方有一张连线图（links_svg）：从提问的词连向每个词，线和色块的深浅就是权重。
颜色取自 Okabe–Ito 色盲友好配色；看不到的位置另用灰色斜纹和“—”/“−∞”标出，不只靠颜色区分。
"""
from __future__ import annotations

import html

import numpy as np
import traitlets

from ..attention import apply_mask, causal_mask, masked_softmax
from ..attention_demo import HEADS, IT_INDEX, demo_score_matrix, demo_sentence, demo_values
from ..svgplot import text_width
from ._client import ClientPanel

__all__ = ["STEPS", "OVERLAY", "explorer_data", "links_svg", "explorer_html", "AttentionExplorer"]

STEPS = (("① 打分", "scores"), ("② softmax", "softmax"), ("③ 加权求和", "output"))
OVERLAY = "overlay"
HEAD_COLORS = ("#CC79A7", "#0072B2", "#009E73", "#E69F00", "#D55E00", "#56B4E9")  # Okabe–Ito
MAX_WIDTH = 860   # 视图放得进 900 px 的 notebook 栏
_MUTED = "#767676"  # 看不到的词：白底上对比度 4.5:1
_HATCH = "repeating-linear-gradient(45deg,#eeeeee,#eeeeee 4px,#d0d0d0 4px,#d0d0d0 8px)"
_STEP_NOTE = {
    "scores": "① 打分：提问的词和每个词各得一个相关度分数（Q 与 K 的点积，再除以 √d）。分数越高，下一步的权重越大。",
    "softmax": "② softmax：把一行分数变成加起来等于 1 的权重（取指数，再除以总和）。",
    "output": "③ 加权求和：按权重把每个词的“值” V 混进来，得到提问的词的新表示。",
    "weights": "② 权重：训练好的模型在这一层、这个头里给出的权重（softmax 之后，每行和为 1）。",
}


def _show(tok: str) -> str:
    return {"\n": "⏎", " ": "␠"}.get(tok, tok)


def _check(tokens, heads, query, step, head, causal, values, kind):
    if isinstance(tokens, str) or not hasattr(tokens, "__len__") or len(tokens) == 0 \
            or not all(isinstance(t, str) for t in tokens):
        raise TypeError("tokens 必须是非空的字符串列表（每个 token 一项）")
    T = len(tokens)
    if not isinstance(heads, dict) or not heads:
        raise TypeError("heads 必须是非空字典：{头的名字: (T, T) 分数表或权重表}")
    mats = {}
    for name, m in heads.items():
        a = np.asarray(m, dtype=float)
        if a.shape != (T, T):
            raise ValueError(f"heads[{name!r}] 的形状应为 ({T}, {T})（token 数 × token 数），收到 {a.shape}")
        if not np.isfinite(a).all():
            raise ValueError(f"heads[{name!r}] 含有 NaN 或无穷大；遮罩请用 causal=True，不要自己写 -inf")
        if kind == "weights" and (a.min() < -1e-9 or not np.allclose(a.sum(axis=1), 1.0, atol=1e-3)):
            raise ValueError(f"kind='weights' 时 heads[{name!r}] 的每一行必须是非负、和为 1 的权重")
        mats[str(name)] = a
    if kind not in ("scores", "weights"):
        raise ValueError(f"kind 只能是 'scores'（原始分数）或 'weights'（已归一化的权重），收到 {kind!r}")
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or not 0 <= query < T:
        raise ValueError(f"query 必须是 0..{T - 1} 之间的整数（共 {T} 个 token），收到 {query!r}")
    allowed = [s for _, s in STEPS] if kind == "scores" else ["softmax"]
    if step not in allowed:
        raise ValueError(f"step 只能是 {allowed} 之一（kind={kind!r}），收到 {step!r}")
    if head != OVERLAY and head not in mats:
        raise ValueError(f"head 只能是 {list(mats)} 之一，或 {OVERLAY!r}（叠加），收到 {head!r}")
    if not isinstance(causal, (bool, np.bool_)):
        raise TypeError(f"causal 必须是 True 或 False，收到 {type(causal).__name__}")
    if values is not None:
        values = np.asarray(values, dtype=float)
        if values.ndim != 2 or values.shape[0] != T:
            raise ValueError(f"values 的形状应为 ({T}, d_v)（每个 token 一个值向量），收到 {values.shape}")
    if step == "output" and values is None:
        raise ValueError("step='output'（加权求和）需要 values：每个 token 的值向量 (T, d_v)")
    return mats, int(query), values


def explorer_data(tokens, heads: dict, query: int, step: str = "softmax", head: str = OVERLAY,
                  causal: bool = False, values=None, kind: str = "scores") -> dict:
    """浏览器显示的全部数字。教学位置：第 13.3—13.5 节、第 13 章“注意力浏览器”一节。

    返回 {'query', 'step', 'heads'（显示的头）, 'visible'（布尔 (T,)，因果遮罩下 query 之后为 False）,
    'scores'（{头: 一行原始分数，看不到处为 -inf}；kind='weights' 时为空）, 'weights'（{头: 一行权重}）,
    'output'（{头: 权重 @ values}；没有 values 时为空）}。
    例：演示句、query=6（“它”）、causal=True → 两个头对“累”的权重都是 0。
    """
    mats, q, values = _check(tokens, heads, query, step, head, causal, values, kind)
    T = len(tokens)
    visible = causal_mask(T)[q] if causal else np.ones(T, dtype=bool)
    names = list(mats) if head == OVERLAY else [head]
    scores, weights, output = {}, {}, {}
    for name in names:
        row = mats[name][q]
        if kind == "scores":
            scores[name] = apply_mask(row, visible)
            weights[name] = masked_softmax(scores[name])
        else:
            w = np.where(visible, row, 0.0)
            weights[name] = w / w.sum()
        if values is not None:
            output[name] = weights[name] @ values
    return {"query": q, "step": step, "heads": names, "visible": visible, "scores": scores, "weights": weights,
            "output": output}


def _link_geometry(tokens, size: int = 14) -> dict:
    """连线图里每个色块的左端 x 与宽度、整张图的宽度（链接图与浏览器里的视图共用）。"""
    gap = 4
    widths = [max(24.0, text_width(t, size) + 10) for t in tokens]
    xs, x = [], 4.0
    for w in widths:
        xs.append(x)
        x += w + gap
    return {"xs": xs, "widths": widths, "total": x + 4 - gap}


def links_svg(tokens, weights: dict, query: int, visible=None, colors=None, max_width: int = MAX_WIDTH) -> str:
    """提问的词连向每个词的线，和底色深浅表示权重的 token 色块（SVG）。教学位置：第 13 章“注意力浏览器”一节。

    weights 是 {头: 一行权重 (T,)}；每个头一种颜色。线的不透明度等于权重、粗细随权重变；色块里每个头占一条，
    底色的不透明度（fill-opacity）就等于这个头给这个词的权重。visible 为 False 的位置（只看前文时的后文）
    画成灰色斜纹，权重 0，没有线。每个色块和每条线都带 data-head / data-key / data-weight（四位小数）。
    例：links_svg(["我", "爱", "你"], {"头 1": [0.2, 0.3, 0.5]}, query=2) → 三个色块，第三个最深。
    """
    T = len(tokens)
    names = list(weights)
    rows = {n: np.asarray(weights[n], dtype=float) for n in names}
    if any(r.shape != (T,) for r in rows.values()):
        raise ValueError(f"weights 的每一行长度都应为 {T}（token 数）")
    vis = np.ones(T, dtype=bool) if visible is None else np.asarray(visible, dtype=bool)
    colors = list(colors or HEAD_COLORS[:len(names)])
    size, chip_h, arc_h, top = 14, 26, 64, 6
    geo = _link_geometry(tokens, size)
    xs, widths, total = geo["xs"], geo["widths"], geo["total"]
    base = top + arc_h + 6                      # 色块的上沿
    H = base + chip_h + 6
    cx = [xs[j] + widths[j] / 2 for j in range(T)]
    span = max(max(cx) - min(cx), 1.0)
    label = f"从「{tokens[query]}」连向每个词的注意力权重：线越粗越深、色块底色越深，权重越大"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="links" width="{min(total, max_width):.0f}" '
           f'height="{H * min(1.0, max_width / total):.0f}" viewBox="0 0 {total:.1f} {H:.1f}" '
           f'role="img" aria-label="{html.escape(label)}" style="max-width:100%;font-family:sans-serif">',
           '<defs><pattern id="attn-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="6" height="6" fill="#eeeeee"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#c8c8c8" stroke-width="3"/></pattern></defs>']
    for n, c in zip(names, colors):            # 线：从提问的词的上沿连到每个看得见的词
        for j in range(T):
            if not vis[j]:
                continue
            w = float(rows[n][j])
            if j == query:                      # 看自己：一个小圈
                d = (f"M{cx[j] - 5:.1f},{base:.1f} C{cx[j] - 14:.1f},{base - 26:.1f} "
                     f"{cx[j] + 14:.1f},{base - 26:.1f} {cx[j] + 5:.1f},{base:.1f}")
            else:
                h = 14 + (arc_h - 14) * abs(cx[j] - cx[query]) / span
                d = (f"M{cx[query]:.1f},{base:.1f} Q{(cx[query] + cx[j]) / 2:.1f},{base - 2 * h:.1f} "
                     f"{cx[j]:.1f},{base:.1f}")
            out.append(f'<path class="link" data-head="{html.escape(n)}" data-key="{j}" data-weight="{w:.4f}" '
                       f'd="{d}" fill="none" stroke="{c}" stroke-opacity="{w:.4f}" '
                       f'stroke-width="{0.5 + 6 * w:.2f}"/>')
    band = chip_h / len(names)
    for j in range(T):                          # 色块：每个头一条，底色深浅 = 权重
        if not vis[j]:
            out.append(f'<rect class="chip" data-key="{j}" data-weight="0.0000" x="{xs[j]:.1f}" y="{base:.1f}" '
                       f'width="{widths[j]:.1f}" height="{chip_h}" rx="4" fill="url(#attn-hatch)"/>')
        for i, (n, c) in enumerate(zip(names, colors)):
            w = float(rows[n][j]) if vis[j] else 0.0
            out.append(f'<rect class="chip" data-head="{html.escape(n)}" data-key="{j}" data-weight="{w:.4f}" '
                       f'x="{xs[j]:.1f}" y="{base + i * band:.1f}" width="{widths[j]:.1f}" height="{band:.1f}" '
                       f'fill="{c}" fill-opacity="{w:.4f}"/>')
        stroke = ' stroke="#000" stroke-width="2.5"' if j == query else ' stroke="#999" stroke-width="0.8"'
        out.append(f'<rect x="{xs[j]:.1f}" y="{base:.1f}" width="{widths[j]:.1f}" height="{chip_h}" rx="4" '
                   f'fill="none"{stroke}/>')
        out.append(f'<text x="{cx[j]:.1f}" y="{base + chip_h / 2 + size * 0.36:.1f}" font-size="{size}" '
                   f'text-anchor="middle" fill="{"#000" if vis[j] else _MUTED}">{html.escape(tokens[j])}</text>')
    return "".join(out) + "</svg>"


def _bar(frac: float, color: str, width: int = 14) -> str:
    h = max(1, round(60 * frac)) if frac > 0 else 0
    return (f"<div style='display:inline-block;vertical-align:bottom;width:{width}px;height:{h}px;"
            f"background:{color};margin:0 1px'></div>")


def _cell(vals, visible, step, colors) -> str:
    """一个 token 的格子：每个头一根竖条和一个数（三位小数）；看不到的位置灰色斜纹。"""
    if not visible:
        nums = "<br>".join("−∞" if step == "scores" else "0" for _ in vals)
        crossed = "" if step != "scores" else "<br>".join(f"<s>{v:.3f}</s>" for v, _ in vals)
        return (f"<td style='background:{_HATCH};color:#555;text-align:center;font-family:monospace;"
                f"font-size:11px;padding:2px 4px' title='只看前文：这个位置还看不到'>"
                f"<div style='height:62px;line-height:62px'>—</div>{crossed}{'<br>' if crossed else ''}{nums}</td>")
    bars = "".join(_bar(f, c, max(6, 16 // len(vals))) for (_, f), c in zip(vals, colors))
    nums = "<br>".join(f"<span style='color:{c}'>■</span>{v:.3f}" for (v, _), c in zip(vals, colors))
    return (f"<td style='text-align:center;font-family:monospace;font-size:11px;padding:2px 4px'>"
            f"<div style='height:62px;display:flex;align-items:flex-end;justify-content:center'>{bars}</div>"
            f"{nums}</td>")


def _column_width(show) -> float:
    """数字表里一列约多宽（像素）：三位小数的等宽数字，或 token 本身（取大的）。"""
    return max([48.0] + [text_width(t, 14) + 10 for t in show])


def _columns_per_table(show) -> int:
    """数字表一张放几列：放得进 900 px 的 notebook 栏（浏览器里按视图的实际宽度再少放几列）。"""
    return max(1, int(MAX_WIDTH // _column_width(show)))


def _top3(w) -> list[int]:
    """权重最大的三个位置（同分时靠前的在前）：第 ③ 步的算式只写出这三项。"""
    return [int(j) for j in np.argsort(-np.asarray(w, dtype=float), kind="stable")[:3]]


def _swatch_rgb(out) -> str:
    """值是颜色（RGB，0—1）时，加权求和的结果对应的颜色 #rrggbb。"""
    return "#" + "".join(f"{int(round(255 * x)):02x}" for x in out)


def _colorlike(values) -> bool:
    vals = np.asarray(values, dtype=float)
    return bool(vals.shape[1] == 3 and vals.min() >= 0 and vals.max() <= 1)


def explorer_html(tokens, heads: dict, query: int, step: str = "softmax", head: str = OVERLAY,
                  causal: bool = False, values=None, kind: str = "scores", note: str = "", context: str = "") -> str:
    """浏览器的视图（HTML）：一行 token，每个 token 下是各头的竖条和数；step='output' 时再给出加权求和的结果。
    教学位置：第 13 章“注意力浏览器”一节。

    context 是标题行里额外的一段说明（如“第 2 层”）；note 是末尾的小字注释。
    """
    d = explorer_data(tokens, heads, query, step, head, causal, values, kind)
    q, names, vis = d["query"], d["heads"], d["visible"]
    colors = [HEAD_COLORS[list(heads).index(n) % len(HEAD_COLORS)] for n in names]
    show = [_show(t) for t in tokens]
    qtok = html.escape(show[q])
    if step == "scores":
        lo = min(float(d["scores"][n][vis].min()) for n in names)
        hi = max(float(d["scores"][n][vis].max()) for n in names)
        def frac(n, j):
            return 0.1 + 0.9 * (float(d["scores"][n][j]) - lo) / (hi - lo) if hi > lo and vis[j] else 1.0
        cols = [[(float(np.asarray(heads[n], dtype=float)[q, j]), frac(n, j)) for n in names]
                for j in range(len(tokens))]
    else:
        cols = [[(float(d["weights"][n][j]), float(d["weights"][n][j])) for n in names] for j in range(len(tokens))]
    head_th = [f"<th style='padding:2px 4px;{'border-bottom:3px solid #000;' if j == q else ''}"
               f"{'color:' + _MUTED + ';' if not vis[j] else ''}'>{html.escape(t)}</th>" for j, t in enumerate(show)]
    cells = [_cell(cols[j], bool(vis[j]), step, colors) for j in range(len(tokens))]
    # 太多列时分成几张表上下排，放得进 900 px 的栏
    per = _columns_per_table(show)
    tables = "".join(f"<table style='border-collapse:collapse;margin-bottom:4px'><tr>{''.join(head_th[a:a + per])}"
                     f"</tr><tr>{''.join(cells[a:a + per])}</tr></table>" for a in range(0, len(tokens), per))
    legend = "　".join(f"<span style='color:{c}'>■</span> {html.escape(n)}" for n, c in zip(names, colors))
    picture = ""
    if step != "scores":
        picture = (links_svg(show, {n: d["weights"][n] for n in names}, q, vis, colors)
                   + "<div style='color:#444;font-size:12px'>上图：从「" + qtok + "」连出的线越粗越深、"
                   "色块底色越深，它给那个词的权重越大（每个头一种颜色，色块里每个头占一条）。</div>")
    which = "叠加（" + " + ".join(names) + "）" if head == OVERLAY else names[0]
    where = f"<b>{html.escape(context)}</b>　" if context else ""
    parts = [f"<div style='font-family:sans-serif;max-width:{MAX_WIDTH + 40}px'><div>提问的词：<b>「{qtok}」</b>（第 {q + 1} 个）　{where}"
             f"头：<b>{html.escape(which)}</b>　只看前文：<b>{'开' if causal else '关'}</b></div>",
             f"<div style='color:#444;margin:2px 0'>{_STEP_NOTE['weights' if kind == 'weights' else step]}</div>",
             picture,
             f"<div style='font-size:12px;margin-top:4px'>{legend}</div>{tables}"]
    hidden = [show[j] for j in range(len(tokens)) if not vis[j]]
    if hidden:
        parts.append(f"<div>只看前文：「{qtok}」还看不到后面的 {len(hidden)} 个词（"
                     + "、".join(html.escape(t) for t in hidden)
                     + "），它们的分数被设为 −∞，权重恰好是 0（灰色斜纹）。</div>")
    if step != "scores":
        sums = "，".join(f"{html.escape(n)} {float(d['weights'][n].sum()):.3f}" for n in names)
        parts.append(f"<div style='color:#444'>每个头的权重之和：{sums}。</div>")
    if step == "output":
        colorlike = _colorlike(values)
        for n, c in zip(names, colors):
            w, out = d["weights"][n], d["output"][n]
            terms = " + ".join(f"{w[j]:.3f}×V(「{html.escape(show[j])}」)" for j in _top3(w))
            swatch = ""
            if colorlike:
                swatch = (f"<span style='display:inline-block;width:28px;height:14px;vertical-align:middle;"
                          f"background:{_swatch_rgb(out)};border:1px solid #000;margin-left:6px'></span>")
            more = " + …" if len(tokens) > 3 else ""
            parts.append(f"<div><span style='color:{c}'>■</span> {html.escape(n)}：新表示 = {terms}{more}"
                         f" = <b>[{', '.join(f'{x:.3f}' for x in out)}]</b>{swatch}</div>")
    if note:
        parts.append(f"<div style='color:#666;font-size:12px'>{html.escape(note)}</div>")
    return "".join(parts) + "</div>"


def _query_labels(tokens) -> list[str]:
    """提问的词的按钮/选项文字；有重复的 token 时前面加序号（“1·好”“2·好”）。"""
    show = [_show(t) for t in tokens]
    dup = len(set(show)) < len(show)
    return [f"{i + 1}·{t}" if dup else t for i, t in enumerate(show)]


def _r3(x) -> float:
    """按显示的位数（三位小数）取整：别的 BLAS 上最后一位的差别不会改变保存的数据；-0.0 记成 0.0。"""
    return round(float(x), 3) + 0.0


class AttentionExplorer(ClientPanel):
    """注意力浏览器面板，在浏览器里运行（js/attention_explorer.js）。控件：query（提问的词）、step（三步）、
    head（单个头或叠加）、causal（只看前文）；训练好的模型（from_maps）另有 layer（第几层），只看前文固定打开。
    教学位置：第 13 章“注意力浏览器”与“在真实数据上试一试”两节。

    默认：第 13 章的演示句与两个手设头（分数为示意值），提问的词“它”，第 ② 步，两个头叠加。
    ``data``：Python 用 explorer_data 对每一层、每个遮罩开关、每个提问的词算好的各头权重（三位小数）、
    原始分数（kind='scores'）、权重之和、加权求和的结果与其中最大的三项；浏览器只查表、画图。
    """

    DEMO_NOTE = "分数为手工设定的示意值，不来自真实模型；“值”是每个词的一种颜色（RGB）。"

    module = "attention_explorer"
    controls = ("query", "step", "head", "causal", "layer")
    query = traitlets.Int(0).tag(sync=True)
    step = traitlets.Unicode("softmax").tag(sync=True)
    head = traitlets.Unicode(OVERLAY).tag(sync=True)
    causal = traitlets.Bool(False).tag(sync=True)
    layer = traitlets.Int(0).tag(sync=True)

    def __init__(self, tokens=None, heads=None, query=None, step: str = "softmax", head: str = OVERLAY,
                 causal: bool = False, values=None, kind: str = "scores", note: str | None = None):
        if tokens is None and heads is None:
            tokens, heads = demo_sentence(), {h: demo_score_matrix(h) for h in HEADS}
            values = demo_values() if values is None else values
            query = IT_INDEX if query is None else query
            note = self.DEMO_NOTE if note is None else note
        if tokens is None or heads is None:
            raise TypeError("tokens 和 heads 要么都给出，要么都不给（都不给时用第 13 章的演示句与两个手设头）")
        self._setup(tokens, [dict(heads)], 0 if query is None else query, step, head, causal, values, kind, note,
                    layered=False, layer=0)

    @classmethod
    def from_maps(cls, maps, tokens, layer: int = 0, head=0, query: int | None = None, note: str = ""):
        """训练好的模型的注意力图：maps 形状 (层数, 头数, T, T)，每行是已归一化的权重（如 attention_maps 的结果）。

        head 可以是头的序号（0 起）、名字“头 1”…，或 'overlay'；query 默认最后一个 token。
        这个模型本身就是因果的：只看前文固定打开。
        """
        m = np.asarray(maps, dtype=float)
        if m.ndim != 4 or m.shape[2] != m.shape[3]:
            raise ValueError(f"maps 的形状应为 (层数, 头数, T, T)，收到 {m.shape}")
        if m.shape[2] != len(tokens):
            raise ValueError(f"maps 的 T={m.shape[2]} 与 tokens 的个数 {len(tokens)} 不一致")
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < m.shape[0]:
            raise ValueError(f"layer 必须是 0..{m.shape[0] - 1} 之间的整数，收到 {layer!r}")
        if isinstance(head, (int, np.integer)) and not isinstance(head, bool):
            if not 0 <= head < m.shape[1]:
                raise ValueError(f"head 必须是 0..{m.shape[1] - 1} 之间的整数、头的名字或 'overlay'，收到 {head!r}")
            head = f"头 {head + 1}"
        layers = [{f"头 {h + 1}": m[L, h] for h in range(m.shape[1])} for L in range(m.shape[0])]
        query = len(tokens) - 1 if query is None else query
        self = cls.__new__(cls)
        self._setup(tokens, layers, query, "softmax", head, True, None, "weights", note, layered=True, layer=int(layer))
        return self

    def _setup(self, tokens, layers, query, step, head, causal, values, kind, note, layered, layer) -> None:
        """两种构造方式共用：检查输入，用 explorer_data 把浏览器要查的数字算一次，建同步的控件值。"""
        tokens = list(tokens)
        for heads in layers:        # 先检查输入（报错信息写明允许的取值）
            explorer_html(tokens, heads, query, step, head, causal, values, kind)
        self.tokens, self.values, self.kind, self.note = tokens, values, kind, note or ""
        self._layers, self._layered = layers, layered
        names = list(layers[0])
        steps = STEPS if kind == "scores" else (("② 权重（已归一化）", "softmax"),)
        if kind == "scores" and values is None:
            steps = STEPS[:2]
        self._steps = [s for _, s in steps]
        self._causal_fixed = layered            # 训练好的模型本身是因果的
        super(AttentionExplorer, self).__init__(
            query=int(query), step=step, head=head, causal=bool(causal), layer=int(layer),
            data=self._data(tokens, layers, values, kind, names, steps, layered))

    def _data(self, tokens, layers, values, kind, names, steps, layered) -> dict:
        T = len(tokens)
        show = [_show(t) for t in tokens]
        step = "output" if values is not None else "softmax"
        causal_options = (True,) if layered else (False, True)
        colorlike = values is not None and _colorlike(values)
        w, sums, out, top, rgb = [], [], [], [], []
        for heads in layers:
            per_layer = {key: [None, None] for key in ("w", "sum", "out", "top", "rgb")}
            for c in causal_options:
                rows = {key: [] for key in per_layer}
                for q in range(T):
                    d = explorer_data(tokens, heads, q, step, OVERLAY, c, values, kind)
                    rows["w"].append([[_r3(x) for x in d["weights"][n]] for n in names])
                    rows["sum"].append([_r3(d["weights"][n].sum()) for n in names])
                    rows["top"].append([_top3(d["weights"][n]) for n in names])
                    if values is not None:
                        rows["out"].append([[_r3(x) for x in d["output"][n]] for n in names])
                        rows["rgb"].append([_swatch_rgb(d["output"][n]) if colorlike else None for n in names])
                for key in per_layer:
                    per_layer[key][int(c)] = rows[key] if rows[key] else None
            w.append(per_layer["w"])
            sums.append(per_layer["sum"])
            top.append(per_layer["top"])
            out.append(per_layer["out"])
            rgb.append(per_layer["rgb"])
        geo = _link_geometry(show)
        data = {
            "tokens": show, "labels": _query_labels(tokens), "kind": kind, "heads": names,
            "colors": [HEAD_COLORS[i % len(HEAD_COLORS)] for i in range(len(names))],
            "steps": [[label, value] for label, value in steps], "overlay": OVERLAY,
            "layers": [f"第 {L + 1} 层" for L in range(len(layers))] if layered else None,
            "causal_fixed": layered, "note": self.note,
            "step_notes": {k: _STEP_NOTE["weights" if kind == "weights" else k] for _, k in steps},
            # w[层][遮罩 0/1][提问的词][头] → 一行权重；算不到的组合（训练好的模型不关遮罩）为 null
            "w": w, "sum": sums, "top": top,
            "out": out if values is not None else None, "rgb": rgb if colorlike else None,
            # 原始分数（第 ① 步）：scores[层][头][提问的词][被看的词]；遮罩只是“j > 提问的词”，浏览器里判断
            "scores": [[[[_r3(x) for x in row] for row in np.asarray(heads[n], dtype=float)] for n in names]
                       for heads in layers] if kind == "scores" else None,
            "geo": {"xs": [round(x, 1) for x in geo["xs"]], "widths": [round(x, 1) for x in geo["widths"]],
                    "total": round(geo["total"], 1), "max_width": MAX_WIDTH},
            "per": _columns_per_table(show), "col_w": round(_column_width(show), 1), "muted": _MUTED,
        }
        return data

    @property
    def heads(self) -> dict:
        """当前这一层的 {头: (T, T) 分数表或权重表}。"""
        return self._layers[self.layer]

    @traitlets.validate("query")
    def _valid_query(self, proposal):
        q = proposal["value"]
        if not 0 <= q < len(self.tokens):
            raise traitlets.TraitError(f"query 必须是 0..{len(self.tokens) - 1} 之间的整数，收到 {q!r}")
        return q

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        if proposal["value"] not in self._steps:
            raise traitlets.TraitError(f"step 只能是 {self._steps} 之一，收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("head")
    def _valid_head(self, proposal):
        names = list(self._layers[0])
        if proposal["value"] != OVERLAY and proposal["value"] not in names:
            raise traitlets.TraitError(f"head 只能是 {names} 之一，或 {OVERLAY!r}（叠加），收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("causal")
    def _valid_causal(self, proposal):
        if self._causal_fixed and not proposal["value"]:
            raise traitlets.TraitError("这个模型本身就是因果的：只看前文不能关")
        return proposal["value"]

    @traitlets.validate("layer")
    def _valid_layer(self, proposal):
        if not 0 <= proposal["value"] < len(self._layers):
            raise traitlets.TraitError(f"layer 必须是 0..{len(self._layers) - 1} 之间的整数，收到 {proposal['value']!r}")
        return proposal["value"]

    def fallback_html(self) -> str:
        context = f"第 {self.layer + 1} 层" if self._layered else ""
        return explorer_html(self.tokens, self.heads, self.query, self.step, self.head, self.causal, self.values,
                             self.kind, self.note, context)
