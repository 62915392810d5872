/* 中文搜索：Sphinx 默认按非字母字符切分查询，一串汉字会被当成一个词，索引里（jieba 分好的词）找不到。
 * 这里在 searchtools.js 之前定义 splitQuery：汉字串若不是索引里的词，就用索引自己的词表做正向最大匹配，
 * 切成几个索引里有的词（搜索时要求全部出现）。例："多头注意力" → ["多头", "注意力"]。 */
var splitQuery = (query) => {
  const parts = query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu).filter((t) => t);
  const index = (typeof Search !== "undefined" && Search._index) || null;
  if (!index) return parts;
  const known = (w) => w in index.terms || w in index.titleterms;
  const cjk = /\p{Script=Han}/u;
  const out = [];
  for (const part of parts) {
    if (!cjk.test(part) || known(part)) { out.push(part); continue; }
    let i = 0;
    while (i < part.length) {
      let n = Math.min(8, part.length - i);
      while (n > 1 && !known(part.slice(i, i + n))) n -= 1;
      if (n > 1) out.push(part.slice(i, i + n));
      i += Math.max(n, 1);
    }
  }
  return out.length ? out : parts;
};

/* Sphinx 9.0 为中文生成的 language_data.js 写的是 window.Stemmer = ChineseStemmer，却没有定义它（只带了英文词干器），
 * 搜索页因此报错、什么也搜不到。这里补上：汉字原样保留，拉丁字母词交给英文词干器（与索引一侧相同）。 */
var ChineseStemmer = function () {
  const english = new EnglishStemmer();
  this.stemWord = (word) => english.stemWord(word);
};
