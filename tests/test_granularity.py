"""nlpbook.granularity 的测试：课文的例子、各种粒度、刁钻输入、错误信息。"""
import pytest
from hypothesis import given, strategies as st

from nlpbook.granularity import granularity_stats


def test_worked_example():
    """“镜头惊艳”的两个词都不在只见过“电影”“好看”的词表里。

    留出文本 2 篇、4 个 token、4 个类型；没见过的是 镜头、惊艳：类型 2/4 = 0.5，出现次数 2/4 = 0.5。
    """
    assert granularity_stats([["电影", "好看"], ["镜头", "惊艳"]], {"电影", "好看"}) == {
        "docs": 2, "tokens": 4, "tokens_per_doc": 2.0, "vocab_size": 2,
        "heldout_types": 4, "oov_types": 0.5, "oov_tokens": 0.5}


def test_types_and_occurrences_differ():
    """“好看”出现 3 次、“惊艳”1 次：没见过的类型占 1/2，没见过的出现次数只占 1/4。"""
    s = granularity_stats([["好看", "好看"], ["好看", "惊艳"]], ["好看"])
    assert s["heldout_types"] == 2 and s["oov_types"] == 0.5 and s["oov_tokens"] == 0.25


@pytest.mark.parametrize("text", ["电影不好看", "龘👍", "héllo wörld", "a"])
def test_bytes_never_unknown(text):
    s = granularity_stats([list(text.encode("utf-8"))], range(256))
    assert s["vocab_size"] == 256 and s["oov_types"] == 0.0 and s["oov_tokens"] == 0.0
    assert s["tokens"] == len(text.encode("utf-8"))


def test_granularity_order_on_one_sentence():
    """同一句话：字节 ≥ 字 ≥ 词 的 token 数。"""
    text, words = "电影不好看", ["电影", "不", "好看"]
    by_word = granularity_stats([words], set(words))["tokens"]
    by_char = granularity_stats([list(text)], set(text))["tokens"]
    by_byte = granularity_stats([list(text.encode())], range(256))["tokens"]
    assert (by_word, by_char, by_byte) == (3, 5, 15)


def test_empty_doc_and_generators():
    s = granularity_stats(iter([[], ("a", "b"), (x for x in "c")]), {"a"})
    assert s["docs"] == 3 and s["tokens"] == 3 and s["tokens_per_doc"] == 1.0
    assert s["oov_types"] == pytest.approx(2 / 3)


@given(st.lists(st.lists(st.sampled_from("abc好龘"), max_size=6), min_size=1),
       st.sets(st.sampled_from("abc好龘"), min_size=1))
def test_properties(docs, known):
    if sum(map(len, docs)) == 0:
        return
    s = granularity_stats(docs, known)
    assert s["tokens"] == sum(map(len, docs)) and s["vocab_size"] == len(known)
    assert 0.0 <= s["oov_types"] <= 1.0 and 0.0 <= s["oov_tokens"] <= 1.0
    assert (s["oov_types"] == 0.0) == (s["oov_tokens"] == 0.0)
    assert granularity_stats(docs, known | set("abc好龘"))["oov_tokens"] == 0.0


def test_errors():
    with pytest.raises(TypeError, match="文档列表"):
        granularity_stats("电影好看", {"电影"})
    with pytest.raises(TypeError, match="文档列表"):
        granularity_stats(5, {"电影"})
    with pytest.raises(TypeError, match=r"第 1 篇是 str.*list\(text\)"):
        granularity_stats([["电影"], "好看"], {"电影"})
    with pytest.raises(TypeError, match="第 0 篇必须是 token 列表，收到 int"):
        granularity_stats([3], {"电影"})
    with pytest.raises(TypeError, match="不可哈希"):
        granularity_stats([[["电影"]]], {"电影"})
    with pytest.raises(ValueError, match="不能为空"):
        granularity_stats([], {"电影"})
    with pytest.raises(TypeError, match="known_types 必须是 token 类型的集合"):
        granularity_stats([["电影"]], "电影")
    with pytest.raises(TypeError, match="known_types 必须是 token 类型的集合"):
        granularity_stats([["电影"]], 256)
    with pytest.raises(TypeError, match="不可哈希"):
        granularity_stats([["电影"]], [["电影"]])
    with pytest.raises(ValueError, match="known_types 不能为空"):
        granularity_stats([["电影"]], set())
    with pytest.raises(ValueError, match="一个 token 都没有"):
        granularity_stats([[], []], {"电影"})
