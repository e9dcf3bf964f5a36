"""How a market-data source is picked by name. Network sources are optional extras, imported
only when used; tests feed their native shapes offline."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `pixiu --help` lists SOURCE_NAMES; the sources load when one is opened
    from pixiu_cli.market.sources import PriceSource

SOURCE_NAMES = ("baostock", "akshare")


def open_source(name: str, timeout: float = 20.0) -> PriceSource:
    if name == "baostock":
        from pixiu_cli.market.baostock_source import BaostockSource

        return BaostockSource(timeout=timeout)
    if name == "akshare":
        from pixiu_cli.market.akshare_source import AkshareSource

        return AkshareSource(timeout=timeout)
    from pixiu_cli.market.sources import SourceError

    raise SourceError(f"未知数据源 {name!r}（可选：{'、'.join(SOURCE_NAMES)}）")
