"""顺序处理 vs 整句并行（第 14.4 节的步数计数器）：同一句话，RNN 和 Transformer 各要走几步。

计步规则（示意）：RNN 每一层都要按词一个接一个地算（第 t 个词的状态要等第 t−1 个），一层 n 步，
按层依次算共 n × 层数 步；Transformer 一层里所有位置同时算（训练时整句已知，用遮罩防偷看），一层一步，共 层数 步。
“一步”指一段必须等上一段算完才能开始的计算，不是运算量：Transformer 一步里的乘加并不少。
若让 RNN 的上一层紧跟着下一层逐词推进（流水线），最少也要 n + 层数 − 1 步，仍随句长增长。
"""
from __future__ import annotations

import html

import traitlets

from ..attention_demo import demo_sentence
from ._client import ClientPanel

__all__ = ["step_counts", "rnn_position", "parallel_steps_html", "RNNvsTransformerPanel"]

_DONE, _NOW, _TODO = "#CCDDAA", "#EE6677", "#EEEEEE"
MAX_LAYERS = 6
TRY = "试一试：把层数拖到 6，再按 End 键走到最后一步——RNN 要走多少步，Transformer 又要几步？"


def step_counts(n_tokens: int, layers: int = 1) -> dict:
    """需要多少个先后相继的步骤：{'rnn': n·层数, 'rnn_pipelined': n + 层数 − 1, 'transformer': 层数}。

    例：step_counts(10, 2) → {'rnn': 20, 'rnn_pipelined': 11, 'transformer': 2}
    """
    for v, name in ((n_tokens, "n_tokens"), (layers, "layers")):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} 必须是正整数，收到 {v!r}")
    return {"rnn": n_tokens * layers, "rnn_pipelined": n_tokens + layers - 1, "transformer": layers}


def rnn_position(step: int, n_tokens: int) -> tuple[int, int] | None:
    """RNN 按层依次计算时，第 step 步（从 1 数）在算哪一层（从 0 数）的哪个词（从 0 数）；step=0 返回 None。"""
    if step <= 0:
        return None
    return (step - 1) // n_tokens, (step - 1) % n_tokens


def _cell(tok: str, color: str) -> str:
    return (f"<td style='background:{color};padding:3px 6px;border:1px solid #fff;text-align:center;"
            f"color:#000'>{html.escape(tok)}</td>")


def _grid(tokens, layers: int, state) -> str:
    """层数 × 词数的格子，最上面一行是最后一层；state(layer, i) 返回颜色。"""
    rows = []
    for layer in reversed(range(layers)):
        cells = "".join(_cell(t, state(layer, i)) for i, t in enumerate(tokens))
        rows.append(f"<tr><td style='padding:0 6px;color:#555'>第 {layer + 1} 层</td>{cells}</tr>")
    return f"<table style='border-collapse:collapse;margin:4px 0'>{''.join(rows)}</table>"


def parallel_steps_html(tokens, layers: int, step: int) -> str:
    """第 step 步时两种网络的进度：绿色已算完，红色是这一步正在算的位置，灰色还没轮到。"""
    tokens = [str(t) for t in tokens]
    n = len(tokens)
    counts = step_counts(n, layers)
    step = max(0, min(int(step), counts["rnn"]))
    pos = rnn_position(step, n)

    def rnn_state(layer, i):
        if pos is None:
            return _TODO
        cur_layer, cur_tok = pos
        if (layer, i) == (cur_layer, cur_tok):
            return _NOW
        return _DONE if (layer < cur_layer or (layer == cur_layer and i < cur_tok)) else _TODO

    def tf_state(layer, i):
        if step == 0 or layer >= step:
            return _TODO
        return _NOW if layer == step - 1 else _DONE

    if pos is None:
        rnn_now = "还没开始。"
    else:
        rnn_now = (f"这一步只算第 {pos[0] + 1} 层的第 {pos[1] + 1} 个词“{html.escape(tokens[pos[1]])}”"
                   + ("（它要等前一个词的状态）。" if pos[1] else "。"))
    rnn_done = min(step, counts["rnn"])
    tf_done = min(step, counts["transformer"])
    if step == 0:
        tf_now = "还没开始。"
    elif step <= layers:
        tf_now = f"这一步第 {step} 层的 {n} 个位置同时算完。"
    else:
        tf_now = f"早在第 {layers} 步就全部算完了，之后在等 RNN。"
    return (f"<div style='color:#555'>{html.escape(TRY)}</div>"
            f"<div><b>循环网络（RNN）</b>：已走 <b>{rnn_done}</b> / {counts['rnn']} 步"
            f"（每层 {n} 步 × {layers} 层）。{rnn_now}</div>" + _grid(tokens, layers, rnn_state) +
            f"<div><b>Transformer</b>：已走 <b>{tf_done}</b> / {counts['transformer']} 步"
            f"（每层 1 步 × {layers} 层）。{tf_now}</div>" + _grid(tokens, layers, tf_state) +
            "<div style='color:#555'>绿色：已算完；红色：这一步在算；灰色：还没轮到。"
            f"步数只数“必须等上一步算完”的先后顺序，不是运算量。RNN 若让各层流水线式紧跟，最少也要 "
            f"{counts['rnn_pipelined']} 步（n + 层数 − 1），仍随句长增长。</div>")


