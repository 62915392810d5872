"""第 16 章的实验记录 nlpbook/records/ner_char_tagger.json：存在、可读、种子与网格齐全，选中的设置确实是验证集上最好的一格。

重跑一个种子要二十多秒，这里不做；第 16 章的 notebook 现场跑种子 0，并检查它落在记录的范围里。
"""
import importlib.util
from pathlib import Path

import pytest

from nlpbook.spread import Spread, load_record, record_path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("ner_char_tagger", ROOT / "scripts" / "ner_char_tagger.py")
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)


@pytest.fixture(scope="module")
def rec():
    return load_record(record_path(script.NAME))


def test_record_has_every_grid_cell_and_seed(rec):
    assert rec["name"] == script.NAME
    assert list(rec["seeds"]) == list(script.SEEDS) and len(rec["seeds"]) >= 3
    s = rec["settings"]
    assert s["lrs"] == list(script.LRS) and s["max_epochs"] == script.MAX_EPOCHS
    assert (s["n_train"], s["n_validation"], s["n_test"]) == (script.N_TRAIN, script.N_VAL, script.N_TEST)
    for mode in script.MODES:
        for lr in script.LRS:
            for e in range(1, script.MAX_EPOCHS + 1):
                f1 = rec["results"][f"val {mode} lr={lr} epochs={e}"]["f1"]
                assert isinstance(f1, Spread) and f1.n == 3 and 0 < f1.mean < 1
    for name, _, _ in script.TEST_ROWS:
        for m in ("precision", "recall", "f1"):
            assert rec["results"][f"test {name}"][m].n == 3
    assert rec["cpu_seconds"] > 0


def test_chosen_setting_is_the_best_validation_cell(rec):
    val = {mode: {(lr, e): rec["results"][f"val {mode} lr={lr} epochs={e}"]["f1"].values
                  for lr in script.LRS for e in range(1, script.MAX_EPOCHS + 1)} for mode in script.MODES}
    chosen = script.choose(val)
    assert {m: {"lr": c["lr"], "epochs": c["epochs"]} for m, c in chosen.items()} == rec["settings"]["chosen"]


def test_choose_breaks_ties_towards_small_lr_and_few_epochs():
    val = {mode: {(0.1, 1): [0.5], (0.3, 1): [0.7], (0.3, 2): [0.7], (1.0, 1): [0.6]} for mode in script.MODES}
    assert script.choose(val)["crf"] == {"lr": 0.3, "epochs": 1, "val_f1": 0.7}
