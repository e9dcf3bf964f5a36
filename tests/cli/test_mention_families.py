"""Three families of mentions through `pixiu context --explain` on an imported account: own
short forms that are also frequent words or cut a three-character name (长春, 七匹, 中版),
stocks nobody holds set against another (丽珠, 报喜鸟, 华侨城A, 韶能 vs 山推), and held
names used in daily life (staying, clothing, bedding, a charger, medicine, an outing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import explained, imported_env
from tests.helpers import mention_of as mention

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "mentions_gu.json"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return imported_env(tmp_path_factory.mktemp("mention-families"), ACCOUNT)


@pytest.mark.parametrize(
    ("text", "form", "symbol", "kind"),
    [
        ("长春最近回购了没", "长春", "000661", "前两字"),  # a city, and a name's first part
        ("兰州分红到账了吗", "兰州", "001227", "前两字"),
        ("七匹跌成这样还拿吗", "七匹", "002029", "三字名前两字"),
        ("中版成本多少来着", "中版", "601949", "每词一字"),  # 中国出版: 中 of the stripped 中国
    ],
)
def test_an_own_form_that_is_a_frequent_word_is_the_stock_with_investing_words(env, text, form, symbol, kind):
    info = explained(env, text)
    assert info["symbols"] == [symbol]
    note = mention(info, form)
    assert note["accepted"] and note["form"] == kind


def test_the_same_forms_without_investing_words_stay_out_and_say_why(env):
    city = explained(env, "长春冬天冷不冷")
    assert city["symbols"] == [] and not mention(city, "长春")["accepted"]
    cut = explained(env, "七匹马拉车")
    assert cut["symbols"] == []
    assert "七匹狼" in mention(cut, "七匹")["why"]  # only the first two of the name


@pytest.mark.parametrize(
    ("text", "symbols"),
    [
        ("长春高新和丽珠哪个好", ["000661", "000513"]),  # 丽珠集团 without its affix
        ("七匹狼和报喜鸟选哪个", ["002029", "002154"]),  # a three-character listed name
        ("韶能vs山推", ["000601", "000680"]),  # vs with no space, two names nobody holds
        ("华侨城A跟首旅酒店对比下", ["000069", "600258"]),
        ("南玻A和百润股份", ["000012", "002568"]),  # a share-class letter: no everyday word
    ],
)
def test_a_stock_nobody_holds_set_against_another_is_the_stock(env, text, symbols):
    assert explained(env, text)["symbols"] == symbols


def test_a_market_name_without_its_affix_alone_needs_a_comparison_or_a_question(env):
    info = explained(env, "抖音上大V喊满仓 靠谱吗")  # 上大 of 上大股份, across two words
    assert info["symbols"] == []
    assert "比较" in mention(info, "上大")["why"]
    assert explained(env, "丽珠怎么样")["symbols"] == ["000513"]


@pytest.mark.parametrize(
    ("text", "name", "life"),
    [
        ("七匹狼的夹克穿着挺暖和", "七匹狼", "穿"),
        ("富安娜的四件套洗了会不会掉色", "富安娜", "四件套"),
        ("漫步者耳机充不进电了", "漫步者", "耳机"),  # the product right after the name
        ("华侨城欢乐谷周末带娃人多吗", "华侨城", "带娃"),
        ("长春高新那款孕妇可以用吗", "长春高新", "孕妇"),
        ("长春住两晚还是三晚", "长春", "住"),
    ],
)
def test_a_held_name_in_daily_life_is_not_the_stock(env, text, name, life):
    info = explained(env, text)
    assert info["symbols"] == []
    why = mention(info, name)["why"]
    assert not mention(info, name)["accepted"] and life in why


def test_investing_words_still_overrule_daily_life(env):
    assert explained(env, "七匹狼羽绒服卖得好 股价能涨吗")["symbols"] == ["002029"]


def test_another_company_s_name_is_no_life_word_for_this_one(env):
    # 旅游 belongs to 西藏旅游's name, not to how 长春高新 is used
    info = explained(env, "长春高新对比西藏旅游")
    assert info["symbols"] == ["000661", "600749"]
