"""Alert rules across the real ex-rights day of 000001 (2016-06-16: 每 10 股派 1.53 元送 2 股,
close 10.44 → open 8.57), imported whole and in two parts as a daily sync does."""

from __future__ import annotations

from datetime import datetime

import pytest

from pixiu_cli.home.document_file import parse_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.market.analytics.refresh import refresh
from pixiu_cli.market.analytics.store import AnalyticsStore
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.handle import Market
from tests.helpers import load, truncated_history

NOW = datetime(2022, 6, 2, 16, 0, tzinfo=SHANGHAI)
HOLDING = {
    "holdings": [
        {
            "symbol": "000001",
            "name": "平安银行",
            "shares": 1000,
            "cost": 10.5,
            "role": "core",
            "updated_at": "2016-06-01T15:00:00+08:00",
        }
    ]
}


def _fired(db, kind, threshold, parts, created="2016-06-01"):
    InvestorStore(db).replace_all(parse_document(HOLDING, NOW))
    AnalyticsStore(db).add_rule(
        symbol="000001", kind=kind, threshold=threshold, created_at=f"{created}T16:00:00+08:00", source="手动"
    )
    for path in parts:
        load(db, "000001", path=path)
        refresh(Market(db), ["000001"], NOW)
    return [(a.bar_date, a.message) for a in AnalyticsStore(db).unseen_alerts()]


@pytest.mark.parametrize("created", ["2016-06-01", "2016-06-20"])
@pytest.mark.parametrize("split", [None, "2016-06-20", "2016-06-16", "2016-06-15"])
def test_drawdown_from_cost_sees_the_ex_rights_before_an_incremental_frame(db, tmp_path, split, created):
    # bought at 10.5 on 2016-06-01; after 送 2 股 the cost is (10.5 − 0.153) / 1.2 = 8.62, and
    # the position never fell 10% below it in 2016 (the checked frame may start after 06-16)
    parts = [None] if split is None else [truncated_history(tmp_path, "000001", split), None]
    fired = _fired(db, "drawdown_from_cost", 10, parts, created)
    assert not any(day.startswith("2016") for day, _ in fired), fired


@pytest.mark.parametrize("split", [None, "2016-06-15"])
def test_a_price_line_is_not_crossed_by_an_ex_rights_gap(db, tmp_path, split):
    parts = [None] if split is None else [truncated_history(tmp_path, "000001", split), None]
    fired = _fired(db, "below", 9, parts)
    assert "2016-06-16" not in [day for day, _ in fired]  # 8.57 on a −0.03% day: no cross
