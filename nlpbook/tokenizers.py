"""两个从零写的分词器：最长匹配（带字节回退）和字节级 BPE。

- LongestMatchTokenizer：从左到右，每次取词表里能匹配上的最长片段；
  词表里没有的字拆成 UTF-8 字节 Token（一个生僻汉字占三个 Token）。
- BPETokenizer：在 UTF-8 字节上反复合并最常相邻出现的一对（思路同 karpathy/minbpe）。
  BPETokenizer.train_simple 是课文的朴素循环（每轮从头数一遍），BPETokenizer.train 用增量计数，
  结果逐条相同、快得多。

不做的事：不做 Unicode 规范化（NFC/NFKC），不处理特殊符号（<PAD> 等，见 text.Vocab），
BPE 只做最简单的预切分（字母数字汉字 / 空白 / 其他符号三类，不照搬 GPT-2 的正则），
不保存/加载文件。BPE 训练用增量计数，够课堂规模（几百 KB 文本）；编码不做优化。
孤立的代理字符（如 "\\ud800"）无法用 UTF-8 编码，两个分词器都会报 ValueError。
只用标准库。
"""
from __future__ import annotations

import heapq
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from ._checks import check_id, check_ids, check_positive

__all__ = ["Token", "LongestMatchTokenizer", "demo_tokenizer",
           "get_pair_counts", "merge", "BPETokenizer"]


def _utf8(text, name: str = "text") -> bytes:
    """str -> UTF-8 字节；类型不对或含孤立代理字符时报错。"""
    if not isinstance(text, str):
        raise TypeError(f"{name} 必须是 str，收到 {type(text).__name__}")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{name} 在位置 {exc.start} 的字符 U+{ord(text[exc.start]):04X} 是孤立的代理字符，"
                         "无法用 UTF-8 编码；只允许合法的 Unicode 字符") from None


# ---------------------------------------------------------------- 最长匹配

@dataclass(frozen=True)
class Token:
    """一个 Token。教学位置：第 2 章“动手试：分词器游乐场”一节（灰色的字节 Token）。

    text 是片段或字节显示名（如 '<0xE9>'）；start/end 是它来自的字符区间（text[start:end]），
    同一个字拆出的几个字节 Token 共用这个字的区间。
    """
    text: str
    id: int
    is_byte: bool
    start: int
    end: int


class LongestMatchTokenizer:
    """最长匹配分词器（第 2 章分词器游乐场里的演示分词器）。

    教学位置：第 2.4 节；第 2 章“动手试：分词器游乐场”一节。
    编号：0..255 是 256 个字节 Token（显示为 '<0x00>'…'<0xFF>'），词表片段按给定顺序从 256 开始。
    例：demo_tokenizer().tokenize('小猫没有跳上桌子') -> 小猫 / 没有 / 跳上 / 桌子
    """

    def __init__(self, pieces):
        if isinstance(pieces, str) or not hasattr(pieces, "__iter__"):
            raise TypeError("pieces 必须是由 str 组成的列表等可迭代对象（不能直接是一个 str），"
                            f"收到 {type(pieces).__name__}")
        self._pieces = [f"<0x{b:02X}>" for b in range(256)]
        self._ids = {p: i for i, p in enumerate(self._pieces)}
        for p in pieces:
            _utf8(p, "pieces 里的片段")
            if p == "":
                raise ValueError("pieces 里不能有空字符串；每个片段至少一个字符")
            if p in self._ids:
                raise ValueError(f"片段 {p!r} 重复了（或与字节 Token 的显示名冲突）；每个片段只能出现一次")
            self._ids[p] = len(self._pieces)
            self._pieces.append(p)
        self.vocab_size = len(self._pieces)
        self._max_len = max((len(p) for p in self._pieces[256:]), default=0)

    def id_to_piece(self, i: int) -> str:
        """编号 -> 片段（字节 Token 返回 '<0xE9>' 这样的显示名）。例：id_to_piece(0x41) -> '<0x41>'"""
        i = check_id(i, "i", size=self.vocab_size)
        return self._pieces[i]

    def piece_to_id(self, s: str) -> int:
        """片段 -> 编号；不在词表里时报错。例：piece_to_id('<0x41>') -> 65"""
        if not isinstance(s, str):
            raise TypeError(f"s 必须是 str，收到 {type(s).__name__}")
        if s not in self._ids:
            raise ValueError(f"片段 {s!r} 不在词表里；可用 id_to_piece(0..{self.vocab_size - 1}) 查看词表")
        return self._ids[s]

    def tokenize(self, text: str) -> list[Token]:
        """从左到右取最长匹配；匹配不上就把这一个字拆成 UTF-8 字节 Token。

        教学位置：第 2 章“动手试：分词器游乐场”一节。例：'龘' -> [<0xE9>, <0xBE>, <0x98>]
        """
        _utf8(text)
        out, i, n = [], 0, len(text)
        while i < n:
            for length in range(min(self._max_len, n - i), 0, -1):
                piece = text[i:i + length]
                if piece in self._ids and self._ids[piece] >= 256:
                    out.append(Token(piece, self._ids[piece], False, i, i + length))
                    i += length
                    break
            else:  # 没有匹配：这一个字拆成字节
                out.extend(Token(f"<0x{b:02X}>", b, True, i, i + 1) for b in text[i].encode("utf-8"))
                i += 1
        return out

    def encode(self, text: str) -> list[int]:
        """文本 -> 编号列表。例：encode('龘') -> [233, 190, 152]"""
        return [t.id for t in self.tokenize(text)]

    def decode(self, ids) -> str:
        """编号列表 -> 文本。字节拼起来按 UTF-8 解码；不是合法 UTF-8 的部分替换成 '�'（errors='replace'）。"""
        ids = check_ids(ids, "ids", size=self.vocab_size)
        data = b"".join(bytes([i]) if i < 256 else self._pieces[i].encode("utf-8") for i in ids)
        return data.decode("utf-8", errors="replace")


