"""The account's ledger as a document's rows (`pixiu export`, `pixiu import`): every live
fill and every stated cash balance, by column name, so a column added to either table
later travels with no change here. A fill names its decision by the id the document gives
it and is stored under the id that decision has in this database.

The investor's data set in the database: holdings, profiles, news, signals, reports,
decisions, alerts, memory events and the persona, read into the types of domain/investor.py.

Windows and limits are applied in SQL on indexed columns, so assembling a context stays
fast however many years of events pile up.

`pixiu import` without `--replace`: merge a document into the data set by natural key.

A row of the file that matches a stored row (same natural key) updates it; one that matches
none is added; stored rows the file does not mention are left alone, so nothing the user
said in conversation is lost by importing a file again. Notes and decisions made in
conversation (source `user` or `model`), and notes the user deleted, are never changed by a
merge. A holding that trades recorded in conversation have changed keeps what those trades
left unless the file's row is dated after the last of them; either way a difference in
shares is reported. The account's fills merge by fill_id and its stated balances by what
they say."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from pixiu_cli.home.model import (
    LEDGER,
    AccountLedger,
    Alert,
    Decision,
    DomainData,
    Holding,
    MemoryEvent,
    NewsItem,
    Profile,
    Report,
    Signal,
    alert_from_row,
    decision_from_row,
    event_from_row,
    holding_from_row,
    news_from_row,
    profile_from_row,
    report_from_row,
    signal_from_row,
)
from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import dict_rows, number, optional_text, text
from pixiu_cli.kernel.vocabulary import CONVERSATION_SOURCES, USERS_OWN

FILLS, CASH = "account_fills", "account_cash"
PARTS = (("fills", FILLS), ("cash", CASH))
_INTERNAL = {FILLS: ("id", "deleted_at"), CASH: ("id",)}  # where a row sits, not what it says
# The fill id of a trade told one at a time (store/portfolio.py) is made of its decision's
# id: it follows the decision to its id here, or a later trade's fill would take it.
_MANUAL = "manual-{}"


@dataclass(frozen=True)
class LedgerMerge:
    fills_added: int = 0
    fills_kept: int = 0  # the same fill_id already stored: left as it is
    fills_withdrawn: int = 0  # of those: fills withdrawn here (/forget), never brought back
    cash_added: int = 0
    cash_kept: int = 0


def export_ledger(db: Database) -> AccountLedger:
    """Live fills in the order they were recorded, each balance as stated; a link to a
    decision withdrawn since is left out."""
    live = {r[0] for r in db.conn.execute("select id from decisions where deleted_at is null")}
    default = _default_account(db)
    fills = []
    for row in dict_rows(db, f"select * from {FILLS} where deleted_at is null order by id"):
        if row.get("decision_id") not in live:
            row["decision_id"] = None
        fills.append(_described(FILLS, row, default))
    cash = [_described(CASH, row, default) for row in dict_rows(db, f"select * from {CASH} order by id")]
    return AccountLedger(tuple(fills), tuple(cash))


def _default_account(db: Database) -> str | None:
    row = db.conn.execute("select name from broker_accounts order by id limit 1").fetchone()
    return row[0] if row else None


def _described(table: str, row: dict, default: str | None = None) -> dict:
    """The row as a document holds it: a row of the default broker account names none (it
    goes to the default account of the home it is imported into, as an older document's)."""
    return {
        k: v
        for k, v in row.items()
        if k not in _INTERNAL[table] and v is not None and not (k == "broker_account" and v == default)
    }


def unknown_columns(db: Database, ledger: AccountLedger) -> list[str]:
    """Fields of the document's rows this database has no column for (`account.fills[3].x`)."""
    found = []
    for part, table in PARTS:
        known = {r[1] for r in db.conn.execute(f"pragma table_info({table})")} - set(_INTERNAL[table])
        found += [
            f"account.{part}[{i}].{k}" for i, row in enumerate(getattr(ledger, part)) for k in row if k not in known
        ]
    return found


def insert_row(db: Database, table: str, row: dict) -> int:
    """One plain INSERT of `row` (column → value); the new row's id."""
    names = ", ".join(f'"{k}"' for k in row)
    cursor = db.conn.execute(f"insert into {table} ({names}) values ({', '.join('?' * len(row))})", list(row.values()))
    return cursor.lastrowid


def _relinked(row: dict, decisions: dict[int, int]) -> dict:
    """The fill with its decision under that decision's id in this database."""
    old = row.get("decision_id")
    if old is None:
        return row
    new = decisions.get(old)
    row = {**row, "decision_id": new}
    if new is not None and row.get("origin") == "manual" and row["fill_id"] == _MANUAL.format(old):
        row["fill_id"] = _MANUAL.format(new)
    return row


def replace_ledger(db: Database, ledger: AccountLedger, decisions: dict[int, int]) -> None:
    """The account becomes the document's (in the caller's transaction); `decisions` maps
    the document's decision ids to the stored ones."""
    db.execute(f"delete from {FILLS}")
    db.execute(f"delete from {CASH}")
    for row in ledger.fills:
        insert_row(db, FILLS, _relinked(row, decisions))
    for row in ledger.cash:
        insert_row(db, CASH, row)


def merge_ledger(db: Database, ledger: AccountLedger, decisions: dict[int, int]) -> LedgerMerge:
    """Fills by fill_id (one already stored, or withdrawn here, is left alone); balances by
    all they say, pairing equal rows in order, so the same file twice adds nothing."""
    stored = dict(db.conn.execute(f"select fill_id, deleted_at from {FILLS}").fetchall())
    added = kept = withdrawn = 0
    for row in ledger.fills:
        row = _relinked(row, decisions)
        if row["fill_id"] not in stored:
            insert_row(db, FILLS, row)
            stored[row["fill_id"]] = None
            added += 1
        else:
            kept += 1
            withdrawn += stored[row["fill_id"]] is not None
    default = _default_account(db)
    have = Counter(_cash_key(_described(CASH, r, default)) for r in dict_rows(db, f"select * from {CASH}"))
    cash_added = 0
    for row in ledger.cash:
        if have[_cash_key(_described(CASH, row, default))] > 0:
            have[_cash_key(_described(CASH, row, default))] -= 1
            continue
        insert_row(db, CASH, row)
        cash_added += 1
    return LedgerMerge(added, kept, withdrawn, cash_added, len(ledger.cash) - cash_added)


def _cash_key(row: dict) -> tuple:
    return tuple(sorted(row.items()))


# The user's own notes in force: a proposal the user has not accepted is never one of them.
_USERS_OWN = f"author in ({', '.join(repr(a) for a in USERS_OWN)})"
_LIVE_NOTE = f"kind = 'user_note' and deleted_at is null and replaced_by = 0 and {_USERS_OWN}"
_RULE = f"{_LIVE_NOTE} and note_kind = 'rule'"
_WINDOWED_NOTE = f"{_LIVE_NOTE} and coalesce(note_kind, '') != 'rule'"


class InvestorStore:
    def __init__(self, db: Database):
        self.db = db
        self._memo: dict[str, tuple[int, object, object]] = {}

    def _unchanged_since(self) -> int | None:
        """The portfolio's version (bumped by triggers on holdings and profiles), or None
        inside a transaction, where an uncommitted change may still be rolled back."""
        conn = self.db.conn
        if conn.in_transaction:
            return None
        return conn.execute("select version from portfolio_version where id = 1").fetchone()[0]

    def portfolio_version(self) -> int | None:
        """Bumped by every change to holdings or profiles; None inside a transaction."""
        return self._unchanged_since()

    def _remembered(self, name: str, key, compute):
        """compute() once, reused while the database is unchanged and `key` is the same."""
        stamp = self._unchanged_since()
        seen = self._memo.get(name)
        if stamp is not None and seen is not None and seen[0] == stamp and seen[1] == key:
            return seen[2]
        value = compute()
        if stamp is not None:
            self._memo[name] = (stamp, key, value)
        return value

    # reads used by the context engine -------------------------------------------------
    def holdings(self) -> list[Holding]:
        """Every holding. Built on every turn, and there may be hundreds: the list is kept
        and reused while the database has not changed since it was read."""
        return list(
            self._remembered(
                "holdings",
                None,
                lambda: tuple(
                    holding_from_row(r) for r in dict_rows(self.db, "select * from holdings order by role, symbol")
                ),
            )
        )

    def noted_symbols(self) -> list[str]:
        """The stocks the user's live notes (views, plans, rules) and decisions name, in code
        order: with the holdings and the watch list, the investor's own universe."""
        sql = (
            f"select symbol from memory_events where symbol is not null and symbol != '' and {_LIVE_NOTE} "
            "union select symbol from decisions where symbol is not null and symbol != '' and deleted_at is null "
            "order by symbol"
        )
        return [str(row[0]) for row in self.db.conn.execute(sql).fetchall()]

    def decision(self, decision_id: int) -> Decision | None:
        rows = dict_rows(self.db, "select * from decisions where id = ? and deleted_at is null", [decision_id])
        return decision_from_row(rows[0]) if rows else None

    def holding(self, symbol: str) -> Holding | None:
        rows = dict_rows(self.db, "select * from holdings where symbol = ?", [symbol])
        return holding_from_row(rows[0]) if rows else None

    def latest_profile(self, symbol: str) -> Profile | None:
        rows = dict_rows(
            self.db, "select * from profiles where symbol = ? order by as_of desc, id desc limit 1", [symbol]
        )
        return profile_from_row(rows[0]) if rows else None

    def profiles_for(self, symbols: list[str]) -> dict[str, Profile]:
        """latest_profile of each symbol, in one statement (a portfolio question asks for
        every holding's, and one query per holding is several times slower), reused while
        the database is unchanged."""
        return dict(self._remembered("profiles_for", tuple(symbols), lambda: self._read_profiles(symbols)))

    def _read_profiles(self, symbols: list[str]) -> dict[str, Profile]:
        rows = dict_rows(
            self.db,
            "select p.* from json_each(?) s join profiles p on p.id = ("
            "select id from profiles where symbol = s.value order by as_of desc, id desc limit 1)",
            [json.dumps(list(symbols))],
        )
        latest = {r["symbol"]: profile_from_row(r) for r in rows}
        return {s: latest[s] for s in symbols if s in latest}

    def recent_news(self, symbol: str, since: str, limit: int, until: str | None = None) -> list[NewsItem]:
        """The stock's newest `limit` items published since `since` (and by `until`)."""
        bound, params = ("and published_at <= ? ", [until]) if until is not None else ("", [])
        return [
            news_from_row(r)
            for r in dict_rows(
                self.db,
                f"select * from news where symbol = ? and published_at >= ? {bound}"
                "order by published_at desc, id desc limit ?",
                [symbol, since, *params, limit],
            )
        ]

    def latest_signal(self, symbol: str) -> Signal | None:
        rows = dict_rows(
            self.db, "select * from signals where symbol = ? order by as_of desc, id desc limit 1", [symbol]
        )
        return signal_from_row(rows[0]) if rows else None

    def _window(
        self,
        table: str,
        time_column: str,
        mapper,
        since: str,
        until: str,
        limit: int,
        where: str = "",
        params: tuple = (),
    ) -> list:
        """The newest `limit` rows of `table` with since <= time_column <= until (one memory
        class's window and limit, applied in SQL on an indexed time column)."""
        condition = f"{where} and " if where else ""
        sql = (
            f"select * from {table} where {condition}{time_column} >= ? and {time_column} <= ? "
            f"order by {time_column} desc, id desc limit ?"
        )
        return [mapper(r) for r in dict_rows(self.db, sql, [*params, since, until, limit])]

    def recent_reports(self, since: str, until: str, limit: int) -> list[Report]:
        return self._window("reports", "created_at", report_from_row, since, until, limit)

    def recent_decisions(self, since: str, until: str, limit: int) -> list[Decision]:
        return self._window("decisions", "decided_at", decision_from_row, since, until, limit, "deleted_at is null")

    def recent_alerts(self, since: str, until: str, limit: int) -> list[Alert]:
        return self._window("alerts", "triggered_at", alert_from_row, since, until, limit)

    def alerts_found_between(self, after: str, until: str) -> list[Alert]:
        """Every alert pixiu found after `after` and by `until`, in the order they fired. Found
        is when a check recorded it (a sync can bring in a close that fired days ago), else,
        for an imported alert, when it fired."""
        found = "coalesce(recorded_at, triggered_at)"
        sql = f"select * from alerts where {found} > ? and {found} <= ? order by triggered_at, id"
        return [alert_from_row(r) for r in dict_rows(self.db, sql, [after, until])]

    def recent_notes(self, since: str, until: str, limit: int) -> list[MemoryEvent]:
        """The views and plans in force inside the window (rules have no window: `rules`)."""
        return self._window("memory_events", "created_at", event_from_row, since, until, limit, _WINDOWED_NOTE)

    def rules(self, until: str, limit: int) -> list[MemoryEvent]:
        """The user's rules in force: every one not withdrawn, whatever its age, newest first."""
        return self._window("memory_events", "created_at", event_from_row, "", until, limit, _RULE)

    def pinned_notes(self, until: str, limit: int) -> list[MemoryEvent]:
        """Pinned views and plans in force, whatever their age, newest first."""
        return self._window(
            "memory_events", "created_at", event_from_row, "", until, limit, f"{_WINDOWED_NOTE} and pinned"
        )

    def recent_decisions_for(self, symbol: str, since: str, until: str, limit: int) -> list[Decision]:
        return self._window(
            "decisions",
            "decided_at",
            decision_from_row,
            since,
            until,
            limit,
            "symbol = ? and deleted_at is null",
            (symbol,),
        )

    def decision_returns(self, decision_id: int) -> tuple[float | None, float | None]:
        """The stock's move 5 and 20 sessions after a decision, as local analytics scored it
        (None until enough bars exist)."""
        row = self.db.conn.execute("select return_5d, return_20d from decisions where id = ?", [decision_id]).fetchone()
        return (number(row[0]), number(row[1])) if row else (None, None)

    def recent_notes_for(self, symbol: str, since: str, until: str, limit: int) -> list[MemoryEvent]:
        return self._window(
            "memory_events",
            "created_at",
            event_from_row,
            since,
            until,
            limit,
            f"symbol = ? and {_LIVE_NOTE}",
            (symbol,),
        )

    def persona(self) -> dict[str, str]:
        return {
            text(r["key"]): text(r["value"]) for r in dict_rows(self.db, "select key, value from persona order by key")
        }

    def persona_updated_at(self) -> str | None:
        """When the persona was last written (its newest row), or None if never stamped."""
        rows = dict_rows(self.db, "select max(updated_at) as at from persona")
        return optional_text(rows[0]["at"]) if rows else None

    def count_injection(self, event_ids: list[int], decision_ids: list[int] = ()) -> None:
        """One more use of each note and of each trade."""
        if not event_ids and not decision_ids:
            return
        with write_transaction(self.db):
            for table, ids in (("memory_events", event_ids), ("decisions", decision_ids)):
                if ids:
                    self.db.execute(
                        f"update {table} set inject_count = inject_count + 1 where id in "
                        "(select value from json_each(?))",
                        [json.dumps(list(ids))],
                    )

    # the whole data set ---------------------------------------------------------------
    def export(self) -> DomainData:
        db = self.db
        return DomainData(
            holdings=self.holdings(),
            profiles=[profile_from_row(r) for r in dict_rows(db, "select * from profiles order by id")],
            news=[news_from_row(r) for r in dict_rows(db, "select * from news order by id")],
            signals=[signal_from_row(r) for r in dict_rows(db, "select * from signals order by id")],
            reports=[report_from_row(r) for r in dict_rows(db, "select * from reports order by id")],
            decisions=[
                decision_from_row(r)
                for r in dict_rows(db, "select * from decisions where deleted_at is null order by id")
            ],
            alerts=[alert_from_row(r) for r in dict_rows(db, "select * from alerts order by id")],
            notes=[
                event_from_row(r)
                for r in dict_rows(
                    db, "select * from memory_events where kind = 'user_note' and deleted_at is null order by id"
                )
            ],
            persona=self.persona(),
            account=export_ledger(db),
        )

    def replace_all(self, data: DomainData, keep_own_notes: bool = False) -> None:
        """Import: one transaction, so a failure leaves the previous data untouched.
        `keep_own_notes` keeps what was said in conversation (the demo's refresh on every
        start): notes and recorded trades, whose fills stay in the ledger and move the new holdings.
        The account's fills and cash are replaced when the document has an account section,
        else left as they are."""

        def plain(items, drop_id=True):
            out = []
            for item in items:
                row = dict(item.__dict__)
                if drop_id:
                    row.pop("id", None)
                out.append(row)
            return out

        own = f"coalesce(source, '') in ({', '.join(repr(s) for s in CONVERSATION_SOURCES)})"
        replaced = f"not {own}" if keep_own_notes else "1"
        decisions, notes = plain(data.decisions), plain(data.notes)
        with write_transaction(self.db):
            # before the rows go: each incoming memory that is one already stored keeps its id
            _keep_ids(self.db, "decisions", f"deleted_at is null and {replaced}", decisions, _decision_identity)
            _keep_ids(
                self.db,
                "memory_events",
                f"kind = 'user_note' and deleted_at is null and {replaced}",
                notes,
                _note_identity,
            )
            for table in ("holdings", "profiles", "news", "signals", "reports", "alerts", "persona"):
                self.db.execute(f"delete from {table}")
            if keep_own_notes:
                self.db.execute(f"delete from decisions where not {own}")
                self.db.execute(f"delete from memory_events where kind = 'user_note' and not {own}")
            else:
                self.db.execute("delete from decisions")
                self.db.execute("delete from memory_events where kind = 'user_note'")
            ids = _insert_document(self.db, data, decisions, notes, plain)
            if data.account is not None:
                replace_ledger(self.db, data.account, {d.id: i for d, i in zip(data.decisions, ids) if d.id})
            self.db.execute(
                "update account_fills set decision_id = null where decision_id is not null "
                "and decision_id not in (select id from decisions)"
            )
            self.db["persona"].insert_all(
                [{"key": k, "value": v, "updated_at": data.read_at} for k, v in data.persona.items()]
            )


def _insert_document(db: Database, data: DomainData, decisions: list[dict], notes: list[dict], plain) -> list[int]:
    """Every row of the document; the ids its decisions got (the account's fills link them)."""
    rows = plain(data.holdings)
    for row in rows:
        row["short_names"] = json.dumps(list(row["short_names"]), ensure_ascii=False)
    db["holdings"].insert_all(rows)
    db["profiles"].insert_all(plain(data.profiles))
    db["news"].insert_all(plain(data.news))
    signals = plain(data.signals)
    for row in signals:
        row["components"] = json.dumps(row["components"], ensure_ascii=False)
    db["signals"].insert_all(signals)
    reports = plain(data.reports)
    for row in reports:
        row["symbols"] = json.dumps(list(row["symbols"]), ensure_ascii=False)
    db["reports"].insert_all(reports)
    ids = [insert_row(db, "decisions", row) for row in decisions]
    db["alerts"].insert_all(plain(data.alerts))
    db["memory_events"].insert_all(notes)
    return ids


def _decision_identity(row: dict) -> tuple:
    # not the date: the demo's refresh moves every date to today's distance
    return (row["symbol"], row["side"], row["price"], row["quantity"], row["reason"] or "")


def _note_identity(row: dict) -> tuple:
    return (row["note_kind"], row["text"], row["symbol"] or "")


def _keep_ids(db: Database, table: str, where: str, rows: list[dict], identity: Callable[[dict], tuple]) -> None:
    """Give each incoming row the id of the stored row (among those about to be replaced)
    that is the same memory; the rest get ids never used before (AUTOINCREMENT), so an id
    once shown to the user (n12, d5) never names another memory."""
    stored: dict[tuple, deque[int]] = defaultdict(deque)
    for r in dict_rows(db, f"select * from {table} where {where} order by id"):
        stored[identity(r)].append(r["id"])
    for row in rows:
        ids = stored.get(identity(row))
        row["id"] = ids.popleft() if ids else None


@dataclass(frozen=True)
class _Spec:
    section: str
    table: str
    key: tuple[str, ...]
    values: tuple[str, ...]
    where: str = ""
    kept: tuple[str, ...] = ()  # values a file row without them does not erase (where it came from)
    unique: str | None = None  # stored once at most: a file row that has it pairs by it first


_NEWS_SOURCE = ("url", "fetched_at", "provider", "dedup_key")
_BRIEF_SOURCE = ("as_of", "origin")
SPECS = (
    _Spec(
        "profiles",
        "profiles",
        ("symbol", "strategy", "as_of"),
        ("period", "annual_return", "max_drawdown", "win_rate", "sharpe", "best_role", "conclusion"),
    ),
    _Spec(
        "news",
        "news",
        ("symbol", "title", "published_at"),
        ("summary", "source", "layer", *_NEWS_SOURCE),
        kept=_NEWS_SOURCE,
        unique="dedup_key",
    ),
    _Spec("signals", "signals", ("symbol", "as_of"), ("score", "direction", "components")),
    _Spec("reports", "reports", ("title", "created_at"), ("symbols", "conclusion", *_BRIEF_SOURCE), kept=_BRIEF_SOURCE),
    _Spec("decisions", "decisions", ("symbol", "side", "price", "quantity", "decided_at"), ("reason", "source")),
    _Spec("alerts", "alerts", ("symbol", "rule", "triggered_at"), ("message",)),
    _Spec(
        "notes", "memory_events", ("note_kind", "text"), ("symbol", "created_at", "source"), "where kind = 'user_note'"
    ),
)


@dataclass
class SectionResult:
    added: int = 0
    updated: int = 0
    left_alone: int = 0
    conversation: int = 0  # of left_alone: rows made in conversation (or changed by its trades)
    forgotten: int = 0  # of left_alone: notes the user deleted (/forget), never brought back


@dataclass(frozen=True)
class ShareConflict:
    """A holding whose shares in the file differ from what trades recorded in conversation left."""

    symbol: str
    name: str
    in_file: float
    after_trades: float
    file_wins: bool  # the file's updated_at is after the last of those trades


@dataclass(frozen=True)
class StatementConflict:
    """A holding the file states for a stock whose holding broker statements derive: the
    ledger's figures stand (a stated lot would hide the fills' cost and realised P&L)."""

    symbol: str
    name: str
    in_file: float
    from_statements: float


@dataclass
class MergeResult:
    sections: dict[str, SectionResult] = field(default_factory=dict)
    share_conflicts: list[ShareConflict] = field(default_factory=list)
    statement_conflicts: list[StatementConflict] = field(default_factory=list)
    account: LedgerMerge | None = None  # None: the document has no account section


def _db_row(section: str, item) -> dict:
    row = dict(item.__dict__)
    row.pop("id", None)
    if section == "signals":
        row["components"] = json.dumps(row["components"], ensure_ascii=False)
    elif section == "reports":
        row["symbols"] = json.dumps(list(row["symbols"]), ensure_ascii=False)
    elif section == "notes":
        for column in (
            "inject_count",
            "deleted_at",
            "pinned",
            "replaced_by",
            "replace_offered_by",
        ):  # the user's, never the file's
            row.pop(column, None)
    return row


def _protected(section: str, stored: dict) -> bool:
    if section == "notes":
        return stored["source"] in CONVERSATION_SOURCES or stored["deleted_at"] is not None
    if section == "decisions":
        return stored["source"] in CONVERSATION_SOURCES
    return False


_DAY_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _key_value(value):
    """One spelling of a moment in a natural key: analytics store a profile's as_of as the
    day (2022-06-01), an import as its midnight in Shanghai (2022-06-01T00:00:00+08:00), and
    the two must be one row or every export imported back duplicates them."""
    if isinstance(value, str) and _DAY_ONLY.fullmatch(value):
        return f"{value}T00:00:00+08:00"
    return value


def _key(row: dict, spec: _Spec) -> tuple:
    return tuple(_key_value(row[k]) for k in spec.key)


def _pairs(stored: list[dict], rows: list[dict], spec: _Spec) -> list[dict | None]:
    """The stored row each file row pairs with: by `spec.unique` first, then multiset
    matching (the n-th file row with a key pairs with the n-th stored row with it, so
    importing the same file twice, or an export, adds nothing)."""
    unique = {r[spec.unique]: r for r in stored if r[spec.unique] is not None} if spec.unique else {}
    pairs = [unique.get(row[spec.unique]) if spec.unique and row[spec.unique] is not None else None for row in rows]
    taken = {p["id"] for p in pairs if p is not None}
    by_key: dict[tuple, deque] = defaultdict(deque)
    for row in stored:
        if row["id"] not in taken:
            by_key[_key(row, spec)].append(row)
    for i, row in enumerate(rows):
        matches = by_key.get(_key(row, spec))
        if pairs[i] is None and matches:
            pairs[i] = matches.popleft()
    return pairs


def _merge_rows(db: Database, spec: _Spec, items: list) -> tuple[SectionResult, list[int | None]]:
    """The section's result, and the stored id of each item (of an added one only for
    decisions: the account's fills link them by it)."""
    stored = dict_rows(db, f"select * from {spec.table} {spec.where} order by id")
    forgotten = sum(spec.section == "notes" and r["deleted_at"] is not None for r in stored)
    made_here = sum(_protected(spec.section, r) and not (spec.section == "notes" and r["deleted_at"]) for r in stored)
    result = SectionResult(conversation=made_here, forgotten=forgotten)
    rows = [_db_row(spec.section, item) for item in items]
    added, ids = [], []
    for row, current in zip(rows, _pairs(stored, rows, spec)):
        ids.append(None if current is None else current["id"])
        if current is None:
            added.append(row)
            continue
        changes = {k: row[k] for k in spec.values if row[k] != current[k] and not (k in spec.kept and row[k] is None)}
        if changes and not _protected(spec.section, current):
            db[spec.table].update(current["id"], changes)
            result.updated += 1
    if spec.section == "decisions":  # one by one, for the ids the new rows get
        new = iter([insert_row(db, spec.table, row) for row in added])
        ids = [known if known is not None else next(new) for known in ids]
    else:
        db[spec.table].insert_all(added)  # in file order, one statement per batch
    result.added, result.left_alone = len(added), len(stored) - result.updated
    return result, ids


def _last_conversation_trades(db: Database) -> dict[str, str]:
    marks = ",".join("?" * len(CONVERSATION_SOURCES))
    return {
        r["symbol"]: r["last"]
        for r in dict_rows(
            db,
            f"select symbol, max(decided_at) as last from decisions where source in ({marks}) group by symbol",
            CONVERSATION_SOURCES,
        )
    }


class LedgerFills(Protocol):
    """What a merge reads of the account: a stock's fills (the account's store, handed in by
    the import through the account's handle)."""

    def fills(self, symbol: str | None = None) -> list: ...


def _shares_after_trades(ledger: LedgerFills, current: dict | None) -> float:
    """The shares the ledger leaves the stored holding at (its stated lot and the fills after
    it; corporate actions are the account's to add when it is read)."""
    if current is None:
        return 0.0

    from pixiu_cli.account.ledger import StatedLot, position

    symbol = current["symbol"]
    fills = ledger.fills(symbol)
    if current.get("basis") == "ledger":
        return float(position(symbol, fills).shares) if fills else float(current["shares"] or 0)
    day = (current["updated_at"] or "")[:10]
    lot = StatedLot(
        symbol, Decimal(repr(float(current["shares"] or 0))), Decimal(repr(float(current["cost"] or 0))), day
    )
    return float(position(symbol, fills, lot=lot).shares)


def _from_statements(ledger: LedgerFills, holding: Holding, current: dict | None) -> float | None:
    """The shares broker statements derive for the stock the file states a holding of (the
    ledger's copy of the holding, or none when they sold it all), or None when the holding is
    not theirs: no statement has its fills, or a holding stated (by a file, an edit) stands."""
    if holding.basis == LEDGER:
        return None  # the file's row is a copy of its own ledger, stating nothing
    if current is not None and current.get("basis") != LEDGER:
        return None
    if not any(f.origin == "statement" for f in ledger.fills(holding.symbol)):
        return None
    return float(current["shares"] or 0) if current is not None else 0.0


def _file_row(ledger: LedgerFills, holding: Holding, current: dict | None, last_trade: str | None, merged: MergeResult):
    """The row the file's holding writes, or None when it writes nothing: statements' fills
    and trades told in conversation keep what they left (each difference reported)."""
    row = _db_row("holdings", holding)
    if row["updated_at"] is None:  # a file without dates does not erase the stored one
        del row["updated_at"]
    row["short_names"] = json.dumps(list(holding.short_names), ensure_ascii=False)
    derived = _from_statements(ledger, holding, current)
    if derived is not None:
        if derived != holding.shares:
            merged.statement_conflicts.append(StatementConflict(holding.symbol, holding.name, holding.shares, derived))
        # the ledger's holding stands (sold out: stays sold); names and role follow the file
        return None if current is None else {k: row[k] for k in ("symbol", "name", "short_names", "role")}
    if last_trade is None:
        return row
    after_trades = _shares_after_trades(ledger, current)
    file_wins = holding.updated_at is not None and holding.updated_at > last_trade
    if after_trades != holding.shares:
        merged.share_conflicts.append(
            ShareConflict(holding.symbol, holding.name, holding.shares, after_trades, file_wins)
        )
    if file_wins:
        row["basis"] = "stated"  # newer than the trades: the file's lot, dated, supersedes them
        return row
    if current is None:  # sold out in conversation: stays sold
        return None
    # the stored lot and the trades after it stand; names and role follow the file
    row.update(shares=current["shares"], cost=current["cost"], basis=current.get("basis", "stated"))
    row.pop("updated_at", None)
    return row


def _merge_holdings(db: Database, ledger: LedgerFills, items: list[Holding], merged: MergeResult) -> SectionResult:
    stored = {r["symbol"]: r for r in dict_rows(db, "select * from holdings")}
    traded = _last_conversation_trades(db)
    result = SectionResult(conversation=sum(symbol in traded for symbol in stored))
    table, added = db["holdings"], []
    for holding in items:
        current = stored.get(holding.symbol)
        row = _file_row(ledger, holding, current, traded.get(holding.symbol), merged)
        if row is None:
            continue
        if current is None:
            added.append(row)
            continue
        changes = {k: v for k, v in row.items() if v != current[k]}
        if changes:
            table.update(holding.symbol, changes)
            result.updated += 1
    table.insert_all(added)
    result.added, result.left_alone = len(added), len(stored) - result.updated
    return result


def _merge_persona(db: Database, persona: dict[str, str], at: str | None) -> SectionResult:
    stored = {r["key"]: r["value"] for r in dict_rows(db, "select key, value from persona")}
    result = SectionResult()
    for key, value in persona.items():
        if key not in stored:
            db["persona"].insert({"key": key, "value": value, "updated_at": at})
            result.added += 1
        elif stored[key] != value:
            db["persona"].update(key, {"value": value, "updated_at": at})
            result.updated += 1
    result.left_alone = len(stored) - result.updated
    return result


def merge_document(db: Database, data: DomainData, ledger: LedgerFills) -> MergeResult:
    """One transaction: a failure part-way leaves the data set as it was. The file's holdings
    are held against what `ledger` (the account's fills, read through the account's handle)
    leaves them at."""
    merged, decisions = MergeResult(), {}
    with write_transaction(db):
        merged.sections["holdings"] = _merge_holdings(db, ledger, data.holdings, merged)
        for spec in SPECS:
            merged.sections[spec.section], ids = _merge_rows(db, spec, getattr(data, spec.section))
            if spec.section == "decisions":
                decisions = {d.id: i for d, i in zip(data.decisions, ids) if d.id}
        merged.sections["persona"] = _merge_persona(db, data.persona, data.read_at)
        if data.account is not None:
            merged.account = merge_ledger(db, data.account, decisions)
    return merged
