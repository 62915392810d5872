// 阅读网站：页面里每个 <div class="nlpbook-site-panel"> 带着保存时的面板状态（JSON）；
// 这里给模块一个只在本页内存里的 model（get/set/on/off/save_changes/send），再调用模块的 render。
// 没有内核：set 只通知本页的监听者；model.get("offline") 为 true（JupyterLab 里是 undefined），
// 需要内核才能回答的操作在网站上改用 Python 预先算好放进 data 的答案。
function localModel(state) {
  const handlers = {};
  const fire = (e) => (handlers[e] || []).slice().forEach((f) => f());
  return {
    get: (k) => state[k],
    set(k, v) {
      if (JSON.stringify(state[k]) === JSON.stringify(v)) return;
      state[k] = v;
      fire(`change:${k}`);
      fire("change");
    },
    save_changes() {},
    send() {},
    on(e, f) { (handlers[e] = handlers[e] || []).push(f); },
    off(e, f) { if (!e) { for (const k of Object.keys(handlers)) delete handlers[k]; return; } handlers[e] = (handlers[e] || []).filter((g) => g !== f); },
  };
}

function boot() {
  for (const host of document.querySelectorAll("div.nlpbook-site-panel:not([data-live])")) {
    const script = host.querySelector("script[type='application/json']");
    const spec = script && JSON.parse(script.textContent);
    const mod = spec && P[spec.module];
    if (!mod) continue;
    const el = document.createElement("div");
    host.setAttribute("data-live", "1");
    host.replaceChildren(el);
    mod.render({ model: localModel({ ...spec.state, offline: true, _anywidget_id: spec.module }), el });
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
