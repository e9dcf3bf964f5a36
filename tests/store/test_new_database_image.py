"""A new database is written from an image of a freshly migrated one: the same schema and
rows as migrating the file step by step, and never over a file that is already there."""

from __future__ import annotations

import sqlite3
import threading

from sqlite_utils import Database

from pixiu_cli.kernel.store.database import create_migrated, open_database
from pixiu_cli.kernel.store.schema import migrations


def _contents(path) -> tuple[list, dict]:
    conn = sqlite3.connect(path)
    try:
        schema = sorted(conn.execute("select type, name, tbl_name, sql from sqlite_master").fetchall(), key=repr)
        rows = {}
        for (table,) in conn.execute("select name from sqlite_master where type = 'table'"):
            columns = [c[1] for c in conn.execute(f"pragma table_info([{table}])") if c[1] != "applied_at"]
            query = f"select {', '.join(f'[{c}]' for c in columns)} from [{table}]"
            rows[table] = sorted(conn.execute(query).fetchall(), key=repr)
        return schema, rows
    finally:
        conn.close()


def test_a_file_from_the_image_equals_one_migrated_step_by_step(tmp_path):
    stepwise = tmp_path / "stepwise.db"
    db = Database(sqlite3.connect(stepwise), execute_plugins=False)
    migrations.apply(db)
    db.close()
    assert create_migrated(tmp_path / "image.db")
    schema, rows = _contents(tmp_path / "image.db")
    assert (schema, rows) == _contents(stepwise)
    assert len(schema) > 20 and rows["_sqlite_migrations"]  # a real schema, every migration recorded
    opened = open_database(tmp_path / "image.db")
    try:
        assert not migrations.pending(opened)
        assert opened.execute("pragma journal_mode").fetchone()[0] == "wal"
    finally:
        opened.close()
    assert (tmp_path / "image.db").stat().st_mode & 0o777 == 0o600


def test_an_existing_file_is_never_replaced(tmp_path):
    path = tmp_path / "pixiu.db"
    path.write_bytes(b"")  # even an empty file: it is somebody's, opened the usual way
    assert not create_migrated(path)
    assert path.read_bytes() == b""


def test_two_threads_creating_one_file_make_one_database(tmp_path):
    path = tmp_path / "pixiu.db"
    won: list[bool] = []
    start = threading.Barrier(4)

    def create() -> None:
        start.wait()
        won.append(create_migrated(path))

    threads = [threading.Thread(target=create) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert won.count(True) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pixiu.db"]  # no private file left behind
    db = open_database(path)
    try:
        assert not migrations.pending(db)
    finally:
        db.close()
