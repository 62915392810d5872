"""练习的输入与答案形式（题目怎么说，例子就怎么给；答案按值比较）：

- 题目说“numpy 数组”的参数，例子里给的就是 numpy 数组；说“列表”的给列表；说“列表或数组”的两种都有；
- 照提示的 numpy 写法（p.max()、P[np.arange(T), targets]、encoder_states @ s）写出的正确答案能通过；
- 返回 np.str_（str 的子类）、float32 的正确答案能通过；
- 只会背可见例子的函数通不过；调用了别的未完成函数时，说明指向那个函数；
- 每道填数题都说明要填到几位，容差与之相符。
"""
import ast
import importlib
import re

import numpy as np
import pytest

from nlpbook import exercises as E
from nlpbook.exercises import FunctionExercise, NumberExercise
from nlpbook.exercises.compare import same

MODULES = [f"ch{i:02d}" for i in range(1, 19)] + ["appendix_a"]


def _all(kind):
    out = []
    for m in MODULES:
        mod = importlib.import_module(f"nlpbook.exercises.{m}")
        out += [getattr(mod, n) for n in mod.__all__ if isinstance(getattr(mod, n), kind)]
    return out


def _by_id(ex_id):
    return getattr(E.load(ex_id.partition(".")[0]), "q" + ex_id.partition(".")[2])


# ---- 题目对参数类型的说法 ------------------------------------------------------------
def promise(doc: str, name: str):
    """起始代码的说明里对参数 name 的说法：'array'、'list'、'either'（列表或数组），没有明说时为 None。"""
    m = (re.search(r"(?:^|[\s；，。、(（])" + re.escape(name) + r"(?:、\w+)*：([^；。\n]*)", doc)
         or re.search(r"(?:\w+、)+" + re.escape(name) + r"：([^；。\n]*)", doc))
    if not m:
        return None
    text = m.group(1)
    if re.search(r"列表或(?:numpy )?数组|列表或数组都可能|数或 numpy 数组|数或数组", text):
        return "either"
    if re.search(r"数组|形状|矩阵|向量|^\s*\(", text):
        return "array"
    if "列表" in text:
        return "list"
    return None


def _signature(ex):
    fn = next(n for n in ast.walk(ast.parse(ex.stub)) if isinstance(n, ast.FunctionDef) and n.name == ex.name)
    return [a.arg for a in fn.args.args], ast.get_docstring(fn) or ""


def _kinds(ex, i, name):
    kinds = set()
    for c in ex.all_cases():
        v = c.args[i] if i < len(c.args) else c.kwargs.get(name, None)
        if v is not None:
            kinds.add("array" if isinstance(v, np.ndarray) else "list" if type(v) is list else type(v).__name__)
    return kinds


def test_promise_parser_reads_the_statements():
    assert promise("probs：一维概率数组（和为 1）；k：正整数。", "probs") == "array"
    assert promise("a、b：等长的一维 numpy 数组。", "b") == "array"
    assert promise("tokens：分好词的列表；lexicon：打分表", "tokens") == "list"
    assert promise("x：每个词一个数的特征，长 T 的列表或数组；kernel：…", "x") == "either"
    assert promise("k：正整数。", "k") is None


@pytest.mark.parametrize("ex", _all(FunctionExercise), ids=lambda e: e.id)
def test_cases_pass_the_types_the_statement_names(ex):
    names, doc = _signature(ex)
    for i, name in enumerate(names):
        said, kinds = promise(doc, name), _kinds(ex, i, name)
        if said == "array":
            assert kinds <= {"array"}, f"{ex.id} 说 {name} 是数组，例子里却有 {kinds}"
        elif said == "list":
            assert kinds <= {"list"}, f"{ex.id} 说 {name} 是列表，例子里却有 {kinds}"
        elif said == "either":
            assert {"array", "list"} <= kinds | {"float", "int"} and kinds & {"array"} and kinds & {"list", "float", "int"}, \
                f"{ex.id} 说 {name} 可以是列表或数组，例子里只有 {kinds}"


