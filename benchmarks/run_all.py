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
- 每个交互面板的每个控件（滑块、下拉框、输入框、勾选框、按钮）：在真实内核里一次次改成新的值
  （含重新计算和重画），每个控件一行，取中位数；预算 100 ms
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

WIDGET_BENCH = r"""
import statistics, time
import ipywidgets as W
import numpy as np
from nlpbook.datasets import (EMBEDDING_MAP, TOY_REVIEWS, TOY_VOCAB, clean_reviews, load_peoples_daily,
                              load_raw_reviews, split_reviews)
from nlpbook.text import Vocab, bag_of_words
from nlpbook.ngram import unseen_examples, unseen_rate
from nlpbook.charlm import CharNGramLM
from nlpbook.char_rnn import load_pretrained as load_gru
from nlpbook.tiny_transformer import load_pretrained as load_tt
from nlpbook.widgets.attention_explorer import AttentionExplorer
from nlpbook.widgets.context_window import ContextWindowPanel
from nlpbook.widgets.conv_window import ConvWindowPanel
from nlpbook.widgets.decay_slider import DecayPanel
from nlpbook.widgets.embedding_map import EmbeddingMap
from nlpbook.widgets.generation_panel import GenerationPanel
from nlpbook.widgets.glossary_search import GlossarySearch
from nlpbook.widgets.kv_cache import KVCachePanel
from nlpbook.widgets.learning_rate import LearningRatePanel
from nlpbook.widgets.lstm_gates import LSTMGatePanel
from nlpbook.widgets.ngram_window import NGramWindowPanel
from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel
from nlpbook.widgets.rule_scorer import RuleScorerBox
from nlpbook.widgets.skipgram_window import SkipGramWindow
from nlpbook.widgets.tokenizer_playground import TokenizerPlayground

# 各章 notebook 里的面板，按 notebook 的做法搭起来（第 7 章的训练好的词向量地图换成同样大小的随机词向量）
v = Vocab(TOY_VOCAB)
X = np.stack([bag_of_words(r.tokens, v) for r in TOY_REVIEWS]); y = [r.label for r in TOY_REVIEWS]
daily = load_peoples_daily(max_lines=5000)
train_s, held_s = daily[:4500], daily[-500:]
stats = [unseen_rate(train_s, held_s, n) for n in range(1, 6)]
examples = {n: unseen_examples(train_s, held_s[1:], n, k=5) for n in range(1, 6)}
sp = split_reviews(clean_reviews(load_raw_reviews())[0])
lm = CharNGramLM(n=3, min_count=3).fit([r.text for r in sp["train"]])
gru = load_gru()
tt = load_tt(); sentence = "\n这家酒店的服务很好，房间也很干净，下次还会再来。"; chars = list(sentence)
words40 = ["中国", "美国", "日本", "俄罗斯", "英国", "法国", "韩国", "德国", "北京", "上海", "天津", "香港", "广州",
           "东京", "华盛顿", "莫斯科", "１月", "２月", "１２月", "一月", "１日", "５日", "１０日", "２０日", "经济", "银行",
           "金融", "货币", "证券", "投资", "市场", "美元", "人民币", "总统", "总理", "主席", "外长", "书记", "记者", "农民"]
rng = np.random.default_rng(0); vec40 = rng.normal(size=(40, 100)); xy40 = rng.normal(size=(40, 2))
PANELS = {
  "01 规则打分器": RuleScorerBox("电影不好看"),
  "02 分词器游乐场": TokenizerPlayground(),
  "04 学习率面板": LearningRatePanel(X, y, lr=0.2, steps=30),
  "05 n-gram 窗口": NGramWindowPanel(stats, examples, n=2),
  "06 词向量地图": EmbeddingMap(np.array(list(EMBEDDING_MAP.values())), list(EMBEDDING_MAP), word="猫"),
  "07 skip-gram 窗口": SkipGramWindow("我 喜欢 看 电影", window=1, center=2),
  "07 词向量地图（40 词）": EmbeddingMap(vec40, words40, coords=xy40, word="美国", k=3,
                                      equation=("人民币", "中国", "美国"), metric="cosine"),
  "08 衰减系数": DecayPanel(0.5, 10),
  "09 LSTM 门控": LSTMGatePanel(),
  "10 卷积窗口": ConvWindowPanel(),
  "11 生成面板（三元模型）": GenerationPanel(lm.next_logits, lm.prompt_ids, lm.decode, lm.vocab, prompt="这家酒店"),
  "11 生成面板（GRU）": GenerationPanel(gru.next_logits, gru.prompt_ids, gru.decode, gru.vocab,
                                      prompt="这家酒店"),
  "13 注意力浏览器（演示句）": AttentionExplorer(),
  "13 注意力浏览器（训练好的模型）": AttentionExplorer.from_maps(np.array(tt.attention_maps(sentence)), chars,
                                                            layer=1, head=3, query=chars.index("还")),
  "14 RNN 与 Transformer 步数": RNNvsTransformerPanel(),
  "14 KV cache 计算器": KVCachePanel(),
  "14 上下文窗口": ContextWindowPanel(),
  "C 术语表": GlossarySearch("注意力"),
}
TEXTS = {  # 输入框依次输入的内容（最后一个很长）
  "01 规则打分器": ["电影好看", "剧情无聊，演技精彩", "不是很好看", "电影不好看" * 40],
  "02 分词器游乐场": ["小猫没有跳上桌子", "龘👍" * 20, "因为它太累了。" * 10, "小猫没有跳上桌子，因为它太累了。龘👍" * 120],
  "07 skip-gram 窗口": ["我 喜欢 看 电影", "我喜欢看电影", "今天 天气 很 好 我们 去 公园 散步", "猫 " * 200],
  "11 生成面板（三元模型）": ["这本书", "服务", "房间很", "很好" * 1000],
  "11 生成面板（GRU）": ["这本书", "服务", "房间很", "很好" * 1000],
  "C 术语表": ["softmax", "", "CRF", "词向量", "注意力"],
}

def controls(panel):
    # 面板上读者能动的每个控件：有 value 的（HTML 等显示用的除外）和按钮
    out = []
    for name, c in vars(panel).items():
        if name == "view" or not isinstance(c, W.Widget):
            continue
        if isinstance(c, W.Button) or (isinstance(c, W.ValueWidget) and not isinstance(c, (W.HTML, W.Label))):
            out.append((name, c))
    return out

def values_for(label, c, n=6):
    if isinstance(c, W.Text):
        return TEXTS[label]
    if isinstance(c, W.Checkbox):
        return [not c.value, c.value] * 3
    if hasattr(c, "options"):
        vals = [o[1] if isinstance(o, tuple) else o for o in c.options]
        vals = [x for x in vals if x != c.value] + [c.value]
        return vals[:n] if len(vals) > n else vals
    lo, hi, step = c.min, c.max, getattr(c, "step", 1) or 1
    k = int(round((hi - lo) / step))
    idx = sorted({int(round(k * (i + 1) / (n + 1))) for i in range(n)})
    vals = [lo + i * step for i in idx]
    vals = [round(x, 10) if isinstance(c.value, float) else int(x) for x in vals]
    return [x for x in vals if x != c.value] + [c.value]

def bench(label, panel, name, c):
    times, cpu = [], []   # 墙钟时间与本线程的 CPU 时间（机器忙时墙钟时间偏大）
    if isinstance(c, W.Button):  # 第 7 章的“用 jieba 分词”：先输入连着写的句子（不计时），再按按钮
        from nlpbook.datasets import jieba_cut; jieba_cut("预热")
        for s in ["我喜欢看电影", "今天天气很好", "小猫没有跳上桌子"]:
            panel.text.value = s
            t, u = time.perf_counter(), time.thread_time(); c.click()
            times.append(time.perf_counter() - t); cpu.append(time.thread_time() - u)
        return statistics.median(times) * 1000, statistics.median(cpu) * 1000, len(times)
    if getattr(c, "disabled", False):
        return "（变灰）", None, 0
    if hasattr(c, "options") and len(c.options) < 2:
        return "（只有一个选项）", None, 0
    for v in values_for(label, c):
        t, u = time.perf_counter(), time.thread_time(); c.value = v
        times.append(time.perf_counter() - t); cpu.append(time.thread_time() - u)
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000, len(times)

ROWS = []
for label, panel in PANELS.items():
    if label.startswith("14 KV"):
        panel.kind.value = "GQA"
    for name, c in controls(panel):
        c = getattr(panel, name)   # 步数滑块在换词数/层数后会被换成新的
        ms, cpu_ms, n = bench(label, panel, name, c)
        ROWS.append((label, f"{name}（{c.description or type(c).__name__}）", ms, cpu_ms, n))
print(ROWS)
"""


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


