"""The early migrations build exactly the schema they always built: a refactor of a
migration function must not change a single table, column or index."""

from __future__ import annotations

from pathlib import Path

from sqlite_utils import Database

from pixiu_cli.kernel.store.schema import migrations

# Dumped from a database migrated by the code before the migration functions were split.
EXPECTED = Path(__file__).resolve().parents[1] / "fixtures" / "schema" / "through_m011.txt"


def dump_schema(db: Database) -> str:
    rows = db.execute(
        "select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name"
    ).fetchall()
    return "".join("|".join((kind, name, sql)) + "\n" for kind, name, sql in rows)


def test_migrations_through_m011_build_the_recorded_schema():
    db = Database(memory=True)
    migrations.apply(db, stop_before="m010_memory_undo")  # the first migration after m011
    assert dump_schema(db) == EXPECTED.read_text(encoding="utf-8")
