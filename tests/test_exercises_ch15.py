"""第 15 章练习的检查器：再拿几种练习模块里没有写到的错误实现去试，都要判错并说清错在哪里；
题目里的数字与课程的函数算出来的一致。"""
import numpy as np

from nlpbook import objectives as O
from nlpbook.exercises import ch15 as ex
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
