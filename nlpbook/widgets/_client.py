"""在浏览器里运行的面板（anywidget）：Python 把面板要的数据算一次，控件和视图是 js/ 里的一个 ES 模块。

一个面板 = 一个 ``ClientPanel`` 子类 + ``js/<module>.js``：
  - ``module``：ES 模块的文件名（不带 .js）；模块 ``export default { render({ model, el }) }``，
    用 ``_kit.js`` 里的 NP 建控件与视图，控件一动就在同一个 input 事件里重画（不经过内核，不等下一帧）；
  - 控件是同步的 traitlets（``decay = Float(0.5).tag(sync=True)``），名字列在 ``controls`` 里；
    Python 可以读（``panel.decay``），也可以设（浏览器里的视图跟着变）；
  - ``data``：Python 只算一次的数据（曲线、表格、邻居……），同步给浏览器；
  - ``fallback_html()``：当前状态的静态视图，存进 notebook 输出的 text/html——nbval 比较它，
    没有控件前端的地方（nbconvert、阅读网站的脚本加载之前）显示它。
保存的输出里还有 ``application/vnd.nlpbook.panel+json``：{"module", "state"}，阅读网站用它在浏览器里把面板重新搭起来
（docs/site/conf.py 与 _static/panels-loader.js），不需要内核。
需要内核才能回答的操作（自由输入的生成），模块 ``model.set`` 一个请求值，Python 端 observe 后把结果写回另一个值；
阅读网站上 ``model.get("offline")`` 为 true，这类操作改用 Python 预先算好放进 ``data`` 的一组答案（如本章的几个提示词）。

例：
    class Demo(ClientPanel):
        module = "demo"
        controls = ("n",)
        n = traitlets.Int(3).tag(sync=True)
        def fallback_html(self): return f"<b>{self.n}</b>"
"""
from __future__ import annotations

import json
from pathlib import Path

import anywidget
import traitlets

__all__ = ["ClientPanel", "PANEL_MIME", "JS_DIR", "compact", "esm_source", "site_bundle", "modules"]

PANEL_MIME = "application/vnd.nlpbook.panel+json"
JS_DIR = Path(__file__).resolve().parent / "js"
KIT = "_kit"
EXPORT = "export default "


def compact(value, sig: int = 6):
    """数据里的浮点数留 sig 位有效数字（面板最多显示 3—4 位），让保存的输出和网页小一些；其余原样。"""
    if isinstance(value, float):
        return float(f"{value:.{sig}g}")
    if isinstance(value, dict):
        return {k: compact(v, sig) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [compact(v, sig) for v in value]
    return value


def _module_text(module: str) -> str:
    path = JS_DIR / f"{module}.js"
    if not path.is_file():
        raise FileNotFoundError(f"没有面板模块 {path}")
    return path.read_text(encoding="utf-8")


def esm_source(module: str) -> str:
    """给 anywidget 的 ES 模块：_kit.js + js/<module>.js（模块里恰好一处 ``export default``）。"""
    body = _module_text(module)
    if body.count(EXPORT) != 1:
        raise ValueError(f"js/{module}.js 里应当正好有一处 '{EXPORT.strip()}'")
    return _module_text(KIT) + "\n" + body


def modules() -> list[str]:
    """js/ 里的全部面板模块（不含 _kit）。"""
    return sorted(p.stem for p in JS_DIR.glob("*.js") if not p.stem.startswith("_"))


def site_bundle(modules) -> str:
    """阅读网站用的普通脚本（不是 ES 模块，file:// 打开也能运行）：kit 只出现一次，
    每个模块的 ``export default X`` 变成 ``window.NLPBOOK_PANELS[名字] = X``。"""
    parts = ["(function () {", "\"use strict\";", _module_text(KIT), "const P = (window.NLPBOOK_PANELS = window.NLPBOOK_PANELS || {});"]
    for m in sorted(set(modules)):
        body = _module_text(m)
        if body.count(EXPORT) != 1:
            raise ValueError(f"js/{m}.js 里应当正好有一处 '{EXPORT.strip()}'")
        parts.append(f"P[{json.dumps(m)}] = (function () {{\n{body.replace(EXPORT, 'return ')}\n}})();")
    parts.append(_module_text("_site_loader"))
    parts.append("})();")
    return "\n".join(parts)


class ClientPanel(anywidget.AnyWidget):
    """所有面板的底座。子类给出 ``module``、``controls``、同步的控件值和 ``fallback_html``。"""

    module = ""
    controls: tuple[str, ...] = ()
    data = traitlets.Dict().tag(sync=True)
    _css = (JS_DIR / "panels.css").read_text(encoding="utf-8")

    def __init_subclass__(cls, **kwargs) -> None:
        if cls.__dict__.get("module"):
            cls._esm = esm_source(cls.module)
        super().__init_subclass__(**kwargs)

    def fallback_html(self) -> str:  # 子类实现：当前状态的静态视图
        raise NotImplementedError

    @classmethod
    def example(cls) -> "ClientPanel":
        """测试用的一个小实例（构造要参数的面板覆盖它，例如用玩具数据）。"""
        return cls()

    @property
    def widget(self):
        """notebook 里显示的对象（面板自己；保留这个名字，与各章的 ``panel.widget`` 写法一致）。"""
        return self

    def state(self) -> dict:
        """控件的当前值和数据：阅读网站用它搭面板（只含 JSON 能表示的值）。"""
        return {"data": self.data, **{name: getattr(self, name) for name in self.controls}}

    def __repr__(self) -> str:
        values = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.controls)
        return f"{type(self).__name__}({values})"

    def _repr_mimebundle_(self, **kwargs):
        data, meta = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)      # 完整的一行：ipywidgets 8.0 会把超过 110 个字符的截断成“…”
        data["text/html"] = f'<div class="nlpbook-panel-fallback">{self.fallback_html()}</div>'
        data[PANEL_MIME] = {"module": self.module, "state": self.state()}
        return data, meta
