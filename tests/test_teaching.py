"""教学配置：JupyterHub 示例能解析、指向同一个仓库和环境；nbgitpuller 链接脚本输出正确。"""
import importlib.util
import re
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


def test_everything_names_the_same_repository():
    repo = f"https://github.com/{readme_repo()}"
    assert links.REPO == repo and links.BRANCH == "main"
    for script in ("tljh-setup.sh", "build-image.sh"):
        text = (HUB / script).read_text(encoding="utf-8")
        assert f'REPO="{repo}"' in text and 'BRANCH="main"' in text, script
    site = (ROOT / "scripts" / "build_site.py").read_text(encoding="utf-8")
    assert f'GITHUB_REPO = "{readme_repo()}"' in site


def test_tljh_installs_the_binder_environment():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    setup = (HUB / "tljh-setup.sh").read_text(encoding="utf-8")
    assert setup.startswith("#!/bin/bash") and "set -euo pipefail" in setup
    assert "tljh.jupyter.org/bootstrap.py" in setup
    assert '"$REPO/raw/$BRANCH/environment.yml"' in setup and "env update --prefix \"$USER_ENV\"" in setup
    assert 'git+$REPO@$BRANCH' in setup and "nlpbook.doctor" in setup
    subprocess.run(["bash", "-n", str(HUB / "tljh-setup.sh")], check=True)
    config = yaml.safe_load((HUB / "tljh-config.yaml").read_text(encoding="utf-8"))
    assert config["user_environment"]["default_app"] == "jupyterlab"
    assert isinstance(config["users"]["admin"], list)
    text = (HUB / "tljh-config.yaml").read_text(encoding="utf-8")
    assert f"环境名 {env['name']}" in text and f"github.com/{readme_repo()}" in text


def test_z2jh_image_is_built_by_repo2docker_from_this_repository():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    config = yaml.safe_load((HUB / "z2jh-config.yaml").read_text(encoding="utf-8"))
    image = config["singleuser"]["image"]
    repo_name = readme_repo().split("/")[1]
    assert image["name"].endswith("/" + repo_name) and image["tag"]
    assert config["singleuser"]["defaultUrl"] == "/lab"
    build = (HUB / "build-image.sh").read_text(encoding="utf-8")
    assert "jupyter-repo2docker" in build and f'IMAGE="$PREFIX/{repo_name}:$TAG"' in build
    assert "nbgitpuller" in build and "--target-repo-dir" in build and '--ref "$BRANCH"' in build
    subprocess.run(["bash", "-n", str(HUB / "build-image.sh")], check=True)
    text = (HUB / "z2jh-config.yaml").read_text(encoding="utf-8")
    assert f"环境名 {env['name']}" in text and f"github.com/{readme_repo()}" in text


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
