"""附录 D 的标准库脚本与 numpy 代码逐项对照：两份独立实现给出同样的数。"""
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from nlpbook import attention as ATT
from nlpbook import cnn, cost, decoding, embedding, metrics, objectives, retrieval, rnn, tagging, word2vec
from nlpbook import examples as E
from nlpbook import functional as F
from nlpbook import linear as L
from nlpbook.datasets import TFIDF_DOCS, TOY_REVIEWS, TOY_VOCAB
from nlpbook.layers import layer_norm_forward
from nlpbook.naive_bayes import naive_bayes_posterior
from nlpbook.ngram import NGramModel
from nlpbook.rules import rule_predict, rule_score
from nlpbook.text import Vocab, bag_of_words, ngrams, tf_idf


def test_chapter1_matches_rules():
    ex = E.chapter1()
    for r in TOY_REVIEWS:
        assert ex[f"{r.name} 规则分数"] == rule_score(r.tokens)
        assert ex[f"{r.name} 判对了吗"] == int(rule_predict(r.tokens) == r.label)


def test_chapter2_and_3_match_text_module():
    v = Vocab(TOY_VOCAB)
    assert E.chapter2()["电影不好看 的编号"] == v.encode(["电影", "不", "好看"])
    ex = E.chapter3()
    assert ex["电影不好看 词袋"] == bag_of_words(["电影", "不", "好看"], v).tolist()
    w = np.array([0, 0, 1, 1, -1, -1, 0])
    for r in TOY_REVIEWS:
        z = bag_of_words(r.tokens, v) @ w
        assert ex[f"{r.name} 分数"] == z
        assert math.isclose(ex[f"{r.name} 好评概率"], F.sigmoid(z))
    m, _ = tf_idf(TFIDF_DOCS)
    assert np.allclose(ex["D1 TF-IDF"], m[0])


def test_chapter4_matches_linear():
    ex = E.chapter4()
    w, _ = L.sgd_step([0.0], 0.0, [[1.0]], [1], lr=0.2, fit_bias=False)
    assert math.isclose(ex["新权重"], w[0])
    assert math.isclose(ex["新损失"], L.loss(w, 0.0, [[1.0]], [1]))
    assert math.isclose(ex["梯度"], L.gradient([0.0], 0.0, [[1.0]], [1])[0][0])
    assert np.allclose([ex["损失(p=0.1)"], ex["损失(p=0.5)"], ex["损失(p=0.9)"]],
                       F.binary_cross_entropy([0.1, 0.5, 0.9], [1, 1, 1]))
    assert round(ex["新概率"], 3) == 0.525 and round(ex["新损失"], 3) == 0.644


def agree(ours, theirs):
    """标准库的数（可以是嵌套列表、Fraction）与 numpy 的结果一致：形状相同，数值到 1e-9。"""
    a, b = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.allclose(a, b, rtol=1e-9, atol=1e-12), (ours, theirs)
    return True


def test_chapter5_matches_ngram():
    ex = E.chapter5()
    corpus = [["我", "喝", "茶"], ["我", "喝", "茶"], ["我", "喝", "水"]]
    lm = NGramModel(2, k=0).fit(corpus)
    assert ex["P(茶|喝)"] == Fraction(2, 3) and agree(ex["P(茶|喝)"], lm.prob("茶", ["喝"]))
    assert agree(ex["P(水|喝)"], lm.prob("水", ["喝"])) and ex["P(咖啡|喝)（只按次数）"] == 0
    smooth = NGramModel(2, k=1, vocab=["茶", "水", "咖啡"], add_eos=False).fit([["喝", "茶"]] * 2 + [["喝", "水"]])
    for w in ("茶", "水", "咖啡"):
        assert math.isclose(ex[f"加一后 P({w}|喝)"], smooth.prob(w, ["喝"]))
    assert ex["加一后的次数 茶/水/咖啡"] == [3, 2, 1] and ex["加一后的总数"] == 6
    assert math.isclose(ex["P(<BOS> 我 喝 茶 <EOS>)"], math.exp(lm.sentence_logprob(["我", "喝", "茶"])))
    assert math.isclose(ex["困惑度(我 喝 茶，含 <EOS> 共 4 步)"], lm.perplexity([["我", "喝", "茶"]]))
    assert ex["电影不好看 的 bigram"] == ngrams(["电影", "不", "好看"], 2)


