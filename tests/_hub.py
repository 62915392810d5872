"""测试用的 JupyterHub：只在 127.0.0.1 上监听，随机端口、随机密码和令牌，结束时一定停掉 hub、学生服务器和内核。

给 tests/test_hub.py 和 benchmarks/class_load.py 用。和一个小班 TLJH 的设置同一套思路：
- SharedPasswordAuthenticator（共用一个随机密码）+ allowed_users，SimpleLocalProcessSpawner（每个学生一个家目录）；
- configurable-http-proxy（npm 包）做代理；nbgitpuller 装在同一个环境里，作为学生服务器的扩展；
- 一个带 admin 权限的服务令牌，测试用它建学生令牌、启动和停止服务器。
清理：hub 和代理在同一个进程组里；学生服务器和内核自己另开进程组，所以给它们的环境加一个本次独有的标记，
结束时按标记找到所有进程并杀掉，再确认一个都不剩。
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "NLPBOOK_HUB_RUN"


def find_proxy() -> str | None:
    """configurable-http-proxy：PATH 上的，或 make install-test 装进 .venv/npm 的。"""
    local = Path(sys.prefix) / "npm" / "node_modules" / ".bin" / "configurable-http-proxy"
    return str(local) if local.exists() else shutil.which("configurable-http-proxy")


def missing() -> str | None:
    """缺什么就返回一句说明（怎么装）；都在时返回 None。"""
    for mod, pip in (("jupyterhub", "jupyterhub"), ("nbgitpuller", "nbgitpuller")):
        try:
            __import__(mod)
        except ImportError:
            return f"没有 {mod}：pip install -e '.[test]'"
    if find_proxy() is None:
        return "没有 configurable-http-proxy：npm install --prefix .venv/npm configurable-http-proxy（make install-test 会装）"
    if shutil.which("git") is None:
        return "没有 git"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Hub:
    """一个运行中的 hub：base 地址、学生密码、admin 服务令牌，以及调用 REST API 的小工具。"""

    def __init__(self, base: str, password: str, admin_token: str, work: Path, mark: str, proc):
        self.base, self.password, self.admin_token, self.work, self.mark, self.proc = \
            base, password, admin_token, work, mark, proc

    # ---- REST ----
    def request(self, path: str, method: str = "GET", token: str | None = None, body=None, timeout: float = 60):
        """返回 (状态码, 解析后的 JSON 或文本)；HTTP 错误也返回状态码，不抛异常。"""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"token {token}"} if token else {}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        text = raw.decode("utf-8", "replace")
        try:
            return status, json.loads(text) if text else None
        except ValueError:
            return status, text

    def admin(self, path: str, method: str = "GET", body=None):
        status, out = self.request("/hub/api" + path, method, self.admin_token, body)
        if status >= 400:
            raise AssertionError(f"{method} /hub/api{path} → {status}: {out}")
        return out

    def user_token(self, user: str) -> str:
        """给学生建一个 API 令牌（相当于学生在 hub 的“Token”页面里自己建的）。"""
        if self.request(f"/hub/api/users/{user}", token=self.admin_token)[0] == 404:
            self.admin(f"/users/{user}", "POST")
        return self.admin(f"/users/{user}/tokens", "POST", {"note": "course test", "expires_in": 3600})["token"]

    def start_server(self, user: str, timeout: float = 180) -> float:
        """启动学生的服务器，等到它就绪；返回用时（秒）。"""
        t0 = time.monotonic()
        status, out = self.request(f"/hub/api/users/{user}/server", "POST", self.admin_token)
        if status not in (201, 202, 400):  # 400：已经在运行
            raise AssertionError(f"启动 {user} 的服务器失败：{status} {out}")
        while time.monotonic() - t0 < timeout:
            info = self.admin(f"/users/{user}")
            server = info.get("servers", {}).get("")
            if server and server.get("ready"):
                return time.monotonic() - t0
            time.sleep(0.5)
        raise AssertionError(f"{user} 的服务器 {timeout} 秒内没有就绪")

    def stop_server(self, user: str, timeout: float = 60) -> None:
        self.request(f"/hub/api/users/{user}/server", "DELETE", self.admin_token)
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if not self.admin(f"/users/{user}").get("servers"):
                return
            time.sleep(0.5)

    def git_pull(self, user: str, token: str, repo: str, branch: str = "main", timeout: float = 300) -> str:
        """像点 nbgitpuller 链接那样拉取课程（链接打开的页面调用的就是这个 API，输出是一条事件流）；返回全部输出。"""
        q = urllib.parse.urlencode({"repo": repo, "branch": branch})
        req = urllib.request.Request(f"{self.base}/user/{user}/git-pull/api?{q}",
                                     headers={"Authorization": f"token {token}"})
        lines = []
        with urllib.request.urlopen(req, timeout=timeout) as r:
            for raw in r:
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                event = json.loads(line[5:])
                lines.append(event.get("output", "") or event.get("message", ""))
                if event.get("phase") == "error":
                    raise AssertionError("nbgitpuller 出错：" + "".join(lines)[-2000:])
                if event.get("phase") == "finished":
                    return "".join(lines)
        raise AssertionError("nbgitpuller 的事件流没有结束标记：" + "".join(lines)[-2000:])

    def contents(self, user: str, token: str, path: str, method: str = "GET", body=None):
        return self.request(f"/user/{user}/api/contents/{urllib.parse.quote(path)}", method, token, body)

    def home(self, user: str) -> Path:
        return self.work / "homes" / user

    # ---- 进程 ----
    def marked_pids(self) -> list[int]:
        """环境里带本次标记的进程（学生服务器、它们的内核），不含 hub 本身所在的进程组之外的无关进程。"""
        return marked_pids(self.mark)


def marked_pids(mark: str) -> list[int]:
    needle = f"{MARK}={mark}".encode()
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if needle in (d / "environ").read_bytes().split(b"\0"):
                out.append(int(d.name))
        except OSError:
            continue
    return out


def listening_addresses(pids) -> list[tuple[str, int]]:
    """这些进程正在监听的 TCP 地址（读 /proc/<pid>/fd 与 /proc/net/tcp、tcp6）。"""
    inodes = set()
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if f[3] != "0A" or f[9] not in inodes:   # 0A = LISTEN
                continue
            host, port = f[1].split(":")
            if v6:
                raw = bytes.fromhex(host)
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                addr = socket.inet_ntop(socket.AF_INET6, words)
            else:
                addr = socket.inet_ntoa(bytes.fromhex(host)[::-1])
            found.append((addr, int(port, 16)))
    return found


def _config(work: Path, ports: dict, password: str, admin_token: str, mark: str, services: list) -> str:
    cfg_dir = work / "student-config"
    settings = cfg_dir / "lab/user-settings/@jupyterlab/apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    singleuser = [sys.executable, "-m", "jupyterhub.singleuser"]
    roles = [{"name": "course-admin", "services": ["course-admin"],
              "scopes": ["admin:users", "admin:servers", "tokens", "list:users", "read:users", "access:servers"]}]
    if any(s["name"] == "idle-culler" for s in services):   # 与 docs/hub 里的设置相同的最小权限
        roles.append({"name": "idle-culler", "services": ["idle-culler"],
                      "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]})
    args = ["--LabApp.extension_manager=readonly"] + (["--ServerApp.allow_root=True"] if os.getuid() == 0 else [])
    return f"""
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {ports['hub']}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {ports['api']}
c.ConfigurableHTTPProxy.command = [{find_proxy()!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports['proxy_api']}"
c.ConfigurableHTTPProxy.auth_token = {secrets.token_hex(16)!r}
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(work / 'homes')!r} + "/{{username}}"
c.Spawner.ip = "127.0.0.1"
c.Spawner.default_url = "/lab"
c.Spawner.cmd = {singleuser!r}
c.Spawner.args = {args!r}
c.Spawner.environment = {{"{MARK}": {mark!r}, "JUPYTER_CONFIG_DIR": {str(cfg_dir)!r}}}
c.Spawner.start_timeout = 240
c.Spawner.http_timeout = 240
c.JupyterHub.cookie_secret = bytes.fromhex({secrets.token_hex(32)!r})
c.JupyterHub.db_url = "sqlite:///{work / 'hub.sqlite'}"
c.JupyterHub.pid_file = {str(work / 'hub.pid')!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.services = {[{"name": "course-admin", "api_token": admin_token}] + services!r}
c.JupyterHub.load_roles = {roles!r}
"""


@contextmanager
def running_hub(work: Path, culler_timeout: int | None = None, start_timeout: float = 180):
    """启动一个 hub，yield Hub；退出时（包括测试失败时）停掉所有学生服务器、hub、代理和内核。"""
    work.mkdir(parents=True, exist_ok=True)
    (work / "homes").mkdir(exist_ok=True)
    ports = {k: free_port() for k in ("hub", "api", "proxy_api")}
    password, admin_token, mark = secrets.token_urlsafe(16), secrets.token_hex(24), secrets.token_hex(8)
    services = []
    if culler_timeout:
        services.append({"name": "idle-culler",
                         "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={culler_timeout}",
                                     f"--cull-every={max(5, culler_timeout // 3)}"]})
    (work / "jupyterhub_config.py").write_text(_config(work, ports, password, admin_token, mark, services))
    log = open(work / "hub.log", "w")
    env = dict(os.environ, **{MARK: mark})
    env.pop("JUPYTERHUB_API_TOKEN", None)
    proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(work / "jupyterhub_config.py")],
                            cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    hub = Hub(f"http://127.0.0.1:{ports['hub']}", password, admin_token, work, mark, proc)
    try:
        t0 = time.monotonic()
        while True:
            try:
                if hub.request("/hub/api")[0] == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() - t0 > start_timeout:
                raise RuntimeError("JupyterHub 没有启动：\n" + (work / "hub.log").read_text()[-4000:])
            time.sleep(0.5)
        yield hub
    finally:
        stop(hub)
        log.close()


def stop(hub: Hub, timeout: float = 30) -> None:
    """停 hub：先让 hub 自己停掉学生服务器（cleanup_servers），再杀整个进程组和所有带标记的进程。"""
    try:
        for user in hub.admin("/users"):
            if user.get("servers"):
                hub.request(f"/hub/api/users/{user['name']}/server", "DELETE", hub.admin_token, timeout=10)
    except Exception:
        pass
    if hub.proc.poll() is None:
        try:
            os.killpg(hub.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            hub.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = marked_pids(hub.mark)
        if hub.proc.poll() is None:
            pids.append(hub.proc.pid)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        t0 = time.monotonic()
        while marked_pids(hub.mark) and time.monotonic() - t0 < 10:
            time.sleep(0.2)
    try:
        os.killpg(hub.proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    hub.proc.wait(timeout=10)


def make_remote(path: Path, notebooks: list[Path] | None = None) -> Path:
    """一个本地的“课程远端”：只含 notebooks/ 的裸 git 仓库 path（main 分支），相当于老师在 GitHub 上的课程仓库。

    返回老师的工作副本（origin 指向 path）：在里面改、commit、push，就是“老师更新课程”。
    path 的最后一段就是学生家目录里的文件夹名，所以不要带 .git。"""
    src = path.with_name(path.name + "-work")
    (src / "notebooks").mkdir(parents=True)
    for nb in notebooks or sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copy(nb, src / "notebooks" / nb.name)
    git(src, "init", "-q", "-b", "main")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "course")
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(path)], check=True)
    git(src, "remote", "add", "origin", str(path))
    return src


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="teacher", GIT_AUTHOR_EMAIL="teacher@example.org",
               GIT_COMMITTER_NAME="teacher", GIT_COMMITTER_EMAIL="teacher@example.org")
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout
