"""重新执行并保存课程 notebook（make notebooks），方式与 nbval 检查时一致。

用法：python scripts/execute_notebooks.py [notebooks/01-task.ipynb ...]
不给参数时执行 notebooks/ 下全部 .ipynb。每个 notebook 在它所在的目录里、用全新的
python3 内核从头到尾执行一遍（相当于“重启内核并全部运行”），输出写回原文件。
出错即停止并返回非零退出码，原文件不被改动。
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def merge_streams(nb) -> None:
    """把相邻的同名 stream 输出合成一个：机器忙时一次 print 可能被拆成几段，静态页面上会断行。"""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        merged = []
        for out in cell.outputs:
            if (merged and out.output_type == "stream" and merged[-1].output_type == "stream"
                    and merged[-1].name == out.name):
                merged[-1].text += out.text
            else:
                merged.append(out)
        cell.outputs = merged


def execute(path: Path, timeout: int = 300) -> float:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            record_timing=False, store_widget_state=True)
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    merge_streams(nb)
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for p in paths:
        try:
            seconds = execute(p)
        except Exception as exc:  # noqa: BLE001 - report and stop
            print(f"FAIL {p.name}: {type(exc).__name__}: {str(exc)[-2000:]}")
            return 1
        print(f"ok   {p.name}  ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
