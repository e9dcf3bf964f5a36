"""What a `pixiu data import` names: a stock's six digits, or an index benchmark stored under
its exchange-prefixed key (domain/benchmarks.py). Shanghai's index codes are Shenzhen's
stock codes (000001 is 上证指数 and 平安银行), so a bare code an index shares with a stock
is never taken for the index in silence: a known stock is imported as that stock and says
so, an unknown one is refused with the prefixed spelling to use."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pixiu_cli.kernel.codes import normalise_code
from pixiu_cli.kernel.refusal import RequestError
from pixiu_cli.market.index_benchmarks import (
    Benchmark,
    benchmark_list,
    benchmark_spelled,
    benchmark_with_code,
    exchange_spelling,
)
from pixiu_cli.market.store_securities import SecurityMaster

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
    from pixiu_cli.conversation.selection.names import shipped_indexes
    from pixiu_cli.conversation.selection.normalize import fold_width_case

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
    from pixiu_cli.market.security_list import shipped_security_list

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
