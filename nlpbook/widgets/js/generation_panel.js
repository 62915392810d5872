// 生成面板（第 11.4 节）：温度、top-k、top-p 在浏览器里作用在 Python 算好的 logits 上（GenerationPanel.data），
// 算法与 nlpbook.decoding 的 apply_temperature / top_k_filter / top_p_filter 相同；条形图是 svgplot.bar_chart 的移植，
// 视图与 Python 的 panel_html（fallback_html）逐字相同（tests/test_widgets_generation.py 用 node 核对）。
// 续写要逐字调用模型：预先采好的一组在 data.grid 里；JupyterLab 里其余设置由内核采样（result、live）；
// 阅读网站上没有内核（model.get("offline")），显示最接近的预先采好的一组并写明用的是哪组设置。
const EMPTY = "<div>请先输入提示词：例如“这家酒店”“这本书”。</div>";

// ---------- 数字格式与条形图在 _kit.js（NP）：与 Python 逐字相同 ----------
const { fixed, g, commas, esc } = NP;

function percent(p) {  // generation_panel.percent
  const v = 100 * p;
  if (v <= 0) return "0%";
  if (v < 1e-4) return "<0.0001%";
  return `${fixed(v, Math.max(0, 1 - Math.floor(Math.log10(v))))}%`;
}

// ---------- 解码：nlpbook.decoding 的同一套算术 ----------
// numpy 的 sum（成对求和，8 路展开）：和 Python 得到同一个浮点数
function psum(a, lo = 0, n = a.length) {
  if (n < 8) { let r = 0; for (let i = lo; i < lo + n; i++) r += a[i]; return r; }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => a[lo + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[lo + i + j];
    let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[lo + i];
    return res;
  }
  let n2 = Math.trunc(n / 2);
  n2 -= n2 % 8;
  return psum(a, lo, n2) + psum(a, lo + n2, n - n2);
}

function applyTemperature(z, T) {  // decoding.apply_temperature（T = 0：贪心的 one-hot）
  const n = z.length, out = new Float64Array(n);
  if (T === 0) { let best = 0; for (let i = 1; i < n; i++) if (z[i] > z[best]) best = i; out[best] = 1; return out; }
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (z[i] > m) m = z[i];
  const s = new Float64Array(n), e = new Float64Array(n);
  let m2 = -Infinity;
  for (let i = 0; i < n; i++) { s[i] = Math.max((z[i] - m) / T, -1e300); if (s[i] > m2) m2 = s[i]; }
  for (let i = 0; i < n; i++) { s[i] -= m2; e[i] = Math.exp(s[i]); }
  const lse = Math.log(psum(e));
  for (let i = 0; i < n; i++) out[i] = Math.exp(s[i] - lse);
  return out;
}

// order：logits 的稳定降序（并列时编号小的在前）。温度是单调的，所以它就是温度后概率的稳定降序
// （概率下溢成 0 的那些除外，它们排在最后，对过滤结果没有影响）。
function topK(p, k, order) {  // decoding.top_k_filter
  const n = p.length, out = new Float64Array(n);
  if (k >= n) { const s = psum(p); for (let i = 0; i < n; i++) out[i] = p[i] / s; return out; }
  for (let i = 0; i < k; i++) out[order[i]] = p[order[i]];
  const s = psum(out);
  for (let i = 0; i < n; i++) out[i] /= s;
  return out;
}

function topP(p, pp, order) {  // decoding.top_p_filter：累计刚达到 p 的最短前缀（留 1e-9 的余量）
  const n = p.length, total = psum(p), out = new Float64Array(n);
  let run = 0, m = n;
  for (let i = 0; i < n; i++) { run += p[order[i]]; if (run / total >= pp - 1e-9) { m = i + 1; break; } }
  for (let i = 0; i < m; i++) out[order[i]] = p[order[i]];
  const s = psum(out);
  for (let i = 0; i < n; i++) out[i] /= s;
  return out;
}

