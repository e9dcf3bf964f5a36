"""Matching that does not lean on fixed lists (issue 27): IME homophones found by pinyin,
word boundaries from jieba, dialect pronouns; products and places around a name unless
investing evidence is present; identifiers before six digits; plans are not look-backs;
and recall first for the user's own money."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pixiu_cli.conversation.selection.intent import Intent, analyze, fired_cues
from pixiu_cli.conversation.selection.select import select
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names.codes import find_codes, normalize
from pixiu_cli.market.names.table import Holder, NameTable, names_from


@pytest.fixture(scope="module")
def table() -> NameTable:
    holders = [
        Holder("000538", "云南白药", ("白药",)),
        Holder("000333", "美的集团", ("美的",)),
        Holder("002415", "海康威视", ("海康",)),
        Holder("600031", "三一重工", ("三一",)),
        Holder("601633", "长城汽车", ("长城",)),
    ]
    return NameTable(names_from(holders, [], []))


@pytest.mark.parametrize(
    ("typed", "fixed"),
    [
        ("我的藏位是不是太高了", "我的仓位是不是太高了"),
        ("核新仓应该放哪只", "核心仓应该放哪只"),
        ("我的资产陪置合理吗", "我的资产配置合理吗"),
        ("我的迟仓太集中了吧", "我的持仓太集中了吧"),
        ("要不要把卫心仓换一换", "要不要把卫星仓换一换"),
        ("我是不是该减苍了", "我是不是该减仓了"),
    ],
)
def test_homophones_of_position_words_are_fixed_by_pinyin(typed, fixed):
    assert normalize(typed) == fixed


@pytest.mark.parametrize("text", ["我家仓库漏水了", "比利时的巧克力", "受益于政策", "一滴水"])
def test_real_words_are_not_typos(text):
    assert normalize(text) == text


def test_there_is_no_table_of_typos():
    assert not (data_dir() / "selection" / "rules" / "typos.tsv").exists()


def test_dialect_pronouns_are_the_users():
    assert normalize("俺滴票全趴下了") == "我的票全趴下了"
    assert analyze(normalize("咱的仓位是不是太重了")).intent is Intent.PORTFOLIO_REVIEW


def test_a_cue_inside_a_longer_word_does_not_fire():
    # 其他的 is 其他 + 的: not 他的 (somebody else's positions), so the holdings stay mine.
    mine = analyze(normalize("其他的票都绿了"))
    assert mine.intent is Intent.PORTFOLIO_REVIEW and not [c for c in mine.cues if c.group == "others"]
    assert analyze(normalize("他的票都绿了")).intent is Intent.GENERAL
    assert [c for c in fired_cues("他的票都绿了") if c.group == "others"]


def test_a_short_name_inside_an_everyday_word_is_not_the_stock(table):
    assert select("心灵美的人最可爱", table).symbols == []
    assert select("不到长城非好汉", table).symbols == []


@pytest.mark.parametrize(
    "text", ["云南白药牙膏好用吗", "美的洗碗机值得买吗", "三一的挖掘机租一天多少钱", "去云南白药买创可贴"]
)
def test_a_name_as_a_product_or_place_is_not_the_stock(table, text):
    chosen = select(text, table)
    assert chosen.symbols == [], chosen.explanation()["mentions"]


@pytest.mark.parametrize(
    ("text", "symbol"),
    [("海康的摄像头卖得好，股价能涨吗", "002415"), ("三一的市盈率", "600031"), ("白药的回测结果怎么样", "000538")],
)
def test_investing_evidence_overrules_product_words(table, text, symbol):
    chosen = select(text, table)
    assert chosen.symbols == [symbol]


@pytest.mark.parametrize(
    "text",
    ["身份证后六位000333怎么查", "密码设成600519安全吗", "房贷还剩300015", "口令601888打不开", "年终奖发了300750"],
)
def test_identifiers_and_amounts_a_few_characters_back_are_not_codes(text):
    assert find_codes(normalize(text), frozenset()) == []


def test_a_plan_is_not_a_look_back_at_trades():
    assert analyze(normalize("我的票是不是该割肉了")).intent is Intent.PORTFOLIO_REVIEW
    assert analyze(normalize("我昨天割肉了，割错了吗")).intent is Intent.TRADE_REVIEW


def test_own_money_with_an_uncertain_intent_gets_the_overview_and_says_so():
    result = analyze(normalize("我被深套了，该怎么自救"))
    assert result.intent is Intent.PORTFOLIO_REVIEW and result.overview
    assert "召回优先" in result.reason
    assert analyze(normalize("被套是什么意思")).intent is Intent.GENERAL  # a concept, nobody's money


def test_the_segmenter_loads_only_when_a_question_needs_it():
    code = (
        "import sys\n"
        "from pixiu_cli.market.names.codes import normalize\n"
        "from pixiu_cli.conversation.selection.intent import analyze\n"
        "analyze(normalize('茅台怎么样'))\n"
        "from pixiu_cli.market.names import words\n"
        "print(words.segmenter_loaded(), 'pypinyin' in sys.modules)\n"
        "analyze(normalize('其他的持仓怎么样'))\n"
        "print(words.segmenter_loaded(), 'jieba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False", "True", "False"], done.stderr
