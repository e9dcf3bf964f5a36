"""The investor's account as one view: `read_account` gathers the ledger, the stated
holdings, the corporate actions, the closes and the cash, and the domain derives and values
it once (domain/ledger.py, domain/valuation.py). `pixiu holdings`, `/holdings`, the context
block, the brief, the tools and the evals all show that one result."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple

from pixiu_cli.account.ledger import (
    Position,
    StatedLot,
    cash_after,
    checkpointed,
    combined_position,
    dec,
    position,
    resume_fills_from,
)
from pixiu_cli.account.model import (
    BUY,
    DIVIDEND,
    KIND_NAMES,
    MANUAL,
    ORIGIN_NAMES,
    SELL,
    STATEMENT,
    CashBalance,
    Fill,
    opening_balance,
)
from pixiu_cli.account.store import set_position
from pixiu_cli.account.valuation import (
    AccountCash,
    AccountView,
    Close,
    account_cash,
    applied_dividends,
    combined_cash,
    value_account,
)
from pixiu_cli.home.model import LEDGER, STATED, Holding
from pixiu_cli.kernel.clock import DateWordsError, day_label, parse_date_words
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import write_transaction
from pixiu_cli.kernel.store.rows import SkippedRow
from pixiu_cli.kernel.vocabulary import is_finite_number
from pixiu_cli.market.calendar import TradingCalendar, beyond_calendar
from pixiu_cli.market.plausible import dividend_problem, money_problem, price_problem, shares_problem
from pixiu_cli.market.security_master import security_name
from pixiu_cli.market.trading_days import (
    CalendarEnd,
    as_shanghai,
    holiday_name,
    is_trading_day,
    knows,
    next_trading_day,
    previous_trading_day,
    trading_calendar,
)
from pixiu_cli.memory.model import decision_ref

if TYPE_CHECKING:
    from pixiu_cli.account.books import AccountBooks


def stated_lots(holdings: list[Holding]) -> dict[str, StatedLot]:
    """The holdings the user or a document stated (not made by the ledger): each a lot at its
    cost on the day it was stated."""
    lots = {}
    for h in holdings:
        if h.basis != STATED or not is_finite_number(h.shares) or not is_finite_number(h.cost):
            continue
        if shares_problem(h.shares) or price_problem(h.cost):  # past any holding: not a lot to count
            continue
        if h.shares > 0 and h.cost > 0:
            lots[h.symbol] = StatedLot(h.symbol, dec(h.shares), dec(h.cost), (h.updated_at or "")[:10])
    return lots


def derive_positions(
    account: AccountBooks,
    now: datetime,
    symbols: list[str] | None = None,
    day: str | None = None,
    *,
    fills: list[Fill] | None = None,
    skipped: list[SkippedRow] | None = None,
) -> dict[str, Position]:
    """Every stock's position from the ledger, the stated holdings and the stored corporate
    actions up to today (or the stock's last close: its price is from before a later
    ex-date). `day`: the positions at that day's close instead (later events left out);
    `fills`: the ledger when the caller has already read it; `skipped` (a read): the stored
    rows no figure can be made from are left out and added to it (a write refuses them). The
    books of several accounts: each account's positions, one line a stock (`_across`)."""

    if names := account.several():
        default = names[0]
        return _across(
            account,
            names,
            lambda books: derive_positions(
                books,
                now,
                symbols,
                day,
                fills=None
                if fills is None
                else [f for f in fills if (f.broker_account or default) == books.broker_account],
                skipped=skipped,
            ),
        )
    holdings = account.home.investor.holdings() if account.holds_stated() else []
    lots = {s: lot for s, lot in stated_lots(holdings).items() if day is None or lot.day <= day}
    if fills is None and day is None:
        return _from_checkpoints(account, now, symbols, lots, skipped)
    store = account.store
    if fills is not None:
        ledger = fills
    elif symbols is None:
        ledger = store.fills(skipped=skipped)
    else:  # the named stocks' fills only: one indexed read each, not the whole ledger
        ledger = [f for s in symbols for f in store.fills(s, skipped=skipped)]
    fills = [f for f in ledger if day is None or f.day <= day]
    wanted = sorted({f.symbol for f in fills if f.symbol} | set(lots)) if symbols is None else symbols
    market = account.market.bars
    closes = market.last_closes(wanted)
    actions = market.actions_for(wanted, skipped)
    today = day or now.date().isoformat()
    by_symbol: dict[str, list[Fill]] = {}
    for f in fills:
        if f.symbol in wanted:
            by_symbol.setdefault(f.symbol, []).append(f)
    out = {}
    for s in wanted:
        if s in by_symbol or s in lots:
            until = min(closes[s][0], today) if s in closes else today
            out[s] = position(s, by_symbol.get(s, []), lot=lots.get(s), actions=actions.get(s, ()), until=until)
    return out


