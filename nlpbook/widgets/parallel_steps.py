"""顺序处理 vs 整句并行（第 14.4 节的步数计数器）：同一句话，RNN 和 Transformer 各要走几步。

计步规则（示意）：RNN 每一层都要按词一个接一个地算（第 t 个词的状态要等第 t−1 个），一层 n 步，
按层依次算共 n × 层数 步；Transformer 一层里所有位置同时算（训练时整句已知，用遮罩防偷看），一层一步，共 层数 步。
“一步”指一段必须等上一段算完才能开始的计算，不是运算量：Transformer 一步里的乘加并不少。
若让 RNN 的上一层紧跟着下一层逐词推进（流水线），最少也要 n + 层数 − 1 步，仍随句长增长。
"""
from __future__ import annotations

import html

import ipywidgets as W

from ..attention_demo import demo_sentence
from ._base import Panel

__all__ = ["step_counts", "rnn_position", "parallel_steps_html", "RNNvsTransformerPanel"]

_DONE, _NOW, _TODO = "#CCDDAA", "#EE6677", "#EEEEEE"
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


class RNNvsTransformerPanel(Panel):
    """词数（取演示句的前几个词）、层数、当前步三个滑块；``view`` 显示两边的计数与格子。

    词数或层数一变，``step`` 换成一个新滑块（上限与当前值一起设好），旧的关闭。
    """

    def __init__(self, tokens=None, n_tokens: int | None = None, layers: int = 1, step: int = 1):
        self.all_tokens = list(demo_sentence() if tokens is None else tokens)
        total = len(self.all_tokens)
        n_tokens = total if n_tokens is None else n_tokens
        style = {"description_width": "initial"}
        self.n_tokens = W.IntSlider(value=n_tokens, min=1, max=total, description="词数", style=style)
        self.layers = W.IntSlider(value=layers, min=1, max=6, description="层数", style=style)
        self.step = self._step_slider(step, n_tokens * layers)
        self.view = W.HTML()
        self.watch((self.n_tokens, self.layers), prep=self._size_changed)
        self.update()
        self.widget = W.VBox([W.HBox([self.n_tokens, self.layers]), self.step, self.view],
                             layout=W.Layout(max_width="900px"))

    def _step_slider(self, value: int, maximum: int) -> W.IntSlider:
        slider = W.IntSlider(value=max(0, min(int(value), maximum)), min=0, max=maximum, description="第几步",
                             style={"description_width": "initial"}, layout=W.Layout(width="420px"))
        self.watch([slider])
        return slider

    def _size_changed(self, _=None) -> None:
        """词数或层数变了：换一个上限与当前值一起设好的新步数滑块。

        只改旧滑块的 max 不够：浏览器里的滑块（noUiSlider）更新范围后，End 键仍跳到旧的上限。
        新滑块一次带着 value 和 max 创建，放回原位；当前步超过新上限时取新上限。
        """
        maximum = int(self.n_tokens.value) * int(self.layers.value)
        old = self.step
        old.unobserve_all("value")
        self.step = self._step_slider(old.value, maximum)
        if hasattr(self, "widget"):
            children = list(self.widget.children)
            children[children.index(old)] = self.step
            self.widget.children = tuple(children)
        old.close()

    def update(self) -> None:
        tokens = self.all_tokens[:int(self.n_tokens.value)]
        self.view.value = parallel_steps_html(tokens, int(self.layers.value), int(self.step.value))
