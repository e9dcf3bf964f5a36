"""Everyday senses of names, comparisons, questions about no account of the user's and
colloquial account questions (selection round five): a held brand used in daily life is not
the stock, a famous name set against another stock is one, somebody else's money and the
crowd's talk load no portfolio, and everyday words about the holdings load it."""

from __future__ import annotations

import pytest

from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.conversation.selection.select import compared, everyday_reason, select, sense_of
from pixiu_cli.market.names.codes import normalize
from pixiu_cli.market.names.table import Holder, NameTable, names_from, shipped_market_list

HOLDERS = (
    Holder("002852", "道道全", ()),
    Holder("603939", "益丰药房", ("益丰",)),
    Holder("000560", "我爱我家", ()),
    Holder("601333", "广深铁路", ("广深",)),
    Holder("603008", "喜临门", ()),
    Holder("600597", "光明乳业", ("光明",)),
)
KNOWN = tuple((s.symbol, s.name) for s in shipped_market_list())


@pytest.fixture(scope="module")
def table() -> NameTable:
    return NameTable(names_from(HOLDERS, KNOWN, ()))


def _note(selection, text):
    return next(m for m in selection.mentions if m.text == text)


def _span(text: str, name: str) -> tuple[str, int, int]:
    normalized = normalize(text)
    start = normalized.index(name)
    return normalized, start, start + len(name)


@pytest.mark.parametrize(
    ("text", "name", "what"),
    [
        ("今天用道道全的油炒了个青菜", "道道全", "吃喝"),
        ("楼下益丰药房几点关门啊", "益丰药房", "营业"),
        ("周末坐广深铁路去广州，票好买吗", "广深铁路", "乘车"),
        ("老婆，我爱我家，也爱你", "我爱我家", "情感"),
        ("喜临门的床垫睡着舒服吗", "喜临门", "家里"),
        ("过年给丈母娘送良品铺子的礼盒", "良品铺子", "送礼"),
    ],
)
def test_a_sentence_of_daily_life_makes_any_name_everyday(text, name, what):
    normalized, start, end = _span(text, name)
    sense = sense_of(normalized, start, end)
    assert sense.everyday and what in sense.what
    assert everyday_reason(normalized, start, end) == sense.why()
    assert "日常用法" in sense.why() and sense.life in sense.why()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("我爱我家跌到3块了还拿吗", "我爱我家"),
        ("道道全的菜籽油卖得好，股价能涨吗", "道道全"),
        ("祝大家新年快乐！喜临门今年涨了不少", "喜临门"),
        ("广深铁路分红怎么样", "广深铁路"),
    ],
)
def test_investing_evidence_near_a_name_keeps_it_the_stock(text, name):
    assert everyday_reason(*_span(text, name)) is None


def test_the_name_itself_is_no_evidence_either_way():
    # 申通快递 holds 快递, 伊利股份 holds 股: the name's own characters are taken out first.
    assert everyday_reason(*_span("申通快递最近怎么样", "申通快递")) is None
    assert everyday_reason(*_span("伊利股份的酸奶好喝吗", "伊利股份")) is not None


def test_held_full_names_are_vetoed_too_and_explain_why(table):
    picked = select("广深铁路的动车几点一班", table)
    assert picked.symbols == [] and picked.intent is Intent.GENERAL
    note = _note(picked, "广深铁路")
    assert not note.accepted and "日常用法" in note.why and "动车" in note.why
    assert select("广深铁路还能拿吗", table).symbols == ["601333"]


def test_a_wish_or_a_phrase_of_feeling_is_not_the_stock(table):
    assert select("祝大家新年吉祥，双喜临门", table).symbols == []
    assert select("老婆，我爱我家，也爱你", table).symbols == []
    assert select("前途一片光明，加油", table).symbols == []


def test_names_compared_with_each_other_are_stocks_held_or_not(table):
    picked = select("茅台跟五粮液哪个好", table)
    assert picked.symbols == ["600519", "000858"]
    assert "比较" in _note(picked, "茅台").why
    assert select("格力和美的选哪个", table).symbols == ["000651", "000333"]
    assert select("比亚迪还是宁德，二选一", table).symbols == ["002594", "300750"]
    assert select("茅台好还是五粮液好", table).symbols == ["600519", "000858"]


