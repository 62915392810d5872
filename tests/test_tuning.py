"""tuning：第 17.1 节的 SFT（只对回答算损失）与第 17.2 节的 DPO 损失的手写梯度（有限差分，float64），
与 objectives.masked_cross_entropy / dpo_loss 一致；指令数据的模板与窗口；贪心解码与 exact match；实验记录。"""
from collections import namedtuple

import numpy as np
from _gradcheck import numgrad_inplace
import pytest

from nlpbook import objectives as O
from nlpbook import transformer as TF
from nlpbook import tuning as TU

R = namedtuple("R", "text label")


def _sft_record_or_skip():
    from nlpbook.spread import load_record, record_path
    if not record_path("sft_reviews").exists():
        pytest.skip("nlpbook/records/sft_reviews.json 还没有生成：先运行 python scripts/sft_reviews.py")
    return load_record(record_path("sft_reviews"))


def _tiny(tie=False, seed=0):
    rng = np.random.default_rng(seed)
    P = TF.init_lm_params(9, 8, 1, 2, 16, 8, rng, tie=tie, dtype=np.float64)
    for k, v in P.items():          # 随机一些，避免梯度恰好为 0 的巧合
        if k != "config":
            v += rng.normal(scale=0.3, size=v.shape)
    ids = rng.integers(0, 9, size=(3, 6))
    targets = rng.integers(0, 9, size=(3, 6))
    mask = np.zeros((3, 6), bool)
    mask[0, 3:] = mask[1, 2:5] = mask[2, 5] = True
    return P, ids, targets, mask


@pytest.mark.parametrize("tie", [False, True])
def test_sft_loss_equals_masked_cross_entropy_and_gradients_match_finite_differences(tie):
    P, ids, targets, mask = _tiny(tie)
    loss, g = TU.sft_loss_and_grads(P, ids, targets, mask)
    logits, _ = TF.lm_forward(P, ids)
    assert np.isclose(loss, O.masked_cross_entropy(logits, targets, mask), atol=1e-12)
    assert set(g) == {k for k in P if k != "config"}
    f = lambda: TU.sft_loss_and_grads(P, ids, targets, mask)[0]
    for k in g:
        assert np.allclose(g[k], numgrad_inplace(f, P[k]), atol=1e-7, rtol=1e-5), k


def test_prompt_positions_do_not_matter_for_the_answer_only_loss():
    P, ids, targets, mask = _tiny()
    t2 = targets.copy()
    t2[~mask] = (t2[~mask] + 1) % 9
    assert TU.sft_loss_and_grads(P, ids, targets, mask)[0] == TU.sft_loss_and_grads(P, ids, t2, mask)[0]


def test_dpo_loss_equals_objectives_and_gradients_match_finite_differences():
    P, ids, targets, mask = _tiny(seed=1)
    _, ids2, targets2, _ = _tiny(seed=2)
    ref_c = np.array([-3.0, -2.5, -1.0])
    ref_r = np.array([-2.0, -4.0, -1.5])
    chosen, rejected = (ids, targets, mask), (ids2, targets2, mask)
    beta = 0.5
    loss, g, info = TU.dpo_loss_and_grads(P, chosen, rejected, ref_c, ref_r, beta)
    lc, lr = TU.sequence_logprobs(P, *chosen), TU.sequence_logprobs(P, *rejected)
    want = float(np.mean(O.dpo_loss(lc, lr, ref_c, ref_r, beta=beta)))
    assert np.isclose(loss, want, atol=1e-12)
    assert np.isclose(info["margin"], np.mean(beta * ((lc - ref_c) - (lr - ref_r))))
    f = lambda: TU.dpo_loss_and_grads(P, chosen, rejected, ref_c, ref_r, beta)[0]
    for k in ("tok_emb", "L0.Wq", "W_out", "b_out", "lnf_g"):
        assert np.allclose(g[k], numgrad_inplace(f, P[k]), atol=1e-7, rtol=1e-5), k


def test_policy_equal_to_reference_gives_ln2():
    P, ids, targets, mask = _tiny()
    lp = TU.sequence_logprobs(P, ids, targets, mask)
    loss, _, info = TU.dpo_loss_and_grads(P, (ids, targets, mask), (ids, targets, mask), lp, lp)
    assert np.isclose(loss, np.log(2)) and info["margin"] == 0


def test_sequence_logprobs_are_sums_of_token_logprobs():
    P, ids, targets, mask = _tiny()
    nll = TF.lm_token_nll(P, ids, targets)
    assert np.allclose(TU.sequence_logprobs(P, ids, targets, mask), -(nll * mask).sum(axis=1))


def test_instruction_pairs_template_and_window():
    reviews = [R("电影很好看，演员也都很不错，值得一看再看的好片子呀", 1), R("太短了", 0),
               R("书的纸张很差，印刷模糊，看了一半就不想再看下去了，失望", 0)]
    s = TU.instruction_pairs(reviews, "sentiment")
    c = TU.instruction_pairs(reviews, "copy5")
    assert len(s) == len(c) == 2                       # 不足 24 个字的评论不用
    assert s[0] == ("判断好评差评：“电影很好看，演员也都很不错，值得一看再看的好片子”答：", "好评") and s[1][1] == "差评"
    assert c[1][1] == "书的纸张" + "很" and c[0][0].startswith("复述前五个字：“")
    vocab = sorted({ch for p, a in s + c for ch in p + a})
    enc = lambda t: [1 + vocab.index(ch) for ch in t]
    ids, targets, mask = TU.encode_pairs(enc, s)
    P = len(s[0][0])
    assert ids.shape == (2, 1 + P + 2) and ids[0, 0] == 0 and targets[0, -1] == 0
    assert mask[0].tolist() == O.sft_loss_mask(P, 3).tolist()
    assert TU.encode_pairs(enc, s, answer_only=False)[2].all()
    with pytest.raises(ValueError, match="max_len"):
        TU.encode_pairs(enc, s, max_len=20)


@pytest.mark.parametrize("kw, match", [({"kind": "translate"}, "kind"), ({"review_chars": 3}, "至少为 5")])
def test_instruction_pairs_errors(kw, match):
    args = {"kind": "copy5", **kw}
    with pytest.raises(ValueError, match=match):
        TU.instruction_pairs([R("一二三四五六七八九十" * 3, 1)], **args)


def test_batch_errors():
    P, ids, targets, mask = _tiny()
    with pytest.raises(TypeError, match="布尔"):
        TU.sft_loss_and_grads(P, ids, targets, mask.astype(int))
    bad = mask.copy()
    bad[1] = False
    with pytest.raises(ValueError, match="至少要有一个 True"):
        TU.sft_loss_and_grads(P, ids, targets, bad)
    with pytest.raises(ValueError, match="形状"):
        TU.sft_loss_and_grads(P, ids, targets[:, :4], mask)


def test_greedy_answers_match_decoding_generate_and_exact_match():
    from nlpbook.decoding import generate
    from nlpbook.tiny_transformer import generate_logits
    P, ids, *_ = _tiny()
    prompts = ids[:, :3]
    got = TU.greedy_answers(P, prompts, 4)
    for row, p in zip(got, prompts):
        assert generate(lambda x: generate_logits(P, x), p.tolist(), 4, temperature=0)[3:] == row.tolist()
    enc = lambda t: [int(ch) for ch in t]
    first = "".join(str(i) for i in got[0])
    pairs = [("".join(map(str, prompts[0])), first[:2]), ("".join(map(str, prompts[0])), "99")]
    expect_first = got[0][2] == 0
    assert TU.exact_match(P, enc, pairs).tolist() == [bool(expect_first), False]


def test_train_sft_learns_a_fixed_answer_and_leaves_params_alone():
    P, *_ = _tiny()
    P = {k: (v if k == "config" else v.astype(np.float32)) for k, v in P.items()}
    before = {k: v.copy() for k, v in P.items() if k != "config"}
    enc = lambda t: [int(ch) for ch in t]
    pairs = [(f"{a}{b}", f"{(a + b) % 2 + 1}") for a in range(1, 9) for b in range(1, 9)]
    data = TU.encode_pairs(enc, pairs, max_len=8)
    ev = lambda Q: {"em": float(TU.exact_match(Q, enc, pairs).mean())}
    Q, hist = TU.train_sft(P, data, steps=150, lr=1e-2, eval_at=[150], eval_fn=ev)
    assert all(np.array_equal(before[k], P[k]) for k in before)
    assert hist[-1]["step"] == 150 and hist[-1]["em"] >= 0.45 and hist[-1]["loss"] < hist[0]["loss"]


def test_sft_record_parses_with_methods_seeds_and_steps():
    rec = _sft_record_or_skip()
    s = rec["settings"]
    assert rec["seeds"] == [0, 1, 2] and set(rec["results"]) == {"answer_only", "full"}
    for method in rec["results"].values():
        for k in TU.KINDS:
            for step in s["eval_at"]:
                assert method[f"{k}@{step}"].n == 3
    assert s["live_steps"] in s["eval_at"] and s["template"] == TU.TEMPLATE
    assert rec["cpu_seconds"] > 0 and set(s["base_model"]) == set(TU.KINDS)


def test_sft_record_reproduces_one_seed_at_the_first_eval_step():
    import importlib.util
    from pathlib import Path
    rec = _sft_record_or_skip()
    path = Path(__file__).resolve().parents[1] / "scripts" / "sft_reviews.py"
    spec = importlib.util.spec_from_file_location("sft_reviews", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    step = rec["settings"]["eval_at"][0]
    _, hist = mod.run(0, True, steps=step, settings=rec["settings"])
    for k in TU.KINDS:
        assert hist[-1][k] == rec["results"]["answer_only"][f"{k}@{step}"].values[0], k
