"""所有面板共用的底座：控件一动就重画；重画还没结束时又来的变化合并成一次，不排队。

教学位置：各章的交互面板（第 1—14 章、附录 C）都建在它上面。

做法：一个“正在重画”的标记加一个“又脏了”的标记。
- 没在重画时，控件的变化立刻（同步地）重画一次——测试里设置 ``control.value`` 之后马上就能读到新视图；
- 正在重画时又来了变化（比如重画过程中别的控件被改了），只记下“又脏了”就返回；
  这一轮画完后再用控件的**最新**值补画一次。来了多少次变化都只补画一次，中间状态不画。
不做的事：不按时间去抖（debounce），不开线程。

例：
    class Demo(Panel):
        def __init__(self):
            self.n = W.IntSlider(); self.view = W.HTML()
            self.watch([self.n]); self.update()
        def update(self):
            self.view.value = str(self.n.value)
"""
from __future__ import annotations

__all__ = ["Panel"]


class Panel:
    """面板的基类：``watch`` 登记控件，``redraw`` 请求一次（合并式的）重画，子类只写 ``update``。

    ``renders`` 数一共真正重画了几次（测试用它检查“合并而不排队”）。
    """

    renders = 0
    _drawing = False
    _dirty = False

    def update(self) -> None:  # 子类实现：读控件的当前值，写 view
        raise NotImplementedError

    def watch(self, controls, prep=None) -> None:
        """控件的 value 一变就 redraw。prep(change) 是重画前要先做的同步工作（如按新的头数改另一个下拉框的选项）：
        它里面引起的控件变化不会各自再重画，最后只画一次。"""
        for c in controls:
            c.observe(lambda change: self._changed(change, prep), names="value")

    def _changed(self, change, prep) -> None:
        if prep is not None:
            was, self._drawing = self._drawing, True   # prep 期间的变化只记“脏”
            try:
                prep(change)
            finally:
                self._drawing = was
        self.redraw()

    def redraw(self) -> None:
        """正在重画就只记下“脏”；否则画，画完发现又脏了就用最新的值再画，直到干净为止。"""
        if self._drawing:
            self._dirty = True
            return
        self._drawing = True
        try:
            while True:
                self._dirty = False
                self.update()
                self.renders += 1
                if not self._dirty:
                    break
        finally:
            self._drawing = self._dirty = False
