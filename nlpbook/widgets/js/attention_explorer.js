// 注意力浏览器（第 13 章）：数字全是 Python 用 explorer_data 算好的（AttentionExplorer.data，三位小数）——
// w[层][遮罩][提问的词][头] 一行权重，scores[层][头][提问的词] 一行原始分数，sum / top / out / rgb 同样按层、遮罩、词、头查表。
// 这里只查表、画连线图和数字表（与 Python 的 explorer_html 同样的版面）。
let hatchId = 0;   // 每张连线图自己的斜纹 id：同一页上有几个面板时 id 不重复

const f3 = (v) => NP.fixed(v, 3);   // 印出来的数：与 Python 的 f"{v:.3f}" 相同（-0、恰好一半）
const f4 = (v) => NP.fixed(v, 4);

function linksSvg(d, idx, rows, q, vis) {
  const T = d.tokens.length, g = d.geo, size = 14, chipH = 26, arcH = 64, top = 6;
  const base = top + arcH + 6, H = base + chipH + 6;
  const cx = g.xs.map((x, j) => x + g.widths[j] / 2);
  const span = Math.max(Math.max(...cx) - Math.min(...cx), 1);
  const scale = Math.min(1, g.max_width / g.total);
  const hid = `attn-hatch-${++hatchId}`;
  const label = `从「${d.tokens[q]}」连向每个词的注意力权重：线越粗越深、色块底色越深，权重越大`;
  const o = [`<svg xmlns="http://www.w3.org/2000/svg" class="links" width="${Math.round(Math.min(g.total, g.max_width))}" ` +
    `height="${Math.round(H * scale)}" viewBox="0 0 ${g.total.toFixed(1)} ${H.toFixed(1)}" role="img" aria-label="${NP.esc(label)}" ` +
    `style="max-width:100%;font-family:sans-serif"><defs><pattern id="${hid}" width="6" height="6" patternUnits="userSpaceOnUse" ` +
    `patternTransform="rotate(45)"><rect width="6" height="6" fill="#eeeeee"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c8c8c8" stroke-width="3"/></pattern></defs>`];
  idx.forEach((h, k) => {
    const c = d.colors[h], name = NP.esc(d.heads[h]);
    for (let j = 0; j < T; j++) {
      if (!vis[j]) continue;
      const w = rows[k][j];
      let path;
      if (j === q) {
        path = `M${(cx[j] - 5).toFixed(1)},${base.toFixed(1)} C${(cx[j] - 14).toFixed(1)},${(base - 26).toFixed(1)} ` +
          `${(cx[j] + 14).toFixed(1)},${(base - 26).toFixed(1)} ${(cx[j] + 5).toFixed(1)},${base.toFixed(1)}`;
      } else {
        const hh = 14 + ((arcH - 14) * Math.abs(cx[j] - cx[q])) / span;
        path = `M${cx[q].toFixed(1)},${base.toFixed(1)} Q${((cx[q] + cx[j]) / 2).toFixed(1)},${(base - 2 * hh).toFixed(1)} ` +
          `${cx[j].toFixed(1)},${base.toFixed(1)}`;
      }
      o.push(`<path class="link" data-head="${name}" data-key="${j}" data-weight="${f4(w)}" d="${path}" fill="none" ` +
        `stroke="${c}" stroke-opacity="${f4(w)}" stroke-width="${(0.5 + 6 * w).toFixed(2)}"/>`);
    }
  });
  const band = chipH / idx.length;
  for (let j = 0; j < T; j++) {
    const x = g.xs[j].toFixed(1), wd = g.widths[j].toFixed(1);
    if (!vis[j]) o.push(`<rect class="chip" data-key="${j}" data-weight="0.0000" x="${x}" y="${base.toFixed(1)}" width="${wd}" height="${chipH}" rx="4" fill="url(#${hid})"/>`);
    idx.forEach((h, k) => {
      const w = vis[j] ? rows[k][j] : 0;
      o.push(`<rect class="chip" data-head="${NP.esc(d.heads[h])}" data-key="${j}" data-weight="${f4(w)}" x="${x}" ` +
        `y="${(base + k * band).toFixed(1)}" width="${wd}" height="${band.toFixed(1)}" fill="${d.colors[h]}" fill-opacity="${f4(w)}"/>`);
    });
    const stroke = j === q ? ' stroke="#000" stroke-width="2.5"' : ' stroke="#999" stroke-width="0.8"';
    o.push(`<rect x="${x}" y="${base.toFixed(1)}" width="${wd}" height="${chipH}" rx="4" fill="none"${stroke}/>`,
      `<text x="${cx[j].toFixed(1)}" y="${(base + chipH / 2 + size * 0.36).toFixed(1)}" font-size="${size}" text-anchor="middle" ` +
      `fill="${vis[j] ? "#000" : d.muted}">${NP.esc(d.tokens[j])}</text>`);
  }
  o.push("</svg>");
  return o.join("");
}

