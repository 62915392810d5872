"""实验题：读者先预测，再改一个设置、跑一次短训练或评测，检查器把结果放到本章记录给出的范围里。

作答是一个字典 {"prediction": 选项, "setting": 读者选的设置, "result": 读者跑出的数（或 {名字: 数}）}：
- prediction 必须在跑之前填好（选项里的一个字母）；预测对不对不影响通过，结论里会说清楚为什么；
- setting 交给 validate 检查（如“记录里已经有的 β 不算新实验”），不合规就说允许什么；
- result 要落在 band(setting) 给出的范围里：范围由本章的记录推出，已经放宽到在任何 CPU 上都成立，
  落在外面时说明范围从哪里来、可能改错了什么。
通过后按 outcome(setting, result) 判断哪一个预测是对的，并给出那一项的解释。
"""
from __future__ import annotations

import math
import numbers
import unicodedata
from typing import Callable

from .base import FAIL, PASS, TODO, Exercise, Result
from .compare import describe

__all__ = ["ExperimentExercise", "as_number"]


def as_number(x) -> float | None:
    """x 是一个实数（int、float、numpy 标量，不含 bool）时返回 float，否则 None。"""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        try:
            import numpy as np
            if isinstance(x, np.ndarray) and x.shape == () and x.dtype.kind in "iuf":
                return float(x)
        except ImportError:  # pragma: no cover
            pass
        return None
    return float(x)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


class ExperimentExercise(Exercise):
    """实验题（计分）。

    options：{字母: 预测的说法}；outcome(setting, result) -> 实际对的字母；
    reasons：{字母: 这个结果为什么会这样（或这个预测为什么不对）}，每个字母都要有；
    validate(setting) -> None 或一句“不合规，允许的是……”；
    band(setting) -> {结果名: (下限, 上限)}（结果是一个数时用键 "result"）；
    basis：一句话说明范围从哪里来（哪份记录、放宽了多少）。
    """

    kind = "experiment"

    def __init__(self, ex_id, title, *, options: dict, outcome: Callable, reasons: dict,
                 validate: Callable, band: Callable, basis: str, hints=(), answer="", stub="", filled=""):
        super().__init__(ex_id, title, hints=hints, answer=answer, stub=stub, filled=filled)
        if len(options) < 2:
            raise ValueError("实验题至少要有两个可选的预测")
        missing = [k for k in options if k not in reasons]
        if missing:
            raise ValueError(f"每个预测选项都要有 reasons：缺少 {missing}")
        if not basis.strip():
            raise ValueError("basis 要说明范围从哪里来")
        self.options, self.reasons = dict(options), dict(reasons)
        self.outcome, self.validate, self.band, self.basis = outcome, validate, band, basis

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return self._result(TODO, "还没有作答——先填预测，再跑实验。")
        if not isinstance(answer, dict):
            return self._result(FAIL, "请交一个字典 {\"prediction\": …, \"setting\": …, \"result\": …}，"
                                      f"收到的是 {type(answer).__name__}。")
        unknown = set(answer) - {"prediction", "setting", "result"}
        if unknown:
            return self._result(FAIL, f"字典里只要 prediction、setting、result 三个键，多了 {sorted(unknown)}。")
        pred = answer.get("prediction")
        if pred is None:
            return self._result(TODO, "还没有作答——先写下预测（跑之前就要定下来），再跑实验。")
        key = unicodedata.normalize("NFKC", pred).strip().upper() if isinstance(pred, str) else pred
        if key not in self.options:
            allowed = "、".join(repr(k) for k in self.options)
            return self._result(FAIL, f"没有预测选项 {pred!r}；可选的是 {allowed}。")
        setting = answer.get("setting")
        if setting is None:
            return self._result(TODO, "预测已经写下了；还没有选设置——把 setting 换成你要试的值，再跑。")
        problem = self.validate(setting)
        if problem:
            return self._result(FAIL, f"这个设置不行：{problem}")
        result = answer.get("result")
        if result is None:
            return self._result(TODO, "还没有结果——运行上面的实验，把它算出的数交上来。")
        bands = self.band(setting)
        values = {"result": result} if not isinstance(result, dict) else dict(result)
        if set(values) != set(bands):
            return self._result(FAIL, f"结果应包含 {sorted(bands)}，收到 {sorted(values)}。")
        for name, (lo, hi) in bands.items():
            v = as_number(values[name])
            label = "结果" if name == "result" else name
            if v is None or not math.isfinite(v):
                return self._result(FAIL, f"{label}应是一个有限的数，收到 {describe(values[name])}。")
            if not lo <= v <= hi:
                return self._result(FAIL, f"{label} = {_fmt(v)}，不在这个设置应有的范围 [{_fmt(lo)}, {_fmt(hi)}] 里"
                                          f"（{self.basis}）。是不是改了别的设置、换了种子，"
                                          "或者把别的量交了上来？")
        truth = self.outcome(setting, result)
        verdict = (f"你的预测 {key} 对了。{self.reasons[key]}" if key == truth else
                   f"你预测的是 {key}，实际是 {truth}：{self.reasons[truth]}")
        return self._result(PASS, f"实验做对了：结果在应有的范围里。{verdict}")
