// 顺序处理 vs 整句并行（第 14.4 节）：步数表 counts[词数−1][层数−1] = [RNN, RNN 流水线, Transformer]
// 是 Python 的 step_counts 算好的（RNNvsTransformerPanel.data）；这里只数格子的颜色、写说明。
// 步数滑块的上限 = 词数 × 层数：词数或层数一变就改滑块的 max（原生滑块，End 键直接到新上限），当前步超出时取新上限。

function grid(tokens, layers, state, colors) {
  const rows = [];
  for (let layer = layers - 1; layer >= 0; layer--) {
    const cells = tokens.map((t, i) => `<td style="background:${colors[state(layer, i)]};padding:3px 6px;border:1px solid #fff;` +
      `text-align:center;color:#000">${NP.esc(t)}</td>`).join("");
    rows.push(`<tr><td style="padding:0 6px;color:#555">第 ${layer + 1} 层</td>${cells}</tr>`);
  }
  return `<table style="border-collapse:collapse;margin:4px 0">${rows.join("")}</table>`;
}

function view(d, nTokens, layers, step) {
  const tokens = d.tokens.slice(0, nTokens), n = tokens.length;
  const [rnn, piped, tf] = d.counts[n - 1][layers - 1];
  step = Math.max(0, Math.min(step, rnn));
  // RNN 按层依次计算：第 step 步（从 1 数）在算第几层（从 0 数）的第几个词（从 0 数）
  const pos = step > 0 ? [Math.floor((step - 1) / n), (step - 1) % n] : null;
  const rnnState = (layer, i) => {
    if (!pos) return "todo";
    if (layer === pos[0] && i === pos[1]) return "now";
    return layer < pos[0] || (layer === pos[0] && i < pos[1]) ? "done" : "todo";
  };
  const tfState = (layer) => (step === 0 || layer >= step ? "todo" : layer === step - 1 ? "now" : "done");
  const rnnNow = !pos ? "还没开始。" : `这一步只算第 ${pos[0] + 1} 层的第 ${pos[1] + 1} 个词“${NP.esc(tokens[pos[1]])}”` +
    (pos[1] ? "（它要等前一个词的状态）。" : "。");
  const tfNow = step === 0 ? "还没开始。" : step <= layers ? `这一步第 ${step} 层的 ${n} 个位置同时算完。`
    : `早在第 ${layers} 步就全部算完了，之后在等 RNN。`;
  return `<div style="color:#555">${NP.esc(d.try)}</div>` +
    `<div><b>循环网络（RNN）</b>：已走 <b>${Math.min(step, rnn)}</b> / ${rnn} 步（每层 ${n} 步 × ${layers} 层）。${rnnNow}</div>` +
    grid(tokens, layers, rnnState, d.colors) +
    `<div><b>Transformer</b>：已走 <b>${Math.min(step, tf)}</b> / ${tf} 步（每层 1 步 × ${layers} 层）。${tfNow}</div>` +
    grid(tokens, layers, tfState, d.colors) +
    `<div style="color:#555">绿色：已算完；红色：这一步在算；灰色：还没轮到。步数只数“必须等上一步算完”的先后顺序，不是运算量。` +
    `RNN 若让各层流水线式紧跟，最少也要 ${piped} 步（n + 层数 − 1），仍随句长增长。</div>`;
}

export default {
  view,
  render({ model, el }) {
    const d = model.get("data");
    const maxStep = () => d.counts[model.get("n_tokens") - 1][model.get("layers") - 1][0];
    const stepCtl = NP.slider(model, "step", { label: "第几步", min: 0, max: maxStep(), width: "420px" });
    const stepInput = stepCtl.querySelector("input");
    // 范围跟着词数、层数变（在视图重画之前：重画时当前步已经落在新范围里）
    const resize = () => {
      const m = maxStep();
      stepInput.max = m;
      if (model.get("step") > m) { model.set("step", m); model.save_changes(); }
      else stepInput.value = model.get("step");
    };
    model.on("change:n_tokens", resize);
    model.on("change:layers", resize);
    const off = NP.mount(el, model, [
      NP.slider(model, "n_tokens", { label: "词数", min: 1, max: d.tokens.length }),
      NP.slider(model, "layers", { label: "层数", min: 1, max: d.max_layers }),
      stepCtl,
    ], ["n_tokens", "layers", "step"], () => view(d, model.get("n_tokens"), model.get("layers"), model.get("step")));
    return () => { off(); model.off("change:n_tokens", resize); model.off("change:layers", resize); };
  },
};
