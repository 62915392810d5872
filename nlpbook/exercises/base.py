"""练习的共同部分：检查结果、本内核里的成绩记录、提示与参考答案。

一道练习有三个动作：check(答案) 判分并说明；hint() 按层给提示；solution() 给参考答案。
答案只在读者调用 solution() 时出现。不做的事：不保存任何文件，不联网。
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Result", "Exercise", "PASS", "FAIL", "TODO", "results", "reset_results", "progress"]

PASS, FAIL, TODO = "passed", "failed", "not attempted"
_MARK = {PASS: "✓", FAIL: "✗", TODO: "…"}

# 本内核里每道练习最近一次检查的结果：{"03.2": Result}；grade 命令读它
_RESULTS: dict[str, "Result"] = {}
# 已导入的章节：{"03": [Exercise, …]}（按题号），progress() 与 grade 用它列出没动过的题
_CHAPTERS: dict[str, list["Exercise"]] = {}


@dataclass(frozen=True)
class Result:
    """一次检查的结论：status 是 passed / failed / not attempted，message 是给读者看的话。"""
    exercise: str
    status: str
    message: str

    @property
    def passed(self) -> bool:
        return self.status == PASS

    def __str__(self) -> str:
        return f"{_MARK[self.status]} 练习 {self.exercise}：{self.message}"


class Exercise:
    """所有练习的基类。子类实现 evaluate(answer) -> Result（不打印、不记录）。

    ex_id：章号.题号，如 "03.2"；title：一句话题目；hints：由浅入深的提示；
    answer：参考答案（代码或算式），只在 solution() 时打印。
    stub：notebook 里留给读者的起始代码（如 "answer_2 = None"）；
    filled：把 stub 换成它，检查必须通过（测试用它证明每道题都做得对）。
    """

    graded = True
    kind = "exercise"

    def __init__(self, ex_id: str, title: str, *, hints=(), answer: str = "", stub: str = "",
                 filled: str = ""):
        chapter, sep, number = ex_id.partition(".")
        if not (sep and chapter and number.isdigit()):
            raise ValueError(f"练习编号要写成 '章.题'，如 '03.2'，收到 {ex_id!r}")
        if not isinstance(title, str) or not title.strip():
            raise ValueError("练习需要一句非空的题目 title")
        self.id, self.chapter, self.title = ex_id, chapter, title
        self.hints = [str(h) for h in hints]
        self.answer = str(answer)
        self.stub, self.filled = str(stub), str(filled)
        self._hint_level = 0
        group = _CHAPTERS.setdefault(chapter, [])
        group[:] = [e for e in group if e.id != ex_id] + [self]
        group.sort(key=lambda e: int(e.id.partition(".")[2]))

    def __repr__(self) -> str:
        return f"<练习 {self.id}（{self.kind}）：{self.title}>"

    # ---- 读者调用的三个动作 -------------------------------------------------
    def check(self, answer=None) -> None:
        """判分，打印结论，并记入本内核的成绩（progress() 与 grade 命令读取）。"""
        result = self.evaluate(answer)
        _RESULTS[self.id] = result
        print(result)

    def hint(self, level: int | None = None) -> None:
        """打印一条提示：不给 level 时，每调用一次给下一层；level 从 1 开始。"""
        if not self.hints:
            print(f"练习 {self.id} 没有更多提示，可以运行 solution() 看参考答案。")
            return
        if level is None:
            self._hint_level = min(self._hint_level + 1, len(self.hints))
            level = self._hint_level
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= len(self.hints):
            raise ValueError(f"level 应是 1 到 {len(self.hints)} 之间的整数，收到 {level!r}")
        print(f"练习 {self.id} 提示 {level}/{len(self.hints)}：{self.hints[level - 1]}")

    def solution(self) -> None:
        """打印参考答案。"""
        print(f"练习 {self.id} 参考答案：\n{self.answer}")

    # ---- 子类实现 ---------------------------------------------------------
    def evaluate(self, answer) -> Result:
        raise NotImplementedError

    def _result(self, status: str, message: str) -> Result:
        return Result(self.id, status, message)


def results() -> dict[str, Result]:
    """本内核里各题最近一次检查的结果（副本）。"""
    return dict(_RESULTS)


def reset_results() -> None:
    """清空本内核的成绩记录（测试用）。"""
    _RESULTS.clear()


def progress(chapter: str | None = None) -> dict[str, str]:
    """打印并返回本内核里各题的状态：{题号: passed/failed/not attempted}。

    只列已经导入的章节（或只列 chapter 那一章）；不计分的解释题不列。
    """
    if chapter is not None and chapter not in _CHAPTERS:
        raise ValueError(f"没有导入第 {chapter!r} 章的练习；已导入：{sorted(_CHAPTERS) or '无'}")
    table = {}
    for ch in sorted(_CHAPTERS) if chapter is None else [chapter]:
        for ex in _CHAPTERS[ch]:
            if ex.graded:
                table[ex.id] = _RESULTS[ex.id].status if ex.id in _RESULTS else TODO
    done = sum(s == PASS for s in table.values())
    for ex_id, status in table.items():
        print(f"{_MARK[status]} {ex_id}  {status}")
    print(f"通过 {done} / {len(table)} 题")
    return table
