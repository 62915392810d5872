// 卷积窗口滑块（第 10 章）：数据是 Python 用 cnn.windows / cnn.receptive_field 算好的每个宽度的窗口个数和
// 每个（宽度, 层数）的感受野（ConvWindowPanel.data）；这里照 conv_window.windows_svg / field_svg 画两张 SVG。
const STYLE = "font-family:sans-serif;font-size:12px;max-width:100%;height:auto";
const IN = "#009E73", OUT = "#D55E00";   // 落在 / 不在感受野里
const f1 = (v) => v.toFixed(1);

function windowsSvg(d, width, chartWidth = 860) {
  const tokens = d.tokens, n = tokens.length, count = d.n_windows[width - 1];
  const left = 10, cw = Math.min(120, (chartWidth - 20) / n), bandH = 20, gap = 4;
  const tokenY = 8 + count * (bandH + gap), height = tokenY + 34;
  const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${chartWidth}" height="${height}" viewBox="0 0 ${chartWidth} ${height}" role="img" aria-label="宽度 ${width} 的窗口盖住哪几个词" style="${STYLE}">`];
  for (let k = 0; k < count; k++) {
    const color = d.palette[k % 6], x = left + k * cw + 2, y = 8 + k * (bandH + gap);
    o.push(`<rect class="window" data-start="${k}" data-width="${width}" x="${f1(x)}" y="${y}" width="${f1(width * cw - 4)}" height="${bandH}" rx="4" fill="${color}" fill-opacity="0.85"/>` +
      `<text x="${f1(x + 6)}" y="${y + 14}" fill="#111" font-weight="bold">窗口 ${k + 1} → 输出 ${k + 1}</text>`);
    for (let j = k; j < k + width; j++) {
      const cx = left + (j + 0.5) * cw;
      o.push(`<line x1="${f1(cx)}" y1="${y + bandH}" x2="${f1(cx)}" y2="${tokenY}" stroke="${color}" stroke-opacity="0.35"/>`);
    }
  }
  tokens.forEach((t, i) => {
    const x = left + i * cw;
    o.push(`<rect x="${f1(x + 2)}" y="${tokenY}" width="${f1(cw - 4)}" height="24" rx="4" fill="#eee" stroke="#999"/>` +
      `<text x="${f1(x + cw / 2)}" y="${tokenY + 16}" text-anchor="middle">${NP.esc(t)}<tspan font-size="9" fill="#666"> ${i}</tspan></text>`);
  });
  o.push("</svg>");
  return o.join("");
}

function fieldSvg(d, width, layers, chartWidth = 860) {
  const rf = d.rf[width - 1][layers - 1], distance = d.distance;
  const m = Math.max(rf, distance + 1) + 2, labelW = 70, cw = (chartWidth - labelW - 10) / m;
  const rh = layers <= 6 ? 18 : 13, start = 1, height = 26 + (layers + 1) * rh + 30;
  const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${chartWidth}" height="${height}" viewBox="0 0 ${chartWidth} ${height}" role="img" aria-label="宽度 ${width}、${layers} 层的感受野" style="${STYLE}">`,
    `<text x="${labelW}" y="14">最上层的一个输出，往下一层一层看它依赖哪些位置（最底下是输入的词）</text>`];
  for (let level = layers; level >= 0; level--) {          // level = layers 为最上层，0 为输入
    const span = 1 + (layers - level) * (width - 1), y = 22 + (layers - level) * rh;
    o.push(`<text x="${labelW - 6}" y="${y + rh - 4}" text-anchor="end" font-size="10">${level === 0 ? "输入" : `第 ${level} 层`}</text>`);
    const lo = start + Math.floor((rf - span) / 2);
    o.push(`<rect class="field" data-level="${level}" data-span="${span}" x="${f1(labelW + lo * cw)}" y="${y + 1}" width="${f1(span * cw)}" height="${rh - 3}" fill="${level ? "#0072B2" : "#56B4E9"}" fill-opacity="${(0.35 + (0.65 * level) / Math.max(layers, 1)).toFixed(2)}"/>`);
  }
  const y0 = 22 + layers * rh;
  for (let i = 0; i < m; i++) o.push(`<rect x="${f1(labelW + i * cw)}" y="${y0 + 1}" width="${f1(cw)}" height="${rh - 3}" fill="none" stroke="#bbb" stroke-width="0.5"/>`);
  for (const p of [start, start + distance]) {
    const inside = start <= p && p < start + rf;
    o.push(`<circle class="probe" data-inside="${inside ? 1 : 0}" cx="${f1(labelW + (p + 0.5) * cw)}" cy="${y0 + rh + 8}" r="5" fill="${inside ? IN : OUT}"/>`);
  }
  const x1 = labelW + (start + 0.5) * cw, x2 = labelW + (start + distance + 0.5) * cw;
  o.push(`<text x="${f1((x1 + x2) / 2)}" y="${y0 + rh + 12}" text-anchor="middle" font-size="10">相距 ${distance} 个词</text>`, "</svg>");
  return o.join("");
}

function view(d, width, layers) {
  const n = d.tokens.length, count = d.n_windows[width - 1];
  const top = count
    ? windowsSvg(d, width) + `<div>宽度 ${width}：${n} 个词上能放 <b>${count}</b> 个窗口（${n} − ${width} + 1），每个窗口读 ${width} 个相邻的词，给出一个输出。</div>`
    : `<div style="color:#AA3377">句子只有 ${n} 个 token，放不下宽度 ${width} 的窗口：把宽度调到 ${n} 或更小。</div>`;
  const rf = d.rf[width - 1][layers - 1];
  return top + fieldSvg(d, width, layers) +
    `<div>宽度 ${width}、堆叠 ${layers} 层：最上层每个输出能看到 <b>${rf}</b> 个相邻 token（1 + 层数×(宽度−1)）。` +
    `相距 ${d.distance} 个词的两个位置${rf > d.distance ? "能" : "不能"}落进同一个感受野。</div><div style="color:#555">${NP.esc(d.try)}</div>`;
}

export default {
  render({ model, el }) {
    const d = model.get("data");
    return NP.mount(el, model, [
      NP.slider(model, "width", { label: "窗口宽度", min: 1, max: d.max_width }),
      NP.slider(model, "layers", { label: "层数", min: 1, max: d.max_layers }),
    ], ["width", "layers"], () => view(d, model.get("width"), model.get("layers")));
  },
};
