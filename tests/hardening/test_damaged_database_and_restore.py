"""A damaged pixiu.db (truncated, a garbled page, emptied) is named with its newest backup by
every command, and `pixiu restore` brings it back (keeping the damaged file aside);
`restore --salvage` rebuilds what can be read; a restore made by another process while a
turn runs keeps that turn out of the restored database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pixiu_cli.home.handle import Home
from tests.helpers import clean_env, in_process_clean


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home")


@pytest.fixture
def backed_up(env, tmp_path):
    """A home with a portfolio, three turns and one backup; returns (pixiu.db, the backup)."""
    from tests.helpers import FIXTURE

    in_process_clean(env, "import", str(FIXTURE))
    for n in range(3):
        in_process_clean(env, "ask", f"茅台怎么样 {n}")
    home = Path(env["PIXIU_HOME"])
    in_process_clean(env, "backup")
    (backup,) = home.glob("backups/pixiu-*.db")
    return home / "pixiu.db", backup


def _checkpointed(db_path: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _truncate(db_path: Path) -> None:
    data = db_path.read_bytes()
    db_path.write_bytes(data[: len(data) // 4])


def _garble_middle(db_path: Path) -> None:
    """Noise over one leaf page of the calls table (found with SQLite's dbstat), in the middle
    of the file: a bad page of one table, as a failing disk or a stray write leaves it."""
    import random
    import sqlite3

    conn = sqlite3.connect(db_path)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [r[0] for r in conn.execute("select pageno from dbstat where name = 'calls' and pagetype = 'leaf'")]
    conn.close()
    page = pages[len(pages) // 2]
    data = bytearray(db_path.read_bytes())
    data[(page - 1) * size : page * size] = random.Random(28).randbytes(size)
    db_path.write_bytes(bytes(data))


def _empty(db_path: Path) -> None:
    db_path.write_bytes(b"")


@pytest.mark.parametrize("damage", [_truncate, _garble_middle, _empty])
def test_a_damaged_database_is_named_with_its_backup_and_restore_brings_it_back(env, backed_up, damage):
    db_path, backup = backed_up
    _checkpointed(db_path)
    damage(db_path)
    for command in (["ask", "你好"], ["export"], ["context", "茅台"], ["data", "status"], ["backup"]):
        done = in_process_clean(env, *command)
        if done.returncode != 0:
            assert "已损坏" in done.stderr and str(backup) in done.stderr, (command, done.stderr)
    assert len(list(backup.parent.glob("pixiu-2*.db"))) == 1  # the damaged file was not backed up
    done = in_process_clean(env, "restore", str(backup))
    assert done.returncode == 0 and "已损坏，未打开" in done.stdout, done.stderr
    assert list(backup.parent.glob("pixiu-damaged-*.db"))  # kept aside, for salvage
    holdings = json.loads(in_process_clean(env, "export").stdout)["holdings"]
    assert len(holdings) == 3


def test_salvage_rebuilds_what_can_be_read_from_a_damaged_database(env, backed_up):
    db_path, backup = backed_up
    backup.unlink()  # no backup to fall back on
    _checkpointed(db_path)
    _garble_middle(db_path)
    assert "restore --salvage" in in_process_clean(env, "backup").stderr
    done = in_process_clean(env, "restore", "--salvage")
    assert done.returncode == 0 and "已抢救" in done.stdout, done.stderr
    assert in_process_clean(env, "ask", "你好").returncode == 0
    exported = json.loads(in_process_clean(env, "export").stdout)
    assert len(exported["holdings"]) == 3 and len(exported["notes"]) == 4  # their pages were intact
    import sqlite3

    conn = sqlite3.connect(db_path)
    turns = conn.execute("select user_text from turns order by id").fetchall()
    conn.close()
    assert [t[0] for t in turns[:3]] == [f"茅台怎么样 {n}" for n in range(3)]


def test_restore_refuses_nothing_when_the_database_is_fine_and_salvage_says_so(env, backed_up):
    done = in_process_clean(env, "restore", "--salvage")
    assert done.returncode == 1 and "完好" in done.stderr
    done = in_process_clean(env, "restore")
    assert done.returncode != 0 and "用法" in done.stderr


def test_a_restore_during_a_turn_keeps_the_turn_out_of_the_restored_database(tmp_path):
    from datetime import datetime

    from pixiu_cli.conversation.agent.loop import SilentSink
    from pixiu_cli.conversation.offline.model import OfflineModel
    from pixiu_cli.conversation.offline.script import ScriptedReply
    from pixiu_cli.conversation.store import RestoredElsewhere
    from pixiu_cli.home.document_file import SHANGHAI
    from pixiu_cli.home.documents import BackupPlace, backup, restore
    from tests.helpers import build_app

    now = datetime(2026, 3, 10, 10, 30, tzinfo=SHANGHAI)
    place = BackupPlace(tmp_path / "backups", "pixiu")
    other = build_app(OfflineModel(), tmp_path / "other.db")  # the history the backup holds
    other.client.enqueue("备份里的回答一", "备份里的回答二")
    other_conversation = other.new_conversation()
    for question in ("备份里的问题一", "备份里的问题二"):
        other.agent.run_turn(other_conversation, question, SilentSink())
    saved = backup(Home(other.db), place, now).path
    other.db.close()

    db_path = tmp_path / "pixiu.db"

    def restore_meanwhile(request) -> ScriptedReply:
        if request["messages"][-1]["content"].endswith("第二问"):
            restore(db_path, saved, place, now)  # `pixiu restore` in another terminal, mid-turn
        return ScriptedReply(text="本进程的回答")

    app = build_app(OfflineModel(responder=restore_meanwhile), db_path)
    conversation = app.new_conversation()
    app.agent.run_turn(conversation, "第一问", SilentSink())
    with pytest.raises(RestoredElsewhere):
        app.agent.run_turn(conversation, "第二问", SilentSink())
    rows = app.db.execute("select user_text, reply_text from turns order by id").fetchall()
    assert rows == [("备份里的问题一", "备份里的回答一"), ("备份里的问题二", "备份里的回答二")]
    assert not app.db.execute("select count(*) from calls where reply_text like '%本进程%'").fetchone()[0]
    with pytest.raises(RestoredElsewhere):  # the next question is refused once: its conversation is gone
        app.agent.run_turn(conversation, "第三问", SilentSink())
    fresh = app.new_conversation()
    assert app.agent.run_turn(fresh, "第四问", SilentSink()).status == "complete"
    app.db.close()