function nextTokenView(lg, vocab, T, k, p, nBars = 8) {  // generation_panel.next_token_view
  const raw = lg.raw || (lg.raw = applyTemperature(lg.z, 1.0)), tempered = applyTemperature(lg.z, T);
  let filtered = tempered;
  if (k) filtered = topK(filtered, k, lg.order);
  if (p < 1.0) filtered = topP(filtered, p, lg.order);
  const top = Array.from(lg.order.subarray(0, nBars));
  let kept = 0;
  for (let i = 0; i < filtered.length; i++) if (filtered[i] !== 0) kept++;
  return { tokens: top.map((i) => vocab[i]), raw: top.map((i) => raw[i]), tempered: top.map((i) => tempered[i]),
    filtered: top.map((i) => filtered[i]), kept };
}

function logitsOf(entry, scale, cache) {  // data 里的整数 → logits 与它们的稳定降序（每个提示词只算一次，存在 cache 里）
  if (cache.has(entry)) return cache.get(entry);
  const z = Float64Array.from(entry.z.split(","), (v) => Number(v) / scale);
  const order = Uint32Array.from(z.keys()).sort((a, b) => z[b] - z[a] || a - b);
  cache.set(entry, { z, order });
  return cache.get(entry);
}

// ---------- 视图：generation_panel.panel_html 的移植 ----------
function tail(text, n = 12) {
  const cs = Array.from(text.replace(/\n/g, "⏎"));
  return cs.length <= n ? cs.join("") : "…" + cs.slice(cs.length - n).join("");
}

const seedsText = (seed, n) => Array.from({ length: n }, (_, i) => seed + i).join("、");
const filterText = (k, p) => [k ? `top-k=${k}` : "", p < 1.0 ? `top-p=${g(p)}` : ""].filter(Boolean).join("、");

function panelHtml(d, view, samples, prompt, T, k, p, message, seed, note = "") {
  const title = `“${tail(prompt, 8)}”之后的下一个字（纵轴随数据缩放，看清刻度）`;
  const aria = `${title}。原始 → 温度后 → 过滤后：` +
    view.tokens.map((t, i) => `${t} ${percent(view.raw[i])} → ${percent(view.tempered[i])} → ${percent(view.filtered[i])}`).join("；");
  const chart = NP.barChart(view.tokens, [["原始 T=1", view.raw], [`温度 T=${g(T)}`, view.tempered], ["过滤后", view.filtered]],
    { title, ylabel: "概率", fmt: percent, tickFmt: percent, width: d.width, height: 260, aria });
  const noteKept = `<div>过滤（${filterText(k, p) || "不过滤"}）后还剩 <b>${commas(view.kept)}</b> 个候选可以被抽到。` +
    "图中只画原始概率最高的几个字。</div>";
  const warn = message ? `<div style='color:#B00020'>${esc(message)}</div>` : "";
  const head = esc(tail(prompt));
  const rows = samples.map((s) => `<li><span style='color:#555'>${head}</span><b style='color:#4477AA'>${esc(s.replace(/\n/g, "⏎"))}</b></li>`).join("");
  const header = samples.length || !note ? `<div>采样出的续写（种子 ${seedsText(seed, samples.length)}；灰色是提示词的结尾，蓝色是模型写的）：</div>` : "";
  return `<div style='color:#555'>${esc(d.try)}</div>` + warn + chart + noteKept + note + header + `<ol>${rows}</ol>`;
}

