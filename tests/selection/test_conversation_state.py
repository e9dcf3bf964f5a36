"""Selection reads the last few turns: 这俩 / 它俩 are the two stocks last named (in one turn
or over two), 它 / 这只 the one last named, a question that needs an object and names none
takes the last turn's, and a pointer with a portfolio word keeps both stock and overview.
Every carried stock names the turn it came from."""

from __future__ import annotations

import pytest

from pixiu_cli.selection.intent import Intent
from pixiu_cli.selection.names import Holder, NameTable, _names
from pixiu_cli.selection.select import select

HOLDINGS = [
    Holder("000568", "泸州老窖", ("老窖",)),
    Holder("600436", "片仔癀", ()),
    Holder("000538", "云南白药", ("白药",)),
]


@pytest.fixture(scope="module")
def table() -> NameTable:
    return NameTable(_names(HOLDINGS, [], []))


def test_a_pair_named_over_two_turns_is_both_stocks_with_their_turns(table):
    chosen = select("它俩哪个估值更低", table, ["老窖最近走势如何", "片仔癀呢"])
    assert chosen.intent is Intent.SINGLE_STOCK and chosen.symbols == ["000568", "600436"]
    assert [(c.symbol, c.turns_ago, c.message) for c in chosen.carried] == [
        ("000568", 2, "老窖最近走势如何"),
        ("600436", 1, "片仔癀呢"),
    ]
    explained = chosen.explanation()
    assert explained["carried"][0] == {"symbol": "000568", "turns_ago": 2, "message": "老窖最近走势如何"}
    assert "前 2 轮" in explained["follow_up"] and "上一轮" in explained["follow_up"]


def test_a_pair_named_in_one_turn(table):
    chosen = select("这俩哪个更适合长拿", table, ["泸州老窖和云南白药最近走势怎么样"])
    assert chosen.symbols == ["000568", "000538"] and not chosen.overview


def test_it_is_the_stock_last_named_even_two_turns_back(table):
    chosen = select("它现在能加吗", table, ["片仔癀的回撤大吗", "最近大盘消息多吗"])
    assert chosen.symbols == ["600436"] and chosen.carried[0].turns_ago == 2


def test_a_pointer_with_a_portfolio_word_keeps_the_stock_and_the_overview(table):
    chosen = select("那它能不能放进我的组合", table, ["同仁堂怎么样"])
    assert chosen.intent is Intent.PORTFOLIO_REVIEW and chosen.overview and chosen.symbols == ["600085"]


@pytest.mark.parametrize(
    ("question", "earlier", "symbols", "overview"),
    [
        ("加多少合适", "白药现在能加仓吗", ["000538"], False),
        ("分红稳定吗", "云南白药最近跌了不少", ["000538"], False),
        ("给个方案", "我现在仓位太重了", [], True),
    ],
)
def test_a_question_that_needs_an_object_takes_the_last_turns(table, question, earlier, symbols, overview):
    chosen = select(question, table, [earlier])
    assert chosen.symbols == symbols and chosen.overview is overview
    assert "沿用上一轮" in chosen.follow_up


@pytest.mark.parametrize("question", ["今天天气真好", "谢谢，你真靠谱", "顺便问一下，什么是ETF"])
def test_small_talk_after_a_stock_question_carries_nothing(table, question):
    chosen = select(question, table, ["泸州老窖怎么样"])
    assert chosen.intent is Intent.GENERAL and chosen.symbols == [] and chosen.carried == ()
