"""生成面板（第 11.4 节，仿 Transformer Explainer）：温度、top-k、top-p 三个旋钮，
下一字概率在“原始 → 温度 → 过滤”各步的条形图，以及按种子采样出的几段续写。

模型只通过三样东西接入：next_logits(前文编号) → logits、encode(文本) → 编号、decode(编号) → 文本，
再加一份 vocab（编号 → 显示用的字）。字符 n-gram 模型（charlm）和字符 GRU（char_rnn）都能接上。

为了快（每次拖动 ≤ 100 ms）：
- 模型实际读多少前文就只喂多少：n 元模型只看最后 n−1 个字；其余模型（如 GRU）最多读提示词的最后
  MAX_PROMPT_CHARS 个字，更长的提示词被截断，面板上写明。
- 与被拖动的旋钮无关的东西都缓存：提示词读完后的状态和第一步的 logits 只随提示词变；n 元模型每个前文的
  logits 也缓存。GRU 不再每一步从头读整段前文，而是把隐藏状态接着往下算（几段续写一起算）。
"""
from __future__ import annotations

import html
import math
from collections import OrderedDict

import ipywidgets as W
import numpy as np

from ..decoding import apply_temperature, top_k_filter, top_p_filter
from ..rnn import gru_step
from ..svgplot import bar_chart
from ._base import Panel

__all__ = ["MAX_PROMPT_CHARS", "TRY", "percent", "model_window", "prompt_for_model", "next_token_view",
           "continuations", "panel_html", "GenerationPanel"]

MAX_PROMPT_CHARS = 200  # GRU 这类“全读”的模型最多读提示词的最后这么多个字
CHART_WIDTH = 860       # 900 px 的 notebook 栏里放得下
TRY = "试一试：把温度拖到 0.1，再拖到 3——哪些字从图上消失了，哪些冒了出来？续写变成什么样？"
_GRU_KEYS = ("E", "Wx", "Wh", "bx", "bh", "W_out", "b_out")


def _show(tok: str) -> str:
    return {"\n": "⏎", " ": "␠"}.get(tok, tok)


def percent(p: float) -> str:
    """概率写成百分数，精度随大小变（两位有效数字，≥ 10% 取整）。

    例：0.131 → '13%'；0.0423 → '4.2%'；0.00123 → '0.12%'；0.0000123 → '0.0012%'；0 → '0%'。
    温度调高后概率都很小，也不会全写成 0.00。
    """
    v = 100 * float(p)
    if v <= 0:
        return "0%"
    if v < 1e-4:
        return "<0.0001%"
    digits = max(0, 1 - math.floor(math.log10(v)))
    return f"{v:.{digits}f}%"


def model_window(next_logits) -> int | None:
    """模型实际读多少个前文编号：字符 n 元模型（有整数属性 n）是 n−1；其余（如 GRU）返回 None，表示全读。"""
    n = getattr(getattr(next_logits, "__self__", None), "n", None)
    return n - 1 if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else None


def prompt_for_model(prompt: str, window: int | None = None, max_chars: int = MAX_PROMPT_CHARS) -> tuple[str, str]:
    """(交给模型的那段提示词, 给读者的一行说明；没截断时为空串)。

    window 是模型读的字数（n 元模型 n−1；None 表示全读）。只喂模型读的部分：n 元模型喂最后 window 个字
    （结果与喂整段相同，只是快）；全读的模型最多喂最后 max_chars 个字，超出时说明里写清楚。
    例：prompt_for_model("很好" * 1000) → (最后 200 个字, "提示词有 2,000 个字，……")
    """
    limit = max_chars if window is None else min(max_chars, window)
    used = prompt[len(prompt) - limit:] if len(prompt) > limit else prompt
    if len(prompt) <= max_chars:
        return used, ""
    if window is not None and window <= max_chars:
        return used, (f"提示词有 {len(prompt):,} 个字；这个模型只看最后 {window} 个字，前面的字不影响结果，"
                      f"可以删到 {max_chars} 个字以内。")
    return used, (f"提示词有 {len(prompt):,} 个字，模型只读了最后 {limit} 个字；"
                  f"想让它读到前面的话，请删到 {limit} 字以内。")


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


