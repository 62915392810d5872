"""测量 COURSE.md 里的预算，并把数字和预算并排打印（这是测量，不是带计时断言的测试）。

  python benchmarks/run_all.py            # 全部
  python benchmarks/run_all.py --skip-notebooks
  python benchmarks/run_all.py --widgets-only   # 只测交互面板的每个控件

测量内容：
- import nlpbook 的时间（新进程，取 7 次的中位数）；预算 0.3 s
- 每个 notebook：在单核上（sched_setaffinity 绑到 0 号核，内核进程继承）逐格执行的时间（不含内核启动）、
  真实数据训练的那一格（最慢的一格；有几段现场训练的章节把每段标上 metadata.tags = ["live-training"]）、
  其余各格合计，以及内核的峰值内存（ru_maxrss）；
  预算：其余各格 ≤ 10 s，每个训练格 ≤ 30 s，全部 notebook ≤ 5 分钟，峰值内存 ≤ 500 MB
- 每个交互面板的每个控件：面板在浏览器里运行（docs/panels.md），由 benchmarks/panel_latency.py 在无头 Chromium 里量
  “input → 视图改好”的中位数（阅读网站、JupyterLab、JupyterLab 里训练格运行时；用全部核，训练本身单线程），
  预算 16 ms；页面里嵌入的面板状态每页 ≤ 1 MB，整站 JavaScript ≤ 2 MB。没有 Chromium 时跳过这一项并说明。
  （还需要内核回答的两个操作：第 11 章“自己写提示词”一行量的是浏览器的即时反应——视图先写“内核正在读提示词”，
  内核算好后再画；第 7 章的 jieba 分词按钮不在表里。两者由 tests/_panels.py 的 PANELS 在 JupyterLab 里操作）
- 每道“自己实现”练习的检查耗时（benchmarks/exercise_checks.py）；预算 200 ms
- 每道实验题（第 13—18 章）跑一次参考答案的时间（benchmarks/experiment_exercises.py）；预算 30 s
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parents[1]
ALL_CORES = set(os.sched_getaffinity(0)) if hasattr(os, "sched_setaffinity") else set()   # main() 绑单核之前

def run_in_kernel(kc, code: str, timeout: float = 600) -> tuple[float, list]:
    outputs = []
    start = time.perf_counter()
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=outputs.append)
    elapsed = time.perf_counter() - start
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"执行失败：{reply['content'].get('ename')}: {reply['content'].get('evalue')}")
    return elapsed, outputs


def _stdout(outputs) -> str:
    return "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")


def bench_import() -> float:
    times = []
    for _ in range(7):
        out = subprocess.run([sys.executable, "-c",
                              "import time; t = time.perf_counter(); import nlpbook; "
                              "print(time.perf_counter() - t)"], capture_output=True, text=True, check=True)
        times.append(float(out.stdout))
    return statistics.median(times)


def bench_notebook(path: Path) -> dict:
    nb = nbformat.read(path, as_version=4)
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(path.parent), stderr=subprocess.DEVNULL)
    try:
        cells = []
        for cell in nb.cells:
            if cell.cell_type == "code":
                cells.append((run_in_kernel(kc, cell.source)[0], is_training(cell)))
        _, outs = run_in_kernel(kc, "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        peak_mb = int(_stdout(outs).strip().splitlines()[-1]) / 1024
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    training, rest = split_training(cells)
    return {"total": sum(t for t, _ in cells), "slowest": max(training), "n_training": len(training),
            "rest": rest, "peak_mb": peak_mb}


TRAINING_TAG = "live-training"


def is_training(cell) -> bool:
    """单元的 metadata.tags 里有 live-training：它是一段现场训练（预算 ≤ 30 s），不计入“其余各格”。"""
    return TRAINING_TAG in cell.get("metadata", {}).get("tags", [])


def split_training(cells) -> tuple[list, float]:
    """[(秒, 是否标了 live-training), …] → (训练格的耗时列表, 其余各格合计)。

    没有标记的 notebook 只有一段真实训练：最慢的一格就是它（COURSE.md 的规则）；第 15、17 章这样有几段现场训练的，
    每段都标上 live-training，每段各自 ≤ 30 s，其余各格合计 ≤ 10 s。
    """
    tagged = [t for t, tag in cells if tag]
    if not tagged:
        slowest = max(t for t, _ in cells)
        return [slowest], sum(t for t, _ in cells) - slowest
    return tagged, sum(t for t, tag in cells if not tag)


def print_panels() -> bool:
    """浏览器面板：benchmarks/panel_latency.py（需要 Chromium 与 playwright；没有时跳过并说明）。返回是否在预算内。"""
    import shutil
    print("\n交互面板（浏览器里，input → 视图改好）：")
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("  跳过：没有 Chromium（Debian/Ubuntu 上 sudo apt-get install chromium）")
        return True
    # 面板用机器的全部核量（见 panel_latency.py 的说明）：子进程不继承 main() 里的单核绑定
    every_core = (lambda: os.sched_setaffinity(0, ALL_CORES)) if hasattr(os, "sched_setaffinity") else None
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "panel_latency.py")], capture_output=True, text=True,
                         preexec_fn=every_core)
    print("  " + "\n  ".join(out.stdout.strip().splitlines()))
    return out.returncode == 0 and "有超出预算" not in out.stdout


MODEL_BENCH = r"""
import time, numpy as np
from nlpbook.datasets import load_raw_reviews, clean_reviews, split_reviews
from nlpbook.charlm import CharNGramLM
from nlpbook.char_rnn import train_char_rnn
sp = split_reviews(clean_reviews(load_raw_reviews())[0])
texts = [r.text for r in sp["train"]]
t = time.process_time(); lm = CharNGramLM(n=3, min_count=3).fit(texts); fit = time.process_time() - t
ids = np.array(lm.encode("\n".join(texts)[:200_000]))
t = time.process_time(); train_char_rnn(ids, len(lm.vocab), steps=100, seed=0); gru = time.process_time() - t
print({"字符三元模型拟合（训练集 100 万字）": fit, "字符 GRU 训练 100 步（batch 16 × 32 字）": gru})
"""


def bench_models() -> dict:
    km, kc = start_new_kernel(kernel_name="python3", stderr=subprocess.DEVNULL)
    try:
        _, outs = run_in_kernel(kc, MODEL_BENCH)
        import ast
        return ast.literal_eval(_stdout(outs).strip().splitlines()[-1])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main() -> int:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # 单核；子进程（内核）继承
    subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], check=True)  # 字体缓存
    if "--widgets-only" in sys.argv:
        ok = print_panels()
        print("\n全部在预算内" if ok else "\n有超出预算的项目（见上）")
        return 0
    ok = True
    t = bench_import()
    ok &= t <= 0.3
    print(f"import nlpbook: {t * 1000:.0f} ms（预算 300 ms）{'' if t <= 0.3 else '  超出预算'}")

    ok &= print_panels()

    print("\n第 11 章模型的训练时间（CPU 秒，单核）：")
    for name, sec in bench_models().items():
        print(f"  {name:<28} {sec:6.1f} s")
    print("  （另见 scripts/train_char_rnn.py、scripts/train_tiny_transformer.py 与 benchmarks/word2vec_vs_gensim.py 的输出）")

    print("\n练习检查（参考答案作为读者的函数，中位数）：")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "exercise_checks.py")],
                         capture_output=True, text=True)
    ok &= out.returncode == 0
    print("  " + out.stdout.strip().splitlines()[-1])

    print("\n实验题（参考答案的那一格，单核，含短训练）：")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "experiment_exercises.py")],
                         capture_output=True, text=True)
    ok &= out.returncode == 0
    print("  " + "\n  ".join(out.stdout.strip().splitlines()))

    if "--skip-notebooks" not in sys.argv:
        print("\nnotebook（单核，不含内核启动）：")
        print(f"  {'notebook':<22}{'合计':>8}{'训练格（最慢）':>12}{'其余':>8}{'峰值内存':>10}")
        total = 0.0
        for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
            r = bench_notebook(path)
            total += r["total"]
            flag = "" if r["rest"] <= 10 and r["slowest"] <= 30 and r["peak_mb"] <= 500 else "  超出预算"
            ok &= not flag
            n = f"（{r['n_training']} 段）" if r["n_training"] > 1 else ""
            print(f"  {path.name:<22}{r['total']:7.1f}s{r['slowest']:9.1f}s{n:<5}{r['rest']:7.1f}s"
                  f"{r['peak_mb']:8.0f} MB{flag}")
        ok &= total <= 300
        print(f"  全部 notebook 合计 {total:.1f} s（预算 300 s）")
        print("  预算：其余各格 ≤ 10 s，真实数据训练的那一格（最慢一格；标了 live-training 的每一格）≤ 30 s，"
              "峰值内存 ≤ 500 MB")
    print("\n全部在预算内" if ok else "\n有超出预算的项目（见上）")
    return 0


if __name__ == "__main__":
    sys.exit(main())
