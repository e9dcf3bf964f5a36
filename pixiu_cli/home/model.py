"""The investor's data set: holdings, backtest profiles, news, signals, reports, decisions,
alerts, memory events (user notes and tool-triggered events) and the persona, and the whole
set as one document (import / export / demo).

The store builds these from its rows with every field of the type it declares: text columns
as str (None only where a field is optional), numeric columns as float or None, and a stored
value that is no number as NaN, which every view shows as 无效值 (pixiu_cli/kernel/store/rows.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from pixiu_cli.kernel.store.rows import json_column, record

# What a holding row's shares and cost are: the user's (or a document's) statement of the
# position on its day, which the ledger's later events move; or a copy of what the ledger
# adds up to, which a statement or a trade wrote.
STATED, LEDGER = "stated", "ledger"


@dataclass(frozen=True)
class Holding:
    symbol: str
    name: str
    short_names: tuple[str, ...]
    shares: float | None
    cost: float | None
    role: str  # core | satellite
    updated_at: str | None = None
    basis: str = STATED  # STATED | LEDGER


@dataclass(frozen=True)
class Profile:
    id: int
    symbol: str
    strategy: str
    period: str | None
    annual_return: float | None
    max_drawdown: float | None
    win_rate: float | None
    sharpe: float | None
    best_role: str | None
    conclusion: str | None
    as_of: str


@dataclass(frozen=True)
class NewsItem:
    id: int
    symbol: str | None
    title: str
    summary: str | None
    source: str | None
    layer: str | None
    published_at: str | None  # None: a fetched item whose feed gave no readable time
    # where a fetched item came from; None for one imported by hand (and so in older exports)
    url: str | None = None
    fetched_at: str | None = None
    provider: str | None = None  # the feed: akshare.stock_news_em …
    dedup_key: str | None = None  # what makes a second sync add nothing (store/news.py)


@dataclass(frozen=True)
class Signal:
    id: int
    symbol: str
    score: float | None
    direction: str | None
    components: dict
    as_of: str


@dataclass(frozen=True)
class Report:
    id: int
    title: str
    symbols: tuple[str, ...]
    conclusion: str
    created_at: str
    as_of: str | None = None  # the session the brief that wrote it was as of
    origin: str | None = None  # brief: written by `pixiu brief`; None: imported


@dataclass(frozen=True)
class Decision:
    id: int
    symbol: str
    side: str
    price: float | None
    quantity: float | None
    reason: str | None
    decided_at: str
    source: str | None = None


@dataclass(frozen=True)
class Alert:
    id: int
    symbol: str | None
    rule: str | None
    message: str
    triggered_at: str


@dataclass(frozen=True)
class MemoryEvent:
    id: int
    kind: str  # user_note | decision | backtest | …
    note_kind: str | None  # view | plan | rule (user notes)
    symbol: str | None
    text: str
    created_at: str
    source: str | None
    inject_count: int = 0
    deleted_at: str | None = None
    pinned: bool = False  # injected whatever its age (/memory pin)
    replaced_by: int = 0  # the id of the plan that replaced this one; 0 while in force
    replace_offered_by: int = 0  # a newer plan offering to replace this one, not yet accepted
    author: str = "import"  # who wrote it (vocabulary.AUTHORS); a note of a document is imported


@dataclass(frozen=True)
class AccountLedger:
    """The account as a document carries it: every live fill and every stated cash balance,
    each its table's row by column name (all columns but the internal ones, so a column
    added later travels too). A fill's decision_id names a decision of the same document by
    the id it has there."""

    fills: tuple[dict, ...] = ()
    cash: tuple[dict, ...] = ()


@dataclass(frozen=True)
class DomainData:
    """The whole data set as one document (import / export / demo)."""

    holdings: list[Holding] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)
    news: list[NewsItem] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)
    notes: list[MemoryEvent] = field(default_factory=list)
    persona: dict[str, str] = field(default_factory=dict)
    account: AccountLedger | None = None  # None: the document has none (older exports, the demo)
    read_at: str | None = None  # when the document was read: the as-of of the persona it sets


# The data set row by row: each type read from its stored row.


@lru_cache(maxsize=4096)
def _short_names(raw) -> tuple[str, ...]:
    return tuple(name for name in json_column(raw, []) if isinstance(name, str))


def holding_from_row(r) -> Holding:
    return record(Holding, r, "holdings", short_names=_short_names(r["short_names"]))


def profile_from_row(r) -> Profile:
    return record(Profile, r, "profiles")


def news_from_row(r) -> NewsItem:
    return record(NewsItem, r, "news")


def signal_from_row(r) -> Signal:
    return record(Signal, r, "signals", components=json_column(r["components"], {}))


def report_from_row(r) -> Report:
    symbols = tuple(s for s in json_column(r["symbols"], []) if isinstance(s, str))
    return record(Report, r, "reports", symbols=symbols)


def decision_from_row(r) -> Decision:
    return record(Decision, r, "decisions")


def alert_from_row(r) -> Alert:
    return record(Alert, r, "alerts")


def event_from_row(r) -> MemoryEvent:
    return record(MemoryEvent, r, "memory_events")
