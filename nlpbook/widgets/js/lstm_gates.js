// LSTM 门控滑块（第 9.2 节）：数据是 Python 用 rnn.lstm_output / lstm_memory_update 算好的 tanh 表和保留表
// （LSTMGatePanel.data）。这里只算正文公式里的 f×c_prev + i×g 和 o×tanh(c)（tanh 查表），再画柱状图和曲线。
// ---- 折线图：svgplot.line_chart 的 JS 版（与静态视图同样的刻度、边距、标注规则）。NP.lineChart 做不到的两件事：
// yFromZero=false（纵轴只取数据所在的一段，纵轴标题注明“纵轴不从 0 开始”）和 yMax（比例最多 100%，纵轴正好画到它）。
const COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];  // = nlpbook.palette
const textWidth = (s, size = 11) => [...String(s)].reduce((w, ch) => w + (ch.codePointAt(0) >= 0x2e80 ? size : 0.6 * size), 0);
const r10 = (v) => Math.round(v * 1e10) / 1e10;

function tickLabel(t) {
  if (Math.abs(t) >= 1000) return NP.num(Math.round(t), 20);
  const s = String(Number(t.toPrecision(6)));
  return s.includes("e") ? NP.num(t, 6) : s;
}

function niceTicks(lo, hi, n = 5) {
  if (hi <= lo) return [lo];
  const raw = (hi - lo) / n, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const first = Math.ceil(lo / step) * step;
  return Array.from({ length: Math.floor((hi - first) / step + 1e-9) + 1 }, (_, i) => r10(first + i * step));
}

function lineChart(xs, series, { title = "", xlabel = "", ylabel = "", width = 460, height = 260, markX = null,
  markText = "", markFmt = NP.num, yFromZero = true, yMax = null } = {}) {
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
    yt.unshift(r10(yt[0] - st));
    lo = yt[0];
  }
  if (yt.length > 1 && yMax === null) {
    const st = yt[yt.length - 1] - yt[yt.length - 2];
    while (yt[yt.length - 1] < hi + 0.1 * (hi - lo)) yt.push(r10(yt[yt.length - 1] + st));
    hi = yt[yt.length - 1];
  }
  const left = Math.ceil(Math.max(36, Math.max(...yt.map((t) => textWidth(tickLabel(t)))) + (ylabel ? 28 : 10)));
  const right = 14, top = title ? 44 : 30, bottom = 40, pw = width - left - right, ph = height - top - bottom;
  const x0 = Math.min(...xs), x1 = Math.max(...xs) > x0 ? Math.max(...xs) : x0 + 1;
  const px = (x) => left + ((x - x0) / (x1 - x0)) * pw;
  const py = (y) => top + ((hi - (Number.isFinite(y) ? Math.min(Math.max(y, lo), hi) : hi)) / (hi - lo)) * ph;
  const f1 = (v) => v.toFixed(1), esc = NP.esc;
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
    const c = COLORS[k % COLORS.length];
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
      const c = COLORS[k % COLORS.length], cy = py(y), j = onRight ? i + 1 : i - 1;
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
// ---- 折线图到此
// Python 的 f"{v:.df}"：恰好落在一半上的数（如 0.0625）取偶数，与静态视图一致；其余同 toFixed
function fixed(v, d) {
  const t = Math.abs(v) * 10 ** d;
  if (Number.isInteger(v * 2 ** 20) && t % 1 === 0.5) {
    const k = Math.floor(t), even = k % 2 === 0 ? k : k + 1;
    return (v < 0 ? "-" : "") + (even / 10 ** d).toFixed(d);
  }
  return v.toFixed(d);
}

