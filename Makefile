# 两个命令就够：make lab（安装并打开课程）、make test（安装并运行全部测试）。
# 没有 make 时的等价命令见 README。
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab test test-machines test-oldest notebooks site bench install install-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -c "import matplotlib.pyplot"   # 预先建好字体缓存
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	# npm 包装进 .venv/npm：JupyterHub 的代理、阅读网站的公式渲染（MathJax 3）与无障碍检查（axe-core）；
	# 没有 npm 时跳过，hub 测试与网站测试会说明缺什么
	if command -v npm >/dev/null 2>&1; then npm install --silent --no-audit --no-fund --prefix $(VENV)/npm configurable-http-proxy mathjax@3 axe-core@4; fi
	$(BIN)/python -c "import matplotlib.pyplot"
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

## 打开课程（只在本机 127.0.0.1 上监听，带 token；浏览器地址见终端输出）
lab: install
	$(BIN)/jupyter lab --ip=127.0.0.1 $(ALLOW_ROOT) notebooks/00-guide.ipynb

## 全部测试：单元测试 + nbval 严格重跑每个 notebook + 真浏览器检查
test: install-test
	$(BIN)/python -m pytest

## 模拟别的 CPU：换 OpenBLAS 内核（Haswell、Prescott，CPU 有 AVX-512 时再加 SkylakeX）、关掉 numpy 的新 SIMD 路径，
## 各跑一遍严格 nbval 与“重跑记录里的一个种子”的测试；全部要与存储的输出一致（见 docs/teaching.md）
test-machines: install-test
	$(BIN)/python scripts/machine_matrix.py

## 最旧的支持版本：pyproject.toml 里每个运行时依赖都装它的下限（装在 .venv-oldest），跑单元测试与严格 nbval；
## 浏览器、JupyterHub 与阅读网站的测试只在 make test 里跑
OLDEST := .venv-oldest
$(OLDEST)/.installed: pyproject.toml scripts/oldest_constraints.py
	$(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST)/bin/python scripts/oldest_constraints.py > $(OLDEST)/constraints.txt
	$(OLDEST)/bin/python -m pip install --quiet -c $(OLDEST)/constraints.txt -e ".[test]"
	$(OLDEST)/bin/python -c "import matplotlib.pyplot"
	touch $@

test-oldest: $(OLDEST)/.installed
	$(OLDEST)/bin/python -m pip list --format=freeze | grep -iE '^(numpy|matplotlib|pandas|ipywidgets|jupyterlab|ipykernel)=='
	$(OLDEST)/bin/python -m pytest -q --ignore=tests/test_browser.py --ignore=tests/test_hub.py --ignore=tests/test_site.py

## 重新执行并保存所有 notebook（与 nbval 检查的方式相同）
notebooks: install-test
	$(BIN)/python scripts/execute_notebooks.py

## 阅读网站（Sphinx + myst-nb + sphinx-book-theme）：用 notebook 里保存的输出生成 _site/（不重新执行），
## 浏览器打开 _site/index.html。班级 JupyterHub 的启动按钮：NLPBOOK_HUB_URL=https://hub.example.edu make site
site: install-test
	$(BIN)/python scripts/build_site.py _site

## 测量预算（notebook 时间与内存、控件更新、import 时间）
bench: install-test
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(OLDEST)