def test_word_lists_hold_plain_str():
    for ex in _all(FunctionExercise):
        for c in ex.all_cases():
            for a in c.args:
                if type(a) is list:
                    assert not any(isinstance(v, np.str_) for v in a), ex.id


# ---- 照提示写的正确答案 --------------------------------------------------------------
def my_top_k(probs, k):
    keep = np.argsort(-probs, kind="stable")[:k]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    return out / out.sum()


def my_top_p(probs, p):
    order = np.argsort(-probs, kind="stable")
    m = int(np.argmax(np.cumsum(probs[order]) >= p - 1e-9)) + 1
    out = np.zeros_like(probs)
    out[order[:m]] = probs[order[:m]]
    return out / out.sum()


def my_perplexity(step_probs, targets):
    p = step_probs[np.arange(len(targets)), targets]
    return float(np.exp(-np.log(p).mean()))


def my_attention_from_scores(scores, values):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ values, w


def my_dot_attention(decoder_state, encoder_states):
    s = encoder_states @ decoder_state
    e = np.exp(s - s.max())
    w = e / e.sum()
    return w @ encoder_states, w


def my_nb_posterior(prior, likelihoods):
    L = likelihoods if likelihoods.ndim == 2 else likelihoods[:, None]
    s = np.log(prior) + np.log(L).sum(axis=1)
    e = np.exp(s - s.max())
    return e / e.sum()


NUMPY_STYLE = {"11.4": my_top_k, "11.5": my_top_p, "11.6": my_perplexity, "12.4": my_attention_from_scores,
               "12.5": my_dot_attention, "A.5": my_nb_posterior}


@pytest.mark.parametrize("ex_id", sorted(NUMPY_STYLE))
def test_numpy_style_solution_from_the_hints_passes(ex_id):
    r = _by_id(ex_id).evaluate(NUMPY_STYLE[ex_id])
    assert r.status == E.PASS, r.message


def test_str_subclass_results_pass():
    def my_ngrams(tokens, n):          # np.char 拼出来的是 np.str_
        if len(tokens) < n:
            return []
        a = np.array(tokens)
        out = a[:len(a) - n + 1]
        for k in range(1, n):
            out = np.char.add(np.char.add(out, "_"), a[k:len(a) - n + 1 + k])
        return list(out)
    assert _by_id("05.4").evaluate(my_ngrams).status == E.PASS
    ref = _by_id("16.4").reference
    r = _by_id("16.4").evaluate(lambda tags: [(np.str_(t), s, e) for t, s, e in ref(tags)])
    assert r.status == E.PASS, r.message
    assert same("电影_不", np.str_("电影_不")) == (True, "")
    assert not same("电影_不", np.str_("电影_好"))[0]
    assert not same("1", 1)[0]


def test_float32_results_pass_at_float32_precision():
    def my_layer_norm(x, gamma, beta, eps=1e-5):
        x = np.asarray(x, dtype=np.float32)
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (gamma * (x - mu) / np.sqrt(var + eps) + beta).astype(np.float32)

    def my_softmax(z):
        z = np.asarray(z, dtype=np.float32)
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    assert _by_id("13.8").evaluate(my_layer_norm).status == E.PASS
    assert _by_id("07.4").evaluate(my_softmax).status == E.PASS
    # float32 的容差只为 float32 放宽：float64 的答案差 1e-5 仍然不对，float32 差 1e-3 也不对
    assert not same(1.0, 1.00001)[0]
    assert same(1.0, np.float32(1.00001))[0]
    assert not same(1.0, np.float32(1.001))[0]


def test_failure_message_shows_enough_digits_to_see_the_difference():
    ok, why = same([1.2247449], [1.22474])
    assert not ok and "1.224745" in why and "1.22474" in why


# ---- 背下可见例子的函数通不过 -----------------------------------------------------------
@pytest.mark.parametrize("ex", _all(FunctionExercise), ids=lambda e: e.id)
def test_a_function_that_memorises_the_first_example_fails(ex):
    first = ex.all_cases()[0]
    status, memo = ex._run(ex.reference, first)
    assert status == "ok" or ex.all_cases()[1:], ex.id

    def hard_coded(*args, **kwargs):
        if status != "ok":
            raise memo
        return memo
    assert ex.evaluate(hard_coded).status == E.FAIL, f"{ex.id}：只会返回第一个例子答案的函数通过了"


# ---- 调用了另一个未完成的函数 ------------------------------------------------------------
def test_unfinished_helper_is_named():
    ex = _by_id("08.6")

    def my_rnn_cell(x, h_prev, Wx, Wh, b):
        raise NotImplementedError

    def my_run_rnn(xs, Wx, Wh, b):
        h = np.zeros(Wh.shape[0])
        out = []
        for x in xs:
            h = my_rnn_cell(x, h, Wx, Wh, b)
            out.append(h)
        return np.array(out)
    r = ex.evaluate(my_run_rnn)
    assert r.status == E.TODO
    assert "my_rnn_cell（练习 08.5 的函数）还没有完成" in r.message and "先完成 my_rnn_cell" in r.message
    assert "把 my_run_rnn 里的" not in r.message


# ---- 填数题说明精度 -----------------------------------------------------------------
_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4}


def _stated_precision(ex):
    text = ex.title + " " + ex.stub
    m = re.search(r"保留([一两二三四\d])位小数", text)
    if m:
        return "decimals", _DIGITS.get(m.group(1)) or int(m.group(1))
    if re.search(r"整数", text):
        return "integer", 0
    return None, None


@pytest.mark.parametrize("ex", _all(NumberExercise), ids=lambda e: e.id)
def test_number_question_states_its_precision_and_tolerance_follows(ex):
    kind, n = _stated_precision(ex)
    assert kind, f"{ex.id} 的题目或起始代码要说明填到几位（“保留三位小数即可”或“填整数”）"
    if kind == "decimals":
        assert ex.tol >= 0.5 * 10 ** -n, f"{ex.id} 说保留 {n} 位小数，容差 {ex.tol} 却比四舍五入的误差还小"
        assert ex.tol <= 2.5 * 10 ** -n, f"{ex.id} 的容差 {ex.tol} 比说的精度宽太多"
        rounded = _round(ex.expected, n)
        assert ex.evaluate(rounded).status == E.PASS, (ex.id, rounded)
    else:
        flat = np.asarray(_flatten(ex.expected), dtype=float)
        assert np.all(flat == np.round(flat)) and ex.tol < 1, ex.id


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flatten(item)]
    if isinstance(x, np.ndarray):
        return x.ravel().tolist()
    return [x]


def _round(x, n):
    if isinstance(x, tuple):
        return tuple(_round(v, n) for v in x)
    if isinstance(x, list):
        return [_round(v, n) for v in x]
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return np.round(x, n)
    if isinstance(x, float):
        return round(x, n)
    return x


# ---- 填数题的答案形式 -------------------------------------------------------------------
def test_number_given_as_a_string_gets_told_to_drop_the_quotes():
    q = _by_id("11.2")
    assert "去掉引号，直接写数，如 0.8" in q.evaluate("０.８").message      # 全角数字也认得出
    assert "写成 0—1 之间的比例，如 0.8" in q.evaluate("80%").message
    assert "这里要填数" in q.evaluate("电影").message


def test_multi_part_answer_names_the_wrong_part():
    q = _by_id("11.2")
    assert "第 1 项不对" in q.evaluate([0.8, 0.3, 0.0]).message
    grid = NumberExercise("99.9", "表", expected=np.eye(2), tol=1e-3)
    msg = grid.evaluate([[1, 0], [0.5, 1]]).message
    assert "第 (1, 0) 项不对" in msg and "0.5" in msg
    from nlpbook.exercises.base import _CHAPTERS
    _CHAPTERS.pop("99", None)