def test_a_comparison_in_daily_life_stays_daily_life(table):
    assert select("过年喝五粮液还是茅台", table).symbols == []
    assert select("茅台", table).symbols == []  # alone a short name still needs evidence


def test_compared_needs_a_connector_and_a_choice():
    text = "茅台跟五粮液哪个好"
    spans = [(0, 2), (3, 6)]
    assert compared(text, spans) == {0, 1}
    assert compared("茅台跟五粮液都涨了", spans) == frozenset()  # no choice asked
    assert compared("茅台今天涨了五粮液哪个好", [(0, 2), (6, 9)]) == frozenset()  # not side by side


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("网上都说要割肉止损，该信吗", "众人的说法"),
        ("闺蜜炒股亏了一半，我怎么安慰她", "别人的钱"),
        ("现金和微信支付哪个方便", "生活里的钱"),
        ("银行理财和余额宝哪个收益高", "生活里的钱"),
        ("涨停是怎么回事", "一般知识"),
    ],
)
def test_a_question_about_no_account_of_the_users_is_a_class_with_a_reason(table, text, kind):
    picked = select(text, table)
    assert picked.intent is Intent.GENERAL and not picked.overview
    cue = next(c for c in picked.cues if c.group == "not_mine")
    assert cue.name == kind and cue.matched in picked.normalized and cue.why == picked.reason


@pytest.mark.parametrize("text", ["我老婆说我的仓位太重了", "同事都说我持仓太集中，是这样吗", "我老公说我买的票太多了"])
def test_the_users_own_account_mentioning_others_in_passing_stays_theirs(table, text):
    picked = select(text, table)
    assert picked.intent is Intent.PORTFOLIO_REVIEW and picked.overview


# Floating P&L, counts of winners and losers, break-even, defensiveness, trimming, cash use.
ACCOUNT_QUESTIONS = ("一共浮亏多少了", "亏钱的票有几只", "还要涨多少才能回本啊", "现在持有的能扛住下跌吗")
ACCOUNT_QUESTIONS += ("七只票太多了，想砍掉几只", "资金利用率高不高")


@pytest.mark.parametrize("text", ACCOUNT_QUESTIONS)
def test_colloquial_account_questions_ask_about_the_portfolio(table, text):
    picked = select(text, table)
    assert picked.intent is Intent.PORTFOLIO_REVIEW and picked.overview, picked.reason


@pytest.mark.parametrize("text", ["大盘扛得住吗", "今天两市有几只涨停", "什么叫浮亏", "我爸什么时候能回本"])
def test_measures_of_the_market_others_or_a_concept_are_not_the_portfolio(table, text):
    assert select(text, table).intent is not Intent.PORTFOLIO_REVIEW


def test_a_measure_with_a_named_holding_is_about_that_stock(table):
    picked = select("广深铁路还要涨多少才能回本", table)
    assert picked.symbols == ["601333"] and picked.intent is Intent.SINGLE_STOCK


def test_a_full_name_kept_against_life_words_says_what_overruled_them(table):
    picked = select("喜临门的床垫卖得好，股价能涨吗", table)
    assert picked.symbols == ["603008"]
    why = _note(picked, "喜临门").why
    assert "床垫" in why and "股价" in why


def test_seeing_a_name_is_not_going_there_and_a_trade_question_overrules_a_product(table):
    assert select("中午吃饭时看到光明乳业大涨", table).symbols == ["600597"]
    assert select("道道全的菜籽油卖不动了，我要不要减", table).symbols == ["002852"]
    assert select("周末到益丰药房买点感冒药", table).symbols == []


def test_a_trading_mechanism_asked_about_in_general_gets_no_market_overview(table):
    for concept in ("涨停是怎么回事", "涨停板为什么封不住", "跌停了还能卖吗"):
        assert not select(concept, table).topics.market, concept
    assert select("今天涨停的多吗", table).topics.market
