"""第 15 章的练习：BERT、GPT、T5 的训练题目。

q1 解释：为什么 BERT 可以看被遮词右边的内容，而自回归续写不能看真实的下一个词（课文 15.x 的小练习）
q2 填数：1,000 个可选 token 里，预计多少个变成 [MASK]、多少个位置计算损失
q3 填数：T5 默认设置下，15.4 节的 18 个 token 破坏几个、分成几段
q4 实现：my_mlm_loss(logits, labels)，只在选中的位置（标签不是 −100）上平均的交叉熵
q5 实现：my_undo_span_corruption(inputs, targets, sentinel_ids)，把片段按哨兵拼回原句
q6 实现：my_prefix_lm_mask(n, prefix_len)，前缀语言模型的注意力遮罩
q7 实验：15.6 节现场那次全部微调换一个训练步数，预训练的起点还领先随机初始化跑满 100 步吗
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from ..objectives import IGNORE_INDEX, attention_mask_for, masked_cross_entropy, span_corruption, undo_span_corruption
from .compare import describe
from .experiments import ExperimentExercise
from .functions import Case, FunctionExercise, Mistake
from .kinds import ExplainExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]

q1 = ExplainExercise(
    "15.1", "为什么 BERT 可以看被遮住的词右边的内容，而自回归续写不能看真实的下一个词？",
    hints=["两者答的是不是同一种题？续写时，“下一个词”在生成的那一刻存在吗？"],
    answer="两者的题目不同。填空题把空白两边的文本都给了你，右边的内容是题目的一部分；续写题要预测的是"
           "还不存在的未来文本，训练时让它看到真实的下一个词就等于泄漏答案：训练损失很低，生成时却没有"
           "这个“答案”可看。所以解码器要用因果遮罩。",
)

q2 = NumberExercise(
    "15.2", "1,000 个可选 token 里，预计多少个在输入中变成 [MASK]？多少个位置要计算损失？",
    expected=(120, 150), tol=0.5,
    wrong=[((150, 150), "选中的 150 个位置里只有 80% 换成 [MASK]，另外 10% 换成随机 token、10% 保持原样。"),
           ((120, 120), "计算损失的是全部 150 个选中的位置，包括换成随机 token 和保持原样的那 30 个。"),
           ((150, 120), "两个数的顺序反了：先填变成 [MASK] 的个数，再填计算损失的位置数。"),
           ((120, 1000), "没被选中的位置标签是 −100，不计算损失；只有选中的位置计算损失。")],
    hints=["先选位置：1,000 × 15%。", "选中的位置都要计算损失；其中 80% 在输入里换成 [MASK]。"],
    answer="选中 0.15 × 1000 = 150 个位置，它们都计算损失；其中约 150 × 0.8 = 120 个变成 [MASK]，"
           "约 15 个换成随机 token，约 15 个保持原样。",
    stub="answer_2 = None   # 填两个整数：(变成 [MASK] 的个数, 计算损失的位置数)",
    filled="answer_2 = (120, 150)",
)

q3 = NumberExercise(
    "15.3", "T5 默认 noise_density = 0.15、平均片段长 3：15.4 节的 18 个 token 会被破坏几个、分成几段？",
    expected=(3, 1), tol=0,
    wrong=[((2, 1), "18 × 0.15 = 2.7，要四舍五入（⌊2.7 + 0.5⌋ = 3），不是直接去掉小数。"),
           ((5, 2), "这是上面单元里 noise_density = 0.3 的结果；这里问的是默认的 0.15。"),
           ((3, 3), "段数 = round(破坏的 token 数 / 平均片段长度) = round(3 / 3) = 1，不是每个 token 各成一段。")],
    hints=["破坏的 token 数 = ⌊n × noise_density + 0.5⌋。", "段数 = ⌊破坏数 / mean_span_length + 0.5⌋，至少 1。"],
    answer="⌊18 × 0.15 + 0.5⌋ = ⌊3.2⌋ = 3 个 token；段数 ⌊3 / 3 + 0.5⌋ = 1。",
    stub="answer_3 = None   # 填两个整数：(破坏的 token 数, 片段数)",
    filled="answer_3 = (3, 1)",
)


# ---- q4：只在选中的位置上平均的交叉熵 ----------------------------------------------
def _mlm_ref(logits, labels):
    labels = np.asarray(labels)
    return masked_cross_entropy(logits, labels, labels != IGNORE_INDEX)


def _picked(logits, labels):
    """被选中的行与它们的标签（写错误实现用）。"""
    keep = labels != IGNORE_INDEX
    return logits[keep], labels[keep]


def _log_softmax(z):
    s = z - z.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def _mlm_all_positions(logits, labels):  # 分母用了全部位置数
    z, t = _picked(logits, labels)
    return -_log_softmax(z)[np.arange(len(t)), t].sum() / len(labels)


def _mlm_log2(logits, labels):
    z, t = _picked(logits, labels)
    return float(np.mean(-_log_softmax(z)[np.arange(len(t)), t] / np.log(2)))


def _mlm_sum(logits, labels):  # 只选中一个位置时看不出来
    z, t = _picked(logits, labels)
    return -_log_softmax(z)[np.arange(len(t)), t].sum()


def _mlm_mean_prob(logits, labels):  # 先平均概率再取对数；只选中一个位置时看不出来
    z, t = _picked(logits, labels)
    return float(-np.log(np.exp(_log_softmax(z))[np.arange(len(t)), t].mean()))


def _mlm_unstable_prob(logits, labels):  # 只在 logits 很大时出错：exp 溢出，inf / inf = NaN
    z, t = _picked(logits, labels)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    return float(np.mean(-np.log(p[np.arange(len(t)), t])))


def _mlm_unstable_logsum(logits, labels):  # 只在 logits 很大时出错：log(inf) = inf
    z, t = _picked(logits, labels)
    return float(np.mean(np.log(np.exp(z).sum(axis=-1)) - z[np.arange(len(t)), t]))


def _mlm_random(rng):
    cases = []
    for T, V in ((5, 6), (8, 10), (12, 30)):
        labels = np.where(rng.random(T) < 0.4, rng.integers(0, V, size=T), IGNORE_INDEX)
        labels[rng.integers(0, T)] = rng.integers(0, V)        # 至少一个位置计入损失
        cases.append(Case((rng.normal(size=(T, V)) * 2, labels)))
    return cases


_TOY_LOGITS = np.array([[2.0, 1.0, 0.0, 0.0], [0.0, 3.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
_NB_LABELS = np.full(13, IGNORE_INDEX)
_NB_LABELS[[1, 9]] = [5, 13]                      # 15.2 节那道题：选中“这部”和“看”
_HUGE = np.array([[1000.0, 0.0, -1000.0], [0.0, 500.0, 1000.0], [3.0, 2.0, 1.0]])

q4 = FunctionExercise(
    "15.4", "实现 MLM 的损失：只在选中的位置（标签不是 −100）上平均交叉熵",
    name="my_mlm_loss", reference=_mlm_ref,
    cases=[Case((_TOY_LOGITS, np.array([IGNORE_INDEX, 1, IGNORE_INDEX])), note="3 个位置里只有 1 个计入损失"),
           Case((np.random.default_rng(0).normal(size=(13, 16)), _NB_LABELS),
                note="15.2 节的例子：13 个位置里选中 2 个，损失 2.156"),
           Case((_TOY_LOGITS, np.array([0, 1, 3])), note="没有 −100：每个位置都计入（GPT 的情形）"),
           Case((_HUGE, np.array([0, 1, 2])), note="logits 很大（上千）：直接取 exp 会溢出"),
           Case((_TOY_LOGITS, np.full(3, IGNORE_INDEX)), note="全是 −100：没有位置计入损失，应当抛出 ValueError")],
    random_cases=_mlm_random,
    mistakes=[Mistake("分母应是计入损失的位置数（labels != −100 的个数），不是全部位置数。", _mlm_all_positions),
              Mistake("你用了以 2 为底的对数；交叉熵用自然对数 ln（np.log）。", _mlm_log2),
              Mistake("要对选中的位置取平均，不是求和。", _mlm_sum),
              Mistake("先对概率取平均再取 −ln 不对：要先算每个位置的 −ln p，再取平均。", _mlm_mean_prob),
              Mistake("logits 很大时 np.exp 溢出成 inf，inf / inf 得到 NaN：先从每一行减去最大值"
                      "（log-softmax 的稳定写法）。", _mlm_unstable_prob),
              Mistake("logits 很大时 np.exp 溢出，log(Σ exp) 成了无穷大：先减去每一行的最大值 m，"
                      "用 m + log Σ exp(z − m) 计算。", _mlm_unstable_logsum)],
    stub='''def my_mlm_loss(logits, labels):
    """logits：形状 (T, V) 的 numpy 数组，每个位置对词表 V 个 token 的分数；
    labels：长度 T 的整数数组，被选中的位置是原 token 的编号，其余位置是 −100（不计损失）。
    返回一个数：选中位置上 −ln softmax(logits)[标签] 的平均值。没有任何位置计入损失时抛出 ValueError。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_mlm_loss(logits, labels):
    keep = labels != -100
    if not keep.any():
        raise ValueError("没有位置计入损失，平均值无定义")
    z, t = logits[keep], labels[keep]
    z = z - z.max(axis=-1, keepdims=True)                      # 稳定的 log-softmax
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return -log_p[np.arange(len(t)), t].mean()
''',
    hints=["先用 keep = labels != -100 挑出要计算损失的行和它们的标签。",
           "每行算 log-softmax（先减去该行最大值），取出标签那一列，取负号再求平均；分母是选中的行数。"],
)


# ---- q5：把片段拼回原句 ---------------------------------------------------------
def _undo_ref(inputs, targets, sentinel_ids):
    return undo_span_corruption(inputs, targets, sentinel_ids)


def _segments(targets, sentinel_ids):
    """{哨兵: 它后面的片段}（写错误实现用）。"""
    spans, cur = {}, None
    for t in list(targets):
        if t in sentinel_ids:
            cur = spans.setdefault(t, [])
        else:
            cur.append(t)
    return spans


def _undo_append(inputs, targets, sentinel_ids):  # 片段统一接在句末；只有一段且在句末时看不出来
    kept = [t for t in inputs if t not in list(sentinel_ids)]
    return np.array(kept + [t for t in targets if t not in list(sentinel_ids)])


def _undo_keep_sentinel(inputs, targets, sentinel_ids):  # 哨兵留在了结果里
    spans, out = _segments(targets, list(sentinel_ids)), []
    for t in inputs:
        out.append(t)
        if t in list(sentinel_ids):
            out.extend(spans[t])
    return np.array(out)


def _undo_one_more(inputs, targets, sentinel_ids):  # 每段多拿了一个 token：连下一个哨兵也拿进来
    targets, out = list(targets), []
    for t in inputs:
        if t in list(sentinel_ids):
            i = targets.index(t) + 1
            j = i
            while targets[j] not in list(sentinel_ids):
                j += 1
            out.extend(targets[i:j + 1])
        else:
            out.append(t)
    return np.array(out)


def _undo_random(rng):
    cases = []
    for n, density in ((8, 0.3), (15, 0.15), (30, 0.2), (40, 0.5)):
        ids = rng.integers(0, 50, size=n)
        sentinels = np.arange(100, 120)
        x, y = span_corruption(ids, rng, noise_density=density, sentinel_ids=sentinels)
        cases.append(Case((x, y, sentinels)))
    return cases


_S3 = np.array([100, 101, 102])

q5 = FunctionExercise(
    "15.5", "把 T5 的目标片段按哨兵拼回原句",
    name="my_undo_span_corruption", reference=_undo_ref,
    cases=[Case((np.array([1, 2, 3, 4, 100]), np.array([100, 5, 6, 101]), _S3),
                note="只有一段，而且在句末（练习 3 的情形）"),
           Case((np.array([1, 2, 100, 5, 101]), np.array([100, 3, 4, 101, 6, 102]), _S3),
                note="两段：[A B <0> E <1>] 与 [<0> C D <1> F <2>]"),
           Case((np.array([7, 32099, 9, 32098, 4]), np.array([32099, 8, 32098, 1, 2, 3, 32097]),
                 np.array([32099, 32098, 32097])), note="哨兵编号从大到小（真实 T5 词表里就是这样）"),
           Case((np.array([1, 100, 4]), np.array([100, 2, 3, 101]), [100, 101]),
                note="哨兵编号给的是 Python 列表（题目说列表或数组都可以）")],
    random_cases=_undo_random,
    mistakes=[Mistake("还原后的序列里不应再有哨兵：用片段替换哨兵，而不是把片段插在哨兵后面。", _undo_keep_sentinel),
              Mistake("每段片段从哨兵后面开始，到下一个哨兵之前结束，不含下一个哨兵。", _undo_one_more),
              Mistake("片段要插回各自哨兵所在的位置，不是统一接在句末。", _undo_append)],
    stub='''def my_undo_span_corruption(inputs, targets, sentinel_ids):
    """inputs：编码器输入（整数数组），被拿走的每一段换成了一个哨兵；
    targets：解码器目标，格式是 哨兵 片段 哨兵 片段 … 结束哨兵；sentinel_ids：哨兵编号的列表或数组。
    返回原序列（整数数组）：把 inputs 里的每个哨兵换成 targets 里紧跟在同一个哨兵后面的那段 token。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_undo_span_corruption(inputs, targets, sentinel_ids):
    sentinels = set(int(s) for s in sentinel_ids)
    spans, current = {}, None
    for t in targets:                       # 先把目标切成 {哨兵: 片段}
        t = int(t)
        if t in sentinels:
            current = spans.setdefault(t, [])
        else:
            current.append(t)
    out = []
    for t in inputs:                        # 再把输入里的哨兵换成片段
        t = int(t)
        if t in sentinels:
            out.extend(spans[t])
        else:
            out.append(t)
    return np.array(out)
''',
    hints=["分两步：先扫一遍 targets，做一个字典 {哨兵: 它后面、下一个哨兵之前的 token}。",
           "再扫一遍 inputs：普通 token 原样保留，遇到哨兵就换成字典里的那段。"],
)


# ---- q6：前缀语言模型的遮罩 -------------------------------------------------------
def _prefix_ref(n, prefix_len):
    return attention_mask_for("prefix", n, prefix_len=prefix_len)


def _prefix_no_diag(n, prefix_len):  # 因果部分不含对角线
    m = np.tril(np.ones((n, n), dtype=bool), k=-1)
    m[:, :prefix_len] = True
    return m


def _prefix_upper(n, prefix_len):  # 画成了上三角
    m = np.triu(np.ones((n, n), dtype=bool))
    m[:, :prefix_len] = True
    return m


def _prefix_rows_see_all(n, prefix_len):  # 前缀位置读到了后面；prefix_len = 0 时看不出来
    m = np.tril(np.ones((n, n), dtype=bool))
    m[:prefix_len, :] = True
    return m


def _prefix_off_by_one(n, prefix_len):  # 前缀多算了一个；prefix_len = 0 时看不出来
    m = np.tril(np.ones((n, n), dtype=bool))
    m[:, :prefix_len + 1] = True
    return m


def _prefix_random(rng):
    return [Case((int(n), int(rng.integers(0, n + 1)))) for n in (4, 6, 8, 9)]


q6 = FunctionExercise(
    "15.6", "画出前缀语言模型的遮罩：前缀内部双向，之后因果",
    name="my_prefix_lm_mask", reference=_prefix_ref,
    cases=[Case((3, 0), note="prefix_len = 0：就是 GPT 的因果遮罩"),
           Case((5, 3), note="图 15.1 第 4 幅：5 个位置、前 3 个双向，共 18 格可读"),
           Case((3, 2), note="3 个位置、前 2 个双向"),
           Case((4, 4), note="整句都是前缀：全部可读（和编码器一样）"),
           Case((1, 0), note="只有一个位置")],
    random_cases=_prefix_random,
    mistakes=[Mistake("因果部分要包含对角线：每个位置都能读自己（np.tril 默认 k=0）。", _prefix_no_diag),
              Mistake("行是正在计算的位置（查询），列是被读取的位置（键）：位置 i 读 0..i，是下三角，不是上三角。",
                      _prefix_upper),
              Mistake("前缀位置只在前缀内部双向，它们不能读前缀之后、要生成的部分。", _prefix_rows_see_all),
              Mistake("前缀长度差了一：前 prefix_len 个位置（下标 0 到 prefix_len − 1）才是前缀。", _prefix_off_by_one)],
    stub='''def my_prefix_lm_mask(n, prefix_len):
    """n：序列长度；prefix_len：前缀长度（0 到 n）。
    返回形状 (n, n) 的布尔数组，True = 可以读取：第 i 行是位置 i（查询）能读哪些位置（键）。
    前 prefix_len 个位置互相都能读；每个位置都能读整个前缀，以及自己和自己之前的位置。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_prefix_lm_mask(n, prefix_len):
    mask = np.tril(np.ones((n, n), dtype=bool))   # 因果：位置 i 读 0..i
    mask[:, :prefix_len] = True                    # 前缀的列人人可读
    return mask
