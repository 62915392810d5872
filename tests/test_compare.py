"""nlpbook.compare：配对 / 不配对的比较、两层噪声、区间的覆盖率。"""
import numpy as np
import pytest

from nlpbook.compare import compare, pack_correct, t975, unpack_correct
from nlpbook.spread import Spread


def _sim(rng, s=3, n=400, delta=0.0, seed_sd=0.02, item_sd=0.3, shared=True):
    """模拟分数：每条样本有共有的难度（shared 时两方法共用），每个种子给每个方法一个偏移。"""
    hard = rng.normal(0, item_sd, n)
    hard_b = hard if shared else rng.normal(0, item_sd, n)
    a = 0.5 + delta + hard + rng.normal(0, seed_sd, (s, 1)) + rng.normal(0, 0.1, (s, n))
    b = 0.5 + hard_b + rng.normal(0, seed_sd, (s, 1)) + rng.normal(0, 0.1, (s, n))
    return a, b


def test_docstring_example_and_sentence_format():
    c = compare([[1, 1, 0, 1]], [[1, 0, 0, 1]], names=("甲", "乙"))
    assert c.sentence() == "甲 − 乙 = +0.250 [−0.174, +0.674]：分不开（1 个种子 × 4 条评测样本，样本配对）"
    assert c.verdict == 0 and not c.separated


def test_identical_runs_give_zero_difference_and_zero_width():
    a = np.random.default_rng(0).integers(0, 2, (3, 50))
    c = compare(a, a.copy(), shared_seeds=True)
    assert c.diff == 0 and c.lo == 0 and c.hi == 0 and c.verdict == 0


def test_sign_and_verdict_words():
    rng = np.random.default_rng(1)
    a, b = _sim(rng, delta=0.1)
    up, down = compare(a, b, names=("新", "旧")), compare(b, a, names=("旧", "新"))
    assert up.verdict == 1 and "新更高，分得开" in str(up)
    assert down.verdict == -1 and "旧更低，分得开" in str(down)
    assert up.diff == pytest.approx(-down.diff)


def test_paired_and_unpaired_agree_when_runs_share_nothing():
    widths = []
    for k in range(20):
        a, b = _sim(np.random.default_rng(100 + k), shared=False, seed_sd=0.0)
        p, u = compare(a, b), compare(a, b, shared_items=False)
        widths.append((p.hi - p.lo) / (u.hi - u.lo))
    assert 0.9 < np.mean(widths) < 1.1


def test_paired_interval_is_narrower_when_runs_are_correlated():
    a, b = _sim(np.random.default_rng(2), shared=True, seed_sd=0.0)
    p, u = compare(a, b), compare(a, b, shared_items=False)
    assert p.se_items < u.se_items / 3
    assert (p.hi - p.lo) < 0.5 * (u.hi - u.lo)


def test_pairing_seeds_removes_shared_seed_noise():
    rng = np.random.default_rng(3)
    shift = rng.normal(0, 0.05, (3, 1))      # 同一个种子让两个方法一起变好或变坏
    a = 0.6 + shift + rng.normal(0, 0.01, (3, 300))
    b = 0.58 + shift + rng.normal(0, 0.01, (3, 300))
    both, items_only = compare(a, b, shared_seeds=True), compare(a, b)
    assert both.verdict == 1 and items_only.verdict == 0
    assert both.se_seeds < items_only.se_seeds / 5


@pytest.mark.parametrize("seed_sd", [0.0, 0.03])
def test_coverage_is_about_95_percent(seed_sd):
    """已知真差 δ 的模拟数据：区间盖住 δ 的比例应接近 95%（种子少时靠 t 与 Welch 自由度）。"""
    hits, n_sim, delta = 0, 300, 0.02
    for k in range(n_sim):
        rng = np.random.default_rng(1000 + k)
        a, b = _sim(rng, n=200, delta=delta, seed_sd=seed_sd, shared=True)
        # 真差是总体期望之差：样本难度、种子偏移的期望都是 0
        c = compare(a, b, n_boot=300, seed=k)
        hits += c.lo <= delta <= c.hi
    assert 0.91 <= hits / n_sim <= 0.99


