"""A stock named on the command line: a code in any spelling (600519, sh600519, 600519.SH,
６００５１９), or a name, short name or alias (贵州茅台, 茅台, 宁王) through the one name matcher
the conversation uses. An ambiguous name is one line listing the candidates."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import normalise_code

if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market


def resolve_stock(market: Market, typed: str, names_cache: Path | None = None) -> str:
    code = normalise_code(typed)
    if code is not None:
        return code
    if unicodedata.normalize("NFKC", typed).strip().isdigit():  # a code mistyped, not a name
        raise RequestError(f"股票代码应为 6 位数字，而不是 {typed!r}")
    from pixiu_cli.market.names.table import NameSource

    table = NameSource(market.securities, cache_dir=names_cache).table(market.investor.holdings())
    found = table.stocks_named(typed) if typed.strip() else []
    if len(found) == 1:
        return found[0][0]
    if not found:
        raise RequestError(f"找不到股票 {typed!r}：请输入 6 位代码、名称、简称或别名")
    listed = "、".join(f"{symbol} {name}" for symbol, name in found)
    raise RequestError(f"{typed} 可能是：{listed}；请用代码或更完整的名称")
