"""第 17.2 节的多种子 DPO 实验：DPO 论文“控制情感的续写”的缩微版，写出实验记录。

- 提示：评论的前 prompt_chars 个字（训练用训练集里固定抽的 n_train_prompts 条，评测用验证集里的 n_eval 条）；
- 评委（奖励模型）：tuning.fit_judge 在训练集标签上训练的字袋逻辑回归，奖励 = 它给“提示 + 续写”的 P(好评)；
- 偏好对：随包的小字符模型（参考模型）对每个训练提示采样两条 n_new 个字的续写（温度 1），
  奖励高的当“好”，两者相差不到 min_gap 的丢掉；每个种子重新采样一次偏好对，也决定小批量的顺序；
- 训练：对每个 β、每个种子，从参考模型出发 train_dpo steps 步；在 eval_at 的每个步数上用 evaluate_policy
  在留出提示上量奖励、KL(π‖π_ref) 与对参考模型的胜率（采样的种子 eval_seed 固定）。
学习率固定，所以 notebook 里跑 live_steps 步的结果可以直接与记录里同一步数的值比较。
记录写到 nlpbook/records/dpo_reviews.json。用法：python scripts/dpo_reviews.py
"""
from __future__ import annotations

import time

import numpy as np

from nlpbook import tuning as TU
from nlpbook.datasets import load_reviews
from nlpbook.spread import curve_metrics, record_path, write_record
from nlpbook.tiny_transformer import load_pretrained

NAME = "dpo_reviews"
SEEDS = (0, 1, 2)
BETAS = (0.05, 0.1, 0.3, 1.0)
SETTINGS = {"prompt_chars": 5, "min_chars": 10, "n_new": 12, "n_train_prompts": 512, "n_eval": 192,
            "train_prompt_seed": 0, "eval_prompt_seed": 1, "eval_seed": 2023, "min_gap": 0.1,
            "judge_chars": 32, "judge_epochs": 5, "judge_lr": 0.2,
            "batch_size": 32, "lr": 2e-4, "clip": 1.0, "steps": 100, "eval_at": [25, 50, 100],
            "betas": list(BETAS), "live_beta": 0.1, "live_steps": 25}


def dpo_setup(lm, settings=SETTINGS, splits=None):
    """评委、奖励函数、训练提示与留出提示：{'judge', 'reward_fn', 'train_prompts', 'eval_prompts'}。"""
    s = settings
    splits = load_reviews(tokenize=False) if splits is None else splits
    judge = TU.fit_judge(splits["train"], chars=s["judge_chars"], epochs=s["judge_epochs"], lr=s["judge_lr"])
    reward_fn = lambda P, C: judge.reward(TU.continuation_texts(lm.decode, P, C))  # noqa: E731
    prompts = {name: TU.review_prompts(lm.encode, splits[split], s[n], s["prompt_chars"], s[seed], s["min_chars"])
               for name, split, n, seed in (("train_prompts", "train", "n_train_prompts", "train_prompt_seed"),
                                             ("eval_prompts", "validation", "n_eval", "eval_prompt_seed"))}
    return dict(judge=judge, reward_fn=reward_fn, **prompts)


def pairs_for_seed(lm, setup, seed: int, settings=SETTINGS):
    """这个种子的偏好对：(chosen, rejected, info)。"""
    return TU.preference_pairs(lm.params, setup["train_prompts"], settings["n_new"], setup["reward_fn"], seed=seed,
                               min_gap=settings["min_gap"])


def evaluator(lm, setup, settings=SETTINGS):
    """params → 留出提示上的 {'reward', 'kl', 'win'}。"""
    return lambda P: TU.evaluate_policy(P, lm.params, setup["eval_prompts"], settings["n_new"], setup["reward_fn"],
                                        seed=settings["eval_seed"])


def run(lm, setup, pairs, seed: int, beta: float, steps: int | None = None, settings=SETTINGS, progress: bool = False):
    """跑一个 β、一个种子：返回 (params, history)。history 在 eval_at（不超过 steps）的步数上带三项指标。"""
    steps = settings["steps"] if steps is None else steps
    chosen, rejected, _ = pairs
    return TU.train_dpo(lm.params, chosen, rejected, beta=beta, steps=steps, batch_size=settings["batch_size"],
                        lr=settings["lr"], seed=seed, clip=settings["clip"],
                        eval_at=[s for s in settings["eval_at"] if s <= steps], eval_fn=evaluator(lm, setup, settings),
                        progress=progress)


def method_name(beta: float) -> str:
    return f"beta={beta:g}"


def dpo_metrics(hist) -> dict:
    """一次运行的学习曲线 → 每个评测步上的 'reward@100'、'kl@100'、'win@100'、'loss@100'、'margin@100'。"""
    evaluated = [row for row in hist if "reward" in row]
    return curve_metrics(evaluated, ["reward", "kl", "win", "loss", "margin"])


def main():
    c0 = time.process_time()
    lm = load_pretrained()
    setup = dpo_setup(lm)
    reference = evaluator(lm, setup)(lm.params)
    results = {method_name(b): {} for b in BETAS}
    results["pairs"] = {"n_pairs": [], "reward_gap": []}
    for seed in SEEDS:                    # 种子在外层：同一个种子的偏好对给四个 β 共用
        pairs = pairs_for_seed(lm, setup, seed)
        info = pairs[2]
        results["pairs"]["n_pairs"].append(len(info["kept"]))
        results["pairs"]["reward_gap"].append(round(float(np.mean(info["r_chosen"] - info["r_rejected"])), 6))
        for beta in BETAS:
            row = dpo_metrics(run(lm, setup, pairs, seed, beta)[1])
            for k, v in row.items():
                results[method_name(beta)].setdefault(k, []).append(v)
            print(f"β={beta} 种子 {seed}", {k: v for k, v in row.items() if k.endswith(f"@{SETTINGS['steps']}")},
                  flush=True)
    write_record(NAME, settings=dict(SETTINGS, reference=reference), seeds=SEEDS, results=results, cpu_start=c0)
    print("写出", record_path(NAME).name)


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（采样、训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