def bench_widgets() -> list[tuple]:
    """每个面板的每个控件一行：(面板, 控件, 每次改动的中位数 ms（墙钟），或读者动不了时的说明,
    CPU 时间的中位数 ms, 改动次数)。"""
    km, kc = start_new_kernel(kernel_name="python3", stderr=subprocess.DEVNULL)
    try:
        run_in_kernel(kc, "%matplotlib inline")
        _, outs = run_in_kernel(kc, WIDGET_BENCH)
        import ast
        return ast.literal_eval(_stdout(outs).strip().splitlines()[-1])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def print_widgets() -> bool:
    """打印面板表，返回是否全部在预算（100 ms）内。"""
    ok = True
    print("\n交互面板：每个控件改动一次（重新计算 + 重画）的中位数，真实内核，单核；每次改成一个新值：")
    print(f"  {'面板':<24}{'控件':<30}{'中位数':>8}{'CPU':>9}{'次数':>6}")
    for panel, control, ms, cpu, n in bench_widgets():
        if isinstance(ms, str):   # 变灰或只有一个选项：读者动不了，不计时
            print(f"  {panel:<24}{control:<30}{ms:>8}")
            continue
        ok &= ms <= 100
        print(f"  {panel:<24}{control:<30}{ms:7.1f} ms{cpu:6.1f} ms{n:4d}{'' if ms <= 100 else '  超出预算'}")
    print("  预算：每次改动 ≤ 100 ms（墙钟时间的中位数）；CPU 一栏是同一次改动用掉的 CPU 时间，机器忙时看它")
    return ok


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
        ok = print_widgets()
        print("\n全部在预算内" if ok else "\n有超出预算的项目（见上）")
        return 0
    ok = True
    t = bench_import()
    ok &= t <= 0.3
    print(f"import nlpbook: {t * 1000:.0f} ms（预算 300 ms）{'' if t <= 0.3 else '  超出预算'}")

    ok &= print_widgets()

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
