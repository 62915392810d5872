"""nlpbook.spread：种子上的均值 ± 标准差、自助法区间、配对比较、实验记录。"""
import json
import math

import numpy as np
import pytest

from nlpbook.metrics import accuracy
from nlpbook.spread import Spread, bootstrap_ci, live_verdict, load_record, over_seeds, record_path, save_record


def test_over_seeds_mean_and_sample_sd():
    s = over_seeds(lambda seed: [0.80, 0.82, 0.81][seed], [0, 1, 2])
    assert s.seeds == (0, 1, 2)
    assert s.mean == pytest.approx(0.81)
    assert s.sd == pytest.approx(0.01)          # ddof=1
    assert s.format() == "0.810 ± 0.010（3 个种子）"


def test_interval_uses_t_quantile():
    s = Spread((1.0, 2.0, 3.0))
    lo, hi = s.interval()
    half = 4.303 * 1.0 / math.sqrt(3)
    assert (lo, hi) == pytest.approx((2 - half, 2 + half))
    assert Spread((5.0,)).interval() == (5.0, 5.0)
    assert Spread((5.0,)).sd == 0.0


def test_contains_range_with_slack():
    s = Spread((0.80, 0.82))
    assert s.contains(0.81) and s.contains(0.80)
    sd = s.sd
    assert s.contains(0.82 + 1.9 * sd) and not s.contains(0.82 + 2.1 * sd)
    assert not s.contains(0.70)


@pytest.mark.parametrize("bad", [[], [0, 0], [-1], [1.5], [True]])
def test_over_seeds_rejects_bad_seeds(bad):
    with pytest.raises(ValueError, match="seeds"):
        over_seeds(lambda s: 0.0, bad)


def test_spread_rejects_nan_and_mismatched_seeds():
    with pytest.raises(ValueError, match="有限数"):
        Spread((0.1, float("nan")))
    with pytest.raises(ValueError, match="长度"):
        Spread((0.1, 0.2), (0,))
    with pytest.raises(ValueError, match="至少"):
        Spread(())


def test_range_is_min_and_max_widened_by_two_sd():
    s = Spread([0.80, 0.82, 0.81])
    lo, hi = s.range()
    assert lo == pytest.approx(0.80 - 2 * s.sd) and hi == pytest.approx(0.82 + 2 * s.sd)
    assert Spread([0.5]).range() == (0.5, 0.5)


def test_live_verdict_says_inside_without_printing_the_live_digits():
    rec = Spread([0.80, 0.82, 0.81])
    text = live_verdict({"准确率": (0.8137, rec), "F1": (0.79, rec)})
    assert text.splitlines() == ["现场这一次落在记录的范围里：", "  准确率：是（范围 0.780—0.840）",
                                 "  F1：是（范围 0.780—0.840）"]
    assert "0.8137" not in text and "0.814" not in text and "0.79" not in text   # 现场的数字因机器而异，不印


def test_live_verdict_outside_explains_instead_of_failing():
    rec = Spread([0.80, 0.82, 0.81])
    text = live_verdict({"准确率": (0.70, rec), "F1": (0.81, rec)}, who="现场的种子 0 ")
    assert text.startswith("现场的种子 0 有 1 项不在记录的范围里")
    assert "  准确率：否（范围 0.780—0.840）" in text and "  F1：是" in text
    assert "换一种 CPU" in text and "多个种子" in text


@pytest.mark.parametrize("checks, exc", [({}, TypeError), (None, TypeError), ({"a": 0.8}, TypeError),
                                          ({"a": (0.8, [0.8])}, TypeError),
                                          ({"a": (float("nan"), Spread([0.8]))}, ValueError)])
def test_live_verdict_rejects_bad_input(checks, exc):
    with pytest.raises(exc):
        live_verdict(checks)


