"""测量 COURSE.md 里的预算，并把数字和预算并排打印（这是测量，不是带计时断言的测试）。

  python benchmarks/run_all.py            # 全部
  python benchmarks/run_all.py --skip-notebooks

测量内容：
- import nlpbook 的时间（新进程，取 7 次的中位数）；预算 0.3 s
- 每个 notebook：在单核上（sched_setaffinity 绑到 0 号核，内核进程继承）逐格执行的时间（不含内核启动）、
  最慢的一格（真实数据训练所在的那一格）、其余各格合计，以及内核的峰值内存（ru_maxrss）；
  预算：其余各格 ≤ 10 s，最慢一格 ≤ 30 s，全部 notebook ≤ 5 分钟，峰值内存 ≤ 500 MB
- 每个交互面板：在真实内核里改控件的值（含重新计算和重画 PNG），取中位数；预算 100 ms
- 每道“自己实现”练习的检查耗时（benchmarks/exercise_checks.py）；预算 200 ms
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
import time, statistics, numpy as np
from IPython.display import display
from nlpbook.datasets import TOY_REVIEWS, TOY_VOCAB
from nlpbook.text import Vocab, bag_of_words
from nlpbook.widgets.tokenizer_playground import TokenizerPlayground
from nlpbook.widgets.rule_scorer import RuleScorerBox
from nlpbook.widgets.learning_rate import LearningRatePanel

def bench(control, values, repeat=3):
    times = []
    for _ in range(repeat):
        for v in values:
            t = time.perf_counter(); control.value = v; times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000

v = Vocab(TOY_VOCAB)
X = np.stack([bag_of_words(r.tokens, v) for r in TOY_REVIEWS]); y = [r.label for r in TOY_REVIEWS]
tp, rs, lr = TokenizerPlayground(), RuleScorerBox(), LearningRatePanel(X, y)
from nlpbook.datasets import EMBEDDING_MAP, load_peoples_daily, load_raw_reviews, clean_reviews, split_reviews
from nlpbook.ngram import unseen_rate, unseen_examples
from nlpbook.charlm import CharNGramLM
from nlpbook.widgets.embedding_map import EmbeddingMap
from nlpbook.widgets.ngram_window import NGramWindowPanel
from nlpbook.widgets.skipgram_window import SkipGramWindow
from nlpbook.widgets.decay_slider import DecayPanel
from nlpbook.widgets.lstm_gates import LSTMGatePanel
from nlpbook.widgets.conv_window import ConvWindowPanel
from nlpbook.widgets.generation_panel import GenerationPanel
from nlpbook.widgets.kv_cache import KVCachePanel
from nlpbook.widgets.context_window import ContextWindowPanel
from nlpbook.widgets.parallel_steps import RNNvsTransformerPanel
from nlpbook.widgets.attention_explorer import AttentionExplorer
from nlpbook.widgets.glossary_search import GlossarySearch
from nlpbook.tiny_transformer import attention_maps, load_pretrained
ax = AttentionExplorer()
tt = load_pretrained(); chars = list("这本书还不错，就是物流太慢了。")
tx = AttentionExplorer.from_maps(attention_maps(tt.params, tt.encode("".join(chars))), chars)
gs = GlossarySearch()
pd_ = load_peoples_daily(max_lines=2000)
stats = [unseen_rate(pd_[:1800], pd_[1800:], n) for n in range(1, 6)]
em = EmbeddingMap(np.array(list(EMBEDDING_MAP.values())), list(EMBEDDING_MAP))
sp = split_reviews(clean_reviews(load_raw_reviews())[0])
lm = CharNGramLM(n=3).fit([r.text for r in sp["train"]])
gen = GenerationPanel(lm.next_logits, lm.encode, lm.decode, lm.vocab)
kv, cw, ps = KVCachePanel(), ContextWindowPanel(), RNNvsTransformerPanel()
def first_slider(panel):
    return next(v for v in vars(panel).values() if hasattr(v, "min") and hasattr(v, "max") and hasattr(v, "value")
                and isinstance(v.value, (int, float)) and not isinstance(v.value, bool))
def sweep(ctl, n=4):
    lo, hi = ctl.min, ctl.max
    return [type(ctl.value)(lo + (hi - lo) * (i + 1) / (n + 1)) for i in range(n)]
RESULT = {
  "分词器游乐场（输入框）": bench(tp.text, ["小猫没有跳上桌子", "龘👍" * 20, "因为它太累了。" * 10]),
  "规则打分器（输入框）": bench(rs.text, ["电影好看", "电影不好看", "剧情无聊，演技精彩"]),
  "学习率面板（滑块）": bench(lr.lr, [0.05, 0.5, 5.0, 20.0]),
  "n-gram 窗口（滑块）": bench(NGramWindowPanel(stats).n, [1, 3, 5, 2]),
  "词向量地图（选词）": bench(em.word, ["猫", "国王", "香蕉", "北京"]),
  "skip-gram 窗口（滑块）": bench(SkipGramWindow().window, [1, 2, 3, 4]),
  "衰减系数（滑块）": bench(DecayPanel().decay, [0.3, 0.9, 1.0, 1.2]),
  "LSTM 门控（滑块）": bench(LSTMGatePanel().f, [0.1, 0.5, 0.9, 1.0]),
  "卷积窗口（滑块）": bench(ConvWindowPanel().width, [1, 2, 4, 5]),
  "生成面板（温度滑块）": bench(gen.temperature, [0.0, 0.5, 1.5, 3.0]),
  "生成面板（top-p 滑块）": bench(gen.top_p, [0.5, 0.8, 0.9, 1.0]),
  "KV cache 计算器（滑块）": bench(first_slider(kv), sweep(first_slider(kv))),
  "上下文窗口（滑块）": bench(first_slider(cw), sweep(first_slider(cw))),
  "RNN 与 Transformer 步数（滑块）": bench(first_slider(ps), sweep(first_slider(ps))),
  "注意力浏览器（提问的词）": bench(ax.query, [0, 3, 6, 9]),
  "注意力浏览器（只看前文）": bench(ax.causal, [True, False]),
  "注意力浏览器（训练好的模型，换层）": bench(tx.layer, [1, 0]),
  "术语表（搜索框）": bench(gs.text, ["注意力", "softmax", "", "CRF"]),
}
print(RESULT)
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
                cells.append(run_in_kernel(kc, cell.source)[0])
        _, outs = run_in_kernel(kc, "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        peak_mb = int(_stdout(outs).strip().splitlines()[-1]) / 1024
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    slowest = max(cells)
    return {"total": sum(cells), "slowest": slowest, "rest": sum(cells) - slowest, "peak_mb": peak_mb}


def bench_widgets() -> dict:
    km, kc = start_new_kernel(kernel_name="python3", stderr=subprocess.DEVNULL)
    try:
        run_in_kernel(kc, "%matplotlib inline")
        _, outs = run_in_kernel(kc, WIDGET_BENCH)
        import ast
        return ast.literal_eval(_stdout(outs).strip().splitlines()[-1])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


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
    ok = True
    t = bench_import()
    ok &= t <= 0.3
    print(f"import nlpbook: {t * 1000:.0f} ms（预算 300 ms）{'' if t <= 0.3 else '  超出预算'}")

    print("\n交互面板更新（中位数，真实内核，含重画）：")
    for name, ms in bench_widgets().items():
        ok &= ms <= 100
        print(f"  {name:<22} {ms:6.1f} ms（预算 100 ms）{'' if ms <= 100 else '  超出预算'}")

    print("\n第 11 章模型的训练时间（CPU 秒，单核）：")
    for name, sec in bench_models().items():
        print(f"  {name:<28} {sec:6.1f} s")
    print("  （另见 scripts/train_char_rnn.py、scripts/train_tiny_transformer.py 与 benchmarks/word2vec_vs_gensim.py 的输出）")

    print("\n练习检查（参考答案作为读者的函数，中位数）：")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "exercise_checks.py")],
                         capture_output=True, text=True)
    ok &= out.returncode == 0
    print("  " + out.stdout.strip().splitlines()[-1])

    if "--skip-notebooks" not in sys.argv:
        print("\nnotebook（单核，不含内核启动）：")
        print(f"  {'notebook':<22}{'合计':>8}{'最慢一格':>10}{'其余':>8}{'峰值内存':>10}")
        total = 0.0
        for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
            r = bench_notebook(path)
            total += r["total"]
            flag = "" if r["rest"] <= 10 and r["slowest"] <= 30 and r["peak_mb"] <= 500 else "  超出预算"
            ok &= not flag
            print(f"  {path.name:<22}{r['total']:7.1f}s{r['slowest']:9.1f}s{r['rest']:7.1f}s"
                  f"{r['peak_mb']:8.0f} MB{flag}")
        ok &= total <= 300
        print(f"  全部 notebook 合计 {total:.1f} s（预算 300 s）")
        print("  预算：其余各格 ≤ 10 s，最慢一格（真实数据训练）≤ 30 s，峰值内存 ≤ 500 MB")
    print("\n全部在预算内" if ok else "\n有超出预算的项目（见上）")
    return 0


if __name__ == "__main__":
    sys.exit(main())
