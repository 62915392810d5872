// 上下文窗口（第 14 章）：窗口保留最后 n 个 token（按字计数）；猫的名字完整落在窗口里才答得出。
// 数据（ContextWindowPanel.data）：整段对话、名字、答不出时的预设回答。
function mark(segment, name, style) {
  return segment.split(name).map(NP.esc).join(`<b style="${style}">${NP.esc(name)}</b>`);
}

function view(d, n) {
  const text = d.text, cut = Math.max(text.length - n, 0);
  const outside = text.slice(0, cut), inside = text.slice(cut);
  const ok = inside.includes(d.name);
  const answer = ok ? d.name : d.unanswerable;
  return `<div>窗口 <b>${n}</b> 个 token（按字计数）：整段对话共 ${text.length} 个，窗口里装下最近的 ` +
    `<b>${Math.min(n, text.length)}</b> 个，更早的 <b>${outside.length}</b> 个被挤出窗口（灰色、划掉），模型完全看不到。</div>` +
    `<div style="line-height:1.8;margin:6px 0;font-size:14px">` +
    `<span style="color:#767676;text-decoration:line-through">${mark(outside, d.name, "color:#767676")}</span>` +
    `<span style="background:#CCEEFF">${mark(inside, d.name, "background:#EEEEBB")}</span></div>` +
    `<div>回答（预设）：<b style="color:${ok ? "#228833" : "#AA3377"}">${NP.esc(answer)}</b>${ok ? "——名字还在窗口里" : ""}</div>`;
}

export default {
  render({ model, el }) {
    const d = model.get("data");
    return NP.mount(el, model, [
      NP.slider(model, "n", { label: "窗口（token）", min: d.min, max: d.text.length, step: d.step, width: "480px" }),
    ], ["n"], () => view(d, model.get("n")));
  },
};
