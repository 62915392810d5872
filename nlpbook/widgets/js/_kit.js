// 面板共用的小工具：建元素、带标签的控件（键盘可操作）、折线图、数字格式。
// 每个面板模块（js/<面板>.js）前面都拼上这一段（Python 的 esm_source）；阅读网站上整站只拼一次。
// 规则：模块里不 import，只用这里的 NP；视图在控件的 input 事件里同步重画（不等下一帧、不经过内核）。
const NP = (() => {
  let uid = 0;
  const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ESC[c]);
  const PALETTE = ["#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB"];

  function el(tag, attrs = {}, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v);
    for (const k of kids.flat()) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }

  // 普通小数、千位分隔，不用科学计数法（与 Python 的 svgplot.fmt_number 一致：3 位有效数字）
  function num(v, sig = 3) {
    if (!Number.isFinite(v)) return String(v);
    if (v === 0) return "0";
    const mag = Math.floor(Math.log10(Math.abs(v)));
    const dec = Math.max(0, sig - 1 - mag);
    let s = v.toFixed(Math.min(dec, 20));
    if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
    const [i, f] = s.split(".");
    const head = i.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return f ? `${head}.${f}` : head;
  }

  function control(kind, label, input, extra = []) {
    const id = `np-${++uid}`;
    input.id = id;
    return el("div", { class: `np-control np-${kind}` }, el("label", { for: id }, label), input, ...extra);
  }

  function commit(model, name, v) { model.set(name, v); model.save_changes(); }

  // 滑块：<input type=range>，方向键一格一格动；读数在 <output> 里
  function slider(model, name, { label, min, max, step = 1, fmt = (v) => String(v), width = null }) {
    const input = el("input", { type: "range", min, max, step, value: model.get(name), style: width ? `width:${width}` : null });
    const out = el("output", { class: "np-readout" }, fmt(model.get(name)));
    input.addEventListener("input", () => { const v = Number(input.value); out.textContent = fmt(v); commit(model, name, v); });
    model.on(`change:${name}`, () => { const v = model.get(name); if (Number(input.value) !== v) input.value = v; out.textContent = fmt(v); });
    const c = control("slider", label, input, [out]);
    out.setAttribute("for", input.id);
    return c;
  }

  // 下拉框：options 为 [[标签, 值], …]
  function dropdown(model, name, { label, options }) {
    const input = el("select", {}, ...options.map(([t, v], i) => el("option", { value: i }, t)));
    const sync = () => { const i = options.findIndex(([, v]) => v === model.get(name)); if (i >= 0) input.value = i; };
    input.addEventListener("change", () => commit(model, name, options[Number(input.value)][1]));
    model.on(`change:${name}`, sync); sync();
    return control("dropdown", label, input);
  }

  // 文字框：每敲一个字就更新
  function text(model, name, { label, placeholder = "", width = null }) {
    const input = el("input", { type: "text", value: model.get(name), placeholder, style: width ? `width:${width}` : null });
    input.addEventListener("input", () => commit(model, name, input.value));
    model.on(`change:${name}`, () => { if (input.value !== model.get(name)) input.value = model.get(name); });
    return control("text", label, input);
  }

  function checkbox(model, name, { label }) {
    const input = el("input", { type: "checkbox" });
    input.checked = !!model.get(name);
    input.addEventListener("change", () => commit(model, name, input.checked));
    model.on(`change:${name}`, () => { input.checked = !!model.get(name); });
    return el("div", { class: "np-control np-checkbox" }, el("label", {}, input, " ", label));
  }

  // 一组互斥按钮（aria-pressed 标出选中的那个）
  function toggle(model, name, { label, options }) {
    const buttons = options.map(([t, v]) => {
      const b = el("button", { type: "button", "aria-pressed": String(model.get(name) === v) }, t);
      b.addEventListener("click", () => commit(model, name, v));
      return b;
    });
    model.on(`change:${name}`, () => options.forEach(([, v], i) => buttons[i].setAttribute("aria-pressed", String(model.get(name) === v))));
    return el("div", { class: "np-control np-toggle", role: "group", "aria-label": label }, el("span", { class: "np-label" }, label), ...buttons);
  }

  // 把控件和视图放进 el；names 里的任何一个值变了（浏览器里或 Python 里），同步重画视图
  function mount(el_, model, controls, names, render) {
    const view = el("div", { class: "np-view", "aria-live": "polite" });
    el_.classList.add("nlpbook-panel");
    el_.dataset.panel = model.get("_anywidget_id") || "";   // 如 nlpbook.widgets.decay_slider.DecayPanel（测量表用）
    // JupyterLab 的快捷键（命令模式下的方向键等）不接管面板里的按键：读者可以用键盘拖滑块、在框里打字
    el_.setAttribute("data-lm-suppress-shortcuts", "true");
    el_.addEventListener("keydown", (e) => e.stopPropagation());
    el_.replaceChildren(el("div", { class: "np-controls" }, ...controls), view);
    const draw = () => { view.innerHTML = render(); };
    for (const n of names) model.on(`change:${n}`, draw);
    draw();
    return () => { for (const n of names) model.off(`change:${n}`, draw); };
  }

  function ticks(lo, hi, n = 5) {
    const span = hi - lo || 1, raw = span / n, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || 10 * mag;
    const out = [];
    for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + 1e-9 * span; t += step) out.push(Math.round(t / step) * step);
    return out;
  }

  // 折线图（SVG 字符串）：series = {图例: [y…]}；markX 处画竖虚线并标出各条曲线的值
  function lineChart(xs, series, { title = "", xlabel = "", ylabel = "", width = 460, height = 260, markX = null, markText = "", markFmt = num } = {}) {
    const all = Object.values(series).flat().filter(Number.isFinite);
    let lo = Math.min(0, ...all), hi = Math.max(...all);
    if (!(hi > lo)) hi = lo + 1;
    const yt = ticks(lo, hi);
    const st = yt.length > 1 ? yt[1] - yt[0] : hi - lo;
    while (yt[yt.length - 1] < hi + 0.1 * (hi - lo)) yt.push(yt[yt.length - 1] + st);
    hi = yt[yt.length - 1];
    const left = Math.ceil(Math.max(36, 7 * Math.max(...yt.map((t) => num(t).length)) + (ylabel ? 28 : 10)));
    const top = title ? 44 : 30, bottom = 40, right = 14, pw = width - left - right, ph = height - top - bottom;
    const x0 = Math.min(...xs), x1 = Math.max(...xs) > x0 ? Math.max(...xs) : x0 + 1;
    const px = (x) => left + ((x - x0) / (x1 - x0)) * pw;
    const py = (y) => top + ((hi - Math.min(Math.max(Number.isFinite(y) ? y : hi, lo), hi)) / (hi - lo)) * ph;
    const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}" style="font-family:sans-serif;font-size:11px;max-width:100%;height:auto">`,
      `<text x="${width / 2}" y="16" text-anchor="middle" font-size="13">${esc(title)}</text>`,
      `<line x1="${left}" y1="${top + ph}" x2="${left + pw}" y2="${top + ph}" stroke="#333"/><line x1="${left}" y1="${top}" x2="${left}" y2="${top + ph}" stroke="#333"/>`];
    for (const t of yt) o.push(`<text x="${left - 4}" y="${(py(t) + 4).toFixed(1)}" text-anchor="end">${num(t)}</text><line x1="${left}" y1="${py(t).toFixed(1)}" x2="${left + pw}" y2="${py(t).toFixed(1)}" stroke="#ddd"/>`);
    for (const t of ticks(x0, x1)) o.push(`<text x="${px(t).toFixed(1)}" y="${top + ph + 14}" text-anchor="middle"${markX !== null && Math.abs(t - markX) < 1e-9 ? ' font-weight="bold"' : ""}>${num(t)}</text>`);
    o.push(`<text x="${left + pw / 2}" y="${height - 6}" text-anchor="middle">${esc(xlabel)}</text>`,
      `<text x="12" y="${top + ph / 2}" text-anchor="middle" transform="rotate(-90 12 ${top + ph / 2})">${esc(ylabel)}</text>`);
    let lx = left;
    const ly = title ? top - 8 : 16;
    Object.entries(series).forEach(([name, ys], k) => {
      const c = PALETTE[k % PALETTE.length];
      o.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${xs.map((x, i) => `${px(x).toFixed(1)},${py(ys[i]).toFixed(1)}`).join(" ")}"/>`,
        `<line x1="${lx}" y1="${ly - 4}" x2="${lx + 16}" y2="${ly - 4}" stroke="${c}" stroke-width="2"/><text x="${lx + 20}" y="${ly}" fill="${c}">${esc(name)}</text>`);
      lx += 36 + 11 * String(name).length;
    });
    if (markX !== null) {
      const mx = px(markX);
      o.push(`<line class="mark" x1="${mx.toFixed(1)}" y1="${top}" x2="${mx.toFixed(1)}" y2="${top + ph}" stroke="#555" stroke-dasharray="4 3"/>`);
      if (markText) o.push(`<text x="${mx.toFixed(1)}" y="${top - 2}" text-anchor="${mx > left + pw * 0.8 ? "end" : "middle"}">${esc(markText)}</text>`);
      Object.values(series).forEach((ys, k) => {
        const y = ys[xs.findIndex((x) => Math.abs(x - markX) < 1e-9)];
        if (y === undefined) return;
        o.push(`<circle cx="${mx.toFixed(1)}" cy="${py(y).toFixed(1)}" r="3.5" fill="${PALETTE[k % PALETTE.length]}"/>`,
          `<text x="${(mx + (mx > left + pw * 0.8 ? -6 : 6)).toFixed(1)}" y="${(py(y) - 6).toFixed(1)}" text-anchor="${mx > left + pw * 0.8 ? "end" : "start"}" paint-order="stroke" stroke="#fff" stroke-width="3">${esc(markFmt(y))}</text>`);
      });
    }
    o.push("</svg>");
    return o.join("");
  }

  return { el, esc, num, slider, dropdown, text, checkbox, toggle, mount, lineChart, ticks, PALETTE };
})();
