"""结构示意图（展示层）：用 matplotlib 画出第 8、9、12、13、15 章的模型结构，标签用中文。

每个函数返回一张 Figure，图上画的东西同时放在 ``fig.diagram`` 里（一个小字典）：
``boxes``（框的键 → 标签）、``arrows``（(起点键, 终点键) 的列表）以及各图自己的数据（门的顺序、
注意力权重、遮罩……）。``describe(fig)`` 把它写成几行文字，notebook 在画图的单元里打印它，
所以 nbval 比较文字时也检查了图的内容。
名字和形状都从包里取：RNN 的参数键与形状（rnn.init_cell_params）、LSTM 四个门的顺序（rnn.lstm_cell
的缓存）、Transformer 层的子层顺序（transformer.BLOCK_KEYS）、三种模型家族的遮罩（objectives）。
不做的事：不画数据曲线（那是 viz），不做交互。
"""
from __future__ import annotations

import numpy as np

from .palette import PALETTE

__all__ = ["rnn_unrolled", "lstm_cell", "seq2seq_attention", "transformer_block", "model_families", "describe"]

BLUE, ORANGE, GREEN, VERMILION, PURPLE, SKY, YELLOW, BLACK = PALETTE
_SUB = str.maketrans("0123456789-+", "₀₁₂₃₄₅₆₇₈₉₋₊")


def _sub(s) -> str:
    """'t-1' → 'ₜ₋₁' 里的数字部分：把数字和正负号换成下标字符。例：_sub(12) → '₁₂'"""
    return str(s).translate(_SUB)


def _tint(color: str, amount: float = 0.82):
    """把颜色和白色按比例混合，作框的底色。"""
    from matplotlib.colors import to_rgb
    r, g, b = to_rgb(color)
    return (r + (1 - r) * amount, g + (1 - g) * amount, b + (1 - b) * amount)