def test_chapter6_matches_embedding():
    ex = E.chapter6()
    words = ["好看", "精彩", "难看", "无聊", "电影"]
    table = np.array([[1.0, 0.0], [0.8, 0.2], [-1.0, 0.0], [-0.8, 0.2], [0.0, 1.0]])
    assert agree(ex["查表 好看"], embedding.lookup(table, 0)) and agree(ex["查表 电影"], embedding.lookup(table, 4))
    assert agree(ex["one-hot 好看"], embedding.one_hot(0, 5)) and agree(ex["one-hot 乘表"], embedding.one_hot(0, 5) @ table)
    for name, ids in (("电影好看", [4, 0]), ("电影精彩", [4, 1])):
        mean = embedding.mean_pool(table[ids])
        assert agree(ex[f"{name} 平均向量"], mean)
        assert agree(ex[f"{name} 好评概率"], F.sigmoid(mean @ [2, 0]))
    for a, b in (("好看", "精彩"), ("好看", "难看"), ("好看", "电影"), ("精彩", "无聊")):
        assert agree(ex[f"余弦 {a}—{b}"], embedding.cosine_similarity(table[words.index(a)], table[words.index(b)]))


def test_chapter7_matches_word2vec():
    ex = E.chapter7()
    W_in, W_out = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]])
    fwd = word2vec.cbow_forward(W_in, W_out, [0, 1], 0)
    assert agree(ex["平均输入向量"], fwd["hidden"]) and agree(ex["候选得分 看/吃/买"], fwd["scores"])
    assert agree(ex["概率 看/吃/买"], fwd["probs"]) and agree(ex["损失 -ln P(看)"], fwd["loss"])
    bwd = word2vec.cbow_backward(W_in, W_out, [0, 1], 0)
    assert agree(ex["得分的梯度"], bwd["d_scores"]) and agree(ex["平均向量的梯度"], bwd["d_hidden"])
    assert agree(ex["每个输入词的梯度"], bwd["d_inputs"][0])
    new_in, _ = word2vec.cbow_step(W_in, W_out, [0, 1], 0, lr=0.1, update_output=False)
    assert agree([ex["更新后 喜欢"], ex["更新后 电影"]], new_in)
    pairs = [f"{c}→{o}" for c, o in word2vec.skipgram_pairs(["我", "喜欢", "看", "电影"], 1) if c == "看"]
    assert ex["Skip-gram 词对（中心 看）"] == pairs
    assert agree(ex["负采样损失"], word2vec.negative_sampling_loss(2, [-1]))


def test_chapter8_to_10_match_rnn_and_cnn():
    ex8, ex9, ex10 = E.chapter8(), E.chapter9(), E.chapter10()
    assert agree(ex8["猫追狗 的记录"], rnn.toy_record([1, 0, 2])) and agree(ex8["狗追猫 的记录"], rnn.toy_record([2, 0, 1]))
    assert agree(ex8["0.5 的 10 次方"], rnn.decay_influence(0.5, 10))
    assert agree(ex8["0.5 的 20 次方"], rnn.decay_influence(0.5, 20))
    c = rnn.lstm_memory_update(0.8, f=0.9, i=0.2, g=0.5)
    assert agree(ex9["新记忆 c"], c) and agree(ex9["对外输出 h"], rnn.lstm_output(c, 0.7))
    assert agree(ex9["f=1、i=0 时的新记忆"], rnn.lstm_memory_update(0.8, f=1, i=0, g=0.5))
    assert ex10["宽度 3 的窗口"] == cnn.windows(["这部", "电影", "不", "太", "好看"], 3)
    fmap = np.vstack([cnn.conv1d([-1, 0.5, 1], [2, 1, 1]), cnn.conv1d([1, 0.5, -1], [2, 1, 1])])
    assert agree([ex10["[不,太,好看] 的得分"], ex10["[好看,太,不] 的得分"]], fmap[:, 0])
    assert agree(ex10["两个得分的最大池化"], cnn.max_over_time(fmap)[0][0])
    assert ex10["单层宽 3 能看到的词数"] == cnn.receptive_field(3) and ex10["两层宽 3 能看到的词数"] == cnn.receptive_field(3, 2)


