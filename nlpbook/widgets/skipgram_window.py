"""Skip-gram 窗口滑块（第 7.5 节）：一句话在不同窗口大小下产生哪些（中心词, 周围词）训练对。

面板在浏览器里重画（js/skipgram_window.js）：按空格切句子、列训练对都很便宜，浏览器里照 word2vec.skipgram_pairs
的规则做（同一句里每个位置左右各取 window 个邻居，先按中心、再按位置）。“用 jieba 分词”要分词器：
JupyterLab 里浏览器发一个请求（segment_request），Python 用 datasets.jieba_cut 切好后把带空格的句子写回 text；
阅读网站上没有内核，只能切本章的例句（SEGMENTED：jieba 预先切好的结果），别的句子给出说明。
"""
from __future__ import annotations

import html
import re

import traitlets

from ..word2vec import skipgram_pairs
from ._client import ClientPanel
from ._html import PALETTE, chip

__all__ = ["TRY", "EXAMPLES", "SEGMENTED", "spacing_hint", "pairs_html", "pairs_for", "SkipGramWindow"]

TRY = "试一试：把窗口从 1 拖到 3，看训练对的总数怎样增长；再把中心词移到句首，它的周围词少了几个？"
WRAP = "white-space:normal;overflow-wrap:anywhere;max-width:900px"
_HAN_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]{4,}")   # 连着 4 个以上汉字
MAX_WINDOW = 5
# 本章用到的例句（第 7.5 节的面板和长句、“相似的语境”一段的小语料）
EXAMPLES = ("我 喜欢 看 电影", "我 喜欢 看 电影 和 书", "我 周末 常常 和 朋友 一起 去 电影院 看 新 上映 的 电影",
            "我 家 的 猫 很 可爱", "我 家 的 狗 很 可爱", "这 部 电影 很 好", "这 部 电影 很 坏")
# 例句去掉空格后 jieba（datasets.jieba_cut）切出的结果；测试核对它与 jieba 一致。jieba 并不总和手工分词一样
# （“看新”“我家”“很坏”），这正好说明分词器有自己的词典。
SEGMENTED = {
    "我喜欢看电影": "我 喜欢 看 电影",
    "我喜欢看电影和书": "我 喜欢 看 电影 和 书",
    "我周末常常和朋友一起去电影院看新上映的电影": "我 周末 常常 和 朋友 一起 去 电影院 看新 上映 的 电影",
    "我家的猫很可爱": "我家 的 猫 很 可爱",
    "我家的狗很可爱": "我家 的 狗 很 可爱",
    "这部电影很好": "这部 电影 很 好",
    "这部电影很坏": "这部 电影 很坏",
}
OFFLINE_NOTE = ("网站上没有 Python 内核，只能切分本章的例句（如“我喜欢看电影”“这部电影很好”）；"
                "别的句子请自己在词与词之间加空格，或在 JupyterLab 里打开本章再点这个按钮。")


def spacing_hint(tokens) -> str:
    """中文没写空格时的提示：连着 4 个以上汉字的 token 多半是几个词粘在了一起。没有问题时返回空串。

    例：["我喜欢看电影"] -> "“我喜欢看电影”是 6 个汉字连在一起……"
    """
    glued = [t for t in tokens if _HAN_RUN.search(t)]
    if not glued:
        return ""
    t = glued[0]
    what = "整句只有 1 个词，一个训练对也没有" if len(tokens) == 1 else f"“{t}”被当成了 1 个词"
    return (f"“{t}”里有 {len(t)} 个字连在一起，{what}：这个面板按空格分词，中文请在词与词之间加空格"
            f"（例如“我 喜欢 看 电影”），或点“用 jieba 分词”自动切开。")


