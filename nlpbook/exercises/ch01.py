"""第 1 章的练习：任务的输出形式与规则打分器。

q1 选择：“情感分析”是不是只能预测一个连续分数（课文 1.3 的小练习）
q2 选择：垃圾邮件、简历里的校名和公司名、一句话摘要，各属于哪一类输出
q3 解释：写一句原打分表判对、“看到‘不’就反转”的补丁判错的评论
q4 实现：my_rule_score(tokens, lexicon)，按词查打分表求和
q5 实现：my_negated_score(tokens, lexicon)，“不”只把紧跟它的那个词的分值取反
q6 实现：my_accuracy_coverage(scores, labels)，规则在一批评论上的准确率与覆盖率
"""
from __future__ import annotations

import numpy as np

from ..metrics import accuracy
from ..rules import TEXT_LEXICON, rule_score
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, ExplainExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]

q1 = ChoiceExercise(
    "01.1", "“情感分析”是不是只能预测一个连续分数？",
    options={"A": "是：情感只能用一个连续的分数来表示",
             "B": "不是：可以分成好评/差评，也可以预测 1—5 星，还可以对剧情、演技分别评价",
             "C": "不是，但它只能是“好评/差评”二分类"},
    correct="B",
    reasons={"A": "本章就在预测“好评/差评”两类之一，这是分类，不是连续分数；任务怎么定义由我们决定。",
             "C": "二分类只是一种定义：1—5 星是五类，按“剧情”“演技”分别打分是多个输出，都属于情感分析。"},
    hints=["回想 1.2：同样一句话，想要的输出长什么样，是由任务定义决定的。"],
    answer="B。任务怎么定义，决定了输出的形式：两类、五档星级、按方面分别评价都可以，"
           "连续分数只是其中一种。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = ChoiceExercise(
    "01.2", "三个需求各自最接近哪一类输出？",
    options={"A": "(a) 文本分类；(b) 实体识别；(c) 生成（和机器翻译同一类）",
             "B": "(a) 文本分类；(b) 文本分类；(c) 生成",
             "C": "(a) 实体识别；(b) 实体识别；(c) 文本分类",
             "D": "(a) 文本分类；(b) 实体识别；(c) 实体识别"},
    correct="A",
    reasons={"B": "(b) 要指出简历里“哪几个字”是校名、公司名，答案落在原文的位置上，这是实体识别，"
                  "不是给整份简历一个类别。",
             "C": "(a) 整封邮件只要一个答案（是 / 不是垃圾邮件），这是分类；(c) 摘要要写出一个新句子，"
                  "不是从几个类别里挑。",
             "D": "(c) 是“改写成一句话”：输出是一个新的、通常更短的句子，和翻译一样属于生成，"
                  "而不是在原文里标出位置。"},
    hints=["对每个需求问一句：答案是“几个类别里挑一个”、“原文里的一段位置”，还是“一段新文字”？"],
    answer="A。(a) 整封邮件一个答案，二选一，是分类；(b) 答案是原文里的位置，是实体识别；"
           "(c) 输出一个长度不同的新句子，是生成，和机器翻译同一类。",
    stub='answer_2 = None   # 填 "A"、"B"、"C" 或 "D"',
    filled='answer_2 = "A"',
)

q3 = ExplainExercise(
    "01.3", "写一条评论：原打分表判对，“看到‘不’就反转”的补丁判错；再找一句两种规则都判错的",
    hints=["找一个含有“不”、但“不”并不表示否定的说法。",
           "两种都判错：让好词和坏词的分数正好抵消，补丁把 0 取反还是 0。"],
    answer="例如“好看得不得了”：原规则 +1 判好评，正确；补丁看到“不”取反成 −1，判错。"
           "两种都判错：“一点也不无聊，很精彩”，“精彩”+1、“无聊”−1 抵消成 0，两种规则都判差评。",
)


# ---- q4：按词查打分表 -----------------------------------------------------------
def _score_ref(tokens, lexicon):
    return rule_score(list(tokens), lexicon)


def _score_presence(tokens, lexicon):  # 每个词只算一次
    return float(sum(lexicon.get(t, 0) for t in set(tokens)))


def _score_hit_count(tokens, lexicon):  # 只数命中了几个词，不看分值的正负
    return float(sum(1 for t in tokens if t in lexicon))


def _score_joined(tokens, lexicon):  # 把词拼回字符串，再数子串
    text = "".join(tokens)
    return float(sum(v * text.count(w) for w, v in lexicon.items()))


def _score_random(rng):
    words = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不", "很", "结尾"]
    return [Case((list(rng.choice(words, size=n)), TEXT_LEXICON)) for n in (3, 6, 10)]


