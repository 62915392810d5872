"""生成面板（第 11.4 节，仿 Transformer Explainer）：温度、top-k、top-p 三个旋钮，
下一字概率在“原始 → 温度 → 过滤”各步的条形图，以及按种子采样出的几段续写。

模型只通过三样东西接入：next_logits(前文编号) → logits、encode(文本) → 编号、decode(编号) → 文本，
再加一份 vocab（编号 → 显示用的字）。字符 n-gram 模型（charlm）和字符 GRU（char_rnn）都能接上。

面板在浏览器里运行（js/generation_panel.js）：
- Python 为每个预设提示词（本章用到的几个）算一次下一字的 logits（整个字表，保留 3 位小数），放进 ``data``；
  温度、top-k、top-p 在浏览器里作用在这组 logits 上（算法与 decoding.apply_temperature / top_k_filter /
  top_p_filter 相同，测试逐字核对浏览器的视图与 ``fallback_html``），拖动旋钮不经过内核；
- 续写每一步都要调用模型：Python 先在一组设置上采样好（每个预设提示词 × 温度表 SAMPLE_TEMPS，不过滤；
  再加 FILTER_TEMPS 上的 top-k=10 与 top-p=0.9；种子 0、1、2），放进 ``data``；
  JupyterLab 里其余设置（别的种子、别的过滤、自己写的提示词）由内核现场采样，写回 ``result``/``live``；
  阅读网站上没有内核，显示最接近的预先采好的一组，并写明是哪组设置。
- GRU 在面板里用 float64 计算（换一种 BLAS 也逐位相同，保存的数据才稳定）。

为了快：模型实际读多少前文就只喂多少（n 元模型只看最后 n−1 个字；GRU 最多读提示词的最后
MAX_PROMPT_CHARS 个字，更长的提示词被截断，面板上写明）；GRU 接着隐藏状态往下算，几段续写（预先采样时是
一整组设置）一起算。
"""
from __future__ import annotations

import html
import math
from collections import OrderedDict

import numpy as np
import traitlets

from ..decoding import apply_temperature, top_k_filter, top_p_filter
from ..rnn import gru_step
from ..svgplot import bar_chart
from ._client import ClientPanel

__all__ = ["MAX_PROMPT_CHARS", "TRY", "PROMPTS", "SAMPLE_TEMPS", "SAMPLE_FILTERS", "FILTER_TEMPS", "SCALE", "percent",
           "model_window", "prompt_for_model", "next_token_view", "continuations", "panel_html", "GenerationPanel"]

