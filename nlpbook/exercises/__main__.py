"""python -m nlpbook.exercises grade NOTEBOOK... [--csv FILE] [--timeout 秒]

在各自独立的内核里运行每个 notebook（不修改它们），打印“文件 × 练习”的表：
passed / failed / —（没有作答）。--csv 另存一份表格。
全部文件都批改完时退出码为 0；有文件读不了、超时或没有练习时为 1；用法错误为 2。
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .grade import format_table, grade, write_csv


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nlpbook.exercises",
                                     description="批改课程练习：运行 notebook，汇总每道题的状态。")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="批改一个或多个 notebook（或目录）")
    g.add_argument("paths", nargs="+", help="notebook 文件，或包含 notebook 的目录")
    g.add_argument("--csv", help="把表格另存为 CSV 文件")
    g.add_argument("--timeout", type=int, default=120, help="每个单元的超时秒数（默认 120）")
    args = parser.parse_args(argv)

    files = []
    for p in map(Path, args.paths):
        if p.is_dir():
            files += sorted(f for f in p.glob("*.ipynb") if not f.name.startswith("."))
        elif p.suffix == ".ipynb" and p.is_file():
            files.append(p)
        else:
            parser.error(f"{p} 不是 .ipynb 文件或目录")
    if not files:
        parser.error("没有找到要批改的 notebook")
    if args.timeout <= 0:
        parser.error("--timeout 必须是正整数")
    rows = grade(files, timeout=args.timeout)
    print(format_table(rows))
    if args.csv:
        write_csv(rows, args.csv)
        print(f"\n已写入 {args.csv}")
    return 1 if any(r["error"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
