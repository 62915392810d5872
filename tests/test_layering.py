"""包的分层：核心模块不导入 matplotlib/ipywidgets/pandas；import nlpbook 很轻。"""
import subprocess
import sys

import pytest

CORE = ["functional", "text", "tokenizers", "linear", "rules", "sparse", "svgplot", "examples",
        "ngram", "embedding", "word2vec", "granularity", "decoding", "charlm", "attention", "attention_demo",
        "cost", "rnn", "rnn_classifier", "char_rnn", "cnn", "tagging", "retrieval", "objectives",
        "naive_bayes"]


@pytest.mark.parametrize("module", CORE + ["datasets"])
def test_core_and_data_modules_do_not_import_presentation_libraries(module):
    code = (f"import sys, nlpbook.{module}; "
            "bad = [m for m in ('matplotlib', 'ipywidgets', 'pandas', 'IPython') if m in sys.modules]; "
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"nlpbook.{module} 导入了 {out.stdout.strip()}"


def test_import_nlpbook_imports_no_submodule():
    code = "import sys, nlpbook; print(sorted(m for m in sys.modules if m.startswith(('nlpbook.', 'numpy'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
