"""第 2 章的练习：token、编号表、<UNK>、字节回退与 BPE。

q1 选择：所有编号加 100、查表关系同步改，句子含义变不变（课文 2.4 的小练习）
q2 填数：演示分词器里“我喜欢龘👍！”要花几个 token
q3 选择：六条评论上做 BPE，为什么“精彩”“无聊”停在字节层面
q4 实现：my_encode(tokens, itos)，用带 <UNK> 的词表把 token 换成编号
q5 实现：my_char_encode(text, chars)，按字编码，词表外的字退回 UTF-8 字节
q6 实现：my_bpe_step(ids, new_id)，BPE 的一步：数相邻对、选最多的一对（平局取最小）、合并
"""
from __future__ import annotations

from ..text import UNK, Vocab
from ..tokenizers import LongestMatchTokenizer, get_pair_counts, merge
from .functions import Case, FunctionExercise, Mistake
from .kinds import ChoiceExercise, NumberExercise

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]

q1 = ChoiceExercise(
    "02.1", "把所有 token 的编号都加 100，同时把查表关系也跟着改，会改变句子的含义吗？",
    options={"A": "会：编号变大了，模型看到的数也就变了",
             "B": "不会：编号只是地址，每个词查到的还是原来那一行表示",
             "C": "要看词表有多大：编号超过词表大小时就会出错"},
    correct="B",
    reasons={"A": "编号不直接参与计算，只用来在表里找到一行（2.3 节）；表跟着挪了，查到的内容完全一样。",
             "C": "查表关系同步改了，表也跟着变长，新编号都能找到对应的那一行；词表大小不影响结论。"},
    hints=["回想 2.2 节把词表打乱的实验：编号全变了，句子表示却一点没变。"],
    answer="B。编号加 100 是又一种一致的重新编号；表示表的每一行跟着挪到新编号，"
           "每个词查到的还是原来那一行，后面的计算一模一样。",
    stub='answer_1 = None   # 填 "A"、"B" 或 "C"',
    filled='answer_1 = "B"',
)

q2 = NumberExercise(
    "02.2", "演示分词器里，“我喜欢龘👍！”要花多少个 token？",
    expected=10, tol=0,
    wrong=[(6, "这是字符数。“龘”和 👍 不在演示词表里，要拆成 UTF-8 字节，每个字节一个 token。"),
           (5, "“喜欢”算一个 token 是对的，可“龘”和 👍 不在词表里，不能各算一个：要拆成字节。"),
           (8, "“龘”不在词表里，要拆成 3 个字节 token，不是 1 个。"),
           (9, "👍 的 UTF-8 编码是 4 个字节，不是 3 个。"),
           (11, "“喜欢”在手写词表里是一个词，最长匹配会整个取走，只占 1 个 token。"),
           (19, "这是整句的 UTF-8 字节数；“我”“喜欢”“！”在词表里，不用拆成字节。")],
    hints=["从左到右，每次取词表里能匹配上的最长片段；“我”“喜欢”“！”都在词表里。",
           "词表外的字按 UTF-8 拆成字节：基本区的汉字 3 个字节，表情符号 4 个。"],
    answer="我 1 + 喜欢 1 + 龘 3（字节） + 👍 4（字节） + ！ 1 = 10。",
    stub="answer_2 = None   # 填一个整数",
    filled="answer_2 = 10",
)

q3 = ChoiceExercise(
    "02.3", "在六条评论上做 BPE，为什么“精彩”“无聊”还停留在字节层面？再多合并几次能改变吗？",
    options={"A": "合并次数还不够：多合并几次，它们就会被合并成字",
             "B": "它们各只出现一次，里面的字节对出现不到 2 次，BPE 永远不会合并它们；多合并也没用",
             "C": "BPE 只合并名词，“精彩”“无聊”是形容词",
             "D": "BPE 不会把属于不同汉字的字节合并在一起"},
    correct="B",
    reasons={"A": "要 200 次合并，训练在第 21 次就停了：剩下的每一对都只出现一次，没有可合并的了。",
             "C": "BPE 不知道词性，也不知道意思，它只数相邻的一对出现了几次。",
             "D": "它合并出了“电影不”这样横跨三个字的片段，也合并了“影”“彩”共有的前两个字节；"
                  "它只看次数，不管字的边界。"},
    hints=["BPE 每一步选的是出现次数最多的一对；我们的实现规定出现不到 2 次的对不合并。",
           "数一数：“精彩”“无聊”在六条评论里各出现几次？"],
    answer="B。它们各只出现一次，里面的字节对（除了“彩”和“影”共有的前两个字节）也都只出现一次；"
           "出现不到 2 次的对不合并，训练提前停止，词表再大也一样。",
    stub='answer_3 = None   # 填 "A"、"B"、"C" 或 "D"',
    filled='answer_3 = "B"',
)


