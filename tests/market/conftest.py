"""A real SQLite file per test and the real histories in tests/fixtures/market/ (provenance
in its README). Tests marked `live` touch the network and run only with PIXIU_LIVE_TESTS=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pixiu_cli.market.importer import import_csv
from pixiu_cli.store.database import open_database
from pixiu_cli.store.market import MarketStore
from pixiu_cli.store.securities import SecurityMaster

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "market"
AT = "2026-11-30T16:00:00+08:00"


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PIXIU_LIVE_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="network test: set PIXIU_LIVE_TESTS=1 to run")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "pixiu.db")
    yield database
    database.close()


@pytest.fixture
def market(db) -> MarketStore:
    return MarketStore(db)


def load(db, code: str, *, actions: bool = True, path: Path | None = None, **kw):
    action_file = FIXTURES / f"{code}_actions.csv"
    return import_csv(MarketStore(db), SecurityMaster(db), path or FIXTURES / f"{code}.csv", code, at=AT,
                      actions_path=action_file if actions and action_file.exists() else None, **kw)
