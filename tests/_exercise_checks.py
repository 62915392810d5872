"""练习检查器测试共用的小工具：判定某个答案被拒绝（并说明了什么）或通过，取出参考答案函数。"""
import numpy as np

from nlpbook import exercises as E


def fails(q, answer, *needles):
    """q.evaluate(answer) 必须是 failed，且说明里含有每个 needle；返回说明。"""
    r = q.evaluate(answer)
    assert r.status == E.FAIL, r.message
    for needle in needles:
        assert needle in r.message, (needle, r.message)
    return r.message


def passes(q, answer):
    r = q.evaluate(answer)
    assert r.status == E.PASS, r.message


def solution(q):
    """执行练习的参考答案代码（filled），返回读者要写的那个函数。"""
    ns = {"np": np}
    exec(q.filled, ns)
    return ns[q.name]


def first_failing_case(message):
    """说明里“第 k 个例子”的 k。"""
    return int(message.split("第 ")[1].split(" 个")[0])
