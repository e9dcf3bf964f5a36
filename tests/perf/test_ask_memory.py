"""What a one-shot `pixiu ask` holds in memory for its own data, bounded: the name table loaded
from the cache (one string and arrays behind an int automaton: ~1 MiB, where the dict of
Name objects was ~4 MiB), the kept patterns' opcodes (bytes, not lists of ints), a stock the
master lacks named without the ~11,000 shipped rows as objects, and the tokenizer's merge
tables searched where they were read (no copies). Measured with tracemalloc, after the
modules are imported, so only the data counts."""

from __future__ import annotations

import tracemalloc

from pixiu_cli.conversation.tokenizer import bpe
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market import securities
from pixiu_cli.market.names import cache as name_cache
from pixiu_cli.market.names import rules
from pixiu_cli.market.names import table as names
from pixiu_cli.market.names.table import Holder, NameSource
from pixiu_cli.market.security_master import security_name
from pixiu_cli.market.store import SecurityMaster

MiB = 1 << 20
TEXTS = ["宁德时代能买吗", "寧德時代怎麼樣", "茅台还能拿吗", "平安夜快乐", "上证指数跌了", "sxmy和落阳钼业"]


def traced(load) -> tuple[object, int]:
    """What `load()` returns and the bytes it left allocated."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = load()
        return value, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_a_stored_name_table_loads_into_little_memory_and_matches_as_built(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    try:
        holder = Holder("603993", "洛阳钼业", ("洛钼",))
        built = NameSource(SecurityMaster(db), cache_dir=tmp_path / "cache").table([holder])
        (stored,) = (tmp_path / "cache").glob("names-*.pickle")
        loaded, size = traced(lambda: name_cache._load(stored))
        assert len(loaded.names) > 8_000  # every listed stock's names
        assert size < 1.5 * MiB, f"{size / MiB:.2f} MiB"
        assert [loaded.matches(t) for t in TEXTS] == [built.matches(t) for t in TEXTS]
        assert any(m.name.form == names.HOMOPHONE for m in loaded.matches("落阳钼业"))
        assert loaded.names == built.names and loaded.held == built.held == {"603993"}
        assert "600519" in loaded.symbols_named and "6005" not in loaded.symbols_named
        assert loaded.stocks_named("茅台") == built.stocks_named("茅台")
    finally:
        db.close()
        names._stored_table.cache_clear()


def test_a_stock_the_master_lacks_is_named_without_the_shipped_rows(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    try:
        securities.shipped_names.cache_clear()
        assert security_name(SecurityMaster(db), "600519") == "贵州茅台"
        assert securities.shipped_names.cache_info().currsize == 0
    finally:
        db.close()
    every = {stock.code: stock.full_name for stock in securities.shipped_names()}
    assert all(securities.shipped_name(code) == name for code, name in every.items())
    assert securities.shipped_name("999999") is None and securities.shipped_name("60051") is None


def test_kept_patterns_hold_their_opcodes_as_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(rules, "_stored", None)
    monkeypatch.setattr(rules, "_used", {})
    monkeypatch.setattr(rules, "_new", {})
    monkeypatch.setattr(rules, "_dirty", False)
    alternation = "|".join(f"词{i}语{i * 7}" for i in range(3000))
    rules.compiled(alternation)
    rules.save()
    monkeypatch.setattr(rules, "_stored", None)
    entries, size = traced(rules._load)
    assert all(type(entry[1]) is bytes for entry in entries.values())
    opcodes = sum(len(entry[1]) for entry in entries.values())
    assert size < 2 * opcodes + 256 * 1024, f"{size} bytes held for {opcodes} bytes of opcodes"
    assert rules.compiled(alternation).search("这是词2999语20993吗")


def test_the_tokenizer_tables_are_searched_where_they_were_read(tmp_path):
    import regex  # noqa: F401 - the module itself is not the tables' memory

    from pixiu_cli.conversation.tokenizer import counts

    cache = tmp_path / "cache"
    bpe.load_tables(counts.tokenizer_file(), cache)  # built from the JSON and kept
    tables, size = traced(lambda: bpe.load_tables(counts.tokenizer_file(), cache))
    assert len(tables.pairs) > 500_000  # the merges' array, 8 bytes each
    assert size < 512 * 1024, f"{size / MiB:.2f} MiB"  # the arrays are the file's pages, not copies
    encoder, size = traced(lambda: bpe.ByteLevelBPE(tables))
    assert size < 512 * 1024, f"{size / MiB:.2f} MiB"
    assert encoder.encode("茅台最近怎么样") == counts.encode("茅台最近怎么样")
