"""教学配置：JupyterHub 示例能解析、指向同一个仓库和环境；nbgitpuller 链接脚本输出正确。"""
import ast
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "docs" / "hub"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

_spec = importlib.util.spec_from_file_location("nbgitpuller_links", ROOT / "scripts" / "nbgitpuller_links.py")
links = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(links)


def readme_repo() -> str:
    """README 的 Binder 徽章指向的 GitHub 仓库（owner/name）。"""
    m = re.search(r"mybinder\.org/v2/gh/([\w.-]+/[\w.-]+)/main", (ROOT / "README.md").read_text(encoding="utf-8"))
    return m.group(1)


def shell_script(path: Path) -> tuple[dict, list]:
    """读一个简单的 bash 脚本：返回 (顶层的 NAME="值" 赋值, 每条命令按 shell 规则切好的词)。

    续行（行尾的 \\）先接起来；注释和空行跳过；赋值里的 ${1:?…}、${2:-默认} 取默认值（没有时原样保留）。
    """
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    variables, commands = {}, []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        m = re.fullmatch(r"([A-Z_]+)=(.*)", words[0])
        if m and len(words) == 1:
            default = re.fullmatch(r"\$\{\d+:-(.*)\}", m.group(2))
            variables[m.group(1)] = default.group(1) if default else m.group(2)
        else:
            commands.append(words)
    return variables, commands


def options(words: list) -> dict:
    """一条命令里的 --选项 值 → {选项: 值}；不带值的选项记为 True。"""
    out, i = {}, 1
    while i < len(words):
        if words[i].startswith("--"):
            has_value = i + 1 < len(words) and not words[i + 1].startswith("-")
            out[words[i]] = words[i + 1] if has_value else True
            i += 2 if has_value else 1
        else:
            i += 1
    return out


def py_constant(path: Path, name: str):
    """Python 文件里顶层常量 NAME = "值" 的值（用 ast 读，不执行文件）。"""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise KeyError(name)


def test_everything_names_the_same_repository():
    repo = f"https://github.com/{readme_repo()}"
    assert links.REPO == repo and links.BRANCH == "main"
    for script in ("tljh-setup.sh", "build-image.sh"):
        variables, _ = shell_script(HUB / script)
        assert (variables["REPO"], variables["BRANCH"]) == (repo, "main"), script
    site = ROOT / "scripts" / "build_site.py"
    assert (py_constant(site, "GITHUB_REPO"), py_constant(site, "BRANCH")) == (readme_repo(), "main")


def _yaml_comment_names(path: Path) -> tuple[str, str]:
    """配置示例的注释里写的环境名与仓库（owner/name），要和 environment.yml、README 一致。"""
    text = path.read_text(encoding="utf-8")
    return re.search(r"环境名 ([\w.-]+)", text).group(1), re.search(r"github\.com/([\w.-]+/[\w.-]+)", text).group(1)


