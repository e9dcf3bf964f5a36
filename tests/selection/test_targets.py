"""Every memory class is a selection target (issue 38): the account, trades, news, the brief,
rules, plans and the watch list are read from cues in data/selection/rules/targets.toml with
the selection's normalisation, and decide what the question gets: one stock against the rest
gets the overview, the watch list gets the list and not the holdings, somebody else's money
and knowledge stay out."""

from __future__ import annotations

import pytest

from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.conversation.selection.select import select
from pixiu_cli.conversation.selection.targets import english_fixed
from pixiu_cli.market.names.table import Holder, NameTable, names_from

HOLDINGS = [
    Holder("601138", "工业富联", ("富联",)),
    Holder("600941", "中国移动", ("移动",)),
    Holder("000895", "双汇发展", ("双汇",)),
]


@pytest.fixture(scope="module")
def table() -> NameTable:
    return NameTable(names_from(HOLDINGS, [], []))


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("账户里还有多少现金", ["account"]),
        ("上个月的交割单", ["trades"]),
        ("富联有公告吗", ["news"]),
        ("今天的简报说了什么", ["brief"]),
        ("我定的纪律", ["rules"]),
        ("双汇的计划是什么", ["plans"]),
        ("我的自选股", ["watchlist"]),
        # typos by pinyin (公高, 简抱, 计化), traditional, English, pinyin typed out
        ("富联的公高", ["news"]),
        ("昨天简抱", ["brief"]),
        ("双汇计化", ["plans"]),
        ("雙匯的計劃", ["plans"]),
        ("my wacthlist", ["watchlist"]),
        ("双汇 jihua", ["plans"]),
    ],
)
def test_each_class_is_read_from_its_cues_in_every_spelling(table, text, targets):
    assert list(select(text, table).targets) == targets


def test_an_english_cue_word_one_letter_off_is_read_as_the_word():
    assert english_fixed("my wacthlist and nwes") == "my watchlist and news"
    assert english_fixed("my watch") == "my watch"  # a word of the list as it is
    assert english_fixed("plna") == "plan"  # two neighbours swapped
    assert english_fixed("plon") == "plon"  # one letter changed in a short word: too easy to be another word


@pytest.mark.parametrize(
    ("text", "intent", "symbols", "overview"),
    [
        ("还有多少可用资金", Intent.PORTFOLIO_REVIEW, [], True),  # was general: the account's cash
        ("钱够再买一手富联吗", Intent.PORTFOLIO_REVIEW, ["601138"], True),  # buying power of one stock: both
        ("富联还能买吗", Intent.SINGLE_STOCK, ["601138"], False),  # no money word: not the account
        ("除了富联其他几只怎么样", Intent.PORTFOLIO_REVIEW, ["601138"], True),  # one against the rest
        ("双汇是不是拖累了组合", Intent.PORTFOLIO_REVIEW, ["000895"], True),
        ("其他的先不管，双汇能拿吗", Intent.SINGLE_STOCK, ["000895"], False),  # 其他的 is no rest here
        ("我关注的那几只怎么样", Intent.GENERAL, [], False),  # the watch list, not the holdings
        ("上个月卖了哪些", Intent.TRADE_REVIEW, [], False),  # a period before a trade done
        ("今天适合加仓吗", Intent.PORTFOLIO_REVIEW, [], True),  # today + a plan: no look back
        ("我爸的账户亏了三成", Intent.GENERAL, [], False),  # somebody else's money
        ("什么叫现金仓位", Intent.GENERAL, [], False),  # knowledge, no first person
        ("两市成交额多少", Intent.GENERAL, [], False),  # the market's trading, not the user's
        ("移动的计划是什么", Intent.SINGLE_STOCK, ["600941"], False),  # a short name next to a cue word
    ],
)
def test_what_each_class_does_to_the_question(table, text, intent, symbols, overview):
    chosen = select(text, table)
    assert (chosen.intent, chosen.symbols, chosen.overview) == (intent, symbols, overview)


def test_knowledge_and_other_peoples_money_name_no_class(table):
    for text in ("什么是自选股", "我同事上个月做T赚了两万", "一般人的现金仓位留多少"):
        assert select(text, table).targets == (), text


def test_a_realised_word_alone_leaves_a_question_about_the_holdings_as_it_was(table):
    chosen = select("我的持仓赚了多少", table)
    assert chosen.intent is Intent.PORTFOLIO_REVIEW and chosen.overview


def test_the_explanation_names_the_classes_and_their_cues(table):
    explained = select("账户里还有多少现金", table).explanation()
    assert explained["targets"] == ["account"]
    assert {
        "name": "现金与可用资金",
        "group": "target:account",
        "matched": "现金",
        "why": "问账户里的现金、总资产或可用资金",
    } in (explained["cues"])


def test_a_fee_words_typo_is_read_as_the_fee_but_no_company_is():
    from pixiu_cli.market.names.codes import normalize

    assert normalize("上个月的手续废交了多少") == "上个月的手续费交了多少"
    assert normalize("甬金的股息率还行不") == "甬金的股息率还行不"  # 甬金股份, not 佣金


@pytest.mark.parametrize("text", ["国庆前卖广弘控股为啥", "上回清掉的那只怎么想的"])
def test_why_a_past_act_was_done_reads_the_trades(text):
    table = NameTable(names_from((Holder("000529", "广弘控股", ()),), (), ()))
    assert "trades" in select(text, table).targets


@pytest.mark.parametrize("text", ["帮我看看全部股票", "给我瞅瞅所有持仓"])
def test_looking_over_every_stock_is_a_portfolio_question(text):
    assert select(text, NameTable(names_from((), (), ()))).intent is Intent.PORTFOLIO_REVIEW


def test_a_companys_operating_figure_is_investing_evidence():
    table = NameTable(names_from((Holder("000088", "盐田港", ()),), (), ()))
    assert select("盐田吞吐量出来没", table).symbols == ["000088"]
    assert select("盐田那边渔船多", table).symbols == []
