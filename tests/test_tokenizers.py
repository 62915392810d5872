"""nlpbook.tokenizers 的测试：课文里的例子、刁钻输入、往返性质、错误信息。"""
import re

import pytest
from hypothesis import given, settings, strategies as st

from nlpbook.tokenizers import (BPETokenizer, LongestMatchTokenizer, Token, demo_tokenizer,
                                get_pair_counts, merge)

# 不含孤立代理字符（Cs）的任意文本：这样的 str 都能用 UTF-8 编码
any_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))

LONG_TEXT = ("自然语言处理让计算机理解人说的话。小猫没有跳上桌子，因为它太累了。\n"
             "这部电影不好看，剧情无聊；那部电影很精彩！I like NLP 123.\t龘龘 👍🏽\n") * 20

AWKWARD = [
    "",
    "好",
    "a",
    "héllo wörld 👍🏽 Ελληνικά",
    "龘",
    "e\u0301 a\u0308\u0323 Z\u0351\u0352",  # 组合附加符号
    "第一行\n第二行\t制表\r\n  ",
    "👨‍👩‍👧‍👦🇨🇳\U0001F600\U00010348",      # ZWJ 序列、旗帜、星际平面字符
    "\x00\x7f\u200b\ufeff",
    LONG_TEXT,
]


@pytest.fixture(scope="module")
def demo():
    return demo_tokenizer()


@pytest.fixture(scope="module")
def bpe():
    return BPETokenizer.train([LONG_TEXT, "aaabdaaabac"], 400)


# ---------------------------------------------------------------- 最长匹配

def test_demo_sentence(demo):
    assert [t.text for t in demo.tokenize("小猫没有跳上桌子")] == ["小猫", "没有", "跳上", "桌子"]
    assert [t.text for t in demo.tokenize("这部电影不好看。")] == ["这部", "电影", "不", "好看", "。"]


def test_rare_cjk_char_is_three_byte_tokens(demo):
    toks = demo.tokenize("龘")
    assert toks == [Token("<0xE9>", 0xE9, True, 0, 1), Token("<0xBE>", 0xBE, True, 0, 1),
                    Token("<0x98>", 0x98, True, 0, 1)]
    assert len(demo.encode("👍")) == 4
    assert all(t.is_byte for t in demo.tokenize("👍"))
    assert not any(t.is_byte for t in demo.tokenize("我喜欢你"))


def test_offsets_and_byte_flags(demo):
    toks = demo.tokenize("我龘了")
    assert [(t.text, t.is_byte, t.start, t.end) for t in toks] == [
        ("我", False, 0, 1), ("<0xE9>", True, 1, 2), ("<0xBE>", True, 1, 2),
        ("<0x98>", True, 1, 2), ("了", False, 2, 3)]


def test_longest_match_and_ids():
    tok = LongestMatchTokenizer(["a", "ab", "abc", "c"])
    assert tok.vocab_size == 256 + 4
    assert [t.text for t in tok.tokenize("abcabc")] == ["abc", "abc"]
    assert [t.text for t in tok.tokenize("abab")] == ["ab", "ab"]
    assert tok.encode("abx") == [257, ord("x")]
    assert tok.piece_to_id("abc") == 258 and tok.id_to_piece(258) == "abc"
    assert tok.id_to_piece(0x41) == "<0x41>" and tok.piece_to_id("<0xFF>") == 255
    # 文本里恰好写着 "<0x41>" 时不会被当成字节 Token
    assert tok.decode(tok.encode("<0x41>")) == "<0x41>"


@pytest.mark.parametrize("text", AWKWARD)
def test_longest_match_roundtrip_awkward(demo, text):
    assert demo.decode(demo.encode(text)) == text
    assert LongestMatchTokenizer([]).decode(LongestMatchTokenizer([]).encode(text)) == text


def _check_cover(toks, text):
    """Token 首尾相接地盖住整段文本；片段 Token 的文字就是原文那一段。"""
    pos = 0
    for t in toks:
        assert t.start == pos or (t.is_byte and t.start == pos - 1 and t.end == pos)
        if not t.is_byte:
            assert text[t.start:t.end] == t.text
        pos = t.end
    assert pos == len(text)


@given(any_text)
def test_longest_match_roundtrip_property(text):
    tok = demo_tokenizer()
    toks = tok.tokenize(text)
    assert tok.decode([t.id for t in toks]) == text
    _check_cover(toks, text)


def test_longest_match_decode_invalid_utf8_replaces(demo):
    assert demo.decode([0xE9, 0xBE]) == "\ufffd"           # 只有半个字：errors="replace"
    assert demo.decode([]) == ""


