"""真实评论分词结果的磁盘缓存：与不用缓存逐字相同；坏文件、过期的键会重建；并发写安全；目录不可写也照常工作。

所有测试都通过 NLPBOOK_CACHE_DIR 把缓存放在 pytest 的临时目录里，不碰用户真正的缓存。
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from nlpbook import datasets as D

TEXTS = ["小王在北京大学工作", "这部电影很好看", "剧情无聊 ，演员还行", "  ", "English words 和中文 mixed！",
         "emoji 😀 也可以", "电影不难看"] * 3


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("NLPBOOK_CACHE_DIR", str(d))
    return d


def cache_file(d):
    files = [f for f in d.iterdir() if f.suffix == ".jsonl"]
    assert len(files) == 1, files
    return files[0]


def test_cache_dir_honours_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("NLPBOOK_CACHE_DIR", str(tmp_path / "x"))
    assert D.cache_dir() == tmp_path / "x"
    monkeypatch.delenv("NLPBOOK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform != "win32":
        assert D.cache_dir() == tmp_path / "xdg" / "nlpbook"
    monkeypatch.delenv("XDG_CACHE_HOME")
    if sys.platform != "win32":
        assert D.cache_dir() == D._Path(os.path.expanduser("~")) / ".cache" / "nlpbook"


def test_round_trip_equals_uncached(cache):
    ref = [tuple(D.jieba_cut(t)) for t in TEXTS]
    assert D.jieba_cut_many(TEXTS, cache=False) == ref
    assert not cache.exists()                     # cache=False 不写
    assert D.jieba_cut_many(TEXTS) == ref         # 第一次：分词并写缓存
    f = cache_file(cache)
    stamp = f.stat().st_mtime_ns
    assert D.jieba_cut_many(TEXTS) == ref         # 第二次：从缓存读
    assert f.stat().st_mtime_ns == stamp          # 没有重写
    assert D.jieba_cut_many(["小王在北京大学工作"]) == [("小王", "在", "北京大学", "工作")]
    assert D.jieba_cut_many([]) == []


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip_token", "bad_header"])
def test_corrupt_file_is_rebuilt(cache, damage):
    ref = D.jieba_cut_many(TEXTS)
    f = cache_file(cache)
    data = f.read_bytes()
    if damage == "truncate":
        f.write_bytes(data[:len(data) // 2])
    elif damage == "garbage":
        f.write_bytes(b"\x00\xff not json at all")
    elif damage == "empty":
        f.write_bytes(b"")
    elif damage == "flip_token":                  # 正文被改了一个词：哈希对不上，不能返回错的词
        f.write_bytes(data.replace("好看".encode(), "难看".encode(), 1))
    else:
        f.write_bytes(b"[1, 2, 3]\n" + data.split(b"\n", 1)[1])
    assert D.jieba_cut_many(TEXTS) == ref
    assert D._read_cache(f, D._cache_key(TEXTS), len(TEXTS)) == ref   # 已重建成有效文件


def test_stale_key_is_rebuilt(cache):
    old = D.jieba_cut_many(TEXTS[:3])
    f = cache_file(cache)
    header = json.loads(f.read_text(encoding="utf-8").split("\n", 1)[0])
    assert D.jieba_cut_many(TEXTS) == [tuple(D.jieba_cut(t)) for t in TEXTS] != old
    new_header = json.loads(f.read_text(encoding="utf-8").split("\n", 1)[0])
    assert new_header["key"] != header["key"] and new_header["n"] == len(TEXTS)
    # 键里有 jieba 的版本和词典：同样的文本、换一个键（模拟换了 jieba），也会重建
    body = f.read_text(encoding="utf-8").split("\n", 1)[1]
    f.write_text(json.dumps({**new_header, "key": "0" * 64}) + "\n" + body, encoding="utf-8")
    assert D._read_cache(f, D._cache_key(TEXTS), len(TEXTS)) is None
    assert D.jieba_cut_many(TEXTS) == [tuple(D.jieba_cut(t)) for t in TEXTS]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root 可以写任何目录")
def test_unwritable_dir_falls_back_quietly(tmp_path, monkeypatch, recwarn):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    monkeypatch.setenv("NLPBOOK_CACHE_DIR", str(ro / "sub"))
    try:
        assert D.jieba_cut_many(TEXTS) == [tuple(D.jieba_cut(t)) for t in TEXTS]
    finally:
        ro.chmod(0o700)
    assert not recwarn.list


def test_cache_path_that_is_a_file_falls_back_quietly(tmp_path, monkeypatch, recwarn, capsys):
    """缓存“目录”其实是一个文件（无论是不是 root 都写不进去）：照常分词，不报错、不警告、不打印。"""
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("x")
    monkeypatch.setenv("NLPBOOK_CACHE_DIR", str(blocker / "cache"))
    assert D.jieba_cut_many(TEXTS) == [tuple(D.jieba_cut(t)) for t in TEXTS]
    assert not recwarn.list and capsys.readouterr() == ("", "")


def test_concurrent_writers_leave_a_valid_cache(cache):
    texts = [f"第{i}条评论：这部电影{'很' * (i % 5)}好看，但是结尾有点仓促" for i in range(3000)]
    code = textwrap.dedent(f"""
        import json, sys
        from nlpbook import datasets as D
        texts = json.loads(sys.stdin.read())
        out = D.jieba_cut_many(texts)
        assert out == [tuple(D.jieba_cut(t)) for t in texts]
        print(len(out))
    """)
    env = {**os.environ, "NLPBOOK_CACHE_DIR": str(cache)}
    procs = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, text=True) for _ in range(2)]
    payload = json.dumps(texts, ensure_ascii=False)
    for p in procs:
        p.stdin.write(payload)
        p.stdin.close()
    results = [(p.wait(timeout=600), p.stdout.read(), p.stderr.read()) for p in procs]
    assert all(rc == 0 and out.strip() == "3000" and err == "" for rc, out, err in results), results
    f = cache_file(cache)                         # 只留下一份完整的文件，没有残留的临时文件
    assert [x.name for x in cache.iterdir()] == [f.name]
    assert D._read_cache(f, D._cache_key(texts), len(texts)) == [tuple(D.jieba_cut(t)) for t in texts]


def test_bad_input():
    with pytest.raises(TypeError, match="单条文本请用 jieba_cut"):
        D.jieba_cut_many("一个字符串")
    with pytest.raises(TypeError, match="str"):
        D.jieba_cut_many(["好", 3])


def test_permission_error_on_write_falls_back_quietly(cache, monkeypatch, recwarn, capsys):
    """即使是 root（能写任何目录），也模拟一次“没有写权限”：照常返回正确的词，不留临时文件。"""
    def deny(*a, **k):
        raise PermissionError("只读")
    monkeypatch.setattr(D.tempfile, "mkstemp", deny)
    assert D.jieba_cut_many(TEXTS) == [tuple(D.jieba_cut(t)) for t in TEXTS]
    assert not cache.exists() or not any(cache.iterdir())
    assert not recwarn.list and capsys.readouterr() == ("", "")