const HATCH = "repeating-linear-gradient(45deg,#eeeeee,#eeeeee 4px,#d0d0d0 4px,#d0d0d0 8px)";

function bar(frac, color, width) {
  const h = frac > 0 ? Math.max(1, Math.round(60 * frac)) : 0;
  return `<div style="display:inline-block;vertical-align:bottom;width:${width}px;height:${h}px;background:${color};margin:0 1px"></div>`;
}

// 一个 token 的格子：每个头一根竖条和一个数（三位小数）；看不到的位置灰色斜纹
function cell(vals, visible, step, colors) {
  if (!visible) {
    const nums = vals.map(() => (step === "scores" ? "−∞" : "0")).join("<br>");
    const crossed = step === "scores" ? vals.map(([v]) => `<s>${f3(v)}</s>`).join("<br>") : "";
    return `<td style="background:${HATCH};color:#555;text-align:center;font-family:monospace;font-size:11px;padding:2px 4px" ` +
      `title="只看前文：这个位置还看不到"><div style="height:62px;line-height:62px">—</div>${crossed}${crossed ? "<br>" : ""}${nums}</td>`;
  }
  const bw = Math.max(6, Math.floor(16 / vals.length));
  const bars = vals.map(([, f], k) => bar(f, colors[k], bw)).join("");
  const nums = vals.map(([v], k) => `<span style="color:${colors[k]}">■</span>${f3(v)}`).join("<br>");
  return `<td style="text-align:center;font-family:monospace;font-size:11px;padding:2px 4px">` +
    `<div style="height:62px;display:flex;align-items:flex-end;justify-content:center">${bars}</div>${nums}</td>`;
}

