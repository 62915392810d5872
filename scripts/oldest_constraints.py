"""把 pyproject.toml 里运行时依赖的下限写成 pip 的约束文件（name==下限），make test-oldest 用它装“最旧的支持版本”。

  python scripts/oldest_constraints.py > constraints.txt

只管运行时依赖（读者的环境就是它们）；测试工具（pytest、nbval……）由 pip 在这些约束下挑能配合的版本。
没有下限（>=）的依赖会报错：每个依赖都必须写明测试过的下限。
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10：用 pip 自带的同一个解析器
    from pip._vendor import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def lowest_pins(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    deps = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = []
    for dep in deps:
        m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\[[^\]]*\])?\s*(.*)$", dep)
        name, spec = m.group(1), m.group(2)
        low = re.search(r">=\s*([0-9][^,;\s]*)", spec)
        if not low:
            raise SystemExit(f"依赖 {dep!r} 没有写下限（>=）：先写明测试过的最低版本")
        pins.append(f"{name}=={low.group(1)}")
    return pins


if __name__ == "__main__":
    sys.stdout.write("\n".join(lowest_pins()) + "\n")