def trade_price_refusal(account: AccountBooks, symbol: str, day: str, price: float, bars=None) -> str | None:
    """A trade's price far from the stock's stored bars around its day (None: believable, or
    no bars stored there). `bars`: the stock's stored series when the caller has read it."""
    from pixiu_cli.market.gate import fill_refusal, fill_window

    if bars is None:
        bars = account.market.bars.bars(symbol, *fill_window(day))
    return fill_refusal(bars, day, price)


def dividend_refusal(
    account: AccountBooks, fill: Fill, now: datetime, ledger: Sequence[Fill] | None = None
) -> str | None:
    """A dividend that comes to more a share than the stock's price, for the shares held at
    the close before its day (by the stored ledger, or `ledger` when the caller has one)."""

    before = (date.fromisoformat(fill.day) - timedelta(days=1)).isoformat()
    held = derive_positions(account, now, [fill.symbol], before, fills=None if ledger is None else list(ledger)).get(
        fill.symbol
    )
    close = account.market.bars.close_before(fill.symbol, fill.day)
    return dividend_problem(float(fill.amount), float(held.shares) if held else None, close[1] if close else None)


class FillRefusal(NamedTuple):
    """A new fill no account could have, against what is stored: the fill, and why."""

    fill: Fill
    problem: str


class FillGate:
    """New fills checked against what is stored as they arrive (a statement a day at a time):
    a trade's price against its stock's stored bars (each stock's read once), and, once the
    fills are written, each dividend against the shares held the day before."""

    def __init__(self, account: AccountBooks, now: datetime):
        self.account, self.now = account, now
        self.series: dict = {}
        self.dividends: list[Fill] = []

    def see(self, fills: Sequence[Fill]) -> FillRefusal | None:

        for f in fills:
            if f.symbol is None or not is_finite_number(f.price) or not is_finite_number(f.amount):
                continue
            if f.kind == DIVIDEND:
                self.dividends.append(f)
            elif f.kind in (BUY, SELL) and f.price:
                if f.symbol not in self.series:
                    self.series[f.symbol] = self.account.market.bars.bars(f.symbol)
                bars = self.series[f.symbol]
                if len(bars) and (problem := trade_price_refusal(self.account, f.symbol, f.day, float(f.price), bars)):
                    return FillRefusal(f, problem)
        return None

    def settle(self, ledger: Sequence[Fill] | None = None) -> FillRefusal | None:
        """The dividends seen, against the stored ledger (or `ledger`), each stock's read once."""
        by_symbol: dict[str, list[Fill]] = {}
        for f in self.dividends:
            if f.symbol not in by_symbol:
                held = self.account.store.fills(f.symbol) if ledger is None else ledger
                by_symbol[f.symbol] = [g for g in held if g.symbol == f.symbol]
            if problem := dividend_refusal(self.account, f, self.now, by_symbol[f.symbol]):
                return FillRefusal(f, problem)
        return None


def fills_refusal(
    account: AccountBooks, fills: Sequence[Fill], now: datetime, ledger: Sequence[Fill]
) -> FillRefusal | None:
    """The first of `fills` not believable against what is stored and `ledger` (the fills
    their dividends are held by)."""
    gate = FillGate(account, now)
    return gate.see(fills) or gate.settle(ledger)


