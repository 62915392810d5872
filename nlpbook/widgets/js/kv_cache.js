// KV cache 计算器（第 14.5—14.6 节）：KV cache 字节数 = 2 × 序列数 × 层数 × token 数 × KV head 数 × 每头维度 × 每个数的字节数
// （cost.kv_cache_bytes）。这里只把这几项小整数乘起来（最大 2⁴⁸，浮点数精确表示），换算单位，画三根柱子。
// 约数表、各种说明文字来自 Python（KVCachePanel.data）。版面与 Python 的 kv_cache_html / svgplot.bar_chart 相同。
let groupsUid = 0;
const BAR_COLOR = "#0072B2";   // svgplot 的 PALETTE[0]
const BINARY = [["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10], ["B", 1]];

const commas = (s) => s.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
// 与 Python 的 f"{v:.Nf}" 一致（v ≥ 0）：toFixed 按精确的十进制展开取整，只有恰好在两数正中时往上进，
// Python 取偶数——所以用更多位的 toFixed 看出“恰好正中”，这时末位是偶数就截断
function fixed(v, n) {
  const s = v.toFixed(n), extra = Math.min(100, n + 60) - n, long = v.toFixed(n + extra);
  const head = long.slice(0, long.length - extra), rest = long.slice(long.length - extra);
  return /^50*$/.test(rest) && Number(head[head.length - 1]) % 2 === 0 ? head : s;
}
function fixed2(v) {
  const [i, frac] = fixed(v, 2).split(".");
  return `${commas(i)}.${frac}`;
}
const f1 = (v) => fixed(v, 1);
const trim = (s) => s.replace(/0+$/, "").replace(/\.$/, "");
const intStr = (v) => commas(String(Math.round(v)));
// cost.format_bytes：整数写整数，否则最多两位小数；不足一个单位写 B
function unitStr(n, step, units) {
  let i = 0;
  while (i + 1 < units.length && n >= step ** (i + 1)) i++;
  const v = n / step ** i;
  return `${Math.abs(v - Math.round(v)) < 1e-9 ? intStr(v) : trim(fixed2(v))} ${units[i]}`;
}
const binary = (n) => unitStr(n, 1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]);
function formatBytes(n) {
  const b = binary(n), dec = unitStr(n, 1000, ["B", "kB", "MB", "GB", "TB", "PB"]);
  return b === dec ? b : `${b}（${dec}）`;
}
const axisNumber = (v) => (Number.isInteger(v) ? intStr(v) : trim(fixed2(v)));
const textWidth = (s, size = 11) => [...String(s)].reduce((w, ch) => w + (ch.codePointAt(0) >= 0x2e80 ? size : 0.6 * size), 0);

// svgplot._ticks：lo..hi 之间“好看”的刻度
function ticks(lo, hi, n) {
  if (hi <= lo) return [lo];
  const raw = (hi - lo) / n, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const first = Math.ceil(lo / step) * step, out = [];
  for (let i = 0; i <= Math.floor((hi - first) / step + 1e-9); i++) out.push(Math.round((first + i * step) * 1e10) / 1e10);
  return out;
}
function tickLabel(t) { return Math.abs(t) >= 1000 ? intStr(t) : String(t); }

// 一组柱子的条形图（svgplot.bar_chart 的同一版面：柱顶横写数值；这里只有一组数据）
function barChart(labels, name, vals, { title, ylabel, fmt, tickFmt, width, height }) {
  const dataMax = Math.max(...vals);
  let top = 0;
  if (dataMax > 0) {
    const t0 = ticks(0, dataMax, 4), st = t0.length > 1 ? t0[1] - t0[0] : dataMax;
    top = Math.ceil(dataMax / st - 1e-9) * st;
  }
  top = top > 0 ? top : 1;
  const yt = ticks(0, top, 4);
  const texts = vals.map((v) => (v > 0 ? fmt(v) : ""));
  const left = Math.max(44, Math.ceil(Math.max(...yt.map((t) => textWidth(tickLabel(t)))) + 22)), right = 10, head = 38, bottom = 36;
  const pw = width - left - right, group = pw / labels.length, bw = (group * 0.8) / 1;
  const widest = Math.max(0, ...texts.filter(Boolean).map((s) => textWidth(s, 9)));
  const mode = !widest ? "none" : widest <= bw ? "horizontal" : bw >= 10 ? "vertical" : "narrow";
  const space = mode === "horizontal" ? 13 : mode === "vertical" ? widest + 4 : 0;
  const yTop = head + space, ph = height - yTop - bottom;
  const e = NP.esc;
  const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" ` +
    `aria-label="${e(title)}" style="font-family:sans-serif;font-size:11px;max-width:100%;height:auto">`,
    `<text x="${f1(width / 2)}" y="14" text-anchor="middle" font-size="13">${e(title)}</text>`,
    `<line x1="${left}" y1="${f1(yTop + ph)}" x2="${left + pw}" y2="${f1(yTop + ph)}" stroke="#333"/>`];
  for (const t of yt) {
    const y = yTop + ph - (t / top) * ph;
    o.push(`<text class="ytick" x="${left - 4}" y="${f1(y + 4)}" text-anchor="end">${e(tickFmt(t))}</text>` +
      `<line x1="${left}" y1="${f1(y)}" x2="${left + pw}" y2="${f1(y)}" stroke="#eee"/>`);
  }
  o.push(`<text x="10" y="${f1(yTop + ph / 2)}" text-anchor="middle" transform="rotate(-90 10 ${f1(yTop + ph / 2)})">${e(ylabel)}</text>`,
    `<rect x="${f1(left + 6)}" y="21" width="10" height="10" fill="${BAR_COLOR}"/><text class="legend" x="${f1(left + 20)}" y="30">${e(name)}</text>`);
  const bars = vals.map((v, i) => {
    const h = (Math.max(0, Math.min(v, top)) / top) * ph, x = left + i * group + group * 0.1;
    return { v, i, h, x, y: yTop + ph - h };
  });
  for (const b of bars) {
    o.push(`<rect x="${f1(b.x)}" y="${f1(b.y)}" width="${f1(bw)}" height="${f1(b.h)}" fill="${BAR_COLOR}">` +
      `<title>${e(`${name} · ${labels[b.i]}：${fmt(b.v)}`)}</title></rect>`);
  }
  for (const b of bars) {
    if (!texts[b.i] || mode === "none" || mode === "narrow") continue;
    const cx = b.x + bw / 2;
    if (mode === "horizontal") o.push(`<text class="value" x="${f1(cx)}" y="${f1(b.y - 2)}" text-anchor="middle" font-size="9">${e(texts[b.i])}</text>`);
    else {
      const bx = cx + 4.5 - 1;
      o.push(`<text class="value" x="${f1(bx)}" y="${f1(b.y - 2)}" text-anchor="start" font-size="9" ` +
        `transform="rotate(-90 ${f1(bx)} ${f1(b.y - 2)})">${e(texts[b.i])}</text>`);
    }
  }
  labels.forEach((lab, i) => o.push(`<text x="${f1(left + (i + 0.5) * group)}" y="${f1(yTop + ph + 14)}" text-anchor="middle">${e(lab)}</text>`));
  if (mode === "narrow") o.push(`<text x="${f1(left + pw)}" y="${f1(yTop + 10)}" text-anchor="end" fill="#555">柱子太窄，数值见鼠标悬停提示</text>`);
  o.push("</svg>");
  return o.join("");
}

