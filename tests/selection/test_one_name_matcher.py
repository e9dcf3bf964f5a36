"""One name matcher: a note's stock (/remember, the remember tool) is found by the same
rules as a turn's stock, over the same names (holdings, security master, shipped
nicknames, user aliases), on a real SQLite file."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.selection.aliases import add_alias
from pixiu_cli.conversation.selection.select import extract_symbols
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.document_file import SHANGHAI, load_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.names.table import Holder, shipped_market_list
from pixiu_cli.market.store import SecurityMaster
from pixiu_cli.memory.handle import Memory
from pixiu_cli.memory.notes import symbol_in_text

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"
NOW = datetime(2026, 11, 24, 10, 15, tzinfo=SHANGHAI)

# (text, the one stock it names or None): every way of naming a stock, and the ways of
# seeming to name one that are not.
CASES = [
    ("贵州茅台估值偏高，等回调", "600519"),  # a holding's full name
    ("海康回踩30元再加仓", "002415"),  # a held short name with investing words
    ("茅台还能拿吗", "600519"),  # a held short name asked about
    ("中国平安估值低，可以关注", "601318"),  # a name from the security master, not held
    ("宁王跌破150就减半", "300750"),  # a shipped nickname
    ("老茅先观察", "600519"),  # the user's alias
    ("600036 先观察", "600036"),  # a code
    ("sz000001 破位就走", "000001"),  # a code with its exchange
    ("寧德時代怎麼樣", "300750"),  # traditional characters
    ("ＳＨ６００５１９ 到 1500 再买", "600519"),  # full-width
    ("下周去宁德出差", None),  # a short name that is a city
    ("两瓶茅台送人", None),  # a product
    ("平安夜吃什么", None),  # a shadow word
    ("上证指数 000001 今天跌了", None),  # an index, not the bank with the same digits
    ("茅台和宁德时代哪个更稳", None),  # two stocks: the note belongs to neither
    ("永远不买白酒股", None),  # no stock
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    db = open_database(tmp_path_factory.mktemp("names") / "p.db")
    domain = InvestorStore(db)
    domain.replace_all(load_document(FIXTURE, NOW))
    master = SecurityMaster(db)
    master.upsert(shipped_market_list(), keep_names=True)
    add_alias(master, "老茅", "600519", now=NOW)
    return domain, ContextBuilder(ConversationStore(db), domain, clock=lambda: NOW)


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_a_note_and_a_turn_find_the_same_stock(world, text, expected):
    domain, builder = world
    turn = builder.select(text).symbols
    assert symbol_in_text(Memory(domain.db), text) == (turn[0] if len(turn) == 1 else None)
    assert symbol_in_text(Memory(domain.db), text) == expected


def test_two_stocks_in_a_note_are_the_two_a_turn_sees(world):
    domain, builder = world
    assert builder.select("茅台和宁德时代哪个更稳").symbols == ["600519", "300750"]
    assert symbol_in_text(Memory(domain.db), "茅台和宁德时代哪个更稳") is None


def test_extract_symbols_matches_names_as_a_turn_does(world):
    """The holdings-only list uses the same matcher and normalisation: every spelling a
    turn reads as a holding's full name, it reads too (it does not judge short names)."""
    domain, builder = world
    holders = [Holder(h.symbol, h.name, tuple(h.short_names)) for h in domain.holdings()]
    for text in ("贵州茅台估值偏高", "寧德時代怎麼樣", "ＳＨ６００５１９ 到 1500 再买", "海康威视和贵州茅台"):
        assert extract_symbols(text, holders) == builder.select(text).symbols
    assert extract_symbols("平安夜吃什么", [Holder("601318", "中国平安", ("平安",))]) == []
