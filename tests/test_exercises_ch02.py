"""第 2 章练习的补充检查：模块里的已知错误之外，再拿几种真实会犯的错误试一试检查器，并核对课文的数。"""
import pytest

from nlpbook.exercises import ch02 as ex
from nlpbook.tokenizers import BPETokenizer, LongestMatchTokenizer, demo_tokenizer
from _exercise_checks import fails as _fails


# ---- 选择题与填数题 ------------------------------------------------------------
def test_choices_reject_an_option_that_does_not_exist():
    _fails(ex.q1, "D", "没有选项")
    _fails(ex.q3, 2, "没有选项")
    assert ex.q3.evaluate("b").passed


def test_q2_an_unexplained_wrong_count_gets_the_generic_message():
    msg = _fails(ex.q2, 7, "你填的是 7")
    assert "10" not in msg, "没请求答案时不能说出应得的值"
    _fails(ex.q2, "十", "这里要填数")


def test_q2_expected_count_is_what_the_demo_tokenizer_gives():
    assert len(demo_tokenizer().encode("我喜欢龘👍！")) == ex.q2.expected == 10
    assert len("我喜欢龘👍！".encode("utf-8")) == 19


def test_q3_the_training_really_stops_early():
    texts = [r for r in ["电影好看", "剧情精彩", "电影难看", "剧情无聊", "电影不好看", "电影不难看"]]
    assert len(BPETokenizer.train(texts, 256 + 200).merges) == 21


# ---- q4 ----------------------------------------------------------------------
def test_q4_sorted_vocabulary():
    def my_encode(tokens, itos):
        stoi = {t: i for i, t in enumerate(sorted(itos))}    # 排了序：编号全变了
        return [stoi.get(t, stoi["<UNK>"]) for t in tokens]
    _fails(ex.q4, my_encode, "第 1 个例子")


def test_q4_duplicate_tokens_collapsed():
    def my_encode(tokens, itos):
        stoi = {t: i for i, t in enumerate(itos)}
        return [stoi.get(t, stoi["<UNK>"]) for t in dict.fromkeys(tokens)]   # 去重了
    _fails(ex.q4, my_encode, "同一个词出现两次", "形状")


def test_q4_numpy_array_output_is_fine():
    import numpy as np

    def my_encode(tokens, itos):
        stoi = {t: i for i, t in enumerate(itos)}
        return np.array([stoi.get(t, stoi["<UNK>"]) for t in tokens], dtype=int)
    assert ex.q4.evaluate(my_encode).passed


# ---- q5 ----------------------------------------------------------------------
def test_q5_whole_text_falls_back_to_bytes_when_one_char_is_unknown():
    def my_char_encode(text, chars):
        index = {c: 256 + k for k, c in enumerate(chars)}
        if all(c in index for c in text):
            return [index[c] for c in text]
        return list(text.encode("utf-8"))             # 一个字不认识，整句都退回字节
    _fails(ex.q5, my_char_encode, "“真”不在词表里")


def test_q5_off_by_one_in_the_first_piece_id():
    def my_char_encode(text, chars):
        index = {c: 255 + k for k, c in enumerate(chars)}   # 第一个字撞上了字节 0xFF
        return [i for c in text for i in ([index[c]] if c in index else list(c.encode("utf-8")))]
    _fails(ex.q5, my_char_encode, "第 1 个例子", "256")


@pytest.mark.parametrize("text", ["", "龘👍", "café", "👨\u200d👩\u200d👧", "电影真好看", "e\u0301", "第一行\n第二行"])
def test_q5_reference_ids_decode_back_to_the_text(text):
    chars = list("好看电影不剧情难")
    ids = ex._char_ref(text, chars)
    assert LongestMatchTokenizer(chars).decode(ids) == text
    assert all(0 <= i < 256 + len(chars) for i in ids)


# ---- q6 ----------------------------------------------------------------------
def test_q6_pairs_counted_with_stride_two():
    """zip(ids[::2], ids[1::2]) 只数了一半的相邻对：第二步选错了。"""
    def my_bpe_step(ids, new_id):
        counts = {}
        for pair in zip(ids[::2], ids[1::2]):
            counts[pair] = counts.get(pair, 0) + 1
        best = max(counts.values())
        pair = min(p for p, c in counts.items() if c == best)
        return pair, ex._merge_ok(ids, pair, new_id)
    _fails(ex.q6, my_bpe_step, "第二步")


def test_q6_merging_only_the_first_occurrence():
    def my_bpe_step(ids, new_id):
        pair, _ = ex._step_ref(ids, new_id)
        ids = list(ids)
        for i in range(len(ids) - 1):
            if (ids[i], ids[i + 1]) == pair:
                return pair, ids[:i] + [new_id] + ids[i + 2:]   # 只换了第一处
        return pair, ids
    _fails(ex.q6, my_bpe_step, "第 1 个例子", "第 1 项")


def test_q6_two_steps_reproduce_the_chapter_merges():
    pair1, seq1 = ex._step_ref(list(b"aaabdaaabac"), 256)
    pair2, seq2 = ex._step_ref(seq1, 257)
    assert (pair1, pair2) == ((97, 97), (97, 98))
    assert seq1 == ex._AAAB_1
    assert list(BPETokenizer.train("aaabdaaabac", 258).merges) == [pair1, pair2]