function view(d, s) {
  const kvHeads = { MHA: s.n_heads, GQA: s.groups, MQA: 1 };
  const bytes = (h) => 2 * s.batch * s.layers * s.tokens * h * s.head_dim * s.bytes_per_number;   // cost.kv_cache_bytes
  const hKv = kvHeads[s.kind], total = bytes(hKv);
  const cmp = d.kinds.map((k) => bytes(kvHeads[k]));
  const [unit, size] = BINARY.find(([, sz]) => Math.max(...cmp) >= sz || sz === 1);
  const labels = [`MHA（${s.n_heads} 个 KV head）`, `GQA（${s.groups} 组 → ${s.groups} 个）`, "MQA（1 个）"];
  const chart = barChart(labels, `KV cache（${unit}）`, cmp.map((v) => v / size), {
    title: `同样 ${s.n_heads} 个 Query head，要缓存的 K/V 有多少（纵轴单位 ${unit}）`, ylabel: unit,
    fmt: (v) => binary(v * size), tickFmt: axisNumber, width: d.chart_width, height: 240 });
  const ratio = Math.round(cmp[0] / total);
  return `<div style="color:#555">${NP.esc(d.try)}</div>` +
    `<div><b>${s.kind}</b>：${d.kind_notes[s.kind]}，要缓存 <b>${hKv}</b> 个 KV head。</div>` +
    `<div style="margin:4px 0;color:#555">2（K 和 V）× 序列数 × 层数 × 已缓存 token 数 × <b>KV head 数</b> × 每头维度 × 每个数的字节数</div>` +
    `<div style="font-family:monospace;margin:4px 0">2 × ${intStr(s.batch)} × ${intStr(s.layers)} × ${intStr(s.tokens)} × <b>${intStr(hKv)}</b> × ` +
    `${intStr(s.head_dim)} × ${s.bytes_per_number} 字节 = <b>${intStr(total)}</b> 字节 = <b>${NP.esc(formatBytes(total))}</b></div>` +
    `<div>${ratio === 1 ? "与 MHA 相同" : `是 MHA 的 1/${ratio}`}。只算缓存张量本身：不含模型权重、预分配空位、分页元数据、量化尺度等开销。</div>` + chart;
}

