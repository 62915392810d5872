"""检索（第 17.4 节 RAG 的“找资料”一步）：向量打分排序，以及在文本段落上的 TF-IDF / BM25 检索。

- rank：给定问题向量和文档向量矩阵，按点积或余弦排序，分数相同按文档编号从小到大（确定性）。
- TfidfRetriever：在一组 (段落编号, 文本) 上拟合 IDF，按 TF-IDF 余弦（默认）或 BM25 打分。
- notebook_sections：把一个 Jupyter notebook 的 markdown 按标题切成段落，供检索本课程自己的 notebook。
不做的事：不训练向量、不做重排（rerank），也不调用任何语言模型生成回答；
默认分词只按字和相邻两字切（不导入 jieba，需要词级检索时把 jieba_cut 传给 fit）。
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ._checks import as_float_array, check_positive, check_tokens
from .sparse import CountMatrix
from .text import Vocab, document_frequency, idf

__all__ = ["order_by_score", "rank", "char_bigram_tokenize", "TfidfRetriever", "notebook_sections"]

_TIE_DIGITS = 12  # 相对差在 1e-12 以内的分数算“相同”：数学上相等的分数，浮点末位常常不同


def order_by_score(scores, k: int | None = None) -> np.ndarray:
    """分数从高到低的下标（至多 k 个）；分数相同时下标小的在前。教学位置：第 17.4 节、第 6 章（近邻）。

    “相同”按相对大小判断：先除以最大的绝对值，再保留 12 位小数比较。这样，一段文字和它重复三遍的版本
    余弦数学上相等、浮点末位不同时，仍按下标排序。rank、TfidfRetriever.search 与 embedding.nearest 共用它。
    例：order_by_score([0.1 + 0.2, 0.3, 0.5]) -> [2, 0, 1]（0.1 + 0.2 比 0.3 大 5.6e-17，算作相同）
    """
    s = np.asarray(scores, dtype=float).reshape(-1)
    finite = np.abs(s[np.isfinite(s)])
    scale = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    order = np.lexsort((np.arange(s.size), -np.round(s / scale, _TIE_DIGITS)))
    return order if k is None else order[:k]


def rank(query_vec, doc_matrix, metric: str = "dot", k: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """按与问题向量的相似度给文档排序，返回 (文档编号, 分数)，分数从高到低。

    教学位置：第 17.4 节。例：问题 [1, 0]，文档 [0.9, 0.1]、[0.1, 0.9]，点积 → 编号 [0, 1]、分数 [0.9, 0.1]。
    metric：'dot'（点积，不做长度归一化）或 'cosine'（余弦）。余弦下问题向量为零向量时报错，
    文档为零向量时该文档的分数记为 0。k 为返回条数（None 为全部；大于文档数时返回全部）。
    分数相同时编号小的在前（相对差 1e-12 以内算相同，见 order_by_score）。
    """
    q = as_float_array(query_vec, "query_vec")
    D = as_float_array(doc_matrix, "doc_matrix")
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"query_vec 必须是非空的一维向量，收到形状 {q.shape}")
    if D.ndim != 2 or D.shape[1] != q.size:
        raise ValueError(f"doc_matrix 必须是 (文档数, {q.size}) 的二维数组（与问题向量同维），收到形状 {D.shape}")
    if metric not in ("dot", "cosine"):
        raise ValueError(f"metric 只能是 'dot' 或 'cosine'，收到 {metric!r}")
    if k is not None:
        check_positive(k, "k", integer=True)
    scores = D @ q
    if metric == "cosine":
        qn = np.linalg.norm(q)
        if qn == 0:
            raise ValueError("问题向量是零向量，余弦相似度无定义")
        dn = np.linalg.norm(D, axis=1)
        scores = np.divide(scores, dn * qn, out=np.zeros_like(scores), where=dn > 0)
    order = order_by_score(scores, k)
    return order, scores[order]


_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # 汉字（含扩展 A 与兼容区）
_RUNS = re.compile(f"[{_HAN}]+|[^\\W_{_HAN}]+")
_CJK = re.compile(f"[{_HAN}]")


def char_bigram_tokenize(text: str) -> list[str]:
    """默认分词：汉字连续段切成单字加相邻两字；字母数字连续段整体作为一个词（转小写）；标点和空白丢弃。

    教学位置：第 17.4 节（关键词匹配式检索）。例：'命名实体 NER' → ['命', '名', '实', '体', '命名', '名实', '实体', 'ner']
    """
    if not isinstance(text, str):
        raise TypeError(f"text 必须是字符串，收到 {type(text).__name__}")
    out = []
    for run in _RUNS.findall(text.lower()):
        if _CJK.match(run):
            out.extend(run)
            out.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


class TfidfRetriever:
    """在文本段落上做关键词检索。教学位置：第 17.4 节。

    method='tfidf'（默认）：TF 为原始次数，IDF 用课文的 ln(N/df)（text.idf，在这些段落上拟合），
      分数是问题与段落 TF-IDF 向量的余弦。所有段落都含有的词 IDF 为 0，不起作用。
    method='bm25'：Okapi BM25，IDF = ln(1 + (N − df + 0.5)/(df + 0.5))，k1、b 为常用默认值；
      词频饱和、按段落长度归一化，分数不在 0—1 之间。
    例：r = TfidfRetriever().fit([('16.2', '实体 BIO 标签'), ('17.4', '检索 RAG')]); r.search('命名实体') → [('16.2', …)]
    """

    def __init__(self, method: str = "tfidf", k1: float = 1.5, b: float = 0.75):
        if method not in ("tfidf", "bm25"):
            raise ValueError(f"method 只能是 'tfidf' 或 'bm25'，收到 {method!r}")
        check_positive(k1, "k1", allow_zero=True)
        check_positive(b, "b", allow_zero=True)
        if b > 1:
            raise ValueError(f"b 必须在 [0, 1] 之间，收到 {b}")
        self.method, self.k1, self.b = method, float(k1), float(b)
        self.ids: list = []
        self.vocab: Vocab | None = None

    def fit(self, sections, tokenize: Callable[[str], list] | None = None) -> "TfidfRetriever":
        """sections 是 [(段落编号, 文本)]；tokenize 把文本切成 token 列表（缺省为 char_bigram_tokenize）。"""
        self.tokenize = char_bigram_tokenize if tokenize is None else tokenize
        if not callable(self.tokenize):
            raise TypeError("tokenize 必须是函数：文本 → token 列表")
        if isinstance(sections, (str, dict)):
            raise TypeError("sections 必须是 (段落编号, 文本) 对的列表")
        sections = list(sections)
        if not sections:
            raise ValueError("sections 不能为空：至少需要一个段落")
        ids, docs = [], []
        for k, item in enumerate(sections):
            if not isinstance(item, (tuple, list)) or len(item) != 2 or not isinstance(item[1], str):
                raise TypeError(f"第 {k} 个段落必须是 (段落编号, 文本字符串)，收到 {item!r}")
            ids.append(item[0])
            docs.append(check_tokens(self.tokenize(item[1]), "tokenize 的输出"))
        self.ids = ids
        self.vocab = Vocab([t for d in docs for t in d])
        n = len(docs)
        if self.method == "tfidf":
            self.idf = idf(docs)
        else:
            df = document_frequency(docs)
            self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self._weights = np.array([self.idf[t] for t in self.vocab.itos])
        self._counts = CountMatrix.from_docs(docs, self.vocab)
        self._lengths = np.array([len(d) for d in docs], dtype=float)
        tfidf = CountMatrix.from_docs(docs, self.vocab, weights=self.idf)
        rows = np.repeat(np.arange(n), np.diff(tfidf.indptr))
        self._norms = np.sqrt(np.bincount(rows, weights=tfidf.data * tfidf.data, minlength=n))
        self._tfidf = tfidf
        return self

    def scores(self, query: str) -> np.ndarray:
        """问题对每个段落的分数，形状 (段落数,)，与 fit 时的顺序一致。"""
        if self.vocab is None:
            raise RuntimeError("请先调用 fit(sections) 再检索")
        if not isinstance(query, str):
            raise TypeError(f"query 必须是字符串，收到 {type(query).__name__}")
        q = np.zeros(len(self.vocab))
        for t in check_tokens(self.tokenize(query), "tokenize 的输出"):
            j = self.vocab.stoi.get(t)
            if j is not None:
                q[j] += 1.0
        if self.method == "tfidf":
            qv = q * self._weights
            qn = np.linalg.norm(qv)
            if qn == 0:
                return np.zeros(len(self.ids))
            dots = self._tfidf.dot(qv)
            return np.divide(dots, self._norms * qn, out=np.zeros_like(dots), where=self._norms > 0)
        # BM25：Σ_查询词 idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))；查询里重复的词按次数计
        C = self._counts
        rows = np.repeat(np.arange(C.shape[0]), np.diff(C.indptr))
        tf = C.data
        norm = self.k1 * (1 - self.b + self.b * self._lengths / max(self._lengths.mean(), 1e-12))
        contrib = q[C.indices] * self._weights[C.indices] * tf * (self.k1 + 1) / (tf + norm[rows])
        return np.bincount(rows, weights=contrib, minlength=C.shape[0])

    def search(self, query: str, k: int = 3) -> list[tuple]:
        """最相关的至多 k 个段落 [(段落编号, 分数)]，分数从高到低、相同按 fit 顺序。

        分数为 0 的段落（与问题没有共同的有效词）不返回，所以结果可能少于 k 条，甚至为空。
        """
        check_positive(k, "k", integer=True)
        s = self.scores(query)
        return [(self.ids[i], float(s[i])) for i in order_by_score(s, k) if s[i] > 0]


def _load_nb(path_or_nb_json):
    if isinstance(path_or_nb_json, dict):
        return path_or_nb_json, None
    if isinstance(path_or_nb_json, str) and path_or_nb_json.lstrip().startswith("{"):
        return json.loads(path_or_nb_json), None
    if isinstance(path_or_nb_json, (str, Path)):
        p = Path(path_or_nb_json)
        with open(p, encoding="utf-8") as f:
            return json.load(f), p.stem
    raise TypeError(f"需要 notebook 文件路径、JSON 字符串或已解析的 dict，收到 {type(path_or_nb_json).__name__}")


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def notebook_sections(path_or_nb_json, level: int = 2, name: str | None = None) -> list[tuple[str, str]]:
    """把 notebook 的 markdown 单元按标题切段：返回 [(段落编号, 文本)]，只用标准库 json。

    教学位置：第 17.4 节（在本课程自己的 notebook 上做 RAG 的检索）。
    遇到级别 <= level 的标题（默认 '#' 和 '##'）就开始新段落，段落编号是标题文字（如 '16.2 一个实体…'）；
    更深的标题（'###'）留在段落内部。代码块（``` 围起来的行）里的 '#' 不算标题。代码单元不收录。
    name 给定（或传入文件路径时默认取文件名，如 '16-ner'）时，编号写成 'name · 标题'，便于跨 notebook 区分。
    第一个标题之前的文字归入编号为 name（或 '(开头)'）的段落；没有正文也没有标题的段落不返回。
    """
    check_positive(level, "level", integer=True)
    nb, stem = _load_nb(path_or_nb_json)
    name = stem if name is None else name
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError("这不像 Jupyter notebook：顶层缺少 'cells' 列表")
    sections: list[list] = [[None, []]]
    for cell in nb["cells"]:
        if cell.get("cell_type") != "markdown":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        fenced = False
        for line in src.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            m = None if fenced else _HEADING.match(line)
            if m and len(m.group(1)) <= level:
                sections.append([m.group(2), [m.group(2)]])
            else:
                sections[-1][1].append(line)
    out = []
    for heading, lines in sections:
        text = "\n".join(lines).strip()
        if not text:
            continue
        sid = heading if heading is not None else (name or "(开头)")
        if name is not None and heading is not None:
            sid = f"{name} · {heading}"
        out.append((sid, text))
    return out
