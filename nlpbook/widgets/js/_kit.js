// 面板共用的小工具：建元素、带标签的控件（键盘可操作）、数字格式与折线图/条形图（svgplot 的移植，与 Python 的静态视图逐字相同）。
// 每个面板模块（js/<面板>.js）前面都拼上这一段（Python 的 esm_source）；阅读网站上整站只拼一次。
// 规则：模块里不 import，只用这里的 NP；视图在控件的 input 事件里同步重画（不等下一帧、不经过内核）。
const NP = (() => {
  let uid = 0;
  const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };   // = Python 的 html.escape
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ESC[c]);
  const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];  // = nlpbook.palette

  function el(tag, attrs = {}, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v);
    for (const k of kids.flat()) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }

  // Python 的 f"{v:.{d}f}"：toFixed 在恰好一半时总是进位，Python 取偶（2.5625 → "2.562"）；-0 写成 "-0.0"
  function fixed(v, d) {
    if (!Number.isFinite(v)) return v > 0 ? "inf" : v < 0 ? "-inf" : "nan";
    const s = (Object.is(v, -0) ? "-" : "") + v.toFixed(d);
    const t = Math.abs(v) * 10 ** d;
    if (Math.abs((t % 1) - 0.5) > 1e-6) return s;         // 离“一半”远：不可能是恰好一半（快路径，绝大多数数）
    const x = Math.abs(v).toPrecision(100);              // 二进制值的精确十进制展开
    if (x.includes("e") || !x.includes(".")) return s;
    const dot = x.indexOf("."), int = x.slice(0, dot), frac = x.slice(dot + 1);
    if (!/^50*$/.test(frac.slice(d))) return s;           // 不是恰好一半：toFixed 已经对了
    const kept = int + frac.slice(0, d);
    if (Number(kept[kept.length - 1]) % 2) return s;      // 前一位是奇数：进位，与 toFixed 相同
    return (v < 0 ? "-" : "") + int + (d ? "." + frac.slice(0, d) : "");
  }
  // _html.chip 与 _html.table 的移植：带编号的小方块、内容转义的简单表格
  function chip(text, sub, color, title = "") {
    const t = title ? ` title="${esc(title)}"` : "";
    return `<span${t} style="display:inline-block;margin:2px;padding:2px 6px;border-radius:4px;` +
      `background:${color};color:#000;font-family:monospace">${esc(text)}` +
      `<sub style="margin-left:3px;color:#333">${esc(sub)}</sub></span>`;
  }
  function table(header, rows) {
    const th = header.map((h) => `<th style='padding:2px 8px'>${esc(h)}</th>`).join("");
    const trs = rows.map((r) => "<tr>" + r.map((c) => `<td style='padding:2px 8px'>${esc(c)}</td>`).join("") + "</tr>").join("");
    return `<table><thead><tr>${th}</tr></thead><tbody>${trs}</tbody></table>`;
  }
  // 千位分隔（= f"{v:,}"）：整数或已经格式化好的数字串
  const commas = (s) => String(s).replace(/^(-?)(\d+)/, (_, sign, i) => sign + i.replace(/\B(?=(\d{3})+(?!\d))/g, ","));
  const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);

  // Python 的 f"{v:g}"（6 位有效数字，去掉末尾的 0；指数 < -4 或 ≥ 6 时写成 1e-05 这样）
  function g(v) {
    if (!Number.isFinite(v)) return fixed(v, 0);
    if (v === 0) return Object.is(v, -0) ? "-0" : "0";
    const exp = Number(v.toExponential(5).split("e")[1]);
    if (exp < -4 || exp >= 6) {
      const m = strip(v.toExponential(5).split("e")[0]);
      return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    }
    return strip(fixed(v, 5 - exp));
  }

  // 不用科学计数法写一个数（svgplot.fmt_number 的移植）：大数千位分隔，小数写成普通小数，极小的非零数写 ≈0
  function num(v, sig = 3) {
    if (!Number.isFinite(v)) return fixed(v, 0);
    const a = Math.abs(v);
    if (a === 0) return "0";
    if (a < 1e-12) return "≈0";
    if (a >= 1000) return commas(fixed(v, 0));
    const d = Math.max(0, sig - 1 - Math.floor(Math.log10(a)));
    return commas(strip(fixed(v, d)));
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

  // ---- 画图：svgplot 的移植（同样的刻度、边距、标注规则），面板的视图与 Python 的静态视图写着同样的字 ----
  const f1 = (v) => fixed(v, 1);
  // svgplot.text_width：汉字等全角字符约 1 个字号宽，其余约 0.6 个字号宽
  const textWidth = (s, size = 11) => [...String(s)].reduce((w, ch) => w + (ch.codePointAt(0) >= 0x2e80 ? size : 0.6 * size), 0);
  const round10 = (v) => Number(fixed(v, 10));            // Python 的 round(v, 10)

  // svgplot._ticks：lo..hi 之间“好看”的刻度
  function niceTicks(lo, hi, n = 5) {
    if (hi <= lo) return [lo];
    const raw = (hi - lo) / n;
    const mag = Number(`1e${Math.floor(Math.log10(raw))}`);   // 10 ** k：与 Python 一样是最接近的浮点数
    const step = [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= raw);
    const first = Math.ceil(lo / step) * step;
    return Array.from({ length: Math.trunc((hi - first) / step + 1e-9) + 1 }, (_, i) => round10(first + i * step));
  }

  // svgplot._tick_label：千位分隔，不出现 1e+05 这样的写法
  function tickLabel(t) {
    if (Math.abs(t) >= 1000) return commas(fixed(t, 0));
    const s = g(t);
    return s.includes("e") ? num(t, 6) : s;
  }

  // svgplot.line_chart：series = {图例: [y…]}；markX 处画竖虚线、标出各条曲线的值；
  // yFromZero=false 时纵轴只取数据所在的一段（纵轴标题注明）；yMax 给有天然上限的量（比例最多 100%）
  function lineChart(xs, series, { title = "", xlabel = "", ylabel = "", width = 460, height = 260, markX = null,
    markText = "", markFmt = num, yFromZero = true, yMax = null } = {}) {
    const fin = Object.values(series).flat().filter(Number.isFinite);
    let lo, hi;
    if (yFromZero) {
      lo = Math.min(0, ...fin); hi = Math.max(...fin);
      if (!(hi > lo)) hi = lo + 1;
    } else {
      lo = Math.min(...fin); hi = Math.max(...fin);
      const span = hi > lo ? hi - lo : Math.max(Math.abs(hi), 1) * 0.1;
      lo -= 0.05 * span; hi += 0.05 * span;
      ylabel = ylabel ? `${ylabel}（纵轴不从 0 开始）` : "纵轴不从 0 开始";
    }
    if (yMax !== null) hi = yMax;
    const yt = niceTicks(lo, hi);
    if (!yFromZero && yt.length && yt[0] > lo) {
      const st = yt.length > 1 ? yt[1] - yt[0] : hi - lo;
      yt.unshift(round10(yt[0] - st));
      lo = yt[0];
    }
    if (yt.length > 1 && yMax === null) {
      const st = yt[yt.length - 1] - yt[yt.length - 2];
      while (yt[yt.length - 1] < hi + 0.1 * (hi - lo)) yt.push(round10(yt[yt.length - 1] + st));
      hi = yt[yt.length - 1];
    }
    const left = Math.ceil(Math.max(36, Math.max(...yt.map((t) => textWidth(tickLabel(t)))) + (ylabel ? 28 : 10)));
    const right = 14, top = title ? 44 : 30, bottom = 40, pw = width - left - right, ph = height - top - bottom;
    const x0 = Math.min(...xs), x1 = Math.max(...xs) > x0 ? Math.max(...xs) : x0 + 1;
    const px = (x) => left + ((x - x0) / (x1 - x0)) * pw;
    const py = (y) => top + ((hi - (Number.isFinite(y) ? Math.min(Math.max(y, lo), hi) : hi)) / (hi - lo)) * ph;
    const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}" style="font-family:sans-serif;font-size:11px;max-width:100%;height:auto">`,
      `<text x="${f1(width / 2)}" y="16" text-anchor="middle" font-size="13">${esc(title)}</text>`,
      `<line x1="${left}" y1="${top + ph}" x2="${left + pw}" y2="${top + ph}" stroke="#333"/><line x1="${left}" y1="${top}" x2="${left}" y2="${top + ph}" stroke="#333"/>`];
    for (const t of yt) o.push(`<text class="ytick" x="${left - 4}" y="${f1(py(t) + 4)}" text-anchor="end">${tickLabel(t)}</text><line x1="${left}" y1="${f1(py(t))}" x2="${left + pw}" y2="${f1(py(t))}" stroke="#ddd"/>`);
    for (const t of niceTicks(x0, x1)) {
      const bold = markX !== null && Math.abs(t - markX) < 1e-9 ? ' font-weight="bold"' : "";
      o.push(`<text class="xtick" x="${f1(px(t))}" y="${top + ph + 14}" text-anchor="middle"${bold}>${tickLabel(t)}</text>`);
    }
    o.push(`<text class="xlabel" x="${f1(left + pw / 2)}" y="${height - 6}" text-anchor="middle">${esc(xlabel)}</text>`,
      `<text class="ylabel" x="12" y="${f1(top + ph / 2)}" text-anchor="middle" transform="rotate(-90 12 ${f1(top + ph / 2)})">${esc(ylabel)}</text>`);
    let lx = left;
    const ly = title ? top - 8 : 16;
    Object.entries(series).forEach(([name, ys], k) => {
      const c = PALETTE[k % PALETTE.length];
      o.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${xs.map((x, i) => `${f1(px(x))},${f1(py(ys[i]))}`).join(" ")}"/>`,
        `<line x1="${f1(lx)}" y1="${ly - 4}" x2="${f1(lx + 16)}" y2="${ly - 4}" stroke="${c}" stroke-width="2"/><text class="legend" x="${f1(lx + 20)}" y="${ly}" fill="${c}">${esc(name)}</text>`);
      lx += 20 + textWidth(name) + 16;
      if (ys.some((y) => !Number.isFinite(y) || y > hi)) o.push(`<text x="${left + 4}" y="${top + 12}" fill="#D55E00">有数值溢出，已截断</text>`);
    });
    if (markX !== null) {
      const mx = px(Math.min(Math.max(markX, x0), x1)), onRight = mx < left + pw * 0.7;
      const [anchor, dx] = onRight ? ["start", 6] : ["end", -6];
      o.push(`<line class="mark" x1="${f1(mx)}" y1="${top}" x2="${f1(mx)}" y2="${top + ph}" stroke="#555" stroke-dasharray="4 3"/>`);
      if (markText) o.push(`<line x1="${f1(lx)}" y1="${ly - 9}" x2="${f1(lx)}" y2="${ly + 1}" stroke="#555" stroke-dasharray="3 2"/><text class="mark-text" x="${f1(lx + 5)}" y="${ly}" font-weight="bold">${esc(markText)}</text>`);
      const placed = [];
      let i = 0;
      xs.forEach((x, j) => { if (Math.abs(x - markX) < Math.abs(xs[i] - markX)) i = j; });
      Object.values(series).forEach((ys, k) => {
        const y = ys[i];
        if (!Number.isFinite(y)) return;
        const c = PALETTE[k % PALETTE.length], cy = py(y), j = onRight ? i + 1 : i - 1;
        let up = j >= 0 && j < xs.length && Number.isFinite(ys[j]) && py(ys[j]) < cy - 1;
        if (yMax !== null && cy - 7 < top + 10) up = true;        // 画到上限的纵轴：点上方放不下，写在点下方
        let ty = Math.min(Math.max(up ? cy + 15 : cy - 7, top + 10), top + ph - 2);
        while (placed.some((p) => Math.abs(ty - p) < 13)) ty += 13;
        placed.push(ty);
        o.push(`<circle cx="${f1(mx)}" cy="${f1(cy)}" r="4" fill="${c}"/><text class="mark-value" x="${f1(mx + dx)}" y="${f1(ty)}" text-anchor="${anchor}" fill="${c}" paint-order="stroke" stroke="#fff" stroke-width="3">${esc(markFmt(y))}</text>`);
      });
    }
    o.push("</svg>");
    return o.join("");
  }

  // svgplot.bar_layout + bar_chart：分组条形图。series = {图例: 每个标签一个值} 或 [[图例, 值…], …]；
  // 柱顶数值放得下就横写，否则竖写，再窄就不标（数值在悬停提示里）。fmt 为空时不标数值。
  function barChart(labels, series, { title = "", ylabel = "", xlabel = "", ymax = null, fmt = (v) => fixed(v, 2),
    tickFmt = tickLabel, width = 460, height = 240, aria = title } = {}) {
    const entries = Array.isArray(series) ? series : Object.entries(series), vs = 9;
    const dataMax = Math.max(...entries.map(([, vals]) => Math.max(...vals)));
    let top = 0;
    if (ymax !== null) top = ymax;
    else if (dataMax > 0) {
      const t = niceTicks(0, dataMax, 4), st = t.length > 1 ? t[1] - t[0] : dataMax;
      top = Math.ceil(dataMax / st - 1e-9) * st;
    }
    top = top > 0 ? top : 1;
    const yt = niceTicks(0, top, 4);
    const texts = entries.map(([, vals]) => vals.map((v) => (fmt && v > 0 ? fmt(v) : "")));
    const left = Math.max(44, Math.ceil(Math.max(...yt.map((t) => textWidth(tickLabel(t)))) + 22));
    const pw = width - left - 10, group = pw / labels.length, bw = (group * 0.8) / entries.length;
    const widths = texts.flat().filter(Boolean).map((s) => textWidth(s, vs));
    const widest = widths.length ? Math.max(...widths) : 0;
    const mode = !widest ? "none" : widest <= bw ? "horizontal" : bw >= vs + 1 ? "vertical" : "narrow";
    const yTop = 38 + (mode === "horizontal" ? vs + 4 : mode === "vertical" ? widest + 4 : 0), ph = height - yTop - 36;
    const tip = fmt || num;
    const o = [`<svg role="img" aria-label="${esc(aria)}" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" style="font-family:sans-serif;font-size:11px;max-width:100%;height:auto">`,
      `<text x="${f1(width / 2)}" y="14" text-anchor="middle" font-size="13">${esc(title)}</text>`,
      `<line x1="${left}" y1="${f1(yTop + ph)}" x2="${left + pw}" y2="${f1(yTop + ph)}" stroke="#333"/>`];
    for (const t of yt) {
      const y = yTop + ph - (t / top) * ph;
      o.push(`<text class="ytick" x="${left - 4}" y="${f1(y + 4)}" text-anchor="end">${esc(tickFmt(t))}</text><line x1="${left}" y1="${f1(y)}" x2="${left + pw}" y2="${f1(y)}" stroke="#eee"/>`);
    }
    o.push(`<text x="10" y="${f1(yTop + ph / 2)}" text-anchor="middle" transform="rotate(-90 10 ${f1(yTop + ph / 2)})">${esc(ylabel)}</text>`);
    let lx = left + 6;
    entries.forEach(([name], k) => {
      o.push(`<rect x="${f1(lx)}" y="21" width="10" height="10" fill="${PALETTE[k % PALETTE.length]}"/><text class="legend" x="${f1(lx + 14)}" y="30">${esc(name)}</text>`);
      lx += 14 + textWidth(name) + 16;
    });
    const values = [];
    entries.forEach(([name, vals], k) => vals.forEach((v, i) => {
      const h = (Math.max(0, Math.min(v, top)) / top) * ph, x = left + i * group + group * 0.1 + k * bw, y = yTop + ph - h;
      o.push(`<rect x="${f1(x)}" y="${f1(y)}" width="${f1(bw)}" height="${f1(h)}" fill="${PALETTE[k % PALETTE.length]}"><title>${esc(`${name} · ${labels[i]}：${tip(v)}`)}</title></rect>`);
      const s = texts[k][i], cx = x + bw / 2;
      if (!s || mode === "none" || mode === "narrow") return;
      if (mode === "horizontal") values.push(`<text class="value" x="${f1(cx)}" y="${f1(y - 2)}" text-anchor="middle" font-size="9">${esc(s)}</text>`);
      else {
        const bx = cx + vs / 2 - 1;
        values.push(`<text class="value" x="${f1(bx)}" y="${f1(y - 2)}" text-anchor="start" font-size="9" transform="rotate(-90 ${f1(bx)} ${f1(y - 2)})">${esc(s)}</text>`);
      }
    }));
    o.push(...values);
    labels.forEach((lab, i) => o.push(`<text x="${f1(left + (i + 0.5) * group)}" y="${f1(yTop + ph + 14)}" text-anchor="middle">${esc(lab)}</text>`));
    if (xlabel) o.push(`<text x="${f1(left + pw / 2)}" y="${height - 4}" text-anchor="middle">${esc(xlabel)}</text>`);
    if (mode === "narrow") o.push(`<text x="${f1(left + pw)}" y="${f1(yTop + 10)}" text-anchor="end" fill="#555">柱子太窄，数值见鼠标悬停提示</text>`);
    o.push("</svg>");
    return o.join("");
  }

  return { el, esc, chip, table, num, fixed, g, commas, strip, slider, dropdown, text, checkbox, toggle, mount,
           textWidth, niceTicks, tickLabel, lineChart, barChart, PALETTE };
})();