# ---- q4：带 <UNK> 的编码 -------------------------------------------------------
def _encode_ref(tokens, itos):
    return Vocab(itos).encode(list(tokens))


def _encode_unk_zero(tokens, itos):  # 没见过的词一律给 0
    index = {t: i for i, t in enumerate(itos)}
    return [index.get(t, 0) for t in tokens]


def _encode_skip(tokens, itos):  # 没见过的词直接丢掉
    index = {t: i for i, t in enumerate(itos)}
    return [index[t] for t in tokens if t in index]


def _encode_new_id(tokens, itos):  # 没见过的词给一个表外的新编号
    index = {t: i for i, t in enumerate(itos)}
    return [index.get(t, len(itos)) for t in tokens]


def _encode_one_based(tokens, itos):
    index = {t: i + 1 for i, t in enumerate(itos)}
    return [index.get(t, index[UNK]) for t in tokens]


_TOY = ["电影", "剧情", "好看", "精彩", "难看", "无聊", "不"]
_TOY_UNK = [UNK] + _TOY


def _encode_random(rng):
    known, unseen = _TOY, ["镜头", "惊艳", "配乐", "拖沓"]
    cases = []
    for n in (3, 6, 10):
        itos = list(rng.permutation(_TOY_UNK))
        tokens = list(rng.choice(known + unseen, size=n))
        cases.append(Case((tokens, itos)))
    return cases


q4 = FunctionExercise(
    "02.4", "实现编码：token 换成编号，词表外的词换成 <UNK> 的编号",
    name="my_encode", reference=_encode_ref,
    cases=[Case((["电影", "好看"], _TOY_UNK), note="评论 A"),
           Case((["电影", "不", "好看"], _TOY_UNK), note="评论 E"),
           Case((["镜头", "惊艳"], _TOY_UNK), note="两个没见过的词：都换成 <UNK>"),
           Case(([], _TOY_UNK), note="空句子"),
           Case((["好看", "好看"], _TOY_UNK), note="同一个词出现两次"),
           Case((["电影", "镜头", "好看"], _TOY + [UNK]), note="<UNK> 不一定是 0 号：这张表把它放在最后")],
    random_cases=_encode_random,
    mistakes=[Mistake("没见过的词被你丢掉了；每个 token 都要有一个编号，没见过的换成 <UNK> 的编号。", _encode_skip),
              Mistake("没见过的词应当换成表里 <UNK> 的编号，而不是发一个表外的新编号（len(itos)）。",
                      _encode_new_id),
              Mistake("编号从 0 开始：itos 里第 i 个词的编号是 i。", _encode_one_based),
              Mistake("你把没见过的词都写成了 0；<UNK> 的编号要在表里查（itos.index('<UNK>')），"
                      "它不一定排在最前面。", _encode_unk_zero)],
    stub='''def my_encode(tokens, itos):
    """tokens：token 列表；itos：词表（列表，第 i 个 token 的编号是 i，没有重复，其中一定有 "<UNK>"）。
    返回编号列表，长度等于 len(tokens)：词表里有的 token 给它的编号，没有的给 "<UNK>" 的编号。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_encode(tokens, itos):
    stoi = {t: i for i, t in enumerate(itos)}
    unk = stoi["<UNK>"]
    return [stoi.get(t, unk) for t in tokens]
''',
    hints=["先建一个字典 {token: 编号}，查起来比 itos.index 快。",
           "<UNK> 的编号也从这个字典里查：stoi[\"<UNK>\"]；查不到的 token 用 stoi.get(t, unk)。"],
)


# ---- q5：按字编码 + 字节回退 ------------------------------------------------------
def _char_ref(text, chars):
    return LongestMatchTokenizer(list(chars)).encode(text)


