"""`pixiu data import`: a CSV of daily bars (and optionally its corporate actions) into the
store as unadjusted bars, with provenance, in one transaction. An index benchmark's bars go
under its prefixed key (sh000300), as a sync stores them: no actions, no security-master row.

What a `pixiu data import` names: a stock's six digits, or an index benchmark stored under
its exchange-prefixed key (domain/benchmarks.py). Shanghai's index codes are Shenzhen's
stock codes (000001 is 上证指数 and 平安银行), so a bare code an index shares with a stock
is never taken for the index in silence: a known stock is imported as that stock and says
so, an unknown one is refused with the prefixed spelling to use."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from pixiu_cli.kernel.clock import system_clock
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import normalise_code
from pixiu_cli.market.bars import (
    ADJUST_MODES,
    BarSeries,
    Benchmark,
    CorporateAction,
    PriceColumns,
    SeriesWrite,
    SuspectGap,
    benchmark_for,
    benchmark_list,
    benchmark_spelled,
    benchmark_with_code,
    exchange_spelling,
    series_gaps,
    unadjust,
)
from pixiu_cli.market.csv_source import CsvImportError, bar_columns, check_title, parse_actions, parse_bars, read_text
from pixiu_cli.market.gate import action_refusal
from pixiu_cli.market.securities import Security, board_for, shipped_security_list
from pixiu_cli.market.store import MarketStore, SecurityMaster


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


# a code in a file's name: SH600519_茅台, SZ#000001 (通达信), 000300.SH, or six digits alone
_PREFIXED_IN_NAME = re.compile(r"(?<![a-z0-9])(?:(sh|sz|bj)[#._]?(\d{6})|(\d{6})\.(sh|sz|bj))(?![0-9])", re.I)
_CODE_IN_NAME = re.compile(r"(?<!\d)(\d{6})(?!\d)")


@dataclass(frozen=True)
class BareCode:
    """What was decided about a bare code an index shares (views/sync.py says it)."""

    code: str
    index: Benchmark
    stock: str | None = None  # the stock's name when the code was read as that stock


@dataclass(frozen=True)
class ImportSymbol:
    symbol: str  # what the bars are stored under: six digits, or an index's key (sh000300)
    index: Benchmark | None = None
    decided: BareCode | None = None  # set for a bare code an index shares


def spelled_benchmark(raw: str) -> Benchmark | None:
    """The benchmark a user's spelling names: sh000300, 000300.SH, 沪深300 or another of the
    shipped index names (沪深300指数, 上证综指, 创业板指数)."""
    return benchmark_spelled(raw) or _named_index(raw)[1]


def _named_index(raw: str) -> tuple[str | None, Benchmark | None]:
    """(its code, its benchmark) when `raw` is a shipped index name; the benchmark is None for
    an index pixiu does not measure against (中证500)."""
    from pixiu_cli.market.names.codes import fold_width_case
    from pixiu_cli.market.names.table import shipped_indexes

    wanted = fold_width_case(raw.strip())
    for code, names in shipped_indexes().items():
        if wanted in (fold_width_case(n) for n in names):
            return code, benchmark_with_code(code)
    return None, None


def import_symbol(master: SecurityMaster, raw: str) -> ImportSymbol:
    """The stored symbol `raw` names; RequestError (one line) when it names none, or names
    an index pixiu keeps no benchmark of, or is a bare code that may be a stock or an index."""
    if index := benchmark_spelled(raw):
        return ImportSymbol(index.key, index)
    if spelled := exchange_spelling(raw):
        return ImportSymbol(_listed_there(raw, *spelled))
    code = normalise_code(raw)
    if code is None:
        named, index = _named_index(raw)
        if index:
            return ImportSymbol(index.key, index)
        if named:
            raise RequestError(f"{raw.strip()} 不是可导入的基准指数；可导入：{benchmark_list()}")
        raise RequestError(f"股票代码应为 6 位数字（指数写作 sh000300），而不是 {raw!r}")
    index = benchmark_with_code(code)
    if index is None:
        return ImportSymbol(code)
    if not index.shares_stock_codes:
        return ImportSymbol(index.key, index, BareCode(code, index))
    stock = _stock_name(master, code)
    if stock:
        return ImportSymbol(code, None, BareCode(code, index, stock))
    raise RequestError(
        f"{code} 可能是{index.name}指数，也可能是深市股票：指数请用 --symbol {index.key}，股票请用 --symbol sz{code}"
    )


def _listed_there(raw: str, exchange: str, code: str) -> str:
    """The stock `sz000001` names, when its code is one of that exchange's stock codes."""
    from pixiu_cli.market.sources import exchange_code

    if exchange_code(code) != exchange:
        raise RequestError(f"{raw.strip()} 不是股票代码，也不是可导入的基准指数；可导入：{benchmark_list()}")
    return code


def _stock_name(master: SecurityMaster, code: str) -> str | None:
    """The stock's name, from the security master or the shipped list of listed stocks."""

    known = master.get(code)
    if known and known.kind == "stock":
        return known.name
    listed = shipped_security_list().get(code)
    return listed.full_name if listed else None


def spelling_in_name(path: Path) -> str | None:
    """The code a file is named after, with its exchange when the name has it
    (600519.csv, SH600519_茅台.txt, SH#000300.txt, 000300.SH.csv), or the benchmark whose
    name it is (沪深300.csv); None when the name holds neither."""
    if found := _PREFIXED_IN_NAME.search(path.stem):
        exchange, code, suffixed, suffix = found.groups()
        return (f"{exchange}{code}" if exchange else f"{suffix}{suffixed}").lower()
    if found := _CODE_IN_NAME.search(path.stem):
        return found.group(1)
    index = spelled_benchmark(path.stem)
    return index.key if index else None
