"""The selection's word lists and cue tables are data the code reads
(data/selection/rules): an entry added to a file changes what is selected, with no code
change; a broken file fails with a message that names what is wrong."""

from __future__ import annotations

import re
import shutil

import pytest

from pixiu_cli.conversation.selection import follow_up, intent, select, targets, topics, windows
from pixiu_cli.conversation.selection import select as senses
from pixiu_cli.conversation.selection.intent import Group, Intent, analyze
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names import codes, homophones, rules
from pixiu_cli.market.names import codes as normalize
from pixiu_cli.market.names import table as names

RULES = data_dir() / "selection" / "rules"
_CACHED = (
    rules.words,
    rules.pairs,
    rules.table,
    rules.vocabulary,
    targets.rules,
    senses._rules,
    windows._rules,
    windows._tables,
    normalize.dialect,
    homophones._vocabulary,
    homophones.readings,
    codes._rules,
    intent.cues,
    intent._fired,
    intent._context,
    select._mention_rules,
    follow_up._rules,
    select._holdings_table,
    topics._rules,
    topics.words,
    topics._to_market,
    topics.read_topics,
)


def _forget_loaded_rules() -> None:
    for loaded in _CACHED:
        loaded.cache_clear()


@pytest.fixture
def rules_copy(tmp_path, monkeypatch):
    """A writable copy of the rules folder that the code reads instead of the shipped one."""
    folder = tmp_path / "rules"
    shutil.copytree(RULES, folder)
    monkeypatch.setattr(rules, "_path", lambda filename: folder / filename)
    _forget_loaded_rules()
    yield folder
    monkeypatch.undo()
    _forget_loaded_rules()


def _append(path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_every_rules_file_loads_and_every_cue_has_a_known_group():
    assert {p.name for p in RULES.iterdir()} == {
        "codes.toml",
        "intent.toml",
        "mentions.toml",
        "forms.toml",
        "shadow_words.txt",
        "dialect.tsv",
        "words.toml",
        "topics.toml",
        "targets.toml",
        "windows.toml",
        "senses.toml",
    }
    loaded = intent.cues()
    assert len(loaded) == len(rules.table("intent.toml")["cue"]) > 40
    assert {c.group for c in loaded} == set(Group)  # every group has a cue, no cue an unknown group
    assert all(c.why and c.name for c in loaded)
    assert ("俺", "我") in normalize.dialect()
    assert "仓位" in rules.table("words.toml")["vocabulary"]
    assert "平安夜" in rules.words("shadow_words.txt")
    assert not any(w.startswith("#") for w in rules.words("shadow_words.txt"))


def test_a_word_added_to_the_vocabulary_has_its_homophones_fixed(rules_copy):
    # No table of typos: a homophone of a vocabulary word is found by its pinyin.
    assert normalize.normalize("我的底薪和我的谷息") == "我的底薪和我的谷息"
    path = rules_copy / "words.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("vocabulary = [", "vocabulary = ['股息', "))
    _forget_loaded_rules()
    assert normalize.normalize("我的底薪和我的谷息") == "我的底薪和我的股息"


def test_a_dialect_word_whose_standard_has_another_length_is_refused(rules_copy):
    _append(rules_copy / "dialect.tsv", "俺们\t我\n")
    _forget_loaded_rules()
    with pytest.raises(ValueError, match="differ in length"):
        normalize.normalize("仓位")


def test_a_shadow_word_added_to_the_file_swallows_the_short_name(rules_copy):
    holders = [names.Holder("000333", "美的集团", ("美的",))]
    assert select.extract_symbols("美的冰箱坏了", holders) == ["000333"]
    _append(rules_copy / "shadow_words.txt", "美的冰箱\n")
    _forget_loaded_rules()
    assert select.extract_symbols("美的冰箱坏了", holders) == []
    assert select.extract_symbols("美的集团还能拿吗", holders) == ["000333"]


def test_a_unit_added_to_the_file_makes_the_digits_an_amount(rules_copy):
    assert codes.find_codes("600519台", frozenset()) == [(0, "600519")]
    path = rules_copy / "codes.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("units_after = [", "units_after = ['台', "))
    _forget_loaded_rules()
    assert codes.find_codes("600519台", frozenset()) == []


def test_a_cue_added_to_the_file_decides_the_intent(rules_copy):
    assert analyze("帮我看看钱包").intent is Intent.GENERAL
    cue = "\n[[cue]]\nname = '钱包'\ngroup = 'set'\npattern = '钱包'\nwhy = '自己的钱包（全部持仓）'\n"
    path = rules_copy / "intent.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("# --- patterns the decision reads", cue + "\n# --- patterns the decision reads"))
    _forget_loaded_rules()
    result = analyze("帮我看看钱包")
    assert (result.intent, result.overview) == (Intent.PORTFOLIO_REVIEW, True)
    assert [(c.name, c.matched) for c in result.cues] == [("钱包", "钱包")]


def test_a_cue_of_an_unknown_group_is_refused(rules_copy):
    path = rules_copy / "intent.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("group = 'tech'", "group = 'gadgets'"))
    _forget_loaded_rules()
    with pytest.raises(ValueError, match="gadgets"):
        analyze("配置 python 环境")


def test_fragments_expand_and_regex_repeats_stay():
    fragments = {"TIME": "昨天|今天", "ACT": "买|卖"}
    assert rules.expand("我(?:{TIME}).{0,4}(?:{ACT})", fragments) == "我(?:昨天|今天).{0,4}(?:买|卖)"
    with pytest.raises(KeyError, match=re.escape("{NOPE}")):
        rules.expand("(?:{NOPE})", fragments)
    # In the shipped file the trade cue reads its time words from the fragment.
    trade = next(c for c in intent.cues() if c.name == "我+时间+操作")
    assert "上星期" in trade.pattern.pattern and "{TIME}" not in trade.pattern.pattern
    assert analyze("我上周卖的宁德对吗").intent is Intent.TRADE_REVIEW


def test_a_pattern_written_in_parts_is_one_pattern():
    assert rules.joined(["股|仓|", "涨|跌"]) == "股|仓|涨|跌"
    investing = rules.table("mentions.toml")["mention"]["investing"]
    assert isinstance(investing, list)  # a long list is written in parts in the file
    # the topics' evidence words (topics.toml) and the trader's slang are alternatives more
    expected = "|".join(("".join(investing), topics.words("investing"), senses.slang()))
    assert select._mention_rules().investing.pattern == expected
