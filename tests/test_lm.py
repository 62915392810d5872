"""lm：三个字级语言模型（n 元模型、GRU、小 Transformer）满足同一个接口（第 11、13 章）。

每个模型跑同一组检查：encode/decode 往返、next_logits 的形状、困惑度 = exp(被预测的字的平均 −ln P)、
同一种子生成相同、温度 0 等于每步取 argmax、坏输入给出清楚的错误。模型都是现场拟合的小模型，几毫秒即可。
"""
import math

import numpy as np
import pytest

from nlpbook.char_rnn import CharRNNLM, init_char_rnn
from nlpbook.charlm import CharNGramLM
from nlpbook.lm import LanguageModel, compare, perplexity_interval
from nlpbook.tiny_transformer import TinyTransformerLM
from nlpbook.transformer import init_lm_params

TRAIN = ["这本书很好", "这家酒店不好", "手机很好用", "不推荐这本书", "酒店很好，下次还来"]
HELD = ["这本书不好", "酒店很好用", "", "手机🙂不推荐这家酒店的书很好很好"]   # 空文本、词表外的字、长于窗口
NGRAM = CharNGramLM(n=3, min_count=1).fit(TRAIN)
VOCAB = NGRAM.vocab
V = len(VOCAB)
GRU = CharRNNLM(init_char_rnn(V, hidden=8, dim=4, seed=0), vocab=VOCAB)
TT = TinyTransformerLM(init_lm_params(V, 8, 1, 2, 16, 8, np.random.default_rng(0)), VOCAB)
MODELS = {"ngram": NGRAM, "gru": GRU, "transformer": TT}


def _log_softmax(z):
    z = np.asarray(z, dtype=np.float64)
    return z - z.max() - math.log(np.exp(z - z.max()).sum())


def _contexts(name, texts):
    """被预测的每个字与模型读到的前文（编号）。被预测的字三者相同；前文按各模型的读法。"""
    m = MODELS[name]
    if name == "ngram":   # 每条文本从头读：前文 = 换行 + 本条已读的字
        for t in texts:
            ids = m.prompt_ids(t) + [0]
            for k in range(1, len(ids)):
                yield ids[:k], ids[k]
        return
    stream = m.encode("\n" + "\n".join(texts) + "\n")
    for k in range(1, len(stream)):
        if name == "gru":  # 沿整串读下去
            yield stream[:k], stream[k]
        else:              # 长 max_len 的对齐窗口：前文是所在窗口里前面的部分
            L = 8
            start = (k - 1) // L * L
            yield stream[start:k], stream[k]


@pytest.mark.parametrize("name", MODELS)
def test_is_a_language_model_with_round_trip(name):
    m = MODELS[name]
    assert isinstance(m, LanguageModel) and m.vocab == VOCAB and m.vocab[0] == "\n"
    for text in ["这本书很好", "", "\n酒店\n"]:
        assert m.decode(m.encode(text)) == text
    assert m.encode("🙂") == [VOCAB.index("<UNK>")]
    assert m.prompt_ids("这") == m.encode("\n这")
    z = m.next_logits(m.prompt_ids("这本"))
    assert z.shape == (V,) and np.all(np.isfinite(z))
    assert m.n_params() > 0


