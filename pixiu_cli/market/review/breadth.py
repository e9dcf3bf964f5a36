"""The market review (`pixiu market`, `/market`, the context's 市场概况, the brief's first
facts): the index benchmarks' last closes and moves from their stored bars, the newest
stored whole-market session (breadth and industry boards), and the series that are no
longer published (data/market/discontinued.toml), each with its date and source.

The whole market on one session, from akshare (the `akshare` extra): Eastmoney's snapshot
of every listed A share `stock_zh_a_spot_em()` (代码, 名称, 最新价, 昨收, 成交额 in yuan, …;
NaN prices for a stock without a trade) and its industry boards `stock_board_industry_name_em()`
(板块名称, 板块代码, 涨跌幅 in percent, 上涨家数, 下跌家数, 领涨股票, 领涨股票-涨跌幅).
baostock has no whole-market snapshot (its k-data is one stock a query).

The snapshot is what the source shows when asked: during a session it is intraday and said
so; after the close it is that session's close; before the open, the previous session's."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from pixiu_cli.account.ledger import dec
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.akshare_source import AkshareSource
from pixiu_cli.market.bars import BENCHMARKS
from pixiu_cli.market.calendar import last_complete_session
from pixiu_cli.market.fundamentals.akshare_source import akshare_decimal, akshare_rate
from pixiu_cli.market.gate import WHOLE_MARKET, Refusal, screen_snapshot, spot_problem
from pixiu_cli.market.review.model import Discontinued, IndexMove, IndustryMove, Snapshot, SpotRow, breadth_of
from pixiu_cli.market.sources import SourceError
from pixiu_cli.market.store import MarketStore
from pixiu_cli.market.trading_days import MARKET_CLOSE, as_shanghai, is_trading_day, knows

if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market

SHOWN_INDUSTRIES = 3


@dataclass(frozen=True)
class MarketReview:
    today: str
    indexes: tuple[IndexMove, ...]
    missing: tuple[str, ...]  # benchmarks without stored bars, by name
    snapshot: Snapshot | None
    discontinued: tuple[Discontinued, ...]

    @property
    def empty(self) -> bool:
        return not self.indexes and self.snapshot is None

    def _ranked(self) -> list[IndustryMove]:
        """The boards with a move, strongest first."""
        ranked = [i for i in self.snapshot.industries if i.change is not None] if self.snapshot else []
        return sorted(ranked, key=lambda i: -i.change)

    def strongest(self, n: int = SHOWN_INDUSTRIES) -> tuple[IndustryMove, ...]:
        """The top n, or the top half of fewer than 2n boards (a board is never both)."""
        ranked = self._ranked()
        return tuple(ranked[: min(n, (len(ranked) + 1) // 2)])

    def weakest(self, n: int = SHOWN_INDUSTRIES) -> tuple[IndustryMove, ...]:
        ranked = self._ranked()
        rest = ranked[len(self.strongest(n)) :]
        return tuple(reversed(rest[-n:])) if rest else ()


@cache
def discontinued_series() -> tuple[Discontinued, ...]:
    data = tomllib.loads((data_dir() / "market" / "discontinued.toml").read_text(encoding="utf-8"))
    return tuple(Discontinued(s["name"], s["since"], s["note"]) for s in data.get("series", []))


def _index_moves(market: MarketStore, today: str) -> tuple[list[IndexMove], list[str]]:
    moves, missing = [], []
    closes = market.last_closes([b.key for b in BENCHMARKS])
    for b in BENCHMARKS:
        if b.key not in closes:
            missing.append(b.name)
            continue
        day, close = closes[b.key]
        before = market.close_before(b.key, day)
        moves.append(
            IndexMove(
                b.key,
                b.name,
                day,
                dec(close),
                before[0] if before else None,
                dec(before[1]) if before else None,
                market.source(b.key),
            )
        )
    return moves, missing


def market_review(market: Market, now: datetime) -> MarketReview:
    today = as_shanghai(now).date().isoformat()
    moves, missing = _index_moves(market.bars, today)
    snapshot = market.review.latest(today)
    gone = tuple(d for d in discontinued_series() if d.since <= today)
    return MarketReview(today, tuple(moves), tuple(missing), snapshot, gone)


NAME = "akshare"
SPOT_PROVIDER = "akshare.stock_zh_a_spot_em"
# Fewer priced stocks than this is a page lost on the way (about 5,400 are listed), not the market.
MIN_STOCKS = 1000
_OPEN = (9, 30)


def snapshot_session(now: datetime) -> tuple[str, bool]:
    """The session a snapshot taken at `now` describes, and whether it had closed."""
    local = as_shanghai(now)
    today = local.date()
    if knows(today) and is_trading_day(today) and (local.hour, local.minute) >= _OPEN:
        return today.isoformat(), local.time() >= MARKET_CLOSE
    return last_complete_session(now).isoformat(), True


def _text(value) -> str:
    return "" if value is None or value != value else str(value).strip()


class AkshareMarket:
    name = NAME

    def __init__(self, timeout: float = 30.0, module=None):
        self._source = AkshareSource(timeout=timeout, module=module)

    def snapshot(self, now: datetime) -> Snapshot:
        session, closed = snapshot_session(now)
        taken = as_shanghai(now).isoformat(timespec="seconds")
        spot = self._source._call("全市场行情", lambda ak: ak.stock_zh_a_spot_em())
        rows, refused = _spot_rows(spot.to_dict("records"), session)
        breadth = breadth_of(rows, session, taken, SPOT_PROVIDER, closed)
        if breadth.stocks < MIN_STOCKS:
            raise SourceError(f"akshare 全市场行情只返回了 {breadth.stocks} 只有价格的股票，数据不完整")
        boards = self._source._call("行业板块", lambda ak: ak.stock_board_industry_name_em())
        industries = tuple(
            IndustryMove(
                session,
                _text(r.get("板块代码")),
                _text(r.get("板块名称")),
                akshare_rate(r.get("涨跌幅")),
                _count(r.get("上涨家数")),
                _count(r.get("下跌家数")),
                _text(r.get("领涨股票")) or None,
                akshare_rate(r.get("领涨股票-涨跌幅")),
                "akshare.stock_board_industry_name_em",
                taken,
            )
            for r in boards.to_dict("records")
            if _text(r.get("板块代码"))
        )
        snapshot, gated = screen_snapshot(Snapshot(breadth, industries), NAME)
        if gated and gated[0].symbol == WHOLE_MARKET:
            raise SourceError(gated[0].problem.text())
        return replace(snapshot, refused=tuple(r.line() for r in refused + gated))

    def close(self) -> None:
        pass


def _spot_rows(records: list[dict], session: str) -> tuple[list[SpotRow], list[Refusal]]:
    """The snapshot's stocks, each through the plausibility gate: a price or an amount no
    A-share could have leaves the stock out of the counts, said so."""
    rows, refused = [], []
    for r in records:
        code = _text(r.get("代码"))
        if not code:
            continue
        row = SpotRow(
            code, _text(r.get("名称")), akshare_decimal(r.get("最新价")), akshare_decimal(r.get("昨收")),
            akshare_decimal(r.get("成交额")),
        )  # fmt: skip
        if problem := spot_problem(row.price, row.previous_close, row.amount):
            refused.append(Refusal(NAME, code, session, problem))
        else:
            rows.append(row)
    return rows, refused


def _count(value) -> int | None:
    parsed = akshare_decimal(value)
    return int(parsed) if parsed is not None else None