// 续写：内核这次算好的（key 对得上）> 预先采好的（贪心与种子、过滤无关）> 内核正在算 / 网站上最接近的一组
function samplesFor(d, grid, st, offline, result) {
  const { pi, T, k, p, seed } = st;
  const key = result && result.key;
  if (key && key[0] === st.prompt && key[1] === T && key[2] === k && key[3] === p && key[4] === seed) return { texts: result.texts, seed };
  const exact = pi < 0 ? undefined : T === 0 ? grid.get(`${pi}|0|0|1`) : seed === 0 ? grid.get(`${pi}|${T}|${k}|${p}`) : undefined;
  if (exact) return { texts: exact, seed };
  if (!offline || pi < 0) return { texts: [], seed, note: "<div>采样出的续写：内核正在采样……</div>" };
  const mine = d.grid.filter((e) => e[0] === pi);
  const same = mine.filter((e) => e[2] === k && e[3] === p);
  const pool = same.length ? same : mine.filter((e) => e[2] === 0 && e[3] === 1);
  const best = pool.reduce((a, e) => (Math.abs(e[1] - T) < Math.abs(a[1] - T) ? e : a), pool[0]);
  const want = `T=${g(T)}、${filterText(k, p) || "不过滤"}、种子 ${seedsText(seed, d.n_samples)}`;
  const got = `T=${g(best[1])}、${filterText(best[2], best[3]) || "不过滤"}、种子 ${seedsText(0, d.n_samples)}`;
  return { texts: best[4].map((i) => d.texts[i]), seed: 0,
    note: `<div style='color:#555'>网页上没有内核，不能现场采样（你选的是 ${want}）；下面是预先采好的 ${got} 的续写。` +
      "在 JupyterLab 里运行本章，可以用任何设置现场采样。</div>" };
}

const round2 = (v) => Math.round(Number(v) * 100) / 100;

// 整个视图的 HTML：st = {prompt, temperature, top_k, top_p, seed}；live、result 是内核写回的（网站上为空）
function viewHtml(d, st, offline, live, result, cache = new Map()) {
  const prompt = st.prompt;
  if (!prompt) return EMPTY;
  const pi = d.prompts.findIndex((e) => e.prompt === prompt);
  const entry = pi >= 0 ? d.prompts[pi] : live && live.prompt === prompt ? live : null;
  if (!entry) return `<div>内核正在读提示词“${esc(tail(prompt))}”……</div>`;
  if (!cache.has("grid")) cache.set("grid", new Map(d.grid.map(([i, t, k, p, ids]) => [`${i}|${t}|${k}|${p}`, ids.map((j) => d.texts[j])])));
  const T = round2(st.temperature), k = Math.trunc(st.top_k), p = round2(st.top_p), seed = Math.trunc(st.seed);
  if (!cache.has("vocab")) cache.set("vocab", typeof d.vocab === "string" ? d.vocab.split("\n") : d.vocab);
  const view = nextTokenView(logitsOf(entry, d.scale, cache), cache.get("vocab"), T, k, p);
  const s = samplesFor(d, cache.get("grid"), { prompt, pi, T, k, p, seed }, offline, result);
  return panelHtml(d, view, s.texts, prompt, T, k, p, entry.message, s.seed, s.note || "");
}

// ---------- 控件 ----------
let uid = 0;
const newId = () => `np-gen-${Math.random().toString(36).slice(2, 8)}-${++uid}`;
function commit(model, name, v) { model.set(name, v); model.save_changes(); }

function promptSelect(model, prompts, offline) {  // 预设的提示词；JupyterLab 里自己写的提示词显示为“（自己写的）”
  const id = newId();
  const sel = NP.el("select", { id }, ...prompts.map((p, i) => NP.el("option", { value: String(i) }, p)),
    ...(offline ? [] : [NP.el("option", { value: "own", disabled: "" }, "（自己写的）")]));
  const sync = () => { const i = prompts.indexOf(model.get("prompt")); if (i >= 0) sel.value = String(i); else if (!offline) sel.value = "own"; };
  sel.addEventListener("change", () => { if (sel.value !== "own") commit(model, "prompt", prompts[Number(sel.value)]); });
  model.on("change:prompt", sync);
  sync();
  return NP.el("div", { class: "np-control np-dropdown" }, NP.el("label", { for: id }, "提示词"), sel);
}

