"""分词器游乐场（第 2 章“动手试：分词器游乐场”一节）：输入一句话，看它被切成哪些 token、各自的编号。

从左到右取词表里最长的片段；词表里没有的字退回 UTF-8 字节（灰色），一个生僻汉字占 3 个 token。
"""
from __future__ import annotations

import html

import ipywidgets as W

from ..tokenizers import LongestMatchTokenizer, demo_tokenizer
from ._base import Panel
from ._html import BYTE_COLOR, PALETTE, chip

DEFAULT_TEXT = "小猫没有跳上桌子，因为它太累了。龘👍"
MAX_CHARS = 2000    # 最多切分这么多字符：再长的文本只切前面这一段（切分时间随长度线性增长）
MAX_CHIPS = 120     # 最多画这么多个色块（约十行）：再多页面会拉得很长，统计仍按切分的全部文本
TRY = "试一试：删掉句末的“龘👍”，看灰色的字节片段还剩几个；再打一个词表里没有的字，例如“很”。"


def tokens_html(text: str, tokenizer: LongestMatchTokenizer | None = None, *,
                max_chars: int = MAX_CHARS, max_chips: int = MAX_CHIPS) -> str:
    """把切分结果画成色块：每个词一种颜色、字节片段灰色，下标是编号；末尾给出统计。

    超过 max_chars 个字符的文本只切前 max_chars 个；超过 max_chips 个 token 时只画前 max_chips 个。
    两种情况都在视图里写明截掉了多少。
    """
    tok = tokenizer or demo_tokenizer()
    notes = []
    if len(text) > max_chars:
        notes.append(f"输入有 {len(text):,} 个字符，只切分了前 {max_chars:,} 个（后面 {len(text) - max_chars:,} 个没有处理）"
                     f"；想看后面的部分，请删掉前面的文字。")
        text = text[:max_chars]
    tokens = tok.tokenize(text)
    parts, n_bytes, k = [], 0, 0
    for t in tokens:
        if t.is_byte:
            n_bytes += 1
        if len(parts) >= max_chips:
            continue
        if t.is_byte:
            parts.append(chip(t.text, str(t.id), BYTE_COLOR, f"字节回退：{text[t.start:t.end]}"))
        else:
            parts.append(chip(t.text, str(t.id), PALETTE[k % len(PALETTE)]))
            k += 1
    if len(tokens) > max_chips:
        notes.append(f"共 {len(tokens):,} 个 token，上面只画出前 {max_chips:,} 个（省略了 {len(tokens) - max_chips:,} 个）；"
                     f"下面的统计按全部 {len(tokens):,} 个计算。")
    summary = (f"<div>{len(text):,} 个字符 → <b>{len(tokens):,} 个 token</b>"
               f"（其中 {n_bytes:,} 个是字节回退片段）；解码后与原文"
               f"{'一致' if tok.decode(tok.encode(text)) == text else '不一致'}</div>")
    note = "".join(f"<div style='color:#AA3377'>{html.escape(m)}</div>" for m in notes)
    return (f"<div style='line-height:2;white-space:normal;max-width:900px'>{''.join(parts) or html.escape('（空）')}"
            f"{' …' if len(tokens) > max_chips else ''}</div>{note}{summary}"
            f"<div style='color:#555'>{TRY}</div>")


class TokenizerPlayground(Panel):
    """输入框 + 色块视图。测试里设置 ``text.value``，``view.value`` 随之改变。"""

    def __init__(self, text: str = DEFAULT_TEXT, tokenizer: LongestMatchTokenizer | None = None):
        self.tokenizer = tokenizer or demo_tokenizer()
        self.text = W.Text(value=text, description="句子：", layout=W.Layout(width="95%"),
                           continuous_update=True)
        self.view = W.HTML()
        self.watch([self.text])
        self.update()
        self.widget = W.VBox([self.text, self.view])

    def update(self) -> None:
        try:
            self.view.value = tokens_html(self.text.value, self.tokenizer)
        except ValueError as exc:  # 例如孤立的代理字符：说明原因，而不是让面板崩掉
            self.view.value = f"<span style='color:#AA3377'>{html.escape(str(exc))}</span>"