def test_chapter11_matches_decoding():
    ex = E.chapter11()
    assert (ex["输入"], ex["目标"]) == tuple(objectives.causal_lm_pair(["我", "喜欢", "电影"], "<BOS>", "<EOS>"))
    p = [0.6, 0.3, 0.1]
    assert ["电影", "音乐", "香蕉"][decoding.greedy(p)] == ex["贪心选"]
    assert agree(ex["top-k (k=2)"], decoding.top_k_filter(p, 2)) and agree(ex["top-p (p=0.8)"], decoding.top_p_filter(p, 0.8))
    for t in (0.5, 1.0, 2.0):
        assert agree(ex[f"温度 T={t:g}"], decoding.apply_temperature(np.log(p), t))
    assert agree(ex["每步损失"], decoding.token_losses([0.5, 0.25, 0.125]))
    assert agree(ex["困惑度"], decoding.perplexity_from_probs([0.5, 0.25, 0.125])) and round(ex["困惑度"], 9) == 4


def test_chapter12_and_13_match_attention():
    ctx, w = ATT.attention_from_scores([0, 1, 2], [[1, 0], [0, 1], [1, 1]])
    ex = E.chapter12()
    assert agree(ex["注意力权重 我/喜欢/猫"], w) and agree(ex["上下文向量"], ctx)
    ex = E.chapter13()
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    V = X @ np.array([[1.0, 0.0], [0.0, 2.0]])
    assert agree(ex["V"], V)
    st = ATT.attention_steps(X, X, V)
    assert agree(ex["A 的点积"], st["scores"][0]) and agree(ex["A 缩放后"], st["scaled"][0])
    assert agree(ex["A 的权重"], st["weights"][0]) and agree(ex["A 的新表示"], st["output"][0])
    assert agree(ex["3×3 权重表"], st["weights"]) and agree(ex["三个位置的输出"], st["output"])
    assert agree(ex["指数之和"], np.exp(st["scaled"][0]).sum())
    causal = ATT.attention_steps(X, X, V, mask=ATT.causal_mask(3))
    assert agree(ex["因果遮罩（1=可读）"], ATT.causal_mask(3))
    assert agree(ex["A 遮罩后"], causal["masked"][0]) and agree(ex["A 遮罩后的权重"], causal["weights"][0])
    assert agree(ex["A 遮罩后的输出"], causal["output"][0])
    assert ATT.split_heads(np.zeros((1, 128)), 4).shape[-1] == ex["128 维分 4 个 head，每头"]
    y, _ = layer_norm_forward([1.0, 3.0], 1.0, 0.0)
    assert agree(ex["[1,3] 的 LayerNorm（eps=1e-5）"], y) and ex["[1,3] 减去均值"] == [-1, 1]


def test_chapter14_matches_cost():
    ex = E.chapter14()
    assert ex["n² 表 (n, n, n²)"] == [list(r) for r in cost.attention_growth_table()]
    assert ex["4096×4096 的元素数"] == cost.attention_table_entries(4096) == 16_777_216
    assert ex["一张表的字节数（2 字节）"] == cost.attention_table_bytes(4096) and ex["一张表 (MiB)"] == 32
    assert cost.attention_table_bytes(4096, heads=32) == ex["32 个 head (GiB)"] * 2 ** 30
    assert ex["词向量表的字节数（4 字节）"] == cost.embedding_table_bytes(10_000, 128) and ex["词向量表 (MB)"] == 5.12
    assert ex["KV cache 字节数"] == cost.kv_cache_bytes(1, 32, 8192, 8, 128) == 2 ** 30
    cmp = cost.kv_cache_comparison(1, 32, 8192, 32, 128, groups=8)
    assert (ex["32 个 Query head：MHA (GiB)"] * 2 ** 30, ex["GQA 8 组 (GiB)"] * 2 ** 30,
            ex["MQA (MiB)"] * 2 ** 20) == (cmp["MHA"], cmp["GQA"], cmp["MQA"])
    assert ex["10 个 token、d=512 一层的运算次数"] == cost.transformer_layer_flops(10, 512) == 63_119_360
    parts = cost.transformer_layer_flops(6 * 512, 512, breakdown=True)          # 长度恰为 6d 时两项相等
    assert ex["n²d 项超过 nd² 项的长度（d=512）"] == 6 * 512 and parts["attention"] == parts["projections"] + parts["ffn"]


