from __future__ import annotations

from datetime import datetime, timedelta

from pixiu_cli.dataset import SHANGHAI
from pixiu_cli.store.database import open_database
from pixiu_cli.store.domain import MemoryStore

NOW = datetime(2026, 11, 24, 10, 0, tzinfo=SHANGHAI)


def test_near_duplicates_merge_and_forget(tmp_path):
    memory = MemoryStore(open_database(tmp_path / "m.db"))
    first, merged = memory.add_note(note_kind="plan", text="海康估值偏高，回踩 30 元再加仓", symbol="002415",
                                    source="model", at=NOW.isoformat())
    assert not merged
    again, merged = memory.add_note(note_kind="plan", text="海康估值偏高, 回踩30元再加仓!", symbol="002415",
                                    source="user", at=(NOW + timedelta(days=1)).isoformat())
    assert merged and again.id == first.id and again.created_at.startswith("2026-11-25")
    other, merged = memory.add_note(note_kind="plan", text="宁德跌到 150 再买", symbol="300750", source="user",
                                    at=NOW.isoformat())
    assert not merged and other.id != first.id
    assert memory.forget(first.id, NOW.isoformat()).id == first.id
    assert memory.get(first.id) is None and memory.forget(first.id, NOW.isoformat()) is None
    assert [e.id for e in memory.search()] == [other.id]


def test_old_notes_stay_searchable(tmp_path):
    memory = MemoryStore(open_database(tmp_path / "m.db"))
    memory.add_note(note_kind="view", text="白酒要完", symbol=None, source="user",
                    at=(NOW - timedelta(days=400)).isoformat())
    assert memory.search(text="白酒")[0].text == "白酒要完"
    assert memory.search(text="白酒", since=(NOW - timedelta(days=30)).isoformat()) == []
    assert memory.search(text="100%_") == []  # LIKE wildcards are literal
