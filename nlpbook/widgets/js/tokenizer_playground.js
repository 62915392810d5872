// 分词器游乐场（第 2 章）：读者敲什么都在浏览器里切分。数据（TokenizerPlayground.data）是整张词表：
// pieces[i] 的编号是 256 + i，编号 0—255 是 256 个字节 Token（显示为 <0xE9> 这样）。
// 切分同 tokenizers.LongestMatchTokenizer.tokenize：按 Unicode 码位从左到右，每次取词表里最长的片段；
// 匹配不上就把这一个字拆成它的 UTF-8 字节。视图与 Python 的 playground_html 逐字相同。
const { esc, chip, commas } = NP;   // 同 Python 的 html.escape、_html.chip、f"{n:,}"
const hex2 = (b) => b.toString(16).toUpperCase().padStart(2, "0");
const UTF8 = new TextEncoder();

// 片段 → 编号的表与最长片段的码位数：每份数据只建一次（不改 model 里的 data）
const TABLES = new WeakMap();
function tables(d) {
  if (!TABLES.has(d)) {
    TABLES.set(d, { ids: new Map(d.pieces.map((p, i) => [p, 256 + i])), bytes: d.pieces.map((p) => UTF8.encode(p)),
      maxLen: Math.max(0, ...d.pieces.map((p) => Array.from(p).length)) });
  }
  return TABLES.get(d);
}

// 文本 → [{text, id, isByte, start, end}]（start/end 是码位下标）；孤立的代理字符抛错，说法同 Python
function tokenize(d, text) {
  const { ids, maxLen } = tables(d);
  const cps = Array.from(text);
  cps.forEach((c, i) => {
    const u = c.codePointAt(0);
    if (u >= 0xd800 && u <= 0xdfff) {
      throw new Error(`text 在位置 ${i} 的字符 U+${u.toString(16).toUpperCase().padStart(4, "0")} 是孤立的代理字符，` +
        "无法用 UTF-8 编码；只允许合法的 Unicode 字符");
    }
  });
  const out = [], n = cps.length;
  let i = 0;
  while (i < n) {
    // 从 i 起的前缀：1 个、2 个……至多 maxLen 个码位；从最长的试起
    const prefixes = [];
    for (let len = 1, s = ""; len <= Math.min(maxLen, n - i); len++) prefixes.push((s += cps[i + len - 1]));
    let len = prefixes.length;
    while (len > 0 && !ids.has(prefixes[len - 1])) len--;
    if (len > 0) {
      out.push({ text: prefixes[len - 1], id: ids.get(prefixes[len - 1]), isByte: false, start: i, end: i + len });
      i += len;
    } else {
      for (const b of UTF8.encode(cps[i])) out.push({ text: `<0x${hex2(b)}>`, id: b, isByte: true, start: i, end: i + 1 });
      i += 1;
    }
  }
  return out;
}

// 同 tokenizers.decode：每个编号换回它的字节，拼起来按 UTF-8 解码（不合法处换成 �）
function decode(d, tokens) {
  const table = tables(d).bytes, bytes = [];
  for (const t of tokens) {
    if (t.id < 256) bytes.push(t.id);
    else for (const b of table[t.id - 256]) bytes.push(b);
  }
  return new TextDecoder("utf-8").decode(new Uint8Array(bytes));
}

// 同 _html.chip
function tokensHtml(d, full) {
  const notes = [];
  let cps = Array.from(full);
  if (cps.length > d.max_chars) {
    notes.push(`输入有 ${commas(cps.length)} 个字符，只切分了前 ${commas(d.max_chars)} 个（后面 ${commas(cps.length - d.max_chars)} 个没有处理）` +
      "；想看后面的部分，请删掉前面的文字。");
    cps = cps.slice(0, d.max_chars);
  }
  const text = cps.join("");
  const tokens = tokenize(d, text);
  const parts = [];
  let nBytes = 0, k = 0;
  for (const t of tokens) {
    if (t.isByte) nBytes++;
    if (parts.length >= d.max_chips) continue;
    if (t.isByte) parts.push(chip(t.text, String(t.id), d.byte_color, `字节回退：${cps.slice(t.start, t.end).join("")}`));
    else parts.push(chip(t.text, String(t.id), d.palette[k++ % d.palette.length]));
  }
  const n = tokens.length;
  if (n > d.max_chips) {
    notes.push(`共 ${commas(n)} 个 token，上面只画出前 ${commas(d.max_chips)} 个（省略了 ${commas(n - d.max_chips)} 个）；` +
      `下面的统计按全部 ${commas(n)} 个计算。`);
  }
  const summary = `<div>${commas(cps.length)} 个字符 → <b>${commas(n)} 个 token</b>（其中 ${commas(nBytes)} 个是字节回退片段）；` +
    `解码后与原文${decode(d, tokens) === text ? "一致" : "不一致"}</div>`;
  const note = notes.map((m) => `<div style='color:#AA3377'>${esc(m)}</div>`).join("");
  return `<div style='line-height:2;white-space:normal;max-width:900px'>${parts.join("") || esc("（空）")}` +
    `${n > d.max_chips ? " …" : ""}</div>${note}${summary}<div style='color:#555'>${d.try}</div>`;
}

function caption(d) {
  const n = 256 + d.pieces.length;
  return `<div style='color:#555'>分词器：${esc(d.name)}——最长匹配，词表里没有的字退回 UTF-8 字节；` +
    `词表 ${commas(n)} 项（256 个字节 + ${commas(n - 256)} 个片段）</div>`;
}

function view(d, text) {
  let body;
  try {
    body = tokensHtml(d, text);
  } catch (e) {
    body = `<span style='color:#AA3377'>${esc(e.message)}</span>`;
  }
  return caption(d) + body;
}

export default {
  view,
  tokenize,
  render({ model, el }) {
    const d = model.get("data");
    return NP.mount(el, model, [
      NP.text(model, "text", { label: "句子：", placeholder: "输入任意文字：中文、英文、emoji 都行", width: "36em" }),
    ], ["text"], () => view(d, model.get("text")));
  },
};
