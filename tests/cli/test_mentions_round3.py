"""Mentions, round three (issue 53), through `pixiu context --explain` on an imported account:
trader's slang is evidence for an own form that needs it (同花还能格局吗, 卓胜扛得住吗: 拿得住 is
no hotel stay), a three-character name's last two is a form (胜微 of 卓胜微), a name's last part
that is the product (芝麻 of 黑芝麻) is the stock only with clear investing words, pinyin
initials of a polyphonic name are found beside slang (cqpj, cjdl), and a name inside a wish's set
phrase (步步高升, 福星高照) is the phrase."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import explained, imported_env
from tests.helpers import mention_of as mention

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "mentions_lu.json"
TONGHUASHUN, ZHUOSHENGWEI, YINGWEIKE, HEIZHIMA = "300033", "300782", "002837", "000716"
CHONGQING_BEER, YANGTZE_POWER, LEPU, JIXIANG, BUBUGAO = "600132", "600900", "300003", "603885", "002251"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return imported_env(tmp_path_factory.mktemp("mentions-round3"), ACCOUNT)


@pytest.mark.parametrize(
    ("text", "form", "symbol", "slang"),
    [
        ("卓胜扛得住吗", "卓胜", ZHUOSHENGWEI, "扛得住"),  # not lodging: 住 of 扛得住
        ("英维冲不动了", "英维", YINGWEIKE, "冲不动"),
        ("黑芝今天异动", "黑芝", HEIZHIMA, "异动"),
        ("同花崩了", "同花", TONGHUASHUN, "崩了"),
        ("英维有啥披露", "英维", YINGWEIKE, "披露"),
        ("胜微还能格局不", "胜微", ZHUOSHENGWEI, "格局"),  # a three-character name's last two
        ("维克异动了", "维克", YINGWEIKE, "异动"),
        ("cqpj还拿得住吗", "cqpj", CHONGQING_BEER, "拿"),  # 重: chong, its second reading
        ("cjdl还扛得住吗", "cjdl", YANGTZE_POWER, "扛得住"),  # 长: chang
        ("lpyl扛得住不", "lpyl", LEPU, "扛得住"),  # 乐: le
    ],
)
def test_trader_slang_is_evidence_for_a_form_that_needs_it(env, text, form, symbol, slang):
    info = explained(env, text)
    assert info["symbols"] == [symbol]
    note = mention(info, form)
    assert note["accepted"] and f"“{slang}”" in note["why"]


def test_a_three_character_names_last_two_is_a_form_of_its_own(env):
    info = explained(env, "花顺崩了咋办")
    assert mention(info, "花顺")["form"] == "三字名后两字" and info["symbols"] == [TONGHUASHUN]
    assert explained(env, "资金利用率高不高")["symbols"] == []  # 不高 sounds like 步高, and is no typo


@pytest.mark.parametrize("text", ["芝麻有啥披露", "芝麻公告说啥", "芝麻大股东又减持了?"])
def test_a_product_word_is_the_stock_with_clear_investing_words(env, text):
    info = explained(env, text)
    assert info["symbols"] == [HEIZHIMA]
    assert "也是它的产品" in mention(info, "芝麻")["why"]


@pytest.mark.parametrize("text", ["芝麻怎么吃最补", "芝麻涨价了", "芝麻怎么样", "芝麻糊怎么做好喝"])
def test_the_product_word_without_them_stays_the_product(env, text):
    info = explained(env, text)
    assert info["symbols"] == []
    assert not mention(info, "芝麻")["accepted"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("新年新希望：账户翻倍，吉祥如意", "吉祥"),
        ("祝大家新的一年股票大涨，步步高升", "步步高"),
        ("新年愿望 持仓全红 福星高照", "福星"),
    ],
)
def test_a_name_inside_a_wishs_set_phrase_is_the_phrase(env, text, name):
    info = explained(env, text)
    assert info["symbols"] == []
    assert "祝福语" in mention(info, name)["why"]


def test_outside_a_set_phrase_the_same_names_are_stocks(env):
    assert explained(env, "新年快乐，吉祥最近扛得住吗")["symbols"] == [JIXIANG]
    assert explained(env, "步步高股价咋样")["symbols"] == [BUBUGAO]
