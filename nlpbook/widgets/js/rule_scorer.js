// 规则打分器（第 1.3 节）：读者敲什么句子都在浏览器里打分。数据（RuleScorerBox.data）是打分表
// [[词, 分值, 分值是不是 float], …]；规则同 rules.rule_hits / rule_score：按子串数出现次数（不重叠），
// 总分 = Σ 次数 × 分值（按打分表的顺序加），大于 0 判好评。视图与 Python 的 score_html 逐字相同。
const { esc, g, table } = NP;   // 同 Python 的 html.escape、f"{x:g}"、_html.table

// Python 的 str(float)：整数值带 “.0”，很大/很小时用科学计数法（指数至少两位）
function pyFloat(x) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e16 || a < 1e-4)) return x.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  const s = Object.is(x, -0) ? "-0" : String(x);
  return s.includes(".") ? s : `${s}.0`;
}


// 同 Python 的 str.count：从左到右数不重叠的出现次数
function count(text, word) {
  let n = 0;
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + word.length)) n++;
  return n;
}

function view(d, text) {
  const rows = [];
  let s = 0;
  for (const [w, v, isFloat] of d.lexicon) {
    const n = count(text, w);
    if (!n) continue;
    const shown = (x) => (isFloat ? pyFloat(x) : String(x));
    rows.push([w, shown(v), String(n), shown(n * v)]);
    s += v * n;
  }
  const note = rows.length ? "" : "（一个打分词都没命中，分数为 0，按规则判差评）";
  const body = rows.length ? table(["命中的词", "分值", "次数", "小计"], rows) : "";
  return `${body}<div>总分 <b>${g(s)}</b> → 判为 <b>${s > 0 ? "好评" : "差评"}</b>${esc(note)}</div>`;
}

export default {
  view,
  render({ model, el }) {
    const d = model.get("data");
    return NP.mount(el, model, [
      NP.text(model, "text", { label: "评论：", placeholder: "随便写一句评论", width: "36em" }),
    ], ["text"], () => view(d, model.get("text")));
  },
};
