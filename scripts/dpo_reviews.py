"""第 17.2 节的多种子 DPO 实验：DPO 论文“控制情感的续写”的缩微版，写出实验记录。

- 提示：评论的前 prompt_chars 个字（训练用训练集里固定抽的 n_train_prompts 条，评测用验证集里的 n_eval 条）；
- 评委（奖励模型）：tuning.fit_judge 在训练集标签上训练的字袋逻辑回归，奖励 = 它给“提示 + 续写”的 P(好评)；
- 偏好对：随包的小字符模型（参考模型）对每个训练提示采样两条 n_new 个字的续写（温度 1），
  奖励高的当“好”，两者相差不到 min_gap 的丢掉；每个种子重新采样一次偏好对，也决定小批量的顺序；
- 第二位评委（独立评委）：tuning.fit_word_judge，第 18 章比较过的词级 TF-IDF 逻辑回归（jieba 分词、固定 lr 0.05、10 轮、
  批大小 64），在训练集的整条评论上训练；它不参与排偏好对，只在评测时给同样的续写打分（'tfidf_reward'、'tfidf_win'）；
- 训练：对每个 β、每个种子，从参考模型出发 train_dpo steps 步；在 eval_at 的每个步数上用 evaluate_policy
  在留出提示上量两位评委的奖励、KL(π‖π_ref) 与对参考模型的胜率（采样的种子 eval_seed 固定）；
- 逐条的结果：最后一步（steps）上每个留出提示的两位评委的奖励、KL 与胜率（保留 4 位小数），以及参考模型的逐条奖励，
  存在 settings['items']，供 notebook 用 compare 做配对比较（同一个种子下各 β 共用偏好对与评测的随机数）；
  两位评委在验证集评论前 prompt_chars + n_new 个字上的准确率存在 settings['judge_accuracy']。
学习率固定，所以 notebook 里跑 live_steps 步的结果可以直接与记录里同一步数的值比较。
记录写到 nlpbook/records/dpo_reviews.json。用法：python scripts/dpo_reviews.py
"""
from __future__ import annotations

import time

import numpy as np

from nlpbook import tuning as TU
from nlpbook.datasets import jieba_cut, jieba_cut_many, load_reviews
from nlpbook.spread import curve_metrics, record_path, write_record
from nlpbook.tiny_transformer import load_pretrained

NAME = "dpo_reviews"
SEEDS = (0, 1, 2)
BETAS = (0.05, 0.1, 0.3, 1.0)
SETTINGS = {"prompt_chars": 5, "min_chars": 10, "n_new": 12, "n_train_prompts": 512, "n_eval": 192,
            "train_prompt_seed": 0, "eval_prompt_seed": 1, "eval_seed": 2023, "min_gap": 0.1,
            "judge_chars": 32, "judge_epochs": 5, "judge_lr": 0.2,
            "tfidf_judge": {"min_count": 2, "lr": 0.05, "epochs": 10, "batch_size": 64, "seed": 0},
            "batch_size": 32, "lr": 2e-4, "clip": 1.0, "steps": 100, "eval_at": [25, 50, 100],
            "betas": list(BETAS), "live_beta": 0.1, "live_steps": 25}


def fit_tfidf_judge(splits, settings=SETTINGS):
    """独立评委：训练集整条评论的 jieba 分词 → tuning.fit_word_judge（设置见 settings['tfidf_judge']）。"""
    train = splits["train"]
    docs = [r.tokens for r in train] if all(r.tokens is not None for r in train) else jieba_cut_many(
        [r.text for r in train])
    return TU.fit_word_judge(docs, [r.label for r in train], jieba_cut, **settings["tfidf_judge"])


def dpo_setup(lm, settings=SETTINGS, splits=None):
    """两位评委、奖励函数、训练提示与留出提示：
    {'judge', 'reward_fn', 'tfidf_judge', 'tfidf_fn', 'train_prompts', 'eval_prompts'}。"""
    s = settings
    splits = load_reviews() if splits is None else splits
    judge = TU.fit_judge(splits["train"], chars=s["judge_chars"], epochs=s["judge_epochs"], lr=s["judge_lr"])
    reward_fn = lambda P, C: judge.reward(TU.continuation_texts(lm.decode, P, C))  # noqa: E731
    tfidf_judge = fit_tfidf_judge(splits, s)
    tfidf_fn = lambda P, C: tfidf_judge.reward(TU.continuation_texts(lm.decode, P, C))  # noqa: E731
    prompts = {name: TU.review_prompts(lm.encode, splits[split], s[n], s["prompt_chars"], s[seed], s["min_chars"])
               for name, split, n, seed in (("train_prompts", "train", "n_train_prompts", "train_prompt_seed"),
                                             ("eval_prompts", "validation", "n_eval", "eval_prompt_seed"))}
    return dict(judge=judge, reward_fn=reward_fn, tfidf_judge=tfidf_judge, tfidf_fn=tfidf_fn, **prompts)