class RNNvsTransformerPanel(ClientPanel):
    """词数（取演示句的前几个词）、层数（1—6）、当前步三个滑块；在浏览器里重画（js/parallel_steps.js）。

    步数滑块的范围是 0 … 词数 × 层数：词数或层数一变，上限跟着变，当前步超过新上限时取新上限。
    ``data``：全部词，以及 step_counts 在每个（词数, 层数）上的三个步数（表只有 词数 × 6 格）。
    """

    module = "parallel_steps"
    controls = ("n_tokens", "layers", "step")
    n_tokens = traitlets.Int(10).tag(sync=True)
    layers = traitlets.Int(1).tag(sync=True)
    step = traitlets.Int(1).tag(sync=True)

    def __init__(self, tokens=None, n_tokens: int | None = None, layers: int = 1, step: int = 1):
        self.all_tokens = [str(t) for t in (demo_sentence() if tokens is None else tokens)]
        total = len(self.all_tokens)
        if not total:
            raise ValueError("tokens 不能为空")
        n_tokens = total if n_tokens is None else n_tokens
        for v, name, hi in ((n_tokens, "n_tokens", total), (layers, "layers", MAX_LAYERS)):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
                raise ValueError(f"{name} 取 1—{hi} 的整数，收到 {v!r}")
        counts = [[[c["rnn"], c["rnn_pipelined"], c["transformer"]] for c in
                   (step_counts(n, L) for L in range(1, MAX_LAYERS + 1))] for n in range(1, total + 1)]
        data = {"tokens": self.all_tokens, "max_layers": MAX_LAYERS, "counts": counts, "try": TRY,
                "colors": {"done": _DONE, "now": _NOW, "todo": _TODO}}
        super().__init__(n_tokens=n_tokens, layers=layers, step=max(0, min(int(step), n_tokens * layers)), data=data)

    @property
    def step_max(self) -> int:
        """步数滑块的上限：RNN 按层依次算要走的步数（词数 × 层数）。"""
        return step_counts(self.n_tokens, self.layers)["rnn"]

    @traitlets.validate("n_tokens")
    def _valid_n(self, proposal):
        if not 1 <= proposal["value"] <= len(self.all_tokens):
            raise traitlets.TraitError(f"n_tokens 取 1—{len(self.all_tokens)}，收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("layers")
    def _valid_layers(self, proposal):
        if not 1 <= proposal["value"] <= MAX_LAYERS:
            raise traitlets.TraitError(f"layers 取 1—{MAX_LAYERS}，收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        if not 0 <= proposal["value"] <= self.step_max:
            raise traitlets.TraitError(f"step 取 0—{self.step_max}（词数 × 层数），收到 {proposal['value']!r}")
        return proposal["value"]

    @traitlets.observe("n_tokens", "layers")
    def _range_changed(self, _change) -> None:
        """词数或层数变了：当前步超过新上限时取新上限（浏览器里的滑块同时换上新的上限）。"""
        if self.step > self.step_max:
            self.step = self.step_max

    def fallback_html(self) -> str:
        return parallel_steps_html(self.all_tokens[:self.n_tokens], self.layers, self.step)