_DEMO_WORDS = ("小猫 没有 跳上 桌子 因为 它 太 累 了 电影 不 好看 好 看 剧情 精彩 难看 无聊 "
               "我 喜欢 你 这部 模型 词 表 分词 语言 自然 处理")
_DEMO_CHARS = ("的是在一人有个上大中小天们来到说时要就出会可也你对生能而子那得于着下自之年过发后作里"
               "用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前"
               "开但因只从想实")
_DEMO_PUNCT = " ，。！？、；：“”‘’（）《》…—" + "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


def demo_tokenizer() -> LongestMatchTokenizer:
    """课堂演示用的小词表分词器（手写中文词 + 常用字 + ASCII 字母数字 + 标点）。

    教学位置：第 2 章“动手试：分词器游乐场”一节。词表里的重复项只保留第一次出现。
    例：demo_tokenizer().encode('龘') 得到 3 个字节 Token，'👍' 得到 4 个。
    """
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    pieces = _DEMO_WORDS.split() + list(_DEMO_CHARS + letters + _DEMO_PUNCT)
    return LongestMatchTokenizer(dict.fromkeys(pieces))  # dict.fromkeys：按顺序去重


# ---------------------------------------------------------------- BPE

def _pair_counts(ids, counts=None, weight=1):
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + weight
    return counts


def _find_all(ids, x):
    """x 在 ids 里出现的所有位置（用 list.index 跳着找，比逐个比较快）。"""
    out, i = [], -1
    while True:
        try:
            i = ids.index(x, i + 1)
        except ValueError:
            return out
        out.append(i)


def _merge(ids, pair, new_id):
    out, i, (a, b) = [], 0, pair
    for j in _find_all(ids, a):
        if j >= i and j + 1 < len(ids) and ids[j + 1] == b:  # j >= i：不和上一次合并重叠
            out += ids[i:j]
            out.append(new_id)
            i = j + 2
    return out + ids[i:]


def get_pair_counts(ids) -> dict[tuple[int, int], int]:
    """数每一对相邻编号出现几次（重叠的也算）。

    教学位置：第 2.4 节（BPE）。例：[1, 2, 3, 1, 2] -> {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    """
    return _pair_counts(check_ids(ids))


def merge(ids, pair, new_id: int) -> list[int]:
    """从左到右把所有相邻的 pair 换成 new_id（不重叠）。

    教学位置：第 2.4 节（BPE）。例：[1, 2, 3, 1, 2], (1, 2), 4 -> [4, 3, 4]
    """
    ids = check_ids(ids)
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise TypeError(f"pair 必须是两个 int 组成的元组（如 (1, 2)），收到 {pair!r}")
    return _merge(ids, tuple(check_ids(pair, "pair")), check_id(new_id, "new_id"))


