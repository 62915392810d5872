"""_checks 是输入检查的唯一来源：各模块对同一种错误给出同一种异常、说清收到了什么、允许什么。

- 编号（token id）：不是整数 → TypeError；负数或超出词表 → ValueError（说出允许的范围）；直接给字符串 → TypeError。
  空列表：需要至少一个 token 才能算的地方（语言模型的一次前向、CBOW 的上下文）报错，其余（生成的前文、解码）允许。
- 随机数：不是 np.random.Generator → TypeError，信息里给出 np.random.default_rng(0) 的写法。
"""
import numpy as np
import pytest

from nlpbook import _checks
from nlpbook import attention as A
from nlpbook import char_rnn as CR
from nlpbook import decoding as D
from nlpbook import embedding as EMB
from nlpbook import layers as LY
from nlpbook import objectives as O
from nlpbook import tiny_transformer as TT
from nlpbook import transformer as TF
from nlpbook import word2vec as W2V
from nlpbook.charlm import CharNGramLM
from nlpbook.tokenizers import demo_tokenizer

V = 7
LM = TF.init_lm_params(V, 8, 1, 2, 16, 5, np.random.default_rng(0))
GRU = CR.init_char_rnn(V, hidden=4, dim=3)
CHARS = CharNGramLM(2, min_count=1).fit(["我喝茶", "我喝水"])
TOK = demo_tokenizer()


def _uniform(ids):
    return np.zeros(V)


def _logprobs(ids):
    return np.full(V, -np.log(V))


# 每个模块里收编号的入口：(名字, 调用, 词表大小或 None)
ID_TAKERS = {
    "transformer.lm_forward": (lambda ids: TF.lm_forward(LM, ids), V),
    "transformer.lm_token_nll": (lambda ids: TF.lm_token_nll(LM, ids, ids), V),
    "transformer.lm_next_logits": (lambda ids: TF.lm_next_logits(LM, ids), V),
    "tiny_transformer.generate_logits": (lambda ids: TT.generate_logits(LM, ids), V),
    "char_rnn.next_logits": (lambda ids: CR.next_logits(GRU, ids), V),
    "charlm.next_logits": (lambda ids: CHARS.next_logits(ids), len(CHARS.vocab)),
    "embedding.lookup": (lambda ids: EMB.lookup(np.eye(V), ids), V),
    "word2vec.cbow_forward": (lambda ids: W2V.cbow_forward(np.eye(V), np.eye(V), ids, 0), V),
    "tokenizers.decode": (lambda ids: TOK.decode(ids), TOK.vocab_size),
    "objectives.masked_lm_examples": (lambda ids: O.masked_lm_examples(ids, V, 0, np.random.default_rng(0)), V),
    "objectives.causal_lm_pair": (lambda ids: O.causal_lm_pair(ids, 0, 1), None),
    "decoding.generate": (lambda ids: D.generate(_uniform, ids, 1, temperature=0), None),
    "decoding.beam_search": (lambda ids: D.beam_search(_logprobs, ids, 1, 1, eos_id=0), None),
}


@pytest.mark.parametrize("name", ID_TAKERS)
def test_ids_are_checked_the_same_way_everywhere(name):
    call, size = ID_TAKERS[name]
    call([1, 2])                                                    # 合法的编号照常通过
    with pytest.raises(TypeError, match="整数编号"):
        call([1.5, 2.0])
    with pytest.raises(TypeError, match="一个字符串 '12'"):
        call("12")
    with pytest.raises(ValueError, match=r"非负整数编号|必须在 0\.\."):
        call([1, -1])
    if size is not None:
        with pytest.raises(ValueError, match=rf"必须在 0\.\.{size - 1} 之间"):
            call([1, size])


@pytest.mark.parametrize("name, empty_ok", [
    ("transformer.lm_forward", False), ("tiny_transformer.generate_logits", False), ("word2vec.cbow_forward", False),
    ("transformer.lm_token_nll", False), ("transformer.lm_next_logits", False),
    ("char_rnn.next_logits", True), ("charlm.next_logits", True), ("embedding.lookup", True),
    ("tokenizers.decode", True), ("decoding.generate", True), ("decoding.beam_search", True),
])
def test_empty_id_lists_are_refused_only_where_a_token_is_needed(name, empty_ok):
    call, _ = ID_TAKERS[name]
    if empty_ok:
        call([])
    else:
        with pytest.raises(ValueError, match="不能为空"):
            call([])


@pytest.mark.parametrize("call", [
    lambda rng: D.sample([0.5, 0.5], rng),
    lambda rng: LY.init_ffn_params(4, 8, rng),
    lambda rng: A.init_mha_params(4, rng),
    lambda rng: TF.init_lm_params(V, 8, 1, 2, 16, 5, rng),
    lambda rng: O.masked_lm_examples([1, 2], V, 0, rng),
    lambda rng: O.span_corruption([1, 2, 3], rng, sentinel_ids=[5, 6]),
], ids=["decoding", "layers", "attention", "transformer", "objectives.mlm", "objectives.t5"])
@pytest.mark.parametrize("bad", [0, None, np.random.RandomState(0)], ids=["seed", "None", "RandomState"])
def test_rng_must_be_a_generator_everywhere(call, bad):
    with pytest.raises(TypeError, match=r"rng 必须是 np\.random\.Generator（如 np\.random\.default_rng\(0\)）"):
        call(bad)
    call(np.random.default_rng(0))


def test_check_helpers_directly():
    assert _checks.check_ids(np.array([3, 0]), size=5) == [3, 0]
    assert _checks.check_id(np.int64(4), size=5) == 4
    assert _checks.as_id_array([], "ids").dtype == np.int64
    with pytest.raises(TypeError, match="整数编号"):
        _checks.check_id(True)                                      # bool 不是编号
    with pytest.raises(TypeError, match="一维列表"):
        _checks.check_ids(np.zeros((2, 2), int))
    with pytest.raises(ValueError, match="各行长度必须相同"):
        _checks.as_id_array([[1, 2], [3]])
    with pytest.raises(ValueError, match=r"必须是 2 维数组，收到形状 \(3,\)"):
        _checks.as_id_array([1, 2, 3], ndims=(2,))
    with pytest.raises(ValueError, match=r"idf 必须是有限的数（>= 0），收到 NaN"):
        _checks.check_positive(float("nan"), "idf", allow_zero=True)
    w = np.ones((2, 3), np.float32)
    assert _checks.as_float_array_of_shape(w, "W", (2, 3)) is w          # float32 原样保留
    with pytest.raises(ValueError, match=r"W 的形状应为 \(3, 2\)，收到 \(2, 3\)"):
        _checks.as_float_array_of_shape(w, "W", (3, 2))
