"""测试共用的玩具数据和检查：rnn 与 rnn_classifier 的一小批补齐的句子、第 8.4 节的六条评论、梯度与 padding 检查；
finetune 与 lora 的小 Transformer 分类器。"""
import numpy as np

from nlpbook import rnn_classifier as RC
from nlpbook import transformer as TF
from nlpbook.datasets import TOY_REVIEWS, TOY_VOCAB
from nlpbook.text import PAD, Vocab

from _gradcheck import numgrad_inplace as numgrad


def toy_batch():
    """三句补齐成一批：(ids, mask, y)。句子里有重复的词（测试 np.add.at 累加），也有 padding；词 6 没出现。"""
    ids, mask = RC.pad_batch([[1, 2, 3, 2, 2], [4, 5], [2, 2, 7]])
    return ids, mask, np.array([1.0, 0.0, 1.0])


def toy_reviews():
    """第 8.4 节的六条评论（“不 好看”与“不 难看”）：(词表, 句子的词编号列表, 标签列表)。"""
    v = Vocab(TOY_VOCAB, specials=(PAD,))
    return v, [v.encode(r.tokens) for r in TOY_REVIEWS], [r.label for r in TOY_REVIEWS]


def check_classifier_gradients(P, keys):
    """在 toy_batch 上，loss_and_grads 的每个梯度与有限差分一致；<PAD>(0) 与没出现的词 6 没有梯度。"""
    ids, mask, y = toy_batch()
    _, g = RC.loss_and_grads(P, ids, mask, y)
    f = lambda: RC.loss_and_grads(P, ids, mask, y)[0]
    assert set(g) == set(keys) == set(P)
    for k in keys:
        assert g[k].shape == P[k].shape and g[k].dtype == np.float64
        assert np.allclose(g[k], numgrad(f, P[k]), atol=1e-7), k
    assert np.all(g["E"][[0, 6]] == 0)


def check_padding_changes_nothing(seed, extra, cell="rnn"):
    """padding 位置填什么、补多少列，损失与梯度都不变；整批预测等于逐句不补齐单独预测。"""
    rng = np.random.default_rng(seed)
    P = RC.init_rnn_classifier(9, dim=3, hidden=4, seed=seed, dtype=np.float64, cell=cell)
    seqs = [list(rng.integers(1, 9, size=n)) for n in rng.integers(1, 6, size=3)]
    y = rng.integers(0, 2, size=3)
    ids, mask = RC.pad_batch(seqs)
    ids2 = np.where(mask, ids, rng.integers(0, 9, size=ids.shape))
    ids2 = np.concatenate([ids2, rng.integers(0, 9, size=(3, extra))], axis=1)
    mask2 = np.concatenate([mask, np.zeros((3, extra), bool)], axis=1)
    l1, g1 = RC.loss_and_grads(P, ids, mask, y)
    l2, g2 = RC.loss_and_grads(P, ids2, mask2, y)
    assert np.isclose(l1, l2) and all(np.allclose(g1[k], g2[k]) for k in g1)
    alone = [RC.predict_proba(P, np.array([s]), np.ones((1, len(s)), bool))[0] for s in seqs]
    assert np.allclose(RC.predict_proba(P, ids2, mask2), alone)


def check_last_step_grad_norm(P, T):
    """hidden_grad_norms 在全 1 的两句（长 T）上：形状 (T,)，最后一步就是 ‖∂L/∂h_T‖。返回 (ids, mask, y, norms)。"""
    ids, mask, y = np.ones((2, T), dtype=int), np.ones((2, T), bool), np.array([1, 0])
    n = RC.hidden_grad_norms(P, ids, mask, y)
    p = RC.predict_proba(P, ids, mask)
    assert n.shape == (T,) and np.isclose(n[-1], np.linalg.norm(np.outer((p - y) / 2, P["w_out"])))
    return ids, mask, y, n


def tiny_classifier(seed=0):
    """float64 的小模型：词表 7、d=4、2 层、2 个头、max_len 6；一维参数加点噪声，梯度检验更敏感。
    返回 (params, head, ids, lengths, y, rng)；rng 接着用（如 LoRA 的初始化）。"""
    rng = np.random.default_rng(seed)
    P = TF.init_lm_params(7, 4, 2, 2, 8, 6, rng, dtype=np.float64)
    for k in P:
        if k != "config":
            P[k] = P[k] * 10 if P[k].ndim > 1 else P[k] + 0.2 * rng.normal(size=P[k].shape)
    head = {"w_cls": rng.normal(size=4), "b_cls": np.array([0.1])}
    ids = np.array([[1, 2, 1, 6, 0, 0], [3, 3, 5, 1, 4, 2], [2, 0, 0, 0, 0, 0]])
    return P, head, ids, np.array([4, 6, 1]), np.array([1, 0, 1]), rng