// ---- 柱状图：svgplot.bar_chart 的 JS 版（柱顶数值放得下就横写，否则竖写，再窄就不标）
function barChart(labels, series, { title = "", ylabel = "", ymax, fmt = (v) => fixed(v, 2), width = 460, height = 240 }) {
  const names = Object.keys(series), vs = 9, f1 = (v) => v.toFixed(1), esc = NP.esc;
  const top = ymax > 0 ? ymax : 1, ticks = niceTicks(0, top, 4);
  const texts = names.map((nm) => series[nm].map((v) => (v > 0 ? fmt(v) : "")));
  const left = Math.max(44, Math.ceil(Math.max(...ticks.map((t) => textWidth(tickLabel(t)))) + 22));
  const pw = width - left - 10, group = pw / labels.length, bw = (group * 0.8) / names.length;
  const widest = Math.max(0, ...texts.flat().filter(Boolean).map((s) => textWidth(s, vs)));
  const mode = !widest ? "none" : widest <= bw ? "horizontal" : bw >= vs + 1 ? "vertical" : "narrow";
  const yTop = 38 + (mode === "horizontal" ? vs + 4 : mode === "vertical" ? widest + 4 : 0), ph = height - yTop - 36;
  const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}" style="font-family:sans-serif;font-size:11px;max-width:100%;height:auto">`,
    `<text x="${f1(width / 2)}" y="14" text-anchor="middle" font-size="13">${esc(title)}</text>`,
    `<line x1="${left}" y1="${f1(yTop + ph)}" x2="${left + pw}" y2="${f1(yTop + ph)}" stroke="#333"/>`];
  for (const t of ticks) {
    const y = yTop + ph - (t / top) * ph;
    o.push(`<text class="ytick" x="${left - 4}" y="${f1(y + 4)}" text-anchor="end">${tickLabel(t)}</text><line x1="${left}" y1="${f1(y)}" x2="${left + pw}" y2="${f1(y)}" stroke="#eee"/>`);
  }
  o.push(`<text x="10" y="${f1(yTop + ph / 2)}" text-anchor="middle" transform="rotate(-90 10 ${f1(yTop + ph / 2)})">${esc(ylabel)}</text>`);
  let lx = left + 6;
  const values = [];
  names.forEach((nm, k) => {
    const c = COLORS[k % COLORS.length];
    o.push(`<rect x="${f1(lx)}" y="21" width="10" height="10" fill="${c}"/><text class="legend" x="${f1(lx + 14)}" y="30">${esc(nm)}</text>`);
    lx += 14 + textWidth(nm) + 16;
    series[nm].forEach((v, i) => {
      const h = (Math.max(0, Math.min(v, top)) / top) * ph, x = left + i * group + group * 0.1 + k * bw, y = yTop + ph - h;
      o.push(`<rect x="${f1(x)}" y="${f1(y)}" width="${f1(bw)}" height="${f1(h)}" fill="${c}"><title>${esc(`${nm} · ${labels[i]}：${fmt(v)}`)}</title></rect>`);
      const s = texts[k][i], cx = x + bw / 2;
      if (!s || mode === "none" || mode === "narrow") return;
      if (mode === "horizontal") values.push(`<text class="value" x="${f1(cx)}" y="${f1(y - 2)}" text-anchor="middle" font-size="9">${esc(s)}</text>`);
      else {
        const bx = cx + vs / 2 - 1;
        values.push(`<text class="value" x="${f1(bx)}" y="${f1(y - 2)}" text-anchor="start" font-size="9" transform="rotate(-90 ${f1(bx)} ${f1(y - 2)})">${esc(s)}</text>`);
      }
    });
  });
  o.push(...values);
  labels.forEach((lab, i) => o.push(`<text x="${f1(left + (i + 0.5) * group)}" y="${f1(yTop + ph + 14)}" text-anchor="middle">${esc(lab)}</text>`));
  if (mode === "narrow") o.push(`<text x="${f1(left + pw)}" y="${f1(yTop + 10)}" text-anchor="end" fill="#555">柱子太窄，数值见鼠标悬停提示</text>`);
  o.push("</svg>");
  return o.join("");
}

// 柱状图纵轴的上限：盖过最大值的下一个“好看”刻度（= lstm_gates.nice_top）
function niceTop(values) {
  const m = Math.max(...values);
  if (m <= 0) return 1;
  const target = m * 1.12, mag = 10 ** Math.floor(Math.log10(target));
  return r10([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((k) => k * mag).find((t) => t >= target - 1e-12));
}

function view(d, cPrev, f, i, g, o) {
  const c = f * cPrev + i * g;                                   // 新记忆 c = f×c_prev + i×g
  const h = o * d.tanh[Math.round(c * d.grid) + (d.tanh.length - 1) / 2];   // 输出 h = o×tanh(c)
  const values = [Math.abs(cPrev), Math.abs(f * cPrev), Math.abs(i * g), Math.abs(c), Math.abs(h)];
  const bars = barChart(["旧记忆", "f×旧记忆", "i×候选", "新记忆 c", "输出 h"], { "数值（绝对值）": values },
    { title: "一格记忆（柱高为绝对值；纵轴随数值缩放，看清刻度）", ymax: niceTop(values), fmt: (v) => fixed(v, 3), width: 880, height: 230 });
  const keep = d.keep[Math.round(f / d.step)].map((k) => cPrev * k);   // 之后不再写入新内容：旧记忆 × 保留比例
  const curve = lineChart(keep.map((_, t) => t), { [`f=${NP.num(f)}`]: keep }, { title: "不写入新内容时，记忆随步数的变化",
    xlabel: "步数", ylabel: "记忆", width: 880, height: 220 });
  return `<div>新记忆 c = ${NP.num(f)}×${NP.num(cPrev)} + ${NP.num(i)}×${NP.num(g)} = <b>${fixed(c, 3)}</b>；` +
    `输出 h = ${NP.num(o)}×tanh(${fixed(c, 3)}) = <b>${fixed(h, 3)}</b></div>` + bars + curve +
    `<div style="color:#555">${NP.esc(d.try)}</div>`;
}

export default {
  render({ model, el }) {
    const d = model.get("data");
    const names = ["c_prev", "g", "f", "i", "o"];
    const slider = (name, label, min) => NP.slider(model, name, { label, min, max: 1, step: d.step, fmt: (v) => v.toFixed(2), width: "150px" });
    const row = (...controls) => NP.el("div", { style: "display:flex;flex-wrap:wrap;gap:6px 18px;flex-basis:100%" }, ...controls);
    // 滑块的值可能带浮点尾数（0.15000000000000002）：取到最近的 0.05 格
    const get = (name) => Math.round(model.get(name) / d.step) * d.step;
    const r2 = (name) => Math.round(get(name) * 100) / 100;
    return NP.mount(el, model, [
      row(slider("c_prev", "旧记忆 c_prev", -1), slider("g", "候选内容 g", -1)),          // 第一行：两个输入
      row(slider("f", "遗忘门 f", 0), slider("i", "输入门 i", 0), slider("o", "输出门 o", 0)),   // 第二行：三个门
    ], names, () => view(d, r2("c_prev"), r2("f"), r2("i"), r2("g"), r2("o")));
  },
};
