"""tagging：第 16 章的 BIO 例子、CRF 路径分数 4.5/3.8/2.8、Viterbi 与前向算法对穷举、梯度有限差分、实体级 P/R/F1。"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nlpbook import tagging as T

NEG = -np.inf
# 第 16.3 节：只展示“北京 大学”两个位置；课文没列出的候选（北京 I-ORG、大学 B-ORG）“暂时忽略”，记为 -inf
EX_TAGS = ["B-ORG", "I-ORG", "O"]
EX_UNARY = np.array([[2.0, NEG, 1.0],
                     [NEG, 1.5, 1.8]])
EX_TRANS = np.zeros((3, 3))
EX_TRANS[0, 1] = 1.0  # B-ORG → I-ORG 为 1，其他转移为 0


def _ids(names):
    return np.array([EX_TAGS.index(t) for t in names])


def _brute(unary, trans, start=None, end=None):
    """穷举所有路径及其分数（只用于小例子）。"""
    T_, K = np.shape(unary)
    return {p: T.path_score(unary, trans, np.array(p), start, end) for p in itertools.product(range(K), repeat=T_)}


# ---------- 第 16.2 节：BIO ----------
def test_bio_example_of_16_2():
    tokens = ["小王", "在", "北京", "大学", "工作"]
    tags = ["B-PER", "O", "B-ORG", "I-ORG", "O"]
    spans = T.tags_to_spans(tags)
    assert spans == [("PER", 0, 1), ("ORG", 2, 4)]
    assert "".join(tokens[2:4]) == "北京大学"
    assert T.spans_to_tags(spans, 5) == tags
    assert T.spans_to_tags([("ORG", 2, 4), ("PER", 0, 1)], 5) == tags  # 顺序无关
    assert T.tags_to_spans(["B-LOC", "B-LOC", "I-LOC"]) == [("LOC", 0, 1), ("LOC", 1, 3)]
    assert T.tags_to_spans([]) == [] and T.spans_to_tags([], 3) == ["O"] * 3


@pytest.mark.parametrize("tags, lenient", [
    (["I-ORG", "I-ORG"], [("ORG", 0, 2)]),                     # 句首 I-ORG（第 16.3 节提到的不合法序列）
    (["O", "I-PER"], [("PER", 1, 2)]),                         # O → I-X
    (["B-PER", "I-ORG", "O"], [("PER", 0, 1), ("ORG", 1, 2)]),  # B-X → I-Y
])
def test_strict_rejects_invalid_iob2_and_lenient_starts_new_entity(tags, lenient):
    with pytest.raises(ValueError, match="不符合 IOB2"):
        T.tags_to_spans(tags)
    assert T.tags_to_spans(tags, strict=False) == lenient


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"]), max_size=12))
def test_round_trip_for_valid_sequences_and_lenient_output_is_valid(tags):
    lenient = T.tags_to_spans(tags, strict=False)
    again = T.spans_to_tags(lenient, len(tags))
    assert T.tags_to_spans(again) == lenient  # 宽松转换的结果总能写回合法的 IOB2
    try:
        spans = T.tags_to_spans(tags)
    except ValueError:
        return
    assert T.spans_to_tags(spans, len(tags)) == tags
    assert spans == lenient


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 15), st.data())
def test_spans_round_trip(n, data):
    cuts = sorted(data.draw(st.sets(st.integers(0, n), max_size=8)))
    pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if data.draw(st.booleans())]
    spans = [(data.draw(st.sampled_from(["PER", "LOC", "ORG"])), a, b) for a, b in pieces]
    tags = T.spans_to_tags(spans, n)
    assert len(tags) == n
    assert T.tags_to_spans(tags) == sorted(spans, key=lambda s: s[1])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: T.tags_to_spans(["B-PER", "X"]), ValueError, "第 1 个标签 'X' 不合法"),
    (lambda: T.tags_to_spans(["E-PER"]), ValueError, "只允许 'O'、'B-类型'、'I-类型'"),
    (lambda: T.tags_to_spans(["B-"]), ValueError, "不合法"),
    (lambda: T.tags_to_spans("B-PER"), TypeError, r"tags 必须是标签列表.*一个字符串 'B-PER'.*\['B-PER'\]"),
    (lambda: T.token_accuracy("B-PER", ["B-PER"]), TypeError, "gold_tags 必须是标签列表"),
    (lambda: T.spans_to_tags([("PER", 0, 2), ("ORG", 1, 3)], 4), ValueError, "重叠"),
    (lambda: T.spans_to_tags([("PER", 2, 6)], 5), ValueError, "范围不合法"),
    (lambda: T.spans_to_tags([("PER", 2, 2)], 5), ValueError, "起点 < 终点"),
    (lambda: T.spans_to_tags([("O", 0, 1)], 5), ValueError, "不能是 'O'"),
    (lambda: T.spans_to_tags([("PER", 0)], 5), TypeError, "三元组"),
    (lambda: T.spans_to_tags([("PER", 0.0, 1)], 5), TypeError, "整数"),
    (lambda: T.spans_to_tags([], -1), ValueError, "非负整数"),
])
def test_bio_errors(call, exc, match):
    with pytest.raises(exc, match=match) as info:
        call()
    assert "分词" not in str(info.value)  # 标签不是待分词的文本


# ---------- 第 16.3 节：CRF ----------
def test_path_scores_of_16_3():
    assert T.path_score(EX_UNARY, EX_TRANS, _ids(["B-ORG", "I-ORG"])) == 4.5  # 2 + 1.5 + 1
    assert T.path_score(EX_UNARY, EX_TRANS, _ids(["B-ORG", "O"])) == 3.8      # 2 + 1.8 + 0
    assert T.path_score(EX_UNARY, EX_TRANS, _ids(["O", "O"])) == 2.8          # 1 + 1.8 + 0
    # 独立选择：B-ORG, O，第二个词被漏掉；Viterbi：B-ORG, I-ORG
    assert [EX_TAGS[i] for i in T.decode_independent(EX_UNARY)] == ["B-ORG", "O"]
    path, score = T.viterbi(EX_UNARY, EX_TRANS)
    assert [EX_TAGS[i] for i in path] == ["B-ORG", "I-ORG"] and score == 4.5
    # 课文没列的第四条有限路径 [O, I-ORG] = 1 + 1.5 + 0 = 2.5，它违反 IOB2；加上约束后变成 -inf
    finite = {p: s for p, s in _brute(EX_UNARY, EX_TRANS).items() if s > NEG}
    assert sorted(round(s, 10) for s in finite.values()) == [2.5, 2.8, 3.8, 4.5]
    constrained = EX_TRANS + T.allowed_transitions(EX_TAGS)
    assert T.path_score(EX_UNARY, constrained, _ids(["O", "I-ORG"])) == NEG
    assert sorted(s for s in _brute(EX_UNARY, constrained).values() if s > NEG) == [2.8, 3.8, 4.5]
    # 路径分数还不是概率：前向算法给出归一化项
    log_z = T.forward_log_partition(EX_UNARY, constrained)
    assert np.isclose(log_z, np.log(np.exp(4.5) + np.exp(3.8) + np.exp(2.8)))
    p = np.exp(T.path_log_prob(EX_UNARY, constrained, _ids(["B-ORG", "I-ORG"])))
    assert np.isclose(p, np.exp(4.5) / (np.exp(4.5) + np.exp(3.8) + np.exp(2.8))) and round(p, 3) == 0.595
    assert T.path_log_prob(EX_UNARY, constrained, _ids(["O", "I-ORG"])) == NEG


def test_allowed_transitions_and_starts():
    names = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG"]
    A = T.allowed_transitions(names)
    ok = {(a, b) for a in names for b in names if A[names.index(a), names.index(b)] == 0}
    bad = {(a, b) for a in names for b in names} - ok
    assert bad == {("O", "I-PER"), ("O", "I-ORG"), ("B-ORG", "I-PER"), ("I-ORG", "I-PER"),
                   ("B-PER", "I-ORG"), ("I-PER", "I-ORG")}
    rows, cols = zip(*[(names.index(a), names.index(b)) for a, b in bad])
    assert np.all(A[list(rows), list(cols)] == NEG)
    assert T.allowed_starts(names).tolist() == [0, 0, NEG, 0, NEG]
    assert T.allowed_transitions(names, forbidden=-1e4).min() == -1e4


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5))
def test_constrained_viterbi_always_gives_valid_iob2(seed, n):
    names = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG"]
    rng = np.random.default_rng(seed)
    unary = rng.normal(scale=3, size=(n, 5))
    trans = rng.normal(size=(5, 5)) + T.allowed_transitions(names)
    path, _ = T.viterbi(unary, trans, start=T.allowed_starts(names))
    T.tags_to_spans([names[i] for i in path])  # strict：不报错即合法


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5), st.integers(1, 4), st.booleans())
def test_viterbi_and_forward_agree_with_brute_force(seed, n, k, with_ends):
    rng = np.random.default_rng(seed)
    unary, trans = rng.normal(scale=2, size=(n, k)), rng.normal(size=(k, k))
    start, end = (rng.normal(size=k), rng.normal(size=k)) if with_ends else (None, None)
    table = _brute(unary, trans, start, end)
    path, score = T.viterbi(unary, trans, start, end)
    assert np.isclose(score, max(table.values()))
    assert np.isclose(T.path_score(unary, trans, np.array(path), start, end), score)
    scores = np.array(list(table.values()))
    log_z = T.forward_log_partition(unary, trans, start, end)
    assert np.isclose(log_z, np.log(np.exp(scores).sum()))
    probs = [np.exp(T.path_log_prob(unary, trans, np.array(p), start, end)) for p in table]
    assert np.isclose(sum(probs), 1.0)
    node, edge, lz = T.crf_marginals(unary, trans, start, end)
    assert np.isclose(lz, log_z) and np.allclose(node.sum(axis=1), 1) and edge.shape == (n - 1, k, k)
    brute_node = np.zeros((n, k))
    for p, s in table.items():
        brute_node[np.arange(n), list(p)] += np.exp(s - log_z)
    assert np.allclose(node, brute_node)


def test_forward_is_stable_for_huge_scores():
    unary = np.array([[1000.0, 999.0], [2000.0, -3000.0], [5.0, 5.0]])
    log_z = T.forward_log_partition(unary, np.zeros((2, 2)))
    assert np.isfinite(log_z) and np.isclose(log_z, 3005 + np.log1p(np.exp(-1)) + np.log(2))
    assert T.viterbi(unary, np.zeros((2, 2))) == ([0, 0, 0], 3005.0)  # 最后一步同分，取编号小的


from _gradcheck import numgrad as _num_grad  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5), st.integers(1, 4))
def test_crf_gradient_matches_finite_differences(seed, n, k):
    rng = np.random.default_rng(seed)
    u, tr, s, e = rng.normal(size=(n, k)), rng.normal(size=(k, k)), rng.normal(size=k), rng.normal(size=k)
    y = rng.integers(0, k, size=n)
    nll, g = T.crf_nll_and_grads(u, tr, y, s, e)
    assert np.isclose(nll, -T.path_log_prob(u, tr, y, s, e))
    assert np.allclose(g["unary"], _num_grad(lambda x: T.crf_nll_and_grads(x, tr, y, s, e)[0], u), atol=1e-6)
    assert np.allclose(g["transitions"], _num_grad(lambda x: T.crf_nll_and_grads(u, x, y, s, e)[0], tr), atol=1e-6)
    assert np.allclose(g["start"], _num_grad(lambda x: T.crf_nll_and_grads(u, tr, y, x, e)[0], s), atol=1e-6)
    assert np.allclose(g["end"], _num_grad(lambda x: T.crf_nll_and_grads(u, tr, y, s, x)[0], e), atol=1e-6)


def test_batched_nll_is_sum_of_sentences_and_ignores_padding():
    rng = np.random.default_rng(3)
    B, n, k = 6, 7, 4
    lengths = np.array([7, 1, 3, 5, 2, 7])
    U, Y = rng.normal(size=(B, n, k)), rng.integers(0, k, size=(B, n))
    tr, s, e = rng.normal(size=(k, k)), rng.normal(size=k), rng.normal(size=k)
    U[1, 1:] = NEG   # 补齐处放 -inf、极大值和越界标签，都应被忽略
    U[2, 3:] = 1e6
    Y[3, 5:] = -1
    total, g = T.crf_nll_and_grads(U, tr, Y, s, e, lengths=lengths)
    parts = [T.crf_nll_and_grads(U[b, :L], tr, Y[b, :L], s, e) for b, L in enumerate(lengths)]
    assert np.isclose(total, sum(p[0] for p in parts))
    for key in ("transitions", "start", "end"):
        assert np.allclose(g[key], sum(p[1][key] for p in parts))
    for b, L in enumerate(lengths):
        assert np.allclose(g["unary"][b, :L], parts[b][1]["unary"]) and np.all(g["unary"][b, L:] == 0)


def test_learning_transitions_lowers_nll():
    """只学转移分数：标签总是 O→B→I 依次出现时，学到的 B→I、O→B 分数最大，负对数似然下降。"""
    rng = np.random.default_rng(0)
    names = ["O", "B-ORG", "I-ORG"]
    Y = np.array([[0, 1, 2, 0, 1, 2]] * 8)
    U = rng.normal(scale=0.5, size=(8, 6, 3))
    tr = np.zeros((3, 3))
    first, _ = T.crf_nll_and_grads(U, tr, Y)
    for _ in range(50):
        nll, g = T.crf_nll_and_grads(U, tr, Y)
        tr -= 0.1 * g["transitions"] / len(Y)
    assert nll < 0.5 * first
    assert names[int(tr[1].argmax())] == "I-ORG" and names[int(tr[0].argmax())] == "B-ORG"
    assert min(tr[1, 2], tr[0, 1]) > 2 > tr[0, 2]


@pytest.mark.parametrize("call, exc, match", [
    (lambda: T.viterbi(np.zeros((2, 3)), np.zeros((2, 2))), ValueError, r"transitions 的形状应为 \(3, 3\)"),
    (lambda: T.viterbi(np.zeros(3), np.zeros((3, 3))), ValueError, "2 维"),
    (lambda: T.viterbi(np.zeros((0, 3)), np.zeros((3, 3))), ValueError, "T 与 K 都必须 >= 1"),
    (lambda: T.viterbi([[np.nan, 0]], np.zeros((2, 2))), ValueError, "NaN"),
    (lambda: T.viterbi([[np.inf, 0]], np.zeros((2, 2))), ValueError, r"\+inf"),
    (lambda: T.viterbi([[NEG, NEG]], np.zeros((2, 2))), ValueError, "都被禁止"),
    (lambda: T.forward_log_partition([[NEG, NEG]], np.zeros((2, 2))), ValueError, "都被禁止"),
    (lambda: T.viterbi(np.zeros((2, 2)), np.zeros((2, 2)), start=np.zeros(3)), ValueError, "start"),
    (lambda: T.path_score(np.zeros((2, 2)), np.zeros((2, 2)), [0, 1, 1]), ValueError, "长度 3 与 unary 的位置数 T=2"),
    (lambda: T.path_score(np.zeros((2, 2)), np.zeros((2, 2)), [0, 2]), ValueError, "0..1"),
    (lambda: T.path_score(np.zeros((2, 2)), np.zeros((2, 2)), [0.0, 1.0]), TypeError, "整数"),
    (lambda: T.crf_nll_and_grads(EX_UNARY, EX_TRANS + T.allowed_transitions(EX_TAGS), _ids(["O", "I-ORG"])),
     ValueError, "标准答案路径的分数是 -inf"),
    (lambda: T.crf_nll_and_grads(np.zeros((2, 3, 2)), np.zeros((2, 2)), np.zeros((2, 3), int), lengths=[3, 4]),
     ValueError, "lengths"),
    (lambda: T.crf_nll_and_grads(np.zeros((3, 2)), np.zeros((2, 2)), [0, 1], ), ValueError, "形状"),
    (lambda: T.crf_nll_and_grads(np.zeros((3, 2)), np.zeros((2, 2)), [0, 1, 0], lengths=[3]), ValueError,
     "不需要 lengths"),
    (lambda: T.allowed_transitions(["O", "S-PER"]), ValueError, "不合法"),
])
def test_crf_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------- 第 16.4 节：评价 ----------
def test_entity_prf_example_of_16_4():
    """预测 10 个实体、其中 8 个正确，原文有 12 个实体（分在两句里，micro 汇总）。"""
    gold = [[("PER", i, i + 1) for i in range(0, 14, 2)], [("LOC", i, i + 1) for i in range(0, 10, 2)]]
    pred = [[("PER", i, i + 1) for i in range(0, 10, 2)] + [("ORG", 20, 21)],   # 5 对 1 错
            [("LOC", i, i + 1) for i in range(0, 6, 2)] + [("LOC", 1, 2)]]     # 3 对 1 错
    assert sum(map(len, gold)) == 12 and sum(map(len, pred)) == 10
    r = T.entity_prf(gold, pred)
    assert (r["tp"], r["fp"], r["fn"]) == (8, 2, 4)
    assert r["precision"] == 0.8
    assert round(r["recall"], 3) == 0.667 and round(r["f1"], 3) == 0.727
    assert np.isclose(r["f1"], 2 * 0.8 * (8 / 12) / (0.8 + 8 / 12))


def test_boundary_must_match_exactly():
    """小练习：原文是“北京大学”，模型只输出“北京”，不算正确。"""
    r = T.entity_prf([[("ORG", 2, 4)]], [[("ORG", 2, 3)]])
    assert (r["tp"], r["fp"], r["fn"], r["f1"]) == (0, 1, 1, 0.0)
    assert T.entity_prf([[("ORG", 2, 4)]], [[("LOC", 2, 4)]])["tp"] == 0  # 类型不对也不算


def test_zero_denominator_convention():
    assert T.entity_prf([[("PER", 0, 1)]], [[]]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                                    "tp": 0, "fp": 0, "fn": 1}
    assert T.entity_prf([[]], [[("PER", 0, 1)]])["recall"] == 0.0
    assert T.entity_prf([[], []], [[], []])["f1"] == 0.0


def test_98_percent_token_accuracy_trap():
    """1,000 个 token 中 20 个属于实体：全部预测 O，token 准确率 98%，实体 F1 为 0。"""
    gold = T.spans_to_tags([("PER", i, i + 2) for i in range(0, 1000, 100)], 1000)
    pred = ["O"] * 1000
    assert sum(t != "O" for t in gold) == 20
    assert T.token_accuracy(gold, pred) == 0.98
    assert T.entity_prf([T.tags_to_spans(gold)], [T.tags_to_spans(pred)])["f1"] == 0.0
    assert T.token_accuracy([["O", "B-PER"], ["O"]], [["O", "O"], ["O"]]) == 2 / 3


@pytest.mark.parametrize("call, exc, match", [
    (lambda: T.entity_prf([[]], [[], []]), ValueError, "标注有 1 句，预测有 2 句"),
    (lambda: T.entity_prf([[("PER", 0, 1), ("PER", 0, 1)]], [[]]), ValueError, "重复"),
    (lambda: T.entity_prf([[("PER", 1, 0)]], [[]]), ValueError, "范围不合法"),
    (lambda: T.token_accuracy(["O", "O"], ["O"]), ValueError, "标注有 2 个标签，预测有 1 个"),
    (lambda: T.token_accuracy([["O"]], [["O"], ["O"]]), ValueError, "句数必须相同"),
    (lambda: T.token_accuracy([], []), ValueError, "没有任何 token"),
    (lambda: T.token_accuracy(["O", ["O"]], ["O", "O"]), TypeError, "不能混合"),
])
def test_evaluation_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------- 真实数据：《人民日报》 ----------
def test_pos_to_char_bio():
    chars, tags = T.pos_to_char_bio([("江", "nr"), ("泽民", "nr"), ("在", "p"), ("北京", "ns"),
                                     ("、", "w"), ("新华社", "nt")])
    assert "".join(chars) == "江泽民在北京、新华社"
    assert tags == ["B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "B-ORG", "I-ORG", "I-ORG"]
    assert T.tags_to_spans(tags) == [("PER", 0, 3), ("LOC", 4, 6), ("ORG", 7, 10)]
    _, sep = T.pos_to_char_bio([("江", "nr"), ("泽民", "nr")], merge_nr=False)
    assert sep == ["B-PER", "B-PER", "I-PER"]
    _, locs = T.pos_to_char_bio([("中国", "ns"), ("香港", "ns")])  # 相邻地名不合并
    assert T.tags_to_spans(locs) == [("LOC", 0, 2), ("LOC", 2, 4)]
    _, custom = T.pos_to_char_bio([("春节", "t")], type_map={"t": "TIME"})
    assert custom == ["B-TIME", "I-TIME"]


def test_pos_to_char_bio_on_peoples_daily():
    from nlpbook.datasets import load_peoples_daily
    sents = load_peoples_daily(with_tags=True, max_lines=500)
    chars, tags = T.pos_to_char_bio(sents[1])
    spans = T.tags_to_spans(tags)
    assert [("".join(chars[s:e]), typ) for typ, s, e in spans] == [("中共中央", "ORG"), ("江泽民", "PER")]
    counts = {"PER": 0, "LOC": 0, "ORG": 0}
    for s in sents:
        c, t = T.pos_to_char_bio(s)
        assert len(c) == len(t) == sum(len(w) for w, _ in s)
        for typ, _, _ in T.tags_to_spans(t):  # strict：转换结果总是合法的 IOB2
            counts[typ] += 1
    assert min(counts.values()) > 0


@pytest.mark.parametrize("arg, exc, match", [
    ("江泽民", TypeError, "一个字符串"),
    ([("江", "nr", "x")], TypeError, "第 0 项必须是"),
    ([("", "nr")], ValueError, "空字符串"),
])
def test_pos_to_char_bio_errors(arg, exc, match):
    with pytest.raises(exc, match=match):
        T.pos_to_char_bio(arg)


# ---------- 按句子重抽样的实体级 F1 区间（第 16 章真实数据） ----------
def test_entity_counts_and_f1_interval():
    from nlpbook.tagging import entity_counts, entity_f1_interval
    gold = [[("PER", 0, 1)], [("LOC", 0, 2)], []]
    pred = [[("PER", 0, 1)], [("LOC", 0, 1)], [("ORG", 1, 2)]]
    assert entity_counts(gold, pred).tolist() == [[1, 0, 0], [0, 1, 1], [0, 1, 0]]
    gold, pred = gold * 30, pred * 30
    point, lo, hi = entity_f1_interval(gold, pred)
    assert point == pytest.approx(T.entity_prf(gold, pred)["f1"]) and lo <= point <= hi
    from nlpbook.compare import compare, f1_from_counts          # 两个方法的比较：逐句计数，配对重抽
    c = compare(entity_counts(gold, gold), entity_counts(gold, pred), stat=f1_from_counts)   # 全对 − 有错
    assert c.diff == pytest.approx(1 - T.entity_prf(gold, pred)["f1"]) and 0 < c.lo <= c.diff <= c.hi
    with pytest.raises(ValueError, match="句数"):
        entity_counts(gold, pred[:-1])
