"""Synthetic bars with results worked out by hand, and the real histories in
tests/fixtures/market/ (provenance in its README)."""

from __future__ import annotations

import pytest

from pixiu_cli.market.analytics.costs import CostModel
from tests.helpers import NO_COSTS


@pytest.fixture
def no_costs() -> CostModel:
    return NO_COSTS


@pytest.fixture
def db(tmp_path):
    from pixiu_cli.kernel.store.database import open_database

    database = open_database(tmp_path / "pixiu.db")
    yield database
    database.close()
