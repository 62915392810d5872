"""随包附带的字符 GRU 权重（第 11 章生成面板）：文件能读、比二元字模型好、训练脚本能跑；char_codec。"""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from nlpbook.char_rnn import LM_KEYS, WEIGHTS, CharRNNLM, char_codec, load_pretrained
from nlpbook.charlm import CharNGramLM
from nlpbook.datasets import clean_reviews, load_raw_reviews, split_reviews

ROOT = Path(__file__).resolve().parents[1]
SLICE = 200  # 验证集前 200 条评论：确定、几秒内算完


def _script():
    spec = importlib.util.spec_from_file_location("train_char_rnn", ROOT / "scripts" / "train_char_rnn.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_shipped_file_small_and_loadable():
    path = ROOT / "nlpbook" / "weights" / WEIGHTS
    assert path.stat().st_size <= 3_000_000
    model = load_pretrained()
    vocab, meta = model.vocab, model.meta
    assert isinstance(model, CharRNNLM)
    assert all(model.params[k].dtype == np.float32 for k in LM_KEYS)
    V, H = len(vocab), meta["config"]["hidden"]
    assert vocab[:2] == ["\n", "<UNK>"] and len(set(vocab)) == V
    assert model.params["E"].shape[0] == V and model.params["W_out"].shape == (H, V)
    assert meta["config"]["seed"] == 0 and meta["steps_done"] == meta["config"]["steps"]
    logits = model.next_logits(char_codec(vocab)[0]("\n这家酒店"))
    assert logits.shape == (V,) and np.all(np.isfinite(logits))
    with np.load(path, allow_pickle=False) as f:  # 存的是 float16，不含 pickle
        assert all(f[f"p/{k}"].dtype == np.float16 for k in LM_KEYS)
        assert json.loads(str(f["meta"]))["val_ppl"] == meta["val_ppl"]


def test_shipped_model_beats_char_bigram_on_held_out_slice():
    model = load_pretrained()
    vocab, meta = model.vocab, model.meta
    split = split_reviews(clean_reviews(load_raw_reviews())[0])
    train = [r.text for r in split["train"]]
    val = [r.text for r in split["validation"]][:SLICE]
    bigram = CharNGramLM(n=2, min_count=3).fit(train)
    assert bigram.vocab == vocab  # 同一个字表，困惑度才可比
    gru = model.perplexity(val)  # 与 perplexity(params, 整串编号) 同一个定义
    assert gru < bigram.perplexity(val)
    assert gru == pytest.approx(meta[f"val_first_{SLICE}_ppl"], abs=0.01)  # 与训练脚本记下的一致


def test_training_script_runs_on_tiny_config_without_writing(tmp_path, monkeypatch):
    mod = _script()
    monkeypatch.chdir(tmp_path)
    train = ["这家酒店很好", "酒店不好", "很好很好的书"] * 20
    val = ["酒店很好", "好书"]
    lines = []
    meta = mod.train(save_file=False, log=lines.append, with_baselines=False, texts=(train, val),
                     steps=4, hidden=8, dim=4, seq_len=4, batch_size=2)
    assert meta["steps_done"] == 4 and np.isfinite(meta["val_ppl"]) and meta["val_ppl"] > 1
    assert meta["data"]["vocab_size"] == len(mod.build_vocab(train))
    assert isinstance(meta["model"], CharRNNLM) and len(meta["samples"]) == len(mod.PROMPTS)
    assert lines and not any(tmp_path.iterdir())  # 没有写任何文件
    again = mod.train(save_file=False, log=lambda *_: None, with_baselines=False, texts=(train, val),
                      steps=4, hidden=8, dim=4, seq_len=4, batch_size=2)
    assert again["val_ppl"] == meta["val_ppl"]  # 固定种子：可复现


def test_training_script_saves_loadable_file(tmp_path):
    mod = _script()
    out = tmp_path / "g.npz"
    train = ["这家酒店很好", "酒店不好", "很好很好的书"] * 20
    meta = mod.train(out, log=lambda *_: None, with_baselines=False, texts=(train, ["酒店很好"]),
                     steps=2, hidden=8, dim=4, seq_len=4, batch_size=2)
    model = load_pretrained(out)
    vocab, loaded = model.vocab, model.meta
    assert vocab == mod.build_vocab(train) and loaded["val_ppl"] == meta["val_ppl"]
    assert np.allclose(model.params["W_out"], meta["model"].params["W_out"])


def test_missing_file_says_how_to_regenerate(tmp_path):
    with pytest.raises(FileNotFoundError, match="scripts/train_char_rnn.py"):
        load_pretrained(tmp_path / "missing.npz")


def test_char_codec():
    encode, decode = char_codec(["\n", "<UNK>", "好", "书"])
    assert encode("好书吗\n") == [2, 3, 1, 0]
    assert decode([2, 3, 1, 0]) == "好书<UNK>\n"
    with pytest.raises(TypeError, match="str"):
        encode(3)
    enc2, _ = char_codec(["a", "b"])
    with pytest.raises(ValueError, match="<UNK>"):
        enc2("abc")
