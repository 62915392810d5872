"""结果的波动：多个随机种子的均值 ± 标准差、评测集上的自助法（bootstrap）区间，以及实验记录。教学位置：第 18.3 节（比较要看波动）。

一个数字不够：换一个种子、换一份测试样本，准确率都会动。这里只做三件事：
- over_seeds(fn, seeds)：对每个种子跑一次，得到 Spread（均值、样本标准差、每次的值）；
- bootstrap_ci：对评测集有放回地重抽样，得到一个指标的 95% 区间；
- 两个方法的比较不在这里：用 nlpbook.compare.compare，它按实验的设计配对，两种噪声（种子、评测样本）都算。
记录（record）是长训练脚本写下的 JSON：设置、种子、每个种子的结果、CPU 时间；notebook 读它画图，
再用 Spread.contains / live_verdict 检查现场跑的那一个种子落在记录的范围里（只印结论：现场数字的末几位因 CPU 而异）。
写记录的脚本共用 run_seeds / per_seed
（方法 × 种子跑一遍，整理成“每个指标一个列表”）、curve_metrics（学习曲线摊平成指标）和 write_record。
例：over_seeds(lambda s: [0.80, 0.82, 0.81][s], [0, 1, 2]) -> Spread(mean=0.81, sd=0.01, n=3)
"""
from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Spread", "over_seeds", "bootstrap_ci", "live_verdict", "record_path",
           "save_record", "dumps_record", "load_record", "per_seed", "run_seeds", "curve_metrics", "write_record"]

RECORDS = Path(__file__).resolve().parent / "records"

# 双侧 95% 的 t 分位数（自由度 1..30）；更大的自由度用 1.96。只用 numpy，不依赖 scipy。
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def _t975(df: int) -> float:
    return _T975[df - 1] if df <= len(_T975) else 1.96


@dataclass(frozen=True)
class Spread:
    """同一设置跑多次（多个种子）的结果：values 是每次的值；mean 与 sd（样本标准差，ddof=1）由它算出。"""
    values: tuple
    seeds: tuple = field(default=())

    def __post_init__(self):
        vals = tuple(float(v) for v in self.values)
        if not vals:
            raise ValueError("Spread 至少需要一个值")
        if not all(math.isfinite(v) for v in vals):
            raise ValueError(f"Spread 的值必须是有限数，收到 {vals}")
        if self.seeds and len(self.seeds) != len(vals):
            raise ValueError(f"seeds 与 values 长度不同：{len(self.seeds)} 对 {len(vals)}")
        object.__setattr__(self, "values", vals)
        object.__setattr__(self, "seeds", tuple(self.seeds))

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    @property
    def sd(self) -> float:
        return float(np.std(self.values, ddof=1)) if self.n > 1 else 0.0

    def interval(self) -> tuple[float, float]:
        """均值的 95% t 区间：mean ± t(0.975, n−1)·sd/√n；只有一个值时区间退化成这个值。"""
        if self.n == 1:
            return (self.mean, self.mean)
        half = _t975(self.n - 1) * self.sd / math.sqrt(self.n)
        return (self.mean - half, self.mean + half)

    def range(self, n_sd: float = 2.0, slack: float = 0.0) -> tuple[float, float]:
        """记录的范围 [min − n_sd·sd − slack, max + n_sd·sd + slack]：现场跑的一个种子应当落在里面。

        slack：另加的余量，给换一种 CPU（BLAS 内核）时同一个种子实测会差出的幅度（种子间波动很小时它才要紧）。
        """
        if not slack >= 0:
            raise ValueError(f"slack 必须是非负数，收到 {slack!r}")
        pad = n_sd * self.sd + slack
        return (min(self.values) - pad, max(self.values) + pad)

    def contains(self, x: float, n_sd: float = 2.0, slack: float = 0.0) -> bool:
        """x 是否落在记录的范围里（见 range）。用来检查现场跑的一个种子与记录一致。"""
        lo, hi = self.range(n_sd, slack)
        return lo <= float(x) <= hi

    def format(self, digits: int = 3) -> str:
        """'0.812 ± 0.006（3 个种子）'。"""
        return f"{self.mean:.{digits}f} ± {self.sd:.{digits}f}（{self.n} 个种子）"

    def __str__(self) -> str:
        return self.format()