def pairs_html(tokens, window: int, center: int | None = None) -> str:
    """整句的训练对数量，以及某个中心词（位置 center）的窗口高亮和它的训练对。"""
    tokens = list(tokens)
    pairs = skipgram_pairs(tokens, window)
    head = f"<div>窗口 {window}：这句话共产生 <b>{len(pairs)}</b> 个（中心词, 周围词）训练对。</div>"
    hint = spacing_hint(tokens)
    if hint:
        head += f"<div style='color:#AA3377;{WRAP}'>{html.escape(hint)}</div>"
    if center is None or not tokens:
        return head + f"<div style='color:#555'>{TRY}</div>"
    if not 0 <= center < len(tokens):
        raise ValueError(f"center 必须在 0..{len(tokens) - 1} 之间，收到 {center}")
    lo, hi = max(0, center - window), min(len(tokens), center + window + 1)
    chips = []
    for i, t in enumerate(tokens):
        color = PALETTE[4] if i == center else PALETTE[0] if lo <= i < hi else "#FFFFFF"
        chips.append(chip(t, str(i), color))
    mine = [f"（{html.escape(c)}, {html.escape(o)}）" for c, o in pairs_for(tokens, window, center)]
    return (head + f"<div style='line-height:2;{WRAP}'>{''.join(chips)}</div>"
            f"<div style='{WRAP}'>以“{html.escape(tokens[center])}”为中心：{' '.join(mine) or '（无）'}</div>"
            f"<div style='color:#555'>{TRY}</div>")


def pairs_for(tokens, window: int, center: int) -> list[tuple[str, str]]:
    """只取某个位置作中心词时的训练对（与 skipgram_pairs 的顺序一致）。"""
    lo, hi = max(0, center - window), min(len(tokens), center + window + 1)
    return [(tokens[center], tokens[j]) for j in range(lo, hi) if j != center]


def _python_spaces() -> str:
    """str.split() 当作空白的全部字符：浏览器里按同样的字符切句子（JS 的 \\s 与它不完全相同）。"""
    return "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


class SkipGramWindow(ClientPanel):
    """句子输入框（空格分词）、“用 jieba 分词”按钮、窗口滑块（1—5）、中心词位置滑块；在浏览器里重画。

    按钮只在有连成一片的汉字时可用（needs_segmenting；否则没有可切的，按钮变灰并在提示里说明）。
    ``data``：切句子用的空白字符、窗口上限、PALETTE 里的两种高亮色，以及网站上用的例句分词表（SEGMENTED
    加上例句里的每个词——jieba 不再切它们）。
    """

    module = "skipgram_window"
    controls = ("text", "window", "center")
    text = traitlets.Unicode("我 喜欢 看 电影").tag(sync=True)
    window = traitlets.Int(1, min=1, max=MAX_WINDOW).tag(sync=True)
    center = traitlets.Int(2, min=0).tag(sync=True)
    # “用 jieba 分词”：浏览器把 segment_request 加 1；Python 切好写回 text，再把 segment_done 设成同一个数
    segment_request = traitlets.Int(0).tag(sync=True)
    segment_done = traitlets.Int(0).tag(sync=True)
    segment_error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, sentence: str = "我 喜欢 看 电影", window: int = 1, center: int = 2):
        table = dict(SEGMENTED)
        table.update({t: t for s in EXAMPLES for t in s.split()})
        data = {"spaces": _python_spaces(), "max_window": MAX_WINDOW, "center_color": PALETTE[4],
                "window_color": PALETTE[0], "segmented": table, "offline_note": OFFLINE_NOTE, "try": TRY}
        n = len(str(sentence).split())
        super().__init__(text=str(sentence), window=window, center=min(max(0, int(center)), max(0, n - 1)), data=data)

    @traitlets.observe("text")
    def _clamp_center(self, change) -> None:
        top = max(0, len(change["new"].split()) - 1)
        if self.center > top:
            self.center = top

    @property
    def tokens(self) -> list[str]:
        return self.text.split()

    @property
    def needs_segmenting(self) -> bool:
        """按钮可用吗：有连着 4 个以上汉字的 token 时才需要切。"""
        return bool(spacing_hint(self.tokens))

    def segment(self) -> None:
        """与点“用 jieba 分词”相同（浏览器里点按钮也走这条路：请求加 1，Python 切好写回）。"""
        self.segment_request += 1

    @traitlets.observe("segment_request")
    def _on_segment(self, change) -> None:
        try:
            from ..datasets import jieba_cut   # 第一次点时才加载 jieba 词典（约 1 秒）
            self.text = " ".join(w for t in self.text.split() for w in jieba_cut(t))
            self.segment_error = ""
        except ImportError:
            self.segment_error = "没有安装 jieba（pip install jieba），只能手动在词与词之间加空格。"
        self.segment_done = change["new"]

    def fallback_html(self) -> str:
        tokens = self.tokens
        center = min(self.center, len(tokens) - 1) if tokens else None
        return pairs_html(tokens, int(self.window), center)