// avail：视图实际有多宽（像素；0 = 还不知道）。数字表一张放几列按它算，窄的栏（阅读网站）里也不用横向滚动
function view(d, s, avail = 0) {
  const T = d.tokens.length, q = s.query, L = d.layers ? s.layer : 0, c = s.causal ? 1 : 0, step = s.step;
  const idx = s.head === d.overlay ? d.heads.map((_, i) => i) : [d.heads.indexOf(s.head)];
  const names = idx.map((h) => d.heads[h]), colors = idx.map((h) => d.colors[h]);
  const vis = d.tokens.map((_, j) => !s.causal || j <= q);
  const W = d.w[L][c][q], rows = idx.map((h) => W[h]);
  const qtok = NP.esc(d.tokens[q]);
  let cols;
  if (step === "scores") {
    const S = idx.map((h) => d.scores[L][h][q]);
    const shown = S.flatMap((r) => r.filter((_, j) => vis[j]));
    const lo = Math.min(...shown), hi = Math.max(...shown);
    const frac = (v, j) => (hi > lo && vis[j] ? 0.1 + (0.9 * (v - lo)) / (hi - lo) : 1);
    cols = d.tokens.map((_, j) => S.map((r) => [r[j], frac(r[j], j)]));
  } else {
    cols = d.tokens.map((_, j) => rows.map((r) => [r[j], r[j]]));
  }
  const th = d.tokens.map((t, j) => `<th style="padding:2px 4px;${j === q ? "border-bottom:3px solid #000;" : ""}` +
    `${vis[j] ? "" : `color:${d.muted};`}">${NP.esc(t)}</th>`);
  const cells = cols.map((v, j) => cell(v, vis[j], step, colors));
  const per = avail > 0 ? Math.max(1, Math.min(d.per, Math.floor(avail / d.col_w))) : d.per;
  let tables = "";
  for (let a = 0; a < T; a += per) {
    tables += `<table style="border-collapse:collapse;margin-bottom:4px"><tr>${th.slice(a, a + per).join("")}</tr>` +
      `<tr>${cells.slice(a, a + per).join("")}</tr></table>`;
  }
  const legend = names.map((n, k) => `<span style="color:${colors[k]}">■</span> ${NP.esc(n)}`).join("　");
  const picture = step === "scores" ? "" : linksSvg(d, idx, rows, q, vis) +
    `<div style="color:#444;font-size:12px">上图：从「${qtok}」连出的线越粗越深、色块底色越深，它给那个词的权重越大（每个头一种颜色，色块里每个头占一条）。</div>`;
  const which = s.head === d.overlay ? `叠加（${names.join(" + ")}）` : names[0];
  const where = d.layers ? `<b>${NP.esc(d.layers[L])}</b>　` : "";
  const parts = [`<div style="font-family:sans-serif;max-width:${d.geo.max_width + 40}px"><div>提问的词：<b>「${qtok}」</b>（第 ${q + 1} 个）　${where}` +
    `头：<b>${NP.esc(which)}</b>　只看前文：<b>${s.causal ? "开" : "关"}</b></div>`,
    `<div style="color:#444;margin:2px 0">${d.step_notes[step]}</div>`, picture,
    `<div style="font-size:12px;margin-top:4px">${legend}</div>${tables}`];
  const hidden = d.tokens.filter((_, j) => !vis[j]);
  if (hidden.length) {
    parts.push(`<div>只看前文：「${qtok}」还看不到后面的 ${hidden.length} 个词（${hidden.map(NP.esc).join("、")}），` +
      "它们的分数被设为 −∞，权重恰好是 0（灰色斜纹）。</div>");
  }
  if (step !== "scores") {
    const sums = idx.map((h) => `${NP.esc(d.heads[h])} ${f3(d.sum[L][c][q][h])}`).join("，");
    parts.push(`<div style="color:#444">每个头的权重之和：${sums}。</div>`);
  }
  if (step === "output") {
    idx.forEach((h, k) => {
      const w = W[h], out = d.out[L][c][q][h];
      const terms = d.top[L][c][q][h].map((j) => `${f3(w[j])}×V(「${NP.esc(d.tokens[j])}」)`).join(" + ");
      const rgb = d.rgb && d.rgb[L][c][q][h];
      const swatch = rgb ? `<span style="display:inline-block;width:28px;height:14px;vertical-align:middle;background:${rgb};border:1px solid #000;margin-left:6px"></span>` : "";
      parts.push(`<div><span style="color:${colors[k]}">■</span> ${NP.esc(d.heads[h])}：新表示 = ${terms}${T > 3 ? " + …" : ""}` +
        ` = <b>[${out.map(f3).join(", ")}]</b>${swatch}</div>`);
    });
  }
  if (d.note) parts.push(`<div style="color:#666;font-size:12px">${NP.esc(d.note)}</div>`);
  return parts.join("") + "</div>";
}

export default {
  view,
  render({ model, el }) {
    const d = model.get("data");
    const queries = d.labels.map((t, i) => [t, i]);
    const controls = [
      queries.length <= 12 ? NP.toggle(model, "query", { label: "提问的词", options: queries })
        : NP.dropdown(model, "query", { label: "提问的词", options: queries }),
    ];
    if (d.layers) controls.push(NP.dropdown(model, "layer", { label: "层", options: d.layers.map((t, i) => [t, i]) }));
    controls.push(NP.toggle(model, "step", { label: "步骤", options: d.steps }));
    const causal = NP.checkbox(model, "causal", { label: d.causal_fixed ? "只看前文（这个模型本身就是因果的）" : "只看前文（因果遮罩）" });
    if (d.causal_fixed) causal.querySelector("input").disabled = true;
    controls.push(causal);
    controls.push(NP.toggle(model, "head", { label: "头", options: [...d.heads.map((n) => [n, n]), ["叠加", d.overlay]] }));
    const names = ["query", "step", "head", "causal", "layer"];
    // 视图的宽度：第一次画时量一次（已经放进页面时），之后栏宽变了（窗口缩放、侧栏开合）再量、重画
    let avail = 0, viewEl = null;
    const draw = () => {
      if (!viewEl) { viewEl = el.querySelector(".np-view"); avail = viewEl ? viewEl.clientWidth : 0; }
      return view(d, Object.fromEntries(names.map((n) => [n, model.get(n)])), avail);
    };
    const off = NP.mount(el, model, controls, names, draw);
    const ro = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => {
      const w = viewEl.clientWidth;
      if (w && w !== avail) { avail = w; viewEl.innerHTML = draw(); }
    });
    if (ro) ro.observe(viewEl);
    return () => { off(); if (ro) ro.disconnect(); };
  },
};
