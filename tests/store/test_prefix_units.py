"""The offline prompt cache's file: a cache problem costs hits, never a reply."""

from __future__ import annotations

import sqlite3

from pixiu_cli.conversation.offline.store import PrefixUnitFile


def test_a_write_while_another_process_holds_the_lock_is_skipped(tmp_path):
    path = tmp_path / "offline_cache.db"
    units = PrefixUnitFile(path, busy_timeout_ms=50)
    units.touch(1, [10, 11], 5.0)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    units.touch(1, [12], 6.0)  # would wait for the lock; gives up after the timeout
    units.purge(older_than=100.0, keep_at_most=0)
    assert units.last_used(1, [10, 11, 12]) == {10: 5.0, 11: 5.0}  # reads still work under WAL
    blocker.execute("ROLLBACK")
    units.touch(1, [12], 6.0)
    assert units.last_used(1, [10, 11, 12]) == {10: 5.0, 11: 5.0, 12: 6.0}
    assert units.last_used(2, [10]) == {}  # per owner


def test_a_file_locked_while_opening_falls_back_to_memory(tmp_path):
    path = tmp_path / "offline_cache.db"
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("CREATE TABLE other (x)")
    blocker.execute("BEGIN EXCLUSIVE")
    units = PrefixUnitFile(path, busy_timeout_ms=50)
    units.touch(1, [10], 5.0)
    assert units.last_used(1, [10]) == {10: 5.0}
    blocker.execute("ROLLBACK")
    assert blocker.execute("select name from sqlite_master").fetchall() == [("other",)]  # file untouched


def test_last_use_only_moves_forward_and_lookups_are_chunked(tmp_path):
    units = PrefixUnitFile(tmp_path / "c.db")
    hashes = list(range(-600, 600))  # more than one lookup chunk, negative hashes too
    units.touch(7, hashes, 10.0)
    units.touch(7, hashes[:5], 9.0)  # an older writer finishing late does not age a unit
    found = units.last_used(7, hashes)
    assert len(found) == 1200 and set(found.values()) == {10.0}
    assert units.count(7) == 1200 and units.count() == 1200