def ledger_rows_refusal(account: AccountBooks, rows: Sequence[dict], now: datetime) -> str | None:
    """A document's fills (rows by column name, `pixiu import`) checked as a statement's: a
    trade's price against the stock's stored bars, a dividend against the shares the stored
    ledger and the document's own fills hold the day before; the row named by its place."""

    fills = [_document_fill(row) for row in rows]
    ids = {f.fill_id for f in fills}
    symbols = sorted({f.symbol for f in fills if f.kind == DIVIDEND and f.symbol})  # read only for a dividend
    stored = [f for s in symbols for f in account.store.fills(s) if f.fill_id not in ids]
    refused = fills_refusal(account, fills, now, sorted(stored + fills, key=lambda f: (f.day, f.time or "")))
    if refused is None:
        return None
    field = "amount" if refused.fill.kind == DIVIDEND else "price"
    return f"account.fills[{fills.index(refused.fill)}].{field}：{refused.problem}"


def _document_fill(row: dict) -> Fill:
    values = {name: row.get(name) for name in Fill.__dataclass_fields__ if name in row}
    for name in ("quantity", "price", "amount", "fees"):
        values.setdefault(name, 0.0)
    for name in ("time", "symbol", "name", "cash_change", "balance"):
        values.setdefault(name, None)  # a cash row of the account's own: no stock
    return Fill(**values)


def ledger_positions(account: AccountBooks, now: datetime, symbols: list[str]) -> dict[str, Position]:
    """The named stocks' positions as their fills and the stored corporate actions make them,
    a stated holding left out: what a holding row becomes when it gives way to the ledger
    (a statement import). Inside a write transaction the new checkpoints are stored."""
    if names := account.several():
        return _across(account, names, lambda books: _from_checkpoints(books, now, symbols, {}))
    return _from_checkpoints(account, now, symbols, {})


def _across(account: AccountBooks, names: list[str], derive) -> dict[str, Position]:
    """The positions of several accounts as one: `derive` run on each account's books (the
    one derivation, narrowed to its fills), a stock held in two of them one line whose
    figures are the sums of the two (ledger.py `combined_position`)."""
    parts: dict[str, list[Position]] = {}
    for name in names:
        for symbol, p in derive(account.narrowed(name)).items():
            parts.setdefault(symbol, []).append(p)
    return {symbol: combined_position(parts[symbol]) for symbol in sorted(parts)}


def _from_checkpoints(
    account: AccountBooks,
    now: datetime,
    symbols: list[str] | None,
    lots: dict[str, StatedLot],
    skipped: list[SkippedRow] | None = None,
) -> dict[str, Position]:
    """derive_positions of today, each stock from its stored checkpoint (when one applies)
    and the fills after it: reading the fills since its day, not the whole ledger, gives the
    same Decimals (tests/services/test_position_checkpoints.py). A caller inside a write
    transaction (an import, a trade) stores the new checkpoints; a read leaves them, and a
    derivation that left a row out keeps none (the row mended must be read again)."""
    store, market = account.store, account.market.bars
    wanted = sorted(set(store.symbols()) | set(lots)) if symbols is None else symbols
    closes = market.last_closes(wanted)
    actions = market.actions_for(wanted, skipped)
    marks = store.checkpoints(list(wanted))
    today = now.date().isoformat()
    out, fresh = {}, []
    for s in wanted:
        until = min(closes[s][0], today) if s in closes else today
        lot, mark = lots.get(s), marks.get(s)
        if mark is not None and (lot is not None or mark.through > until or not mark.usable()):
            mark = None
        own = store.fills(s, since=resume_fills_from(mark) if mark is not None else None, skipped=skipped)
        if not own and mark is None and lot is None:
            continue
        out[s], new_mark = checkpointed(s, own, lot=lot, actions=actions.get(s, ()), until=until, resume=mark)
        if new_mark is not None and new_mark != mark:
            fresh.append(new_mark)
    if fresh and not skipped:
        store.save_checkpoints(fresh)
    return out


def _closes(account: AccountBooks, symbols: list[str], now: datetime) -> dict[str, Close]:

    market = account.market.bars
    calendar = TradingCalendar(market)
    at_least = beyond_calendar(now) is not None
    stale: dict[str, int | None] = {}
    out = {}
    for symbol, (day, price) in market.last_closes(symbols).items():
        if day not in stale:
            stale[day] = calendar.stale_days(day, now)
        out[symbol] = Close(day, dec(price), stale[day], at_least)
    return out


