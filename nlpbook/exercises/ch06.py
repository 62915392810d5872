"""第 6 章的练习：词向量、余弦相似度、近邻与平均。

q1 选择：128 维的词向量是否表示事先列出了 128 种语言属性（课文第 6 章末的小练习）
q2 选择：再训练一条差评“电影 难看”，“电影”的第一维往哪边走
q3 选择：词向量地图上“女孩 − 男孩 + 男人”和“东京 − 日本 + 中国”
q4 实现：my_cosine_similarity(a, b)——零向量要报错
q5 实现：my_nearest(table, words, query, k)——按余弦找近邻，排除自己，并列时靠前的在前
q6 实现：my_mean_pool(vectors, mask)——一批句子的平均，忽略 <PAD>
"""
from __future__ import annotations

import numpy as np

from ..embedding import cosine_similarity, mean_pool, nearest
from .compare import same
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]


q1 = ChoiceExercise(
    "06.1", "词向量有 128 维，是否表示研究者提前列出了 128 种语言属性？",
    options={"A": "是：每一维对应一种事先规定好的属性，比如褒贬、词性、是否为人名",
             "B": "通常不是：每一维是训练出来的数值特征，往往说不出它单独代表什么",
             "C": "是，只不过这些属性的名字没有公开"},
    correct="B",
    reasons={"A": "没有人给各维指定含义：训练只要求整体能降低损失。6.1 节“第一维是褒贬”的表是为了演示手工造的。",
             "C": "不存在这样一张属性表。训练出的一维里常常混着几种信息，一种信息也可能分散在许多维里。"},
    hints=["回想 6.5 节：词向量的数是怎么得到的？训练过程里有没有哪一步规定了“第几维表示什么”？"],
    answer="B。每一维都是训练得到的数值特征，没有人事先规定它代表什么，往往也无法单独命名；"
           "一种“属性”可能分散在很多维里，一维里也可能混着好几种信息。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = ChoiceExercise(
    "06.2", "6.5 节更新之后，再用一条差评“电影 难看”（y = 0）训练一步，“电影”的第一维会怎样？",
    options={"A": "变大：继续往褒义一侧走",
             "B": "变小：被往差评一侧拉回去",
             "C": "不变：“电影”不是褒贬词，差评不会动它"},
    correct="B",
    reasons={"A": "差评的 p − y = p > 0，方向和 6.5 节那条好评（p − y < 0）正好相反。",
             "C": "只要“电影”出现在这条评论里，它就会分到梯度（∂L/∂s 的一半）；词本身有没有褒贬，训练并不知道。"},
    hints=["先定 p − y 的符号：y = 0 时它等于 p，是正数。",
           "“电影”分到的梯度是 (p − y)·w / 2；更新后 w 的第一维约 2.06。梯度下降要减去梯度。"],
    answer="B。y = 0 时 p − y = p > 0，而 w 的第一维约 2.06 > 0，所以“电影”分到的梯度第一维为正；"
           "减去它，第一维变小（从 0.155 变成约 −0.002）。好评把中性词往一边推，差评往另一边拉。",
    stub='answer_2 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_2 = "B"',
)

q3 = ChoiceExercise(
    "06.3", "在词向量地图上，“女孩 − 男孩 + 男人”和“东京 − 日本 + 中国”分别得到哪个词？",
    options={"A": "女人、北京",
             "B": "女孩、东京",
             "C": "公主、巴黎",
             "D": "男孩、日本"},
    correct="A",
    reasons={"B": "这是两道算式的出发点。算式要从出发点走一段位移；按惯例，结果也排除算式里用到的三个词。",
             "C": "公主、巴黎是第二近的词。“男孩 → 男人”是长大的方向，不是“王室”的方向；"
                  "“日本 → 中国”换的是国家，从东京出发应落在另一个首都上。",
             "D": "你像是把加减号弄反了，停在了减去的那个词上。a − b + c 是从 a 出发，走一段“b → c”的位移。"},
    hints=["a − b + c = a + (c − b)：从 a 出发，走一段从 b 到 c 的位移。",
           "“男孩 → 男人”是长大的位移；“日本 → 中国”是换一个国家的位移。"],
    answer="A。女孩 + (男人 − 男孩) 是“女孩长大”，落在女人上；东京 + (中国 − 日本) 是“换成中国的首都”，落在北京上。",
    stub='answer_3 = None   # 填 "A"、"B"、"C" 或 "D"',
    filled='answer_3 = "A"',
)


