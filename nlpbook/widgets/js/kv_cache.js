// KV cache 计算器（第 14.5—14.6 节）：KV cache 字节数 = 2 × 序列数 × 层数 × token 数 × KV head 数 × 每头维度 × 每个数的字节数
// （cost.kv_cache_bytes）。这里只把这几项小整数乘起来（最大 2⁴⁸，浮点数精确表示），换算单位，画三根柱子。
// 约数表、各种说明文字来自 Python（KVCachePanel.data）。版面与 Python 的 kv_cache_html / svgplot.bar_chart 相同。
let groupsUid = 0;
const BINARY = [["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10], ["B", 1]];

const { fixed, commas, strip } = NP;   // Python 的 f"{v:.Nf}"、千位分隔、去掉小数末尾的 0
const fixed2 = (v) => commas(fixed(v, 2));
const intStr = (v) => commas(Math.round(v));
// cost.format_bytes：整数写整数，否则最多两位小数；不足一个单位写 B
function unitStr(n, step, units) {
  let i = 0;
  while (i + 1 < units.length && n >= step ** (i + 1)) i++;
  const v = n / step ** i;
  return `${Math.abs(v - Math.round(v)) < 1e-9 ? intStr(v) : strip(fixed2(v))} ${units[i]}`;
}
const binary = (n) => unitStr(n, 1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]);
function formatBytes(n) {
  const b = binary(n), dec = unitStr(n, 1000, ["B", "kB", "MB", "GB", "TB", "PB"]);
  return b === dec ? b : `${b}（${dec}）`;
}
const axisNumber = (v) => (Number.isInteger(v) ? intStr(v) : strip(fixed2(v)));

function view(d, s) {
  const kvHeads = { MHA: s.n_heads, GQA: s.groups, MQA: 1 };
  const bytes = (h) => 2 * s.batch * s.layers * s.tokens * h * s.head_dim * s.bytes_per_number;   // cost.kv_cache_bytes
  const hKv = kvHeads[s.kind], total = bytes(hKv);
  const cmp = d.kinds.map((k) => bytes(kvHeads[k]));
  const [unit, size] = BINARY.find(([, sz]) => Math.max(...cmp) >= sz || sz === 1);
  const labels = [`MHA（${s.n_heads} 个 KV head）`, `GQA（${s.groups} 组 → ${s.groups} 个）`, "MQA（1 个）"];
  const chart = NP.barChart(labels, { [`KV cache（${unit}）`]: cmp.map((v) => v / size) }, {
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