def _positions_and_cash(
    account: AccountBooks, now: datetime, skipped: list[SkippedRow]
) -> tuple[dict[str, Position], AccountCash | None]:
    """One account's positions and the cash its stated balance and later flows leave (the
    books of a home of one account: that account's)."""
    store = account.store
    positions = derive_positions(account, now, skipped=skipped)
    stated = store.cash(as_shanghai(now).date().isoformat(), skipped)
    if stated is None and store.has_transfers():
        stated = opening_balance()
    flows = None
    if stated is not None:
        after = stated.fills_before if stated.source == "user" else None
        applied = applied_dividends(list(positions.values()))
        # the flows after the balance: the fills dated on its day or later
        flows = cash_after(stated.as_of, store.fills(since=stated.as_of, skipped=skipped), applied, after_seq=after)
    return positions, account_cash(stated, flows)


def read_account(account: AccountBooks, now: datetime, broker_account: str | None = None) -> AccountView:
    """The account as of `now`, valued by the account's cost method: the one derivation every
    surface reads. `broker_account`: that account only; else every account, combined: each
    account derived on its own, a stock held in two one line of their sums, the cash the sum
    of each account's (listed one by one in the view's `accounts`)."""

    method = account.cost_method
    books = account.narrowed(broker_account)
    skipped: list[SkippedRow] = []
    if names := books.several():
        parts = [_positions_and_cash(books.narrowed(name), now, skipped) for name in names]
        positions = _across(books, names, lambda one: parts[names.index(one.broker_account)][0])
        cash = combined_cash([c for _, c in parts])
        accounts = tuple(zip(names, (c for _, c in parts)))
    else:
        positions, cash = _positions_and_cash(books, now, skipped)
        accounts = ((books.broker_account or books.default_account(), cash),)
    valued = value_account(positions, _closes(account, list(positions), now), cash, method)
    rows = {h.symbol: h for h in account.home.investor.holdings()}
    master = account.market.securities
    names = {}
    for symbol, p in positions.items():
        row = rows.get(symbol)
        names[symbol] = (
            security_name(master, symbol) or (row.name if row and row.name != symbol else None) or p.name or symbol
        )
    roles = {s: (rows[s].role if s in rows else "satellite") for s in positions}
    held = tuple(_as_holding(h, rows.get(h.symbol), names[h.symbol], roles[h.symbol]) for h in valued.holdings)
    return AccountView(valued, names, roles, held, tuple(dict.fromkeys(skipped)), accounts, broker_account)


def _as_holding(h, row: Holding | None, name: str, role: str) -> Holding:
    """Dated by the position's last ledger event, never by when its row was last written."""
    p = h.position
    return Holding(
        h.symbol,
        name,
        row.short_names if row else (),
        float(h.shares),
        float(h.cost),
        role,
        p.last_event_day or None,
        row.basis if row else LEDGER,
    )


@dataclass(frozen=True)
class Held:
    """One stock's shares and cost (by the account's method) as the ledger leaves them."""

    shares: Decimal
    cost: Decimal | None

    def line(self, prefix: str = "持仓") -> str:
        if self.shares <= 0 or self.cost is None:
            return "已清仓"
        return f"{prefix} {float(self.shares):g} 股，成本 {float(self.cost):.2f}"


def held_position(account: AccountBooks, symbol: str, now: datetime, skipped: list[SkippedRow] | None = None) -> Held:
    p = derive_positions(account, now, [symbol], skipped=skipped).get(symbol)
    return Held(p.shares, p.cost(account.cost_method)) if p is not None else Held(Decimal(0), None)


def sync_holding(account: AccountBooks, symbol: str, now: datetime, at: str) -> Holding | None:
    """The holding row after the ledger changed: a stated holding stands (the ledger's later
    events move it when the account is read); any other row is the ledger's copy, of the
    stock's position derived now."""
    row = account.home.investor.holding(symbol)
    if row is not None and row.basis == STATED:
        return row
    whole = account.whole  # the holding row is the stock's line of every account
    return _ledger_copy(whole, symbol, at, row, derive_positions(whole, now, [symbol]).get(symbol))


def sync_holding_to(account: AccountBooks, symbol: str, at: str, p: Position | None) -> Holding | None:
    """`sync_holding` when the caller has just derived the stock's position `p`."""
    row = account.home.investor.holding(symbol)
    if row is not None and row.basis == STATED:
        return row
    return _ledger_copy(account, symbol, at, row, p)


