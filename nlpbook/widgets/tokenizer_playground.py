"""分词器游乐场（第 2 章“动手试：分词器游乐场”一节）：输入一句话，看它被切成哪些 token、各自的编号。

从左到右取词表里最长的片段；词表里没有的字退回 UTF-8 字节（灰色），一个生僻汉字占 3 个 token。
切分在浏览器里做（js/tokenizer_playground.js）：数据是分词器的整张词表（256 个字节之后的片段，按编号顺序），
浏览器里的最长匹配 + 字节回退与 tokenizers.LongestMatchTokenizer.tokenize 逐步相同（按 Unicode 码位切，
不按 UTF-16），所以读者敲任何文字都能马上看到切分，不需要内核。
"""
from __future__ import annotations

import html

import traitlets

from ..tokenizers import LongestMatchTokenizer, demo_tokenizer
from ._client import ClientPanel
from ._html import BYTE_COLOR, PALETTE, chip

DEFAULT_TEXT = "小猫没有跳上桌子，因为它太累了。龘👍"
MAX_CHARS = 2000    # 最多切分这么多字符：再长的文本只切前面这一段（切分时间随长度线性增长）
MAX_CHIPS = 120     # 最多画这么多个色块（约十行）：再多页面会拉得很长，统计仍按切分的全部文本
TRY = "试一试：删掉句末的“龘👍”，看灰色的字节片段还剩几个；再打一个词表里没有的字，例如“很”。"
DEMO_NAME = "第 2 章的演示分词器 demo_tokenizer()"


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


def tokenizer_caption(name: str, tokenizer: LongestMatchTokenizer) -> str:
    """面板顶上的一行：哪个分词器在切、词表多大。"""
    n = tokenizer.vocab_size
    return (f"<div style='color:#555'>分词器：{html.escape(name)}——最长匹配，词表里没有的字退回 UTF-8 字节；"
            f"词表 {n:,} 项（256 个字节 + {n - 256:,} 个片段）</div>")


def playground_html(text: str, tokenizer: LongestMatchTokenizer | None = None, name: str = DEMO_NAME) -> str:
    """面板的静态视图：分词器说明 + tokens_html；文本含孤立的代理字符时说明原因（而不是抛异常）。"""
    tok = tokenizer or demo_tokenizer()
    try:
        body = tokens_html(text, tok)
    except ValueError as exc:
        body = f"<span style='color:#AA3377'>{html.escape(str(exc))}</span>"
    return tokenizer_caption(name, tok) + body


class TokenizerPlayground(ClientPanel):
    """句子输入框 + 色块视图；在浏览器里切分（js/tokenizer_playground.js）。测试里设置 ``text``，读 ``fallback_html()``。

    ``data``：``pieces``（编号 256 起的词表片段，按编号顺序）、分词器的名字、色块的配色与截断上限。
    只收 LongestMatchTokenizer（第 2 章的演示分词器就是它）：浏览器里实现的正是它的切分。
    """

    module = "tokenizer_playground"
    controls = ("text",)
    text = traitlets.Unicode(DEFAULT_TEXT).tag(sync=True)

    def __init__(self, text: str = DEFAULT_TEXT, tokenizer: LongestMatchTokenizer | None = None, name: str | None = None):
        if tokenizer is not None and not isinstance(tokenizer, LongestMatchTokenizer):
            raise TypeError("tokenizer 必须是 LongestMatchTokenizer（浏览器里实现的是最长匹配 + 字节回退），"
                            f"收到 {type(tokenizer).__name__}")
        if not isinstance(text, str):
            raise TypeError(f"text 必须是 str，收到 {type(text).__name__}")
        self.tokenizer = tokenizer or demo_tokenizer()
        self.name = name or (DEMO_NAME if tokenizer is None else "传入的最长匹配分词器")
        tok = self.tokenizer
        data = {"pieces": [tok.id_to_piece(i) for i in range(256, tok.vocab_size)], "name": self.name,
                "max_chars": MAX_CHARS, "max_chips": MAX_CHIPS, "palette": list(PALETTE), "byte_color": BYTE_COLOR,
                "try": TRY}
        super().__init__(text=text, data=data)

    def fallback_html(self) -> str:
        return playground_html(self.text, self.tokenizer, self.name)
