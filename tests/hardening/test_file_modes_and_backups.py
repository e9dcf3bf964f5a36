"""Files pixiu writes are owner-only (0600, an existing export replaced too); `pixiu backup`
removes interrupted partial copies and keeps the newest N, saying what it removed; a symlinked
database is refused visibly and its target left untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import HOLDING_600519, clean_env, in_process_clean, json_document


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home")


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_every_file_pixiu_writes_is_owner_only(env, tmp_path):
    home = Path(env["PIXIU_HOME"])
    in_process_clean(env, "import", str(json_document(tmp_path, holdings=[HOLDING_600519])))
    assert in_process_clean(env, "ask", "贵州茅台怎么样").returncode == 0  # offline: the prompt cache
    out = tmp_path / "export.json"
    out.write_text("", encoding="utf-8")
    out.chmod(0o644)  # an existing file is replaced by an owner-only one
    assert in_process_clean(env, "export", "-o", str(out)).returncode == 0
    assert json.loads(out.read_text(encoding="utf-8"))["holdings"][0]["symbol"] == "600519"
    written = [home / "offline_cache.db", out]
    assert {p.name: _mode(p) for p in written} == {p.name: 0o600 for p in written}


def test_the_line_counts_and_the_demo_state_are_saved_owner_only(tmp_path):
    from pixiu_cli.conversation.tokenizer.counts import LineCounts

    counts_path = tmp_path / LineCounts.FILE
    counts_path.write_bytes(b"")
    counts_path.chmod(0o644)  # as an older version left it
    counts = LineCounts(counts_path, "stamp")
    counts.put("贵州茅台 · 核心仓 · 100 股", 9)
    counts.save()
    assert _mode(counts_path) == 0o600 and LineCounts(counts_path, "stamp").get("贵州茅台 · 核心仓 · 100 股") == 9
    assert not list(tmp_path.glob(".*tmp"))

    from datetime import datetime

    from pixiu_cli.home.demo_state import DemoState
    from pixiu_cli.kernel.store.database import open_database

    db = open_database(tmp_path / "demo.db")
    state_path = tmp_path / "demo_state.json"
    DemoState(state_path, db, datetime(2026, 3, 10, 10, 30)).save()
    db.close()
    assert _mode(state_path) == 0o600


def test_backup_cleans_partials_keeps_the_newest_n_and_says_what_it_removed(env, tmp_path):
    import os
    import time

    home = Path(env["PIXIU_HOME"])
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[backup]\nkeep = 2\n", encoding="utf-8")
    backups = home / "backups"
    backups.mkdir()
    old = time.time() - 3600
    leftovers = [backups / "pixiu-20240101-000000.db.partial", backups / "pixiu-20240101-000000.db.partial-journal"]
    for path in leftovers:
        path.write_bytes(b"x" * 1000)
        os.utime(path, (old, old))
    mine = backups / "my-own-copy.db"
    mine.write_bytes(b"keep me")
    said = [in_process_clean(env, "backup").stdout for _ in range(4)]
    kept = sorted(p.name for p in backups.glob("pixiu-*.db"))
    assert len(kept) == 2 and mine.exists() and not any(p.exists() for p in leftovers)
    assert "中断的备份残留文件 2 个" in said[0]
    assert "已删除较旧的备份 1 个" in said[2] and "已删除较旧的备份 1 个" in said[3]


def test_a_symlinked_database_is_refused_visibly_and_its_target_untouched(env, tmp_path):
    home = Path(env["PIXIU_HOME"])
    home.mkdir(parents=True)
    target = tmp_path / "elsewhere.db"
    target.write_bytes(b"")
    target.chmod(0o644)
    (home / "pixiu.db").symlink_to(target)
    done = in_process_clean(env, "ask", "你好")
    assert done.returncode != 0 and "符号链接" in done.stderr and str(target) in done.stderr
    assert _mode(target) == 0o644 and target.stat().st_size == 0
