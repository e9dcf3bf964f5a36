"""`pixiu data import`: a CSV of daily bars (and optionally its corporate actions) into the
store as unadjusted bars, with provenance, in one transaction. An index benchmark's bars go
under its prefixed key (sh000300), as a sync stores them: no actions, no security-master row."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from pixiu_cli.kernel.clock import system_clock
from pixiu_cli.market.adjust import ADJUST_MODES, unadjust
from pixiu_cli.market.bars import BarSeries, CorporateAction, SeriesWrite
from pixiu_cli.market.boards import board_for
from pixiu_cli.market.csv_source import CsvImportError, bar_columns, check_title, parse_actions, parse_bars, read_text
from pixiu_cli.market.gaps import PriceColumns, SuspectGap, series_gaps
from pixiu_cli.market.gate import action_refusal
from pixiu_cli.market.index_benchmarks import benchmark_for
from pixiu_cli.market.securities import Security
from pixiu_cli.market.store import MarketStore
from pixiu_cli.market.store_securities import SecurityMaster


@dataclass(frozen=True)
class ImportResult:
    """What one file brought in; not its bars (an import of 5,000 files keeps every result)."""

    symbol: str
    rows: int
    first: str
    last: str
    shape: str  # generic | tdx | tushare
    volume_unit: str  # as the file had it: shares | lots
    actions: list[CorporateAction]
    suspects: list[SuspectGap]


def _check_actions_against_prices(actions: list[CorporateAction], series: BarSeries, today: date) -> None:
    """Each action through the gate every source's actions pass, against the file's own bars:
    ¥1,000 on a ¥10 stock, or an ex-date open far from the reference price, is a typo."""
    prices = PriceColumns.of_series(series)
    for action in actions:
        if problem := action_refusal(action, prices, today):
            raise CsvImportError(f"除权除息 {action.ex_date}：{problem.text()}")


def import_csv(
    market: MarketStore,
    master: SecurityMaster,
    path: Path,
    symbol: str,
    *,
    at: str,
    name: str | None = None,
    adjusted: str = "none",
    actions_path: Path | None = None,
    volume_unit: str = "auto",
    today: date | None = None,
) -> ImportResult:
    if adjusted not in ADJUST_MODES:
        raise CsvImportError(f"--adjusted 只能是 none、qfq 或 hfq，而不是 {adjusted!r}")
    index = benchmark_for(symbol)
    if index and (actions_path or adjusted != "none"):
        raise CsvImportError(f"{index.name}是指数，没有除权除息：不用 --actions 或 --adjusted")
    parsed = parse_bars(read_text(path), volume_unit, today=today)
    check_title(parsed, symbol, adjusted)
    actions = (
        parse_actions(read_text(actions_path), symbol, source="import", at=at, today=today) if actions_path else []
    )
    if adjusted != "none" and not actions:
        raise CsvImportError(f"{adjusted} 复权数据需要 --actions 才能还原为不复权价格（pixiu 只存不复权数据）")
    series = replace(parsed.series, symbol=symbol)
    if adjusted != "none":  # adjusted prices are made real bar by bar; plain bars stay columns
        series = replace(bar_columns(unadjust(series.bars(), actions, adjusted)), symbol=symbol)
    _check_actions_against_prices(actions, series, today or system_clock().date())
    suspects = series_gaps(series, actions)
    market.write_series(
        SeriesWrite(
            symbol,
            series,
            source="csv",
            at=at,
            origin=path.name,
            file_adjusted=adjusted,
            volume_unit=parsed.volume_unit,
            actions=actions,
            replace_actions_from="import" if actions_path else None,
        )
    )
    if name and not index:  # an index is named by domain/benchmarks.py, never a stock's row
        master.upsert(
            [Security(symbol, name, board=board_for(symbol), is_st=series.is_st[-1], source="csv", updated_at=at)],
            keep_names=True,
        )
    first, last = series.dates[0], series.dates[-1]
    return ImportResult(symbol, len(series), first, last, parsed.shape, parsed.volume_unit, actions, suspects)
