"""把课程各章 notebook 的 markdown 按 `##` 标题切段，存成随包附带的快照 nlpbook/rag/course_sections.json。

  python scripts/build_rag_snapshot.py            # 重新生成快照
  python scripts/build_rag_snapshot.py --check    # 只比较：列出快照与现在的 notebook 不同的段落，不写文件

第 17 章的检索只读这份快照，不读活的 notebook：各章以后改写文字，第 17 章存下的输出和评测数字都不变。
收录的 notebook 见 NOTEBOOKS（第 17 章自己不收录：它的正文里就写着要问的问题）。
每段存 notebook 名、标题和正文（retrieval.plain_text 去掉链接、标签和加粗记号后的文字）。
问题集 nlpbook/rag/questions.json 的每个正确段落都必须在快照里（tests/test_retrieval_rag.py 检查）。
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nlpbook.retrieval import RAG_DATA, notebook_sections, plain_text

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ["01-task", "02-tokens", "03-bow-tfidf", "04-learning", "05-ngrams", "06-word-vectors", "07-word2vec",
             "08-rnn", "09-lstm-gru", "10-textcnn", "11-generation", "12-attention", "13-transformer", "14-costs",
             "15-pretraining", "16-ner", "18-experiments", "A-side-topics", "B-formulas", "C-glossary", "D-examples"]
OUT = RAG_DATA / "course_sections.json"


def live_sections(notebook_dir: Path = ROOT / "notebooks") -> list[dict]:
    """现在的 notebook 切出来的段落：[{'id', 'notebook', 'heading', 'text'}]。"""
    out = []
    for name in NOTEBOOKS:
        for sid, text in notebook_sections(notebook_dir / f"{name}.ipynb", name=name):
            heading = sid.split(" · ", 1)[1] if " · " in sid else sid
            body = text[len(heading):] if text.startswith(heading) else text
            out.append({"id": sid, "notebook": name, "heading": plain_text(heading), "text": plain_text(body)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="只报告快照与现在的 notebook 的差别")
    args = ap.parse_args(argv)
    sections = live_sections()
    if args.check:
        old = {s["id"]: s for s in json.loads(OUT.read_text(encoding="utf-8"))["sections"]}
        new = {s["id"]: s for s in sections}
        for sid in sorted(old.keys() - new.keys()):
            print("快照里有、notebook 里没有：", sid)
        for sid in sorted(new.keys() - old.keys()):
            print("notebook 里有、快照里没有：", sid)
        changed = sorted(k for k in old.keys() & new.keys() if old[k]["text"] != new[k]["text"])
        print(f"文字改动过的段落：{len(changed)} 个")
        return 0
    snap = {"about": "第 17.4 节检索用的课程段落快照；由 scripts/build_rag_snapshot.py 生成，不要手改。",
            "notebooks": NOTEBOOKS, "sections": sections}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(snap, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"写出 {OUT.relative_to(ROOT)}：{len(NOTEBOOKS)} 个 notebook，{len(sections)} 个段落，"
          f"{sum(len(s['text']) for s in sections):,} 个字符")
    return 0


if __name__ == "__main__":
    sys.exit(main())
