"""pytest 的共同设置：nbval 重跑的 notebook 单元都带上 notebook 标记，
这样 `pytest -m "notebook or record"` 只选出“每台机器上都必须一样”的部分（scripts/machine_matrix.py 用它）。"""
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        path, _, rest = item.nodeid.partition("::")
        if path.endswith(".ipynb") and rest.startswith("Cell "):
            item.add_marker(pytest.mark.notebook)


# hypothesis：每次运行用同一串例子（derandomize），CI 与读者的 make test 结果一样、失败可以复现；
# 不设单个例子的时限（机器忙时时限会让测试随机失败）。想多找找反例：pytest --hypothesis-profile=explore
try:
    from hypothesis import settings
except ImportError:  # 只装了运行依赖时
    pass
else:
    settings.register_profile("course", derandomize=True, deadline=None)
    settings.register_profile("explore", max_examples=1000, deadline=None)
    settings.load_profile("course")
