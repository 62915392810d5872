/* MathJax 3：启动后禁用菜单里要再加载组件的几项。网站只带 tex-chtml.js、CHTML 字体和用到的 TeX 扩展
 * （conf.py 的 MATHJAX_TEX_EXTENSIONS），所以 SVG 渲染、无障碍探索器、可折叠公式这几项在这里禁用
 * （MathJax 在没有加载器时也是这样做的），离线时不会去取不存在的文件。屏幕阅读器照样读到公式：
 * assistive MathML 在 tex-chtml.js 里，默认打开。本脚本排在 Sphinx 写的 window.MathJax 设置之后、
 * tex-chtml.js（defer）之前运行，只补上 startup.ready。 */
window.MathJax = window.MathJax || {};
MathJax.startup = Object.assign(MathJax.startup || {}, {
  ready() {
    MathJax.startup.defaultReady();
    const menu = MathJax.startup.document.menu && MathJax.startup.document.menu.menu;
    if (!menu) return;
    for (const path of [["Settings", "Renderer", "SVG"], ["Accessibility", "Activate"],
                        ["Accessibility", "AutoCollapse"], ["Accessibility", "Collapsible"]]) {
      const item = menu.findID(...path);
      if (item) item.disable();
    }
  },
});