def _ledger_copy(
    account: AccountBooks, symbol: str, at: str, row: Holding | None, p: Position | None
) -> Holding | None:
    if p is None or not p.held:
        set_position(account.db, symbol, None, 0, None, at)
        return None
    name = (row.name if row else None) or security_name(account.market.securities, symbol) or p.name
    set_position(account.db, symbol, name, float(p.shares), float(p.cost(account.cost_method)), at)
    return account.home.investor.holding(symbol)


# the day of a trade ----------------------------------------------------------------------
def _check_session(day: date, today: date) -> None:
    """Trades happen on trading days: a closed day is refused with the sessions around it."""

    first = trading_calendar().first
    if day < first:
        raise RequestError(
            f"{day.isoformat()} 早于 A 股第一个交易日 {first.isoformat()}（上交所开业）：没有这一天的交易"
        )
    if is_trading_day(day) if knows(day) else day.weekday() < 5:
        return  # past the calendar's end a weekday cannot be known closed
    closed = holiday_name(day) or "周末"
    sessions = [f"上一个交易日是 {day_label(previous_trading_day(day))}"]
    try:
        after = next_trading_day(day)
    except CalendarEnd:
        after = None  # none known yet
    if after is not None and after <= today:
        sessions.append(f"下一个是 {day_label(after)}")
    raise RequestError(f"{day_label(day)} {closed}休市，没有成交：{'，'.join(sessions)}")


def trade_day(words: str | None, now: datetime, sessions_only: bool = True) -> date:
    """The day the user named (今天 / 昨天 / 周五 / 上周五 / 3月3日 / 2025-03-03), never
    after today and, for a trade (`sessions_only`), a day the exchanges were open."""
    today = now.date()
    try:
        day = parse_date_words(words, today) if words and words.strip() else today
    except DateWordsError as exc:
        raise RequestError(str(exc)) from None
    if sessions_only:
        _check_session(day, today)
    return day


# cash -------------------------------------------------------------------------------------
def set_cash(account: AccountBooks, amount: float, day_words: str | None, now: datetime) -> CashBalance:
    if not (isinstance(amount, int | float) and math.isfinite(amount) and amount >= 0):
        raise RequestError(f"现金余额应为非负数字，而不是 {amount!r}")
    if problem := money_problem(float(amount)):
        raise RequestError(f"现金余额不合理：{problem}")
    day = trade_day(day_words, now, sessions_only=False).isoformat()
    # without a name, the default account's balance (a home of one account: its only one)
    cash = CashBalance(
        round(float(amount), 2), day, "user", broker_account=account.broker_account or account.default_account()
    )
    with write_transaction(account.db):
        account.store.set_cash(cash, now.isoformat(timespec="seconds"))
    return cash


def move_cash(account: AccountBooks, kind: str, amount: float, day_words: str | None, now: datetime) -> Fill:
    """银证转入 / 转出 told by hand (`pixiu cash in|out`): money the bank moved, the only
    external flow of the account's returns (account/performance.py)."""
    if not (isinstance(amount, int | float) and math.isfinite(amount) and amount > 0):
        raise RequestError(f"金额应为正数，而不是 {amount!r}")
    if problem := money_problem(float(amount)):
        raise RequestError(f"金额不合理：{problem}")
    day = trade_day(day_words, now).isoformat()
    with write_transaction(account.db):
        return account.store.add_transfer(kind, round(float(amount), 2), day, now.isoformat(timespec="seconds"))


# fills ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TradeLine:
    """A fill as a trade list shows it: the fill's own figures (day, time, symbol, quantity,
    price, amount, fees, balance are read from it), its kind and source in words, the stock
    named by the security master, and the memory id of the trade it records."""

    fill: Fill
    name: str | None
    ref: str | None  # d5: the trade's memory id, for /forget

    def __getattr__(self, attribute: str):
        if attribute.startswith("_") or attribute == "fill":  # copying and pickling look before `fill` is set
            raise AttributeError(attribute)
        return getattr(self.fill, attribute)

    @property
    def kind(self) -> str:
        """买入 / 卖出 / 红股入账 …"""
        return KIND_NAMES.get(self.fill.kind, self.fill.kind)

    @property
    def origin(self) -> str:
        return ORIGIN_NAMES[STATEMENT if self.fill.origin == STATEMENT else MANUAL]

    @property
    def fees_estimated(self) -> bool:
        """The fees are the account's rates applied, until a statement's fill replaces them."""
        return self.fill.fee_estimated

    def record(self) -> dict:
        """What `pixiu trades --json` and the MCP server's trades say of it."""
        return {key: getattr(self, key) for key in _TRADE_RECORD}


