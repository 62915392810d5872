"""datasets：课文的微型数据，以及真实评论的清洗与无泄漏划分。"""
import pytest

from nlpbook import datasets as D


def test_toy_reviews_match_section_1_1():
    assert [r.name for r in D.TOY_REVIEWS] == list("ABCDEF")
    assert [r.label for r in D.TOY_REVIEWS] == [1, 1, 0, 0, 0, 1]
    assert all("".join(r.tokens) == r.text for r in D.TOY_REVIEWS)
    assert len(D.TOY_VOCAB) == 7 and len(D.TFIDF_DOCS) == 3


@pytest.fixture(scope="module")
def raw():
    return D.load_raw_reviews()


def test_raw_reviews_are_the_shipped_files(raw):
    pos = sum(r.label for r in raw)
    assert pos == 16548 and len(raw) - pos == 18576


def test_cleaning_removes_repeats_footer_and_conflicts(raw):
    cleaned, report = D.clean_reviews(raw)
    texts = [r.text for r in cleaned]
    assert len(texts) == len(set(texts)) == report["清洗后"]
    assert report["网站页脚"] >= 50 and report["同标签重复"] > 15000
    assert report["两种标签都有（文本数）"] > 0
    assert not any(t.startswith("免费注册") for t in texts)
    assert sum(report[k] for k in ("空行", "网站页脚", "过短残片", "同标签重复")) + len(cleaned) \
        + 2 * report["两种标签都有（文本数）"] == report["原始行数"]


def test_split_is_deterministic_and_leak_free(raw):
    cleaned, _ = D.clean_reviews(raw)
    a, b = D.split_reviews(cleaned), D.split_reviews(list(reversed(cleaned)))
    for k in a:
        assert sorted(r.text for r in a[k]) == sorted(r.text for r in b[k])
    sets = [set(r.text for r in a[k]) for k in ("train", "validation", "test")]
    assert not (sets[0] & sets[1] or sets[0] & sets[2] or sets[1] & sets[2])
    n = len(cleaned)
    assert abs(len(a["train"]) / n - 0.8) < 0.02 and abs(len(a["test"]) / n - 0.1) < 0.02


def test_clean_on_tiny_input():
    rows = [D.Review(" 很好很好 ", 1), D.Review("很好很好", 1), D.Review("优点:", 1),
            D.Review("两边都有的", 1), D.Review("两边都有的", 0), D.Review("", 0)]
    cleaned, report = D.clean_reviews(rows)
    assert [r.text for r in cleaned] == ["很好很好"]
    assert report == {"原始行数": 6, "同标签重复": 1, "过短残片": 1, "空行": 1,
                      "两种标签都有（文本数）": 1, "清洗后": 1}


def test_jieba_cut_example():
    assert D.jieba_cut("小王在北京大学工作") == ["小王", "在", "北京大学", "工作"]
    with pytest.raises(TypeError, match="str"):
        D.jieba_cut(None)


def test_split_errors():
    with pytest.raises(ValueError, match="和为 1"):
        D.split_reviews([], (0.5, 0.5, 0.5))


def test_load_reviews_tokens_equal_uncached_jieba(tmp_path, monkeypatch):
    """load_reviews 的分词（经过磁盘缓存）与逐条调用 jieba_cut 逐字相同；缓存放在临时目录里。"""
    monkeypatch.setenv("NLPBOOK_CACHE_DIR", str(tmp_path))
    data = D.load_reviews()
    again = D.load_reviews()                      # 第二次读缓存
    assert data == again
    rows = [r for k in ("train", "validation", "test") for r in data[k]]
    sample = rows[::97]
    assert all(r.tokens == tuple(D.jieba_cut(r.text)) for r in sample)