# ---- q4：余弦相似度 -------------------------------------------------------------
def _cos_ref(a, b):
    return cosine_similarity(a, b)


def _cos_dot_only(a, b):
    return float(np.dot(a, b))


def _cos_squared_norms(a, b):
    return float(np.dot(a, b) / (np.dot(a, a) * np.dot(b, b)))


def _cos_abs(a, b):
    return float(abs(np.dot(a, b)) / (np.linalg.norm(a) * np.linalg.norm(b)))


def _cos_random(rng):
    return [Case((rng.normal(size=d), rng.normal(size=d))) for d in (2, 3, 5, 8, 16)]


def _v(*xs):
    return np.array(xs, dtype=float)


q4 = FunctionExercise(
    "06.4", "实现余弦相似度：a·b / (|a|·|b|)，零向量要报错",
    name="my_cosine_similarity", reference=_cos_ref,
    cases=[Case((_v(1.0, 0.0), _v(0.8, 0.2)), note="课文 6.1 节：好看—精彩"),
           Case((_v(1.0, 0.0), _v(-1.0, 0.0)), note="方向相反：好看—难看"),
           Case((_v(1.0, 0.0), _v(0.0, 1.0)), note="互相垂直：好看—电影"),
           Case((_v(0.8, 0.2), _v(-0.8, 0.2)), note="精彩—无聊"),
           Case((_v(1.0, 2.0, 2.0), _v(2.0, 4.0, 4.0)), note="长度不同、方向相同"),
           Case((_v(0.0, 0.0), _v(1.0, 0.0)), note="零向量没有方向"),
           Case((_v(1.0, 0.0, 0.0), _v(0.0, 0.0, 0.0)), note="第二个是零向量")],
    random_cases=_cos_random,
    mistakes=[Mistake("只算了点积，没有除以两个向量的长度 |a|·|b|。", _cos_dot_only),
              Mistake("长度要开方：|a| = √(a·a)。你除的是没开方的 a·a 和 b·b。", _cos_squared_norms),
              Mistake("余弦可以是负数：方向相反时是 −1。不要取绝对值。", _cos_abs)],
    stub='''def my_cosine_similarity(a, b):
    """a、b：等长的一维 numpy 数组。返回一个数：a·b / (|a|·|b|)。
    a 或 b 是零向量时没有方向，余弦无定义：这时要 raise ValueError("…")，不要返回 NaN。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_cosine_similarity(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        raise ValueError("零向量没有方向，余弦相似度无定义")
    return float(a @ b / (na * nb))
''',
    hints=["点积用 a @ b（或 np.dot），长度用 np.linalg.norm(a)，也就是 √(a·a)。",
           "先检查长度：只要有一个是 0，就 raise ValueError；否则 0/0 会得到 NaN。"],
)


# ---- q5：近邻 -----------------------------------------------------------------
def _same_words(expected, got):
    """返回的词可以是列表、元组或 numpy 的字符串数组。"""
    if isinstance(got, (list, tuple, np.ndarray)):
        got = [str(w) if isinstance(w, str) else w for w in list(got)]
    return same(expected, got)


def _nearest_ref(table, words, query, k):
    return [w for w, _ in nearest(table, words, query, k=k, metric="cosine")]


def _cos_scores(table, words, query):
    v = table[list(words).index(query)]
    return table @ v / (np.linalg.norm(table, axis=1) * np.linalg.norm(v))


def _nn_keep_self(table, words, query, k):
    s = _cos_scores(table, words, query)
    return [words[i] for i in sorted(range(len(words)), key=lambda i: -s[i])[:k]]


def _nn_farthest(table, words, query, k):
    s = _cos_scores(table, words, query)
    order = [i for i in sorted(range(len(words)), key=lambda i: s[i]) if words[i] != query]
    return [words[i] for i in order[:k]]


def _nn_dot(table, words, query, k):
    s = table @ table[list(words).index(query)]
    order = [i for i in sorted(range(len(words)), key=lambda i: -s[i]) if words[i] != query]
    return [words[i] for i in order[:k]]


def _nn_reversed_ties(table, words, query, k):
    s = _cos_scores(table, words, query)
    order = [int(i) for i in np.argsort(s, kind="stable")[::-1] if words[i] != query]
    return [words[i] for i in order[:k]]