q4 = FunctionExercise(
    "01.4", "实现规则打分：每个词查打分表，把分值加起来",
    name="my_rule_score", reference=_score_ref,
    cases=[Case((["电影", "好看"], TEXT_LEXICON), note="评论 A"),
           Case((["电影", "难看"], TEXT_LEXICON), note="评论 C：坏词减分"),
           Case((["电影", "不", "好看"], TEXT_LEXICON), note="评论 E：规则不懂“不”，照样 +1"),
           Case(([], TEXT_LEXICON), note="空句子"),
           Case((["好看", "好看", "精彩"], TEXT_LEXICON), note="同一个词出现两次，每次都算分"),
           Case((["想", "好好", "看看"], TEXT_LEXICON), note="“好好 / 看看”里没有“好看”这个词"),
           Case((["还行", "不错", "差"], {"不错": 1, "差": -2, "还行": 0.5}),
                note="另一张打分表：分值不一定是 ±1")],
    random_cases=_score_random,
    mistakes=[Mistake("你只数了命中几个词，没有用它们的分值：坏词应当减分。", _score_hit_count),
              Mistake("同一个词出现几次就要算几次；你好像先去了重（set），每个词只算了一次。", _score_presence),
              Mistake("你把词拼回了字符串再数子串：“好好”“看看”拼起来含有“好看”，但它不是一个词。"
                      "输入已经分好词，请逐个词查表。", _score_joined)],
    stub='''def my_rule_score(tokens, lexicon):
    """tokens：分好词的列表，如 ["电影", "不", "好看"]；lexicon：打分表 {词: 分值}。
    返回一个数：每个词在打分表里的分值之和，不在表里的词算 0 分。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_rule_score(tokens, lexicon):
    return sum(lexicon.get(t, 0) for t in tokens)
''',
    hints=["从 0 分开始，一个词一个词地看。",
           "lexicon.get(词, 0) 在词不在表里时给 0，不会报错。"],
)


# ---- q5：“不”只管紧跟它的那个词 ---------------------------------------------------
def _negated_ref(tokens, lexicon):
    tokens = list(tokens)
    return float(sum(rule_score([t], lexicon) * (-1 if i > 0 and tokens[i - 1] == "不" else 1)
                     for i, t in enumerate(tokens)))


def _negated_whole(tokens, lexicon):  # 本章的补丁：有“不”就整句取反
    s = sum(lexicon.get(t, 0) for t in tokens)
    return float(-s if "不" in tokens else s)


def _negated_per_bu(tokens, lexicon):  # 每个“不”都把整句取反一次
    s = sum(lexicon.get(t, 0) for t in tokens)
    return float(s * (-1) ** list(tokens).count("不"))


def _negated_previous(tokens, lexicon):  # 取反的是“不”前面的词
    tokens = list(tokens)
    return float(sum(lexicon.get(t, 0) * (-1 if i + 1 < len(tokens) and tokens[i + 1] == "不" else 1)
                     for i, t in enumerate(tokens)))


def _negated_wraps(tokens, lexicon):  # 第一个词用 tokens[i - 1] 看到的是最后一个词
    tokens = list(tokens)
    return float(sum(lexicon.get(t, 0) * (-1 if tokens[i - 1] == "不" else 1) for i, t in enumerate(tokens)))


def _negated_next_scored(tokens, lexicon):  # 跳过 0 分的词，取反“不”之后第一个有分值的词
    tokens, total, flip = list(tokens), 0.0, False
    for t in tokens:
        if t == "不":
            flip = True
            continue
        value = lexicon.get(t, 0)
        if value and flip:
            value, flip = -value, False
        total += value
    return total


def _negated_random(rng):
    words = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不", "不", "是", "结尾"]
    return [Case(([str(w) for w in rng.choice(words, size=n)], TEXT_LEXICON)) for n in (4, 7, 12)]


q5 = FunctionExercise(
    "01.5", "给打分器加上否定：“不”把紧跟在它后面那个词的分值取反",
    name="my_negated_score", reference=_negated_ref,
    cases=[Case((["电影", "不", "好看"], TEXT_LEXICON), note="评论 E"),
           Case((["电影", "不", "难看"], TEXT_LEXICON), note="评论 F"),
           Case((["剧情", "精彩"], TEXT_LEXICON), note="评论 B：没有“不”"),
           Case(([], TEXT_LEXICON), note="空句子"),
           Case((["不", "是", "不", "好看"], TEXT_LEXICON),
                note="两个“不”：只有紧挨着“好看”的那个起作用"),
           Case((["剧情", "精彩", "结尾", "不", "无聊"], TEXT_LEXICON),
                note="“不”只管“无聊”，管不到前面的“精彩”"),
           Case((["好看", "不"], TEXT_LEXICON), note="“好看不？”：第一个词前面没有词，句末的“不”后面也没有词"),
           Case((["电影", "不", "太", "好看"], TEXT_LEXICON),
                note="“不”紧跟的是“太”（不在打分表里，0 分）：取反的是“太”，“好看”照常 +1")],
    random_cases=_negated_random,
    mistakes=[Mistake("第一个词前面没有词，可 tokens[i - 1] 在 i = 0 时取到的是最后一个词（Python 的负下标）；"
                      "先判断 i > 0。", _negated_wraps),
              Mistake("这是本章的补丁“有‘不’就整句取反”；这里要的是只取反紧跟在“不”后面的那个词，"
                      "其他词的分值不变。", _negated_whole),
              Mistake("你让每个“不”都把整句的分数取反了一次；这里的规则是每个“不”只管紧跟它的那一个词。",
                      _negated_per_bu),
              Mistake("你取反的是“不”前面的词；应当取反紧跟在“不”后面的那个词。", _negated_previous),
              Mistake("“不”只管紧跟在它后面的那一个词，哪怕这个词不在打分表里（“不 太 好看”里是“太”）；"
                      "你跳过了 0 分的词，去取反后面第一个有分值的词。", _negated_next_scored)],
    stub='''def my_negated_score(tokens, lexicon):
    """tokens：分好词的列表；lexicon：打分表 {词: 分值}。
    返回一个数：各词分值之和，但紧跟在“不”后面的那个词，分值取反（“不”本身 0 分）。
    例：["电影", "不", "好看"] -> -1。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_negated_score(tokens, lexicon):
    total = 0
    for i, t in enumerate(tokens):
        value = lexicon.get(t, 0)
        if i > 0 and tokens[i - 1] == "不":
            value = -value
        total += value
    return total
''',
    hints=["逐个词看：它的分值要不要取反，只取决于它前面那一个词是不是“不”。",
           "第一个词前面没有词。tokens[i - 1] 在 i = 0 时是 tokens[-1]，也就是最后一个词。"],
)


