"""交互面板（展示层）：每个面板一个 Python 模块 + 一个 ES 模块（js/<模块>.js），只导入它展示的核心模块和 viz。

规则（写法见 _client.py）：面板是纯函数外面的一层薄壳，在浏览器里运行。
  - Python 把面板要的数据用核心模块算一次，放进同步给浏览器的 ``data``；控件的值是同步的 traitlets
    （测试与 notebook 里直接读写，如 ``panel.decay = 1.1``）；
  - 控件和视图在 js/<模块>.js 里：控件一动，视图在同一个 input 事件里重画，不经过内核——
    所以在 JupyterLab 里训练格运行时面板照样能动，在静态阅读网站上（没有内核）也能动；
  - ``fallback_html()`` 是当前状态的静态视图：存进 notebook 的输出，nbval 比较它。
只有这一种写法（docs/panels.md）。
"""
