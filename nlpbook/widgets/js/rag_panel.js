// 混合检索的权重（第 17.4 节）：数据（RagPanel.data）是每个 dev 问题在全部段落上的两种分数，已按 fuse_scores 的做法
// 缩放到 [0, 1] 并存成万分之几的整数（a 稀疏、b 稠密）。浏览器里按权重混合：w·缩放(a) + (1 − w)·缩放(b)，
// 再按 retrieval.order_by_score 排名（先除以最大绝对值、保留 12 位小数，相同的下标小的在前）。
// dev 上的三项指标由 Python 在 11 个权重上算好（metrics）。视图与 Python 的 view_html 逐字相同。
const { esc, fixed, table } = NP;   // 同 Python 的 html.escape、f"{x:.{d}f}"、_html.table

// numpy 的 rint：四舍六入、正中间取偶数
function rint(x) {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
}

// 同 fuse_scores 里的缩放：(s − 最小) / (最大 − 最小)，全部相同时记为 0
function minmax(row) {
  const lo = Math.min(...row), hi = Math.max(...row), span = hi - lo;
  return row.map((s) => (span > 0 ? (s - lo) / span : 0));
}

// 同 order_by_score：分数从高到低的下标，相对差 1e-12 以内算相同、下标小的在前
function orderByScore(s) {
  const finite = s.filter(Number.isFinite).map(Math.abs);
  const top = finite.length ? Math.max(...finite) : 0;
  const scale = top > 0 ? top : 1;
  const key = s.map((v) => rint((v / scale) * 1e12) / 1e12);
  return s.map((_, i) => i).sort((i, j) => (key[i] > key[j] ? -1 : key[i] < key[j] ? 1 : i - j));
}

// 权重下标 wi（0…10）、问题 q：混合分数、正确段落的名次、前 k 个段落
function rank(d, wi, q) {
  const w = d.weights[wi];
  const a = minmax(d.a[q].map((v) => v / d.scale)), b = minmax(d.b[q].map((v) => v / d.scale));
  const fused = a.map((x, i) => w * x + (1 - w) * b[i]);
  const order = orderByScore(fused);
  return { w, fused, goldRank: order.indexOf(d.gold[q]) + 1, top: order.slice(0, d.k) };
}

function view(d, weight, q) {
  const wi = Math.max(0, Math.min(d.weights.length - 1, Math.round(weight * 10)));
  const { w, fused, goldRank, top } = rank(d, wi, q);
  const [r1, r5, mrr] = d.metrics[wi];
  const [a, b] = d.names;
  const head = `<div>权重 <b>${fixed(w, 1)}</b>：${esc(a)} 占 ${fixed(w, 1)}，${esc(b)} 占 ` +
    `${fixed(1 - w, 1)}。dev ${d.gold.length} 题上 recall@1 <b>${fixed(r1, 3)}</b>，recall@5 ` +
    `<b>${fixed(r5, 3)}</b>，MRR <b>${fixed(mrr, 3)}</b></div>` +
    `<div>问题：${esc(d.questions[q])}（正确段落排第 <b>${goldRank}</b>）</div>`;
  const rows = top.map((i, n) => [n + 1, fixed(fused[i], 3), d.ids[i], i === d.gold[q] ? "✓" : ""]);
  return head + table(["名次", "混合分数", "段落", "正确"], rows) + `<div style='color:#555'>${d.try}</div>`;
}

export default {
  view,
  rank,
  render({ model, el }) {
    const d = model.get("data");
    return NP.mount(el, model, [
      NP.slider(model, "weight", { label: `${d.names[0]} 的权重`, min: 0, max: 1, step: 0.1, fmt: (v) => fixed(v, 1) }),
      NP.dropdown(model, "question", { label: "dev 问题", options: d.questions.map((t, i) => [t, i]) }),
    ], ["weight", "question"], () => view(d, model.get("weight"), model.get("question")));
  },
};
