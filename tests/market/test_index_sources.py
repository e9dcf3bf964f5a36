"""The index benchmarks through each source: baostock is asked for `sh.000001` (上证指数)
with the fields an index has, never `sz.000001` (平安银行); akshare's Sina index endpoint gets
the prefixed code; an index has no corporate actions to ask for."""

from __future__ import annotations

from types import SimpleNamespace

from pixiu_cli.market.akshare_source import AkshareSource
from pixiu_cli.market.baostock_source import BAR_FIELDS, INDEX_FIELDS, BaostockSource
from tests.helpers import ResultData


class _Baostock:
    def __init__(self):
        self.asked = []

    def login(self):
        return SimpleNamespace(error_code="0", error_msg="success")

    def logout(self):
        return SimpleNamespace(error_code="0")

    def query_history_k_data_plus(self, code, fields, start_date, end_date, frequency, adjustflag):
        self.asked.append((code, fields))
        values = {"date": "2025-05-30", "open": "3363.41", "high": "3363.41", "low": "3337.42", "close": "3347.49"}
        values.update(volume="40000000000", amount="480000000000", tradestatus="1", isST="0")
        return ResultData(fields.split(","), [[values[f] for f in fields.split(",")]])

    def query_adjust_factor(self, code, start_date, end_date):
        self.asked.append((code, "factor"))
        return ResultData(["code", "dividOperateDate", "foreAdjustFactor", "backAdjustFactor", "adjustFactor"], [])


def test_baostock_asks_for_the_index_by_its_exchange_and_its_own_fields():
    fake = _Baostock()
    source = BaostockSource(timeout=5, module=fake)
    index = source.daily_bars("sh000001", "2025-05-30", "2025-05-30")
    stock = source.daily_bars("000001", "2025-05-30", "2025-05-30")
    assert fake.asked == [("sh.000001", INDEX_FIELDS), ("sz.000001", BAR_FIELDS)]
    assert [(b.date, b.close) for b in index] == [("2025-05-30", 3347.49)] and len(stock) == 1
    assert source.actions("sz399006", "2015-01-01", "2025-05-30") == []
    assert fake.asked[-1] == ("sz.000001", BAR_FIELDS)  # no dividend or factor query for an index


def test_akshare_reads_the_sina_index_endpoint_with_the_prefixed_code():
    import pandas as pd

    asked = []

    def stock_zh_index_daily(symbol):
        asked.append(symbol)
        frame = pd.DataFrame(
            {
                "date": ["2025-05-28", "2025-05-29", "2025-05-30"],
                "open": [2030.1, 2041.0, 2035.5],
                "high": [2044.0, 2052.3, 2040.0],
                "low": [2025.2, 2033.1, 2015.7],
                "close": [2040.3, 2048.9, 2021.5],
                "volume": [3.1e10, 3.3e10, 3.0e10],
            }
        )
        frame["date"] = pd.to_datetime(frame["date"], errors="coerce").dt.date  # as akshare converts it
        return frame

    source = AkshareSource(timeout=60, module=SimpleNamespace(stock_zh_index_daily=stock_zh_index_daily))
    bars = source.daily_bars("sz399006", "2025-05-29", "2025-05-30")
    assert asked == ["sz399006"]
    assert [(b.date, b.close) for b in bars] == [("2025-05-29", 2048.9), ("2025-05-30", 2021.5)]
    assert source.actions("sz399006", "2015-01-01", "2025-05-30") == []
