"""Every name of the shipped security list (data/securities/stock_basic.csv) in the one name
matcher: a fresh home names any listed stock, the false-match guards hold for names that are
also places, products or everyday words, a renamed stock answers to its old name, and the
list is read only when a name table is built."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pixiu_cli.conversation.selection.select import select
from pixiu_cli.market.names.table import Known, NameTable, names_from
from tests.helpers import REPO, clean_env, pixiu_in_process


@pytest.fixture(scope="module")
def fresh() -> NameTable:
    """What a fresh home knows: no holdings, an empty master, the shipped lists."""
    return NameTable(names_from((), (), ()))


@pytest.mark.parametrize(
    ("text", "symbol"), [("宁德时代能买吗", "300750"), ("贵州茅台能买吗", "600519"), ("比亚迪怎么样", "002594")]
)
def test_a_fresh_home_names_a_full_name_from_the_shipped_list(tmp_path, text, symbol):
    done = pixiu_in_process(clean_env(tmp_path / "home"), "context", text, "--explain", text=True)
    assert done.returncode == 0, done.stderr
    selection = json.loads(done.stdout)["selection"]
    assert selection["symbols"] == [symbol]
    assert selection["mentions"][0]["accepted"] and selection["mentions"][0]["kind"] == "full"


@pytest.mark.parametrize(
    ("text", "symbols"),
    [
        ("长电科技最近走势怎么看", ["600584"]),
        ("黄山旅游能买吗", ["600054"]),
        ("国庆去黄山旅游", []),  # a place verb before it: the mountain
        ("老百姓怎么样", ["603883"]),
        ("老百姓的日子越来越好，股市也会好吗", []),  # three characters and an everyday word
        ("值得买怎么样", ["300785"]),
        ("现在A股哪只股票值得买", []),  # investing words are no evidence for a three-character name
        ("精进电动最近怎么样", ["688280"]),  # 精进电动-UW: the marks are not typed
        ("全聚德怎么样", ["002186"]),
        ("全聚德的烤鸭好吃吗", []),
        ("*ST天微还能拿吗", ["688511"]),
        ("仓太重了睡不着觉", []),  # ST太重's typed name has two characters: only its quoted name counts
        ("ST太重能买吗", ["600169"]),
    ],
)
def test_listed_names_keep_the_false_match_guards(fresh, text, symbols):
    # none of these but 长电科技 has a curated entry (data/selection/securities.tsv)
    assert select(text, fresh).symbols == symbols


def test_a_name_a_later_list_replaced_still_finds_the_stock():
    # the master holds a sync's newer name; the shipped list's is a former name now
    table = NameTable(names_from((), (Known("603883", "百姓大药房", "baostock"),), ()))
    chosen = select("老百姓大药房连锁能买吗", table)  # no match: neither name is in it
    assert chosen.symbols == []
    now = select("百姓大药房能买吗", table)
    before = select("老百姓怎么样", table)
    assert now.symbols == before.symbols == ["603883"]
    assert now.mentions[0].kind == "listed" and before.mentions[0].kind == "former"
    # a former name stored as an alias by a sync answers the same way, below current names
    aliased = NameTable(names_from((), (Known("600054", "徽山旅游", "baostock"),), (("黄山旅游", "600054", "former"),)))
    assert select("黄山旅游能买吗", aliased).symbols == ["600054"]


def test_an_unheld_listed_stock_is_named_in_its_section(tmp_path):
    done = pixiu_in_process(clean_env(tmp_path / "home"), "context", "黄山旅游能买吗", "--json", text=True)
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    block = messages[-2]["content"]
    assert "标的上下文：600054 黄山旅游" in block


def test_the_list_is_read_when_a_name_table_is_built_not_on_import():
    probe = (
        "import pixiu_cli.conversation.context.builder, pixiu_cli.conversation.selection.select\n"
        "from pixiu_cli.market.securities import shipped_names\n"
        "print(shipped_names.cache_info().currsize)\n"
        "from pixiu_cli.market.names.table import NameTable, names_from\n"
        "NameTable(names_from((), (), ()))\n"
        "print(shipped_names.cache_info().currsize)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["0", "1"], done.stderr
