"""Selection reads the last few turns: 这俩 / 它俩 are the two stocks last named (in one turn
or over two), 它 / 这只 the one last named, a question that needs an object and names none
takes the last turn's, and a pointer with a portfolio word keeps both stock and overview.
Every carried stock names the turn it came from."""

from __future__ import annotations

import pytest

from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.conversation.selection.select import select
from pixiu_cli.market.names.table import Holder, NameTable, names_from

HOLDINGS = [
    Holder("000568", "泸州老窖", ("老窖",)),
    Holder("600436", "片仔癀", ()),
    Holder("000538", "云南白药", ("白药",)),
]


@pytest.fixture(scope="module")
def table() -> NameTable:
    return NameTable(names_from(HOLDINGS, [], []))


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


# --- follow-ups across the account's classes (issue 38) ---------------------------------


@pytest.mark.parametrize(
    ("text", "earlier", "intent", "symbols"),
    [
        ("有公告吗", ["白药今天涨了"], Intent.SINGLE_STOCK, ["000538"]),  # a bare filings question keeps it
        ("那我的计划要变吗", ["老窖最近涨得不错"], Intent.SINGLE_STOCK, ["000568"]),
        ("上次那笔卖出赚了多少", ["老窖最近怎么样"], Intent.TRADE_REVIEW, ["000568"]),
        ("公告呢", ["白药最近咋样", "今天大盘跌了"], Intent.SINGLE_STOCK, ["000538"]),  # two turns back
        ("钱够吗", ["老窖怎么样"], Intent.PORTFOLIO_REVIEW, ["000568"]),  # buying power of that stock: both
    ],
)
def test_a_question_about_one_class_keeps_the_stock_of_the_turn_before(table, text, earlier, intent, symbols):
    chosen = select(text, table, earlier)
    assert (chosen.intent, chosen.symbols) == (intent, symbols)
    assert chosen.carried[0].message in earlier and "沿用前面点名的个股" in chosen.follow_up


def test_another_trade_after_a_trade_review_may_be_of_another_stock(table):
    chosen = select("那上上笔呢", table, ["我昨天卖的老窖卖对了吗"])
    assert chosen.intent is Intent.TRADE_REVIEW and chosen.symbols == []


def _brief_objects(selection):
    """Stands in for the builder's reading of the briefs a turn asked about: one named 白药."""
    from pixiu_cli.conversation.selection.result import Carried

    return (Carried("000538", 0, "", "简报「每日简报 2026-11-24 收盘」点名"),)


@pytest.mark.parametrize("text", ["它还能拿吗", "里面点名的那只该怎么办", "简报里说的那只现在能接了吗"])
def test_a_follow_up_points_at_the_stock_the_brief_named(table, text):
    chosen = select(text, table, ["昨天的简报说了什么"], objects=_brief_objects)
    assert chosen.symbols == ["000538"] and chosen.intent is Intent.SINGLE_STOCK
    [carried] = chosen.carried
    assert (carried.turns_ago, carried.message) == (1, "昨天的简报说了什么")
    assert carried.via == "简报「每日简报 2026-11-24 收盘」点名"
    assert "000538 来自上一轮（“昨天的简报说了什么”）：简报「每日简报 2026-11-24 收盘」点名" in chosen.follow_up
    assert chosen.explanation()["carried"][0]["via"] == carried.via


def test_a_turn_that_did_not_ask_about_the_brief_has_no_objects(table):
    asked = []
    select("它还能拿吗", table, ["今天大盘怎么样"], objects=lambda s: asked.append(s) or ())
    assert asked == []


# --- follow-ups as one operation on the conversation's focus (issue 53) -----------------


def _operation(chosen) -> tuple[str, int] | None:
    return (chosen.operation.name, chosen.operation.turns_ago) if chosen.operation else None


@pytest.mark.parametrize(
    ("text", "earlier", "symbols"),
    [
        ("和白药比呢", ["老窖最近怎么样"], ["000568", "000538"]),
        ("跟片仔癀比一下", ["云南白药还能拿吗"], ["000538", "600436"]),
        ("拿它和片仔癀对比下", ["老窖走势如何"], ["000568", "600436"]),
        ("vs 片仔癀?", ["老窖走势如何"], ["000568", "600436"]),
        ("how does it compare to 白药", ["老窖能加仓吗"], ["000568", "000538"]),
        ("这俩和白药比呢", ["老窖和片仔癀怎么样"], ["000568", "600436", "000538"]),
    ],
)
def test_a_comparison_without_its_first_term_adds_to_the_stocks_in_focus(table, text, earlier, symbols):
    chosen = select(text, table, earlier)
    assert (chosen.intent, chosen.symbols, chosen.overview) == (Intent.SINGLE_STOCK, symbols, False)
    assert _operation(chosen) == ("add", 1)
    assert [c.message for c in chosen.carried] == [earlier[0]] * len(chosen.carried)