def test_bootstrap_ci_contains_point_and_shrinks_with_n():
    rng = np.random.default_rng(0)
    def widths(n):
        t = rng.integers(0, 2, n)
        p = np.where(rng.random(n) < 0.8, t, 1 - t)
        point, lo, hi = bootstrap_ci(t, p, seed=1)
        assert lo <= point <= hi
        assert point == accuracy(t, p)
        return hi - lo
    w100, w2500 = widths(100), widths(2500)
    assert w2500 < w100 / 3          # 宽度约按 1/√n 缩小：√25 = 5
    # 二项分布的近似：宽度 ≈ 2·1.96·√(p(1−p)/n)
    assert w2500 == pytest.approx(2 * 1.96 * math.sqrt(0.8 * 0.2 / 2500), rel=0.2)


def test_bootstrap_is_deterministic_and_takes_a_metric():
    t = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    p = np.array([0, 1, 0, 0, 1, 1, 1, 1])
    assert bootstrap_ci(t, p, seed=3) == bootstrap_ci(t, p, seed=3)
    point, lo, hi = bootstrap_ci(t, p, metric=lambda a, b: float(np.sum(a != b)), seed=0)
    assert point == 2.0 and lo <= 2.0 <= hi


@pytest.mark.parametrize("kwargs, msg", [({"n_boot": 10}, "n_boot"), ({"level": 1.0}, "level")])
def test_bootstrap_rejects_bad_settings(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        bootstrap_ci([0, 1], [0, 1], **kwargs)


def test_bootstrap_rejects_bad_shapes():
    with pytest.raises(ValueError, match="等长"):
        bootstrap_ci([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="不能为空"):
        bootstrap_ci([], [])


def test_record_round_trip(tmp_path):
    path = tmp_path / "r.json"
    rec = save_record(path, name="demo", settings={"lr": 0.01, "epochs": np.int64(3)}, seeds=[0, 1, 2],
                      results={"a": [0.8, 0.81, 0.82], "b": {"acc": [0.7, 0.71, 0.72], "f1": [0.6, 0.6, 0.6]}},
                      cpu_seconds=12.345)
    assert rec["cpu_seconds"] == 12.3 and rec["settings"]["epochs"] == 3
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == rec
    back = load_record(path)
    assert back["results"]["a"].mean == pytest.approx(0.81)
    assert back["results"]["a"].seeds == (0, 1, 2)
    assert back["results"]["b"]["f1"].sd == 0.0


def test_record_rejects_mismatch_and_nan(tmp_path):
    with pytest.raises(ValueError, match="种子"):
        save_record(tmp_path / "r.json", name="x", settings={}, seeds=[0, 1], results={"a": [1.0]}, cpu_seconds=1)
    with pytest.raises(ValueError, match="NaN"):
        save_record(tmp_path / "r.json", name="x", settings={"lr": float("nan")}, seeds=[0], results={"a": [1.0]},
                    cpu_seconds=1)
    (tmp_path / "bad.json").write_text('{"name": "x"}', encoding="utf-8")
    with pytest.raises(ValueError, match="不是实验记录"):
        load_record(tmp_path / "bad.json")


@pytest.mark.parametrize("bad", ["", "../x", "a/b", ".hidden", 3])
def test_record_path_rejects_paths(bad):
    with pytest.raises(ValueError):
        record_path(bad)


def test_record_path_points_into_package():
    p = record_path("rnn_reviews")
    assert p.name == "rnn_reviews.json" and p.parent.name == "records" and p.parent.parent.name == "nlpbook"


def test_range_slack_widens_both_ends_and_is_stated():
    s = Spread((0.80, 0.81, 0.82))
    lo, hi = s.range()
    assert s.range(slack=0.04) == pytest.approx((lo - 0.04, hi + 0.04))
    assert not s.contains(0.75) and s.contains(0.75, slack=0.04)
    text = live_verdict({"准确率": (0.75, s)}, slack=0.04)
    assert "是" in text and "多留了 0.04" in text
    with pytest.raises(ValueError, match="slack"):
        s.range(slack=-1)


def test_dumps_record_puts_flat_lists_on_one_line_and_round_trips():
    from nlpbook.spread import dumps_record
    rec = {"b": [1, 2.5, "x, y"], "a": {"c": [[1, 2], [3]], "d": []}}
    text = dumps_record(rec)
    assert json.loads(text) == rec and text.endswith("\n")
    assert '[1, 2.5, "x, y"]' in text and "[1, 2]" in text
