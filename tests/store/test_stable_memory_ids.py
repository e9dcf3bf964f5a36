"""An id once shown to the user (n12, d5, a3) never names another memory: not after
`import --replace` of pixiu's own export, a round trip through another database, a restore
of an older backup, or the demo's refresh, on real SQLite files."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.trades import NewTrade, record_trade
from pixiu_cli.home.documents import BackupPlace, backup, export, import_document, restore
from pixiu_cli.home.handle import Home
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.memory.handle import Memory
from pixiu_cli.memory.notes import NewNote, add_note
from pixiu_cli.memory.store import MemoryStore

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=SHANGHAI)


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "pixiu.db")
    yield database
    database.close()


def place(tmp_path) -> BackupPlace:
    return BackupPlace(tmp_path / "backups", "pixiu")


def note(db, text: str, kind: str = "view") -> int:
    return add_note(Memory(db), NewNote(kind=kind, text=text, symbol=None, source="user"), NOW.isoformat()).event.id


def texts(db) -> dict[int, str]:
    rows = db.execute("select id, text from memory_events where kind = 'user_note' and deleted_at is null")
    return dict(rows.fetchall())


def test_import_replace_of_its_own_export_keeps_every_id(db, tmp_path):
    import_document(Home(db), Account(db), FIXTURE, NOW, replace=False, place=place(tmp_path))
    mine = note(db, "白酒估值偏高，不追")
    # a trade told in conversation writes a memory event a replace keeps: before AUTOINCREMENT
    # and kept ids, every note re-inserted after it came back under a new number
    record_trade(Account(db), NewTrade("600519", "buy", 1500, 100, None, "贵州茅台", "user"), NOW.isoformat())
    shown = texts(db)
    decisions = dict(db.execute("select id, symbol || side || quantity from decisions").fetchall())
    exported = tmp_path / "export.json"
    exported.write_text(export(Home(db), NOW).text, encoding="utf-8")
    import_document(Home(db), Account(db), exported, NOW, replace=True, place=place(tmp_path))
    assert texts(db) == shown
    assert dict(db.execute("select id, symbol || side || quantity from decisions").fetchall()) == decisions
    # /forget n<id> forgets what that id named when it was shown
    ref = MemoryStore(db).resolve(f"n{mine}")
    assert MemoryStore(db).forget(ref.id, NOW.isoformat()).event.text == "白酒估值偏高，不追"


def test_a_replace_that_drops_a_note_never_gives_its_id_to_another(db, tmp_path):
    import_document(Home(db), Account(db), FIXTURE, NOW, replace=False, place=place(tmp_path))
    highest = note(db, "最后一条笔记")  # the largest id: SQLite would hand it out again
    doc = json.loads(FIXTURE.read_text())
    doc["notes"] = [{"kind": "rule", "text": "一条全新的纪律", "created_at": "2026-11-29"}]
    replaced = tmp_path / "other.json"
    replaced.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    import_document(Home(db), Account(db), replaced, NOW, replace=True, place=place(tmp_path))
    (new_id,) = texts(db)
    assert new_id > highest
    with pytest.raises(ValueError, match=f"没有 ID 为 n{highest} 的记忆"):
        MemoryStore(db).resolve(f"n{highest}")
    later = note(db, "再后来的笔记")
    assert later > new_id


def test_a_restore_of_an_older_backup_never_reissues_an_id(db, tmp_path):
    note(db, "第一条")
    saved = backup(Home(db), place(tmp_path), NOW)
    shown = note(db, "备份之后写的")  # shown to the user, then the restore takes it away
    trade = record_trade(Account(db), NewTrade("600519", "buy", 1500, 100, None, "贵州茅台", "user"), NOW.isoformat())
    path = Path(db.conn.execute("pragma database_list").fetchone()[2])
    db.close()
    restore(path, saved.path, place(tmp_path), NOW)
    again = open_database(path)
    try:
        assert shown not in texts(again)
        assert note(again, "还原之后写的") > shown
        after = record_trade(
            Account(again), NewTrade("600519", "buy", 1500, 100, None, "贵州茅台", "user"), NOW.isoformat()
        )
        assert after.decision.id > trade.decision.id
    finally:
        again.close()


def test_the_demo_refresh_keeps_the_ids_of_its_notes(tmp_path):
    from pixiu_cli.app import refresh_demo_data
    from pixiu_cli.home.store import InvestorStore

    path = tmp_path / "demo.db"
    db = open_database(path)
    try:
        domain = InvestorStore(db)
        refresh_demo_data(domain, NOW, tmp_path / "demo_state.json")
        shown = texts(db)
        mine = note(db, "对话中记下的")  # a write in conversation: the next start refreshes
        refresh_demo_data(domain, NOW, tmp_path / "demo_state.json")
        assert texts(db) == {**shown, mine: "对话中记下的"}
    finally:
        db.close()