def _nn_drop_first(table, words, query, k):  # 以为排第一的一定是自己
    s = _cos_scores(table, words, query)
    order = sorted(range(len(words)), key=lambda i: -s[i])
    return [words[i] for i in order[1:k + 1]]


def _nearest_random(rng):
    cases = []
    for n, d, k in ((6, 2, 2), (8, 3, 3), (10, 4, 4), (12, 5, 5)):
        words = [f"词{i}" for i in range(n)]
        cases.append(Case((rng.normal(size=(n, d)), words, words[int(rng.integers(n))], k)))
    return cases


_WORDS = ["好看", "精彩", "难看", "无聊", "电影"]
_TABLE = np.array([[1.0, 0.0], [0.8, 0.2], [-1.0, 0.0], [-0.8, 0.2], [0.0, 1.0]])

q5 = FunctionExercise(
    "06.5", "实现近邻查询：按余弦相似度从大到小取 k 个词，不含查询词本身",
    name="my_nearest", reference=_nearest_ref, compare=_same_words,
    cases=[Case((_TABLE, _WORDS, "好看", 2), note="课文 6.1 节的五个词"),
           Case((_TABLE, _WORDS, "无聊", 3)),
           Case((np.array([[1.0, 0.0], [0.9, 0.1], [3.0, 2.0], [0.0, 1.0]]), ["猫", "狗", "老虎", "手机"], "猫", 1),
                note="“老虎”的向量更长，但方向差得更多"),
           Case((np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 1.0]]), ["甲", "乙", "丙", "丁"], "甲", 3),
                note="乙、丙的向量完全相同：并列时词表里靠前的排在前面"),
           Case((_TABLE, _WORDS, "电影", 4), note="k = 词表大小 − 1：其余的词全部排序"),
           Case((np.array([[1.0, 2.0], [1.0, 2.0], [2.0, -1.0], [1.0, 1.0]]), ["影片", "电影", "难看", "剧情"], "电影", 2),
                note="“影片”和查询词“电影”的向量完全相同，而且排在它前面"),
           Case((_TABLE, _WORDS, "好看", 10), note="k 比其余的词还多：返回其余全部 4 个词")],
    random_cases=_nearest_random,
    mistakes=[Mistake("结果里不该有查询词本身：它和自己的余弦永远是 1，要把它排除。", _nn_keep_self),
              Mistake("排序方向反了：余弦相似度越大越近，要从大到小排。", _nn_farthest),
              Mistake("用了点积而不是余弦：点积会偏向长度大的向量，要除以两个长度。", _nn_dot),
              Mistake("并列时的顺序反了：argsort(…)[::-1] 把并列的词也倒了过来。"
                      "要让并列时词表里靠前的在前，例如按 −相似度做稳定排序。", _nn_reversed_ties),
              Mistake("不要假设排第一的就是查询词本身：别的词可以和它一样近（向量相同时还可能排在它前面）。"
                      "要按名字排除查询词。", _nn_drop_first)],
    stub='''def my_nearest(table, words, query, k):
    """table：形状 (词数, 维数) 的 numpy 数组，第 i 行是 words[i] 的向量；query：words 里的一个词。
    返回 k 个词的列表：按与 query 的余弦相似度从大到小，不含 query 本身；
    相似度相同时，词表里靠前的词排在前面；k 大于其余的词数时，返回其余全部的词。（测试里的表没有零向量。）"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_nearest(table, words, query, k):
    q = table[words.index(query)]
    sims = table @ q / (np.linalg.norm(table, axis=1) * np.linalg.norm(q))
    order = sorted(range(len(words)), key=lambda i: -sims[i])   # sorted 是稳定的：并列时保持原顺序
    return [words[i] for i in order if words[i] != query][:k]
''',
    hints=["一次算出 query 和每一行的余弦：table @ q 是所有点积，再除以每行的长度和 q 的长度。",
           "按相似度从大到小排；排序要稳定（并列时保持词表顺序），比如 sorted(…, key=lambda i: -sims[i])。",
           "最后按名字跳过 query，再取前 k 个。"],
)


# ---- q6：带 padding 的平均 -------------------------------------------------------
def _pool_ref(vectors, mask):
    return mean_pool(vectors, mask)


def _pool_ignore_mask(vectors, mask):
    return vectors.mean(axis=1)


