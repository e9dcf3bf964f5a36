"""Context selection: normalisation, the name table, evidence for short names,
index codes, intent cues with explanations, follow-ups, mixed questions."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.conversation.selection.select import select
from pixiu_cli.market.names.codes import normalize
from pixiu_cli.market.names.table import Holder, NameTable, names_from, shipped_market_list

HOLDERS = (
    Holder("300750", "宁德时代", ("宁德",)),
    Holder("600519", "贵州茅台", ("茅台",)),
    Holder("600900", "长江电力", ("长电",)),
    Holder("600036", "招商银行", ("招行",)),
    Holder("601899", "紫金矿业", ("紫金",)),
    Holder("000001", "平安银行", ()),
)
KNOWN = tuple((s.symbol, s.name) for s in shipped_market_list())


@pytest.fixture(scope="module")
def table() -> NameTable:
    return NameTable(names_from(HOLDERS, KNOWN, (("宁宁", "300750"),)))


def pick(table, text, earlier=()):
    return select(text, table, earlier=earlier)


def test_normalize_is_length_preserving_and_folds_every_spelling():
    for raw, expected in [
        ("持倉太重", "持仓太重"),
        ("這幾隻哪隻最穩", "这几只哪只最稳"),
        ("ＰＯＲＴＦＯＬＩＯ", "portfolio"),
        ("我的组和", "我的组合"),
        ("舱位多少", "仓位多少"),
        ("茅臺", "茅台"),
    ]:
        assert normalize(raw) == expected
        assert len(normalize(raw)) == len(raw)


def test_opencc_is_imported_only_for_traditional_text():
    code = (
        "import sys; from pixiu_cli.market.names.codes import normalize; normalize('我的持仓怎么样'); "
        "a = 'opencc' in sys.modules; normalize('我的持倉'); print(a, 'opencc' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "True"], done.stderr


@pytest.mark.parametrize(
    "text",
    [
        "下周要去宁德出差",
        "紫金山天文台怎么预约",
        "过年买了两瓶茅台送人",
        "验证码是600519",
        "邮编 430000 是哪里",
        "拿300000出来炒股够吗",
        "招行信用卡怎么提额",
        "茅台酒怎么辨别真假",
        "000300 沪深300 今天怎么样",
        "上证指数 000001 跌破3000了吗",
        "sh000001 今天走势",
    ],
)
def test_false_matches_name_no_stock(table, text):
    chosen = pick(table, text)
    assert chosen.symbols == [] and not chosen.overview, chosen.explanation()


@pytest.mark.parametrize(
    ("text", "symbols"),
    [
        ("000001 平安银行能拿吗", ["000001"]),
        ("宁王最近怎么样", ["300750"]),
        ("茅臺估值貴嗎", ["600519"]),
        ("五粮液最近怎么样", ["000858"]),
        ("宁德还能拿吗", ["300750"]),
        ("宁宁怎么样", ["300750"]),
        ("紫金矿业止盈点设在哪", ["601899"]),
        ("sz000001 最近怎么样", ["000001"]),
    ],
)
def test_stocks_by_name_nickname_alias_and_code(table, text, symbols):
    assert pick(table, text).symbols == symbols


def test_held_short_name_beats_another_company_with_the_same_short_name():
    holders = (Holder("600584", "长电科技", ("长电",)),)
    table = NameTable(names_from(holders, KNOWN, ()))
    assert pick(table, "长电还能拿吗").symbols == ["600584"]
    assert pick(table, "长江电力还能拿吗").symbols == ["600900"]


@pytest.mark.parametrize(
    ("text", "intent", "overview"),
    [
        ("帮我看看账户", Intent.PORTFOLIO_REVIEW, True),
        ("我拿的这些票还能拿吗", Intent.PORTFOLIO_REVIEW, True),
        ("现在七成仓是不是太激进了", Intent.PORTFOLIO_REVIEW, True),
        ("这几支哪支最该减", Intent.PORTFOLIO_REVIEW, True),
        ("should I rebalance", Intent.PORTFOLIO_REVIEW, True),
        ("機構現在的倉位是多少", Intent.GENERAL, False),
        ("公募基金一季度持仓有什么变化", Intent.GENERAL, False),
        ("止损的原则有哪些", Intent.GENERAL, False),
        ("帮我复盘一下整个组合", Intent.TRADE_REVIEW, True),
        ("我上周的调仓操作对吗", Intent.TRADE_REVIEW, False),
    ],
)
def test_intent_and_overview(table, text, intent, overview):
    chosen = pick(table, text)
    assert (chosen.intent, chosen.overview) == (intent, overview), chosen.explanation()


def test_position_word_about_one_stock_does_not_pull_the_overview(table):
    chosen = pick(table, "宁德时代的持仓成本是多少")
    assert chosen.intent is Intent.SINGLE_STOCK and not chosen.overview and chosen.symbols == ["300750"]


def test_mixed_question_gets_overview_and_the_stock(table):
    chosen = pick(table, "帮我看看账户，特别是宁德")
    assert chosen.intent is Intent.PORTFOLIO_REVIEW and chosen.overview and chosen.symbols == ["300750"]


@pytest.mark.parametrize(
    ("earlier", "text", "intent", "symbols", "overview"),
    [
        (["茅台现在能加仓吗"], "其他几只呢", Intent.PORTFOLIO_REVIEW, [], True),
        (["我的票里哪只回撤最大"], "剩下的呢", Intent.PORTFOLIO_REVIEW, [], True),
        (["宁德时代最近怎么样"], "那整体呢", Intent.PORTFOLIO_REVIEW, [], True),
        (["宁德时代现在能买吗"], "它的回撤多大", Intent.SINGLE_STOCK, ["300750"], False),
        (["宁德时代最近怎么样"], "那招行呢", Intent.SINGLE_STOCK, ["600036"], False),
        (["我的持仓里哪只最稳"], "那茅台呢", Intent.PORTFOLIO_REVIEW, ["600519"], True),
        (
            ["我昨天卖的茅台卖对了吗"],
            "那上上笔呢",
            Intent.TRADE_REVIEW,
            [],
            False,
        ),  # another trade, maybe another stock
        (["今天大盘怎么样"], "那深证成指呢", Intent.GENERAL, [], False),
    ],
)
def test_follow_ups_inherit_the_previous_turn(table, earlier, text, intent, symbols, overview):
    chosen = pick(table, text, earlier)
    assert (chosen.intent, chosen.symbols, chosen.overview) == (intent, symbols, overview), chosen.explanation()
    alone = pick(table, text)  # the same words without a conversation
    assert alone.follow_up is None
    if (alone.intent, alone.symbols, alone.overview) != (intent, symbols, overview):
        assert chosen.follow_up  # the difference is explained


def test_explanation_names_cues_and_rejected_mentions(table):
    info = pick(table, "去宁德出差，顺便问下我的票怎么样").explanation()
    assert info["intent"] == "portfolio_review" and info["overview"] is True
    assert any(c["name"] == "我的票" and c["matched"] == "我的票" and c["why"] for c in info["cues"])
    mention = next(m for m in info["mentions"] if m["text"] == "宁德")
    assert mention["accepted"] is False and "出差" in mention["why"]
    index = pick(table, "上证指数 000001 跌破3000了吗").explanation()["mentions"]
    assert any(m["text"] == "000001" and not m["accepted"] and "指数" in m["why"] for m in index)


def test_another_companys_name_swallows_a_held_short_name_in_a_fresh_home():
    # 长电科技 is not 长江电力 (长电): the shipped list names it, with no sync and no data
    table = NameTable(names_from((Holder("600900", "长江电力", ("长电",)),), (), ()))
    assert pick(table, "长电科技怎么样").symbols == ["600584"]
    assert pick(table, "长电怎么样").symbols == ["600900"]


def test_a_curated_name_no_list_knows_still_swallows_a_held_short_name():
    table = NameTable(names_from((Holder("600900", "长江电力", ("长电",)),), (), (), listed=()))
    assert pick(table, "长电科技怎么样").symbols == []
    chosen = pick(table, "长电科技怎么样").explanation()
    assert chosen["mentions"][0]["kind"] == "shadow" and not chosen["mentions"][0]["accepted"]


@pytest.mark.parametrize(
    ("text", "symbols"),
    [("金山最近咋了", ["688111"]), ("金山这票还能拿吗", ["688111"]), ("上海金山区房价", []), ("金山词霸还能用吗", [])],
)
def test_held_short_name_in_colloquial_questions(text, symbols):
    table = NameTable(names_from((Holder("688111", "金山办公", ("金山",)),), (), ()))
    assert pick(table, text).symbols == symbols