def test_an_add_reaches_the_focus_three_turns_back_and_names_that_turn(table):
    earlier = ["老窖的分红怎么样", "今天大盘怎么样", "谢谢"]
    chosen = select("跟片仔癀比一下", table, earlier)
    assert chosen.symbols == ["000568", "600436"] and _operation(chosen) == ("add", 3)
    assert chosen.explanation()["operation"] == {"name": "add", "turns_ago": 3, "message": "老窖的分红怎么样"}
    assert "000568 来自前 3 轮（“老窖的分红怎么样”）" in chosen.follow_up


def test_a_comparison_with_both_terms_stands_alone(table):
    chosen = select("片仔癀和云南白药比呢", table, ["老窖最近怎么样"])
    assert chosen.symbols == ["600436", "000538"] and chosen.carried == () and chosen.operation is None


@pytest.mark.parametrize(
    ("text", "earlier", "left_out"),
    [
        ("除了它，其他几只怎么样", ["老窖最近怎么样"], "000568"),
        ("除了这只，别的呢", ["片仔癀还能拿吗"], "600436"),
        ("apart from it, how are the others?", ["云南白药回撤太大了"], "000538"),
        ("不算这俩剩下的怎么样", ["老窖和白药最近怎么样"], "000538"),
        ("what about the rest of my holdings", ["老窖能加吗"], "000568"),
    ],
)
def test_the_others_are_the_portfolio_without_the_focus(table, text, earlier, left_out):
    chosen = select(text, table, earlier)
    assert (chosen.intent, chosen.symbols, chosen.overview) == (Intent.PORTFOLIO_REVIEW, [], True)
    assert _operation(chosen) == ("complement", 1)
    assert "（不含 " in chosen.follow_up and f"{left_out} 来自上一轮" in chosen.follow_up


def test_a_pronoun_against_the_rest_is_the_stock_and_the_overview(table):
    chosen = select("它和其他几只比怎么样", table, ["老窖最近怎么样"])
    assert (chosen.intent, chosen.symbols, chosen.overview) == (Intent.PORTFOLIO_REVIEW, ["000568"], True)
    assert _operation(chosen) == ("widen", 1)


def test_another_stock_after_a_topic_question_gets_that_topic(table):
    chosen = select("那片仔癀呢", table, ["白药的分红怎么样"])
    assert chosen.symbols == ["600436"] and chosen.topics.fundamentals
    assert _operation(chosen) == ("same_topic", 1) and "基本面话题" in chosen.follow_up


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("那片仔癀呢", ["白药最近怎么样"]),  # no topic before: a plain replace
        ("片仔癀走势呢", ["白药的分红怎么样"]),  # asks its own question: not the dividend
    ],
)
def test_a_replace_carries_no_topic_the_last_turn_did_not_ask_or_the_new_one_replaces(table, text, earlier):
    chosen = select(text, table, earlier)
    assert chosen.symbols == ["600436"] and not chosen.topics.fundamentals
    assert _operation(chosen) == ("replace", 1)


@pytest.mark.parametrize(
    ("text", "symbols", "fundamentals"),
    [
        ("what about its PE?", ["000568"], True),
        ("and its dividend?", ["000568"], True),
        ("is it still a buy?", ["000568"], False),
        ("should I sell it", ["000568"], False),
    ],
)
def test_english_pronouns_keep_the_stock(table, text, symbols, fundamentals):
    chosen = select(text, table, ["老窖最近怎么样"])
    assert (chosen.intent, chosen.symbols, chosen.topics.fundamentals) == (Intent.SINGLE_STOCK, symbols, fundamentals)
    assert _operation(chosen) == ("keep", 1)


def test_english_them_keeps_both(table):
    chosen = select("what about them?", table, ["老窖和白药最近怎么样"])
    assert chosen.symbols == ["000568", "000538"] and _operation(chosen) == ("keep", 1)