def test_longest_match_errors(demo):
    with pytest.raises(TypeError, match="不能直接是一个 str"):
        LongestMatchTokenizer("小猫")
    with pytest.raises(TypeError, match="必须是 str，收到 int"):
        LongestMatchTokenizer(["a", 1])
    with pytest.raises(ValueError, match="不能有空字符串"):
        LongestMatchTokenizer(["a", ""])
    with pytest.raises(ValueError, match="重复"):
        LongestMatchTokenizer(["猫", "猫"])
    with pytest.raises(ValueError, match="重复"):
        LongestMatchTokenizer(["<0x41>"])
    with pytest.raises(TypeError, match="text 必须是 str，收到 int"):
        demo.tokenize(123)
    with pytest.raises(ValueError, match="代理字符.*只允许合法的 Unicode"):
        demo.encode("ab\ud800")
    with pytest.raises(ValueError, match=re.escape(f"必须在 0..{demo.vocab_size - 1} 之间")):
        demo.decode([demo.vocab_size])
    with pytest.raises(ValueError, match="必须在 0"):
        demo.decode([-1])
    with pytest.raises(TypeError, match="整数编号"):
        demo.decode([1.0])
    with pytest.raises(TypeError, match="整数编号的一维列表"):
        demo.decode("小猫")
    with pytest.raises(ValueError, match="不在词表里"):
        demo.piece_to_id("龘")
    with pytest.raises(ValueError, match="必须在 0"):
        demo.id_to_piece(10**6)


# ---------------------------------------------------------------- BPE 小工具