class _Stepper:
    """逐字往下生成时的“读前文”部分。通用做法：每步调用 next_logits(前文)，只喂模型读的那几个编号，
    n 元模型的结果按前文缓存；GRU（next_logits 绑定在带参数字典 params 的对象上）改为接着隐藏状态往下算。"""

    def __init__(self, next_logits, cache_size: int = 4096):
        self.next_logits, self.window = next_logits, model_window(next_logits)
        P = getattr(getattr(next_logits, "__self__", None), "params", None)
        self.gru = P if isinstance(P, dict) and all(k in P for k in _GRU_KEYS) else None
        self._memo: OrderedDict = OrderedDict()
        self._cache_size = cache_size

    def _logits(self, ids: list[int]) -> np.ndarray:
        key = tuple(ids if self.window is None else ids[len(ids) - self.window:] if self.window else ())
        hit = self._memo.get(key)
        if hit is None:
            hit = np.asarray(self.next_logits(list(key)), dtype=float)
            self._memo[key] = hit
            if len(self._memo) > self._cache_size:
                self._memo.popitem(last=False)
        else:
            self._memo.move_to_end(key)
        return hit

    def start(self, ids: list[int]):
        """读完提示词后的状态（只随提示词变，调用方缓存它）。"""
        ids = [int(i) for i in ids]
        if self.gru is None:
            return ids
        P = self.gru  # 与 char_rnn.next_logits 同样的算法：从零状态逐字读完提示词
        h = np.zeros((1, P["Wh"].shape[0]), P["Wh"].dtype)
        if ids:
            gx = P["E"][np.array(ids)[None]] @ P["Wx"] + P["bx"]
            for t in range(len(ids)):
                h = gru_step(gx[:, t], h, P["Wh"], P["bh"])[0]
        return h

    def logits(self, states: list) -> np.ndarray:
        """每个状态的下一字 logits，形状 (状态数, V)。"""
        if self.gru is None:
            return np.stack([self._logits(s) for s in states])
        P = self.gru  # 一行一行乘：(1, H) 的乘法比 (3, H) 的快得多（小矩阵上多线程 BLAS 反而慢）
        return np.stack([(h @ P["W_out"] + P["b_out"])[0] for h in states]).astype(np.float64)

    def advance(self, states: list, toks: list[int]) -> list:
        if self.gru is None:
            return [s + [t] for s, t in zip(states, toks)]
        P = self.gru
        return [gru_step(P["E"][[t]] @ P["Wx"] + P["bx"], h, P["Wh"], P["bh"])[0] for h, t in zip(states, toks)]


def _top_order(probs: np.ndarray, n: int) -> np.ndarray:
    """np.argsort(-probs, kind="stable") 的开头（至少 n 个）：只排大于等于第 n 大的值的那些编号（并列的全带上），
    所以顺序与完整的稳定排序逐位相同，却不用排几千个候选。"""
    if n >= probs.size:
        return np.argsort(-probs, kind="stable")
    thr = np.partition(probs, probs.size - n)[probs.size - n]  # 第 n 大的值
    idx = np.flatnonzero(probs >= thr)
    return idx[np.argsort(-probs[idx], kind="stable")]


