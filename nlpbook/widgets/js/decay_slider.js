// 衰减滑块（第 8.5 节）：数据是 Python 在滑块的每个系数上算好的 decay^t 与两句玩具话的最终记录（DecayPanel.data）。
const TRY = "试一试：系数停在 0.9，再拖到 1.1，步数拉到 30：一个缩到零头，一个涨到十几倍。";

function plain(v) {
  if (v !== 0 && Math.abs(v) < 1e-9) return "不到十亿分之一（几乎为 0）";
  if (v !== 0 && Math.abs(v) < 1e-6) return `${NP.num(v)}（不到百万分之一）`;
  return NP.num(v);
}

function view(d, decay, steps) {
  const i = d.decays.findIndex((x) => Math.abs(x - decay) < 1e-9);
  const curve = d.influence[i].slice(0, steps + 1);
  const xs = curve.map((_, t) => t);
  const label = `系数 ${NP.num(decay)}`;
  const kind = decay < 1 ? "逐步消失（梯度消失的直觉）" : decay === 1 ? "保持不变" : "越来越大（梯度爆炸的直觉）";
  const a = d.cat_dog[i], b = d.dog_cat[i];
  return NP.lineChart(xs, { [label]: curve }, { title: "第 1 个词的影响经过 t 次更新后还剩多少", xlabel: "后面又读了几个词 t",
      ylabel: "影响（倍数）", width: 880, height: 260, markX: steps, markText: `第 ${steps} 步`, markFmt: plain }) +
    `<div>系数 ${NP.num(decay)} 连乘 ${steps} 次 = <b>${plain(curve[steps])}</b>：${kind}。</div>` +
    `<div>新记录 = 旧记录×${NP.num(decay)} + 特征：猫追狗 → ${NP.fixed(a, 3)}，狗追猫 → ${NP.fixed(b, 3)}` +
    `${Math.abs(a - b) > 1e-9 ? "（两句仍可区分）" : "（两句变得一样了）"}</div><div style="color:#555">${TRY}</div>`;
}

export default {
  render({ model, el }) {
    const d = model.get("data");
    return NP.mount(el, model, [
      NP.slider(model, "decay", { label: "每步乘的系数", min: d.decays[0], max: d.decays[d.decays.length - 1], step: d.step, fmt: (v) => NP.fixed(v, 2) }),
      NP.slider(model, "steps", { label: "步数", min: 1, max: d.max_steps }),
    ], ["decay", "steps"], () => view(d, model.get("decay"), model.get("steps")));
  },
};