function seedBox(model, max) {  // 种子：只接受 0—max 的整数（不合法时提示，不改种子）
  const id = newId(), hintId = newId();
  const input = NP.el("input", { type: "text", id, inputmode: "numeric", value: String(model.get("seed")), style: "width:6em", "aria-describedby": hintId });
  const hint = NP.el("span", { id: hintId, style: "color:#B00020" });
  input.addEventListener("input", () => {
    const s = input.value.trim(), ok = /^\d{1,6}$/.test(s) && Number(s) <= max;
    hint.textContent = ok ? "" : `种子要是 0—${max} 的整数`;
    if (ok) { input.removeAttribute("aria-invalid"); commit(model, "seed", Number(s)); } else input.setAttribute("aria-invalid", "true");
  });
  model.on("change:seed", () => { if (input.value.trim() !== String(model.get("seed"))) input.value = String(model.get("seed")); });
  return NP.el("div", { class: "np-control np-text" }, NP.el("label", { for: id }, "种子"), input, hint);
}

function offlineNote(d) {
  const temps = (pairs) => [...new Set(d.grid.filter(pairs).map((e) => e[1]))].sort((a, b) => a - b).map(g).join("、");
  const filtered = d.grid.filter((e) => e[2] !== 0 || e[3] !== 1);
  const kinds = [...new Set(filtered.map((e) => filterText(e[2], e[3])))].join("、");
  return NP.el("div", { style: "color:#555;flex-basis:100%" },
    `网页上没有内核：条形图照常随旋钮变；续写是预先采好的（不过滤：T=${temps((e) => e[2] === 0 && e[3] === 1)}` +
    (filtered.length ? `；${kinds}：T=${temps((e) => e[2] !== 0 || e[3] !== 1)}` : "") +
    `；种子 ${seedsText(0, d.n_samples)}），别的设置显示最接近的一组并写明。`);
}

export default {
  render({ model, el }) {
    const d = model.get("data"), offline = model.get("offline") === true, cache = new Map();
    const prompts = d.prompts.map((e) => e.prompt);
    const controls = [promptSelect(model, prompts, offline)];
    if (!offline) controls.push(NP.text(model, "prompt", { label: "自己写提示词", placeholder: "例如：手机", width: "10em" }));
    controls.push(seedBox(model, d.seed_max),
      NP.slider(model, "temperature", { label: "温度 T", min: 0, max: d.t_max, step: 0.1, fmt: (v) => v.toFixed(1) }),
      NP.slider(model, "top_k", { label: "top-k（0=关）", min: 0, max: d.k_max }),
      NP.slider(model, "top_p", { label: "top-p（1=关）", min: d.p_min, max: 1, step: 0.05, fmt: (v) => v.toFixed(2) }));
    if (offline) controls.push(offlineNote(d));
    const names = ["prompt", "temperature", "top_k", "top_p", "seed", "live", "result"];
    const stop = NP.mount(el, model, controls, names, () => viewHtml(d, {
      prompt: model.get("prompt"), temperature: model.get("temperature"), top_k: model.get("top_k"),
      top_p: model.get("top_p"), seed: model.get("seed") }, offline, model.get("live"), model.get("result"), cache));
    // 视图每次整块重画：把排版限制在视图里面，页面的其余部分不用跟着重排
    el.querySelector(".np-view").style.contain = "content";
    // 其余提示词的 logits（每个约 3000 个整数）趁页面空闲时先解析、排好序，换提示词时就不用在 input 事件里做
    const idle = typeof requestIdleCallback === "function" ? requestIdleCallback : (f) => setTimeout(f, 0);
    const warm = (i) => {
      if (i >= d.prompts.length) return;
      logitsOf(d.prompts[i], d.scale, cache);
      idle(() => warm(i + 1));
    };
    idle(() => warm(0));
    return stop;
  },
  viewHtml,   // 测试用：与 Python 的 fallback_html 逐字比较
};
