"""在一台机器上模拟别的 CPU：换 OpenBLAS 内核、关掉 numpy 的新 SIMD 路径，各跑一遍“每台机器上都必须一样”的测试。

  python scripts/machine_matrix.py                  # 全部配置，两个并行
  python scripts/machine_matrix.py --only Prescott  # 只跑一种
  python scripts/machine_matrix.py --list           # 只列出这台 CPU 上能跑的配置

每种配置跑 `pytest -m "notebook or record"`：nbval 严格重跑每个 notebook（与存储的输出逐格比较），
以及重跑实验记录里一个种子的测试（见 pyproject.toml 的 markers）。全部配置都必须通过。

配置（只选这台 CPU 能执行的，绝不强加它没有的指令集）：
- Haswell（AVX2）、Prescott（SSE3）：OPENBLAS_CORETYPE，x86-64 上都能跑；
- SkylakeX（AVX-512）：只在 CPU 有 avx512f 时；
- numpy-baseline：NPY_DISABLE_CPU_FEATURES 关掉 numpy 在基线之上分派的全部 SIMD 路径（名字从 numpy 自己读，
  所以新旧 numpy 都适用）。
每个进程的 BLAS 都限定单线程（OPENBLAS_NUM_THREADS=1），两个配置并行时互不抢核；这也顺带模拟了单核的机器。
日志写在 --logs 目录里，每种配置一个文件；最后打印一张表。
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SELECT = "notebook or record"


def cpu_flags() -> set[str]:
    """/proc/cpuinfo 里第一颗 CPU 的 flags；读不到（非 Linux）时为空集合。"""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    return set(m.group(1).split()) if m else set()


def numpy_dispatched(python: str) -> list[str]:
    """这台 CPU 上 numpy 在基线之上实际会用的 SIMD 特性（它们的名字随 numpy 版本而变）。"""
    code = ("import numpy as np\n"
            "try:\n from numpy._core import _multiarray_umath as m\n"
            "except ImportError:\n from numpy.core import _multiarray_umath as m\n"
            "print(' '.join(x for x in m.__cpu_dispatch__ if m.__cpu_features__.get(x)))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def configs(python: str) -> dict[str, dict]:
    """配置名 → 额外的环境变量；只含这台 CPU 能跑的。"""
    out: dict[str, dict] = {}
    if platform.machine().lower() in ("x86_64", "amd64"):
        out["Haswell"] = {"OPENBLAS_CORETYPE": "Haswell"} if "avx2" in cpu_flags() else None
        out["Prescott"] = {"OPENBLAS_CORETYPE": "Prescott"}
        if "avx512f" in cpu_flags():
            out["SkylakeX"] = {"OPENBLAS_CORETYPE": "SkylakeX"}
        out = {k: v for k, v in out.items() if v is not None}
    features = numpy_dispatched(python)
    if features:
        out["numpy-baseline"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(features)}
    return out


def run_one(name: str, extra: dict, python: str, logs: Path, pytest_args: list[str]) -> dict:
    env = dict(os.environ, **extra, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    cmd = [python, "-m", "pytest", "-q", "-m", SELECT, "-p", "no:randomly", *pytest_args]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    log = logs / f"{name}.log"
    log.write_text(f"$ {' '.join(f'{k}={v!r}' for k, v in extra.items())} {' '.join(cmd)}\n"
                   + proc.stdout + proc.stderr, encoding="utf-8")
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "(没有输出)"
    failed = re.findall(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", proc.stdout, re.M)
    return {"name": name, "env": extra, "rc": proc.returncode, "summary": tail, "failed": failed,
            "seconds": time.monotonic() - t0, "log": log}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="用哪个 Python 跑（默认当前的）")
    ap.add_argument("--only", nargs="+", help="只跑这些配置")
    ap.add_argument("--jobs", type=int, default=2, help="同时跑几个配置（默认 2）")
    ap.add_argument("--logs", default=str(ROOT / ".venv" / "machine-matrix"), help="日志目录")
    ap.add_argument("--list", action="store_true", help="只列出配置")
    ap.add_argument("pytest_args", nargs="*", help="传给 pytest 的路径（默认 notebooks tests）")
    args = ap.parse_args(argv)
    todo = configs(args.python)
    if args.only:
        unknown = set(args.only) - set(todo)
        if unknown:
            ap.error(f"这台机器上没有这些配置：{sorted(unknown)}；可用的是 {sorted(todo)}")
        todo = {k: todo[k] for k in args.only}
    if args.list:
        for k, v in todo.items():
            print(k, v)
        return 0
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    paths = args.pytest_args or ["notebooks", "tests"]
    print(f"模拟 {len(todo)} 种机器（每种一个进程、单线程 BLAS，{args.jobs} 个并行）：{', '.join(todo)}", flush=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda kv: run_one(kv[0], kv[1], args.python, logs, paths), todo.items()))
    print(f"\n| 配置 | 环境变量 | 结果 | 用时 |\n|---|---|---|---|")
    for r in results:
        env = " ".join(f"{k}={v}" for k, v in r["env"].items())
        print(f"| {r['name']} | `{env}` | {r['summary']} | {r['seconds'] / 60:.1f} 分钟 |")
    bad = [r for r in results if r["rc"] != 0]
    for r in bad:
        print(f"\n{r['name']} 失败（日志 {r['log']}）：")
        for f in r["failed"]:
            print("  ", f)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
