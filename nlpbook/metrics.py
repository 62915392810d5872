"""分类评价指标：准确率、混淆矩阵、每个类别的精确率/召回率/F1，以及它们的宏平均（macro）。

输入是两串等长的标签（真实标签 y_true、预测标签 y_pred），标签可以是整数、布尔或字符串。
分母为零的约定（与 tagging.entity_prf 一致）：某类从没被预测过时，它的精确率记为 0；
某类在真实标签里没出现过时，它的召回率记为 0；P + R = 0 时 F1 记为 0。
宏平均是各类指标的简单平均（每类同等重要，不按样本数加权）；宏 F1 = 各类 F1 的平均，
不是“宏 P 与宏 R 的调和平均”。
不做的事：不算概率类指标（AUC、校准）、不做置信区间、不处理多标签（一个样本多个标签）。
"""
from __future__ import annotations

import numpy as np

__all__ = ["accuracy", "confusion_matrix", "per_class_prf", "macro_prf"]


def _labels_array(y, name: str) -> np.ndarray:
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{name} 必须是标签的序列（列表或一维数组），收到一个字符串 {y!r}")
    if not isinstance(y, np.ndarray):
        y = list(y)
        if len({isinstance(v, str) for v in y}) > 1:
            raise TypeError(f"{name} 里混有字符串和非字符串标签（如 0 和 '0'），无法比较；请统一成一种")
    a = np.asarray(y)
    if a.ndim != 1:
        raise ValueError(f"{name} 必须是一维的标签序列，收到形状 {a.shape}")
    if a.size == 0:
        return a.astype(np.int64)  # 空序列由 _pair 报“不能为空”
    if a.dtype.kind not in "biuUO":
        raise TypeError(f"{name} 的标签必须是整数、布尔或字符串，收到 dtype {a.dtype}"
                        "（概率请先按阈值转成类别，例如 (p >= 0.5).astype(int)）")
    if a.dtype.kind == "O" and not all(isinstance(v, (str, int, np.integer)) and not isinstance(v, bool)
                                       for v in a.tolist()):
        raise TypeError(f"{name} 的标签必须是整数或字符串")
    return a.astype(int) if a.dtype.kind == "b" else a


def _pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    t, p = _labels_array(y_true, "y_true"), _labels_array(y_pred, "y_pred")
    if len(t) and len(p) and (t.dtype.kind == "U") != (p.dtype.kind == "U"):
        raise TypeError("y_true 与 y_pred 一个是字符串标签、一个是数字标签，无法比较；请统一成一种")
    if len(t) != len(p):
        raise ValueError(f"y_true 有 {len(t)} 个标签，y_pred 有 {len(p)} 个；两者必须一样长")
    if len(t) == 0:
        raise ValueError("y_true 和 y_pred 不能为空：没有样本就没有可评价的东西")
    return t, p


def _label_list(t: np.ndarray, p: np.ndarray, labels) -> list:
    seen = list(dict.fromkeys(t.tolist() + p.tolist()))  # 去重，保留首次出现的顺序
    if labels is None:
        try:
            return sorted(seen)
        except TypeError as exc:
            raise TypeError("标签里混有整数和字符串，无法排序；请用 labels 明确给出类别顺序") from exc
    if isinstance(labels, (str, bytes)):
        raise TypeError("labels 必须是类别的列表，例如 [0, 1]，收到一个字符串")
    labels = list(labels)
    if not labels:
        raise ValueError("labels 不能为空")
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels 里有重复的类别：{labels}")
    missing = [v for v in seen if v not in labels]
    if missing:
        raise ValueError(f"标签 {missing[:3]} 出现在 y_true 或 y_pred 里，但不在 labels={labels} 中")
    return labels


def accuracy(y_true, y_pred) -> float:
    """准确率 = 预测与真实标签相同的样本数 / 样本总数。

    教学位置：第 18.4 节（方法比较的第一个指标）；第 4 章在验证集上已经用过。
    例：accuracy([1, 0, 1, 1], [1, 1, 1, 0]) -> 0.5
    """
    t, p = _pair(y_true, y_pred)
    return float(np.mean(t == p))


def confusion_matrix(y_true, y_pred, labels=None) -> np.ndarray:
    """混淆矩阵 C：C[i, j] = 真实为 labels[i]、被预测为 labels[j] 的样本数（行 = 真实，列 = 预测）。

    教学位置：第 18 章（最终测试报告）。labels 缺省为出现过的全部标签（排序后）。
    对角线是判对的，每行之和是该类的真实样本数，每列之和是被预测成该类的次数。
    例：confusion_matrix([1, 0, 1, 1], [1, 1, 1, 0]) -> [[0, 1], [1, 2]]
    """
    t, p = _pair(y_true, y_pred)
    labels = _label_list(t, p, labels)
    index = {v: i for i, v in enumerate(labels)}
    k = len(labels)
    ti = np.array([index[v] for v in t.tolist()], dtype=np.int64)
    pi = np.array([index[v] for v in p.tolist()], dtype=np.int64)
    return np.bincount(ti * k + pi, minlength=k * k).reshape(k, k)


def per_class_prf(y_true, y_pred, labels=None) -> dict:
    """每个类别各自的精确率、召回率、F1 与支持数（该类真实样本数），按 labels 的顺序。

    教学位置：第 18 章；与第 16.4 节相同的定义，只是“实体”换成“某一类的样本”：
    精确率 = 判成该类且判对的 / 判成该类的；召回率 = 判成该类且判对的 / 真实属于该类的；
    F1 = 2PR / (P + R)。分母为零时记为 0（见模块说明）。
    返回 dict(labels, precision, recall, f1, support)，后四项是与 labels 等长的数组。
    例：per_class_prf([1, 0, 1, 1], [1, 1, 1, 0])['precision'] -> [0.0, 0.667]
    """
    t, p = _pair(y_true, y_pred)
    labels = _label_list(t, p, labels)
    cm = confusion_matrix(t, p, labels).astype(float)
    tp = np.diag(cm)
    predicted, actual = cm.sum(axis=0), cm.sum(axis=1)
    prec = np.divide(tp, predicted, out=np.zeros_like(tp), where=predicted > 0)
    rec = np.divide(tp, actual, out=np.zeros_like(tp), where=actual > 0)
    denom = prec + rec
    f1 = np.divide(2 * prec * rec, denom, out=np.zeros_like(tp), where=denom > 0)
    return {"labels": labels, "precision": prec, "recall": rec, "f1": f1, "support": actual.astype(np.int64)}


def macro_prf(y_true, y_pred, labels=None) -> dict:
    """宏平均：各类精确率、召回率、F1 的简单平均，返回 dict(precision, recall, f1)。

    教学位置：第 18 章（验证集上选方法时与准确率并列报告）。每类同等重要：
    全判多数类的模型准确率可能不低，但少数类的 P、R、F1 都是 0，宏 F1 会把它揭穿。
    labels 明确给出时，全部类别都参与平均（包括一次都没出现的类别，它的三项都记 0）。
    例：macro_prf([1, 0, 1, 1], [1, 1, 1, 0])['f1'] -> 0.333（两类 F1 为 0 与 0.667）
    """
    r = per_class_prf(y_true, y_pred, labels)
    return {k: float(np.mean(r[k])) for k in ("precision", "recall", "f1")}
