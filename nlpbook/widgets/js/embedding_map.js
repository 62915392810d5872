// 词向量地图（第 6、7 章）：近邻、算式答案和底图（点与标签的位置）都是 Python 一次算好的（EmbeddingMap.data）；
// 这里只查表、上色、拼出 SVG 和文字。文字与 Python 的 map_html 一致（静态视图就是它）。
const QUERY = "#EE6677", NEIGHBOUR = "#4477AA", RESULT = "#228833", OPERAND = "#CCBB44";
const QUERY_TEXT = "#CC3311", WARN = "#AA3377", OFF_TIP = "先勾选“向量算术”，这三个词才会参与计算";
let mapSeq = 0;   // 每个面板的箭头标记一个自己的 id（一页里可能有好几张图）

// pack 过的整数串：第 i 个数是 width 位 36 进制
function unpacked(p, i) { return parseInt(p.text.substr(i * p.width, p.width), 36) + p.offset; }

// 与 Python 的 f"{v:.3f}" 一样（包括 -0.000）
const { fixed } = NP;   // Python 的 f"{v:.Nf}"

// 与 Python 的 equation_problem 一致：三个词有重复时的一行说明
function problem(a, b, c) {
  const counts = new Map();
  for (const w of [a, b, c]) counts.set(w, (counts.get(w) || 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1).map(([w]) => w);
  if (!twice.length) return "";
  const why = a === b ? "a 和 b 相同，a − b 抵消成 0，结果只是 c 自己的近邻" : "同一个词用了两次，算式问不出新东西";
  return `算式里“${twice[0]}”出现了 ${counts.get(twice[0])} 次（${why}）：请把 a、b、c 换成三个不同的词。`;
}

// 散点图：位置来自底图 d.layout（[点 x, 点 y, 标签 x, 标签 y, 引线终点 x, 引线终点 y]），hl = 下标 → 颜色
function scatter(d, hl, arrows, markId, label) {
  const L = d.layout.map((r) => r.map((v) => (v === null ? null : v.toFixed(1)))), W = d.width, H = d.height, e = NP.esc;
  const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${e(label)}" style="font-family:sans-serif;font-size:12px;max-width:100%;height:auto">`,
    `<defs><marker id="${markId}" markerWidth="8" markerHeight="6" refX="7" refY="3" orient="auto"><path d="M0,0 L8,3 L0,6 z" fill="#555"/></marker></defs>`,
    `<text x="${(W / 2).toFixed(1)}" y="16" text-anchor="middle" font-size="13">${e(d.title)}</text>`];
  for (const [from, to, color] of arrows)
    o.push(`<line x1="${L[from][0]}" y1="${L[from][1]}" x2="${L[to][0]}" y2="${L[to][1]}" stroke="${color}" stroke-width="1.5" marker-end="url(#${markId})"/>`);
  for (const [x, y, , , lx, ly] of L)
    if (lx !== null) o.push(`<line x1="${x}" y1="${y}" x2="${lx}" y2="${ly}" stroke="#aaa" stroke-width="0.8"/>`);
  L.forEach(([x, y, tx, ty], i) => {
    const on = hl.has(i);
    o.push(`<circle cx="${x}" cy="${y}" r="${on ? 5 : 3}" fill="${on ? hl.get(i) : "#888"}"/>` +
      `<text x="${tx}" y="${ty}" fill="${on ? "#000" : "#555"}"${on ? ' font-weight="bold"' : ""}>${e(d.words[i])}</text>`);
  });
  o.push("</svg>");
  return o.join("");
}

function view(d, st, markId) {
  const e = NP.esc, at = d.index, wi = at.get(st.word), n = d.digits;
  const near = d.neighbours[wi].slice(0, st.k), scores = d.scores[wi].slice(0, st.k);
  const hl = new Map(near.map((j) => [j, NEIGHBOUR]));
  const lines = [];
  let arrows = [];
  const why = st.eq ? problem(...st.eq) : "";
  if (why) lines.push(`<div style="color:${WARN}">${e(why)}</div>`);
  else if (st.eq) {
    const [a, b, c] = st.eq, pos = d.eqPos, m = d.analogy.size;
    const i = (pos.get(a) * m + pos.get(b)) * m + pos.get(c), best = unpacked(d.analogy.best, i);
    const how = d.analogy.score ? `${d.unit} ${fixed(unpacked(d.analogy.score, i) / 10 ** n, n)}` : `按${d.unit}最近的词，不算 a、b、c 自己`;
    for (const w of st.eq) hl.set(at.get(w), OPERAND);
    hl.set(best, RESULT);
    arrows = [[at.get(b), at.get(a), OPERAND], [at.get(c), best, RESULT]];
    lines.push(`<div>${e(a)} − ${e(b)} + ${e(c)} ≈ <b style="color:${RESULT}">${e(d.words[best])}</b>（${how}）</div>`);
  }
  hl.set(wi, QUERY);
  if (d.note) lines.push(`<div style="color:#555">${e(d.note)}</div>`);
  const items = near.map((j, r) => `${e(d.words[j])}（${fixed(scores[r], n)}）`).join("、");
  return scatter(d, hl, arrows, markId, `${d.title}：散点图，选中“${st.word}”`) +
    `<div>离 <b style="color:${QUERY_TEXT}">${e(st.word)}</b> 最近的 ${st.k} 个词（按${d.unit}）：${items}</div>` +
    lines.join("") + `<div style="color:#555">${e(d.try)}</div>`;
}

const ROW = "display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center;flex-basis:100%";

export default {
  render({ model, el }) {
    const d = { ...model.get("data") };
    d.index = new Map(d.words.map((w, i) => [w, i]));
    d.eqPos = new Map(d.equation_choices.map((i, p) => [d.words[i], p]));
    const options = d.choices.map((i) => [d.words[i], d.words[i]]);
    const eqOptions = d.equation_choices.map((i) => [d.words[i], d.words[i]]);
    const eqControls = [["a", "a"], ["b", "− b"], ["c", "+ c"]].map(([name, label]) => NP.dropdown(model, name, { label, options: eqOptions }));
    const gray = () => {
      const on = !!model.get("use_equation");
      for (const c of eqControls) { const s = c.querySelector("select"); s.disabled = !on; s.title = on ? "" : OFF_TIP; }
    };
    model.on("change:use_equation", gray);
    gray();
    const markId = `np-map-arrow-${++mapSeq}`;
    const stop = NP.mount(el, model, [
      NP.el("div", { style: ROW },
        NP.dropdown(model, "word", { label: "选一个词", options }),
        NP.slider(model, "k", { label: "邻居数", min: 1, max: d.max_k })),
      NP.el("div", { style: ROW }, NP.checkbox(model, "use_equation", { label: "向量算术" }), ...eqControls),
    ], ["word", "k", "use_equation", "a", "b", "c"], () => view(d, {
      word: model.get("word"), k: model.get("k"),
      eq: model.get("use_equation") ? [model.get("a"), model.get("b"), model.get("c")] : null,
    }, markId));
    return () => { stop(); model.off("change:use_equation", gray); };
  },
};
