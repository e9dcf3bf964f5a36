"""`pixiu import` without `--replace`: merge a document into the data set by natural key.

A row of the file that matches a stored row (same natural key) updates it; one that matches
none is added; stored rows the file does not mention are left alone, so nothing the user
said in conversation is lost by importing a file again. Notes and decisions made in
conversation (source `user` or `model`), and notes the user deleted, are never changed by a
merge. A holding that trades recorded in conversation have changed keeps what those trades
left unless the file's row is dated after the last of them; either way a difference in
shares is reported. The account's fills merge by fill_id and its stated balances by what
they say (store/ledger_rows.py).

The whole data set as one document, and the database as one file: import (merge or
replace), export, backup and restore."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlite_utils import Database

from pixiu_cli.account.overview import ledger_rows_refusal
from pixiu_cli.home.document_file import DatasetError, export_document, load_document
from pixiu_cli.home.model import LEDGER, DomainData, Holding
from pixiu_cli.home.store import LedgerMerge, insert_row, merge_ledger, unknown_columns
from pixiu_cli.kernel.db.backup import (
    Salvaged,
    backup_database,
    check_pixiu_database,
    clean_partials,
    is_damaged,
    prune_backups,
    restore_database,
    salvage,
    set_aside,
)
from pixiu_cli.kernel.db.database import open_database, write_transaction
from pixiu_cli.kernel.db.rows import dict_rows
from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import CONVERSATION_SOURCES


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


def _shares_after_trades(db: Database, current: dict | None) -> float:
    """The shares the ledger leaves the stored holding at (its stated lot and the fills after
    it; corporate actions are the account's to add when it is read)."""
    if current is None:
        return 0.0
    from decimal import Decimal

    from pixiu_cli.account.ledger import StatedLot, position
    from pixiu_cli.account.store import AccountStore

    symbol = current["symbol"]
    fills = AccountStore(db).fills(symbol)
    if current.get("basis") == "ledger":
        return float(position(symbol, fills).shares) if fills else float(current["shares"] or 0)
    day = (current["updated_at"] or "")[:10]
    lot = StatedLot(
        symbol, Decimal(repr(float(current["shares"] or 0))), Decimal(repr(float(current["cost"] or 0))), day
    )
    return float(position(symbol, fills, lot=lot).shares)


def _from_statements(db: Database, holding: Holding, current: dict | None) -> float | None:
    """The shares broker statements derive for the stock the file states a holding of (the
    ledger's copy of the holding, or none when they sold it all), or None when the holding is
    not theirs: no statement has its fills, or a holding stated (by a file, an edit) stands."""
    from pixiu_cli.account.store import AccountStore

    if holding.basis == LEDGER:
        return None  # the file's row is a copy of its own ledger, stating nothing
    if current is not None and current.get("basis") != LEDGER:
        return None
    if not any(f.origin == "statement" for f in AccountStore(db).fills(holding.symbol)):
        return None
    return float(current["shares"] or 0) if current is not None else 0.0


def _file_row(db: Database, holding: Holding, current: dict | None, last_trade: str | None, merged: MergeResult):
    """The row the file's holding writes, or None when it writes nothing: statements' fills
    and trades told in conversation keep what they left (each difference reported)."""
    row = _db_row("holdings", holding)
    if row["updated_at"] is None:  # a file without dates does not erase the stored one
        del row["updated_at"]
    row["short_names"] = json.dumps(list(holding.short_names), ensure_ascii=False)
    derived = _from_statements(db, holding, current)
    if derived is not None:
        if derived != holding.shares:
            merged.statement_conflicts.append(StatementConflict(holding.symbol, holding.name, holding.shares, derived))
        # the ledger's holding stands (sold out: stays sold); names and role follow the file
        return None if current is None else {k: row[k] for k in ("symbol", "name", "short_names", "role")}
    if last_trade is None:
        return row
    after_trades = _shares_after_trades(db, current)
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


def _merge_holdings(db: Database, items: list[Holding], merged: MergeResult) -> SectionResult:
    stored = {r["symbol"]: r for r in dict_rows(db, "select * from holdings")}
    traded = _last_conversation_trades(db)
    result = SectionResult(conversation=sum(symbol in traded for symbol in stored))
    table, added = db["holdings"], []
    for holding in items:
        current = stored.get(holding.symbol)
        row = _file_row(db, holding, current, traded.get(holding.symbol), merged)
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


def merge_document(db: Database, data: DomainData) -> MergeResult:
    """One transaction: a failure part-way leaves the data set as it was."""
    merged, decisions = MergeResult(), {}
    with write_transaction(db):
        merged.sections["holdings"] = _merge_holdings(db, data.holdings, merged)
        for spec in SPECS:
            merged.sections[spec.section], ids = _merge_rows(db, spec, getattr(data, spec.section))
            if spec.section == "decisions":
                decisions = {d.id: i for d, i in zip(data.decisions, ids) if d.id}
        merged.sections["persona"] = _merge_persona(db, data.persona, data.read_at)
        if data.account is not None:
            merged.account = merge_ledger(db, data.account, decisions)
    return merged


if TYPE_CHECKING:
    from sqlite_utils import Database

    from pixiu_cli.home.model import DomainData

SECTIONS = ("holdings", "profiles", "news", "signals", "reports", "decisions", "alerts", "notes")


@dataclass(frozen=True)
class BackupPlace:
    directory: Path  # PIXIU_HOME/backups
    stem: str  # pixiu | pixiu-demo
    keep: int = 10  # [backup] keep: the newest N stay (0: all)


@dataclass(frozen=True)
class SavedBackup:
    path: Path
    pruned: tuple[Path, ...] = ()  # older backups removed to keep the newest `keep`
    cleaned: tuple[Path, ...] = ()  # partial files interrupted backups had left
    kept: int = 0  # the [backup] keep setting the pruning followed

    def __str__(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class DocumentImport:
    replaced: bool
    backup: Path | None  # where the database was saved before a replace
    counts: dict[str, int] = field(default_factory=dict)  # rows per section of the document
    persona_items: int = 0
    merge: MergeResult | None = None  # what a merge added, updated and left alone
    account: tuple[int, int] | None = None  # the file's fills and cash balances; None: it has no account


@dataclass(frozen=True)
class DocumentExport:
    text: str  # the JSON document
    notes: list[str]  # what had to change so it re-imports


def backup(db: Database, place: BackupPlace, now: datetime) -> SavedBackup:
    """A new backup, then the folder tidied: interrupted backups' partial files removed and
    only the newest `place.keep` backups kept."""
    path = backup_database(db, place.directory, now, place.stem)
    cleaned = clean_partials(place.directory)
    pruned = prune_backups(place.directory, place.stem, place.keep)
    return SavedBackup(path, tuple(pruned), tuple(cleaned), place.keep)


OnBackup = Callable[[SavedBackup], None]  # told where the backup went before the change is made


def import_document(
    db: Database, path: Path, now: datetime, *, replace: bool, place: BackupPlace, on_backup: OnBackup | None = None
) -> DocumentImport:
    """Merge by natural keys (notes and trades recorded in conversation are never touched),
    or replace everything after a backup. A file with any error imports nothing."""
    try:
        data = load_document(path, now)
    except DatasetError as exc:
        raise RequestError(f"导入失败，未做任何修改：{exc}") from None
    if data.account is not None and (unknown := unknown_columns(db, data.account)):
        raise RequestError(
            f"导入失败，未做任何修改：{unknown[0]}：这个版本的 pixiu 没有这一项（文件可能由更新版本的 pixiu 导出）"
        )
    if data.account is not None and (refused := ledger_rows_refusal(db, data.account.fills, now)):
        raise RequestError(f"导入失败，未做任何修改：{refused}")
    saved, merged = None, None
    if replace:
        saved = backup(db, place, now)
        if on_backup:
            on_backup(saved)
        stores_of(db).investor.replace_all(_stated_now(db, data, now))
    else:
        merged = merge_document(db, data)
    _register_securities(db, data)
    counts = {name: len(getattr(data, name)) for name in SECTIONS}
    ledger = (len(data.account.fills), len(data.account.cash)) if data.account is not None else None
    return DocumentImport(replace, saved.path if saved else None, counts, len(data.persona), merged, ledger)


def _stated_now(db: Database, data: DomainData, now: datetime) -> DomainData:
    """With --replace the file's holdings win. One without a date, of a stock whose fills the
    ledger keeps (the document brings no account), is the holding as of this import: else
    every kept fill would move it again, the file's shares plus the statements'."""
    if data.account is not None:
        return data
    traded = set(stores_of(db).account.symbols())
    at = now.isoformat(timespec="seconds")
    holdings = [
        dataclasses.replace(h, updated_at=at) if h.updated_at is None and h.symbol in traded else h
        for h in data.holdings
    ]
    return dataclasses.replace(data, holdings=holdings)


def _register_securities(db: Database, data) -> None:
    """Every stock the import has data about joins the security master, so its name is
    recognised in questions even when it is not held (五粮液 with a stored profile)."""
    from pixiu_cli.conversation.selection.names import securities_for_document

    stores_of(db).securities.upsert(securities_for_document(data), keep_names=True)


def export(db: Database, now: datetime) -> DocumentExport:
    document, notes = export_document(stores_of(db).investor.export(), now)
    return DocumentExport(json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False), notes)


OnSetAside = Callable[[Path], None]  # told where a damaged database was moved


def restore(
    target: Path,
    source: Path,
    place: BackupPlace,
    now: datetime,
    on_backup: OnBackup | None = None,
    on_set_aside: OnSetAside | None = None,
) -> Path:
    """Replace the database at `target` with the backup `source` (checked first); the
    current database is backed up before, or, when it is damaged, moved into the backups
    folder without being opened. Returns where the current database went."""
    check_pixiu_database(source)
    if target.exists() and source.resolve() == target.resolve():
        raise RequestError("不能用正在使用的数据库文件还原它自己")
    if is_damaged(target):
        kept = set_aside(target, place.directory, now)
        if on_set_aside:
            on_set_aside(kept)
        db = open_database(target)
        try:
            restore_database(db, source)
        finally:
            db.close()
        return kept
    db = open_database(target)
    try:
        saved = backup(db, place, now)
        if on_backup:
            on_backup(saved)
        restore_database(db, source)
    finally:
        db.close()
    return saved.path


@dataclass(frozen=True)
class SalvageResult:
    damaged: Path  # where the damaged file was moved (the rows were read from there)
    salvaged: Salvaged


def restore_salvaged(target: Path, place: BackupPlace, now: datetime) -> SalvageResult:
    """Move the damaged database at `target` aside and build a new one from every row that
    can still be read from it."""
    if not target.exists():
        raise RequestError(f"找不到数据库 {target}，没有可抢救的内容")
    if not is_damaged(target):
        raise RequestError(f"数据库 {target} 完好（quick_check 通过），不需要抢救；要回到备份请用 pixiu restore FILE")
    kept = set_aside(target, place.directory, now)
    db = open_database(target)
    try:
        salvaged = salvage(kept, db)
    finally:
        db.close()
    return SalvageResult(kept, salvaged)