@pytest.mark.parametrize("text", ["哪只最弱", "and which one is the weakest?", "哪个最便宜"])
def test_a_portfolio_follow_up_keeps_the_portfolio_and_its_topic(table, text):
    chosen = select(text, table, ["我的持仓估值高不高"])
    assert (chosen.intent, chosen.symbols, chosen.overview) == (Intent.PORTFOLIO_REVIEW, [], True)
    assert chosen.topics.holdings_fundamentals and _operation(chosen) == ("keep", 1)


@pytest.mark.parametrize("text", ["整体呢", "overall?", "what about my whole portfolio?", "组合防守够不够"])
def test_widening_to_the_portfolio(table, text):
    chosen = select(text, table, ["老窖跌了好多"])
    assert (chosen.intent, chosen.symbols, chosen.overview) == (Intent.PORTFOLIO_REVIEW, [], True)
    assert _operation(chosen) == ("widen", 1)


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("什么是市盈率", ["老窖怎么样"]),
        ("什么是ROE", ["我的持仓估值高不高"]),
        ("thanks!", ["老窖怎么样"]),
        ("今天天气不错", ["我的持仓怎么样"]),
    ],
)
def test_a_question_of_its_own_applies_no_operation(table, text, earlier):
    chosen = select(text, table, earlier)
    assert chosen.intent is Intent.GENERAL and chosen.symbols == [] and not chosen.overview
    assert chosen.operation is None and chosen.carried == ()


def test_the_explanation_view_names_the_operation_and_its_turn(table):
    from pixiu_cli.conversation.presenters import selection_lines

    chosen = select("跟片仔癀比一下", table, ["老窖的分红怎么样", "今天大盘怎么样", "谢谢"])
    lines = selection_lines(chosen.explanation())
    assert "  操作：加入比较（add），作用于前 3 轮的问题“老窖的分红怎么样”" in lines


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("哪个板块最强", ["老窖怎么样"]),  # a which-question with its own object
        ("今天哪只股票涨停了", ["老窖怎么样"]),
        ("防守型基金有哪些", ["我的持仓怎么样"]),
        ("it is raining today", ["老窖怎么样"]),  # an English pronoun with no company
        ("and you?", ["老窖怎么样"]),
        ("which index is better", ["老窖怎么样"]),
    ],
)
def test_a_which_question_with_its_own_object_or_a_lone_english_word_takes_no_focus(table, text, earlier):
    chosen = select(text, table, earlier)
    assert chosen.symbols == [] and not chosen.overview and chosen.operation is None


def test_a_short_name_is_the_stock_while_the_conversation_is_about_stocks(table):
    chosen = select("再跟白药对比一下", table, ["老窖怎么样", "谢谢"])
    assert chosen.symbols == ["000568", "000538"] and _operation(chosen) == ("add", 2)


@pytest.mark.parametrize(
    ("text", "earlier", "symbols"),
    [
        ("那它和白药呢", ["老窖怎么样"], ["000568", "000538"]),
        ("白药比它贵吗", ["老窖怎么样"], ["000568", "000538"]),
        ("it vs 白药?", ["老窖怎么样"], ["000568", "000538"]),
        ("片仔癀和它们比呢", ["老窖和白药怎么样"], ["000568", "000538", "600436"]),
    ],
)
def test_a_pronoun_joined_to_a_named_stock_adds_it(table, text, earlier, symbols):
    chosen = select(text, table, earlier)
    assert chosen.symbols == symbols and _operation(chosen) == ("add", 1)


@pytest.mark.parametrize(
    ("text", "earlier", "symbols"),
    [
        ("跟我的其他持仓比呢", ["老窖怎么样"], ["000568"]),
        ("这俩和其他几只比呢", ["老窖和白药怎么样"], ["000568", "000538"]),
    ],
)
def test_a_comparison_with_the_rest_missing_its_first_term_is_the_focus_and_the_overview(table, text, earlier, symbols):
    chosen = select(text, table, earlier)
    assert (chosen.intent, chosen.symbols, chosen.overview) == (Intent.PORTFOLIO_REVIEW, symbols, True)
    assert _operation(chosen) == ("widen", 1)


def test_a_named_stocks_own_characters_ask_nothing_of_their_own(table):
    """伊利股份's 股 is no investing word of the question: the dividend topic goes with the add."""
    chosen = select("和伊利股份相比呢", table, ["白药的分红怎么样"])
    assert chosen.symbols == ["000538", "600887"] and chosen.topics.fundamentals
    assert _operation(chosen) == ("add", 1)