class _Board:
    """一块画布：记下画过的框和箭头，最后挂到 fig.diagram 上。"""

    def __init__(self, ax, xlim, ylim):
        self.ax, self.boxes, self.arrows, self._patch = ax, {}, [], {}
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
        ax.axis("off")

    def box(self, key, x, y, w, h, label, color=BLUE, fontsize=10, round_=True, fill=True, text_color="black"):
        from matplotlib.patches import FancyBboxPatch
        style = "round,pad=0,rounding_size=0.12" if round_ else "square,pad=0"
        p = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle=style, lw=1.3, ec=color,
                           fc=_tint(color) if fill else "white", zorder=2)
        self.ax.add_patch(p)
        self.ax.text(x, y, label, ha="center", va="center", fontsize=fontsize, zorder=3, color=text_color)
        self.boxes[key], self._patch[key] = label, p
        return key

    def op(self, key, x, y, symbol, color=BLACK, r=0.22, fontsize=12):
        """一个圆形的运算节点（⊙ 逐格相乘、+ 相加）。"""
        from matplotlib.patches import Circle
        p = Circle((x, y), r, lw=1.3, ec=color, fc="white", zorder=2)
        self.ax.add_patch(p)
        self.ax.text(x, y, symbol, ha="center", va="center", fontsize=fontsize, zorder=3)
        self.boxes[key], self._patch[key] = symbol, p
        return key

    def arrow(self, src, dst, label="", color="#444444", lw=1.3, style="-", rad=0.0, label_xy=None,
              fontsize=8, angle=None):
        pa, pb = self._patch[src], self._patch[dst]
        cs = angle if angle is not None else f"arc3,rad={rad}"
        self.ax.annotate("", xy=_center(pb), xytext=_center(pa), zorder=1,
                         arrowprops=dict(arrowstyle="-|>", color=color, lw=lw, linestyle=style,
                                         shrinkA=1, shrinkB=1, patchA=pa, patchB=pb, connectionstyle=cs,
                                         mutation_scale=12))
        if label:
            (ax_, ay_), (bx_, by_) = _center(pa), _center(pb)
            x, y = label_xy if label_xy is not None else ((ax_ + bx_) / 2, (ay_ + by_) / 2)
            self.ax.text(x, y, label, ha="center", va="center", fontsize=fontsize, color=color, zorder=4,
                         bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none"))
        self.arrows.append((src, dst))

    def skip(self, src, dst, x, color=VERMILION, label="残差"):
        """残差连接：从 src 的左边出发，沿竖线 x 绕过中间的子层，从左边进入 dst。"""
        (sx, sy), (dx, dy) = _center(self._patch[src]), _center(self._patch[dst])
        self.ax.plot([sx, x, x], [sy, sy, dy], color=color, lw=1.3, zorder=1, solid_joinstyle="miter")
        self.ax.annotate("", xy=(dx, dy), xytext=(x, dy), zorder=1,
                         arrowprops=dict(arrowstyle="-|>", color=color, lw=1.3, shrinkA=0, shrinkB=1,
                                         patchB=self._patch[dst], mutation_scale=12))
        self.ax.text(x - 0.1 if x < sx else x + 0.1, (sy + dy) / 2, label, ha="right" if x < sx else "left",
                     va="center", fontsize=8, color=color)
        self.arrows.append((src, dst))

    def structure(self, title, **extra) -> dict:
        return {"title": title, "boxes": dict(self.boxes), "arrows": list(self.arrows), **extra}


def _center(p):
    if hasattr(p, "center"):
        return tuple(p.center)
    return (p.get_x() + p.get_width() / 2, p.get_y() + p.get_height() / 2)


def _new(figsize, ncols=1, **kw):
    import matplotlib.pyplot as plt
    from .viz import setup_cjk_font
    setup_cjk_font()
    fig, axes = plt.subplots(1, ncols, figsize=figsize, **kw)
    plt.close(fig)          # 只由调用者返回的 Figure 显示一次
    return fig, axes


def _first_line(label: str) -> str:
    return str(label).split("\n")[0]


def _arrow_groups(arrows) -> list[str]:
    """把箭头按终点（再按起点）归组。例：[(a, m), (b, m), (m, x), (m, y)] → ['a,b→m', 'm→x,y']"""
    by_dst: dict = {}
    for a, b in arrows:
        by_dst.setdefault(b, []).append(a)
    by_src: dict = {}
    for b, srcs in by_dst.items():
        key = ",".join(srcs)
        by_src.setdefault(key, []).append(b)
    return [f"{srcs}→{','.join(dsts)}" for srcs, dsts in by_src.items()]


def describe(fig) -> str:
    """把 fig.diagram 写成几行文字：标题、框、箭头，以及各图附带的数据。例：
    describe(rnn_unrolled()) → '图：RNN 沿时间展开…\\n框（12）：…\\n箭头（12）：h₀ → rnn_cell…'"""
    d = getattr(fig, "diagram", None)
    if not isinstance(d, dict):
        raise TypeError("describe 需要 nlpbook.diagrams 里的函数画出的 Figure（带 .diagram 字典）")
    counts: dict = {}
    for v in d["boxes"].values():
        counts[_first_line(v)] = counts.get(_first_line(v), 0) + 1
    lines = [f"图：{d['title']}",
             f"框（{len(d['boxes'])}）：" + "，".join(k if c == 1 else f"{k} ×{c}" for k, c in counts.items()),
             f"箭头（{len(d['arrows'])}，按框的键）：" + "；".join(_arrow_groups(d["arrows"]))]
    for k, v in d.items():
        if k in ("title", "boxes", "arrows"):
            continue
        if isinstance(v, dict) and v and all(isinstance(m, np.ndarray) for m in v.values()):
            for mk, m in v.items():
                rows = " ".join("".join(str(int(b)) for b in row) for row in np.atleast_2d(m))
                lines.append(f"{k}·{mk} {m.shape}：{rows}")
        elif isinstance(v, dict):
            lines += [f"{k}·{mk}：{mv}" for mk, mv in v.items()]
        elif isinstance(v, np.ndarray):
            lines.append(f"{k}：{np.array2string(v, precision=3, floatmode='fixed', separator=', ')}")
        else:
            lines.append(f"{k}：{v}")
    return "\n".join(lines)


# ---------- 第 8.3 节：RNN 沿时间展开 ----------
def rnn_unrolled(tokens=("猫", "追", "狗"), d_in: int = 2, d_h: int = 4):
    """RNN 沿时间展开：同一个 rnn_cell（同一套 Wx、Wh、b）一步步读入词向量、传下隐藏状态。

    教学位置：第 8.3 节。参数键和形状取自 rnn.init_cell_params('rnn', d_in, d_h)。
    fig.diagram 另有 params（键 → 形状）与 steps（步数）。
    """
    from .rnn import init_cell_params
    tokens = [str(t) for t in tokens]
    if not 1 <= len(tokens) <= 6:
        raise ValueError(f"tokens 要有 1—6 个词（图的宽度有限），收到 {len(tokens)} 个")
    shapes = {k: v.shape for k, v in init_cell_params("rnn", d_in, d_h).items()}
    T = len(tokens)
    u = 3.4                                   # 每一步占的宽度
    fig, ax = _new((1.4 + 2.3 * T, 3.9))
    B = _Board(ax, (-1.0, u * T + 0.6), (-0.5, 4.0))
    B.box("h0", -0.35, 1.6, 1.0, 0.7, f"h₀\n全 0（{d_h} 维）", GREEN, fontsize=8)
    for t, w in enumerate(tokens, start=1):
        xc, xh = u * t - 1.75, u * t
        B.box(f"x{t}", xc, 0.1, 1.7, 0.7, f"x{_sub(t)}（{d_in} 维）\n“{w}”的词向量", ORANGE, fontsize=9)
        B.box(f"cell{t}", xc, 1.6, 2.15, 0.8, "rnn_cell\ntanh(x·Wx + h·Wh + b)", BLUE, fontsize=8)
        B.box(f"h{t}", xh, 1.6, 0.6, 0.6, f"h{_sub(t)}", GREEN)
        B.arrow(f"x{t}", f"cell{t}")
        B.arrow(f"h{t - 1}", f"cell{t}")
        B.arrow(f"cell{t}", f"h{t}")
    shared = "同一套参数，每一步共用：" + "，".join(f"{k} {v}" for k, v in shapes.items())
    B.box("params", (u * T - 1.75 + u - 1.75) / 2, 3.45, u * (T - 1) + 2.15, 0.55, shared, PURPLE, fontsize=9)
    for t in range(1, T + 1):
        B.arrow("params", f"cell{t}", color=PURPLE, style="--", lw=1.0)
    ax.text(u * T, 1.05, "最终状态", ha="center", fontsize=9, color=GREEN)
    fig.tight_layout()
    fig.diagram = B.structure(f"RNN 沿时间展开（{T} 步，词向量 {d_in} 维，隐藏状态 {d_h} 维）",
                              params=shapes, steps=T)
    return fig


# ---------- 第 9.3 节：LSTM 一步 ----------
_GATES = {"f": ("遗忘门", "σ", VERMILION), "i": ("输入门", "σ", BLUE),
          "g": ("候选内容", "tanh", ORANGE), "o": ("输出门", "σ", GREEN)}


def lstm_gate_order(d_in: int = 3, d_h: int = 2) -> list[str]:
    """lstm_cell 里 a = z @ W + b 四段的顺序（从它的缓存读出，与包保持一致）。例：→ ['f', 'i', 'g', 'o']"""
    from .rnn import init_cell_params, lstm_cell as _cell
    P = init_cell_params("lstm", d_in, d_h, seed=0)
    _, _, cache = _cell(np.zeros(d_in), np.zeros(d_h), np.zeros(d_h), P)
    return [k for k in cache if k in _GATES]


def lstm_cell(d_in: int = 3, d_h: int = 2):
    """LSTM 一步：z = [x; h_prev] 算出四段分数（顺序同 rnn.lstm_cell），
    c = f⊙c_prev + i⊙g，h = o⊙tanh(c)。教学位置：第 9.2—9.3 节。

    fig.diagram 另有 gates（顺序）、W（形状）与 W 的列切片（每个门用 W 的哪几列）。
    """
    from .rnn import init_cell_params
    order = lstm_gate_order(d_in, d_h)
    W_shape = init_cell_params("lstm", d_in, d_h)["W"].shape
    fig, ax = _new((10.5, 6.0))
    B = _Board(ax, (-0.6, 12.4), (-0.7, 6.3))
    top, gate_y, z_y = 5.0, 2.6, 0.9
    B.box("c_prev", 0.5, top, 1.3, 0.7, "cₜ₋₁\n旧记忆", PURPLE, fontsize=9)
    B.box("h_prev", 0.5, z_y - 0.45, 1.3, 0.7, "hₜ₋₁\n上一步输出", GREEN, fontsize=9)
    B.box("x", 0.5, z_y + 0.55, 1.3, 0.6, "xₜ 当前输入", ORANGE, fontsize=9)
    B.box("z", 3.2, z_y, 2.4, 0.9, f"z = [xₜ ; hₜ₋₁]\n（{d_in} + {d_h} = {W_shape[0]} 维）", BLACK, fontsize=9)
    B.arrow("x", "z")
    B.arrow("h_prev", "z")
    xs = dict(zip(order, (3.0, 5.0, 7.0, 9.3)))
    cols = {}
    for k, gate in enumerate(order):
        name, act, color = _GATES[gate]
        cols[gate] = f"W[:, {k * d_h}:{(k + 1) * d_h}]"
        B.box(gate, xs[gate], gate_y, 1.7, 0.95, f"{gate}  {name}\n{act}(z·{cols[gate]} + b)", color, fontsize=8)
        B.arrow("z", gate)
    B.op("mul_f", xs["f"], top, "⊙", VERMILION)
    B.op("mul_ig", (xs["i"] + xs["g"]) / 2, 3.95, "⊙", BLUE)
    B.op("add", (xs["i"] + xs["g"]) / 2, top, "+", BLACK)
    B.box("c", 11.3, top, 1.3, 0.7, "cₜ\n新记忆", PURPLE, fontsize=9)
    B.box("tanh_c", 11.3, 3.95, 1.1, 0.55, "tanh", PURPLE, fontsize=9)
    B.op("mul_o", 11.3, gate_y, "⊙", GREEN)
    B.box("h", 11.3, 1.0, 1.3, 0.7, "hₜ\n对外输出", GREEN, fontsize=9)
    B.arrow("c_prev", "mul_f", "记忆传送带", color=PURPLE, label_xy=(1.8, top + 0.3))
    B.arrow("f", "mul_f", "保留多少", color=VERMILION, label_xy=(xs["f"] + 0.55, 3.9))
    B.arrow("mul_f", "add", color=PURPLE)
    B.arrow("i", "mul_ig", color=BLUE)
    B.arrow("g", "mul_ig", color=ORANGE)
    B.arrow("mul_ig", "add", "写入多少", color=BLUE, label_xy=((xs["i"] + xs["g"]) / 2 + 0.75, 4.5))
    B.arrow("add", "c", color=PURPLE)
    B.arrow("c", "tanh_c", color=PURPLE)
    B.arrow("tanh_c", "mul_o", color=PURPLE)
    B.arrow("o", "mul_o", "说出多少", color=GREEN, label_xy=(10.6, gate_y + 0.3))
    B.arrow("mul_o", "h", color=GREEN)
    ax.text(3.2, -0.55, f"包里四段分数并排在一个 W {W_shape} 里，顺序 " + "、".join(order),
            ha="center", fontsize=9, color="#333333")
    fig.tight_layout()
    fig.diagram = B.structure(f"LSTM 一步（输入 {d_in} 维，记忆 {d_h} 维）", gates=order,
                              W=W_shape, W_columns=cols)
    return fig


# ---------- 第 12.4 节：编码器—解码器 + 注意力 ----------
def seq2seq_attention(src=("我", "喜欢", "猫"), tgt=("I", "like", "cats"), scores=(0.0, 1.0, 2.0), step=None):
    """编码器—解码器加注意力：编码器每一步的状态都留下，解码器生成第 step 个词时按权重读取它们。

    教学位置：第 12.1—12.4 节。权重由 attention.masked_softmax(scores) 算出（默认是课文 12.3 的 0、1、2 →
    0.090、0.245、0.665，生成 cats 的那一步）。step 默认是最后一个输出词。
    fig.diagram 另有 step（第几个输出词）、scores 与 weights。
    """
    from .attention import masked_softmax
    src, tgt = [str(s) for s in src], [str(t) for t in tgt]
    if not 1 <= len(src) <= 5 or not 1 <= len(tgt) <= 5:
        raise ValueError(f"src 和 tgt 各要有 1—5 个词，收到 {len(src)}、{len(tgt)} 个")
    s = np.asarray(scores, dtype=float)
    if s.shape != (len(src),):
        raise ValueError(f"scores 要给每个输入位置一个分数（{len(src)} 个），收到形状 {s.shape}")
    step = len(tgt) - 1 if step is None else step
    if not isinstance(step, (int, np.integer)) or not 0 <= step < len(tgt):
        raise ValueError(f"step 必须是 0..{len(tgt) - 1} 之间的整数（第几个输出词），收到 {step!r}")
    w = masked_softmax(s)
    n, m = len(src), len(tgt)
    gap = 1.9
    x_dec0 = gap * n + 1.6
    fig, ax = _new((2.0 + 1.9 * (n + m) + 1.5, 5.6))
    B = _Board(ax, (-1.0, x_dec0 + gap * (m - 1) + 1.1), (-0.6, 5.6))
    ax.text(gap * (n - 1) / 2, -0.45, "编码器：读输入句", ha="center", fontsize=10, color=BLUE)
    ax.text(x_dec0 + gap * (m - 1) / 2, -0.45, "解码器：一个词一个词地写", ha="center", fontsize=10, color=ORANGE)
    for j, word in enumerate(src):
        B.box(f"src{j}", gap * j, 0.3, 1.2, 0.55, f"“{word}”", BLACK, fontsize=10, fill=False)
        B.box(f"enc{j}", gap * j, 1.6, 1.2, 0.7, f"h{_sub(j + 1)}", BLUE)
        B.arrow(f"src{j}", f"enc{j}")
        if j:
            B.arrow(f"enc{j - 1}", f"enc{j}", color=BLUE)
    prev_in = ["<BOS>"] + tgt[:-1]
    for k in range(m):
        x = x_dec0 + gap * k
        B.box(f"in{k}", x, 0.3, 1.2, 0.55, prev_in[k], BLACK, fontsize=9, fill=False)
        B.box(f"dec{k}", x, 1.6, 1.2, 0.7, f"s{_sub(k + 1)}", ORANGE)
        B.box(f"out{k}", x, 4.9, 1.2, 0.55, tgt[k], VERMILION if k == step else BLACK, fontsize=10,
              fill=k == step)
        B.arrow(f"in{k}", f"dec{k}")
        B.arrow(f"dec{k - 1}" if k else f"enc{n - 1}", f"dec{k}", color=ORANGE,
                style="-" if k else ":", label="" if k else "早期做法：只交最后一个", label_xy=(
                    (gap * (n - 1) + x_dec0) / 2, 2.15))
    xo = x_dec0 + gap * step
    cx = (gap * (n - 1) + xo) / 2
    B.op("ctx", cx, 3.55, "Σ", VERMILION, r=0.3, fontsize=13)
    ax.text(cx - 0.45, 3.95, f"上下文（生成 {tgt[step]} 时）", ha="right", va="bottom", fontsize=9, color=VERMILION)
    for j in range(n):
        B.arrow(f"enc{j}", "ctx", f"{w[j]:.3f}", color=VERMILION, lw=0.6 + 4.0 * w[j], rad=-0.15,
                label_xy=(gap * j + (cx - gap * j) * 0.45, 1.6 + (3.55 - 1.6) * 0.45 + 0.1), fontsize=9)
    B.arrow("dec%d" % step, "ctx", "打分", color="#777777", style="--", rad=-0.25, fontsize=8)
    B.box("predict", xo, 3.55, 1.45, 0.6, "输出层\n→ 词表概率", BLACK, fontsize=8)
    B.arrow("ctx", "predict", color=VERMILION)
    B.arrow("dec%d" % step, "predict", color=ORANGE)
    B.arrow("predict", f"out{step}")
    fig.tight_layout()
    fig.diagram = B.structure(f"编码器—解码器加注意力（{n} 个输入词，生成第 {step + 1} 个输出词 {tgt[step]}）",
                              step=step, scores=s, weights=w)
    return fig


# ---------- 第 13.8 节：一个 Transformer 层 ----------
def block_sublayers() -> list[str]:
    """transformer.BLOCK_KEYS 里参数出现的顺序，归成子层。例：→ ['ln1', 'attention', 'ln2', 'ffn']"""
    from .transformer import BLOCK_KEYS
    out = []
    for k in BLOCK_KEYS:
        part = k.split("_")[0] if k.startswith("ln") else ("ffn" if k[1:] in ("1", "2") else "attention")
        if part not in out:
            out.append(part)
    return out


def transformer_block(d_model: int = 128, d_ff: int = 512, n_heads: int = 4):
    """一个 Transformer 层的两种布局，左 Pre-LN（包的默认，block_forward(pre_ln=True)），右 Post-LN（原始论文）。

    教学位置：第 13.8 节。子层顺序取自 transformer.BLOCK_KEYS，参数形状取自 init_block_params。
    fig.diagram 另有 sublayers（子层顺序）、pre_ln / post_ln（自下而上经过的框）与 shapes。
    """
    from .transformer import init_block_params
    order = block_sublayers()
    if order != ["ln1", "attention", "ln2", "ffn"]:
        raise RuntimeError(f"transformer.BLOCK_KEYS 的子层顺序变了：{order}；请同步更新这张图")
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} 必须能被 n_heads={n_heads} 整除")
    P = init_block_params(d_model, d_ff, np.random.default_rng(0))
    shapes = {k: P[k].shape for k in ("Wq", "Wo", "W1", "W2", "ln1_g")}
    labels = {"ln1": "LayerNorm（ln1_g, ln1_b）", "ln2": "LayerNorm（ln2_g, ln2_b）",
              "attention": f"多头注意力（{n_heads} 个头）\nWq Wk Wv Wo：{d_model}×{d_model}",
              "ffn": f"前馈网络 FFN\n{d_model} → {d_ff} → {d_model}（W1, W2）"}
    colors = {"ln1": PURPLE, "ln2": PURPLE, "attention": BLUE, "ffn": ORANGE}
    fig, axes = _new((10.0, 7.6), ncols=2)
    paths = {}
    for ax, pre in zip(axes, (True, False)):
        B = _Board(ax, (-2.7, 2.7), (-0.5, 8.9))
        tag = "pre" if pre else "post"
        seq = (["ln1", "attention", "add1", "ln2", "ffn", "add2"] if pre
               else ["attention", "add1", "ln1", "ffn", "add2", "ln2"])
        B.box(f"{tag}_x", 0, 0, 2.4, 0.6, f"输入 X（T × {d_model}）", GREEN, fontsize=9)
        y, prev, path = 1.25, f"{tag}_x", [f"{tag}_x"]
        skip_from = {"add1": f"{tag}_x"}
        for part in seq:
            key = f"{tag}_{part}"
            if part.startswith("add"):
                B.op(key, 0, y, "+", BLACK)
                y += 0.95
            else:
                B.box(key, 0, y, 3.4, 0.8 if part in ("attention", "ffn") else 0.55, labels[part], colors[part],
                      fontsize=8.5)
                y += 1.25 if part in ("attention", "ffn") else 1.0
            B.arrow(prev, key)
            path.append(key)
            prev = key
            if part == "add1":   # 第二个残差从这里（或它后面的 LayerNorm）分出
                skip_from["add2"] = key if pre else f"{tag}_ln1"
        out_label = "输出 Y = U + FFN(LN(U))" if pre else "输出 Z = LN(Y + FFN(Y))"
        B.box(f"{tag}_y", 0, y + 0.1, 3.0, 0.6, out_label, GREEN, fontsize=9)
        B.arrow(prev, f"{tag}_y")
        path.append(f"{tag}_y")
        for add in ("add1", "add2"):
            B.skip(skip_from[add], f"{tag}_{add}", 2.0 if (pre and add == "add2") else -2.0)
        if pre:
            ax.text(0.4, _center(B._patch["pre_add1"])[1] - 0.35, "U", fontsize=10, va="center")
        ax.set_title("Pre-LN（包的默认，GPT-2 以来常用）" if pre else "Post-LN（原始 Transformer）", fontsize=11)
        paths[tag] = [B.boxes[k].split("\n")[0].split("（")[0] for k in path]
        if pre:
            struct = B.structure("")
        else:
            s2 = B.structure("")
            struct["boxes"].update(s2["boxes"])
            struct["arrows"] += s2["arrows"]
    fig.tight_layout()
    fig.diagram = {"title": f"一个 Transformer 层（d_model={d_model}，d_ff={d_ff}，{n_heads} 个头）：左 Pre-LN，右 Post-LN",
                   "boxes": struct["boxes"], "arrows": struct["arrows"], "sublayers": order,
                   "pre_ln": " → ".join(paths["pre"]), "post_ln": " → ".join(paths["post"]), "shapes": shapes}
    return fig


