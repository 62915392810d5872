// Skip-gram 窗口（第 7.5 节）：按空格切句子、列出（中心词, 周围词）训练对。文字与 Python 的 pairs_html 一致。
// 训练对的规则与 word2vec.skipgram_pairs 相同：每个位置 i，左右各取 window 个邻居 j（同一句内、j ≠ i），先按 i、再按 j。
// “用 jieba 分词”：JupyterLab 里请内核切（segment_request → Python 写回 text 和 segment_done）；
// 阅读网站上（model.get("offline")）只查 Python 预先切好的例句表 data.segmented。
const WRAP = "white-space:normal;overflow-wrap:anywhere;max-width:900px";
const HAN_RUN = /[\u3400-\u9fff\uf900-\ufaff]{4,}/;
const TIP_ON = "把连在一起的汉字切成词，词之间加空格";
const TIP_OFF = "现在没有连成一片的汉字（4 个以上），不需要再切分";

function skipgramPairs(n, window) {
  const out = [];
  for (let i = 0; i < n; i++)
    for (let j = Math.max(0, i - window); j <= Math.min(n - 1, i + window); j++) if (j !== i) out.push([i, j]);
  return out;
}

function spacingHint(tokens) {
  const t = tokens.find((x) => HAN_RUN.test(x));
  if (t === undefined) return "";
  const what = tokens.length === 1 ? "整句只有 1 个词，一个训练对也没有" : `“${t}”被当成了 1 个词`;
  return `“${t}”里有 ${[...t].length} 个字连在一起，${what}：这个面板按空格分词，中文请在词与词之间加空格` +
    "（例如“我 喜欢 看 电影”），或点“用 jieba 分词”自动切开。";
}

// 与 _html.chip 相同的色块
function view(d, tokens, window, center) {
  const e = NP.esc, pairs = skipgramPairs(tokens.length, window);
  let head = `<div>窗口 ${window}：这句话共产生 <b>${pairs.length}</b> 个（中心词, 周围词）训练对。</div>`;
  const hint = spacingHint(tokens);
  if (hint) head += `<div style="color:#AA3377;${WRAP}">${e(hint)}</div>`;
  const tryLine = `<div style="color:#555">${e(d.try)}</div>`;
  if (!tokens.length) return head + tryLine;
  const c = Math.min(center, tokens.length - 1), lo = Math.max(0, c - window), hi = Math.min(tokens.length, c + window + 1);
  const chips = tokens.map((t, i) => NP.chip(t, String(i), i === c ? d.center_color : lo <= i && i < hi ? d.window_color : "#FFFFFF")).join("");
  const mine = pairs.filter(([i]) => i === c).map(([i, j]) => `（${e(tokens[i])}, ${e(tokens[j])}）`).join(" ");
  return head + `<div style="line-height:2;${WRAP}">${chips}</div>` +
    `<div style="${WRAP}">以“${e(tokens[c])}”为中心：${mine || "（无）"}</div>` + tryLine;
}

export default {
  render({ model, el }) {
    const d = model.get("data"), offline = model.get("offline") === true;
    const space = new RegExp(`[${d.spaces}]+`);
    const tokensOf = () => String(model.get("text")).split(space).filter((t) => t.length > 0);   // = Python 的 str.split()
    const centerCtl = NP.slider(model, "center", { label: "中心词位置", min: 0, max: Math.max(0, tokensOf().length - 1) });
    const button = NP.el("button", { type: "button", class: "np-segment" }, "用 jieba 分词");
    const status = NP.el("div", { class: "np-status", role: "status", style: `color:#AA3377;${WRAP}` });
    const set = (name, v) => { model.set(name, v); model.save_changes(); };
    const sync = () => {
      const tokens = tokensOf(), top = Math.max(0, tokens.length - 1);
      centerCtl.querySelector("input").max = top;
      if (model.get("center") > top) set("center", top);
      const needs = !!spacingHint(tokens);
      button.disabled = !needs;
      button.title = needs ? (offline ? `${TIP_ON}（网站上只认本章的例句）` : TIP_ON) : TIP_OFF;
      if (offline) status.textContent = "";   // 换了句子：上一句“切不了”的说明不再适用
    };
    button.addEventListener("click", () => {
      if (offline) {   // 没有内核：整句的每个 token 都在例句表里才切得了
        const tokens = tokensOf();
        if (tokens.every((t) => Object.prototype.hasOwnProperty.call(d.segmented, t))) {
          status.textContent = "";
          set("text", tokens.map((t) => d.segmented[t]).join(" "));
        } else status.textContent = d.offline_note;
        return;
      }
      status.textContent = "正在用 jieba 分词（第一次要加载词典，约 1 秒）……";
      set("segment_request", (model.get("segment_request") || 0) + 1);
    });
    const done = () => { status.textContent = model.get("segment_error") || ""; };
    model.on("change:text", sync);
    model.on("change:segment_done", done);
    sync();
    const stop = NP.mount(el, model, [
      NP.el("div", { style: "display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center;flex-basis:100%" },
        NP.text(model, "text", { label: "句子（空格分词）", width: "28em" }), button),
      NP.slider(model, "window", { label: "窗口", min: 1, max: d.max_window }),
      centerCtl,
      status,
    ], ["text", "window", "center"], () => view(d, tokensOf(), model.get("window"), model.get("center")));
    return () => { stop(); model.off("change:text", sync); model.off("change:segment_done", done); };
  },
};