''',
    hints=["先写出 GPT 的因果遮罩：np.tril(np.ones((n, n), dtype=bool))。",
           "前缀内部双向，就是前 prefix_len 列对所有行都可读；后面的位置本来就能读前缀。"],
)


# ---- q7：现场那次全部微调换一个步数 ------------------------------------------------------
# 范围的来源：scripts/finetune_reviews.py 写下的记录里，全部微调 3 个报告种子在第 25、50、100 步的验证准确率。
# 全部微调在四种内核（Haswell、Prescott、SkylakeX、numpy 关掉 SIMD）上逐步相同（实测第 5—100 步每 5 步一次，
# 种子 0—3）；两个记录点之间的曲线不是直线（第 30 步前后几步之内从 0.55 左右跳到 0.7 以上），所以不做线性插值，
# 只取两侧记录点各自的范围合起来。
_STEPS_MIN, _STEPS_MAX, _LIVE_STEPS = 25, 100, 50
_STEPS_SLACK = 0.01   # 记录点之间逐步的起伏：种子 0—3 每 5 步实测都在范围里、离边至少 0.012；
                      # 种子 1（练习用的那个）第 25—100 步每一步都在里面、离边至少 0.017


@functools.lru_cache(maxsize=1)
def _finetune_record():
    from ..spread import load_record, record_path
    return load_record(record_path("finetune_reviews"))


def _marks() -> list:
    return list(_finetune_record()["settings"]["eval_at"])          # [25, 50, 100]


def _not_an_integer(x) -> str:
    """validate 的说明里怎样称呼一个不是整数的设置：小数、布尔值要点明，否则 1.0 会显示成 1。"""
    if isinstance(x, bool):
        return f"布尔值 {x}"
    if isinstance(x, numbers.Real):
        return f"小数 {float(x)!r}"
    return describe(x)


def _steps_validate(steps):
    allowed = f"{_STEPS_MIN}—{_STEPS_MAX} 之间的整数，不要 {_LIVE_STEPS}"
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral):
        return f"步数要填一个整数（{allowed}），收到的是 {_not_an_integer(steps)}。"
    if not _STEPS_MIN <= steps <= _STEPS_MAX:
        return (f"步数要在 {_STEPS_MIN} 到 {_STEPS_MAX} 之间（记录里最早的记录点是第 {_STEPS_MIN} 步，"
                f"最晚的是第 {_STEPS_MAX} 步），收到 {int(steps)}。")
    if steps == _LIVE_STEPS:
        return f"{_LIVE_STEPS} 步就是上面现场跑过的那一次；换一个步数（{allowed}）。"
    return None


def _steps_band(steps):
    full = _finetune_record()["results"]["full"]
    marks = _marks()
    below = max(m for m in marks if m <= steps)
    above = min(m for m in marks if m >= steps)
    ranges = [full[f"val_acc@{m}"].range(n_sd=2) for m in sorted({below, above})]
    return {"result": (min(r[0] for r in ranges) - _STEPS_SLACK, max(r[1] for r in ranges) + _STEPS_SLACK)}


def _steps_outcome(steps, result):
    scratch = _finetune_record()["results"]["scratch"]["final"].values   # 随机初始化跑满 100 步，3 个种子
    r = float(result)
    return "A" if r < min(scratch) else ("C" if r > max(scratch) else "B")


_STEPS_RUN = r'''    from nlpbook import finetune as F
    from nlpbook.datasets import load_reviews
    from nlpbook.spread import load_record, record_path
    from nlpbook.tiny_transformer import load_pretrained
    rec_7 = load_record(record_path("finetune_reviews"))      # 15.6 节的记录：学习率、批大小、种子都从这里取
    S_7 = rec_7["settings"]
    lm_7, reviews_7 = load_pretrained(), load_reviews(tokenize=False)
    sub_7 = F.fixed_subset(len(reviews_7["train"]), S_7["train_subset"], S_7["subset_seed"])       # 同样的 1,000 条
    vsub_7 = F.fixed_subset(len(reviews_7["validation"]), S_7["val_subset"], S_7["subset_seed"])   # 报告用的 600 条
    train_7 = F.encode_reviews([reviews_7["train"][i] for i in sub_7], lm_7.encode, S_7["max_len"])
    val_7 = F.encode_reviews([reviews_7["validation"][i] for i in vsub_7], lm_7.encode, S_7["max_len"])
    _, _, hist_7 = F.train_classifier(lm_7.params, train_7, val_7, regime="full", steps=steps_7,   # 只改了步数
                                      batch_size=S_7["batch_size"], lr=S_7["lr_search"]["full"]["chosen"],
                                      seed=rec_7["seeds"][0], clip=S_7["clip"])
    result_7 = hist_7[-1]["val_acc"]
    scratch_7 = rec_7["results"]["scratch"]["final"]
    print(f"全部微调 {steps_7} 步（种子 {rec_7['seeds'][0]}）：验证准确率 {result_7:.3f}")
    print(f"记录里随机初始化跑满 {S_7['steps']} 步：{scratch_7.format()}，"
          f"3 个种子在 {min(scratch_7.values):.3f}—{max(scratch_7.values):.3f} 之间")
