"""Topics (conversation/selection/topics.py, data/selection/rules/topics.toml): a valuation or financial
question about named stocks gets their 基本面 part, one about the portfolio every holding's
valuation line, one about the market as a whole the 市场概况 section; cancelling words,
concept questions and words that are also the user's own money turn them off; the rules
are data; the topic corpus was written before them and stays as it was measured."""

from __future__ import annotations

import hashlib

import pytest

from pixiu_cli.conversation.selection import follow_up as conversation
from pixiu_cli.conversation.selection import select, topics
from pixiu_cli.conversation.selection.select import select as pick
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names import rules
from pixiu_cli.market.names.table import Holder, NameTable, names_from

HOLDERS = (
    Holder("600519", "贵州茅台", ("茅台",)),
    Holder("600900", "长江电力", ("长电",)),
    Holder("601318", "中国平安", ("平安",)),
)


@pytest.fixture(scope="module")
def table() -> NameTable:
    return NameTable(names_from(HOLDERS, (), ()))


@pytest.mark.parametrize(
    "text, symbols, fundamentals, holdings, market",
    [
        ("茅台估值贵不贵", ["600519"], True, False, False),
        ("茅台的pe是不是有点高", ["600519"], True, False, False),  # pe glued to Chinese
        ("长电每年分多少红", ["600900"], True, False, False),  # 分多少红 is evidence for the short name
        ("茅台去年赚了多少钱", ["600519"], True, False, False),  # a company's year is evidence too
        ("茅台最近走势怎么样", ["600519"], False, False, False),
        ("我的持仓哪只估值最低", [], False, True, False),
        ("我的利润怎么算才对", [], False, False, False),  # the user's own money, no stock named
        ("今天大盘怎么样", [], False, False, True),
        ("大盘跌了，我的持仓要不要减仓", [], False, False, True),
        ("大盘鸡怎么做好吃", [], False, False, False),
        ("吃完大盘鸡，看看今天大盘", [], False, False, True),  # a cue outside the cancelled phrase
        ("什么叫板块轮动", [], False, False, False),  # a concept
        ("年会分红包的时候说什么好", [], False, False, False),
        ("我的持仓整体怎么样", [], False, False, False),
    ],
)
def test_topics_of_a_question(table, text, symbols, fundamentals, holdings, market):
    chosen = pick(text, table)
    t = chosen.topics
    assert (chosen.symbols, t.fundamentals, t.holdings_fundamentals, t.market) == (
        symbols,
        fundamentals,
        holdings,
        market,
    ), chosen.explanation()["topics"]
    assert bool(t.cues) == (fundamentals or holdings or market)


def test_the_explanation_names_each_topic_cue(table):
    info = pick("茅台市盈率多少，今天大盘怎么样", table).explanation()["topics"]
    assert info["fundamentals"] and info["market"]
    assert {(c["name"], c["topic"]) for c in info["cues"]} == {("估值", "fundamentals"), ("大盘", "market")}


def test_follow_ups_take_the_stock_for_a_valuation_question_and_drop_it_for_the_market(table):
    asked = pick("市盈率多少", table, earlier=["中国平安最近怎么样"])
    assert asked.symbols == ["601318"] and asked.topics.fundamentals
    market = pick("那大盘呢", table, earlier=["茅台今天涨了吗"])
    assert market.symbols == [] and market.topics.market and not market.carried


@pytest.fixture
def rules_copy(tmp_path, monkeypatch):
    import shutil

    folder = tmp_path / "rules"
    shutil.copytree(data_dir() / "selection" / "rules", folder)
    monkeypatch.setattr(rules, "_path", lambda filename: folder / filename)
    forget_loaded_rules()
    yield folder
    monkeypatch.undo()
    forget_loaded_rules()


def forget_loaded_rules() -> None:
    loaded = (rules.table, topics._rules, topics.words, topics._to_market, topics.read_topics)
    for cached in (*loaded, select._mention_rules, conversation._rules):
        cached.cache_clear()


def test_a_cue_added_to_the_file_is_selected_with_no_code_change(rules_copy, table):
    assert not pick("今天的龙虎榜", table).topics.market
    path = rules_copy / "topics.toml"
    text = path.read_text(encoding="utf-8")
    cue = "[[cue]]\nname = '龙虎榜'\ntopic = 'market'\npattern = '龙虎榜'\nwhy = '问龙虎榜'\n\n[cancel]"
    path.write_text(text.replace("[cancel]", cue, 1), encoding="utf-8")
    forget_loaded_rules()
    assert pick("今天的龙虎榜", table).topics.market


def test_an_unknown_topic_is_named(rules_copy):
    path = rules_copy / "topics.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("topic = 'market'", "topic = 'weather'", 1), encoding="utf-8")
    forget_loaded_rules()
    with pytest.raises(ValueError, match="unknown topic 'weather'"):
        topics.read_topics("今天大盘怎么样", False, False)


# The topic corpus: written before the rules, measured, never edited after (tune on the
# tune part only). A change here means a case was edited after the rules saw it.
WRITTEN_BEFORE_THE_RULES = {
    "topics_1.txt": "739aeadd1bbf324512a85276aa76222a7ef4233dd7d43b20ff99148b700a4ae0",
    "topics_heldout.json": "754d1e8094d730e6cbf529637cb0401d9003a2b34655c91a541e77ef31febdce",
}


@pytest.mark.parametrize("name", sorted(WRITTEN_BEFORE_THE_RULES))
def test_the_topic_corpus_is_as_it_was_measured(name):
    digest = hashlib.sha256((data_dir() / "selection" / name).read_bytes()).hexdigest()
    assert digest == WRITTEN_BEFORE_THE_RULES[name], f"{name} changed after the rules were measured on it"
