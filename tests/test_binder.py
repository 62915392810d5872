"""Binder（链接只在这里检查）：每个 notebook 的首个单元有打开它自己的 ?labpath= 链接；README 与 notebook 里的
每个 Binder 链接和相对链接都指向存在的文件；environment.yml、apt.txt、postBuild 是 repo2docker 能用的格式。"""
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
BINDER = "https://mybinder.org/v2/gh/nlpbook/nlp-from-scratch/main?labpath="

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_MD_LINK = re.compile(r"\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+\"[^\"]*\")?\s*\)")   # “](目标)”：图片套在链接里也能找到
_HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""")


def links(markdown: str) -> list[str]:
    """Markdown 与内嵌 HTML 里的全部链接目标（代码块和行内代码里的不算）。"""
    text = _CODE.sub("", _FENCE.sub("", markdown))
    return [a or b for a, b in _MD_LINK.findall(text)] + _HTML_LINK.findall(text)


def relative_targets(markdown: str) -> list[str]:
    out = []
    for url in links(markdown):
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:   # 外部链接、mailto:、页内锚点
            continue
        out.append(unquote(parts.path))
    return out


def markdown_of(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_link_parser():
    md = ("见[第 12 章](12-attention.ipynb)和 [图](<img dir/a b.png>)，"
          '<a href="../README.md#目录">说明</a>，[外部](https://example.org/x.ipynb)，[锚点](#小练习)。\n'
          "```python\n[不是链接](nope.ipynb)\n```\n`[也不是](nope2.ipynb)`")
    assert relative_targets(md) == ["12-attention.ipynb", "img dir/a b.png", "../README.md"]
    badge = "[![在 Binder 中打开](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/x)"
    assert links(badge) == ["https://mybinder.org/badge_logo.svg", "https://mybinder.org/v2/gh/x"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_first_cell_has_the_notebooks_own_binder_link(path):
    first = nbformat.read(path, as_version=4).cells[0]
    own = BINDER + "notebooks%2F" + path.name
    assert first.cell_type == "markdown" and own in links(first.source), \
        f"{path.name} 的首个单元缺少打开它自己的 Binder 链接：{own}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_relative_links_in_notebooks_exist(path):
    missing = [t for t in relative_targets(markdown_of(path)) if not (path.parent / t).exists()]
    assert not missing, f"{path.name} 里的链接指向不存在的文件：{missing}"


def test_relative_links_in_readme_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [t for t in relative_targets(readme) if not (ROOT / t).exists()]
    assert not missing, f"README 里的链接指向不存在的文件：{missing}"


def test_binder_links_open_existing_notebooks():
    sources = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    sources.update({p.name: markdown_of(p) for p in NOTEBOOKS})
    bad = []
    for name, text in sources.items():
        for url in links(text):
            if url.startswith("https://mybinder.org/v2/gh/"):
                assert url.startswith(BINDER), f"{name}: Binder 链接应指向本仓库的 main 分支：{url}"
                target = unquote(url[len(BINDER):])
                if not (ROOT / target).is_file():
                    bad.append(f"{name}: {target}")
    assert not bad, "Binder 链接打开的文件不存在：" + "；".join(bad)


def test_environment_yml_is_valid_for_repo2docker():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert isinstance(env, dict) and env.get("name"), "environment.yml 需要 name"
    assert env["channels"] == ["conda-forge"]
    deps = env.get("dependencies")
    assert isinstance(deps, list) and deps
    assert "pip" in deps, "用了 pip 段就要在 conda 依赖里列出 pip 本身"
    pip_sections = [d for d in deps if isinstance(d, dict)]
    assert len(pip_sections) == 1 and set(pip_sections[0]) == {"pip"}
    assert pip_sections[0]["pip"] and all(isinstance(p, str) for p in pip_sections[0]["pip"])
    assert all(isinstance(d, str) for d in deps if not isinstance(d, dict))
    assert any(re.match(r"python\b", d) for d in deps if isinstance(d, str)), "需要写明 python 版本"


def test_apt_txt_lists_plain_debian_package_names():
    lines = [line.strip() for line in (ROOT / "apt.txt").read_text(encoding="utf-8").splitlines()]
    packages = [line for line in lines if line and not line.startswith("#")]
    assert packages, "apt.txt 没有列出任何包"
    for name in packages:
        # Debian 包名：小写字母、数字和 + - .，至少两个字符，以字母或数字开头；不带版本号和选项
        assert re.fullmatch(r"[a-z0-9][a-z0-9+.\-]+", name), f"apt.txt 里不是一个普通的包名：{name!r}"


def test_postbuild_installs_the_course_package():
    lines = (ROOT / "postBuild").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#!/bin/bash") and "set -euo pipefail" in lines
    commands = [line for line in lines if line and not line.startswith("#")]
    assert "pip install --no-deps -e ." in commands   # 依赖已由 environment.yml 装好，只装本包
