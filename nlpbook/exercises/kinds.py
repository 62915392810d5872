"""三种不用写函数的练习：填一个数（或数组）、选一项、写解释（不判分）。

填数题为每个常见错值准备一句话：例如 ln 写成了 log₂、忘了偏置、窗口差一。
"""
from __future__ import annotations

import numbers
import re
import unicodedata

import numpy as np

from .base import FAIL, PASS, TODO, Exercise, Result
from .compare import describe, same

__all__ = ["NumberExercise", "ChoiceExercise", "ExplainExercise"]


class NumberExercise(Exercise):
    """答案是一个数、一组数或一个结构（元组、字典）：与 expected 在容差内相等即通过。

    wrong：[(错值, 这个错值说明了什么), …]，按顺序比对，第一个对上的给出它的说明。
    例：NumberExercise("03.2", "电影的 IDF", expected=0.288, tol=1e-3,
        wrong=[(0.415, "这是 log₂(4/3)；课程用自然对数 ln。")])
    """

    kind = "number"

    def __init__(self, ex_id, title, *, expected, tol: float = 1e-3, wrong=(), hints=(), answer="",
                 stub="", filled=""):
        super().__init__(ex_id, title, hints=hints, answer=answer, stub=stub, filled=filled)
        if not np.isfinite(tol) or tol < 0:
            raise ValueError(f"tol 必须是 ≥ 0 的有限数，收到 {tol}")
        self.expected, self.tol = expected, float(tol)
        self.wrong = [(value, str(msg)) for value, msg in wrong]

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return self._result(TODO, "还没有作答——把 None 换成你的答案，再运行这一格。")
        if isinstance(answer, str) and not isinstance(self.expected, str):
            text = unicodedata.normalize("NFKC", answer).strip()
            try:
                number = float(text.rstrip("%"))
            except ValueError:
                return self._result(FAIL, f"这里要填数（或数的元组、列表），你填的是字符串 {answer!r}。")
            if text.endswith("%"):
                return self._result(FAIL, f"你填的是字符串 {answer!r}：去掉引号和百分号，写成 0—1 之间的比例，"
                                          f"如 {number / 100:g}。")
            return self._result(FAIL, f"你填的是字符串 {answer!r}：去掉引号，直接写数，如 {number:g}。")
        ok, why = same(self.expected, answer, atol=self.tol, rtol=0.0)
        if ok:
            return self._result(PASS, "正确！")
        for value, msg in self.wrong:
            if same(value, answer, atol=self.tol, rtol=0.0)[0]:
                return self._result(FAIL, f"还不对。{msg}")
        if _is_fraction(self.expected) and same(self.expected, _scaled(answer, 0.01), atol=self.tol, rtol=0.0)[0]:
            return self._result(FAIL, "这里要的是 0—1 之间的比例，不是百分数：把你填的每个数除以 100 再试。")
        # 不说出应得的值：只说形状/类型这类不泄露答案的问题
        reveals = "应为 " in why and "形状" not in why   # "应为 0.5" 说出了答案；"应为数值" 没有
        where = re.search(r"((?:第 (?:\([^)]*\)|\S+) 项\s*|\[[^\]]*\]\s*)+)应为", why)   # 整条路径，如“第 1 项 第 0 项”、“第 (1, 0) 项”
        path = re.sub(r"项\s+(?=第)", "项的", where.group(1).strip()) if where else ""
        detail = why if not reveals else (f"{path}不对（你填的是 {describe(answer)}）" if where
                                          else f"你填的是 {describe(answer)}")
        hint = "运行 hint() 看提示。" if self.hints else ""
        return self._result(FAIL, f"还不对：{detail}。{hint}".rstrip("。") + "。")


def _scaled(x, factor):
    """把答案里的每个数乘以 factor（元组、列表、字典、数组逐项）；不是数的原样留着。"""
    if isinstance(x, dict):
        return {k: _scaled(v, factor) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_scaled(v, factor) for v in x)
    if isinstance(x, np.ndarray) and x.dtype.kind in "iuf":
        return x * factor
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return x * factor
    return x


def _is_fraction(x) -> bool:
    """应得的答案里全是 0—1 之间的数（比例、概率）。"""
    try:
        arr = np.asarray(list(x.values()) if isinstance(x, dict) else x, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.size > 0 and bool(np.all((arr >= 0) & (arr <= 1)))


class ChoiceExercise(Exercise):
    """选择题：options 是 {选项: 说明}，correct 是正确选项；reasons 为每个错误选项说明为什么错。"""

    kind = "choice"

    def __init__(self, ex_id, title, *, options: dict, correct, reasons: dict, hints=(), answer="",
                 stub="", filled=""):
        super().__init__(ex_id, title, hints=hints, answer=answer, stub=stub, filled=filled)
        if correct not in options:
            raise ValueError(f"正确选项 {correct!r} 不在 options {list(options)} 里")
        missing = [k for k in options if k != correct and k not in reasons]
        if missing:
            raise ValueError(f"每个错误选项都要有 reasons：缺少 {missing}")
        self.options, self.correct, self.reasons = dict(options), correct, dict(reasons)

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return self._result(TODO, "还没有作答——把 None 换成你选的选项，再运行这一格。")
        # 全角字母（中文输入法打出的“Ｂ”）、首尾空白、小写都按同一个选项算
        key = unicodedata.normalize("NFKC", answer).strip().upper() if isinstance(answer, str) else answer
        if key not in self.options:
            allowed = "、".join(repr(k) for k in self.options)
            return self._result(FAIL, f"没有选项 {answer!r}；可选的是 {allowed}。")
        if key == self.correct:
            return self._result(PASS, "正确！")
        return self._result(FAIL, f"不是 {key!r}：{self.reasons[key]}")


class ExplainExercise(Exercise):
    """解释题：不判分，参考答案折叠在 notebook 里，solution() 也能打印。"""

    graded = False
    kind = "explain"

    def evaluate(self, answer) -> Result:
        return self._result(TODO, "这是解释题，不自动判分：写下你的想法，再展开下面的参考答案对照。")