def _fast_steps(Z: np.ndarray, temperature: float, top_k: int, top_p: float, rngs) -> list[int]:
    """对每一行 logits 做一步 decoding.decode_step（温度 → top-k → top-p → 抽样），几行一起算，
    算术与 decode_step 相同，只省去逐步的输入检查。只在面板内部、对模型给出的有限 logits 使用；
    测试逐个核对它与 decode_step 选出同一个编号。

    为了快：过滤之后只在留下的候选上（按编号从小到大）累加概率、抽样，不再为几千个 0 建整张表；
    被过滤掉的概率是 0，不改变累计分布，所以抽到的编号相同。"""
    if temperature == 0.0:  # 贪心：过滤不改变最大值的位置
        return [int(i) for i in np.argmax(Z, axis=1)]
    # functional.softmax = exp(log_softmax)；每行最大值处 scaled 恰好是 0，所以不必再减一次最大值
    scaled = np.maximum((Z - Z.max(axis=1, keepdims=True)) / temperature, -1e300)
    P = np.exp(scaled - np.log(np.exp(scaled).sum(axis=1, keepdims=True)))
    V = P.shape[1]
    if not top_k and top_p >= 1.0:  # 不过滤：几行一起累加
        C = np.cumsum(P, axis=1)
        C /= C[:, -1:]
        return [int(min(np.searchsorted(c, rng.random(), side="right"), V - 1)) for c, rng in zip(C, rngs)]
    out = []
    for probs, rng in zip(P, rngs):
        idx = None                                   # 留下的候选（编号从小到大）；None 表示全部
        if top_k and top_k < V:
            idx = np.sort(_top_order(probs, top_k)[:top_k])
            sub = probs[idx]
            sub = sub / sub.sum()
        else:
            sub = probs / probs.sum() if top_k else probs
        if top_p < 1.0:
            total, n, m = sub.sum(), sub.size, sub.size + 1
            size = min(64, n)
            while m > n:  # 先只排前 size 个；累计概率不够 p 时再多排一些
                order = _top_order(sub, size)
                cum = np.cumsum(sub[order]) / total
                m = int(np.searchsorted(cum, top_p - 1e-9, side="left")) + 1
                if m > order.size:
                    m = n + 1 if order.size < n else n
                    size = min(n, 4 * size)
            pos = np.sort(order[:m])
            idx = pos if idx is None else idx[pos]
            sub = sub[pos] / sub[pos].sum()
        cdf = np.cumsum(sub)
        cdf /= cdf[-1]
        j = int(min(np.searchsorted(cdf, rng.random(), side="right"), sub.size - 1))
        out.append(j if idx is None else int(idx[j]))
    return out


def _sample_from(stepper: _Stepper, state, decode, temperature: float, top_k: int, top_p: float, seed: int,
                 n_samples: int, max_new_tokens: int) -> list[str]:
    """从读完提示词的状态出发，种子 seed, seed+1, … 各采样一段（几段一起往下算）。"""
    rngs = [np.random.default_rng(s) for s in range(seed, seed + n_samples)]
    states, new = [state] * n_samples, [[] for _ in range(n_samples)]
    for _ in range(max_new_tokens):
        z = stepper.logits(states)
        toks = _fast_steps(z, temperature, top_k, top_p, rngs)
        for i, t in enumerate(toks):
            new[i].append(t)
        states = stepper.advance(states, toks)
    return [decode(ids) for ids in new]


def continuations(next_logits, encode, decode, prompt: str, temperature: float, top_k: int = 0,
                  top_p: float = 1.0, seed: int = 0, n_samples: int = 3, max_new_tokens: int = 30,
                  max_prompt_chars: int = MAX_PROMPT_CHARS) -> list[str]:
    """用种子 seed, seed+1, … 各采样一段续写（只返回新生成的部分）。temperature=0 是贪心，几段相同。

    提示词先按 prompt_for_model 截到模型读的部分（默认最多最后 200 个字）。
    """
    stepper = _Stepper(next_logits)
    used, _ = prompt_for_model(prompt, stepper.window, max_prompt_chars)
    return _sample_from(stepper, stepper.start(encode(used)), decode, temperature, top_k, top_p, seed,
                        n_samples, max_new_tokens)


def _tail(text: str, n: int = 12) -> str:
    text = text.replace("\n", "⏎")
    return text if len(text) <= n else "…" + text[-n:]


def panel_html(view: dict, samples: list[str], prompt: str, temperature: float, top_k: int, top_p: float,
               message: str = "", width: int = CHART_WIDTH) -> str:
    """条形图 + 说明 + 续写。提示词只显示一次（太长时只显示结尾），message 是给读者的一行提示。"""
    chart = bar_chart(view["tokens"], {"原始 T=1": view["raw"], f"温度 T={temperature:g}": view["tempered"],
                                       "过滤后": view["filtered"]},
                      title=f"“{_tail(prompt, 8)}”之后的下一个字（纵轴随数据缩放，看清刻度）", ylabel="概率",
                      fmt=percent, tick_fmt=percent, width=width, height=260)
    filt = []
    if top_k:
        filt.append(f"top-k={top_k}")
    if top_p < 1.0:
        filt.append(f"top-p={top_p:g}")
    note = (f"<div>过滤（{'、'.join(filt) or '不过滤'}）后还剩 <b>{view['kept']:,}</b> 个候选可以被抽到。"
            "图中只画温度后概率最高的几个字。</div>")
    warn = f"<div style='color:#B00020'>{html.escape(message)}</div>" if message else ""
    head = html.escape(_tail(prompt))
    rows = "".join(f"<li><span style='color:#555'>{head}</span>"
                   f"<b style='color:#4477AA'>{html.escape(s.replace(chr(10), '⏎'))}</b></li>" for s in samples)
    return (f"<div style='color:#555'>{html.escape(TRY)}</div>" + warn + chart + note
            + f"<div>采样出的续写（灰色是提示词的结尾，蓝色是模型写的）：</div><ol>{rows}</ol>")