def test_tljh_installs_the_binder_environment():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    path = HUB / "tljh-setup.sh"
    assert path.read_text(encoding="utf-8").startswith("#!/bin/bash")
    subprocess.run(["bash", "-n", str(path)], check=True)
    variables, commands = shell_script(path)
    assert ["set", "-euo", "pipefail"] in commands
    by_program = {}  # 程序名 → 调用它的命令（去掉前面的 sudo / sudo -E）
    for words in commands:
        words = words[1:] if words[0] == "sudo" else words
        words = words[1:] if words[0] == "-E" else words
        by_program.setdefault(words[0].rsplit("/", 1)[-1], []).append(words)
    # 1. 官方安装命令（curl … | sudo -E python3 - --admin "$ADMIN"）
    (install,) = [w for w in by_program["curl"] if "https://tljh.jupyter.org/bootstrap.py" in w]
    assert install[install.index("|") + 1:] == ["sudo", "-E", "python3", "-", "--admin", "$ADMIN"]
    # 2. 下载的正是仓库里的 environment.yml，再用同一个文件更新用户环境
    (download,) = [w for w in by_program["curl"] if w is not install and "environment.yml" in " ".join(w)]
    assert "$REPO/raw/$BRANCH/environment.yml" in download
    (update,) = by_program["conda"]
    assert update[1:3] == ["env", "update"] and variables["USER_ENV"] == "/opt/tljh/user"
    assert options(update) == {"--prefix": "$USER_ENV", "--file": download[download.index("-o") + 1]}
    # 3. 装本包（依赖已在第 2 步装好）
    (pip,) = by_program["pip"]
    assert pip[1:] == ["install", "--no-deps", "nlpbook @ git+$REPO@$BRANCH"]
    # 4. tljh-config set 的设置与 tljh-config.yaml 示例完全相同，最后 reload
    settings = {w[2]: w[3] for w in by_program["tljh-config"] if w[1] == "set"}
    config = yaml.safe_load((HUB / "tljh-config.yaml").read_text(encoding="utf-8"))
    assert settings == {"user_environment.default_app": config["user_environment"]["default_app"],
                        "limits.memory": str(config["limits"]["memory"]), "limits.cpu": str(config["limits"]["cpu"]),
                        "services.cull.timeout": str(config["services"]["cull"]["timeout"])}
    # 内核回收：下载的正是仓库里的 docs/hub/jupyter_server_config.json，放进用户环境的 etc/jupyter
    (kernel_cull,) = [w for w in by_program["curl"] if "$REPO/raw/$BRANCH/docs/hub/jupyter_server_config.json" in w]
    tee = kernel_cull.index("tee")
    assert kernel_cull[tee + 1] == "$USER_ENV/etc/jupyter/jupyter_server_config.json"
    assert config["user_environment"]["default_app"] == "jupyterlab" and isinstance(config["users"]["admin"], list)
    assert by_program["tljh-config"][-1] == ["tljh-config", "reload"]
    # 5. 最后在用户环境里跑一遍环境检查
    doctor = ["$USER_ENV/bin/python", "-m", "nlpbook.doctor"]
    assert any(w[i:i + 3] == doctor for w in commands for i in range(len(w)))
    assert _yaml_comment_names(HUB / "tljh-config.yaml") == (env["name"], readme_repo())


def test_z2jh_image_is_built_by_repo2docker_from_this_repository():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    config = yaml.safe_load((HUB / "z2jh-config.yaml").read_text(encoding="utf-8"))
    repo_name = readme_repo().split("/")[1]
    path = HUB / "build-image.sh"
    subprocess.run(["bash", "-n", str(path)], check=True)
    variables, commands = shell_script(path)
    assert ["set", "-euo", "pipefail"] in commands
    assert variables["IMAGE"] == f"$PREFIX/{repo_name}:$TAG"
    image = config["singleuser"]["image"]
    assert image["name"].endswith("/" + repo_name) and image["tag"] == variables["TAG"] == "main"
    assert config["singleuser"]["defaultUrl"] == "/lab"
    (build,) = [w for w in commands if w[0] == "jupyter-repo2docker"]
    opts = options(build)
    assert build[-1] == "$REPO" and opts["--no-run"] is True
    assert opts["--ref"] == "$BRANCH" and opts["--image-name"] == "$IMAGE"
    assert opts["--target-repo-dir"] == f"/srv/{repo_name}"
    assert opts["--appendix"] == "RUN python -m pip install --no-cache-dir nbgitpuller"
    assert ["docker", "push", "$IMAGE"] in commands
    assert _yaml_comment_names(HUB / "z2jh-config.yaml") == (env["name"], readme_repo())


def test_link_for_one_chapter():
    url = links.link("https://hub.example.edu/", "01-task.ipynb")
    parts = urlsplit(url)
    assert parts.scheme == "https" and parts.netloc == "hub.example.edu"
    assert parts.path == "/hub/user-redirect/git-pull"
    assert "repo=https%3A%2F%2Fgithub.com%2Fnlpbook%2Fnlp-from-scratch&" in url   # 仓库地址做了 URL 编码
    q = parse_qs(parts.query)
    assert q == {"repo": ["https://github.com/nlpbook/nlp-from-scratch"],
                 "urlpath": ["lab/tree/nlp-from-scratch/notebooks/01-task.ipynb"],
                 "branch": ["main"]}


