"""第 15 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook import objectives as O
from nlpbook.exercises import ch15 as ex
from nlpbook.spread import load_record, record_path
from _exercise_checks import fails as _fails, passes as _passes


def _log_softmax(z):
    s = z - z.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


# ---- 题目里的数字 -------------------------------------------------------------
def test_q2_counts_match_masked_lm_examples():
    x, y = O.masked_lm_examples(np.arange(10, 1010), 2000, 4, np.random.default_rng(0), special_ids=[0, 1, 2, 3])
    assert (y != O.IGNORE_INDEX).sum() == ex.q2.expected[1] == 150       # 选中的位置恰好 150 个
    assert ex.q2.expected[0] == 0.8 * 150                                 # [MASK] 的期望个数
    masks = [(O.masked_lm_examples(np.arange(10, 1010), 2000, 4, np.random.default_rng(s),
                                   special_ids=[0, 1, 2, 3])[0] == 4).sum() for s in range(200)]
    assert abs(np.mean(masks) - 120) < 1.5


def test_q3_counts_match_span_corruption():
    ids = np.arange(18)                                                   # 15.4 节的句子有 18 个 token
    x, y = O.span_corruption(ids, np.random.default_rng(1), sentinel_ids=np.arange(100, 110))
    n_spans = int(np.isin(x, np.arange(100, 110)).sum())
    assert (len(y) - n_spans - 1, n_spans) == ex.q3.expected == (3, 1)


def test_q4_worked_loss_is_2_156():
    case = ex.q4.cases[1]
    assert round(ex.q4.reference(*case.args), 3) == 2.156


# ---- 填数题 --------------------------------------------------------------------------
def test_q2_rejects_fractions_and_a_single_number():
    _fails(ex.q2, (0.12, 0.15), "还不对")
    _fails(ex.q2, 150, "形状")


def test_q3_rejects_unrounded_values_and_a_single_number():
    _fails(ex.q3, (2.7, 0.9), "还不对")
    _fails(ex.q3, 3, "形状")


# ---- q4：MLM 损失 ---------------------------------------------------------------------
def test_q4_ignored_labels_treated_as_token_0():
    def fn(logits, labels):          # 把 −100 换成 0，所有位置都算进平均
        t = np.where(labels == -100, 0, labels)
        return -_log_softmax(logits)[np.arange(len(t)), t].mean()
    _fails(ex.q4, fn, "3 个位置里只有 1 个")


def test_q4_returns_per_position_losses():
    def fn(logits, labels):
        keep = labels != -100
        return -_log_softmax(logits[keep])[np.arange(keep.sum()), labels[keep]]
    _fails(ex.q4, fn, "3 个位置里只有 1 个", "形状")


def test_q4_returns_zero_when_nothing_is_selected():
    def fn(logits, labels):
        keep = labels != -100
        if not keep.any():
            return 0.0
        return -_log_softmax(logits[keep])[np.arange(keep.sum()), labels[keep]].mean()
    _fails(ex.q4, fn, "ValueError", "全是 −100")


# ---- q5：拼回原句 -----------------------------------------------------------------------
def test_q5_pairs_sentinels_by_sorted_id():
    def fn(inputs, targets, sentinel_ids):   # 以为哨兵编号从小到大：按排序后的顺序配对
        sent = sorted(int(s) for s in sentinel_ids)
        segs, cur = [], None
        for t in targets:
            if int(t) in sent:
                cur = []
                segs.append(cur)
            else:
                cur.append(int(t))
        order = sorted({int(t) for t in targets if int(t) in sent})
        spans = dict(zip(order, segs))
        return np.array([u for t in inputs for u in (spans[int(t)] if int(t) in sent else [int(t)])])
    msg = _fails(ex.q5, fn, "从大到小")
    assert "第 3 个例子" in msg


def test_q5_drops_the_tokens_after_the_last_sentinel():
    def fn(inputs, targets, sentinel_ids):
        sent = set(int(s) for s in sentinel_ids)
        spans, cur = {}, None
        for t in targets:
            if int(t) in sent:
                cur = spans.setdefault(int(t), [])
            else:
                cur.append(int(t))
        out, last = [], max(i for i, t in enumerate(inputs) if int(t) in sent)
        for t in list(inputs)[:last + 1]:
            out.extend(spans[int(t)] if int(t) in sent else [int(t)])
        return np.array(out)
    _fails(ex.q5, fn, "从大到小", "形状")


def test_q5_a_plain_list_is_accepted():
    _passes(ex.q5, lambda x, y, s: O.undo_span_corruption(x, y, s).tolist())


# ---- q6：前缀遮罩 ------------------------------------------------------------------------
def test_q6_plain_causal_mask_ignores_the_prefix():
    _fails(ex.q6, lambda n, p: np.tril(np.ones((n, n), dtype=bool)), "图 15.1")


def test_q6_everything_visible():
    _fails(ex.q6, lambda n, p: np.ones((n, n), dtype=bool), "GPT 的因果遮罩")


def test_q6_integer_mask_is_accepted():
    def fn(n, p):
        m = np.tril(np.ones((n, n), dtype=int))
        m[:, :p] = 1
        return m
    _passes(ex.q6, fn)


# ---- q7：实验题，现场那次全部微调换一个步数 --------------------------------------------------
REC = load_record(record_path("finetune_reviews"))
FULL, SCRATCH = REC["results"]["full"], REC["results"]["scratch"]


def _q7(setting, result, prediction="C"):
    return {"prediction": prediction, "setting": setting, "result": result}


@pytest.mark.record
def test_q7_filled_answer_passes():
    ns = {}
    exec("import numpy as np\n" + ex.q7.filled, ns)
    _passes(ex.q7, ns["answer_7"])
    assert ns["answer_7"]["setting"] == 35 and ex.q7.outcome(35, ns["answer_7"]["result"]) == "C"


@pytest.mark.record
def test_q7_band_holds_the_actual_run_at_several_settings():
    """一次 100 步的训练在第 25、30、33、70 步评价（学习率不随步数变，这些正是只训练那么多步的结果，
    scripts/finetune_reviews.py 核对过）；三种结论都出现，每个都落在范围里、离边不太近。"""
    from nlpbook import finetune as F
    from nlpbook.datasets import load_reviews
    from nlpbook.tiny_transformer import load_pretrained
    S = REC["settings"]
    lm, d = load_pretrained(), load_reviews(tokenize=False)
    sub = F.fixed_subset(len(d["train"]), S["train_subset"], S["subset_seed"])
    vsub = F.fixed_subset(len(d["validation"]), S["val_subset"], S["subset_seed"])
    train = F.encode_reviews([d["train"][i] for i in sub], lm.encode, S["max_len"])
    val = F.encode_reviews([d["validation"][i] for i in vsub], lm.encode, S["max_len"])
    _, _, hist = F.train_classifier(lm.params, train, val, regime="full", steps=100, batch_size=S["batch_size"],
                                    lr=S["lr_search"]["full"]["chosen"], seed=REC["seeds"][0], clip=S["clip"],
                                    eval_at=[25, 30, 33, 70])
    acc = {h["step"]: h["val_acc"] for h in hist}
    assert acc[25] == FULL["val_acc@25"].values[0] and acc[100] == FULL["final"].values[0]   # 与记录的种子 1 相同
    for steps, want in ((25, "A"), (30, "A"), (33, "B"), (70, "C"), (100, "C")):
        lo, hi = ex.q7.band(steps)["result"]
        assert lo + 0.01 < acc[steps] < hi - 0.01, (steps, acc[steps], lo, hi)
        _passes(ex.q7, _q7(steps, acc[steps]))
        assert ex.q7.outcome(steps, acc[steps]) == want, (steps, acc[steps])


@pytest.mark.parametrize("setting", [50, 24, 101, 0, -30, 1000])
def test_q7_rejects_steps_outside_the_allowed_range(setting):
    msg = _fails(ex.q7, _q7(setting, 0.7), "这个设置不行", "25")
    assert ex.q7.validate(setting) in msg


def test_q7_the_live_runs_50_steps_is_not_a_new_setting():
    _fails(ex.q7, _q7(50, FULL["val_acc@50"].values[0]), "现场跑过")


@pytest.mark.parametrize("setting", ["30", True, 30.0, float("nan"), [30], (30,), {"steps": 30}])
def test_q7_bad_types_get_a_message_not_an_exception(setting):
    msg = _fails(ex.q7, _q7(setting, 0.7), "这个设置不行", "整数")
    assert ex.q7.validate(setting) in msg


def test_q7_accepts_numpy_integers_and_every_allowed_step():
    assert ex.q7.validate(np.int64(30)) is None and ex.q7.validate(np.int32(80)) is None
    assert all(ex.q7.validate(n) is None for n in range(25, 101) if n != 50)


def test_q7_band_is_the_record_range_at_the_points_around_the_setting():
    assert REC["settings"]["eval_at"] == [ex._STEPS_MIN, ex._LIVE_STEPS, ex._STEPS_MAX]   # 允许的步数正好被记录点围住
    r = {m: FULL[f"val_acc@{m}"].range(n_sd=2) for m in (25, 50, 100)}
    s = ex._STEPS_SLACK
    assert ex.q7.band(25)["result"] == pytest.approx((r[25][0] - s, r[25][1] + s))
    assert ex.q7.band(100)["result"] == pytest.approx((r[100][0] - s, r[100][1] + s))
    def union(a, b):               # 两个记录点之间：两点的范围合起来
        return (min(r[a][0], r[b][0]) - s, max(r[a][1], r[b][1]) + s)
    for steps in (26, 35, 49):
        assert ex.q7.band(steps)["result"] == pytest.approx(union(25, 50))
    for steps in (51, 75, 99):
        assert ex.q7.band(steps)["result"] == pytest.approx(union(50, 100))


def test_q7_plausibly_wrong_experiments_fall_outside():
    live = FULL["val_acc@50"].values[0]              # 没改步数：交了现场 50 步那次的结果
    for steps in (25, 100):
        lo, hi = ex.q7.band(steps)["result"]
        msg = _fails(ex.q7, _q7(steps, live), "不在这个设置应有的范围", "finetune_reviews")
        assert f"[{lo:.4g}, {hi:.4g}]" in msg
    for v in SCRATCH["final"].values:                 # 跑成了随机初始化
        _fails(ex.q7, _q7(100, v), "不在这个设置应有的范围")
    for v in REC["results"]["probe"]["final"].values:  # 跑成了线性探针
        _fails(ex.q7, _q7(100, v), "不在这个设置应有的范围")
    for steps in (30, 80):
        _fails(ex.q7, _q7(steps, FULL["train_loss@100"].values[0]), "不在这个设置应有的范围")   # 交了训练损失
        _fails(ex.q7, _q7(steps, 100 * FULL["final"].values[0]), "不在这个设置应有的范围")      # 写成了百分数
        _fails(ex.q7, _q7(steps, 1 - FULL["final"].values[0]), "不在这个设置应有的范围")        # 交了错误率
    _fails(ex.q7, _q7(30, "0.62"), "有限的数")
    _fails(ex.q7, _q7(30, {"全部微调": 0.62}), "结果应包含")


def test_q7_outcome_follows_the_scratch_models_100_step_seeds_and_each_reason_is_shown():
    lo, hi = min(SCRATCH["final"].values), max(SCRATCH["final"].values)
    assert (round(lo, 3), round(hi, 3)) == (0.672, 0.703)          # 题面与选项里写的范围
    cases = {"A": (25, FULL["val_acc@25"].values[0]), "B": (33, (lo + hi) / 2), "C": (100, FULL["final"].values[0])}
    for letter, (steps, value) in cases.items():
        assert ex.q7.outcome(steps, value) == letter
        right = ex.q7.evaluate(_q7(steps, value, prediction=letter))
        assert right.status == E.PASS and f"预测 {letter} 对了" in right.message and ex.q7.reasons[letter] in right.message
        other = "A" if letter != "A" else "C"
        wrong = ex.q7.evaluate(_q7(steps, value, prediction=other))
        assert wrong.status == E.PASS and f"实际是 {letter}" in wrong.message and ex.q7.reasons[letter] in wrong.message
    assert ex.q7.outcome(60, hi) == "B" and ex.q7.outcome(60, lo) == "B"    # 边上的值算打平


def test_q7_numbers_quoted_in_the_reasons_and_answer_match_the_record():
    assert all(0.53 <= v <= 0.56 for v in FULL["val_acc@25"].values)          # “第 25 步只在 0.53—0.56”
    assert round(FULL["val_acc@100"].mean, 2) == 0.75                          # “慢慢爬到 0.75 上下”
    assert REC["settings"]["lr_search"]["full"]["chosen"] == 3e-4              # “学习率只有 3e-4”


def test_q7_stub_is_not_an_attempt_yet():
    ns = {}
    exec("import numpy as np\n" + ex.q7.stub, ns)
    assert ex.q7.evaluate(ns["answer_7"]).status == E.TODO
    assert ex.q7.evaluate(_q7(None, None)).status == E.TODO
    assert ex.q7.evaluate(_q7(30, None)).status == E.TODO
    _fails(ex.q7, _q7(30, 0.62, prediction="D"), "没有预测选项")
