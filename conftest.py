"""pytest 的共同设置：nbval 重跑的 notebook 单元都带上 notebook 标记，
这样 `pytest -m "notebook or record"` 只选出“每台机器上都必须一样”的部分（scripts/machine_matrix.py 用它）。"""
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        path, _, rest = item.nodeid.partition("::")
        if path.endswith(".ipynb") and rest.startswith("Cell "):
            item.add_marker(pytest.mark.notebook)