# ---------- 第 15.2—15.5 节：三种模型家族 ----------
def family_examples(tokens=("这部", "电影", "非常", "精彩", "。"), masked: int = 3) -> dict:
    """三种家族在同一句话上的输入、目标与遮罩（True = 可以读取），全部由 objectives 的函数给出。

    BERT：第 masked 个位置换成 [MASK]，只在这里计算损失；GPT：causal_lm_pair 错开一位；
    T5：把第 masked 个词换成哨兵 <extra_id_0>（undo_span_corruption 能还原），解码器用 causal_lm_pair
    写出“哨兵 + 片段 + 结束哨兵”。
    """
    from . import objectives as O
    toks = [str(t) for t in tokens]
    if not 2 <= len(toks) <= 7:
        raise ValueError(f"tokens 要有 2—7 个词，收到 {len(toks)} 个")
    if not isinstance(masked, (int, np.integer)) or not 0 <= masked < len(toks):
        raise ValueError(f"masked 必须是 0..{len(toks) - 1} 之间的整数，收到 {masked!r}")
    n = len(toks)
    bert_in = toks[:masked] + ["[MASK]"] + toks[masked + 1:]
    bert_tgt = [toks[masked] if j == masked else "—" for j in range(n)]
    gpt_in, gpt_tgt = O.causal_lm_pair(toks, "<BOS>", "<EOS>")
    sent = ["<extra_id_0>", "<extra_id_1>"]
    t5_enc = toks[:masked] + [sent[0]] + toks[masked + 1:]
    t5_dec_in, t5_tgt = O.causal_lm_pair([sent[0], toks[masked]], "<BOS>", sent[1])
    vocab = {t: k for k, t in enumerate(dict.fromkeys(toks + sent))}
    restored = O.undo_span_corruption([vocab[t] for t in t5_enc], [vocab[t] for t in t5_tgt],
                                      [vocab[s] for s in sent])
    assert restored.tolist() == [vocab[t] for t in toks]
    masks = {"BERT 编码器": O.attention_mask_for("encoder", n),
             "GPT 解码器": O.attention_mask_for("decoder", len(gpt_in)),
             "T5 编码器": O.attention_mask_for("encoder", n),
             "T5 解码器": O.attention_mask_for("decoder", len(t5_dec_in)),
             "T5 交叉注意力": O.cross_attention_mask(len(t5_dec_in), n)}
    return {"BERT": {"inputs": bert_in, "targets": bert_tgt},
            "GPT": {"inputs": gpt_in, "targets": gpt_tgt},
            "T5": {"inputs": t5_enc, "decoder_inputs": t5_dec_in, "targets": t5_tgt},
            "masks": masks, "mask_axes": {"BERT 编码器": (bert_in, bert_in), "GPT 解码器": (gpt_in, gpt_in),
                                          "T5 编码器": (t5_enc, t5_enc), "T5 解码器": (t5_dec_in, t5_dec_in),
                                          "T5 交叉注意力": (t5_dec_in, t5_enc)}}


