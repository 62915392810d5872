"""README 里“没有 make 时”的命令与 Makefile 做的事一致；Windows 与 Linux 两组命令一一对应。"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(lang: str, after: str) -> list[str]:
    """README 里 after 这句话之后的第一个 ```lang 代码块，去掉空行与注释。"""
    tail = README[README.index(after):]
    m = re.search(rf"```{lang}\n(.*?)```", tail, re.S)
    assert m, f"README 在“{after}”之后没有 {lang} 代码块"
    return [ln.strip() for ln in m.group(1).splitlines() if ln.strip() and not ln.strip().startswith("#")]


def _make_commands() -> list[str]:
    """Makefile 里 lab / test 两条路线实际运行的命令，变量展开成 README 的写法。"""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    cmds = []
    for line in text.splitlines():
        if line.startswith("\t"):
            cmd = line.strip().split("   #")[0].strip()
            cmd = (cmd.replace("$(PYTHON)", "python3").replace("$(VENV)", ".venv").replace("$(BIN)", ".venv/bin")
                   .replace("$(ALLOW_ROOT) ", "").replace(" --quiet", ""))
            cmds.append(cmd)
    return cmds


def test_linux_commands_are_what_make_runs():
    readme = _block("bash", "**Linux / macOS**")
    make = _make_commands()
    # Makefile 用 python -c "import matplotlib.pyplot" 预先建字体缓存；README 用 doctor（它也会建好缓存）
    assert '.venv/bin/python -c "import matplotlib.pyplot"' in make
    expected = ["python3 -m venv .venv",
                ".venv/bin/python -m pip install --upgrade pip",
                '.venv/bin/python -m pip install -e ".[test]"',
                ".venv/bin/python -m nlpbook.doctor",
                ".venv/bin/jupyter lab --ip=127.0.0.1 notebooks/00-guide.ipynb",
                ".venv/bin/python -m pytest"]
    assert readme == expected
    for cmd in expected:
        if "doctor" not in cmd:
            assert cmd in make, f"README 的 {cmd!r} 不是 Makefile 里的命令"


def test_doctor_builds_the_font_cache_like_the_makefile_does(tmp_path):
    """README 用 doctor 代替 Makefile 的 import matplotlib.pyplot：它也要把字体缓存建好（否则首次画图的提示会进 stderr）。"""
    env = dict(os.environ, MPLCONFIGDIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", "from nlpbook import doctor; doctor.check_font()"],
                   env=env, check=True, capture_output=True, timeout=300)
    assert list(tmp_path.glob("fontlist-*.json")), "doctor 没有建好 matplotlib 的字体缓存"


def test_windows_commands_mirror_the_linux_ones():
    linux = _block("bash", "**Linux / macOS**")
    windows = _block("bat", "**Windows**")
    translated = [c.replace("py -3 ", "python3 ").replace(".venv\\Scripts\\", ".venv/bin/") for c in windows]
    assert translated == linux
    assert all("/bin/" not in c for c in windows), "Windows 的命令要用 .venv\\Scripts\\"


def test_conda_route_uses_the_binder_environment():
    conda = _block("bash", "**conda / mamba**")
    env_name = re.search(r"^name:\s*(\S+)", (ROOT / "environment.yml").read_text(encoding="utf-8"), re.M).group(1)
    assert conda[0] == "conda env create -f environment.yml"
    assert conda[1] == f"conda activate {env_name}"
    assert conda[2] == 'python -m pip install -e ".[test]"'
