"""每道“自己实现”练习的检查耗时：用参考答案作为读者的函数，取 7 次的中位数（预算 ≤ 200 ms）。

  python benchmarks/exercise_checks.py

单线程 BLAS（与 notebook 的预算测量一致）。这是测量，不是计时断言的测试。
"""
from __future__ import annotations

import statistics
import sys

import numpy as np
from nlpbook.optim import single_thread_blas

from nlpbook import exercises as E

BUDGET = 0.200


def main() -> int:
    rows = []
    with single_thread_blas():
        for ch in E.CHAPTERS:
            try:
                mod = E.load(ch)
            except ModuleNotFoundError:
                print(f"第 {ch} 章：没有练习模块")
                continue
            for name in sorted((n for n in vars(mod) if n[:1] == "q" and n[1:].isdigit()), key=lambda n: int(n[1:])):
                q = getattr(mod, name)
                if not isinstance(q, E.FunctionExercise):
                    continue
                ns = {"np": np}
                exec(q.filled, ns)
                fn = ns[q.name]
                assert q.evaluate(fn).passed, q.id
                rows.append((q.id, q.name, len(q.all_cases()), q.timing(fn, repeat=7)))
    print(f"{'练习':<7}{'函数':<28}{'例子数':>6}{'中位耗时':>12}")
    for ex_id, name, n, t in rows:
        flag = "" if t <= BUDGET else "  超出预算"
        print(f"{ex_id:<7}{name:<28}{n:>6}{t * 1000:>10.1f} ms{flag}")
    times = [t for *_, t in rows]
    print(f"\n{len(rows)} 道实现题；中位数 {statistics.median(times) * 1000:.1f} ms，最慢 {max(times) * 1000:.1f} ms"
          f"（预算 {BUDGET * 1000:.0f} ms）")
    return 0 if max(times) <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
