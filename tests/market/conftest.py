"""A real SQLite file per test and the real histories in tests/fixtures/market/ (provenance
in its README). Tests marked `live` touch the network and run only with PIXIU_LIVE_TESTS=1."""

from __future__ import annotations

import os

import pytest

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.store import MarketStore


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