class GenerationPanel(Panel):
    """提示词输入框、温度（0 = 贪心，0.1—5）、top-k（0 = 不过滤）、top-p（1 = 不过滤）、随机种子。

    缓存：提示词 → 读完它的状态与第一步的 logits；(提示词, T, k, p) → 条形图数据；再加种子 → 续写。
    拖动温度只重算条形图和续写，不重读提示词；换种子连条形图都不重算。
    """

    def __init__(self, next_logits, encode, decode, vocab, prompt: str = "这家酒店", temperature: float = 1.0,
                 top_k: int = 0, top_p: float = 1.0, seed: int = 0, n_samples: int = 3, max_new_tokens: int = 30,
                 max_prompt_chars: int = MAX_PROMPT_CHARS):
        self.next_logits, self.encode, self.decode, self.vocab = next_logits, encode, decode, list(vocab)
        self.n_samples, self.max_new_tokens, self.max_prompt_chars = n_samples, max_new_tokens, max_prompt_chars
        self._stepper = _Stepper(next_logits)
        self._prompt_cache: OrderedDict = OrderedDict()
        self._view_cache: OrderedDict = OrderedDict()
        self._sample_cache: OrderedDict = OrderedDict()
        style = {"description_width": "initial"}
        self.prompt = W.Text(value=prompt, description="提示词", style=style, layout=W.Layout(width="420px"))
        self.temperature = W.FloatSlider(value=temperature, min=0.0, max=5.0, step=0.1, description="温度 T",
                                         readout_format=".1f", style=style)
        self.top_k = W.IntSlider(value=top_k, min=0, max=50, description="top-k（0=关）", style=style)
        self.top_p = W.FloatSlider(value=top_p, min=0.05, max=1.0, step=0.05, description="top-p（1=关）",
                                   readout_format=".2f", style=style)
        self.seed = W.BoundedIntText(value=seed, min=0, max=10_000, description="种子", style=style,
                                     layout=W.Layout(width="140px"))
        self.view = W.HTML()
        self.watch((self.prompt, self.temperature, self.top_k, self.top_p, self.seed))
        self.update()
        self.widget = W.VBox([W.HBox([self.prompt, self.seed]), W.HBox([self.temperature, self.top_k, self.top_p]),
                              self.view], layout=W.Layout(max_width="900px"))

    @staticmethod
    def _remember(cache: OrderedDict, key, make, size: int = 64):
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        cache[key] = value = make()
        if len(cache) > size:
            cache.popitem(last=False)
        return value

    def _read_prompt(self, prompt: str):
        """提示词 → (交给模型的部分, 说明, 读完后的状态, 第一步 logits)；只随提示词变。"""
        def make():
            used, msg = prompt_for_model(prompt, self._stepper.window, self.max_prompt_chars)
            state = self._stepper.start(self.encode(used))
            return used, msg, state, self._stepper.logits([state])[0]
        return self._remember(self._prompt_cache, (prompt, self.max_prompt_chars), make, size=16)

    def update(self) -> None:
        t = round(float(self.temperature.value), 2)  # 浏览器里的浮点滑块可能给出 1.0000000000000002
        k, p = int(self.top_k.value), round(float(self.top_p.value), 2)
        seed, prompt = int(self.seed.value), self.prompt.value
        if not prompt:
            self.view.value = "<div>请先输入提示词：例如“这家酒店”“这本书”。</div>"
            return
        used, msg, state, logits = self._read_prompt(prompt)
        view = self._remember(self._view_cache, (prompt, t, k, p),
                              lambda: next_token_view(logits, self.vocab, t, k, p))
        samples = self._remember(self._sample_cache, (prompt, t, k, p, seed),
                                 lambda: _sample_from(self._stepper, state, self.decode, t, k, p, seed,
                                                      self.n_samples, self.max_new_tokens))
        self.view.value = panel_html(view, samples, prompt, t, k, p, msg)