def judge_accuracy(setup, splits, settings=SETTINGS) -> dict:
    """两位评委在验证集评论的前 prompt_chars + n_new 个字（它们要打分的长度）上的准确率。"""
    val = splits["validation"]
    n = settings["prompt_chars"] + settings["n_new"]
    texts, y = [r.text[:n] for r in val], np.array([r.label for r in val])
    return {name: round(float(np.mean((setup[name].reward(texts) >= 0.5) == y)), 6)
            for name in ("judge", "tfidf_judge")}


def pairs_for_seed(lm, setup, seed: int, settings=SETTINGS):
    """这个种子的偏好对：(chosen, rejected, info)。"""
    return TU.preference_pairs(lm.params, setup["train_prompts"], settings["n_new"], setup["reward_fn"], seed=seed,
                               min_gap=settings["min_gap"])


def evaluator(lm, setup, settings=SETTINGS, keep=None):
    """params → 留出提示上的 {'reward', 'kl', 'win', 'tfidf_reward', 'tfidf_win'}；keep 见 tuning.evaluate_policy。"""
    return lambda P: TU.evaluate_policy(P, lm.params, setup["eval_prompts"], settings["n_new"], setup["reward_fn"],
                                        seed=settings["eval_seed"], keep=keep, judges={"tfidf": setup["tfidf_fn"]})


def run(lm, setup, pairs, seed: int, beta: float, steps: int | None = None, settings=SETTINGS, progress: bool = False,
        keep=None):
    """跑一个 β、一个种子：返回 (params, history)。history 在 eval_at（不超过 steps）的步数上带五项指标；
    keep 给字典时，里面留下最后一个评测步的逐条结果。"""
    steps = settings["steps"] if steps is None else steps
    chosen, rejected, _ = pairs
    return TU.train_dpo(lm.params, chosen, rejected, beta=beta, steps=steps, batch_size=settings["batch_size"],
                        lr=settings["lr"], seed=seed, clip=settings["clip"],
                        eval_at=[s for s in settings["eval_at"] if s <= steps],
                        eval_fn=evaluator(lm, setup, settings, keep), progress=progress)


def method_name(beta: float) -> str:
    return f"beta={beta:g}"


def dpo_metrics(hist) -> dict:
    """一次运行的学习曲线 → 每个评测步上的 'reward@100'、'kl@100'、'win@100'、'tfidf_reward@100'、'tfidf_win@100'、
    'loss@100'、'margin@100'。"""
    evaluated = [row for row in hist if "reward" in row]
    return curve_metrics(evaluated, ["reward", "kl", "win", "tfidf_reward", "tfidf_win", "loss", "margin"])


def item_rows(keep) -> dict:
    """evaluate_policy 的 keep → 逐条的结果（保留 4 位小数）：'reward'、'kl'、'win'、'tfidf_reward'、'tfidf_win'。"""
    r4 = lambda a: [round(float(v), 4) for v in a]  # noqa: E731
    return {"reward": r4(keep["r_policy"]), "kl": r4(keep["kl"]), "win": r4(keep["win"]),
            "tfidf_reward": r4(keep["tfidf"]["r_policy"]), "tfidf_win": r4(keep["tfidf"]["win"])}


def main():
    c0 = time.process_time()
    lm = load_pretrained()
    splits = load_reviews()               # 带 jieba 分词（有缓存）：独立评委在整条评论的词上训练
    setup = dpo_setup(lm, splits=splits)
    ref_keep = {}
    reference = evaluator(lm, setup, keep=ref_keep)(lm.params)
    items = {"step": SETTINGS["steps"], "reference": {"reward": item_rows(ref_keep)["reward"],
                                                      "tfidf_reward": item_rows(ref_keep)["tfidf_reward"]}}
    results = {method_name(b): {} for b in BETAS}
    results["pairs"] = {"n_pairs": [], "reward_gap": []}
    for seed in SEEDS:                    # 种子在外层：同一个种子的偏好对给四个 β 共用
        pairs = pairs_for_seed(lm, setup, seed)
        info = pairs[2]
        results["pairs"]["n_pairs"].append(len(info["kept"]))
        results["pairs"]["reward_gap"].append(round(float(np.mean(info["r_chosen"] - info["r_rejected"])), 6))
        for beta in BETAS:
            keep = {}
            row = dpo_metrics(run(lm, setup, pairs, seed, beta, keep=keep)[1])
            for k, v in row.items():
                results[method_name(beta)].setdefault(k, []).append(v)
            for k, v in item_rows(keep).items():
                items.setdefault(method_name(beta), {}).setdefault(k, []).append(v)
            print(f"β={beta} 种子 {seed}", {k: v for k, v in row.items() if k.endswith(f"@{SETTINGS['steps']}")},
                  flush=True)
    settings = dict(SETTINGS, reference=reference, items=items, judge_accuracy=judge_accuracy(setup, splits))
    write_record(NAME, settings=settings, seeds=SEEDS, results=results, cpu_start=c0)
    print("写出", record_path(NAME).name)


if __name__ == "__main__":
    from nlpbook.optim import single_thread_blas
    with single_thread_blas():  # 整个运行（采样、训练与评估）都用单线程 BLAS，规则见 nlpbook.optim
        main()
