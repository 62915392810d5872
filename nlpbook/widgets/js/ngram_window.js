// N-gram 窗口滑块（第 5.5 节）：数据是 Python 用 ngram.unseen_rate / unseen_examples 算好的每个 n 的统计和例子
// （NGramWindowPanel.data）。比例的纵轴正好画到 100%（与 svgplot.line_chart 的 y_max 一样），不画到 120%。
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

const int = (v) => String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

function view(d, n) {
  const i = d.ns.indexOf(n), mark = `所选 n = ${n}`;
  const rate = lineChart(d.ns, { "留出文本中没见过的比例（%）": d.pct }, { title: "窗口越长，越多组合从没见过",
    xlabel: "n（窗口长度）", ylabel: "没见过的比例（%）", width: 440, height: 240, markX: n, markText: mark,
    markFmt: (v) => `${v.toFixed(1)}%`, yMax: 100 });
  const stored = lineChart(d.ns, { "训练集中不同 n-gram 的种数": d.stored }, { title: "窗口越长，要存的越多",
    xlabel: "n（窗口长度）", ylabel: "不同 n-gram 的种数", width: 440, height: 240, markX: n, markText: mark,
    markFmt: (v) => `${NP.num(v)} 种` });
  let text = `<div><b>n = ${n}</b>：留出文本里共有 ${int(d.heldout[i])} 个 ${n}-gram，其中 ` +
    `<b>${d.pct[i].toFixed(1)}%</b>（${int(d.unseen[i])} 个）在训练文本中一次都没出现过；` +
    `训练集里要存 <b>${int(d.stored[i])}</b> 种不同的 ${n}-gram。</div>`;
  if (d.examples[i].length) text += `<div>没见过的例子：${d.examples[i].map(NP.esc).join("、")}</div>`;
  return `<div style="display:flex;gap:8px;flex-wrap:wrap;max-width:900px">${rate}${stored}</div>${text}` +
    `<div style="color:#555">${NP.esc(d.try)}</div>`;
}

export default {
  render({ model, el }) {
    const d = model.get("data");
    return NP.mount(el, model, [
      NP.slider(model, "n", { label: "窗口 n", min: d.ns[0], max: d.ns[d.ns.length - 1] }),
    ], ["n"], () => view(d, model.get("n")));
  },
};