_TRADE_RECORD = ("day", "time", "kind", "symbol", "name", "quantity", "price", "amount", "fees", "balance", "origin",
                 "ref", "fees_estimated", "broker_account")  # fmt: skip


class TradeList(list):
    """The trades listed, and the stored rows left out of them (unreadable)."""

    skipped: tuple[SkippedRow, ...] = ()
    several: bool = False  # fills of more than one broker account: a list says each one's


def list_trades(account: AccountBooks, symbol: str | None = None, broker_account: str | None = None) -> TradeList:
    """The ledger's readable fills (of `broker_account` only, when named), each stock named
    by the security master (a statement's 证券名称 is the broker's spelling, never the name
    pixiu shows)."""

    master, names = account.market.securities, {}
    lines, skipped = TradeList(), []
    for f in account.narrowed(broker_account).store.fills(symbol, skipped=skipped):
        if f.symbol and f.symbol not in names:
            names[f.symbol] = security_name(master, f.symbol) or f.name
        lines.append(_trade_line(f, names.get(f.symbol) if f.symbol else f.name))
    lines.skipped = tuple(skipped)
    lines.several = broker_account is None and len({line.fill.broker_account for line in lines}) > 1
    return lines


def _trade_line(f: Fill, name: str | None) -> TradeLine:

    return TradeLine(f, name, decision_ref(f.decision_id) if f.decision_id else None)


# trade history: the ledger's fills over a span, and what the span realised -----------------------
@dataclass(frozen=True)
class HistoryFill:
    line: TradeLine
    decision_id: int | None  # the recorded trade (decisions) the fill is, if any


@dataclass(frozen=True)
class Realised:
    symbol: str
    name: str
    amount: Decimal  # realised P&L over the span (sales against average cost, dividends)
    closed: bool  # no shares left at the span's end


@dataclass(frozen=True)
class TradeHistory:
    fills: tuple[HistoryFill, ...]  # oldest first: the newest `limit` of the span
    left_out: int  # older fills of the span not listed
    realised: tuple[Realised, ...]


def trade_history(
    account: AccountBooks,
    now: datetime,
    start: date | None,
    end: date | None,
    symbols: list[str] | None = None,
    limit: int = 12,
) -> TradeHistory:
    """The stocks' fills dated from `start` to `end` (None: without that bound), and each
    traded stock's realised P&L over the span: the ledger's realised P&L at the span's end
    less that of the day before it starts (both `derive_positions`), never worked out here."""
    first, last = start.isoformat() if start else "", end.isoformat() if end else "9999-12-31"
    skipped: list[SkippedRow] = []  # the account's own view says which rows it left out
    fills = [
        f
        for f in account.store.fills(skipped=skipped)
        if f.symbol and first <= f.day <= last and (symbols is None or f.symbol in symbols)
    ]
    names = {line.symbol: line.name for line in list_trades(account) if line.symbol}
    shown = fills[-limit:] if limit else fills
    lines = tuple(HistoryFill(_trade_line(f, names.get(f.symbol) or f.name), f.decision_id) for f in shown)
    traded = sorted({f.symbol for f in fills})
    at_end = derive_positions(account, now, traded, day=last if end else None, skipped=skipped)
    before = (
        derive_positions(account, now, traded, day=(start - timedelta(days=1)).isoformat(), skipped=skipped)
        if start
        else {}
    )
    realised = []
    for symbol in traded:
        p = at_end.get(symbol)
        if p is None:
            continue
        amount = p.realised_pnl - (before[symbol].realised_pnl if symbol in before else Decimal(0))
        realised.append(Realised(symbol, names.get(symbol) or p.name or symbol, amount, not p.held))
    return TradeHistory(lines, len(fills) - len(shown), tuple(r for r in realised if r.amount or r.closed))


