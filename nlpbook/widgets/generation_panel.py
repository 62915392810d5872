"""生成面板（第 11.4 节，仿 Transformer Explainer）：温度、top-k、top-p 三个旋钮，
下一字概率在“原始 → 温度 → 过滤”各步的条形图，以及按种子采样出的几段续写。

模型只通过三样东西接入：next_logits(前文编号) → logits、encode(文本) → 编号、decode(编号) → 文本，
再加一份 vocab（编号 → 显示用的字）。字符 n-gram 模型（charlm）和字符 GRU（char_rnn）都能接上。
"""
from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from ..decoding import apply_temperature, generate, top_k_filter, top_p_filter
from ..svgplot import bar_chart


def _show(tok: str) -> str:
    return {"\n": "⏎", " ": "␠"}.get(tok, tok)


def next_token_view(logits, vocab, temperature: float, top_k: int = 0, top_p: float = 1.0, n_bars: int = 8) -> dict:
    """同一组 logits 的三个版本：原始 softmax（T=1）、温度 T 之后、再经 top-k/top-p 之后。

    top_k=0 与 top_p=1 表示不过滤。返回 {'tokens', 'raw', 'tempered', 'filtered', 'kept'}：
    tokens 是按温度后概率排序的前 n_bars 个候选，kept 是过滤后还剩几个候选。
    """
    raw = apply_temperature(logits, 1.0)
    tempered = apply_temperature(logits, temperature)
    filtered = tempered
    if top_k:
        filtered = top_k_filter(filtered, top_k)
    if top_p < 1.0:
        filtered = top_p_filter(filtered, top_p)
    order = np.argsort(-tempered, kind="stable")[:n_bars]
    return {"tokens": [_show(vocab[i]) for i in order], "raw": raw[order].tolist(),
            "tempered": tempered[order].tolist(), "filtered": filtered[order].tolist(),
            "kept": int(np.count_nonzero(filtered))}


def continuations(next_logits, encode, decode, prompt: str, temperature: float, top_k: int = 0,
                  top_p: float = 1.0, seed: int = 0, n_samples: int = 3, max_new_tokens: int = 30) -> list[str]:
    """用种子 seed, seed+1, … 各采样一段续写（只返回新生成的部分）。temperature=0 是贪心，几段相同。"""
    start = encode(prompt)
    out = []
    for s in range(seed, seed + n_samples):
        ids = generate(next_logits, start, max_new_tokens, temperature=temperature,
                       top_k=top_k or None, top_p=top_p if top_p < 1.0 else None,
                       rng=np.random.default_rng(s))
        out.append(decode(ids[len(start):]))
    return out


def panel_html(view: dict, samples: list[str], prompt: str, temperature: float, top_k: int, top_p: float) -> str:
    """条形图 + 说明 + 续写。"""
    chart = bar_chart(view["tokens"], {"原始 T=1": view["raw"], f"温度 T={temperature:g}": view["tempered"],
                                       "过滤后": view["filtered"]},
                      title=f"“{prompt[-8:]}”之后的下一个字", ylabel="概率", ymax=1.0)
    filt = []
    if top_k:
        filt.append(f"top-k={top_k}")
    if top_p < 1.0:
        filt.append(f"top-p={top_p:g}")
    note = (f"<div>过滤（{'、'.join(filt) or '不过滤'}）后还剩 <b>{view['kept']}</b> 个候选可以被抽到。"
            "图中只画温度后概率最高的几个字。</div>")
    rows = "".join(f"<li>{html.escape(prompt)}<b style='color:#4477AA'>{html.escape(s.replace(chr(10), '⏎'))}</b></li>"
                   for s in samples)
    return chart + note + f"<div>采样出的续写（蓝色是模型写的）：</div><ol>{rows}</ol>"


class GenerationPanel:
    """提示词输入框、温度（0 = 贪心，0.1—5）、top-k（0 = 不过滤）、top-p（1 = 不过滤）、随机种子。"""

    def __init__(self, next_logits, encode, decode, vocab, prompt: str = "这家酒店", temperature: float = 1.0,
                 top_k: int = 0, top_p: float = 1.0, seed: int = 0, n_samples: int = 3, max_new_tokens: int = 30):
        self.next_logits, self.encode, self.decode, self.vocab = next_logits, encode, decode, list(vocab)
        self.n_samples, self.max_new_tokens = n_samples, max_new_tokens
        style = {"description_width": "initial"}
        self.prompt = W.Text(value=prompt, description="提示词", style=style)
        self.temperature = W.FloatSlider(value=temperature, min=0.0, max=5.0, step=0.1, description="温度 T",
                                         readout_format=".1f", style=style)
        self.top_k = W.IntSlider(value=top_k, min=0, max=50, description="top-k（0=关）", style=style)
        self.top_p = W.FloatSlider(value=top_p, min=0.05, max=1.0, step=0.05, description="top-p（1=关）",
                                   readout_format=".2f", style=style)
        self.seed = W.BoundedIntText(value=seed, min=0, max=10_000, description="种子", style=style,
                                     layout=W.Layout(width="140px"))
        self.view = W.HTML()
        for c in (self.prompt, self.temperature, self.top_k, self.top_p, self.seed):
            c.observe(lambda _: self.update(), names="value")
        self.update()
        self.widget = W.VBox([W.HBox([self.prompt, self.seed]), W.HBox([self.temperature, self.top_k, self.top_p]),
                              self.view])

    def update(self) -> None:
        t = round(float(self.temperature.value), 2)  # 浏览器里的浮点滑块可能给出 1.0000000000000002
        k, p = int(self.top_k.value), round(float(self.top_p.value), 2)
        prompt = self.prompt.value
        if not prompt:
            self.view.value = "<div>请先输入提示词。</div>"
            return
        view = next_token_view(self.next_logits(self.encode(prompt)), self.vocab, t, k, p)
        samples = continuations(self.next_logits, self.encode, self.decode, prompt, t, k, p,
                                int(self.seed.value), self.n_samples, self.max_new_tokens)
        self.view.value = panel_html(view, samples, prompt, t, k, p)