@pytest.mark.parametrize("name", MODELS)
def test_perplexity_is_exp_mean_nll_of_the_documented_characters(name):
    m = MODELS[name]
    nll, counts = m.text_nll(HELD)
    assert counts.tolist() == [len(t) + 1 for t in HELD]          # 每条文本的字 + 结尾的换行
    pairs = list(_contexts(name, HELD))
    assert len(pairs) == counts.sum()
    by_hand = -sum(_log_softmax(m.next_logits(ctx))[y] for ctx, y in pairs)
    assert nll.sum() == pytest.approx(by_hand, rel=1e-5)
    assert m.perplexity(HELD) == pytest.approx(math.exp(by_hand / len(pairs)), rel=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_generate_is_deterministic_and_greedy_is_the_argmax_path(name):
    m = MODELS[name]
    a = m.generate("这", 12, temperature=1.0, seed=3, stop_at_end=False)
    assert a == m.generate("这", 12, temperature=1.0, seed=3, stop_at_end=False)
    assert len({m.generate("这", 12, temperature=2.0, seed=s, stop_at_end=False) for s in range(5)}) > 1
    ids = m.prompt_ids("这")
    for _ in range(10):
        ids.append(int(np.argmax(m.next_logits(ids))))
    assert m.generate("这", 10, temperature=0, stop_at_end=False) == m.decode(ids[2:])
    assert m.generate("这", 10, temperature=0, seed=7, top_k=3, stop_at_end=False) == m.decode(ids[2:])
    stopped = m.generate("这", 40, temperature=0)
    assert "\n" not in stopped[:-1]                                   # 写出换行就停，换行留在末尾
    assert m.generate("这", 0) == ""


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("call, err, match", [
    (lambda m: m.encode(3), TypeError, "str"),
    (lambda m: m.prompt_ids(None), TypeError, "str"),
    (lambda m: m.perplexity("这本书"), TypeError, "列表"),
    (lambda m: m.perplexity([]), ValueError, "不能为空"),
    (lambda m: m.generate("这", -1), ValueError, "max_new_tokens"),
    (lambda m: m.generate("这", 3, temperature=-1), ValueError, "temperature"),
    (lambda m: m.generate("这", 3, top_p=1.5), ValueError, "p"),
    (lambda m: m.generate("这", 3, seed=-1), ValueError, "seed"),
    (lambda m: m.next_logits([V]), ValueError, str(V - 1)),
])
def test_bad_input_says_what_is_allowed(name, call, err, match):
    with pytest.raises(err, match=match):
        call(MODELS[name])


def test_models_without_vocab_say_so():
    with pytest.raises(ValueError, match="字表"):
        CharRNNLM(GRU.params).perplexity(["好"])
    with pytest.raises(ValueError, match="训练"):
        CharNGramLM().encode("好")


def test_compare_rows_and_pairing():
    rows = compare(MODELS, HELD, "这本", max_new_tokens=6, temperature=0, n_boot=200)
    assert [r["name"] for r in rows] == list(MODELS)
    for r, m in zip(rows, MODELS.values()):
        assert r["perplexity"] == pytest.approx(m.perplexity(HELD))
        assert r["low"] <= r["perplexity"] <= r["high"]
        assert r["sample"] == m.generate("这本", 6, temperature=0)
        assert r["params"] == m.n_params()
    from nlpbook.compare import compare as compare_pair, perplexity_from_sums
    c = compare_pair(*(np.stack([r["nll"], r["counts"]], axis=-1) for r in rows[:2]), stat=perplexity_from_sums, n_boot=200)
    assert c.diff == pytest.approx(rows[0]["perplexity"] - rows[1]["perplexity"]) and c.lo <= c.diff <= c.hi
    with pytest.raises(ValueError, match="字表"):
        compare({"a": NGRAM, "b": CharNGramLM(2, min_count=1).fit(["别的字"])}, HELD, "这")
    with pytest.raises(TypeError, match="LanguageModel"):
        compare({"a": NGRAM, "b": object()}, HELD, "这")
    with pytest.raises(ValueError, match="非空"):
        compare({}, HELD, "这")


def test_tiny_transformer_perplexity_is_the_window_perplexity():
    """TinyTransformerLM.perplexity(texts) 与按窗口读整串的 lm_perplexity 相同（第 13 章的表格依赖这一点）。"""
    from nlpbook.tiny_transformer import lm_perplexity, window_token_nll
    texts = ["这本书不好", "酒店很好用，下次还来这家酒店"]
    ids = TT.encode("\n" + "\n".join(texts) + "\n")
    assert TT.perplexity(texts) == pytest.approx(lm_perplexity(TT.params, ids), rel=1e-12)
    nll = window_token_nll(TT.params, ids, seq_len=3)
    assert nll.shape == (len(ids) - 1,)
    assert lm_perplexity(TT.params, ids, seq_len=3) == pytest.approx(math.exp(nll.mean()), rel=1e-12)
