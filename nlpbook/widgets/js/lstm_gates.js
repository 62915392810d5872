// LSTM 门控滑块（第 9.2 节）：数据是 Python 用 rnn.lstm_output / lstm_memory_update 算好的 tanh 表和保留表
// （LSTMGatePanel.data）。这里只算正文公式里的 f×c_prev + i×g 和 o×tanh(c)（tanh 查表），再画柱状图和曲线。
// 柱状图纵轴的上限：盖过最大值的下一个“好看”刻度（= lstm_gates.nice_top）
function niceTop(values) {
  const m = Math.max(...values);
  if (m <= 0) return 1;
  const target = m * 1.12, mag = Number(`1e${Math.floor(Math.log10(target))}`);
  return Number(NP.fixed([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((k) => k * mag).find((t) => t >= target - 1e-12), 10));
}

function view(d, cPrev, f, i, g, o) {
  const c = f * cPrev + i * g;                                   // 新记忆 c = f×c_prev + i×g
  const h = o * d.tanh[Math.round(c * d.grid) + (d.tanh.length - 1) / 2];   // 输出 h = o×tanh(c)
  const values = [Math.abs(cPrev), Math.abs(f * cPrev), Math.abs(i * g), Math.abs(c), Math.abs(h)];
  const bars = NP.barChart(["旧记忆", "f×旧记忆", "i×候选", "新记忆 c", "输出 h"], { "数值（绝对值）": values },
    { title: "一格记忆（柱高为绝对值；纵轴随数值缩放，看清刻度）", ymax: niceTop(values), fmt: (v) => NP.fixed(v, 3), width: 880, height: 230 });
  const keep = d.keep[Math.round(f / d.step)].map((k) => cPrev * k);   // 之后不再写入新内容：旧记忆 × 保留比例
  const curve = NP.lineChart(keep.map((_, t) => t), { [`f=${NP.num(f)}`]: keep }, { title: "不写入新内容时，记忆随步数的变化",
    xlabel: "步数", ylabel: "记忆", width: 880, height: 220 });
  return `<div>新记忆 c = ${NP.num(f)}×${NP.num(cPrev)} + ${NP.num(i)}×${NP.num(g)} = <b>${NP.fixed(c, 3)}</b>；` +
    `输出 h = ${NP.num(o)}×tanh(${NP.fixed(c, 3)}) = <b>${NP.fixed(h, 3)}</b></div>` + bars + curve +
    `<div style="color:#555">${NP.esc(d.try)}</div>`;
}

export default {
  render({ model, el }) {
    const d = model.get("data");
    const names = ["c_prev", "g", "f", "i", "o"];
    const slider = (name, label, min) => NP.slider(model, name, { label, min, max: 1, step: d.step, fmt: (v) => NP.fixed(v, 2), width: "150px" });
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