def _check_seeds(seeds) -> tuple:
    seeds = tuple(seeds)
    if not seeds:
        raise ValueError("seeds 不能为空")
    if any(not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 0 for s in seeds):
        raise ValueError(f"seeds 必须是非负整数，收到 {seeds}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds 不能重复，收到 {seeds}")
    return seeds


def over_seeds(fn, seeds) -> Spread:
    """对每个种子调用 fn(seed)（返回一个数），收集成 Spread。种子必须是互不相同的非负整数。"""
    seeds = _check_seeds(seeds)
    return Spread(tuple(float(fn(int(s))) for s in seeds), tuple(int(s) for s in seeds))


def _check_boot(n_boot: int, level: float):
    if not isinstance(n_boot, (int, np.integer)) or isinstance(n_boot, bool) or n_boot < 100:
        raise ValueError(f"n_boot 必须是不小于 100 的整数，收到 {n_boot!r}")
    if not 0 < level < 1:
        raise ValueError(f"level 必须在 (0, 1) 之间，收到 {level!r}")


def _as_arrays(*arrays):
    out = [np.asarray(a) for a in arrays]
    n = len(out[0])
    if n == 0:
        raise ValueError("评测集不能为空")
    if any(a.ndim != 1 or len(a) != n for a in out):
        raise ValueError(f"y_true 与预测必须是等长的一维数组，收到形状 {[a.shape for a in out]}")
    return out


def _accuracy(t, p):
    return float(np.mean(t == p))


def bootstrap_ci(y_true, y_pred, metric=None, n_boot: int = 1000, seed: int = 0, level: float = 0.95):
    """指标在评测集上的自助法区间：返回 (点估计, 下界, 上界)。

    每次有放回地抽 len(y_true) 个样本，算一次 metric(y_true[idx], y_pred[idx])（默认准确率），
    取这些值的 (1−level)/2 与 (1+level)/2 分位数。区间反映的是“换一份同样大小的测试集”会带来的波动。
    """
    _check_boot(n_boot, level)
    t, p = _as_arrays(y_true, y_pred)
    metric = metric or _accuracy
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(t), size=(n_boot, len(t)))
    stats = np.array([metric(t[i], p[i]) for i in idx])
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return float(metric(t, p)), float(lo), float(hi)


