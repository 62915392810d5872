// N-gram 窗口滑块（第 5.5 节）：数据是 Python 用 ngram.unseen_rate / unseen_examples 算好的每个 n 的统计和例子
// （NGramWindowPanel.data）。比例的纵轴正好画到 100%（与 svgplot.line_chart 的 y_max 一样），不画到 120%。

const { commas } = NP;   // 同 f"{v:,}"

function view(d, n) {
  const i = d.ns.indexOf(n), mark = `所选 n = ${n}`;
  const rate = NP.lineChart(d.ns, { "留出文本中没见过的比例（%）": d.pct }, { title: "窗口越长，越多组合从没见过",
    xlabel: "n（窗口长度）", ylabel: "没见过的比例（%）", width: 440, height: 240, markX: n, markText: mark,
    markFmt: (v) => `${NP.fixed(v, 1)}%`, yMax: 100 });
  const stored = NP.lineChart(d.ns, { "训练集中不同 n-gram 的种数": d.stored }, { title: "窗口越长，要存的越多",
    xlabel: "n（窗口长度）", ylabel: "不同 n-gram 的种数", width: 440, height: 240, markX: n, markText: mark,
    markFmt: (v) => `${NP.num(v)} 种` });
  let text = `<div><b>n = ${n}</b>：留出文本里共有 ${commas(d.heldout[i])} 个 ${n}-gram，其中 ` +
    `<b>${NP.fixed(d.pct[i], 1)}%</b>（${commas(d.unseen[i])} 个）在训练文本中一次都没出现过；` +
    `训练集里要存 <b>${commas(d.stored[i])}</b> 种不同的 ${n}-gram。</div>`;
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