# 预切分：连续的字母/数字/汉字、连续的空白、连续的其他符号各成一块；BPE 合并不跨块。
_CHUNK_RE = re.compile(r"\w+|\s+|[^\w\s]+")


def _training_chunks(texts, vocab_size) -> list[str]:
    """训练的输入检查与预切分（train 和 train_simple 共用）：texts 是 str 或 str 列表，vocab_size >= 256。"""
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, (list, tuple)):
        raise TypeError(f"texts 必须是 str 或 str 列表，收到 {type(texts).__name__}")
    check_positive(vocab_size, "vocab_size", integer=True)
    if vocab_size < 256:
        raise ValueError(f"vocab_size 必须 >= 256（256 个字节是起点），收到 {vocab_size}")
    chunks = []
    for t in texts:
        _utf8(t, "texts 里的文本")
        chunks.extend(_CHUNK_RE.findall(t))
    return chunks


class BPETokenizer:
    """字节级 BPE：从 256 个字节出发，每次把最常相邻出现的一对合并成新编号。

    教学位置：第 2.4 节（BPE 子词）；第 2 章“动手试：分词器游乐场”一节。
    merges：按合并顺序排列的 {(a, b): 新编号}，新编号依次是 256, 257, …；
    vocab：{编号: bytes}。不给 merges 时就是纯字节分词器（词表大小 256）。
    例：BPETokenizer.train('aaabdaaabac', 257).merges -> {(97, 97): 256}
    """

    def __init__(self, merges=None):
        merges = {} if merges is None else merges
        if not isinstance(merges, dict):
            raise TypeError(f"merges 必须是 dict（(a, b) -> 新编号），收到 {type(merges).__name__}")
        self.vocab = {i: bytes([i]) for i in range(256)}
        self.merges: dict[tuple[int, int], int] = {}
        for k, (pair, new_id) in enumerate(merges.items()):
            if (not isinstance(pair, tuple) or len(pair) != 2
                    or any(isinstance(x, bool) or not isinstance(x, int) for x in pair)):
                raise TypeError(f"merges 的键必须是两个 int 组成的元组，收到 {pair!r}")
            if new_id != 256 + k or isinstance(new_id, bool):
                raise ValueError(f"第 {k} 条合并的新编号必须是 {256 + k}（按顺序从 256 开始），收到 {new_id!r}")
            if not all(0 <= x < new_id for x in pair):
                raise ValueError(f"合并 {pair} 用到了还不存在的编号；只能用 0..{new_id - 1}")
            self.merges[pair] = new_id
            self.vocab[new_id] = self.vocab[pair[0]] + self.vocab[pair[1]]

    @property
    def vocab_size(self) -> int:
        """词表大小 = 256 + 合并次数。"""
        return len(self.vocab)

    @classmethod
    def train(cls, texts, vocab_size: int) -> "BPETokenizer":
        """在 texts（一个 str 或 str 列表）上训练，直到词表达到 vocab_size。

        教学位置：第 2.4 节。合并不跨文本、不跨预切分块（见 _CHUNK_RE）。
        平局（次数相同）时选数值最小的那一对，结果确定。
        如果出现最多的一对也不到 2 次，就提前停止，词表会小于 vocab_size。
        提速（同 Sennrich 原始算法）：相同的块只存一份并记频次；每次合并只更新受影响的块，
        用堆找出现最多的一对。
        """
        freq = Counter(_training_chunks(texts, vocab_size))
        words = [list(c.encode("utf-8")) for c in freq]
        weights = list(freq.values())
        counts, where = {}, defaultdict(set)  # 每对的总次数；每对出现在哪些块里
        for w, ids in enumerate(words):
            _pair_counts(ids, counts, weights[w])
            for pair in zip(ids, ids[1:]):
                where[pair].add(w)
        heap = [(-c, p) for p, c in counts.items()]  # 懒删除的大根堆：(−次数, 对)
        heapq.heapify(heap)
        merges = {}
        for new_id in range(256, int(vocab_size)):
            while heap and -heap[0][0] != counts.get(heap[0][1], 0):
                heapq.heappop(heap)  # 过期的条目
            if not heap or -heap[0][0] < 2:
                break
            pair = heap[0][1]  # 次数最多；平局时元组比较自然选出最小的对
            merges[pair] = new_id
            changed = set()
            for w in where.pop(pair):  # 只更新含有这一对的块，而且只改动合并点附近的对
                old, weight = words[w], weights[w]
                new = words[w] = _merge(old, pair, new_id)
                born = _find_all(new, new_id)  # 新序列里 new_id 的位置 q，对应旧序列位置 q + t
                gone = {q + t + d for t, q in enumerate(born) for d in (-1, 0, 1)}
                for k in gone:  # 旧序列里挨着被合并位置的对都消失了
                    if 0 <= k < len(old) - 1:
                        counts[old[k], old[k + 1]] -= weight
                        changed.add((old[k], old[k + 1]))
                for k in {q + d for q in born for d in (-1, 0)}:  # 挨着 new_id 的对是新出现的
                    if 0 <= k < len(new) - 1:
                        p = (new[k], new[k + 1])
                        counts[p] = counts.get(p, 0) + weight
                        changed.add(p)
                        where[p].add(w)
            for p in changed:
                if counts[p] > 0:
                    heapq.heappush(heap, (-counts[p], p))
                else:
                    del counts[p]
        return cls(merges)

    @classmethod
    def train_simple(cls, texts, vocab_size: int) -> "BPETokenizer":
        """与 train 结果完全相同的朴素写法：课文的三步循环，慢，但一眼能看懂（思路同 minbpe）。

        教学位置：第 2.4 节。每一轮：① 数出所有相邻的一对各出现几次；② 取出现最多的一对
        （平局取数值最小的一对）；③ 在每一块里把它换成新编号。重复到词表达到 vocab_size，
        或出现最多的一对也不到 2 次。train 用增量计数做同一件事、快得多；测试检查两者逐条相同。
        例：BPETokenizer.train_simple('aaabdaaabac', 259).merges == BPETokenizer.train('aaabdaaabac', 259).merges
        """
        chunks = [list(c.encode("utf-8")) for c in _training_chunks(texts, vocab_size)]
        merges = {}
        for new_id in range(256, vocab_size):
            counts = {}                                        # ① 数相邻对（不跨块）
            for ids in chunks:
                for pair in zip(ids, ids[1:]):
                    counts[pair] = counts.get(pair, 0) + 1
            if not counts:
                break
            pair = min(counts, key=lambda p: (-counts[p], p))  # ② 次数最多；平局取最小的一对
            if counts[pair] < 2:
                break
            merges[pair] = new_id                              # ③ 每一块里都换成新编号
            chunks = [merge(ids, pair, new_id) for ids in chunks]
        return cls(merges)

    def _encode_chunk(self, data: bytes) -> list[int]:
        ids = list(data)
        while len(ids) >= 2:  # 每次做"最早学到"的那个合并，和训练顺序一致
            pair = min(zip(ids, ids[1:]), key=lambda p: self.merges.get(p, float("inf")))
            if pair not in self.merges:
                break
            ids = _merge(ids, pair, self.merges[pair])
        return ids

    def encode(self, text: str) -> list[int]:
        """文本 -> 编号列表。例：在 'aaabdaaabac' 上训练到 259 后，encode('aaabdaaabac') -> [258, 100, 258, 97, 99]"""
        _utf8(text)
        cache, out = {}, []
        for chunk in _CHUNK_RE.findall(text):
            if chunk not in cache:
                cache[chunk] = self._encode_chunk(chunk.encode("utf-8"))
            out.extend(cache[chunk])
        return out

    def decode(self, ids) -> str:
        """编号列表 -> 文本；字节序列不是合法 UTF-8 的地方替换成 '�'（errors='replace'）。"""
        ids = check_ids(ids, "ids", size=self.vocab_size)
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")

    def piece(self, i: int) -> str:
        """编号 -> 可读片段：字节能按 UTF-8 解码就显示文字，否则显示成 '<0xE7>' 这样的字节。"""
        i = check_id(i, "i", size=self.vocab_size)
        try:
            return self.vocab[i].decode("utf-8")
        except UnicodeDecodeError:
            return "".join(f"<0x{b:02X}>" for b in self.vocab[i])

    def tokenize(self, text: str) -> list[str]:
        """文本 -> 可读片段列表。例：未训练时 tokenize('龘') -> ['<0xE9>', '<0xBE>', '<0x98>']"""
        return [self.piece(i) for i in self.encode(text)]