def live_verdict(checks: dict, who: str = "现场这一次", slack: float = 0.0) -> str:
    """现场跑的结果是否落在记录的范围里，写成几行话；checks 是 {名字: (现场的值, 记录的 Spread)}。
    slack 给每一项的范围两端另加的余量（见 Spread.range），非零时在结论里写明。

    教学位置：第 8.4 节（现场跑一个种子，对照记录）。只印结论和记录的范围，不印现场的数字：训练会把
    不同 CPU 上 BLAS 内核的舍入差别放大，现场数字的末几位因机器而异（docs/teaching.md 的“每台机器上的数字”），
    结论（落在范围里）在各种内核上都成立，由测试检查。不在范围里时说明这意味着什么，而不是报错。
    例：live_verdict({"准确率": (0.81, Spread([0.80, 0.82]))}) -> '现场这一次落在记录的范围里：\n  准确率：是（范围 0.772—0.848）'
    """
    if not isinstance(checks, dict) or not checks:
        raise TypeError("checks 必须是非空的 {名字: (现场的值, Spread)} 字典")
    lines, outside = [], []
    for name, pair in checks.items():
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], Spread)):
            raise TypeError(f"checks[{name!r}] 必须是 (现场的值, Spread)，收到 {pair!r}")
        live, spread = float(pair[0]), pair[1]
        if not math.isfinite(live):
            raise ValueError(f"checks[{name!r}] 的现场值不是有限数：{live}")
        lo, hi = spread.range(slack=slack)
        ok = spread.contains(live, slack=slack)
        if not ok:
            outside.append(name)
        lines.append(f"  {name}：{'是' if ok else '否'}（范围 {lo:.3f}—{hi:.3f}）")
    note = [f"（范围两端各多留了 {slack:g}：换一种 CPU 时同一个种子实测会差出这么多）"] if slack else []
    if not outside:
        return "\n".join([f"{who}落在记录的范围里："] + lines + note)
    return "\n".join([f"{who}有 {len(outside)} 项不在记录的范围里（范围 = 各种子的最小值 − 2 个标准差 到 最大值 + 2 个标准差）："]
                     + lines + note + ["这说明这次训练走上了和记录不同的路：换一种 CPU（BLAS 内核）或库版本时可能发生，"
                                "差别通常与换一个种子同量级。结论以记录里的多个种子为准；如果每一项都差得很远，"
                                "请检查是否改过上面的设置。"])


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"记录里不能有 NaN 或无穷大：{x}")
    return x


def record_path(name: str) -> Path:
    """随包附带的实验记录的路径：nlpbook/records/<name>.json（由 scripts/ 下的长训练脚本写出）。"""
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"记录名必须是不含路径分隔符的非空字符串，收到 {name!r}")
    return RECORDS / f"{name}.json"


def save_record(path, *, name: str, settings: dict, seeds, results: dict, cpu_seconds: float) -> dict:
    """写一条实验记录（JSON，键排好序、缩进 1，便于在 git 里看差异）并返回它。

    results: 方法名 → 每个种子的值的列表（与 seeds 等长），或 → {指标名: 列表}。
    """
    seeds = [int(s) for s in seeds]
    for method, res in results.items():
        lists = res.values() if isinstance(res, dict) else [res]
        for vals in lists:
            if len(vals) != len(seeds):
                raise ValueError(f"{method} 的结果有 {len(vals)} 个，种子有 {len(seeds)} 个")
    rec = _jsonable({"name": name, "settings": settings, "seeds": seeds, "results": results,
                     "cpu_seconds": round(float(cpu_seconds), 1)})
    Path(path).write_text(dumps_record(rec), encoding="utf-8")
    return rec


def dumps_record(rec: dict) -> str:
    """记录的 JSON 文本：键排好序、缩进 1；只含数和字符串的列表写在一行（逐条结果很长，一行一个数会让文件膨胀十倍）。"""
    text = json.dumps(rec, ensure_ascii=False, indent=1, sort_keys=True)
    flat = re.compile(r"\[\n\s*([^\[\]{}\n]*(?:,\n\s*[^\[\]{}\n]*)*)\n\s*\]")
    return flat.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",\n")) + "]", text) + "\n"


def per_seed(rows) -> dict:
    """每个种子一次运行的指标 [{指标: 值}, …]（与种子同序）→ {指标: [各种子的值]}，即记录里一个方法的结果。

    教学位置：第 18.3 节（多种子记录）。每次运行的指标名必须相同。
    例：per_seed([{'acc': 0.80, 'f1': 0.7}, {'acc': 0.82, 'f1': 0.8}]) -> {'acc': [0.80, 0.82], 'f1': [0.7, 0.8]}
    """
    rows = list(rows)
    if not rows or not all(isinstance(r, dict) for r in rows):
        raise ValueError("rows 必须是非空的列表，每个种子一个 {指标: 值} 字典")
    names = list(rows[0])
    for k, r in enumerate(rows):
        if set(r) != set(names):
            raise ValueError(f"第 {k} 次运行的指标 {sorted(r)} 与第 0 次的 {sorted(names)} 不同")
    return {n: [r[n] for r in rows] for n in names}