def _pool_divide_by_T(vectors, mask):
    return (vectors * mask[..., None]).sum(axis=1) / vectors.shape[1]


def _pool_wrong_axis(vectors, mask):
    return (vectors * mask[..., None]).mean(axis=0)


def _pool_batch_total(vectors, mask):
    return (vectors * mask[..., None]).sum(axis=1) / mask.sum()


def _pool_no_keepdims(vectors, mask):  # (B, d) / (B,) 按列去除；B ≠ d 时直接报错
    return (vectors * mask[..., None]).sum(axis=1) / mask.sum(axis=1)


def _pool_random(rng):
    cases = []
    for b, t, d in ((1, 3, 2), (2, 4, 3), (3, 5, 2), (4, 6, 4), (3, 1, 3)):
        mask = rng.random((b, t)) < 0.6
        mask[np.arange(b), rng.integers(0, t, size=b)] = True    # 每句至少一个真实 token
        cases.append(Case((rng.normal(size=(b, t, d)), mask)))
    return cases


_MOVIE, _GOOD, _GREAT, _BAD, _BORING = [0.0, 1.0], [1.0, 0.0], [0.8, 0.2], [-1.0, 0.0], [-0.8, 0.2]


def _batch(pad):
    return np.array([[_MOVIE, _GOOD, pad], [_MOVIE, _GREAT, _GOOD]])


_M2 = np.array([[True, True, False], [True, True, True]])

q6 = FunctionExercise(
    "06.6", "实现一批句子的平均：只平均真实 token，分母是每句的真实 token 数",
    name="my_mean_pool", reference=_pool_ref,
    cases=[Case((np.array([[_MOVIE, _GOOD]]), np.array([[True, True]])), note="课文 6.4 节：电影 好看，没有 padding"),
           Case((_batch([0.3, -0.7]), _M2), note="第一句补了一个 <PAD>，它的向量不是 0"),
           Case((_batch([0.0, 0.0]), _M2), note="<PAD> 的向量是 [0, 0]（6.4 节的例子）"),
           Case((np.array([[_GOOD, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [_MOVIE, _GREAT, _BAD, _BORING]]),
                 np.array([[True, False, False, False], [True, True, True, True]])),
                note="只有一个真实 token 的句子"),
           Case((np.array([[[1.0, 2.0, 3.0], [9.0, 9.0, 9.0], [3.0, 2.0, 1.0]]]), np.array([[True, False, True]])),
                note="<PAD> 在句子中间")],
    random_cases=_pool_random,
    mistakes=[Mistake("把 <PAD> 位置的向量也平均进去了：先用 mask 把它们去掉，分母也只数真实 token。",
                      _pool_ignore_mask),
              Mistake("分母应是每一句真实 token 的个数（mask 每行之和），不是句长 T：短句会被 padding 拉低。",
                      _pool_divide_by_T),
              Mistake("在错误的轴上平均：要沿 token 那一维（axis=1）求平均，每句话得到一个向量，结果形状是 (B, d)。",
                      _pool_wrong_axis),
              Mistake("分母应是每一句自己的真实 token 数，你除以的是整批的 token 总数。", _pool_batch_total),
              Mistake("除法的广播错了：形状 (B,) 的计数会按列去除。写成 mask.sum(axis=1, keepdims=True)，形状 (B, 1)。",
                      _pool_no_keepdims)],
    stub='''def my_mean_pool(vectors, mask):
    """vectors：形状 (B, T, d) 的 numpy 数组，B 句话、每句 T 个位置（含 <PAD>）、每个向量 d 维；
    mask：形状 (B, T) 的布尔数组，True 表示真实 token（每句至少有一个）。
    返回形状 (B, d) 的数组：每句只平均 mask 为 True 的向量，分母是这句的真实 token 数。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_mean_pool(vectors, mask):
    m = mask[..., None]                                   # (B, T, 1)，能和 (B, T, d) 相乘
    total = (vectors * m).sum(axis=1)                     # (B, d)：<PAD> 的位置乘 0
    count = mask.sum(axis=1, keepdims=True)               # (B, 1)：每句的真实 token 数
    return total / count
''',
    hints=["先把 mask 变成 (B, T, 1)，乘到 vectors 上，<PAD> 的向量就成了 0。",
           "沿 axis=1 求和得到 (B, d)；分母是 mask.sum(axis=1, keepdims=True)，形状 (B, 1)。"],
)
