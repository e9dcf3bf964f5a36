"""A demo start on the same day as the last refresh, with the demo tables as that refresh
left them, keeps them (no re-dating, no analytics recomputed), and its context still carries
the profiles computed from the shipped bars; anything written since makes the next start
refresh again."""

from __future__ import annotations

import json

import pytest

from pixiu_cli import app as app_module
from pixiu_cli.app import DEMO_STATE_FILE, refresh_demo_data
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.clock import system_clock
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.memory.store import MemoryStore
from tests.helpers import clean_env, pixiu_in_process


@pytest.fixture
def refreshes(monkeypatch) -> list[int]:
    """Counts the full refreshes (re-dating and recomputing) done from here on."""
    done: list[int] = []
    full = app_module._refresh_demo_data

    def counted(*args):
        done.append(1)
        full(*args)

    monkeypatch.setattr(app_module, "_refresh_demo_data", counted)
    return done


def start(home):
    db = open_database(home / "demo.db")
    refresh_demo_data(InvestorStore(db), system_clock(), home / DEMO_STATE_FILE)  # the command's clock: no PIXIU_NOW
    return db


def demo_block(home) -> str:
    done = pixiu_in_process(clean_env(home), "context", "--demo", "--json", "美的集团最近怎么样", text=True)
    assert done.returncode == 0, done.stderr
    return next(m["content"] for m in json.loads(done.stdout) if m["content"].startswith("[上下文信息]"))


def test_an_unchanged_demo_is_kept_and_still_carries_its_computed_profiles(pixiu_home, refreshes):
    start(pixiu_home).close()
    assert len(refreshes) == 1
    start(pixiu_home).close()
    block = demo_block(pixiu_home)  # a third start, through the real command
    assert len(refreshes) == 1
    section = block[block.index("## 标的上下文：000333") :]
    assert "本地回测 pixiu-bt-1（数据 csv）" in section and "融合信号" in section
    assert "股息再投资" not in section  # the document's made-up profile is still replaced
    assert "收盘 79.06（2025-05-30 不复权" in block


def test_a_note_made_since_the_last_refresh_makes_the_next_start_refresh(pixiu_home, refreshes):
    db = start(pixiu_home)
    MemoryStore(db).add_note(
        note_kind="plan",
        text="海康回踩 30 元再加仓",
        symbol="002415",
        source="user",
        author="user",
        at="2026-11-30T10:00:00+08:00",
    )
    db.close()
    db = start(pixiu_home)
    assert len(refreshes) == 2
    texts = [row[0] for row in db.conn.execute("select text from memory_events where kind = 'user_note'")]
    assert "海康回踩 30 元再加仓" in texts  # kept by the refresh, as before
    db.close()
    start(pixiu_home).close()
    assert len(refreshes) == 2  # and then unchanged again


def test_a_turn_that_only_shows_notes_does_not_force_a_refresh(pixiu_home, refreshes):
    db = start(pixiu_home)
    db.conn.execute("update memory_events set inject_count = inject_count + 1")  # what each turn does
    db.close()
    start(pixiu_home).close()
    assert len(refreshes) == 1


@pytest.mark.parametrize("state", ["not json", '{"inputs": {"day": "2000-01-01"}}', "[]"])
def test_another_day_or_an_unreadable_state_file_refreshes(pixiu_home, refreshes, state):
    start(pixiu_home).close()
    (pixiu_home / DEMO_STATE_FILE).write_text(state, encoding="utf-8")
    start(pixiu_home).close()
    assert len(refreshes) == 2
    assert json.loads((pixiu_home / DEMO_STATE_FILE).read_text(encoding="utf-8"))["inputs"]["day"] != "2000-01-01"


def test_a_changed_shipped_file_refreshes(pixiu_home, refreshes, monkeypatch):
    start(pixiu_home).close()
    monkeypatch.setattr("pixiu_cli.home.demo_state.shipped_digest", lambda folder: "another document")
    start(pixiu_home).close()
    assert len(refreshes) == 2
