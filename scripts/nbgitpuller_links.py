"""打印每一章的 nbgitpuller 链接：学生点开后，课程被拉进自己的家目录，并在 JupyterLab 里打开那一章。

用法：python scripts/nbgitpuller_links.py https://hub.example.edu [--markdown] [--repo URL] [--branch main]
链接格式：<hub>/hub/user-redirect/git-pull?repo=<仓库>&urlpath=lab/tree/<仓库目录>/notebooks/<章>.ipynb&branch=main
（参数都做 URL 编码）。仓库目录就是仓库名（nbgitpuller 默认把仓库拉到家目录下同名的文件夹），
所以 urlpath 必须带上它，否则 JupyterLab 找不到文件。
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
REPO = "https://github.com/nlpbook/nlp-from-scratch"
BRANCH = "main"


def repo_folder(repo: str) -> str:
    """nbgitpuller 默认的目标目录：仓库地址的最后一段（去掉 .git）。"""
    name = urlsplit(repo).path.rstrip("/").rsplit("/", 1)[-1]
    return name[:-4] if name.endswith(".git") else name


def link(hub: str, notebook: str, repo: str = REPO, branch: str = BRANCH) -> str:
    """一章的 nbgitpuller 链接。notebook 为 notebooks/ 下的文件名，如 '01-task.ipynb'。"""
    if not re.match(r"^https?://[^/\s]+", hub):
        raise ValueError(f"hub 地址应以 http:// 或 https:// 开头，收到 {hub!r}")
    if not notebook.endswith(".ipynb") or "/" in notebook:
        raise ValueError(f"notebook 应是 notebooks/ 下的文件名（如 01-task.ipynb），收到 {notebook!r}")
    urlpath = f"lab/tree/{repo_folder(repo)}/notebooks/{notebook}"
    return (f"{hub.rstrip('/')}/hub/user-redirect/git-pull?repo={quote(repo, safe='')}"
            f"&urlpath={quote(urlpath, safe='')}&branch={quote(branch, safe='')}")


def chapters() -> list[tuple[str, str]]:
    """[(文件名, 标题)]，按文件名排序；标题取 notebook 的第一个一级标题。"""
    import json
    out = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        title = path.stem
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            m = re.search(r"^#\s+(.+)$", src, flags=re.M) if cell["cell_type"] == "markdown" else None
            if m:
                title = m.group(1).strip()
                break
        out.append((path.name, title))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="打印每一章的 nbgitpuller 链接。")
    parser.add_argument("hub", help="JupyterHub 的地址，例如 https://hub.example.edu")
    parser.add_argument("--repo", default=REPO, help=f"课程仓库（默认 {REPO}）")
    parser.add_argument("--branch", default=BRANCH, help=f"分支（默认 {BRANCH}）")
    parser.add_argument("--markdown", action="store_true", help="输出 Markdown 表格（可贴进课程网站或教学平台）")
    args = parser.parse_args(argv)
    try:
        rows = [(name, title, link(args.hub, name, args.repo, args.branch)) for name, title in chapters()]
    except ValueError as exc:
        parser.error(str(exc))
    if args.markdown:
        print("| 章 | 打开 |\n|---|---|")
        for _, title, url in rows:
            print(f"| {title} | [在 JupyterHub 中打开]({url}) |")
    else:
        for name, _, url in rows:
            print(f"{name}\t{url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
