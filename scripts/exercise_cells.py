"""给 notebook 生成练习单元（作者用）：起始代码与检查单元都从 nlpbook.exercises 里来，不会两处不一致。

用法：
    from exercise_cells import setup_cell, cells_for      # 在 scripts/ 目录里
    nb.cells[i:i] = [setup_cell("03")]
    nb.cells[j:j] = cells_for(ex.q3)                     # [起始代码单元, 检查单元]
命令行：python scripts/exercise_cells.py 03   打印第 3 章每道题的两个单元，便于核对。

单元的 metadata 里记着 {"nlpbook": {"exercise": "03.3", "role": "stub" | "check" | "setup"}}，
tests/test_exercise_notebooks.py 靠它找到起始代码，换成参考答案后检查每道题都能通过。
"""
from __future__ import annotations

import sys

import nbformat

from nlpbook.exercises import CHAPTERS, load


def setup_source(chapter: str) -> str:
    return ("# 练习用的工具：ex.qN.check(…) 判分，ex.qN.hint() 给提示，ex.qN.solution() 给参考答案\n"
            "import numpy as np\n"
            f"from nlpbook.exercises import {CHAPTERS[chapter]} as ex")


def check_source(exercise) -> str:
    number = exercise.id.partition(".")[2]
    arg = getattr(exercise, "name", None) or f"answer_{number}"
    return f"ex.q{number}.check({arg})"


def setup_cell(chapter: str):
    cell = nbformat.v4.new_code_cell(setup_source(chapter))
    cell.metadata["nlpbook"] = {"exercise": chapter, "role": "setup"}
    return cell


def cells_for(exercise) -> list:
    """一道计分题的两个单元：读者的起始代码、检查。"""
    if not exercise.graded:
        raise ValueError(f"{exercise.id} 是解释题，不需要检查单元")
    stub = nbformat.v4.new_code_cell(exercise.stub.rstrip("\n"))
    stub.metadata["nlpbook"] = {"exercise": exercise.id, "role": "stub"}
    check = nbformat.v4.new_code_cell(check_source(exercise))
    check.metadata["nlpbook"] = {"exercise": exercise.id, "role": "check"}
    return [stub, check]


if __name__ == "__main__":
    mod = load(sys.argv[1])
    print(setup_source(sys.argv[1]), end="\n\n")
    for name in sorted((n for n in dir(mod) if n[:1] == "q" and n[1:].isdigit()), key=lambda n: int(n[1:])):
        ex = getattr(mod, name)
        if ex.graded:
            for c in cells_for(ex):
                print(c.source, end="\n\n")
