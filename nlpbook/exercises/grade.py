"""批改：在各自独立的内核里运行读者保存的 notebook，汇总每道题的状态。

从不修改被批改的文件：notebook 读进内存执行，结果只打印（或写到 --csv 指定的文件），原文件不写回。
内核的工作目录是 notebook 所在的文件夹，和在 JupyterLab 里运行时一样（第 17 章要读同目录的其他章）。
一个单元报错不会中断批改（allow_errors）；每个单元有超时。
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from .base import PASS, TODO

__all__ = ["grade_notebook", "grade", "format_table"]

_MARKER = "__NLPBOOK_EXERCISE_REPORT__"
_REPORT_CODE = f"""
import json as _json
from nlpbook.exercises import base as _b
_table = {{ex.id: (_b._RESULTS[ex.id].status if ex.id in _b._RESULTS else _b.TODO)
          for ch in _b._CHAPTERS.values() for ex in ch if ex.graded}}
print({_MARKER!r} + _json.dumps(_table))
"""


def grade_notebook(path, timeout: int = 120, kernel_name: str = "python3") -> dict:
    """执行一个 notebook 的副本，返回 {"file", "results": {题号: 状态}, "error": 说明或 None}。"""
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 - 坏文件也要出现在表里
        return {"file": path.name, "results": {}, "error": f"读不了：{type(exc).__name__}: {exc}"}
    nb.cells.append(nbformat.v4.new_code_cell(_REPORT_CODE))
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, allow_errors=True,
                            resources={"metadata": {"path": str(path.parent.resolve())}}, record_timing=False)
    error = None
    try:
        client.execute()
    except Exception as exc:  # noqa: BLE001 - 超时、内核死掉：记下来，继续批改下一个
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    report = {}
    for out in nb.cells[-1].get("outputs", []):
        text = out.get("text", "")
        if out.get("output_type") == "stream" and _MARKER in text:
            report = json.loads(text.split(_MARKER, 1)[1])
    if not report and error is None:
        error = "没有找到练习：这个 notebook 没有导入 nlpbook.exercises 的任何一章"
    return {"file": path.name, "results": report, "error": error}


def grade(paths, timeout: int = 120) -> list[dict]:
    """依次批改多个 notebook（每个一个新内核）。"""
    return [grade_notebook(p, timeout=timeout) for p in paths]


def _columns(rows: list[dict]) -> list[str]:
    ids = {ex_id for r in rows for ex_id in r["results"]}
    return sorted(ids, key=lambda s: (s.split(".")[0].zfill(3), int(s.split(".")[1])))


_SHORT = {PASS: "passed", "failed": "failed", TODO: "—"}


def format_table(rows: list[dict]) -> str:
    """文本表：每行一个文件，每列一道题；最后一列是通过数。"""
    cols = _columns(rows)
    header = ["文件"] + cols + ["通过"]
    body = []
    for r in rows:
        cells = [_SHORT[r["results"].get(c, TODO)] for c in cols]
        passed = sum(r["results"].get(c) == PASS for c in cols)
        body.append([r["file"]] + cells + [f"{passed}/{len(r['results'])}"])
    widths = [max(_width(row[i]) for row in [header] + body) for i in range(len(header))]
    lines = ["  ".join(_pad(cell, w) for cell, w in zip(row, widths)) for row in [header] + body]
    notes = [f"{r['file']}：{r['error']}" for r in rows if r["error"]]
    return "\n".join(lines + (["", "注意："] + notes if notes else []))


def write_csv(rows: list[dict], target) -> None:
    """CSV：file, 题号…, passed_count, error；状态写 passed / failed / not attempted。"""
    cols = _columns(rows)
    with open(target, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file"] + cols + ["passed", "error"])
        for r in rows:
            w.writerow([r["file"]] + [r["results"].get(c, TODO) for c in cols]
                       + [sum(r["results"].get(c) == PASS for c in cols), r["error"] or ""])


def _width(s: str) -> int:
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in s)


def _pad(s: str, w: int) -> str:
    return s + " " * (w - _width(s))
