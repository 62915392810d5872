"""一堂课压在一台机器上有多重：K 个学生同时登录、拉课程、各自运行第 4 章和第 13 章（这是测量，不是测试）。

  python benchmarks/class_load.py              # K = 5, 10, 20
  python benchmarks/class_load.py 3            # 只测 K = 3
  python benchmarks/class_load.py --json out.json 5 10
  python benchmarks/class_load.py --sequence    # 一个学生依次打开几章、不关内核：内存加起来有多少

每个 K 各起一个新的 hub（tests/_hub.py：127.0.0.1、随机端口和密码、SimpleLocalProcessSpawner、nbgitpuller），
所有学生同时：建令牌 → 启动服务器（计时到就绪）→ 用 nbgitpuller 的 API 拉课程 → 通过 REST 建会话、
通过内核的 websocket 逐格执行第 4 章和第 13 章（与学生按“运行全部”相同，计时到最后一格完成）。
其间每 0.5 秒读一次 /proc：每个学生的服务器加内核的内存（RSS 之和）取峰值，全体（含 hub 和代理）也取峰值。
浏览器里的那一步（登录、点链接、JupyterLab 打开、运行、拖滑块）由 tests/test_hub.py 覆盖，这里不重复。
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import _hub  # noqa: E402

import nbformat  # noqa: E402

CHAPTERS = ("04-learning.ipynb", "13-transformer.ipynb")
FOLDER = "nlp-from-scratch"


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _user_of(pid: int) -> str | None:
    try:
        for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
            if item.startswith(b"JUPYTERHUB_USER="):
                return item.split(b"=", 1)[1].decode()
    except OSError:
        pass
    return None


class MemoryWatch(threading.Thread):
    """每 0.5 秒：每个学生（服务器 + 内核）的 RSS 之和、全体的 RSS 之和；记峰值。"""

    def __init__(self, hub):
        super().__init__(daemon=True)
        self.hub, self.stop_flag = hub, threading.Event()
        self.per_user: dict[str, float] = {}
        self.total = 0.0

    def run(self):
        while not self.stop_flag.is_set():
            pids = set(_hub.marked_pids(self.hub.mark)) | {self.hub.proc.pid}
            now: dict[str, float] = {}
            total = 0.0
            for pid in pids:
                mb = _rss_mb(pid)
                total += mb
                user = _user_of(pid)
                if user:
                    now[user] = now.get(user, 0.0) + mb
            for u, mb in now.items():
                self.per_user[u] = max(self.per_user.get(u, 0.0), mb)
            self.total = max(self.total, total)
            self.stop_flag.wait(0.5)


async def run_notebook(hub, user: str, token: str, name: str, keep: bool = False) -> tuple[float, int]:
    """在学生的服务器上建会话，逐格执行 name 的代码单元；返回 (秒, 出错的单元格数)。
    keep=True 时不关内核（像学生关掉标签页却没有关内核）。"""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect
    path = f"{FOLDER}/notebooks/{name}"
    nb = nbformat.read(hub.home(user) / path, as_version=4)
    status, session = await asyncio.to_thread(
        hub.request, f"/user/{user}/api/sessions", "POST", token,
        {"path": path, "type": "notebook", "name": name, "kernel": {"name": "python3"}})
    if status >= 400:
        raise RuntimeError(f"{user}: 建会话失败 {status} {session}")
    kid = session["kernel"]["id"]
    url = hub.base.replace("http://", "ws://") + f"/user/{user}/api/kernels/{kid}/channels"
    ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {token}"}))
    t0, errors = time.monotonic(), 0
    try:
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            msg_id = uuid.uuid4().hex
            await ws.write_message(json.dumps({
                "header": {"msg_id": msg_id, "username": user, "session": uuid.uuid4().hex, "msg_type": "execute_request",
                           "version": "5.3", "date": ""},
                "parent_header": {}, "metadata": {}, "channel": "shell",
                "content": {"code": cell.source, "silent": False, "store_history": True, "user_expressions": {},
                            "allow_stdin": False, "stop_on_error": True}}))
            while True:
                raw = await asyncio.wait_for(ws.read_message(), timeout=900)
                if raw is None:
                    raise RuntimeError(f"{user}: 内核连接断了")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "execute_reply":
                    errors += msg["content"]["status"] != "ok"
                    break
    finally:
        ws.close()
        if not keep:
            await asyncio.to_thread(hub.request, f"/user/{user}/api/sessions/{session['id']}", "DELETE", token)
    return time.monotonic() - t0, errors


async def student(hub, remote: str, user: str) -> dict:
    out = {"user": user, "failures": []}
    try:
        token = await asyncio.to_thread(hub.user_token, user)
        out["ready_s"] = await asyncio.to_thread(hub.start_server, user, 600)
        t0 = time.monotonic()
        await asyncio.to_thread(hub.git_pull, user, token, remote)
        out["pull_s"] = time.monotonic() - t0
        for name in CHAPTERS:
            secs, errors = await run_notebook(hub, user, token, name)
            out[name] = secs
            if errors:
                out["failures"].append(f"{name}: {errors} 个单元格出错")
    except Exception as exc:  # noqa: BLE001 - 记下来，算作失败
        out["failures"].append(f"{type(exc).__name__}: {str(exc)[:200]}")
    return out


def measure(k: int, work: Path) -> dict:
    remote = work / FOLDER
    _hub.make_remote(remote)
    t0 = time.monotonic()
    with _hub.running_hub(work / "hub", start_timeout=300) as hub:
        watch = MemoryWatch(hub)
        watch.start()

        async def everyone():
            return await asyncio.gather(*(student(hub, str(remote), f"s{i:02d}") for i in range(k)))
        rows = asyncio.run(everyone())
        watch.stop_flag.set()
        watch.join()
    wall = time.monotonic() - t0
    ok = [r for r in rows if not r["failures"]]
    done = [max(r.get(c, 0) for c in CHAPTERS) for r in ok]

    def stat(values):
        return {"median": round(statistics.median(values), 1), "max": round(max(values), 1)} if values else None
    return {
        "K": k,
        "ready_s": stat([r["ready_s"] for r in rows if "ready_s" in r]),
        "pull_s": stat([r["pull_s"] for r in rows if "pull_s" in r]),
        **{c: stat([r[c] for r in ok if c in r]) for c in CHAPTERS},
        "finish_s": stat([r["ready_s"] + r["pull_s"] + sum(r[c] for c in CHAPTERS) for r in ok]),
        "slowest_chapter_s": stat(done),
        "mem_per_student_mb": stat(list(watch.per_user.values())),
        "mem_total_peak_mb": round(watch.total),
        "failures": [f for r in rows for f in r["failures"]],
        "wall_s": round(wall, 1),
        "cpus": os.cpu_count(),
    }


SEQUENCE = ("03-bow-tfidf.ipynb", "07-word2vec.ipynb", "11-generation.ipynb", "13-transformer.ipynb",
            "18-experiments.ipynb")


def measure_sequence(work: Path) -> list[tuple[str, float]]:
    """一个学生依次运行 SEQUENCE 里的几章，每章跑完不关内核；每章之后记下服务器 + 全部内核的 RSS 之和。"""
    remote = work / FOLDER
    _hub.make_remote(remote)
    rows = []
    with _hub.running_hub(work / "hub", start_timeout=300) as hub:
        token = hub.user_token("seq")
        hub.start_server("seq", 600)
        hub.git_pull("seq", token, str(remote))
        for name in SEQUENCE:
            asyncio.run(run_notebook(hub, "seq", token, name, keep=True))
            total = sum(_rss_mb(p) for p in _hub.marked_pids(hub.mark) if _user_of(p) == "seq")
            rows.append((name, round(total)))
            print(f"  打开到 {name}：服务器 + {len(rows)} 个内核 共 {total:.0f} MB", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ks", nargs="*", type=int, default=[5, 10, 20])
    ap.add_argument("--json", help="把结果另存为 JSON")
    ap.add_argument("--sequence", action="store_true", help="只测一个学生依次打开几章、不关内核时的内存")
    args = ap.parse_args(argv)
    missing = _hub.missing()
    if missing:
        print(missing)
        return 2
    if args.sequence:
        with tempfile.TemporaryDirectory(prefix="class-seq-") as tmp:
            measure_sequence(Path(tmp))
        return 0
    results = []
    for k in args.ks:
        with tempfile.TemporaryDirectory(prefix=f"class-{k}-") as tmp:
            r = measure(k, Path(tmp))
        results.append(r)
        print(f"K={k:>2}：服务器就绪 中位 {r['ready_s']['median']} s / 最慢 {r['ready_s']['max']} s；"
              f"拉课程 中位 {r['pull_s']['median']} s；"
              + "；".join(f"{c[:2]} 章 中位 {r[c]['median']} s / 最慢 {r[c]['max']} s" for c in CHAPTERS if r[c])
              + f"；每个学生峰值内存 中位 {r['mem_per_student_mb']['median']} MB / 最大 {r['mem_per_student_mb']['max']} MB；"
              f"全体峰值 {r['mem_total_peak_mb']} MB；失败 {len(r['failures'])}", flush=True)
        for f in r["failures"][:5]:
            print("   ", f)
    if args.json:
        Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0 if all(not r["failures"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