MAX_PROMPT_CHARS = 200  # GRU 这类“全读”的模型最多读提示词的最后这么多个字
CHART_WIDTH = 860       # 900 px 的 notebook 栏里放得下
TRY = "试一试：把温度拖到 0.1，再拖到 3——哪些字从图上消失了，哪些冒了出来？续写变成什么样？"
_GRU_KEYS = ("E", "Wx", "Wh", "bx", "bh", "W_out", "b_out")
PROMPTS = ("这家酒店", "这本书", "房间很", "服务")  # 本章用到的提示词：网站上只能选这几个
SCALE = 1000              # data 里的 logits 存成 round(1000 × (z − max z)) 的整数（保留 3 位小数）
T_MAX, K_MAX, P_MIN, SEED_MAX = 5.0, 50, 0.05, 10_000   # 滑块的范围（温度步长 0.1，top-p 步长 0.05）
# 预先采样续写的设置：不过滤时的温度表；再加这几个温度上的 top-k=10 与 top-p=0.9（11.4 节的“试一试”）
SAMPLE_TEMPS = (0.0, 0.1, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0)
SAMPLE_FILTERS = ((10, 1.0), (0, 0.9))
FILTER_TEMPS = (1.0, 2.0, 3.0)


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
    tokens 是 logits 最高的前 n_bars 个候选（并列时编号小的在前；T > 0 时就是温度后概率最高的那几个，
    T = 0 时是贪心选中的字和原始概率紧随其后的几个），kept 是过滤后还剩几个候选。
    """
    raw = apply_temperature(logits, 1.0)
    tempered = apply_temperature(logits, temperature)
    filtered = tempered
    if top_k:
        filtered = top_k_filter(filtered, top_k)
    if top_p < 1.0:
        filtered = top_p_filter(filtered, top_p)
    order = np.argsort(-np.asarray(logits, dtype=float), kind="stable")[:n_bars]
    return {"tokens": [_show(vocab[i]) for i in order], "raw": raw[order].tolist(),
            "tempered": tempered[order].tolist(), "filtered": filtered[order].tolist(),
            "kept": int(np.count_nonzero(filtered))}


class _Stepper:
    """逐字往下生成时的“读前文”部分。通用做法：每步调用 next_logits(前文)，只喂模型读的那几个编号，
    n 元模型的结果按前文缓存；GRU（next_logits 绑定在带参数字典 params 的对象上）改为接着隐藏状态往下算。

    dtype：GRU 用什么精度算（None = 参数原样，与 char_rnn.next_logits 相同；面板用 float64，换一种 BLAS 也逐位相同）。
    状态：n 元模型是编号列表；GRU 是 (1, H) 的隐藏状态，几段一起算时也可以是 (段数, H) 的一个数组。
    """

    def __init__(self, next_logits, cache_size: int = 4096, dtype=None):
        self.next_logits, self.window = next_logits, model_window(next_logits)
        P = getattr(getattr(next_logits, "__self__", None), "params", None)
        self.gru = P if isinstance(P, dict) and all(k in P for k in _GRU_KEYS) else None
        if self.gru is not None and dtype is not None:
            self.gru = {k: np.asarray(self.gru[k], dtype=dtype) for k in _GRU_KEYS}
        self._memo: OrderedDict = OrderedDict()
        self._cache_size = cache_size

    def clear(self) -> None:
        """清空 n 元模型按前文缓存的 logits。"""
        self._memo.clear()

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

    def logits(self, states) -> np.ndarray:
        """每个状态的下一字 logits，形状 (状态数, V)。"""
        if self.gru is None:
            return np.stack([self._logits(s) for s in states])
        P = self.gru
        if isinstance(states, np.ndarray):  # 一整组一起算（预先采样）
            return (states @ P["W_out"] + P["b_out"]).astype(np.float64)
        # 一行一行乘：(1, H) 的乘法比 (3, H) 的快得多（小矩阵上多线程 BLAS 反而慢）
        return np.stack([(h @ P["W_out"] + P["b_out"])[0] for h in states]).astype(np.float64)

    def advance(self, states, toks: list[int]):
        if self.gru is None:
            return [s + [t] for s, t in zip(states, toks)]
        P = self.gru
        if isinstance(states, np.ndarray):
            return gru_step(P["E"][np.asarray(toks)] @ P["Wx"] + P["bx"], states, P["Wh"], P["bh"])[0]
        return [gru_step(P["E"][[t]] @ P["Wx"] + P["bx"], h, P["Wh"], P["bh"])[0] for h, t in zip(states, toks)]


def _top_order(probs: np.ndarray, n: int) -> np.ndarray:
    """np.argsort(-probs, kind="stable") 的开头（至少 n 个）：只排大于等于第 n 大的值的那些编号（并列的全带上），
    所以顺序与完整的稳定排序逐位相同，却不用排几千个候选。"""
    if n >= probs.size:
        return np.argsort(-probs, kind="stable")
    thr = np.partition(probs, probs.size - n)[probs.size - n]  # 第 n 大的值
    idx = np.flatnonzero(probs >= thr)
    return idx[np.argsort(-probs[idx], kind="stable")]


def _filtered_pick(probs: np.ndarray, top_k: int, top_p: float, rng) -> int:
    """一行温度后的概率：top-k → top-p → 抽样（与 decode_step 同样的算术）。

    为了快：过滤之后只在留下的候选上（按编号从小到大）累加概率、抽样，不再为几千个 0 建整张表；
    被过滤掉的概率是 0，不改变累计分布，所以抽到的编号相同。"""
    V = probs.size
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
    return j if idx is None else int(idx[j])


def _fast_steps(Z: np.ndarray, temperature, top_k, top_p, rngs) -> list[int]:
    """对每一行 logits 做一步 decoding.decode_step（温度 → top-k → top-p → 抽样），几行一起算，
    算术与 decode_step 相同，只省去逐步的输入检查。只在面板内部、对模型给出的有限 logits 使用；
    测试逐个核对它与 decode_step 选出同一个编号。

    temperature、top_k、top_p 可以是一个数（各行相同），也可以每行一个（预先采样时一整组设置一起算）。"""
    R, V = Z.shape
    T = np.broadcast_to(np.asarray(temperature, dtype=float), (R,))
    K = np.broadcast_to(np.asarray(top_k, dtype=int), (R,))
    Pp = np.broadcast_to(np.asarray(top_p, dtype=float), (R,))
    out = [0] * R
    greedy = np.flatnonzero(T == 0.0)
    for r, i in zip(greedy, np.argmax(Z[greedy], axis=1)):  # 贪心：过滤不改变最大值的位置
        out[r] = int(i)
    rows = np.flatnonzero(T != 0.0)
    if not rows.size:
        return out
    Zr = Z[rows]
    # functional.softmax = exp(log_softmax)；每行最大值处 scaled 恰好是 0，所以不必再减一次最大值
    scaled = np.maximum((Zr - Zr.max(axis=1, keepdims=True)) / T[rows][:, None], -1e300)
    P = np.exp(scaled - np.log(np.exp(scaled).sum(axis=1, keepdims=True)))
    plain = (K[rows] == 0) & (Pp[rows] >= 1.0)
    if plain.any():  # 不过滤：几行一起累加
        C = np.cumsum(P[plain], axis=1)
        C /= C[:, -1:]
        for c, r in zip(C, rows[plain]):
            out[r] = int(min(np.searchsorted(c, rngs[r].random(), side="right"), V - 1))
    for j in np.flatnonzero(~plain):
        r = rows[j]
        out[r] = _filtered_pick(P[j], int(K[r]), float(Pp[r]), rngs[r])
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


def _sample_grid(stepper: _Stepper, state, decode, settings, seed: int, n_samples: int,
                 max_new_tokens: int) -> list[list[str]]:
    """一组设置 [(温度, top-k, top-p), …] 一起采样：每个设置的结果与 _sample_from 的相同（每段续写有自己的
    随机数发生器，互不影响），只是所有设置的所有段一起往下算（GRU 每步一次矩阵乘法）。"""
    rows = [(t, k, p, seed + j) for t, k, p in settings for j in range(n_samples)]
    if not rows:
        return []
    T, K, Pp = (np.array([r[i] for r in rows]) for i in range(3))
    rngs = [np.random.default_rng(r[3]) for r in rows]
    states = np.repeat(state, len(rows), axis=0) if stepper.gru is not None else [state] * len(rows)
    new = [[] for _ in rows]
    for _ in range(max_new_tokens):
        toks = _fast_steps(stepper.logits(states), T, K, Pp, rngs)
        for ids, t in zip(new, toks):
            ids.append(t)
        states = stepper.advance(states, toks)
    texts = [decode(ids) for ids in new]
    return [texts[i:i + n_samples] for i in range(0, len(texts), n_samples)]


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


def samples_header(seed: int, n: int) -> str:
    """续写上方的一行：用了哪几个种子。例：samples_header(7, 3) → '采样出的续写（种子 7、8、9；……）：'"""
    seeds = "、".join(str(s) for s in range(seed, seed + n))
    return f"采样出的续写（种子 {seeds}；灰色是提示词的结尾，蓝色是模型写的）："


def panel_html(view: dict, samples: list[str], prompt: str, temperature: float, top_k: int, top_p: float,
               message: str = "", width: int = CHART_WIDTH, seed: int = 0) -> str:
    """条形图 + 说明 + 续写。提示词只显示一次（太长时只显示结尾），message 是给读者的一行提示；
    seed 是第一段续写的种子（第 i 段用 seed + i）。浏览器里的视图（js/generation_panel.js）与它逐字相同。"""
    title = f"“{_tail(prompt, 8)}”之后的下一个字（纵轴随数据缩放，看清刻度）"
    chart = bar_chart(view["tokens"], {"原始 T=1": view["raw"], f"温度 T={temperature:g}": view["tempered"],
                                       "过滤后": view["filtered"]},
                      title=title, ylabel="概率", fmt=percent, tick_fmt=percent, width=width, height=260)
    aria = f"{title}。原始 → 温度后 → 过滤后：" + "；".join(  # 读屏软件读这一句（图是 role="img"）
        f"{t} {percent(a)} → {percent(b)} → {percent(c)}"
        for t, a, b, c in zip(view["tokens"], view["raw"], view["tempered"], view["filtered"]))
    chart = chart.replace("<svg ", f'<svg role="img" aria-label="{html.escape(aria)}" ', 1)
    filt = []
    if top_k:
        filt.append(f"top-k={top_k}")
    if top_p < 1.0:
        filt.append(f"top-p={top_p:g}")
    note = (f"<div>过滤（{'、'.join(filt) or '不过滤'}）后还剩 <b>{view['kept']:,}</b> 个候选可以被抽到。"
            "图中只画原始概率最高的几个字。</div>")
    warn = f"<div style='color:#B00020'>{html.escape(message)}</div>" if message else ""
    head = html.escape(_tail(prompt))
    rows = "".join(f"<li><span style='color:#555'>{head}</span>"
                   f"<b style='color:#4477AA'>{html.escape(s.replace(chr(10), '⏎'))}</b></li>" for s in samples)
    return (f"<div style='color:#555'>{html.escape(TRY)}</div>" + warn + chart + note
            + f"<div>{samples_header(seed, len(samples))}</div><ol>{rows}</ol>")


EMPTY = "<div>请先输入提示词：例如“这家酒店”“这本书”。</div>"


def _round2(v: float) -> float:
    return round(float(v), 2)  # 浏览器里的浮点滑块可能给出 1.0000000000000002


class GenerationPanel(ClientPanel):
    """提示词（预设的下拉框；JupyterLab 里还能自己写）、温度（0 = 贪心，0.1—5）、top-k（0 = 不过滤）、
    top-p（1 = 不过滤）、随机种子。条形图在浏览器里重画（js/generation_panel.js）。

    ``data``：vocab（显示用的字，换行隔开）、每个预设提示词的 logits（整数 round(SCALE × (z − max z))，逗号隔开的字符串）与说明、
    预先采好的续写（texts 去重，grid 的每项是 [提示词序号, 温度, top-k, top-p, [各段在 texts 里的序号]]，种子 0 起）。
    内核现场算的：``live``（自己写的提示词的 logits）与 ``result``（当前设置的续写，带 key 核对是哪组设置）。
    """

    module = "generation_panel"
    controls = ("prompt", "temperature", "top_k", "top_p", "seed")
    prompt = traitlets.Unicode("这家酒店").tag(sync=True)
    temperature = traitlets.Float(1.0, min=0.0, max=T_MAX).tag(sync=True)
    top_k = traitlets.Int(0, min=0, max=K_MAX).tag(sync=True)
    top_p = traitlets.Float(1.0, min=P_MIN, max=1.0).tag(sync=True)
    seed = traitlets.Int(0, min=0, max=SEED_MAX).tag(sync=True)
    live = traitlets.Dict().tag(sync=True)
    result = traitlets.Dict().tag(sync=True)

    def __init__(self, next_logits, encode, decode, vocab, prompt: str = "这家酒店", temperature: float = 1.0,
                 top_k: int = 0, top_p: float = 1.0, seed: int = 0, n_samples: int = 3, max_new_tokens: int = 30,
                 max_prompt_chars: int = MAX_PROMPT_CHARS, prompts=PROMPTS):
        self.next_logits, self.encode, self.decode, self.vocab = next_logits, encode, decode, list(vocab)
        self.n_samples, self.max_new_tokens, self.max_prompt_chars = n_samples, max_new_tokens, max_prompt_chars
        self._stepper = _Stepper(next_logits, dtype=np.float64)
        self._prompt_cache: OrderedDict = OrderedDict()
        self._sample_cache: OrderedDict = OrderedDict()
        presets = list(dict.fromkeys([prompt, *prompts] if prompt and prompt not in prompts else prompts))
        self._presets = {p: i for i, p in enumerate(presets)}
        index, grid, self._grid = {}, [], {}
        for i, p in enumerate(presets):
            state = self._read_prompt(p)[2]
            settings = [(t, 0, 1.0) for t in SAMPLE_TEMPS] + [(t, k, q) for t in FILTER_TEMPS for k, q in SAMPLE_FILTERS]
            for (t, k, q), got in zip(settings, _sample_grid(self._stepper, state, decode, settings, 0, n_samples,
                                                             max_new_tokens)):
                self._grid[(p, t, k, q)] = got
                grid.append([i, t, k, q, [index.setdefault(s, len(index)) for s in got]])
        self._stepper.clear()   # 预先采样读过几千个前文（n 元模型每个约 26 KB），不都留在内存里
        shown = [_show(v) for v in self.vocab]   # 显示用的字（换行已是 ⏎）；写成一个字符串，保存的 notebook 里是一行
        data = {"vocab": "\n".join(shown) if not any("\n" in v for v in shown) else shown, "scale": SCALE, "try": TRY,
                "prompts": [{"prompt": p, **self._entry(p)} for p in presets],
                "texts": list(index), "grid": grid, "n_samples": n_samples, "width": CHART_WIDTH,
                "t_max": T_MAX, "k_max": K_MAX, "p_min": P_MIN, "seed_max": SEED_MAX}
        super().__init__(prompt=prompt, temperature=_round2(temperature), top_k=int(top_k), top_p=_round2(top_p),
                         seed=int(seed), data=data)
        self.observe(self._answer, names=list(self.controls))
        self._answer()

    @classmethod
    def example(cls) -> "GenerationPanel":
        from ..charlm import CharNGramLM
        lm = CharNGramLM(n=3, min_count=1).fit(["这家酒店很好", "这本书很好看", "服务很好，下次还来", "房间太小了，不推荐"])
        return cls(lm.next_logits, lm.encode, lm.decode, lm.vocab, prompt="这家", max_new_tokens=8)

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
        """提示词 → (交给模型的部分, 说明, 读完后的状态, 浏览器要的条目, 条形图用的 logits)；只随提示词变。
        条目 = {"z": 第一步 logits 存成的整数 round(SCALE × (z − max z))，逗号隔开写成一个字符串（保存的 notebook
        里是一行，不是几千行）, "message": 给读者的说明}；条形图用的 logits = 这些整数 / SCALE（浏览器里也这样算）。"""
        def make():
            used, msg = prompt_for_model(prompt, self._stepper.window, self.max_prompt_chars)
            state = self._stepper.start(self.encode(used))
            z = self._stepper.logits([state])[0]
            ints = np.rint((z - z.max()) * SCALE).astype(np.int64)
            return used, msg, state, {"z": ",".join(map(str, ints.tolist())), "message": msg}, ints / SCALE
        return self._remember(self._prompt_cache, (prompt, self.max_prompt_chars), make, size=16)

    def _entry(self, prompt: str) -> dict:
        return self._read_prompt(prompt)[3]

    def _settings(self) -> tuple:
        return self.prompt, _round2(self.temperature), int(self.top_k), _round2(self.top_p), int(self.seed)

    def _samples(self, prompt: str, t: float, k: int, p: float, seed: int) -> list[str]:
        """当前设置的续写：预先采好的直接取（贪心与种子、过滤无关），其余现场采样（缓存）。"""
        hit = self._grid.get((prompt, 0.0, 0, 1.0) if t == 0 else (prompt, t, k, p) if seed == 0 else None)
        if hit is not None:
            return hit
        state = self._read_prompt(prompt)[2]
        return self._remember(self._sample_cache, (prompt, t, k, p, seed),
                              lambda: _sample_from(self._stepper, state, self.decode, t, k, p, seed,
                                                   self.n_samples, self.max_new_tokens))

    def _answer(self, change=None) -> None:
        """内核这一边：控件一变（浏览器里或 Python 里），算出浏览器算不了的东西写回去。"""
        prompt, t, k, p, seed = self._settings()
        if not prompt:
            return
        if prompt not in self._presets and self.live.get("prompt") != prompt:
            self.live = {"prompt": prompt, **self._entry(prompt)}
        self.result = {"key": [prompt, t, k, p, seed], "texts": self._samples(prompt, t, k, p, seed)}

    def bars(self) -> dict:
        """当前设置的条形图数据（用 data 里保留 3 位小数的 logits，与浏览器里算的相同）。"""
        prompt, t, k, p, _ = self._settings()
        return next_token_view(self._read_prompt(prompt)[4], self.vocab, t, k, p)

    def fallback_html(self) -> str:
        prompt, t, k, p, seed = self._settings()
        if not prompt:
            return EMPTY
        return panel_html(self.bars(), self._samples(prompt, t, k, p, seed), prompt, t, k, p,
                          self._entry(prompt)["message"], seed=seed)