# the account as plain data: `holdings --json`, the get_holdings tool, the brief's facts ---------
def _money(value: Decimal | None) -> float | None:
    return None if value is None else float(round(value, 2))


def _price(value: Decimal | None) -> float | None:
    return None if value is None else float(round(value, 4))


def _ratio(value: Decimal | None) -> float | None:
    return None if value is None else float(round(value, 6))


def _holding_record(view: AccountView, h) -> dict:
    p = h.position
    return {
        "symbol": h.symbol,
        "name": view.name(h.symbol),
        "role": view.roles.get(h.symbol, "satellite"),
        "shares": float(p.shares),
        "cost": _price(h.cost),
        "average_cost": _price(p.average_cost),
        "diluted_cost": _price(p.diluted_cost),
        "last_close": _price(h.close.price) if h.close else None,
        "close_date": h.close.day if h.close else None,
        "stale_days": h.close.stale_days if h.close else None,
        "stale_at_least": h.close.stale_at_least if h.close else False,
        "priced": h.priced,
        "value": _money(h.value),
        "unrealised_pnl": _money(h.unrealised_pnl),
        "unrealised_pct": _ratio(h.unrealised_pct),
        "realised_pnl": _money(h.realised_pnl),
        "holding_pnl": _money(h.holding_pnl),
        "total_pnl": _money(h.total_pnl),
        "cost_in": _money(p.cost_in),
        "proceeds": _money(p.proceeds),
        "fees": _money(p.fees),
        "dividends": _money(p.dividends),
        "estimated_dividend_tax": _money(sum((t.amount for t in p.taxes), Decimal(0))),
        "bonus_shares": float(p.bonus_shares),
        "weight": _ratio(h.weight),
        "stated_on": p.stated_day,
        "first_day": p.first_day or None,
        "last_day": p.last_day or None,
    }


def _cash_record(cash) -> dict | None:
    if cash is None:
        return None
    return {
        "amount": _money(cash.amount),
        "as_of": cash.as_of,
        "stated_amount": _money(dec(cash.stated.amount)),
        "stated_as_of": cash.stated.as_of,
        "source": cash.stated.source,
        "rolled": cash.rolled,
        "missing": cash.missing,
    }


def account_record(view: AccountView) -> dict:
    """The account as JSON-ready data, every figure from the one derivation (money to the
    cent, costs to 4 decimals, rounded here and only here)."""
    a = view.account
    return {
        "cost_method": a.cost_method,
        "holdings": [_holding_record(view, h) for h in a.holdings],
        "cash": _cash_record(a.cash),
        "stock_value": _money(a.stock_value),
        "total_assets": _money(a.total_assets),
        "unpriced": a.unpriced,
        "unrealised_pnl": _money(a.unrealised_pnl),
        "realised_pnl": _money(a.realised_pnl),
        "closed": [
            {
                "symbol": p.symbol,
                "name": view.name(p.symbol),
                "realised_pnl": _money(p.realised_pnl),
                "cost_in": _money(p.cost_in),
                "proceeds": _money(p.proceeds),
                "fees": _money(p.fees),
                "dividends": _money(p.dividends),
                "last_day": p.last_day or None,
            }
            for p in a.closed
        ],
        "skipped_rows": [asdict(row) for row in view.skipped],
        "account": view.broker_account,
        "accounts": [{"name": name, "cash": _cash_record(cash)} for name, cash in view.accounts],
    }


def accounts_record(account: AccountBooks, now: datetime) -> list[dict]:
    """Each broker account (`pixiu accounts`): its numbers, and its holdings and cash as the
    one derivation narrowed to it gives them."""
    out = []
    for i, known in enumerate(account.store.broker_accounts()):
        view = read_account(account, now, known.name)
        cash = view.account.cash
        out.append(
            {
                "name": known.name,
                "default": i == 0,
                "broker": known.broker,
                "fund_account": known.fund_account,
                "shareholder_codes": list(known.shareholder_codes),
                "holdings": len(view.account.holdings),
                "stock_value": _money(view.account.stock_value),
                "cash": _money(cash.amount) if cash is not None else None,
                "cash_as_of": cash.as_of if cash is not None else None,
            }
        )
    return out
