"""第 17.1、17.2 节的实验记录里逐条的结果（settings['items']）：与记录里的均值一致，自身也前后一致。

notebook 用这些逐条结果做 compare（SFT 对多数类、两种损失；DPO 各 β 之间、策略对参考模型），
所以这里核对：每个种子的逐条结果平均下来就是记录里同一步的指标；胜负与两边的奖励一致；
“答差评”与“答对”在差评样本上一致；两位评委在验证集前 17 个字上的准确率能从数据重新算出。
"""
import numpy as np
import pytest

from nlpbook import tuning as TU
from nlpbook.compare import compare, unpack_correct
from nlpbook.spread import load_record, record_path


def _record_or_skip(name):
    if not record_path(name).exists():
        pytest.skip(f"nlpbook/records/{name}.json 还没有生成：先运行 python scripts/{name}.py")
    return load_record(record_path(name))


def _sft_rows(rec):
    items = rec["settings"]["items"]
    return {m: {k: np.array([unpack_correct(t, items["n"]) for t in rows]) for k, rows in items[m].items()}
            for m in rec["results"]}


def test_sft_items_average_to_the_recorded_exact_match():
    rec = _record_or_skip("sft_reviews")
    s = rec["settings"]
    step = s["items"]["step"]
    assert step == s["eval_at"][-1] and s["items"]["n"] == s["n_held"]
    for method, rows in _sft_rows(rec).items():
        assert set(rows) == set(TU.KINDS) | {"says_neg"}
        for k in TU.KINDS:
            assert rows[k].shape == (len(rec["seeds"]), s["n_held"])
            assert list(rows[k].mean(axis=1)) == list(rec["results"][method][f"{k}@{step}"].values), (method, k)


def _held_negative(rec):
    """留出的判断情感提示里，哪些的标准答案是“差评”（与 scripts/sft_reviews.py 同样的抽样）。"""
    from nlpbook.datasets import load_reviews
    s = rec["settings"]
    _, held = TU.instruction_data(load_reviews(tokenize=False), s["n_train_reviews"], s["n_held"], s["subset_seed"],
                                  s["held_seed"], s["review_chars"])
    return np.array([a == "差评" for _, a in held["sentiment"]])


def test_sft_says_negative_matches_correct_answers_on_negative_prompts_and_the_majority_baseline():
    rec = _record_or_skip("sft_reviews")
    neg = _held_negative(rec)
    assert neg.sum() == 87 and len(neg) == 150          # 多数类（总答“差评”）0.580
    for method, rows in _sft_rows(rec).items():
        said, ok = rows["says_neg"].astype(bool), rows["sentiment"].astype(bool)
        assert np.array_equal(said[:, neg], ok[:, neg]), method          # 差评样本：答对 ⇔ 答了“差评”
        assert not (said[:, ~neg] & ok[:, ~neg]).any(), method           # 好评样本：答了“差评”就不会对
    base = np.tile(neg.astype(int), (len(rec["seeds"]), 1))
    c = compare(_sft_rows(rec)["answer_only"]["sentiment"], base, shared_seeds=True)
    assert np.isclose(c.diff, rec["results"]["answer_only"]["sentiment@600"].mean - 87 / 150)


def _dpo_items(rec):
    items = rec["settings"]["items"]
    return items, {m: {k: np.array(v) for k, v in items[m].items()} for m in items if m.startswith("beta=")}


def test_dpo_items_average_to_the_recorded_metrics():
    rec = _record_or_skip("dpo_reviews")
    s = rec["settings"]
    items, rows = _dpo_items(rec)
    step = items["step"]
    assert step == s["steps"] and set(rows) == {f"beta={b:g}" for b in s["betas"]}
    for name, ref_key in (("reward", "reward"), ("tfidf_reward", "tfidf_reward")):
        ref = np.array(items["reference"][name])
        assert ref.shape == (s["n_eval"],) and abs(ref.mean() - s["reference"][ref_key]) <= 5e-5 + 1e-6
    for m, r in rows.items():
        for k in ("reward", "kl", "win", "tfidf_reward", "tfidf_win"):
            assert r[k].shape == (len(rec["seeds"]), s["n_eval"]), (m, k)
            want = np.array(rec["results"][m][f"{k}@{step}"].values)
            assert np.all(np.abs(r[k].mean(axis=1) - want) <= 5e-5 + 1e-6), (m, k)   # 逐条保留了 4 位小数
        for k in ("win", "tfidf_win"):
            assert set(np.unique(r[k])) <= {0.0, 0.5, 1.0}


def test_dpo_wins_agree_with_the_per_prompt_rewards():
    rec = _record_or_skip("dpo_reviews")
    items, rows = _dpo_items(rec)
    for m, r in rows.items():
        for reward, win, ref in (("reward", "win", "reward"), ("tfidf_reward", "tfidf_win", "tfidf_reward")):
            d = r[reward] - np.array(items["reference"][ref])[None, :]
            clear = np.abs(d) > 1e-4                                   # 4 位小数分得清的
            assert np.array_equal(r[win][clear], (d[clear] > 0).astype(float)), (m, reward)


@pytest.mark.record
def test_dpo_judge_accuracy_is_reproduced_from_the_data():
    """两位评委在验证集评论前 prompt_chars + n_new 个字上的准确率（notebook 现场算、打印）与记录相同。"""
    import importlib.util
    from pathlib import Path
    rec = _record_or_skip("dpo_reviews")
    path = Path(__file__).resolve().parents[1] / "scripts" / "dpo_reviews.py"
    spec = importlib.util.spec_from_file_location("dpo_reviews", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    from nlpbook.datasets import load_reviews
    from nlpbook.tiny_transformer import load_pretrained
    splits = load_reviews()
    setup = mod.dpo_setup(load_pretrained(), rec["settings"], splits=splits)
    assert mod.judge_accuracy(setup, splits, rec["settings"]) == rec["settings"]["judge_accuracy"]