# ---- q6：准确率与覆盖率 --------------------------------------------------------
def _accov_ref(scores, labels):
    scores = np.asarray(scores, dtype=float)
    return accuracy(list(labels), (scores > 0).astype(int)), float(np.mean(scores != 0))


def _accov_ge_zero(scores, labels):  # 0 分判成了好评
    s, y = np.asarray(scores, dtype=float), np.asarray(labels)
    return float(np.mean((s >= 0).astype(int) == y)), float(np.mean(s != 0))


def _accov_positive_only(scores, labels):  # 覆盖率只数了正分
    s, y = np.asarray(scores, dtype=float), np.asarray(labels)
    return float(np.mean((s > 0).astype(int) == y)), float(np.mean(s > 0))


def _accov_covered_only(scores, labels):  # 准确率只在命中的评论上算
    s, y = np.asarray(scores, dtype=float), np.asarray(labels)
    hit = s != 0
    acc = float(np.mean((s[hit] > 0).astype(int) == y[hit])) if hit.any() else 0.0
    return acc, float(np.mean(hit))


def _accov_swapped(scores, labels):
    acc, cov = _accov_ref(scores, labels)
    return cov, acc


def _accov_random(rng):
    cases = []
    for n in (5, 12, 40):
        scores = [float(v) for v in rng.integers(-2, 3, size=n)]
        labels = [int(v) for v in rng.integers(0, 2, size=n)]
        cases.append(Case((scores, labels)))
    return cases


q6 = FunctionExercise(
    "01.6", "实现规则的评价：准确率和覆盖率",
    name="my_accuracy_coverage", reference=_accov_ref,
    cases=[Case(([1, 1, -1, -1, 1, -1], [1, 1, 0, 0, 0, 1]), note="A—F 上的原打分表：E、F 判错"),
           Case(([1, 1, -1, -1, -1, 1], [1, 1, 0, 0, 0, 1]), note="A—F 上的补丁：六条全对"),
           Case(([2, 0, -1, 0], [1, 0, 0, 1]), note="有 0 分的评论：判差评，也不算覆盖"),
           Case(([0, 0, 0], [0, 1, 0]), note="一个词都没命中：规则等于“永远猜差评”"),
           Case(([0.5], [1]), note="只有一条评论")],
    random_cases=_accov_random,
    mistakes=[Mistake("返回值的顺序反了：先准确率，再覆盖率。", _accov_swapped),
              Mistake("覆盖率要数所有分数不为 0 的评论，负分也算命中；你只数了正分。", _accov_positive_only),
              Mistake("分数等于 0 要判差评（1.3 的规则是“大于 0 才判好评”），你把 0 分判成了好评。",
                      _accov_ge_zero),
              Mistake("准确率要在全部评论上算，没命中的评论（判差评）也算在内；你只在命中的评论上算了。",
                      _accov_covered_only)],
    stub='''def my_accuracy_coverage(scores, labels):
    """scores：每条评论的规则分数（列表）；labels：人工标签，1 好评、0 差评（等长的列表，至少一条）。
    分数大于 0 判好评，否则判差评。
    返回 (准确率, 覆盖率)：准确率 = 判对的条数 / 总条数；覆盖率 = 分数不为 0 的条数 / 总条数。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_accuracy_coverage(scores, labels):
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels)
    pred = (scores > 0).astype(int)
    return float(np.mean(pred == labels)), float(np.mean(scores != 0))
''',
    hints=["先把分数变成预测：大于 0 是 1，否则是 0（包括 0 分）。",
           "准确率是“预测 == 标签”的平均；覆盖率是“分数 != 0”的平均，两者都在全部评论上算。"],
)
