from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.securities import Security
from pixiu_cli.market.store import SecurityMaster


def test_upsert_aliases_and_version(tmp_path):
    master = SecurityMaster(open_database(tmp_path / "p.db"))
    v0 = master.version()
    master.upsert(
        [Security("000333", "美的集团", board="main", source="sync"), Security("000300", "沪深300", kind="index")]
    )
    assert master.version() > v0
    assert master.get("000300").kind == "index"
    master.upsert([Security("000333", "美的", source="import")], keep_names=True)
    kept = master.get("000333")
    assert (kept.name, kept.board, kept.source) == ("美的集团", "main", "import")
    master.add_alias("宁王", "300750", at="2026-11-30T09:00:00+08:00")
    assert [(a.alias, a.symbol, a.source) for a in master.aliases()] == [("宁王", "300750", "user")]
    assert master.remove_alias("宁王") and not master.remove_alias("宁王")
    assert master.aliases() == []
