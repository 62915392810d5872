"""课程练习：每道题能 check(答案)、hint()、solution()。

用法（在 notebook 里）：
    from nlpbook.exercises import ch03 as ex
    ex.q2.check(my_tf_idf)      # 判分，并说明最小的失败例子和可能的错误
    ex.q2.hint()                # 卡住时给一条提示，再调用给下一条
    ex.q2.solution()            # 想看参考答案时才打印
    nlpbook.exercises.progress()  # 本内核里各题的状态

老师批改一批 notebook：python -m nlpbook.exercises grade 作业目录/*.ipynb [--csv 成绩.csv]

分层：这是展示层之上的工具，可以导入核心模块拿参考答案；核心模块从不导入它。
"""
from __future__ import annotations

import importlib

from .base import FAIL, PASS, TODO, Exercise, Result, progress, reset_results, results
from .functions import Case, FunctionExercise, Mistake, call_with_time_limit
from .experiments import ExperimentExercise
from .kinds import ChoiceExercise, ExplainExercise, NumberExercise

__all__ = ["Exercise", "Result", "NumberExercise", "ChoiceExercise", "ExplainExercise", "FunctionExercise",
           "ExperimentExercise",
           "Case", "Mistake", "call_with_time_limit", "progress", "results", "reset_results",
           "CHAPTERS", "load", "PASS", "FAIL", "TODO"]

# 有练习的章节 → 模块名
CHAPTERS = {f"{i:02d}": f"ch{i:02d}" for i in range(1, 19)} | {"A": "appendix_a"}


def load(chapter: str):
    """导入一章的练习模块：load("03") 等于 from nlpbook.exercises import ch03。"""
    if chapter not in CHAPTERS:
        raise ValueError(f"没有第 {chapter!r} 章的练习；可选：{', '.join(CHAPTERS)}")
    return importlib.import_module(f"{__name__}.{CHAPTERS[chapter]}")