def test_spread_input_counts_seed_noise_only_and_says_so():
    c = compare(Spread((0.80, 0.82, 0.81)), Spread((0.70, 0.72, 0.71)), names=("a", "b"))
    assert c.verdict == 1 and c.se_items == 0
    assert "只计种子噪声" in str(c)


@pytest.mark.parametrize("args, exc, msg", [
    (([[1, 0]], [[1, 0, 1]]), ValueError, "评测样本数必须相同"),
    (([[np.nan, 1]], [[1, 1]]), ValueError, "NaN"),
    ((Spread((1.0,)), [[1]]), TypeError, "都是 Spread"),
    (([[[1]]], [[1]]), ValueError, "二维"),
])
def test_bad_input_says_what_is_allowed(args, exc, msg):
    with pytest.raises(exc, match=msg):
        compare(*args)


def test_shared_seeds_needs_equal_seed_counts_and_names_are_checked():
    with pytest.raises(ValueError, match="种子数必须相同"):
        compare([[1, 0], [0, 1]], [[1, 0]], shared_seeds=True)
    with pytest.raises(ValueError, match="names"):
        compare([[1]], [[1]], names=("a",))
    with pytest.raises(ValueError, match="n_boot"):
        compare([[1]], [[1]], n_boot=10)


def test_t_quantile():
    assert t975(2) == 4.303 and t975(2.9) == 4.303 and t975(float("inf")) == 1.96
    assert 1.96 < t975(60) <= 2.001
    with pytest.raises(ValueError):
        t975(0.5)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 1753])
def test_pack_correct_round_trips(n):
    bits = np.random.default_rng(n).integers(0, 2, n)
    assert np.array_equal(unpack_correct(pack_correct(bits), n), bits)
    with pytest.raises(ValueError):
        unpack_correct(pack_correct(bits), n + 9)


def test_stat_on_counts_matches_mean_for_accuracy_and_handles_f1():
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 2, (3, 300)), rng.integers(0, 2, (3, 300))
    as_counts = lambda x: np.stack([x, np.ones_like(x)], axis=-1)          # (答对, 1) → 和之比 = 准确率
    acc = lambda c: c[..., 0] / c[..., 1]
    plain, counted = compare(a, b), compare(as_counts(a), as_counts(b), stat=acc)
    assert counted.diff == pytest.approx(plain.diff)
    assert counted.se_items == pytest.approx(plain.se_items, rel=0.1)
    from nlpbook.compare import f1_from_counts
    tp = rng.integers(0, 3, (3, 200, 1))
    fp, fn = rng.integers(0, 2, (3, 200, 1)), rng.integers(0, 2, (3, 200, 1))
    c = compare(np.concatenate([tp, fp, fn], -1), np.concatenate([tp, fp + 1, fn], -1), stat=f1_from_counts)
    assert c.verdict == 1
    with pytest.raises(ValueError, match="三维"):
        compare([1, 0], [1, 1], stat=f1_from_counts)


def test_macro_f1_from_counts_matches_metrics_and_rows_unpack():
    from nlpbook import metrics
    from nlpbook.compare import binary_counts, macro_f1_from_counts, unpack_rows
    rng = np.random.default_rng(9)
    y, p = rng.integers(0, 2, 500), rng.integers(0, 2, (2, 500))
    got = macro_f1_from_counts(binary_counts(y, p).sum(axis=1))
    assert got == pytest.approx([metrics.macro_prf(y, row)["f1"] for row in p])
    assert np.array_equal(unpack_rows([pack_correct(r) for r in p], 500), p)


def test_perplexity_from_sums_is_the_pooled_perplexity():
    from nlpbook.compare import perplexity_from_sums
    nll, counts = np.array([10.0, 20.0, 5.0]), np.array([4, 6, 2])
    assert perplexity_from_sums(np.stack([nll, counts], -1).sum(0)) == pytest.approx(np.exp(35 / 12))
    a = np.stack([nll, counts], -1)
    c = compare(a, np.stack([nll + 1.0, counts], -1), stat=perplexity_from_sums, digits=1)
    assert c.diff < 0 and c.hi < 0