def test_chapter15_matches_objectives():
    ex = E.chapter15()
    assert agree(ex["编码器（双向） 遮罩"], objectives.attention_mask_for("encoder", 4))
    assert agree(ex["解码器（因果） 遮罩"], objectives.attention_mask_for("causal", 4))
    assert agree(ex["前缀（前 2 个互相可见） 遮罩"], objectives.attention_mask_for("prefix", 4, prefix_len=2))
    _, labels = objectives.masked_lm_examples(np.arange(5, 105), 105, 0, np.random.default_rng(0))
    assert ex["100 个 token 选中几个"] == int((labels != objectives.IGNORE_INDEX).sum()) == 15
    sent = ["这部", "电影", "非常", "精彩"]
    assert (ex["因果输入"], ex["因果目标"]) == tuple(objectives.causal_lm_pair(sent, "<BOS>", "<EOS>"))
    ids = np.arange(10, 136)
    inputs, targets = objectives.span_corruption(ids, np.random.default_rng(0), sentinel_ids=np.arange(10))
    n_sentinels = int(np.isin(targets, np.arange(10)).sum())
    assert (ex["126 个 token 片段破坏几个"], ex["分成几段"]) == (targets.size - n_sentinels, n_sentinels - 1) == (19, 6)
    assert (ex["T5 输入长度（保留的 + 每段一个哨兵）"], ex["T5 目标长度（被拿走的 + 哨兵 + 结束哨兵）"]) == (inputs.size,
                                                                                         targets.size)


def test_chapter16_matches_tagging():
    ex = E.chapter16()
    assert [tuple(s[:3]) for s in ex["实体片段"]] == tagging.tags_to_spans(ex["BIO 标签"])
    tags = ["B-ORG", "I-ORG", "O"]
    unary = np.array([[2.0, -np.inf, 1.0], [-np.inf, 1.5, 1.8]])
    trans = np.zeros((3, 3))
    trans[0, 1] = 1.0
    for path in (["B-ORG", "I-ORG"], ["B-ORG", "O"], ["O", "O"], ["O", "I-ORG"]):
        key = f"路径 [{', '.join(path)}]" if path != ["O", "I-ORG"] else "违反 IOB2 的 [O, I-ORG]"
        assert agree(ex[key], tagging.path_score(unary, trans, [tags.index(t) for t in path]))
    assert ex["逐位置独立选"] == [tags[i] for i in tagging.decode_independent(unary)]
    constrained = trans + tagging.allowed_transitions(tags)
    best, _ = tagging.viterbi(unary, trans)
    assert ex["最高分路径（软 CRF、硬约束都是）"] == [tags[i] for i in best] == [tags[i] for i in tagging.viterbi(unary, constrained)[0]]
    # 软 CRF：只有学到的转移分数，不合法的 [O, I-ORG] 也分到概率（第 16.3 节的 0.551）
    assert agree(ex["软 CRF：log Z（四条路径）"], tagging.forward_log_partition(unary, trans))
    assert agree(ex["软 CRF：P([B-ORG, I-ORG])"], math.exp(tagging.path_log_prob(unary, trans, best)))
    assert agree(ex["软 CRF：P([O, I-ORG])"], math.exp(tagging.path_log_prob(unary, trans, [2, 1])))
    assert round(ex["软 CRF：P([B-ORG, I-ORG])"], 3) == 0.551
    # 硬约束：O → I-ORG 为 -inf，三条合法路径重新归一化（0.595）
    assert agree(ex["硬约束：log Z（三条合法路径）"], tagging.forward_log_partition(unary, constrained))
    assert agree(ex["硬约束：P([B-ORG, I-ORG])"], math.exp(tagging.path_log_prob(unary, constrained, best)))
    assert round(ex["硬约束：P([B-ORG, I-ORG])"], 3) == 0.595
    gold = [["O"] * 980 + ["B-PER"] * 20]
    assert agree(ex["全判“其他”的 token 准确率"], tagging.token_accuracy(gold, [["O"] * 1000]))
    gold_spans = [[("X", i, i + 1)] for i in range(12)]
    pred_spans = [[("X", i, i + 1)] for i in range(8)] + [[] for _ in range(4)]
    pred_spans[8] += [("X", 100, 101)]
    pred_spans[9] += [("X", 100, 101)]
    prf = tagging.entity_prf(gold_spans, pred_spans)
    assert (prf["tp"], prf["tp"] + prf["fp"], prf["tp"] + prf["fn"]) == tuple(ex["正确 / 预测 / 标注的实体数"])
    assert agree([ex["精确率"], ex["召回率"], ex["F1"]], [prf["precision"], prf["recall"], prf["f1"]])


