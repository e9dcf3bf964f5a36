"""A built name table kept on disk (`NameSource(cache_dir=…)`): the next process loads the
same table instead of building it; other names, or a changed shipped file, make another
table; an unreadable file is rebuilt and an unwritable directory only loses the speed-up.
On a real SQLite file."""

from __future__ import annotations

import os

import pytest

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.names import cache as name_cache
from pixiu_cli.market.names import table as names
from pixiu_cli.market.names.table import Holder, NameSource
from pixiu_cli.market.store import SecurityMaster

TEXTS = ["宁德时代能买吗", "寧德時代怎麼樣", "茅台还能拿吗", "平安夜快乐", "上证指数跌了"]
HOLDING = Holder("600519", "贵州茅台", ("茅台",))


@pytest.fixture
def master(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    yield SecurityMaster(db)
    db.close()


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """Counts the tables built (not loaded) from here on, with no table remembered in process."""
    built: list[int] = []
    build = names._table_for.__wrapped__

    def counted(*args):
        built.append(1)
        return build(*args)

    monkeypatch.setattr(names, "_table_for", counted)
    names._stored_table.cache_clear()
    yield built
    names._stored_table.cache_clear()


def matched(table) -> list:
    return [table.matches(text) for text in TEXTS]


def test_the_next_process_loads_the_same_table(master, tmp_path, builds):
    first = NameSource(master, cache_dir=tmp_path / "cache").table([HOLDING])
    names._stored_table.cache_clear()  # as a new process would start
    loaded = NameSource(master, cache_dir=tmp_path / "cache").table([HOLDING])
    assert builds == [1] and loaded is not first
    assert loaded.names == first.names and loaded.held == first.held == {"600519"}
    assert matched(loaded) == matched(first) == matched(NameSource(master).table([HOLDING]))
    assert any(m for m in matched(loaded))


def test_other_names_or_a_changed_shipped_file_make_another_table(master, tmp_path, builds, monkeypatch):
    cache = tmp_path / "cache"
    NameSource(master, cache_dir=cache).table([HOLDING])
    NameSource(master, cache_dir=cache).table([])  # another holding set
    assert len(builds) == 2 and len(list(cache.glob("names-*.pickle"))) == 2
    names._stored_table.cache_clear()
    shipped = tmp_path / "stock_basic.csv"
    shipped.write_text("symbol,name\n", encoding="utf-8")
    monkeypatch.setattr(names, "_table_files", lambda: (shipped,))
    NameSource(master, cache_dir=cache).table([HOLDING])
    os.utime(shipped, ns=(1, 1))  # the same size, another modification time
    names._stored_table.cache_clear()
    NameSource(master, cache_dir=cache).table([HOLDING])
    assert len(builds) == 4


def test_an_unreadable_file_is_rebuilt_and_an_unwritable_home_still_matches(master, tmp_path, builds):
    cache = tmp_path / "cache"
    NameSource(master, cache_dir=cache).table([HOLDING])
    (stored,) = cache.glob("names-*.pickle")
    stored.write_bytes(b"not a pickle")
    names._stored_table.cache_clear()
    table = NameSource(master, cache_dir=cache).table([HOLDING])
    assert len(builds) == 2 and matched(table)[2]
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the directory would go: nothing can be written there
    names._stored_table.cache_clear()
    assert matched(NameSource(master, cache_dir=blocked / "cache").table([HOLDING])) == matched(table)


def test_a_table_others_could_have_written_is_not_loaded(master, tmp_path, builds):
    cache = tmp_path / "cache"
    NameSource(master, cache_dir=cache).table([HOLDING])
    (stored,) = cache.glob("names-*.pickle")
    stored.chmod(0o666)  # anyone could have replaced it
    names._stored_table.cache_clear()
    NameSource(master, cache_dir=cache).table([HOLDING])
    assert len(builds) == 2
    assert not cache.stat().st_mode & 0o077 and not stored.stat().st_mode & 0o077  # written again, as ours


def test_only_the_newest_tables_are_kept(tmp_path):
    for key in range(name_cache.KEPT + 3):
        name_cache.cached(tmp_path, f"{key:032x}", lambda key=key: key)
        os.utime(tmp_path / f"names-{key:032x}.pickle", ns=(key * 10**9, key * 10**9))
    kept = sorted(p.name for p in tmp_path.glob("names-*.pickle"))
    assert len(kept) == name_cache.KEPT and f"names-{name_cache.KEPT + 2:032x}.pickle" in kept
    assert name_cache.cached(tmp_path, f"{name_cache.KEPT + 2:032x}", lambda: "built again") == name_cache.KEPT + 2


def test_the_commands_keep_tables_in_the_user_cache_shared_by_homes_with_the_same_names(tmp_path):
    """Not in the home: two fresh homes (the same shipped names) use one stored table."""
    from tests.helpers import clean_env, pixiu_in_process

    xdg = tmp_path / "xdg"
    for home in ("one", "two"):
        names._stored_table.cache_clear()  # as a new process would
        env = clean_env(tmp_path / home, XDG_CACHE_HOME=str(xdg))
        done = pixiu_in_process(env, "context", "宁德时代能买吗", text=True)
        assert done.returncode == 0 and "300750" in done.stdout, done.stderr
        assert not (tmp_path / home / "cache").exists()
    assert len(list((xdg / "pixiu" / "names").glob("names-*.pickle"))) == 1


def test_a_stored_table_is_found_without_reading_the_masters_rows_into_objects(master, tmp_path, builds, monkeypatch):
    """The key is a digest of the master's stored rows: a table already stored is loaded
    without turning thousands of securities into objects (a synced master has ~5,500)."""
    from pixiu_cli.market.securities import Security

    master.upsert([Security("300750", "宁德时代", "stock", source="sync")])
    cache = tmp_path / "cache"
    first = NameSource(master, cache_dir=cache).table([HOLDING])
    read: list[str] = []
    for method in ("all", "aliases"):
        original = getattr(SecurityMaster, method)
        monkeypatch.setattr(SecurityMaster, method, lambda self, m=method, f=original: read.append(m) or f(self))
    names._stored_table.cache_clear()
    loaded = NameSource(master, cache_dir=cache).table([HOLDING])
    assert builds == [1] and not read and matched(loaded) == matched(first)
    master.add_alias("宁小宝", "300750")  # a changed master is another key: built again
    names._stored_table.cache_clear()
    changed = NameSource(master, cache_dir=cache).table([HOLDING])
    assert len(builds) == 2 and read == ["all", "aliases"]
    assert changed.matches("宁小宝怎么样") and not first.matches("宁小宝怎么样")


def test_a_preloaded_table_is_taken_without_reading_its_file_and_a_wrong_guess_is_dropped(tmp_path, monkeypatch):
    monkeypatch.setattr(name_cache, "_asked", False)  # as in a new REPL process
    monkeypatch.setattr(name_cache, "_preloaded", {})
    name_cache.cached(tmp_path, "a" * 32, lambda: "older")
    name_cache.cached(tmp_path, "b" * 32, lambda: "newer")
    os.utime(tmp_path / f"names-{'a' * 32}.pickle", ns=(1, 1))
    monkeypatch.setattr(name_cache, "_asked", False)
    name_cache.preload(tmp_path)  # the most recently used one
    (tmp_path / f"names-{'b' * 32}.pickle").write_bytes(b"not read again")
    assert name_cache.cached(tmp_path, "b" * 32, lambda: "built") == "newer"
    monkeypatch.setattr(name_cache, "_asked", False)
    name_cache.preload(tmp_path)  # guesses the unreadable newest: nothing is kept
    assert name_cache.cached(tmp_path, "a" * 32, lambda: "built") == "older"
    name_cache.preload(tmp_path)  # a table was asked for: too late to guess
    assert name_cache.cached(tmp_path, "c" * 32, lambda: "built") == "built"
