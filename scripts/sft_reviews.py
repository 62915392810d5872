"""第 17.1 节的多种子 SFT 实验：随包的小字符模型在真实评论的两种指令上做监督微调，写出实验记录。

两种损失（同样的步数、批大小、数据、种子）：answer_only（只对回答算损失）与 full（提示也算损失）。
每个种子在 eval_at 的每个步数上，用验证集的留出提示量 exact match（每种指令各 n_held 条）。
最后一个评测步上逐条的结果也存进记录（settings['items']，compare.pack_correct 压缩）：每种指令每条答对与否，
以及判断情感时每条是否答了“差评”（'says_neg'），供 notebook 用 compare 对照多数类基线与两种损失。
学习率固定，所以 notebook 里跑 live_steps 步的结果可以直接与记录里同一步数的值比较。
记录写到 nlpbook/records/sft_reviews.json。用法：python scripts/sft_reviews.py
"""
from __future__ import annotations

import time

from nlpbook import tuning as TU
from nlpbook.compare import pack_correct
from nlpbook.datasets import load_reviews
from nlpbook.spread import curve_metrics, record_path, run_seeds, write_record
from nlpbook.tiny_transformer import load_pretrained

NAME = "sft_reviews"
SEEDS = (0, 1, 2)
SETTINGS = {"n_train_reviews": 3000, "n_held": 150, "review_chars": TU.REVIEW_CHARS, "batch_size": 16, "lr": 1e-3,
            "clip": 1.0, "steps": 600, "eval_at": [100, 200, 400, 600], "live_steps": 200,
            "subset_seed": 0, "held_seed": 1}
METHODS = {"answer_only": True, "full": False}


def sft_data(lm, settings=SETTINGS):
    """训练用的指令数据（两种指令混在一起）与每种指令的留出提示（验证集里固定抽 n_held 条）。"""
    return TU.instruction_data(load_reviews(tokenize=False), settings["n_train_reviews"], settings["n_held"],
                               settings["subset_seed"], settings["held_seed"], settings["review_chars"])


def evaluator(lm, held):
    """params → {指令种类: 留出提示上的 exact match, 'items': {指令种类: 逐条答对与否, 'says_neg': 逐条是否答“差评”}}。"""
    def evaluate(P):
        rows = {k: TU.exact_match(P, lm.encode, v) for k, v in held.items()}
        says_neg = TU.exact_match(P, lm.encode, [(p, "差评") for p, _ in held["sentiment"]])
        return {**{k: float(r.mean()) for k, r in rows.items()}, "items": {**rows, "says_neg": says_neg}}
    return evaluate


def run(seed: int, answer_only: bool = True, steps: int | None = None, settings=SETTINGS, progress: bool = False):
    """跑一个种子：返回 (params, history)。history 在 eval_at（不超过 steps）的步数上带每种指令的 exact match。"""
    lm = load_pretrained()
    train, held = sft_data(lm, settings)
    steps = settings["steps"] if steps is None else steps
    data = TU.encode_pairs(lm.encode, train, answer_only=answer_only)
    return TU.train_sft(lm.params, data, steps=steps, batch_size=settings["batch_size"], lr=settings["lr"],
                        seed=seed, clip=settings["clip"], eval_at=[s for s in settings["eval_at"] if s <= steps],
                        eval_fn=evaluator(lm, held), progress=progress)


def sft_metrics(hist) -> dict:
    """一个种子的学习曲线 → 每个评测步上每种指令的 exact match（'sentiment@400'）与该步的训练损失（'train_loss@400'）。"""
    evaluated = [row for row in hist if "sentiment" in row]
    return {**curve_metrics(hist, list(TU.KINDS)), **curve_metrics(evaluated, {"loss": "train_loss"})}


def main():
    lm = load_pretrained()
    _, held = sft_data(lm)
    base = evaluator(lm, held)(lm.params)
    c0 = time.process_time()
    items = {m: {} for m in METHODS}          # 最后一个评测步上逐条的结果：{方法: {指令种类: [各种子压缩的一行]}}

    def run_one(method, seed):
        hist = run(seed, METHODS[method])[1]
        for k, row in hist[-1].get("items", {}).items():      # 最后一步（evaluator 给出逐条结果）
            items[method].setdefault(k, []).append(pack_correct(row))
        return sft_metrics(hist)

    def report(method, seed, row):
        print(method, seed, {k: v for k, v in row.items() if k.endswith(f"@{SETTINGS['steps']}")}, flush=True)
    results = run_seeds(METHODS, SEEDS, run_one, report)
    settings = dict(SETTINGS, base_model={k: float(base[k]) for k in TU.KINDS},
                    template=TU.TEMPLATE, kinds=dict(TU.KINDS),
                    items={"step": SETTINGS["steps"], "n": SETTINGS["n_held"], **items})
    write_record(NAME, settings=settings, seeds=SEEDS, results=results, cpu_start=c0)
    print("写出", record_path(NAME).name)


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
