"""pyproject.toml 与 environment.yml（Binder）声明同一套依赖、同样的版本范围。"""
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# conda-forge 上的名字与 PyPI 不同的包
CONDA_TO_PYPI = {"matplotlib-base": "matplotlib"}
NOT_PACKAGES = {"python", "pip"}


def _split(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", req)
    return m.group(1).lower().replace("_", "-"), m.group(2).replace(" ", "")


def _pyproject() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(_split(r) for r in data["project"]["dependencies"])


def _environment() -> tuple[dict[str, str], str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    deps, python = {}, ""
    for d in env["dependencies"]:
        items = d["pip"] if isinstance(d, dict) else [d]
        for item in items:
            name, spec = _split(item)
            if name == "python":
                python = spec
            if name not in NOT_PACKAGES:
                deps[CONDA_TO_PYPI.get(name, name)] = spec
    return deps, python


def test_same_packages_and_ranges():
    py, (env, _) = _pyproject(), _environment()
    assert set(py) == set(env), f"只在 pyproject: {set(py) - set(env)}；只在 environment.yml: {set(env) - set(py)}"
    for name in py:
        assert py[name] == env[name], f"{name}: pyproject {py[name]!r} ≠ environment.yml {env[name]!r}"


def test_ranges_not_pins_and_same_python():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for name, spec in _pyproject().items():
        assert "==" not in spec and ">=" in spec, f"{name} 需要一个有下限的版本范围，而不是固定版本：{spec!r}"
    _, python = _environment()
    assert python == data["project"]["requires-python"].replace(" ", "")


def test_every_subpackage_is_installed():
    """pyproject.toml 的 packages 列出 nlpbook 下每个含 __init__.py 的包（漏了的包 pip install 后会缺失）。"""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "nlpbook").rglob("__init__.py")}
    assert on_disk <= listed, f"pyproject.toml 的 packages 漏了：{sorted(on_disk - listed)}"