// GQA 组数：选项随 Query head 数变（只列约数）；不是 GQA 时变灰，旁边写原因
function groupsControl(model, d) {
  const id = `np-kv-groups-${++groupsUid}`;
  const select = NP.el("select", { id });
  const reason = NP.el("span", { style: "color:#555;max-width:420px" });
  let shown = null;
  const sync = () => {
    const opts = d.divisors[model.get("n_heads") - 1];
    if (shown !== opts) { select.replaceChildren(...opts.map((g) => NP.el("option", { value: g }, g))); shown = opts; }
    select.value = String(model.get("groups"));
    const kind = model.get("kind");
    select.disabled = kind !== "GQA";
    reason.textContent = d.reasons[kind] + (kind !== "GQA" ? `图中 GQA 那一栏仍按 ${model.get("groups")} 组画；选 GQA 后可以改。` : "");
  };
  select.addEventListener("change", () => { model.set("groups", Number(select.value)); model.save_changes(); });
  for (const n of ["n_heads", "groups", "kind"]) model.on(`change:${n}`, sync);
  sync();
  const ctl = NP.el("div", { class: "np-control np-dropdown" }, NP.el("label", { for: id }, "GQA 组数"), select, reason);
  return [ctl, () => { for (const n of ["n_heads", "groups", "kind"]) model.off(`change:${n}`, sync); }];
}

export default {
  view,
  render({ model, el }) {
    const d = model.get("data"), r = d.ranges;
    // Query head 数变了：原来的组数不再整除时取不超过它的最大约数（在重画之前，视图里的组数总是合法的）
    const fixGroups = () => {
      const opts = d.divisors[model.get("n_heads") - 1], g = model.get("groups");
      if (!opts.includes(g)) { model.set("groups", Math.max(...opts.filter((x) => x <= g))); model.save_changes(); }
    };
    model.on("change:n_heads", fixGroups);
    const [groups, offGroups] = groupsControl(model, d);
    const slider = (name, label, extra = {}) => NP.slider(model, name, { label, min: r[name][0], max: r[name][1], step: r[name][2], ...extra });
    const names = ["batch", "layers", "tokens", "n_heads", "head_dim", "bytes_per_number", "kind", "groups"];
    const off = NP.mount(el, model, [
      slider("batch", "同时处理的序列数"), slider("layers", "层数"),
      slider("tokens", "已缓存 token 数", { fmt: (v) => intStr(v), width: "420px" }), slider("head_dim", "每头维度"),
      NP.toggle(model, "kind", { label: "注意力", options: d.kinds.map((k) => [k, k]) }),
      NP.dropdown(model, "bytes_per_number", { label: "每个数的字节", options: d.bytes_options }),
      slider("n_heads", "Query head 数"), groups,
    ], names, () => view(d, Object.fromEntries(names.map((n) => [n, model.get(n)]))));
    return () => { off(); offGroups(); model.off("change:n_heads", fixGroups); };
  },
};