def run_seeds(methods, seeds, run_one, report=None) -> dict:
    """对每个方法、每个种子调用 run_one(方法, 种子) → {指标: 值}，收集成 {方法: {指标: [各种子的值]}}。

    教学位置：第 18.3 节。方法在外层循环、种子在内层；report(方法, 种子, 指标字典) 每跑完一次调用（打印进度）。
    结果可以直接交给 save_record / write_record 的 results。
    例：run_seeds(['A'], [0, 1], lambda m, s: {'acc': 0.8 + s / 100}) -> {'A': {'acc': [0.8, 0.81]}}
    """
    seeds = _check_seeds(seeds)
    if not callable(run_one) or (report is not None and not callable(report)):
        raise TypeError("run_one（与 report）必须是函数：run_one(方法, 种子) → {指标: 值}")
    out = {}
    for method in methods:
        rows = []
        for seed in seeds:
            rows.append(run_one(method, int(seed)))
            if report is not None:
                report(method, int(seed), rows[-1])
        out[method] = per_seed(rows)
    return out


def curve_metrics(history, names, at: str = "step", fmt: str = "{name}@{at}", digits: int | None = None) -> dict:
    """一次运行的学习曲线摊平成指标：history 每行一个字典（带 at 键，如 'step' 或 'epoch'）。

    教学位置：第 18.3 节。names 是要取的键，或 {键: 记录里的名字}；某行没有这个键就跳过。
    指标名按 fmt 拼出（默认 'val_acc@100'）；digits 给出时四舍五入到这么多位小数。
    例：curve_metrics([{'step': 50, 'val_acc': 0.6}, {'step': 100, 'val_acc': 0.7}], ['val_acc'])
        -> {'val_acc@50': 0.6, 'val_acc@100': 0.7}
    """
    names = dict(names) if isinstance(names, dict) else {n: n for n in names}
    out = {}
    for row in history:
        if at not in row:
            raise ValueError(f"学习曲线的每一行都要有 {at!r}，收到 {row!r}")
        for key, name in names.items():
            if key in row:
                out[fmt.format(name=name, at=row[at])] = row[key] if digits is None else round(row[key], digits)
    return out


def write_record(name: str, *, settings: dict, seeds, results: dict, cpu_start: float, extra_cpu: float = 0.0,
                 path=None) -> dict:
    """写一条实验记录到 record_path(name)（或 path）：CPU 时间 = 现在的 time.process_time() − cpu_start
    + extra_cpu（子进程用掉的 CPU 秒数）。返回写下的记录（同 save_record）。教学位置：第 18.3 节。

    例：t0 = time.process_time(); …训练…; write_record('textcnn_reviews', settings=…, seeds=…, results=…, cpu_start=t0)
    """
    cpu = time.process_time() - cpu_start + extra_cpu
    return save_record(record_path(name) if path is None else path, name=name, settings=settings, seeds=seeds,
                       results=results, cpu_seconds=cpu)


def load_record(path) -> dict:
    """读一条实验记录；results 里每个数的列表换成 Spread（带上种子），字符串的列表（逐条结果）留作元组。"""
    rec = json.loads(Path(path).read_text(encoding="utf-8"))
    for key in ("name", "settings", "seeds", "results", "cpu_seconds"):
        if key not in rec:
            raise ValueError(f"{path} 不是实验记录：缺少 {key!r}")
    seeds = tuple(rec["seeds"])

    def spread(vals):
        # 逐条结果（compare.pack_correct 压成的字符串，每个种子一个）原样留作元组，其余是数，变成 Spread
        return tuple(vals) if vals and all(isinstance(v, str) for v in vals) else Spread(tuple(vals), seeds)
    rec["results"] = {m: ({k: spread(v) for k, v in r.items()} if isinstance(r, dict) else spread(r))
                      for m, r in rec["results"].items()}
    return rec
