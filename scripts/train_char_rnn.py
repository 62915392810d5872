"""训练随包附带的字符级 GRU 语言模型，存成 nlpbook/weights/char_gru_reviews.npz（可复现：固定 seed）。

  python scripts/train_char_rnn.py                          # 默认设置：单核约 6 分钟
  taskset -c 0 python scripts/train_char_rnn.py             # 绑到一个核上测时间
  python scripts/train_char_rnn.py --steps 20 --out /tmp/g.npz   # 快速检查脚本能跑

数据：nlpbook.datasets 的真实评论 → clean_reviews → split_reviews；训练集各条评论用换行连成一段
（开头、结尾也各加一个换行）。字表：训练集里出现 ≥ 3 次的字，其余合并为一个 <UNK>；
顺序是 换行、<UNK>，然后按出现次数从多到少、并列按首次出现——与 charlm.CharNGramLM(min_count=3) 的字表完全相同，
所以困惑度可以直接和一元、二元、三元字模型比。验证集只用来算留出困惑度。
模型与训练：char_rnn.train_char_rnn（GRU，Adam，截断 BPTT），设置见 CONFIG。
文件里存 float16 参数、字表、config（JSON）与 meta（JSON）：训练设置、用时（墙钟与 CPU）、
float16 权重在验证集上的困惑度、同一字表上二元/三元字模型的困惑度（对照），以及几段续写样例。
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np  # noqa: E402

from nlpbook.char_rnn import LM_KEYS, WEIGHTS, CharRNNLM, char_codec, perplexity, train_char_rnn  # noqa: E402
from nlpbook.charlm import CharNGramLM  # noqa: E402
from nlpbook.decoding import generate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "nlpbook" / "weights" / WEIGHTS
MIN_COUNT = 3
CONFIG = dict(hidden=128, dim=32, seq_len=32, batch_size=32, steps=3500, lr=0.01, clip=5.0, seed=0)
SLICE = 200  # notebook 与测试用的“验证集前 200 条评论”
PROMPTS = ("这家酒店", "这本书", "手机", "不推荐")


def build_vocab(texts, min_count: int = MIN_COUNT) -> list[str]:
    """确定性的字表：["\\n", "<UNK>", 其余出现 ≥ min_count 次的字按次数降序、并列按首次出现]。"""
    return CharNGramLM(n=1, min_count=min_count).fit(texts).vocab


def load_data(min_count: int = MIN_COUNT, texts=None) -> dict:
    """训练/验证文本、字表与编号序列。texts=(训练文本, 验证文本) 时直接用它们（测试用，不读真实数据）。"""
    if texts is None:
        from nlpbook.datasets import clean_reviews, load_raw_reviews, split_reviews
        split = split_reviews(clean_reviews(load_raw_reviews())[0])
        texts = ([r.text for r in split["train"]], [r.text for r in split["validation"]])
    train, val = (list(t) for t in texts)
    vocab = build_vocab(train, min_count)
    encode, _ = char_codec(vocab)

    def ids(ts):
        return np.array(encode("\n" + "\n".join(ts) + "\n"), dtype=np.int64)

    return {"train": train, "val": val, "vocab": vocab, "train_ids": ids(train), "val_ids": ids(val),
            "slice_ids": ids(val[:SLICE])}


def baselines(data: dict, orders=(2, 3)) -> dict:
    """同一字表上 n 元字模型（Witten-Bell 插值）的验证集困惑度：全部验证集与前 SLICE 条。"""
    out = {}
    for n in orders:
        m = CharNGramLM(n=n, min_count=MIN_COUNT).fit(data["train"])
        assert m.vocab == data["vocab"]
        out[f"{n}-gram"] = {"val": round(m.perplexity(data["val"]), 2),
                            f"val_first_{SLICE}": round(m.perplexity(data["val"][:SLICE]), 2)}
    return out


def samples(model: CharRNNLM, vocab, prompts=PROMPTS, max_new: int = 30, seed: int = 0) -> list[dict]:
    """每个开头：贪心续写一段、按温度 0.8 采样一段（从一条评论的开头写起，遇到换行即结束）。"""
    encode, decode = char_codec(vocab)
    rng = np.random.default_rng(seed)
    out = []
    for p in prompts:
        ids = encode("\n" + p)
        g = generate(model.next_logits, ids, max_new, temperature=0, eos_id=0)
        s = generate(model.next_logits, ids, max_new, temperature=0.8, rng=rng, eos_id=0)
        out.append({"prompt": p, "greedy": decode(g[len(ids):]).rstrip("\n"),
                    "sampled": decode(s[len(ids):]).rstrip("\n")})
    return out


def save(path, params: dict, vocab, config: dict, meta: dict) -> None:
    """float16 参数 + 字表 + config/meta（JSON 字符串）存进压缩的 .npz（不用 pickle）。"""
    arrays = {f"p/{k}": np.asarray(params[k]).astype(np.float16) for k in LM_KEYS}
    arrays["vocab"] = np.array([str(v) for v in vocab])
    arrays["config"] = np.array(json.dumps(config))
    arrays["meta"] = np.array(json.dumps(meta, ensure_ascii=False))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


def train(out=DEFAULT_OUT, save_file: bool = True, log=print, with_baselines: bool = True, texts=None,
          **overrides) -> dict:
    """按 CONFIG（可用关键字覆盖）训练、评估；save_file=True 时写入 out。返回 meta（含 'model'：float16 往返后的模型）。"""
    cfg = dict(CONFIG, **overrides)
    data = load_data(texts=texts)
    V = len(data["vocab"])
    log(f"训练集 {len(data['train'])} 条、{len(data['train_ids']):,} 字；验证集 {len(data['val'])} 条、"
        f"{len(data['val_ids']):,} 字；字表 {V}（出现 ≥ {MIN_COUNT} 次，其余为 <UNK>）")
    log(f"设置：{cfg}")
    wall, cpu = time.perf_counter(), time.process_time()
    model = train_char_rnn(data["train_ids"], V, progress=sys.stderr.isatty(), **cfg)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    # 存成 float16 再读回 float32，用的正是随包发布的那份权重来评估
    P16 = {k: np.asarray(model.params[k]).astype(np.float16).astype(np.float32) for k in LM_KEYS}
    shipped = CharRNNLM(P16)
    hist = model.history
    meta = {"config": cfg, "steps_done": len(hist), "train_wall_seconds": round(wall, 1),
            "train_cpu_seconds": round(cpu, 1),
            "val_ppl": round(perplexity(shipped.params, data["val_ids"]), 2),
            f"val_first_{SLICE}_ppl": round(perplexity(shipped.params, data["slice_ids"]), 2),
            "val_ppl_float32": round(perplexity(model.params, data["val_ids"]), 2),
            "loss_curve": [[h["step"], round(h["loss"], 4)] for h in hist[::100]] + [[hist[-1]["step"],
                                                                                      round(hist[-1]["loss"], 4)]],
            "data": {"train_reviews": len(data["train"]), "train_chars": int(len(data["train_ids"])),
                     "val_reviews": len(data["val"]), "val_chars": int(len(data["val_ids"])), "vocab_size": V,
                     "min_count": MIN_COUNT, "split": "split_reviews(clean_reviews(load_raw_reviews())[0])"},
            "numpy": np.__version__}
    if with_baselines:
        meta["baselines"] = baselines(data)
    meta["samples"] = samples(shipped, data["vocab"])
    log(f"训练 {len(hist)} 步：墙钟 {meta['train_wall_seconds']} s，CPU {meta['train_cpu_seconds']} s")
    log(f"验证集困惑度 {meta['val_ppl']}（float16 权重；float32 时 {meta['val_ppl_float32']}）；"
        f"前 {SLICE} 条 {meta[f'val_first_{SLICE}_ppl']}")
    if with_baselines:
        log(f"对照（同一字表）：{meta['baselines']}")
    for s in meta["samples"]:
        log(f"  「{s['prompt']}」贪心：{s['greedy']!r}；采样：{s['sampled']!r}")
    if save_file:
        save(out, model.params, data["vocab"], {k: cfg[k] for k in ("hidden", "dim")} | {"vocab_size": V}, meta)
        log(f"已保存 {Path(out).name}（{Path(out).stat().st_size / 1e6:.2f} MB）")
    meta["model"] = shipped
    return meta


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=CONFIG["steps"])
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--no-save", action="store_true", help="只训练和评估，不写文件")
    ap.add_argument("--no-baselines", action="store_true")
    a = ap.parse_args(argv)
    return train(a.out, save_file=not a.no_save, with_baselines=not a.no_baselines, steps=a.steps)


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
