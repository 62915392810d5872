"""实验题（第 13—18 章）的运行时间：把参考答案的那一格当作读者的单元执行一次（含短训练或评测），
再判分；单线程 BLAS、单核。预算：每道 ≤ 30 s。

  python benchmarks/experiment_exercises.py

这是测量，不是计时断言的测试。
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import time

import numpy as np

from nlpbook import exercises as E
from nlpbook.optim import single_thread_blas

BUDGET = 30.0


def main() -> int:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    rows, ok = [], True
    with single_thread_blas():
        for ch in E.CHAPTERS:
            mod = E.load(ch)
            for name in sorted((n for n in vars(mod) if n[:1] == "q" and n[1:].isdigit()), key=lambda n: int(n[1:])):
                q = getattr(mod, name)
                if not isinstance(q, E.ExperimentExercise):
                    continue
                ns = {"np": np, "ex": mod}
                w0, c0 = time.perf_counter(), time.process_time()
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    exec(compile(q.filled, f"<{q.id}>", "exec"), ns)
                    result = q.evaluate(ns[f"answer_{q.id.partition('.')[2]}"])
                wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                ok &= wall <= BUDGET and result.passed
                rows.append((q.id, wall, cpu, result.passed))
    print(f"{'练习':<7}{'用时':>8}{'CPU':>8}  判分")
    for ex_id, wall, cpu, passed in rows:
        flag = "" if wall <= BUDGET else "  超出预算"
        print(f"{ex_id:<7}{wall:7.1f}s{cpu:7.1f}s  {'通过' if passed else '没通过'}{flag}")
    print(f"\n{len(rows)} 道实验题；最慢 {max(r[1] for r in rows):.1f} s（预算 {BUDGET:.0f} s）")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
