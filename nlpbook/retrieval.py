"""检索（第 17.4 节 RAG 的“找资料”一步）：向量打分排序，以及在文本段落上的 TF-IDF / BM25 / LSA 检索。

- rank：给定问题向量和文档向量矩阵，按点积或余弦排序，分数相同按文档编号从小到大（确定性）。
- TfidfRetriever：在一组 (段落编号, 文本) 上拟合 IDF，按 TF-IDF 余弦（默认）或 BM25 打分。
- LsaRetriever：稠密检索——对 TF-IDF 矩阵做截断 SVD（潜在语义分析），在 k 维向量上比余弦。
- fuse_scores：把两种检索的分数各自缩放到 [0, 1] 再加权相加（混合检索）。
- gold_ranks、recall_at_k、mean_reciprocal_rank：检索评测（正确段落排第几、前 k 名命中率、MRR）。
- best_sentences：抽取式回答——从段落里挑出与问题共有词最多（按 IDF 加权）的句子，调用方注明出处。
- notebook_sections、plain_text：把 notebook 的 markdown 按标题切段、去掉链接和标签；
  course_sections、rag_questions：读随包附带的课程段落快照和问题集（nlpbook/rag/）。
不做的事：不做重排（rerank），也不调用任何语言模型生成回答；
默认分词只按字和相邻两字切（不导入 jieba，需要词级检索时把 jieba_cut 传给 fit）。
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ._checks import as_float_array, check_positive, check_tokens
from .sparse import CountMatrix
from .text import Vocab, document_frequency

__all__ = ["order_by_score", "rank", "char_bigram_tokenize", "TfidfRetriever", "LsaRetriever", "fuse_scores",
           "gold_ranks", "recall_at_k", "mean_reciprocal_rank", "split_sentences", "best_sentences",
           "notebook_sections", "plain_text", "question_split", "course_sections", "rag_questions", "RAG_DATA"]

RAG_DATA = Path(__file__).resolve().parent / "rag"

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


_IDF_FORMULAS = {"tfidf": lambda n, c: math.log(n / c),
                 "bm25": lambda n, c: math.log(1 + (n - c + 0.5) / (c + 0.5))}


def _idf_table(docs: list[list[str]], method: str) -> dict[str, float]:
    """数一遍文档频率 df，按 method 换成 IDF：'tfidf' 为课文的 ln(N/df)（与 text.idf 相同），
    'bm25' 为 ln(1 + (N − df + 0.5)/(df + 0.5))。TfidfRetriever.fit 的两种方法都经过这里。

    例：docs=[['实体'], ['实体', '检索']]，'tfidf' → {'实体': 0.0, '检索': 0.693}；'bm25' → {'实体': 0.182, '检索': 0.693}
    """
    n = len(docs)
    formula = _IDF_FORMULAS[method]
    return {t: formula(n, c) for t, c in document_frequency(docs).items()}


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
        self.idf = _idf_table(docs, self.method)
        self._weights = np.array([self.idf[t] for t in self.vocab.itos])
        self._lengths = np.array([len(d) for d in docs], dtype=float)
        if self.method == "bm25":                      # BM25 只要原始次数；TF-IDF 只要加权后的矩阵
            self._counts = CountMatrix.from_docs(docs, self.vocab)
            return self
        tfidf = CountMatrix.from_docs(docs, self.vocab, weights=self.idf)
        rows = np.repeat(np.arange(n), np.diff(tfidf.indptr))
        self._norms = np.sqrt(np.bincount(rows, weights=tfidf.data * tfidf.data, minlength=n))
        self._tfidf = tfidf
        return self

    def scores(self, query: str) -> np.ndarray:
        """问题对每个段落的分数，形状 (段落数,)，与 fit 时的顺序一致。"""
        if self.vocab is None:
            raise RuntimeError("请先调用 fit(sections) 再检索")
        q = np.bincount(self._query_ids(query), minlength=len(self.vocab)).astype(float)   # 问题里每个词的次数
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

    def _query_ids(self, query: str) -> np.ndarray:
        """问题切词后落在词表里的 token 下标（按出现顺序，重复的词重复出现）；词表外的词丢弃。LsaRetriever 也用它。"""
        if not isinstance(query, str):
            raise TypeError(f"query 必须是字符串，收到 {type(query).__name__}")
        toks = check_tokens(self.tokenize(query), "tokenize 的输出")
        return np.array([j for j in map(self.vocab.stoi.get, toks) if j is not None], dtype=np.intp)

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


class LsaRetriever:
    """稠密检索：潜在语义分析（LSA）。教学位置：第 17.4 节（用课程里学过的东西做一个“向量检索”）。

    做法：先按 TfidfRetriever 的 TF-IDF（原始次数 × ln(N/df)）把每个段落变成一行，行向量除以长度；
    再做截断 SVD X ≈ U_k S_k V_kᵀ，段落的稠密向量是 U_k S_k 的行（k 维），问题先算同样的 TF-IDF 向量、
    除以长度，再乘 V_k 投影到这 k 维；分数是两者的余弦。共同出现的词被压进同一些维度，
    所以问题和段落没有一个共同的词时也可能有分数——这正是稠密检索想要的“近义”效果，也是它出错的来源。
    只用 numpy；k 不能超过段落数。例：LsaRetriever(k=2).fit(sections).scores('命名实体') → 每段一个余弦
    """

    def __init__(self, k: int = 100):
        self.k = check_positive(k, "k", integer=True)
        self.ids: list = []
        self._sparse: TfidfRetriever | None = None

    def fit(self, sections, tokenize: Callable[[str], list] | None = None) -> "LsaRetriever":
        """sections 是 [(段落编号, 文本)]；tokenize 同 TfidfRetriever.fit。"""
        return self.from_tfidf(TfidfRetriever().fit(sections, tokenize))

    def from_tfidf(self, sp: "TfidfRetriever") -> "LsaRetriever":
        """直接用一个已经 fit 好的 TF-IDF 检索器（method='tfidf'）的矩阵做 SVD，省去再切词、再数一遍。"""
        if not isinstance(sp, TfidfRetriever) or sp.vocab is None or sp.method != "tfidf":
            raise TypeError("from_tfidf 需要一个已经 fit 好、method='tfidf' 的 TfidfRetriever")
        n, v = len(sp.ids), len(sp.vocab)
        if self.k > min(n, v):
            raise ValueError(f"k 不能超过段落数和词表大小中较小的那个（{min(n, v)}），收到 k={self.k}")
        X = np.zeros((n, v))
        rows = np.repeat(np.arange(n), np.diff(sp._tfidf.indptr))
        X[rows, sp._tfidf.indices] = sp._tfidf.data
        X /= np.where(sp._norms > 0, sp._norms, 1.0)[:, None]
        # 经由 n×n 的 Gram 矩阵求 SVD（段落数远小于词表大小时更快）：X Xᵀ = U S² Uᵀ
        evals, U = np.linalg.eigh(X @ X.T)
        top = np.argsort(-evals, kind="stable")[:self.k]
        S = np.sqrt(np.clip(evals[top], 0.0, None))
        U = U[:, top]
        U *= np.where(U[np.abs(U).argmax(axis=0), np.arange(U.shape[1])] < 0, -1.0, 1.0)  # 固定符号：结果可复现
        keep = S > 1e-10 * max(S.max(), 1e-300)
        self._proj = (X.T @ U[:, keep]) / S[keep]                      # V_k：(词表, k)
        self._docs = U[:, keep] * S[keep]                               # U_k S_k：(段落, k)
        self.singular_values = S
        self.ids, self._sparse, self.tokenize = sp.ids, sp, sp.tokenize
        self.vocab, self.idf = sp.vocab, sp.idf
        return self

    def embed(self, query: str) -> np.ndarray:
        """问题的 k 维向量（TF-IDF → 除以长度 → 乘 V_k）；问题与词表没有共同的有效词时是零向量。"""
        if self._sparse is None:
            raise RuntimeError("请先调用 fit(sections) 再检索")
        ids = self._sparse._query_ids(query)
        q = np.zeros(len(self.vocab))
        np.add.at(q, ids, self._sparse._weights[ids])                   # 每出现一次加一次 IDF，即 TF × IDF
        qn = np.linalg.norm(q)
        return (q / qn) @ self._proj if qn > 0 else np.zeros(self._proj.shape[1])

    def scores(self, query: str) -> np.ndarray:
        """问题对每个段落的余弦（形状 (段落数,)）；问题向量为零时全为 0。"""
        e = self.embed(query)
        if not np.any(e):
            return np.zeros(len(self.ids))
        dn = np.linalg.norm(self._docs, axis=1)
        dots = self._docs @ e
        return np.divide(dots, dn * np.linalg.norm(e), out=np.zeros_like(dots), where=dn > 0)

    def search(self, query: str, k: int = 3) -> list[tuple]:
        """最相关的至多 k 个段落 [(段落编号, 余弦)]，分数从高到低、相同按 fit 顺序。"""
        check_positive(k, "k", integer=True)
        s = self.scores(query)
        return [(self.ids[i], float(s[i])) for i in order_by_score(s, k)]


def _minmax(s: np.ndarray) -> np.ndarray:
    lo, hi = s.min(axis=-1, keepdims=True), s.max(axis=-1, keepdims=True)
    span = hi - lo
    return np.divide(s - lo, span, out=np.zeros_like(s), where=span > 0)


def fuse_scores(a, b, weight: float) -> np.ndarray:
    """混合检索：weight·缩放(a) + (1 − weight)·缩放(b)。教学位置：第 17.4 节。

    a、b 是同一批段落上两种检索的分数（一维：一个问题；二维：每行一个问题）。两种分数的尺度不同
    （BM25 可以到 20，余弦不超过 1），所以每个问题先各自按 (s − 最小) / (最大 − 最小) 缩放到 [0, 1]
    （全部相同时记为 0），再加权。weight = 1 只用 a，weight = 0 只用 b。
    例：fuse_scores([0, 10, 5], [1.0, 0.0, 0.8], 0.5) → [0.5, 0.5, 0.65]
    """
    A, B = as_float_array(a, "a"), as_float_array(b, "b")
    if A.shape != B.shape or A.ndim not in (1, 2) or A.shape[-1] == 0:
        raise ValueError(f"a 与 b 必须是形状相同的一维或二维非空数组，收到 {A.shape} 与 {B.shape}")
    w = float(weight)
    if not 0.0 <= w <= 1.0:
        raise ValueError(f"weight 必须在 [0, 1] 之间，收到 {weight}")
    return w * _minmax(A) + (1.0 - w) * _minmax(B)


def gold_ranks(scores, gold) -> np.ndarray:
    """每个问题的正确段落排第几（从 1 起）。教学位置：第 17.4 节（检索评测）。

    scores：(问题数, 段落数)；gold：每个问题的正确段落下标。排名与 order_by_score 一致：
    分数相同（相对差 1e-12 以内）时下标小的在前——所以全部打 0 分的检索器不会因为并列而“碰巧命中”，
    正确段落的名次就是它在并列中的位置。例：gold_ranks([[0.1, 0.9, 0.5]], [2]) → [2]
    """
    S = as_float_array(scores, "scores")
    if S.ndim != 2 or S.shape[1] == 0:
        raise ValueError(f"scores 必须是 (问题数, 段落数) 的二维数组，收到形状 {S.shape}")
    g = np.asarray(gold)
    if g.shape != (S.shape[0],) or g.dtype.kind not in "iu" or (g.size and (g.min() < 0 or g.max() >= S.shape[1])):
        raise ValueError(f"gold 必须是 {S.shape[0]} 个 0…{S.shape[1] - 1} 之间的整数下标，收到 {g.tolist()}")
    return np.array([int(np.flatnonzero(order_by_score(row) == gi)[0]) + 1 for row, gi in zip(S, g)], dtype=int)


def _check_ranks(ranks) -> np.ndarray:
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0 or r.dtype.kind not in "iu" or r.min() < 1:
        raise ValueError(f"ranks 必须是非空的一维正整数数组（名次从 1 起），收到 {r.tolist() if r.ndim else r}")
    return r


def recall_at_k(ranks, k: int) -> float:
    """前 k 名里有正确段落的问题占多少（recall@k，每个问题只有一个正确段落）。

    教学位置：第 17.4 节。例：名次 [1, 3, 8]，k=1 → 1/3；k=5 → 2/3。
    """
    check_positive(k, "k", integer=True)
    return float(np.mean(_check_ranks(ranks) <= k))


def mean_reciprocal_rank(ranks) -> float:
    """MRR：每个问题取 1/名次，再求平均。排第 1 得 1 分，第 2 得 0.5 分，越往后越少。

    教学位置：第 17.4 节。例：名次 [1, 2, 4] → (1 + 0.5 + 0.25)/3 = 0.583
    """
    return float(np.mean(1.0 / _check_ranks(ranks)))


_SENT_END = re.compile(r"(?<=[。！？!?；])|\n")


def split_sentences(text: str) -> list[str]:
    """按句号、问号、叹号、分号和换行切句，去掉空句、只有表格线的行和表格行两端的竖线。教学位置：第 17.4 节（抽取式回答）。

    例：'A 是 B。为什么？\\n| --- |\\n| x | y |' → ['A 是 B。', '为什么？', 'x | y']
    """
    if not isinstance(text, str):
        raise TypeError(f"text 必须是字符串，收到 {type(text).__name__}")
    out = []
    for part in _SENT_END.split(text):
        part = part.strip().strip("|").strip()                 # 表格行两端的竖线不要
        if part and not re.fullmatch(r"[|:\-\s]*", part):
            out.append(part)
    return out


def best_sentences(question: str, text: str, weights: dict | None = None, n: int = 1,
                   tokenize: Callable[[str], list] | None = None) -> list[str]:
    """抽取式回答：text 里与问题最相关的 n 个句子（按原文顺序返回）。教学位置：第 17.4 节。

    句子的分数 = 问题和句子共有的不同 token 的权重之和（weights 缺省时每个 token 记 1；传入检索器的 idf，
    “的”“是”这类到处都有的字几乎不算分），再除以 √(句子的 token 数)，免得长句子只因为长而占便宜。
    分数相同时前面的句子优先；与问题一个共同词都没有的句子不返回（结果可能为空）。
    例：best_sentences('BIO 的 B 是什么', 'NER 很难。B 表示实体开始，I 表示内部。') → ['B 表示实体开始，I 表示内部。']
    """
    if not isinstance(question, str) or not isinstance(text, str):
        raise TypeError("question 和 text 都必须是字符串")
    check_positive(n, "n", integer=True)
    tokenize = char_bigram_tokenize if tokenize is None else tokenize
    q = set(check_tokens(tokenize(question), "tokenize 的输出"))
    sents = split_sentences(text)
    scores = np.zeros(len(sents))
    for i, s in enumerate(sents):
        toks = check_tokens(tokenize(s), "tokenize 的输出")
        common = q.intersection(toks)
        if toks and common:
            scores[i] = sum((1.0 if weights is None else float(weights.get(t, 0.0))) for t in common) / math.sqrt(len(toks))
    picked = [i for i in order_by_score(scores, n) if scores[i] > 0]
    return [sents[i] for i in sorted(picked)]


def plain_text(markdown_text: str) -> str:
    """去掉 markdown 里的图片、链接网址、HTML 标签、加粗和行内代码记号；每行内的空白压成一个空格，去掉空行。

    教学位置：第 17.4 节（交给模型或抽取答案之前，只留下要读的文字）。
    例：'**RAG** 见 [第 17 章](17.ipynb)<br>' → 'RAG 见 第 17 章'
    """
    if not isinstance(markdown_text, str):
        raise TypeError(f"markdown_text 必须是字符串，收到 {type(markdown_text).__name__}")
    t = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", markdown_text)      # 图片（如 Binder 徽章）
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)               # 链接只留文字
    t = re.sub(r"<[^>]+>", "", t)                                # <details> 等标签
    t = t.replace("**", "").replace("`", "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    lines = (" ".join(line.split()) for line in t.splitlines())
    return "\n".join(line for line in lines if line)


def question_split(question: str) -> str:
    """问题集的固定划分：问题文字的 MD5 第一个字节为偶数 → 'dev'，奇数 → 'test'。教学位置：第 17.4 节。

    只看文字本身，与问题在文件里的顺序无关；增删别的问题不会让已有问题换边。
    """
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question 必须是非空字符串，收到 {question!r}")
    return "dev" if hashlib.md5(question.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def _read_rag(name: str) -> dict:
    path = RAG_DATA / name
    if not path.exists():
        raise FileNotFoundError(f"找不到随包附带的 {path.name}（应在 {RAG_DATA.name}/ 下，由 scripts/build_rag_snapshot.py 生成）")
    return json.loads(path.read_text(encoding="utf-8"))


def course_sections(with_heading: bool = True) -> list[tuple[str, str]]:
    """随包附带的课程段落快照：[('16-ner · 16.4 为什么…', 文本)]，顺序固定。教学位置：第 17.4 节。

    快照由 scripts/build_rag_snapshot.py 从各章 notebook 的 markdown 生成（第 17 章自己不收录），
    所以各章以后改写文字，检索结果也不会跟着变。with_heading=True 时文本以标题开头（给检索用），
    False 时只有正文（给抽取答案用）。
    """
    snap = _read_rag("course_sections.json")
    return [(s["id"], (s["heading"] + "\n" + s["text"]) if with_heading else s["text"]) for s in snap["sections"]]


def rag_questions(split: str | None = None) -> list[dict]:
    """随包附带的问题集：[{'question', 'gold', 'kind', 'split'}]；gold 是快照里的段落编号。教学位置：第 17.4 节。

    split 为 'dev'（调参用）、'test'（最后评一次）或 None（全部）。划分见 question_split。
    """
    if split not in (None, "dev", "test"):
        raise ValueError(f"split 只能是 'dev'、'test' 或 None，收到 {split!r}")
    qs = _read_rag("questions.json")["questions"]
    return [dict(q) for q in qs if split is None or q["split"] == split]
