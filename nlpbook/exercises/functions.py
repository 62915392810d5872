"""“自己实现一个函数”的练习：在固定的小例子和随机例子上与课程的参考实现对照。

检查顺序：固定例子（从小到大），再是随机例子（规模逐渐变大，种子固定，所以每次结论一样）。
报告第一个、也就是最小的失败例子：输入、应得、实得，以及“像是哪种常见错误”——
一种已知错误只有在这个例子上给出与读者完全相同的结果、而且说法唯一时才说出来；该报错却返回了值，
或结果含 NaN、无穷大时，还要求它在前面的例子上也都过了——否则只说哪里不同，不猜。
读者的函数报错、返回错误的形状或 NaN、或超时（死循环），都变成一句说明，不会抛给内核。
"""
from __future__ import annotations

import ast
import copy
import ctypes
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .base import FAIL, PASS, TODO, Exercise, Result
from .compare import describe, same

__all__ = ["Case", "Mistake", "FunctionExercise", "TimeLimitExceeded", "call_with_time_limit"]


@dataclass(frozen=True)
class Case:
    """一个测试输入：args/kwargs 传给函数；note 说明它为什么值得测（如“超大 logits”）。"""
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class Mistake:
    """一种常见错误：fn 是照着这个错误写的实现，message 告诉读者错在哪里。"""
    message: str
    fn: Callable


def _raised_in(exc: BaseException) -> str | None:
    """异常是在哪个函数里抛出的（回溯的最后一帧）。"""
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_name


def _owner(fn_name: str) -> str:
    """“（练习 08.5 的函数）”：fn_name 是哪道已导入的练习要读者实现的函数；找不到时为空。"""
    from .base import _CHAPTERS
    for group in _CHAPTERS.values():
        for ex in group:
            if getattr(ex, "name", None) == fn_name:
                return f"（练习 {ex.id} 的函数）"
    return ""


def _plain(x):
    """列表、元组、字典里的 np.str_ 换成 str（其余原样）。"""
    if isinstance(x, np.str_):
        return str(x)
    if type(x) is list:
        return [_plain(v) for v in x]
    if type(x) is tuple:
        return tuple(_plain(v) for v in x)
    if type(x) is dict:
        return {_plain(k): _plain(v) for k, v in x.items()}
    return x                  # 其他类型（包括 dict 的子类）原样


def stub_params(stub: str, name: str) -> list[str]:
    """起始代码里函数 name 的参数名（按顺序）。"""
    for node in ast.walk(ast.parse(stub)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return [a.arg for a in node.args.args]
    raise ValueError(f"起始代码里没有 def {name}(…)")


class TimeLimitExceeded(BaseException):
    """读者的函数超时。继承 BaseException，读者代码里的 `except Exception` 拦不住它。"""


def call_with_time_limit(fn: Callable, args: tuple = (), kwargs: dict | None = None, seconds: float = 2.0):
    """在当前线程里调用 fn(*args, **kwargs)；超过 seconds 秒就抛 TimeLimitExceeded。

    用一个看门狗线程向当前线程注入异常，所以 Windows、macOS、Linux 都能用，也不占用信号。
    只能打断 Python 代码；一个长时间的 numpy 调用会在它返回后才被打断。
    """
    kwargs = kwargs or {}
    target = threading.get_ident()
    done = threading.Event()
    fired = threading.Event()

    def watchdog():
        if not done.wait(seconds):
            fired.set()
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target),
                                                       ctypes.py_object(TimeLimitExceeded))

    dog = threading.Thread(target=watchdog, daemon=True)
    dog.start()
    try:
        try:
            return fn(*args, **kwargs)
        finally:
            done.set()
            dog.join()
            if fired.is_set():  # 注入的异常若还没送达，撤销它
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)
    except TimeLimitExceeded:
        raise TimeLimitExceeded(f"超过 {seconds} 秒") from None


def _all_finite(x) -> bool:
    """x 里的数是否都是有限数（不是数、也不是数组的值算“是”）。"""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return True
    return bool(np.all(np.isfinite(arr)))


def _call_repr(name: str, case: Case) -> str:
    parts = [describe(a, limit=200) for a in case.args]
    parts += [f"{k}={describe(v, limit=200)}" for k, v in case.kwargs.items()]
    return f"{name}({', '.join(parts)})"