'''


def _steps_cells(prediction: str, steps: str) -> str:
    return (f'prediction_7 = {prediction}\n'
            f'steps_7 = {steps}\n'
            'result_7 = None\n'
            'if steps_7 is not None:\n'
            + _STEPS_RUN +
            'answer_7 = {"prediction": prediction_7, "setting": steps_7, "result": result_7}\n')


q7 = ExperimentExercise(
    "15.7", "现场那次全部微调换一个训练步数：预训练的起点还领先随机初始化跑满 100 步吗？",
    options={"A": "领先没了：只跑这么多步的全部微调，准确率还在随机初始化跑满 100 步的 3 个种子之下",
             "B": "打平：落在随机初始化 100 步的 3 个种子之间",
             "C": "还领先：步数少了，准确率照样在随机初始化 100 步的 3 个种子之上"},
    outcome=_steps_outcome,
    reasons={"A": "步数太少（种子 1 在 32 步以内）时，分类头还没调到位：它从 0 起步（一开始把每条都判成好评），"
                  "全部微调的学习率又只有 3e-4，头 25 步的准确率只在 0.53—0.56，和全猜一类差不多。"
                  "预训练的起点要过几十步才兑现；训练预算很小时比，结论会反过来。",
             "B": "你的步数正好落在转折处：分类头刚对上方向，准确率几步之内就从 0.55 左右跳到 0.7 上下，"
                  "此刻和随机初始化跑满 100 步的水平相当；再多跑几步就会越过去。",
             "C": "分类头一旦对上方向（30 多步），预训练的主体马上派上用场：种子 1 在第 35 步已到 0.72，"
                  "只用三分之一的步数就达到随机初始化跑满 100 步的水平，之后慢慢爬到 0.75 上下。"
                  "这是一个种子的一条曲线；15.6 节用 compare 比的“全部微调第 50 步 − 随机初始化第 100 步”"
                  "区间下端只有 +0.002，说明多个种子、换一批评论时，这个领先并没有看上去那么宽裕。"},
    validate=_steps_validate,
    band=_steps_band,
    basis="范围取自 finetune_reviews 记录里全部微调 3 个种子在你的步数两侧最近的记录点（第 25、50、100 步）上的"
          "准确率：每个记录点取“最小值 − 2 个标准差 到 最大值 + 2 个标准差”，两点合起来，再两端各放宽 0.01"
          "（记录点之间逐步的起伏；全部微调在不同 CPU 上逐步相同）",
    hints=["先看 15.6 节的表和图 15.3：全部微调第 25、50、100 步各是多少？随机初始化第 100 步呢？",
           "分类头从 0 开始，一开始把每条评论都判成好评；全部微调的学习率只有 3e-4。头几十步里，什么东西最先要调到位？",
           "跑完一个再换一个：25 步、35 步、80 步之间差多少？转折发生在哪几步？"],
    answer="全部微调的准确率先平后陡：前 25 步在 0.53—0.56 之间（分类头从 0 起步、学习率又小，和全猜一类差不多），"
           "30 步左右开始起跳，种子 1 第 30 步 0.618、第 35 步 0.718，已经和随机初始化跑满 100 步的 0.672—0.703"
           "相当或更高；之后慢慢爬到 0.75 上下。所以种子 1 在 25—32 步看到的是“领先没了”，33、34 步打平，35 步以上“还领先”。"
           "预训练的起点确实更好，但这份好处要先把分类头调到位才兑现：在很小的训练预算上比，结论可能反过来。"
           "比较两种做法时，训练预算（步数、学习率）是结论的一部分，要和结论写在一起。",
    stub=_steps_cells('None   # 先预测，跑之前填好："A" 领先没了；"B" 打平；"C" 还领先（和随机初始化跑满 100 步比）',
                      f'None        # 你要试的步数：{_STEPS_MIN}—{_STEPS_MAX} 的整数，不要 {_LIVE_STEPS}（上面现场跑过），'
                      '如 30 或 80；100 步约 10 秒'),
    filled=_steps_cells('"C"', "35"),
)