def test_chapter17_and_18_and_appendix_a():
    ex = E.chapter17()
    assert agree(ex["SFT 计损失的位置（1=回答）"], objectives.sft_loss_mask(11, 3))
    assert agree(ex["DPO 损失（策略=参考）"], objectives.dpo_loss(-10, -12, -10, -12))
    assert agree(ex["DPO 损失（好 +2、差 −2，β=0.1）"], objectives.dpo_loss(-8, -14, -10, -12, beta=0.1))
    assert ex["4×4 矩阵的参数"] == cost.dense_params(4, 4) and ex["4×1 加 1×4 的参数"] == cost.lora_params(4, 4, 1)
    assert ex["4096×4096 的参数"] == cost.dense_params(4096, 4096) and ex["LoRA r=8 的参数"] == cost.lora_params(4096, 4096, 8)
    assert ex["LoRA 占完整的比例"] == Fraction(1, 256) and ex["α/r（α=16, r=8）"] == cost.lora_scale(16, 8)
    docs = [[0.9, 0.1], [0.1, 0.9]]
    order, scores = retrieval.rank([1, 0], docs)
    assert agree(ex["文档点积"], np.array(scores)[np.argsort(order)]) and ex["先返回第几篇（从 1 数）"] == order[0] + 1
    order, scores = retrieval.rank([1, 0], docs, metric="cosine")
    assert agree(ex["文档余弦"], np.array(scores)[np.argsort(order)])
    assert agree(ex["recall@1"], retrieval.recall_at_k(ex["三个问题正确段落的名次"], 1))
    assert agree(ex["recall@5"], retrieval.recall_at_k(ex["三个问题正确段落的名次"], 5))
    assert agree(ex["MRR"], retrieval.mean_reciprocal_rank(ex["三个问题正确段落的名次"]))
    ex = E.chapter18()
    y = [r.label for r in TOY_REVIEWS]
    all_pos = [1] * len(y)
    assert agree(ex["全判好评的准确率"], metrics.accuracy(y, all_pos))
    assert agree(ex["混淆矩阵（行 = 真实 差评/好评，列 = 预测）"], metrics.confusion_matrix(y, all_pos, labels=[0, 1]))
    per = metrics.per_class_prf(y, all_pos, labels=[0, 1])
    for c, key in enumerate(("差评 P、R、F1", "好评 P、R、F1")):
        assert agree(ex[key], [per["precision"][c], per["recall"][c], per["f1"][c]])
    assert agree(ex["宏 F1"], metrics.macro_prf(y, all_pos, labels=[0, 1])["f1"])
    vectors = [[0, 1], [1, 0], [0, 0]]
    assert agree(ex["正确平均（除以 2）"], embedding.mean_pool(vectors, np.array([True, True, False])))
    assert agree(ex["错误平均（除以 3）"], embedding.mean_pool(vectors))
    ex = E.appendix_a()
    post = naive_bayes_posterior([0.5, 0.5], [0.4, 0.02])
    assert agree([ex["好评概率"], ex["差评概率"]], post) and round(ex["好评概率"], 3) == 0.952