def test_pair_helpers():
    assert get_pair_counts([1, 2, 3, 1, 2]) == {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    assert merge([1, 2, 3, 1, 2], (1, 2), 4) == [4, 3, 4]
    assert merge([7, 7, 7], (7, 7), 9) == [9, 7]            # 从左到右、不重叠
    assert merge([7, 7, 7, 7], (7, 7), 9) == [9, 9]
    assert get_pair_counts([]) == {} and merge([], (1, 2), 3) == []
    with pytest.raises(TypeError, match="整数编号的一维列表"):
        get_pair_counts("abc")
    with pytest.raises(TypeError, match="两个 int 组成的元组"):
        merge([1, 2], [1, 2], 3)
    with pytest.raises(TypeError, match="new_id 必须是整数编号"):
        merge([1, 2], (1, 2), "3")


# ---------------------------------------------------------------- BPE

def test_bpe_wikipedia_example():
    """维基百科 BPE 例子 "aaabdaaabac"，vocab_size=259 即合并 3 次。

    第 1 次：相邻对计数 aa=4（aaa 里重叠地算两次，共两段）、ab=2、其余 1 → (97, 97) -> 256（Z）。
             序列变成 Z a b d Z a b a c。
    第 2 次：(256, 97)=2 与 (97, 98)=2 平局，取数值更小的对 (97, 98) -> 257（Y = "ab"）。
             序列变成 Z Y d Z Y a c（与维基百科一致）。
    第 3 次：(256, 257)=2 最多 -> 258（X = "aaab"），序列变成 X d X a c。
    """
    tok = BPETokenizer.train("aaabdaaabac", 259)
    assert tok.merges == {(97, 97): 256, (97, 98): 257, (256, 257): 258}
    assert list(tok.merges.values()) == [256, 257, 258]
    assert tok.vocab[258] == b"aaab"
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.tokenize("aaabdaaabac") == ["aaab", "d", "aaab", "a", "c"]


def test_bpe_early_stop_and_boundaries():
    assert BPETokenizer.train("abcdef", 300).vocab_size == 256     # 没有出现 2 次的对：提前停
    assert BPETokenizer.train("aaabdaaabac", 256).merges == {}
    assert BPETokenizer.train("abab", 300).merges == {(97, 98): 256}
    assert BPETokenizer.train(["a", "b", "a", "b"], 300).merges == {}  # 不跨文本
    assert BPETokenizer.train("a b a b", 300).merges == {}              # 不跨预切分块
    assert BPETokenizer.train([], 300).merges == {}


BPE_CORPORA = {
    "课文的中文": LONG_TEXT.splitlines()[:6] + ["aaabdaaabac", "好好好好好"],
    "维基百科例子（第 2 次合并是平局）": ["aaabdaaabac"],
    "全是平局": ["abcd", "abcd", "dcba", "dcba"],        # 每一对都出现 2 次：按数值最小的对
    "emoji 与组合字符": ["👍🏽👍🏽👍 👨‍👩‍👧‍👦👨‍👩‍👧‍👦 🇨🇳🇨🇳", "e\u0301e\u0301 😀😀😀"],
    "混合": ["I like NLP 123. I like NLP!", "龘龘龘 龘龘", "\t\t\n\n  ", "ab" * 40],
}


@pytest.mark.parametrize("name", BPE_CORPORA)
def test_readable_and_fast_bpe_trainers_agree(name):
    """随包的两种训练：train_simple（课文的朴素循环）与 train（增量计数）逐条合并相同。"""
    texts = BPE_CORPORA[name]
    for vocab_size in (256, 260, 300, 400):
        assert BPETokenizer.train_simple(texts, vocab_size).merges == BPETokenizer.train(texts, vocab_size).merges


def test_readable_bpe_trainer_on_the_wikipedia_example():
    assert BPETokenizer.train_simple("aaabdaaabac", 259).merges == {(97, 97): 256, (97, 98): 257, (256, 257): 258}
    assert BPETokenizer.train_simple("abcdef", 300).vocab_size == 256   # 没有出现 2 次的对：提前停
    assert BPETokenizer.train_simple([], 300).merges == {}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab 好龘,👍", max_size=30), max_size=5), st.integers(256, 300))
def test_bpe_matches_readable_trainer_property(texts, vocab_size):
    fast = BPETokenizer.train(texts, vocab_size)
    assert fast.merges == BPETokenizer.train_simple(texts, vocab_size).merges
    assert BPETokenizer.train(texts[::-1], vocab_size).merges == fast.merges  # 与文本顺序无关


@pytest.mark.parametrize("text", AWKWARD)
def test_bpe_roundtrip_awkward(bpe, text):
    assert bpe.decode(bpe.encode(text)) == text


@given(any_text)
def test_bpe_roundtrip_property(text):
    tok = BPETokenizer.train([LONG_TEXT[:300], "aaabdaaabac"], 300)
    assert tok.decode(tok.encode(text)) == text


@settings(deadline=None)
@given(any_text, st.integers(256, 320))
def test_bpe_trained_on_text_never_longer_than_bytes(text, vocab_size):
    tok = BPETokenizer.train(text, vocab_size)
    ids = tok.encode(text)
    assert len(ids) <= len(text.encode("utf-8"))
    assert tok.decode(ids) == text


def test_bpe_compresses_and_reloads(bpe):
    ids = bpe.encode(LONG_TEXT)
    assert len(ids) < len(LONG_TEXT.encode()) / 2
    assert BPETokenizer(bpe.merges).encode(LONG_TEXT) == ids             # 只靠 merges 就能复原
    assert BPETokenizer.train([LONG_TEXT, "aaabdaaabac"], 400).merges == bpe.merges  # 确定性


def test_bpe_pieces():
    raw = BPETokenizer()                                                  # 未训练：纯字节
    assert raw.vocab_size == 256
    assert raw.tokenize("A龘") == ["A", "<0xE9>", "<0xBE>", "<0x98>"]
    tok = BPETokenizer({(0xE7, 0x9A): 256, (256, 0x84): 257})           # "的" = E7 9A 84
    assert tok.piece(256) == "<0xE7><0x9A>" and tok.piece(257) == "的"
    assert tok.tokenize("的的") == ["的", "的"]
    assert tok.decode([256]) == "\ufffd"                                  # 半个字：errors="replace"


def test_bpe_errors(bpe):
    with pytest.raises(ValueError, match="vocab_size 必须 >= 256.*收到 255"):
        BPETokenizer.train("abc", 255)
    for bad in ("300", 300.0, True):
        for train in (BPETokenizer.train, BPETokenizer.train_simple):
            with pytest.raises(TypeError, match="vocab_size 必须是整数"):
                train("abc", bad)
    with pytest.raises(TypeError, match="texts 必须是 str 或 str 列表，收到 int"):
        BPETokenizer.train(5, 300)
    with pytest.raises(TypeError, match="必须是 str，收到 int"):
        BPETokenizer.train(["abc", 5], 300)
    with pytest.raises(ValueError, match="代理字符"):
        BPETokenizer.train(["\udfff"], 300)
    with pytest.raises(ValueError, match="代理字符"):
        bpe.encode("\ud800")
    with pytest.raises(TypeError, match="text 必须是 str"):
        bpe.encode(b"abc")
    with pytest.raises(ValueError, match=re.escape(f"必须在 0..{bpe.vocab_size - 1} 之间")):
        bpe.decode([bpe.vocab_size])
    with pytest.raises(ValueError, match="必须在 0"):
        bpe.piece(-1)
    with pytest.raises(TypeError, match="merges 必须是 dict"):
        BPETokenizer([((97, 97), 256)])
    with pytest.raises(ValueError, match="必须是 256"):
        BPETokenizer({(97, 97): 300})
    with pytest.raises(ValueError, match="还不存在的编号"):
        BPETokenizer({(97, 256): 256})