def test_repo_folder_and_bad_input():
    assert links.repo_folder("https://github.com/a/b.git") == "b"
    assert links.repo_folder("https://gitee.com/a/nlp-from-scratch/") == "nlp-from-scratch"
    with pytest.raises(ValueError, match="http"):
        links.link("hub.example.edu", "01-task.ipynb")
    with pytest.raises(ValueError, match="文件名"):
        links.link("https://hub.example.edu", "notebooks/01-task.ipynb")


def test_script_prints_every_chapter():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "nbgitpuller_links.py"), "https://hub.example.edu"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert [line.split("\t")[0] for line in out] == [p.name for p in NOTEBOOKS]
    for line in out:
        name, url = line.split("\t")
        q = parse_qs(urlsplit(url).query)
        assert q["urlpath"] == [f"lab/tree/nlp-from-scratch/notebooks/{name}"] and q["branch"] == ["main"]
    md = subprocess.run([sys.executable, str(ROOT / "scripts" / "nbgitpuller_links.py"), "https://hub.example.edu",
                         "--markdown"], capture_output=True, text=True, check=True).stdout
    assert md.count("git-pull?") == len(NOTEBOOKS) and "第 1 章" in md
    bad = subprocess.run([sys.executable, str(ROOT / "scripts" / "nbgitpuller_links.py"), "hub.example.edu"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "http" in bad.stderr


def test_teaching_page_links_and_commands():
    from test_binder import relative_targets
    text = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    missing = [t for t in relative_targets(text) if not (ROOT / "docs" / t).exists()]
    assert not missing, f"docs/teaching.md 里的链接指向不存在的文件：{missing}"
    for needed in ("python -m nlpbook.doctor", "scripts/nbgitpuller_links.py", "make site",
                   "lab/tree/nlp-from-scratch/notebooks/", "tljh-setup.sh", "build-image.sh", "z2jh-config.yaml"):
        assert needed in text, needed


def test_kernel_culling_is_the_same_everywhere():
    """Binder（postBuild 复制）、TLJH（tljh-setup.sh 下载）、Z2JH（extraFiles）用的是同一份内核回收设置。"""
    cull = json.loads((HUB / "jupyter_server_config.json").read_text(encoding="utf-8"))
    kernels = cull["MappingKernelManager"]
    assert kernels["cull_connected"] is False and kernels["cull_busy"] is False   # 只回收关掉的标签页、空闲的内核
    assert 0 < kernels["cull_interval"] < kernels["cull_idle_timeout"]
    post = (ROOT / "postBuild").read_text(encoding="utf-8")
    assert 'cp docs/hub/jupyter_server_config.json "${HOME}/.jupyter/jupyter_server_config.json"' in post
    z2jh = yaml.safe_load((HUB / "z2jh-config.yaml").read_text(encoding="utf-8"))
    extra = z2jh["singleuser"]["extraFiles"]["kernel-culling"]
    assert extra["data"] == cull and extra["mountPath"] == "/etc/jupyter/jupyter_server_config.json"


def test_kernel_culling_really_stops_an_idle_kernel(tmp_path):
    """同一份设置（只把时间缩短）交给真的 jupyter-server：没有标签页连着的空闲内核被停掉。"""
    import secrets
    import socket
    import time
    import urllib.request
    cull = json.loads((HUB / "jupyter_server_config.json").read_text(encoding="utf-8"))
    cull["MappingKernelManager"].update(cull_idle_timeout=4, cull_interval=1)
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "jupyter_server_config.json").write_text(json.dumps(cull))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(cfg), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    args = [sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}"]
    server = subprocess.Popen(args + (["--allow-root"] if os.getuid() == 0 else []), env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def api(path, method="GET"):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/{path}", method=method,
                                     headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
        return json.loads(body) if body else None
    try:
        t0 = time.monotonic()
        while True:
            try:
                api("status")
                break
            except OSError:
                assert time.monotonic() - t0 < 120 and server.poll() is None, "jupyter-server 没有启动"
                time.sleep(0.3)
        kid = api("kernels", "POST")["id"]
        t0 = time.monotonic()
        while any(k["id"] == kid for k in api("kernels")) and time.monotonic() - t0 < 120:
            time.sleep(1)
        assert not any(k["id"] == kid for k in api("kernels")), "空闲的内核没有被回收"
    finally:
        server.terminate()
        server.wait(timeout=30)