class FunctionExercise(Exercise):
    """读者实现一个函数，检查器在 cases 与 random_cases(rng) 上与 reference 对照。

    reference：参考实现（通常就是 nlpbook 里的函数，或包一层把输出整理成题目要的形式）。
    cases：固定例子，从小到大排；random_cases：rng -> [Case, …]，种子固定。
    mistakes：[Mistake(说明, 错误实现), …]，用来诊断读者的错误。
    compare：(expected, got) -> (bool, 原因)，默认 same(…, atol, rtol)。
    stub：notebook 里给读者的起始代码；answer：参考答案代码（solution() 打印，也是默认的 filled）。
    array_args：题目说“numpy 数组”的参数名；例子里的列表会先变成数组，读者拿到的就是题目说的类型。
    raises：参考实现在某个例子上抛异常时，读者的函数也要抛出同类异常。
    """

    kind = "function"

    def __init__(self, ex_id, title, *, name: str, reference: Callable, cases=(), random_cases=None,
                 mistakes=(), stub: str = "", answer: str = "", hints=(), compare=None,
                 atol: float = 1e-6, rtol: float = 1e-6, seed: int = 0, time_limit: float = 2.0,
                 generic_hint: str = "", filled: str = "", array_args=()):
        super().__init__(ex_id, title, hints=hints, answer=answer, stub=stub, filled=filled or answer)
        if not name.isidentifier():
            raise ValueError(f"name 必须是合法的函数名，收到 {name!r}")
        if not cases and random_cases is None:
            raise ValueError("至少要有一个固定例子或随机例子")
        self.name, self.reference = name, reference
        self.params = stub_params(stub, name) if stub else []
        unknown = set(array_args) - set(self.params)
        if unknown:
            raise ValueError(f"array_args 里的 {sorted(unknown)} 不是 {name} 的参数 {self.params}")
        self.array_args = tuple(array_args)
        self.cases = [self._as_promised(c if isinstance(c, Case) else Case(tuple(c))) for c in cases]
        self.random_cases, self.seed = random_cases, seed
        self.mistakes = list(mistakes)
        self.atol, self.rtol, self.time_limit = atol, rtol, time_limit
        self._compare = compare
        self.generic_hint = generic_hint

    # ---- 例子与参考输出 -----------------------------------------------------
    def all_cases(self) -> list[Case]:
        """固定例子在前、随机例子在后；随机例子每次都一样（种子固定）。"""
        extra = list(self.random_cases(np.random.default_rng(self.seed))) if self.random_cases else []
        return self.cases + [self._as_promised(c if isinstance(c, Case) else Case(tuple(c))) for c in extra]

    def _as_promised(self, case: Case) -> Case:
        """例子的类型与题目说的一致：说“numpy 数组”的参数（array_args）给 numpy 数组，照提示写的 p.max()、
        p[idx] 都能用；说“词的列表”的，列表里是普通的 str（随机例子用 rng.choice 抽出的 np.str_ 换回 str）。"""
        args = [_plain(a) for a in case.args]
        for i, name in enumerate(self.params[:len(args)]):
            if name in self.array_args and not isinstance(args[i], np.ndarray):
                args[i] = np.asarray(args[i])
        kwargs = {k: np.asarray(v) if k in self.array_args and not isinstance(v, np.ndarray) else _plain(v)
                  for k, v in case.kwargs.items()}
        return Case(tuple(args), kwargs, case.note)

    def _run(self, fn, case: Case):
        """返回 ("ok", 输出) 或 ("error", 异常) 或 ("timeout", None)。输入先深拷贝，读者改不到例子本身。"""
        args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
        try:
            # 溢出、除以 0 之类的警告不打印：结果里的 NaN/无穷大会在比较时说清楚
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                return "ok", call_with_time_limit(fn, args, kwargs, self.time_limit)
        except TimeLimitExceeded:
            return "timeout", None
        except Exception as exc:  # noqa: BLE001 - 读者代码的任何异常都变成说明
            return "error", exc

    def compare(self, expected, got) -> tuple[bool, str]:
        """比较出错（读者返回了奇怪的对象，比较本身抛异常）也算“不相同”，不把异常抛给读者。"""
        try:
            if self._compare is not None:
                return self._compare(expected, got)
            return same(expected, got, atol=self.atol, rtol=self.rtol)
        except Exception as exc:  # noqa: BLE001
            return False, f"返回值没法和应得的结果比较（{type(exc).__name__}: {exc}）"

    # ---- 判分 --------------------------------------------------------------
    def evaluate(self, fn) -> Result:
        if fn is None or fn is Ellipsis:
            return self._result(TODO, f"还没有作答——先在上面实现 {self.name}，再运行这一格。")
        if not callable(fn):
            return self._result(FAIL, f"请传入函数本身，如 check({self.name})；收到的是 {type(fn).__name__}。")
        cases = self.all_cases()
        for n, case in enumerate(cases, 1):
            ref_status, expected = self._run(self.reference, case)
            if ref_status == "timeout":  # 不应发生：参考实现本身超时
                raise RuntimeError(f"参考实现在例子 {n} 上超时")
            status, got = self._run(fn, case)
            if status == "error" and isinstance(got, NotImplementedError):
                other = _raised_in(got)
                if other and other != self.name and other != getattr(fn, "__name__", None):
                    return self._result(TODO, f"{self.name} 调用的 {other}{_owner(other)}还没有完成（它还在 "
                                              f"raise NotImplementedError）：先完成 {other} 并运行它那一格，"
                                              "再回来运行这一格。")
                if n == 1:
                    return self._result(TODO, f"还没有作答——把 {self.name} 里的 raise NotImplementedError "
                                              "换成你的实现，再运行这一格。")
            call = _call_repr(self.name, case)
            note = f"（{case.note}）" if case.note else ""
            if ref_status == "error":  # 这个例子要求报错
                if status == "error" and isinstance(got, type(expected)):
                    continue
                what = "超时" if status == "timeout" else (
                    f"抛出了 {type(got).__name__}" if status == "error" else f"返回了 {describe(got)}")
                extra = {"upto": cases[:n], "got": got, "strict": True} if status == "ok" else {}   # 返回了值
                return self._fail(n, len(cases), call, note,
                                  f"这个输入应当抛出 {type(expected).__name__}（{expected}），你的函数{what}。",
                                  **extra)
            if status == "timeout":
                return self._fail(n, len(cases), call, note,
                                  f"超过 {self.time_limit:g} 秒还没有返回：是不是有死循环？")
            if status == "error":
                return self._fail(n, len(cases), call, note,
                                  f"报错 {type(got).__name__}: {got}", expected=expected)
            ok, why = self.compare(expected, got)
            if not ok:
                return self._fail(n, len(cases), call, note, f"结果不对：{why}。", expected=expected,
                                  got=got, upto=cases[:n])
        fixed = len(self.cases)
        return self._result(PASS, f"正确！通过了全部 {len(cases)} 个例子"
                                  f"（{fixed} 个固定例子、{len(cases) - fixed} 个随机例子）。")

    _NO = object()

    def _fail(self, n, total, call, note, what, *, expected=_NO, got=_NO, upto=None, strict=False) -> Result:
        lines = [f"第 {n} 个例子（共 {total} 个）没有通过{note}。", f"  输入：{call}"]
        if expected is not self._NO:
            lines.append(f"  应得：{describe(expected)}")
        if got is not self._NO and expected is not self._NO:
            lines.append(f"  实得：{describe(got)}")
        lines.append(f"  {what}")
        guess = self._diagnose(upto, got, strict) if upto is not None else None
        if guess:
            lines.append(f"  可能的原因：{guess}")
        elif self.generic_hint:
            lines.append(f"  提示：{self.generic_hint}")
        elif self.hints:
            lines.append("  卡住了？运行 hint() 看提示。")
        return self._result(FAIL, "\n".join(lines))

    def _passes(self, fn, case: Case) -> bool:
        """fn 在这个例子上与参考实现一致（该报错时抛同类异常，否则结果相同）。"""
        ref_status, expected = self._run(self.reference, case)
        status, out = self._run(fn, case)
        if ref_status == "error":
            return status == "error" and isinstance(out, type(expected))
        return status == "ok" and self.compare(expected, out)[0]

    def _diagnose(self, upto: list, got, strict: bool = False) -> str | None:
        """只在诊断确实对得上时才说“可能的原因”。一种已知错误先要在这个失败的例子上给出与读者完全相同的结果；
        对得上的说法不止一种时，只留下在前面的例子上也都和参考一致（和读者一样都过了）的那些，仍不唯一就不猜。
        读者该报错却返回了值（strict），或返回的含 NaN、无穷大时，这样的结果太容易碰巧相同，一开始就只留后一种。"""
        *before, case = upto
        strict = strict or not _all_finite(got)
        same_here = []
        for mistake in self.mistakes:
            status, wrong = self._run(mistake.fn, case)
            if status == "ok" and self.compare(wrong, got)[0]:
                same_here.append(mistake)
        if not strict and len({m.message for m in same_here}) == 1:
            return same_here[0].message
        consistent = {m.message for m in same_here if all(self._passes(m.fn, c) for c in before)}
        return consistent.pop() if len(consistent) == 1 else None

    def timing(self, fn, repeat: int = 5) -> float:
        """evaluate(fn) 的中位耗时（秒），供 benchmarks 使用。"""
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            self.evaluate(fn)
            times.append(time.perf_counter() - start)
        return float(np.median(times))