# 每章在课文里的一处数字（原样出现在打印结果中）
TEXT_FIGURES = {
    1: "E 判对了吗: 0", 2: "电影不好看 的编号: [0, 6, 2]", 3: "IDF(好看): 1.099", 4: "新损失: 0.644",
    5: "P(茶|喝): 2/3≈0.667", 6: "电影精彩 好评概率: 0.690", 7: "更新后 喜欢: [1.021, 0.021]",
    8: "0.5 的 20 次方: 0.000000954", 9: "对外输出 h: 0.473", 10: "[好看,太,不] 的得分: 1.500",
    11: "top-k (k=2): [0.667, 0.333, 0.000]", 12: "上下文向量: [0.755, 0.910]",
    13: "A 的新表示: [0.802, 1.198]", 14: "KV cache 字节数: 1,073,741,824", 15: "解码器（因果） 可读格数: 10",
    16: "F1: 8/11≈0.727", 17: "LoRA 占完整的比例: 1/256", 18: "错误平均（除以 3）: [0.333, 0.333]",
    "A": "好评概率: 0.952"}


def _run(*args, block_numpy=False):
    if block_numpy:  # numpy 被挡住：只要有一处导入 numpy，脚本就会失败
        code = ("import sys; sys.modules['numpy'] = None; sys.argv[1:] = " + repr(list(args)) + "; import runpy; "
                "runpy.run_module('nlpbook.examples', run_name='__main__')")
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return subprocess.run([sys.executable, "-m", "nlpbook.examples", *args], capture_output=True, text=True)


def test_every_chapter_is_printed_with_numpy_blocked():
    out = _run(block_numpy=True)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert list(E.CHAPTERS) == list(range(1, 19)) + ["A"]
    for c in E.CHAPTERS:
        assert E.heading(c) in out.stdout, c
        assert TEXT_FIGURES[c] in out.stdout.split(E.heading(c))[1], c
    assert "== 第 13 章 ==" in out.stdout and "== 附录 A ==" in out.stdout


@pytest.mark.parametrize("args", [["--chapter", "13"], ["--chapter=13"], ["-c", "13"], ["13"]])
def test_one_chapter_at_a_time(args):
    out = _run(*args, block_numpy=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("== 第 13 章 ==") and out.stdout.count("== ") == 1
    assert "A 的权重: [0.401, 0.198, 0.401]" in out.stdout


def test_several_chapters_and_appendix():
    out = _run("--chapter", "3", "--chapter", "a", "12")
    assert out.returncode == 0
    assert [line for line in out.stdout.splitlines() if line.startswith("==")] == [
        "== 第 3 章 ==", "== 附录 A ==", "== 第 12 章 =="]


@pytest.mark.parametrize("args", [["--chapter", "99"], ["--chapter", "0"], ["--chapter", "B"], ["x"], ["--chapter"]])
def test_bad_chapter_gives_a_clear_error(args):
    out = _run(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert "可选：1, 2, …, 18, A" in out.stderr and "Traceback" not in out.stderr


def test_help():
    out = _run("--help")
    assert out.returncode == 0 and "--chapter" in out.stdout


def test_formatting():
    assert E.format_value(0.5 ** 10) == "0.000977" and E.format_value(0.5 ** 20) == "0.000000954"
    assert E.format_value(Fraction(2, 3)) == "2/3≈0.667" and E.format_value(Fraction(4, 1)) == "4"
    assert E.format_value(16_777_216) == "16,777,216" and E.format_value(-math.inf) == "-∞" and E.format_value(-0.0) == "0.000"
    assert E.format_value([[1, 0.25], ["电影"]]) == "[[1, 0.250], [电影]]"


def test_script_runs_with_standard_library_only():
    code = ("import sys; sys.modules['numpy'] = None; import runpy; "
            "runpy.run_module('nlpbook.examples', run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "新损失: 0.644" in out.stdout and "IDF(好看): 1.099" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "nlpbook.examples", "99"], capture_output=True, text=True)
    assert bad.returncode == 2 and "可选" in bad.stderr
