"""The whole data set as one document, and the database as one file: import (merge or
replace), export, backup and restore."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.account.overview import ledger_rows_refusal
from pixiu_cli.home.document_file import DatasetError, export_document, load_document
from pixiu_cli.home.handle import Home
from pixiu_cli.home.model import DomainData
from pixiu_cli.home.store import MergeResult, merge_document, unknown_columns
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.backup import (
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
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.names.table import securities_for_document

if TYPE_CHECKING:
    from pixiu_cli.account.handle import Account
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


def backup(home: Home, place: BackupPlace, now: datetime) -> SavedBackup:
    """A new backup of the home's database, then the folder tidied: interrupted backups'
    partial files removed and only the newest `place.keep` backups kept."""
    path = backup_database(home.db, place.directory, now, place.stem)
    cleaned = clean_partials(place.directory)
    pruned = prune_backups(place.directory, place.stem, place.keep)
    return SavedBackup(path, tuple(pruned), tuple(cleaned), place.keep)


OnBackup = Callable[[SavedBackup], None]  # told where the backup went before the change is made


def import_document(
    home: Home,
    account: Account,
    path: Path,
    now: datetime,
    *,
    replace: bool,
    place: BackupPlace,
    on_backup: OnBackup | None = None,
) -> DocumentImport:
    """Merge by natural keys (notes and trades recorded in conversation are never touched),
    or replace everything after a backup. A file with any error imports nothing. The
    document's ledger is checked against the account's (its fills, the market's bars)."""
    db = home.db
    try:
        data = load_document(path, now)
    except DatasetError as exc:
        raise RequestError(f"导入失败，未做任何修改：{exc}") from None
    if data.account is not None and (unknown := unknown_columns(db, data.account)):
        raise RequestError(
            f"导入失败，未做任何修改：{unknown[0]}：这个版本的 pixiu 没有这一项（文件可能由更新版本的 pixiu 导出）"
        )
    if data.account is not None and (refused := ledger_rows_refusal(account, data.account.fills, now)):
        raise RequestError(f"导入失败，未做任何修改：{refused}")
    saved, merged = None, None
    if replace:
        saved = backup(home, place, now)
        if on_backup:
            on_backup(saved)
        home.investor.replace_all(_stated_now(account, data, now))
    else:
        merged = merge_document(db, data, account.store)
    _register_securities(account, data)
    counts = {name: len(getattr(data, name)) for name in SECTIONS}
    ledger = (len(data.account.fills), len(data.account.cash)) if data.account is not None else None
    return DocumentImport(replace, saved.path if saved else None, counts, len(data.persona), merged, ledger)


def _stated_now(account: Account, data: DomainData, now: datetime) -> DomainData:
    """With --replace the file's holdings win. One without a date, of a stock whose fills the
    ledger keeps (the document brings no account), is the holding as of this import: else
    every kept fill would move it again, the file's shares plus the statements'."""
    if data.account is not None:
        return data
    traded = set(account.store.symbols())
    at = now.isoformat(timespec="seconds")
    holdings = [
        dataclasses.replace(h, updated_at=at) if h.updated_at is None and h.symbol in traded else h
        for h in data.holdings
    ]
    return dataclasses.replace(data, holdings=holdings)


def _register_securities(account: Account, data) -> None:
    """Every stock the import has data about joins the security master, so its name is
    recognised in questions even when it is not held (五粮液 with a stored profile)."""

    account.market.securities.upsert(securities_for_document(data), keep_names=True)


def export(home: Home, now: datetime) -> DocumentExport:
    document, notes = export_document(home.investor.export(), now)
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
        saved = backup(Home(db), place, now)
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
