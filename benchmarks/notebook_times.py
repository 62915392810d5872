"""逐格计时一个或几个 notebook（单核、真实内核），列出最慢的几格：改一章时先用它看预算。

  python benchmarks/notebook_times.py 08 18        # 按编号前缀选 notebook
计时方法与 run_all.py 相同（绑到 0 号核，不含内核启动）；这是测量，不是测试。
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client.manager import start_new_kernel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_all import ROOT, _stdout, is_training, run_in_kernel, split_training  # noqa: E402


def cell_times(path: Path) -> tuple[list, float]:
    nb = nbformat.read(path, as_version=4)
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(path.parent), stderr=subprocess.DEVNULL)
    try:
        rows = []
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                rows.append((run_in_kernel(kc, cell.source)[0], i + 1, cell.source.splitlines()[0][:50] if cell.source else "",
                             is_training(cell)))
        _, outs = run_in_kernel(kc, "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        peak_mb = int(_stdout(outs).strip().splitlines()[-1]) / 1024
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return rows, peak_mb


def main(argv) -> int:
    if not argv:
        print(__doc__)
        return 2
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    for prefix in argv:
        for path in sorted((ROOT / "notebooks").glob(f"{prefix}*.ipynb")):
            t0 = time.perf_counter()
            rows, peak = cell_times(path)
            rows.sort(reverse=True)
            total = sum(r[0] for r in rows)
            training, rest = split_training([(r[0], r[3]) for r in rows])
            print(f"{path.name}：合计 {total:.1f} s，训练格 {' + '.join(f'{t:.1f}' for t in training)} s，其余 {rest:.1f} s，"
                  f"峰值 {peak:.0f} MB（墙钟 {time.perf_counter() - t0:.0f} s）")
            for sec, idx, head, tag in rows[:8]:
                print(f"  {sec:6.2f} s  第 {idx} 个单元  {head}{'  [live-training]' if tag else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