def _char_codepoint(text, chars):  # 词表外的字用 Unicode 码位
    index = {c: 256 + k for k, c in enumerate(chars)}
    return [index[c] if c in index else ord(c) for c in text]


def _char_latin1(text, chars):  # 码位小于 256 的字直接当成一个字节
    index = {c: 256 + k for k, c in enumerate(chars)}
    out = []
    for c in text:
        if c in index:
            out.append(index[c])
        elif ord(c) < 256:
            out.append(ord(c))
        else:
            out.extend(c.encode("utf-8"))
    return out


def _char_from_zero(text, chars):  # 词表里的字从 0 开始编号，和字节编号撞在一起
    index = {c: k for k, c in enumerate(chars)}
    return [i for c in text for i in ([index[c]] if c in index else list(c.encode("utf-8")))]


def _char_drop(text, chars):  # 词表外的字直接丢掉
    index = {c: 256 + k for k, c in enumerate(chars)}
    return [index[c] for c in text if c in index]


_CHARS = list("好看电影不剧情难")


def _char_random(rng):
    pool = list("好看电影不剧情难精彩龘靐") + ["👍", "é", "A", "7", "！", " "]
    return [Case(("".join(rng.choice(pool, size=n)), _CHARS)) for n in (4, 8, 16)]


q5 = FunctionExercise(
    "02.5", "实现按字编码：词表里的字一个编号，词表外的字退回 UTF-8 字节",
    name="my_char_encode", reference=_char_ref,
    cases=[Case(("好看", _CHARS)),
           Case(("电影不好看", _CHARS), note="评论 E，五个字都在词表里"),
           Case(("", _CHARS), note="空字符串"),
           Case(("A", _CHARS), note="词表外的 ASCII 字母：UTF-8 只有 1 个字节"),
           Case(("电影真好看", _CHARS), note="“真”不在词表里：拆成 3 个字节"),
           Case(("龘👍", _CHARS), note="生僻字 3 个字节，表情 4 个字节"),
           Case(("café", ["c", "a", "f"]), note="é 的码位是 233（小于 256），可它的 UTF-8 是 2 个字节"),
           Case(("👨\u200d👩\u200d👧", []), note="一家三口的表情是 5 个码位、18 个字节；词表为空")],
    random_cases=_char_random,
    mistakes=[Mistake("词表里的字要从 256 开始编号（0–255 留给字节）；你从 0 开始，和字节编号撞在一起了。",
                      _char_from_zero),
              Mistake("词表外的字不能丢：把它按 UTF-8 编码成字节，每个字节一个编号。", _char_drop),
              Mistake("码位小于 256 不等于只占一个字节：é 的码位是 233，UTF-8 却是两个字节 0xC3 0xA9。"
                      "词表外的字一律用 UTF-8 编码。", _char_latin1),
              Mistake("你给词表外的字用了 Unicode 码位 ord(字)；要用的是它的 UTF-8 字节（字.encode('utf-8')），"
                      "一个字可能有好几个。", _char_codepoint)],
    stub='''def my_char_encode(text, chars):
    """text：一个字符串；chars：单个字符组成的列表（没有重复），第 k 个字符的编号是 256 + k。
    返回编号列表：逐个字符看，在 chars 里就给它的编号；不在就把它按 UTF-8 编码，
    每个字节一个编号（字节的值 0–255 就是编号）。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_char_encode(text, chars):
    index = {c: 256 + k for k, c in enumerate(chars)}
    ids = []
    for c in text:
        if c in index:
            ids.append(index[c])
        else:
            ids.extend(c.encode("utf-8"))
    return ids
''',
    hints=["先建字典 {字符: 256 + k}，再逐个字符查。",
           "查不到的字符 c：list(c.encode(\"utf-8\")) 就是它的字节编号，可能有 1 到 4 个。"],
)


# ---- q6：BPE 的一步 ------------------------------------------------------------
def _step_ref(ids, new_id):
    counts = get_pair_counts(list(ids))
    best = max(counts.values())
    pair = min(p for p, c in counts.items() if c == best)
    return pair, merge(list(ids), pair, new_id)


def _merge_ok(ids, pair, new_id):
    return merge(list(ids), pair, new_id)


