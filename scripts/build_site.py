"""把整门课程做成静态阅读网站（make site）：Sphinx + myst-nb + sphinx-book-theme，用 notebook 里保存的输出，不重新执行。

用法：python scripts/build_site.py [输出目录，默认 _site/] [--hub-url https://hub.example.edu] [--strict]
配置在 docs/site/（conf.py、目录页 index.md、样式与中文搜索脚本）。notebooks/ 原样复制到一个临时源目录里构建，
生成的 HTML 再复制到输出目录，所以仓库里不会多出构建中间文件。
--hub-url 与环境变量 NLPBOOK_HUB_URL 相同：给每页加“在 JupyterHub 中运行”按钮（nbgitpuller 链接）。
--strict 把警告当错误（测试用）。
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONF_DIR = ROOT / "docs" / "site"
GITHUB_REPO = "nlpbook/nlp-from-scratch"   # 网站的仓库按钮、Binder 与 JupyterHub 按钮都用它（docs/site/conf.py 读这里）
BRANCH = "main"


class BuildError(RuntimeError):
    """Sphinx 构建失败或（--strict 时）有警告；消息里带 Sphinx 的警告原文。"""


def build(out_dir: Path, notebooks_dir: Path = ROOT / "notebooks", hub_url: str | None = None,
          strict: bool = False) -> list[Path]:
    """生成网站到 out_dir（先清空），返回生成的 HTML 页面（每个 notebook 一页，另有 index.html）。

    例：build(Path("_site"), hub_url="https://hub.example.edu") → [_site/00-guide.html, …, _site/index.html]
    """
    paths = sorted(notebooks_dir.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"{notebooks_dir} 里没有 notebook")
    env = dict(os.environ)
    if hub_url is not None:
        env["NLPBOOK_HUB_URL"] = hub_url
    with tempfile.TemporaryDirectory(prefix="nlpbook-site-") as tmp:
        src, html = Path(tmp) / "src", Path(tmp) / "html"
        src.mkdir()
        shutil.copy2(CONF_DIR / "index.md", src / "index.md")
        for p in paths:
            shutil.copy2(p, src / p.name)
        # 另起一个进程：Sphinx 的中文搜索会往 jieba 的全局词典里加词，不能影响调用方（例如同一个 pytest 进程）
        cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(CONF_DIR), "-d", str(Path(tmp) / "doctrees"),
               "-q", *(["-W", "--keep-going"] if strict else []), str(src), str(html)]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise BuildError(f"Sphinx 构建失败（退出码 {run.returncode}）：\n{(run.stderr or run.stdout)[-6000:]}")
        if run.stderr.strip():
            sys.stderr.write(run.stderr)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        shutil.copytree(html, out_dir, ignore=shutil.ignore_patterns(".buildinfo", ".doctrees"))
    pages = [out_dir / f"{p.stem}.html" for p in paths] + [out_dir / "index.html"]
    missing = [p.name for p in pages if not p.is_file()]
    if missing:
        raise BuildError(f"构建完成但缺少页面：{missing}")
    return pages


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="用保存的输出生成课程的静态阅读网站。")
    parser.add_argument("out", nargs="?", default=str(ROOT / "_site"), help="输出目录（默认 _site/）")
    parser.add_argument("--hub-url", default=None,
                        help="班级 JupyterHub 地址，如 https://hub.example.edu（默认取环境变量 NLPBOOK_HUB_URL）")
    parser.add_argument("--strict", action="store_true", help="有警告就失败")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    start = time.perf_counter()
    try:
        pages = build(out, hub_url=args.hub_url, strict=args.strict)
    except (BuildError, FileNotFoundError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"已生成 {len(pages)} 个页面（{len(pages) - 1} 章 + 目录），用时 {time.perf_counter() - start:.0f} s："
          f"{out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
