"""Merging an import into the data set by natural key (store/imports.py), on a real SQLite
file: what is added, updated and left alone, and what a merge never touches."""

from __future__ import annotations

import copy
import json
from datetime import datetime
from pathlib import Path

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.store import AccountStore
from pixiu_cli.home.document_file import SHANGHAI, parse_document, to_document
from pixiu_cli.home.store import InvestorStore, ShareConflict, merge_document
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.memory.store import MemoryStore

NOW = datetime(2026, 11, 27, 10, 0, tzinfo=SHANGHAI)
FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json").read_text())


@pytest.fixture
def db(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    yield db
    db.close()


def merge(db, doc):
    return merge_document(db, parse_document(doc, NOW), AccountStore(db))


def counts(result) -> dict[str, tuple[int, int, int]]:
    return {name: (r.added, r.updated, r.left_alone) for name, r in result.sections.items()}


def test_the_same_file_twice_adds_nothing_and_an_export_merges_back_unchanged(db):
    first = merge(db, FIXTURE)
    assert counts(first)["news"] == (3, 0, 0) and counts(first)["persona"] == (3, 0, 0)
    exported = to_document(InvestorStore(db).export())
    second = merge(db, FIXTURE)
    assert all(r.added == 0 and r.updated == 0 for r in second.sections.values()), counts(second)
    assert counts(second)["notes"] == (0, 0, 4) and counts(second)["holdings"] == (0, 0, 3)
    assert to_document(InvestorStore(db).export()) == exported
    merge(db, exported)
    assert to_document(InvestorStore(db).export()) == exported


def test_changed_rows_are_updated_new_ones_added_and_absent_ones_left_alone(db):
    merge(db, FIXTURE)
    doc = copy.deepcopy(FIXTURE)
    doc["profiles"][0]["conclusion"] = "改了结论"
    doc["news"].append({"symbol": "600519", "title": "新的一条", "days_ago": 0})
    doc["persona"] = {"风险偏好": "激进"}
    doc["holdings"] = [dict(doc["holdings"][0], role="satellite")]
    doc["notes"] = [dict(doc["notes"][1], symbol="600519")]  # same kind+text: the same note
    result = merge(db, doc)
    c = counts(result)
    assert c["profiles"] == (0, 1, 2) and c["news"] == (1, 0, 3) and c["persona"] == (0, 1, 2)
    assert c["holdings"] == (0, 1, 2) and c["notes"] == (0, 1, 3)
    domain = InvestorStore(db)
    assert domain.latest_profile("600519").conclusion == "改了结论"
    assert domain.persona() == {"风险偏好": "激进", "投资期限": "三年以上", "风格": "价值为主，少量成长"}
    assert [h.symbol for h in domain.holdings()] == ["002415", "300750", "600519"]  # none deleted
    assert domain.holding("600519").role == "satellite"
    assert db.execute("select symbol from memory_events where text = '我以后不再追涨杀跌'").fetchall() == [("600519",)]


def test_notes_and_decisions_made_in_conversation_are_never_touched(db):
    merge(db, FIXTURE)
    memory = MemoryStore(db)
    said = memory.add_note(
        note_kind="plan",
        text="茅台跌破1500元加仓",
        symbol=None,
        source="model",
        author="model_from_user",
        at="2026-11-27T10:00:00+08:00",
    ).event
    gone = memory.add_note(
        note_kind="view",
        text="白酒股不碰了",
        symbol=None,
        source="import",
        author="import",
        at="2026-11-27T10:00:00+08:00",
    ).event
    memory.forget(gone.id, "2026-11-27T10:01:00+08:00")
    from pixiu_cli.account.trades import NewTrade, record_trade

    record_trade(
        Account(db), NewTrade("002415", "buy", 30, 200, "对话里说的", "海康威视", "model"), "2026-11-27T10:02:00+08:00"
    )
    doc = copy.deepcopy(FIXTURE)
    # the file names the conversation's note and trade (as an old export would), with other details
    doc["notes"] += [
        {"kind": "plan", "symbol": "600519", "text": "茅台跌破1500元加仓", "created_at": "2026-01-01"},
        {"kind": "view", "text": "白酒股不碰了", "created_at": "2026-01-01"},
    ]
    doc["decisions"].append(
        {
            "symbol": "002415",
            "side": "buy",
            "price": 30,
            "quantity": 200,
            "reason": "改写",
            "decided_at": "2026-11-27T10:02:00+08:00",
            "source": "import",
        }
    )
    result = merge(db, doc)
    # the note said in conversation, and apart from it the imported note the user deleted
    notes = result.sections["notes"]
    assert counts(result)["notes"] == (0, 0, 6) and (notes.conversation, notes.forgotten) == (1, 1)
    assert counts(result)["decisions"] == (0, 0, 3) and result.sections["decisions"].conversation == 1
    kept = memory.get(said.id)
    assert (kept.symbol, kept.created_at, kept.source) == (None, "2026-11-27T10:00:00+08:00", "model")
    assert memory.get(gone.id) is None  # a forgotten note stays forgotten
    assert db.execute("select reason, source from decisions where symbol = '002415'").fetchall() == [
        ("对话里说的", "model")
    ]


def _trade(db, symbol, side, price, quantity, at):
    from pixiu_cli.account.trades import NewTrade, record_trade

    record_trade(Account(db), NewTrade(symbol, side, price, quantity, None, None, "model", fee=0.0), at)


def _held(db) -> dict:
    from datetime import datetime

    from pixiu_cli.account.overview import account_record, read_account

    record = account_record(read_account(Account(db), datetime.fromisoformat("2026-11-28T10:00:00+08:00")))
    return {h["symbol"]: h for h in record["holdings"]}


def test_a_holding_changed_by_a_recorded_trade_keeps_the_trade_and_says_so(db):
    merge(db, FIXTURE)
    _trade(db, "002415", "buy", 30, 200, "2026-11-27T10:02:00+08:00")
    _trade(db, "300750", "sell", 200, 300, "2026-11-27T10:03:00+08:00")
    result = merge(db, FIXTURE)
    assert result.share_conflicts == [
        ShareConflict("002415", "海康威视", 2000.0, 2200.0, False),
        ShareConflict("300750", "宁德时代", 300.0, 0.0, False),
    ]
    hik = _held(db)["002415"]
    assert (hik["shares"], hik["average_cost"]) == (2200.0, 31.0909)  # (2,000 × 31.2 + 200 × 30) / 2,200
    assert "300750" not in _held(db)  # sold out in conversation: not brought back
    # a file dated after the last trade is newer information: it wins, and the difference is still said
    doc = copy.deepcopy(FIXTURE)
    doc["holdings"][1].update(shares=2500, cost=30.5, updated_at="2026-11-27T15:00:00+08:00")
    result = merge(db, doc)
    assert ShareConflict("002415", "海康威视", 2500.0, 2200.0, True) in result.share_conflicts
    assert (_held(db)["002415"]["shares"], _held(db)["002415"]["cost"]) == (2500.0, 30.5)


def test_a_file_that_agrees_with_the_trades_raises_no_warning(db):
    merge(db, FIXTURE)
    _trade(db, "002415", "buy", 30, 200, "2026-11-27T10:02:00+08:00")
    doc = copy.deepcopy(FIXTURE)
    doc["holdings"][1].update(shares=2200, short_names=["海康", "海康威"])
    result = merge(db, doc)
    assert result.share_conflicts == []
    assert InvestorStore(db).holding("002415").short_names == ("海康", "海康威")


def test_a_failing_merge_changes_nothing(db):
    merge(db, FIXTURE)
    before = to_document(InvestorStore(db).export())
    data = parse_document(dict(FIXTURE, news=[{"title": "x", "published_at": "2026-11-01"}]), NOW)
    db.execute("create trigger no_news before insert on news begin select raise(abort, 'boom'); end")
    with pytest.raises(Exception, match="boom"):
        merge_document(db, data, AccountStore(db))
    db.execute("drop trigger no_news")
    assert to_document(InvestorStore(db).export()) == before


def _sourced_home(db) -> None:
    """A synced news item and a brief's report, as `pixiu news sync` and `pixiu brief` store them."""
    from pixiu_cli.brief.store import BriefReport, BriefStore
    from pixiu_cli.market.news.model import MEDIA, FetchedNews
    from pixiu_cli.market.news.store import NewsStore

    item = FetchedNews(
        "600519",
        "茅台提价",
        "出厂价上调",
        "证券时报网",
        "https://x.example/1",
        "2026-11-27T08:30:00+08:00",
        "feed.em",
        MEDIA,
    )
    NewsStore(db).add([(item, "事实")], "2026-11-27T09:00:00+08:00")
    report = BriefReport("每日简报", ["600519"], "持仓平稳", "2026-11-26", "2026-11-27T09:05:00+08:00", 3, 7, 2)
    BriefStore(db).save(report, {})


def test_where_news_and_reports_came_from_travels_and_an_older_file_keeps_it(db, tmp_path):
    _sourced_home(db)
    exported = to_document(InvestorStore(db).export())
    # published by the feed at 08:30, fetched at 09:00: both times travel
    assert exported["news"] == [
        {
            "symbol": "600519",
            "title": "茅台提价",
            "summary": "出厂价上调",
            "source": "证券时报网",
            "layer": "事实",
            "published_at": "2026-11-27T08:30:00+08:00",
            "url": "https://x.example/1",
            "fetched_at": "2026-11-27T09:00:00+08:00",
            "provider": "feed.em",
            "dedup_key": "https://x.example/1",
        }
    ]
    # the brief's session and origin travel; its conversation and turn are this home's own
    assert exported["reports"] == [
        {
            "title": "每日简报",
            "symbols": ["600519"],
            "conclusion": "持仓平稳",
            "created_at": "2026-11-27T09:05:00+08:00",
            "as_of": "2026-11-26",
            "origin": "brief",
        }
    ]
    other = open_database(tmp_path / "other.db")
    try:
        merge(other, exported)
        again = to_document(InvestorStore(other).export())
        assert (again["news"], again["reports"]) == (exported["news"], exported["reports"])
        older = copy.deepcopy(exported)
        for key in ("url", "fetched_at", "provider", "dedup_key"):
            del older["news"][0][key]
        for key in ("as_of", "origin"):
            del older["reports"][0][key]
        c = counts(merge(other, older))
        assert c["news"] == (0, 0, 1) and c["reports"] == (0, 0, 1)
        assert to_document(InvestorStore(other).export())["news"] == exported["news"]
    finally:
        other.close()


def test_a_news_item_pairs_by_its_feed_key_first(db, tmp_path):
    """The feed retitled an item: the file's row has another title (another natural key)
    but the stored item's dedup_key, so it is that item, not a second row the unique key
    would refuse; and a sync after the import adds nothing."""
    from pixiu_cli.market.news.model import MEDIA, FetchedNews
    from pixiu_cli.market.news.store import NewsStore

    _sourced_home(db)
    doc = to_document(InvestorStore(db).export())
    doc["news"][0]["title"] = "茅台宣布提价"
    assert counts(merge(db, doc))["news"] == (0, 0, 1)
    item = FetchedNews("600519", "茅台提价", None, "证券时报网", "https://x.example/1", None, "feed.em", MEDIA)
    other = open_database(tmp_path / "other.db")
    try:
        merge(other, doc)
        assert NewsStore(other).add([(item, "事实")], "2026-11-28T09:00:00+08:00") == []
        assert other.execute("select count(*) from news").fetchone()[0] == 1
    finally:
        other.close()
