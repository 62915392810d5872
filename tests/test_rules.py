"""rules：第 1.3 节的规则打分器把 A—D 判对、把 E 判错。"""
import pytest

from nlpbook.datasets import TOY_REVIEWS
from nlpbook.rules import TEXT_LEXICON, rule_hits, rule_predict, rule_score


def test_rule_scorer_gets_a_to_d_right_and_e_wrong():
    preds = [rule_predict(r.tokens) for r in TOY_REVIEWS]
    assert preds[:4] == [r.label for r in TOY_REVIEWS[:4]]
    assert preds[4] == 1 != TOY_REVIEWS[4].label  # 电影不好看 → 误判为好评


def test_tokens_and_raw_text_agree_on_toy_reviews():
    for r in TOY_REVIEWS:
        assert rule_score(r.tokens) == rule_score(r.text)


def test_zero_score_is_negative_and_custom_lexicon():
    assert rule_score("今天下雨") == 0 and rule_predict("今天下雨") == 0
    assert rule_score("不错不错", {"不错": 1}) == 2


@pytest.mark.parametrize("args, exc, match", [
    (("好看", {}), ValueError, "非空"),
    (("好看", {"": 1}), ValueError, "非空字符串"),
    ((["好看", 3], TEXT_LEXICON), TypeError, "str"),
])
def test_errors(args, exc, match):
    with pytest.raises(exc, match=match):
        rule_score(*args)


def test_rule_hits():
    assert rule_hits("电影不好看") == [("好看", 1, 1)]
    assert rule_hits("好看好看，无聊", TEXT_LEXICON) == [("好看", 1, 2), ("无聊", -1, 1)]
    with pytest.raises(TypeError, match="str"):
        rule_hits(["好看"])