def _short(token: str) -> str:
    """图里的哨兵写短一点：'<extra_id_0>' → '<X0>'。"""
    return token.replace("<extra_id_", "<X")


def _token_row(B, prefix, tokens, y, x0, step, color=BLACK, fill=False, fontsize=8, highlight=()):
    keys = []
    for j, t in enumerate(tokens):
        keys.append(B.box(f"{prefix}{j}", x0 + step * j, y, step * 0.9, 0.5, _short(t), color,
                          fontsize=fontsize, fill=fill or j in highlight))
    return keys


def model_families(tokens=("这部", "电影", "非常", "精彩", "。"), masked: int = 3):
    """三种模型家族：上排是输入 → 模型 → 要预测的目标，下排是它们用的注意力遮罩（亮 = 可以读取）。

    教学位置：第 15.2—15.5 节。BERT 只有编码器（双向），GPT 只有解码器（因果），T5 编码器—解码器
    （编码器双向、解码器因果、交叉注意力读编码器全部位置）。数据见 family_examples。
    fig.diagram 另有 masks（五个遮罩，与 objectives 给出的相同）和 io（每个家族的输入与目标）。
    """
    import matplotlib.pyplot as plt
    from .viz import setup_cjk_font
    ex = family_examples(tokens, masked)
    setup_cjk_font()
    fig = plt.figure(figsize=(15, 6.3))
    plt.close(fig)
    n_b, n_g = len(ex["BERT"]["inputs"]), len(ex["GPT"]["inputs"])
    n_e, n_d = len(ex["T5"]["inputs"]), len(ex["T5"]["decoder_inputs"])
    outer = fig.add_gridspec(2, 1, height_ratios=[1.35, 1.0], hspace=0.2)
    top = outer[0].subgridspec(1, 3, width_ratios=[n_b, n_g, n_e + n_d + 0.6], wspace=0.08)
    bottom = outer[1].subgridspec(1, 5, wspace=0.45)
    boxes, arrows = {}, []
    step = 1.15
    # BERT
    axb = fig.add_subplot(top[0])
    B = _Board(axb, (-0.6, step * (n_b - 1) + 0.6), (-0.5, 4.3))
    ins = _token_row(B, "bert_in", ex["BERT"]["inputs"], 0.2, 0, step, highlight=(masked,))
    B.box("bert_model", step * (n_b - 1) / 2, 1.9, step * n_b - 0.2, 0.9, "编码器（双向）", BLUE)
    outs = _token_row(B, "bert_out", ex["BERT"]["targets"], 3.6, 0, step, color=VERMILION, highlight=(masked,))
    for k in ins:
        B.arrow(k, "bert_model")
    B.arrow("bert_model", outs[masked], color=VERMILION)
    axb.set_title("BERT：填空（只在 [MASK] 处算损失）", fontsize=10)
    boxes.update(B.boxes), arrows.extend(B.arrows)
    # GPT
    axg = fig.add_subplot(top[1])
    G = _Board(axg, (-0.6, step * (n_g - 1) + 0.6), (-0.5, 4.3))
    ins = _token_row(G, "gpt_in", ex["GPT"]["inputs"], 0.2, 0, step)
    G.box("gpt_model", step * (n_g - 1) / 2, 1.9, step * n_g - 0.2, 0.9, "解码器（因果：只看前文）", ORANGE)
    outs = _token_row(G, "gpt_out", ex["GPT"]["targets"], 3.6, 0, step, color=VERMILION, fill=True)
    for k in ins:
        G.arrow(k, "gpt_model")
    for k in outs:
        G.arrow("gpt_model", k, color=VERMILION)
    axg.set_title("GPT：每个位置预测下一个 token（错开一位）", fontsize=10)
    boxes.update(G.boxes), arrows.extend(G.arrows)
    # T5
    axt = fig.add_subplot(top[2])
    xd0 = step * n_e + 0.3
    T = _Board(axt, (-0.6, xd0 + step * (n_d - 1) + 0.6), (-0.5, 4.3))
    ins = _token_row(T, "t5_in", ex["T5"]["inputs"], 0.2, 0, step, highlight=(masked,))
    T.box("t5_encoder", step * (n_e - 1) / 2, 1.9, step * n_e - 0.2, 0.9, "编码器（双向）", BLUE)
    dins = _token_row(T, "t5_dec_in", ex["T5"]["decoder_inputs"], 0.2, xd0, step)
    T.box("t5_decoder", xd0 + step * (n_d - 1) / 2, 1.9, step * n_d - 0.2, 0.9, "解码器（因果）", ORANGE)
    outs = _token_row(T, "t5_out", ex["T5"]["targets"], 3.6, xd0, step, color=VERMILION, fill=True)
    for k in ins:
        T.arrow(k, "t5_encoder")
    for k in dins:
        T.arrow(k, "t5_decoder")
    T.arrow("t5_encoder", "t5_decoder", "交叉注意力", color=GREEN, lw=2.0, fontsize=8)
    for k in outs:
        T.arrow("t5_decoder", k, color=VERMILION)
    axt.set_title("T5：读完输入，写出被拿走的片段", fontsize=10)
    boxes.update(T.boxes), arrows.extend(T.arrows)
    # 遮罩
    for col, (name, m) in enumerate(ex["masks"].items()):
        ax = fig.add_subplot(bottom[col])
        rows, cols = ex["mask_axes"][name]
        ax.imshow(m.astype(int), cmap="cividis", vmin=0, vmax=1)
        ax.set_xticks(range(len(cols)), [_short(c) for c in cols], rotation=60, fontsize=7)
        ax.set_yticks(range(len(rows)), [_short(r) for r in rows], fontsize=7)
        ax.set_title(f"{name}：{int(m.sum())}/{m.size} 可读", fontsize=9)
        ax.set_xlabel("被读取（键）", fontsize=8)
        if col == 0:
            ax.set_ylabel("查询", fontsize=8)
    fig.subplots_adjust(left=0.05, right=0.99, top=0.96, bottom=0.12)
    io = {fam: "；".join(f"{k}={' '.join(v)}" for k, v in ex[fam].items()) for fam in ("BERT", "GPT", "T5")}
    fig.diagram = {"title": "三种模型家族的输入、目标与注意力遮罩（<X0> 即 <extra_id_0>）",
                   "boxes": boxes, "arrows": arrows, "io": io, "masks": dict(ex["masks"])}
    return fig
