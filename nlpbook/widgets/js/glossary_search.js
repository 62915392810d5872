// 术语表搜索（附录 C）：在浏览器里筛选整张术语表（GlossarySearch.data.terms，按术语表原顺序）。
// 匹配同 glossary.search：全角转半角（NFKC）、不区分大小写、去掉首尾空白后按子串查；先列名字（中文或英文）命中的，
// 再列只有解释命中的；至多列出 data.max_rows 条。高亮同 glossary_search._highlight。视图与 Python 的 glossary_html 逐字相同
// （阅读网站上章号链接改指 .html，与网站构建对保存的 HTML 做的改写一样）。
const { esc } = NP;   // 同 Python 的 html.escape
// 同 Python 的 str.strip()：去掉 str.isspace() 为真的首尾字符
const SPACE = "[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const STRIP = new RegExp(`^${SPACE}+|${SPACE}+$`, "g");
const pyStrip = (s) => s.replace(STRIP, "");
// 同 glossary._norm：NFKC、casefold（toLowerCase 加上 casefold 多做的两处常见差别）、strip
const norm = (s) => pyStrip(s.normalize("NFKC").toLowerCase().replace(/ß/g, "ss").replace(/ς/g, "σ"));
const NOWRAP = ["", "", "", ";white-space:nowrap", ";white-space:nowrap"];
const KEYS = new WeakMap();

function keys(d) {
  if (!KEYS.has(d)) KEYS.set(d, d.terms.map(([zh, en, def]) => [norm(zh), norm(en), norm(def)]));
  return KEYS.get(d);
}

// 同 glossary.search（不分章）：返回术语的下标
function search(d, query) {
  const q = norm(query), all = d.terms.map((_, i) => i);
  if (!q) return all;
  const k = keys(d);
  const byName = all.filter((i) => k[i][0].includes(q) || k[i][1].includes(q));
  const named = new Set(byName);
  return byName.concat(all.filter((i) => !named.has(i) && k[i][2].includes(q)));
}

const reEsc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");   // 正则里的特殊字符按字面匹配

function highlight(text, query, mark) {
  const q = pyStrip(query.normalize("NFKC"));
  if (!q) return esc(text);
  const re = new RegExp("(" + reEsc(q) + ")", "iu");
  return text.split(re).map((p, i) => (i % 2 ? `<mark style='background:${mark};color:#000'>${esc(p)}</mark>` : esc(p))).join("");
}

const siteLink = (url) => url.replace(/^([^/#:]+)\.ipynb(#.*)?$/, "$1.html$2");

function view(d, query, offline = false) {
  const found = search(d, query);
  const q = pyStrip(query);
  const summary = q ? `搜索“${esc(q)}”：找到 <b>${found.length}</b> 条` : `全部术语：<b>${found.length}</b> 条`;
  if (!found.length) return `<div>${summary}。换一个词试试，或清空搜索框看全表。</div>`;
  const th = d.header.map((h) => `<th style='padding:2px 8px;text-align:left'>${h}</th>`).join("");
  const shown = found.slice(0, d.max_rows);
  const rows = shown.map((i) => {
    const [zh, en, def, chapter, notebook, inText] = d.terms[i];
    const link = `<a href="${esc(offline ? siteLink(notebook) : notebook)}">${chapter}</a>`;
    const cells = [highlight(zh, q, d.mark), highlight(en, q, d.mark), highlight(def, q, d.mark), link, inText ? "课文附录 C" : "补充"];
    return "<tr>" + cells.map((c, j) => `<td style='padding:2px 8px;text-align:left;vertical-align:top${NOWRAP[j]}'>${c}</td>`).join("") + "</tr>";
  });
  const more = shown.length < found.length ? `<div>只列出了前 <b>${shown.length}</b> 条（共 ${found.length} 条）：再多打几个字缩小范围；` +
    "全表见本附录的 C.1 节。</div>" : "";
  return `<div>${summary}</div><table><thead><tr>${th}</tr></thead><tbody>${rows.join("")}</tbody></table>${more}`;
}

export default {
  view,
  search,
  render({ model, el }) {
    const d = model.get("data"), offline = model.get("offline") === true;
    return NP.mount(el, model, [
      NP.text(model, "query", { label: "搜索：", placeholder: "中文、英文或解释里的字词", width: "24em" }),
    ], ["query"], () => view(d, model.get("query"), offline));
  },
};