def _step_first_seen(ids, new_id):  # 平局时取先出现的那一对
    counts = get_pair_counts(list(ids))
    pair = max(counts, key=counts.get)
    return pair, _merge_ok(ids, pair, new_id)


def _step_no_skip(ids, new_id):  # 合并后只前进一格：第二个元素又被抄了一遍
    counts = get_pair_counts(list(ids))
    best = max(counts.values())
    pair = min(p for p, c in counts.items() if c == best)
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
        else:
            out.append(ids[i])
        i += 1
    return pair, out


def _step_drop_last(ids, new_id):  # 循环到倒数第二个就停，最后一个编号没抄上
    counts = get_pair_counts(list(ids))
    best = max(counts.values())
    pair = min(p for p, c in counts.items() if c == best)
    out, i = [], 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return pair, out


def _step_from_right(ids, new_id):  # 从右往左合并：[5, 5, 5] 得到 [5, 6]
    pair, _ = _step_ref(ids, new_id)
    out, i = [], len(ids) - 1
    while i >= 0:
        if i >= 1 and (ids[i - 1], ids[i]) == pair:
            out.append(new_id)
            i -= 2
        else:
            out.append(ids[i])
            i -= 1
    return pair, out[::-1]


_AAAB = list(b"aaabdaaabac")
_AAAB_1 = [256, 97, 98, 100, 256, 97, 98, 97, 99]


def _step_random(rng):
    cases = []
    for n in (6, 12, 30):
        ids = [int(v) for v in rng.integers(0, 4, size=n)]
        cases.append(Case((ids, 256)))
    return cases


q6 = FunctionExercise(
    "02.6", "实现 BPE 的一步：数相邻对，选出现最多的一对（平局取最小的一对），把它合并成新编号",
    name="my_bpe_step", reference=_step_ref,
    cases=[Case(([1, 2, 3, 1, 2], 4)),
           Case((_AAAB, 256), note="课文的 aaabdaaabac，第一步"),
           Case((_AAAB_1, 257), note="第二步：(256, 97) 和 (97, 98) 都是 2 次，平局取数值小的一对"),
           Case(([7, 9], 300), note="只有两个编号"),
           Case(([5, 5, 5, 5], 6), note="重叠：(5, 5) 数作 3 次，合并时从左往右、不重叠，得到两个 6"),
           Case(([5, 5, 5], 6), note="奇数个：合并一次，剩下最后一个 5")],
    random_cases=_step_random,
    mistakes=[Mistake("合并以后要跳过两个位置（i += 2）；你只前进了一格，这一对的第二个编号又被抄了一遍。",
                      _step_no_skip),
              Mistake("最后一个编号丢了：循环到倒数第二个位置就停下时，别忘了把剩下的最后一个编号也抄上。",
                      _step_drop_last),
              Mistake("合并要从左往右：“a a a”里先合并前两个，得到 [aa, a]；你是从右边合并的，得到了 [a, aa]。",
                      _step_from_right),
              Mistake("平局时要选数值最小的那一对（元组比较：先比第一个，再比第二个）；"
                      "max(counts, key=counts.get) 选的是最先出现的那一对。", _step_first_seen)],
    stub='''def my_bpe_step(ids, new_id):
    """ids：整数列表（至少两个）；new_id：新编号。
    1) 数每一对相邻编号出现几次（重叠的也算，[5, 5, 5] 里 (5, 5) 算 2 次）；
    2) 选出现次数最多的一对，次数相同时选数值最小的一对（按元组比较）；
    3) 从左到右把这一对的每一处（不重叠）换成 new_id。
    返回 (选中的一对, 合并后的列表)，例：[1, 2, 3, 1, 2], 4 -> ((1, 2), [4, 3, 4])。"""
    raise NotImplementedError  # 把这一行换成你的实现
''',
    answer='''def my_bpe_step(ids, new_id):
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    best = max(counts.values())
    pair = min(p for p, c in counts.items() if c == best)
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return pair, out
''',
    hints=["zip(ids, ids[1:]) 依次给出每一对相邻编号。",
           "先求最大次数 best，再在次数等于 best 的对里取 min(...)，这就是“平局取最小”。",
           "合并用 while 循环：遇到这一对就写 new_id、i += 2；否则抄下 ids[i]、i += 1。"],
)
