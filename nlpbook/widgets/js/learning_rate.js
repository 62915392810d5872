// 学习率滑块（第 4.3 节）：数据是 Python 用 descent_path 在滑块的每个学习率上走好的 100 步损失（LearningRatePanel.data），
// 这里只查表、数“上升”的步数、画曲线。学习率滑块在格点的序号上移动（对数刻度），读数和 aria-valuetext 写学习率本身。

function view(d, k, steps) {
  const losses = d.losses[k].slice(0, steps + 1);
  const nUp = [...d.up[k].slice(0, steps)].filter((c) => c === "1").length;
  const trend = nUp === 0 ? "一路下降" : `有 ${nUp} 步损失上升`;
  return `<div>起始损失 ${NP.fixed(losses[0], 3)} → ${steps} 步后 <b>${NP.fixed(losses[steps], 3)}</b>；${trend}</div>` +
    NP.lineChart(losses.map((_, t) => t), { [`学习率 ${NP.num(d.lrs[k])}`]: losses }, { title: "训练损失随步数变化",
      xlabel: "更新步数", ylabel: "平均交叉熵损失", yFromZero: false });
}

export default {
  render({ model, el }) {
    const d = model.get("data");
    const index = () => {
      const lr = model.get("lr");
      let k = 0;
      d.lrs.forEach((g, j) => { if (Math.abs(g - lr) < Math.abs(d.lrs[k] - lr)) k = j; });
      return k;
    };
    // 滑块的值是格点序号；读写都落到同步的 lr 上
    const onLr = {
      get: () => index(),
      set: (_, k) => model.set("lr", d.lrs[k]),
      save_changes: () => model.save_changes(),
      on: (_, f) => model.on("change:lr", f),
      off: (_, f) => model.off("change:lr", f),
    };
    const lrControl = NP.slider(onLr, "lr", { label: "学习率", min: 0, max: d.lrs.length - 1, step: 1, fmt: (k) => NP.num(d.lrs[k]) });
    const input = lrControl.querySelector("input");
    const valuetext = () => input.setAttribute("aria-valuetext", NP.num(model.get("lr")));
    model.on("change:lr", valuetext);
    valuetext();
    const stop = NP.mount(el, model, [lrControl, NP.slider(model, "steps", { label: "步数", min: 1, max: d.max_steps })],
      ["lr", "steps"], () => view(d, index(), model.get("steps")));
    return () => { model.off("change:lr", valuetext); stop(); };
  },
};
