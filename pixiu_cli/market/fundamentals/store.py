"""Fundamentals tables: daily valuation, report periods, dividends, 业绩预告 / 快报 and which
stocks keep them. Numbers are stored as decimal text and read back as `Decimal`; a stored
value that spells no number reads as None (shown as —), never a failed turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from decimal import Decimal

from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import MAX_READABLE, dict_rows, optional_text, text
from pixiu_cli.market.fundamentals.model import (
    Dividend,
    FinancialReport,
    FundamentalsWrite,
    ReportNotice,
    ValuationDay,
    decimal_of,
)
from pixiu_cli.market.plausible import (
    DIVIDEND_FIGURES,
    NOTICE_FIGURES,
    REPORT_FIGURES,
    VALUATION_FIGURES,
    within_bounds,
)

_VALUATION = ("symbol", "date", "source", "close", "pe_ttm", "pb_mrq", "ps_ttm", "pcf_ttm", "total_mv", "float_mv")
_REPORT = tuple(f.name for f in fields(FinancialReport))
_DIVIDEND = tuple(f.name for f in fields(Dividend))
_NOTICE = tuple(f.name for f in fields(ReportNotice))


def decimal_text(value) -> str | None:
    return None if value is None else str(value)


def read_decimal(value) -> Decimal | None:
    """A stored figure; None for one that spells no number or lies past MAX_READABLE (shown —)."""
    parsed = decimal_of(text(value)) if value is not None else None
    return parsed if parsed is not None and abs(parsed) <= _READABLE else None


_READABLE = Decimal(str(MAX_READABLE))


def _read(cls, row: dict):
    """A row as its dataclass; a figure outside the bounds the sync's gate keeps reads as None."""
    values = {}
    figures = _FIGURES.get(cls, {})
    for f in fields(cls):
        raw = row.get(f.name)
        values[f.name] = (
            within_bounds(f.name, read_decimal(raw), figures)
            if "Decimal" in str(f.type)
            else (text(raw) if f.type == "str" else optional_text(raw))
        )
    return cls(**values)


_FIGURES = {
    ValuationDay: VALUATION_FIGURES,
    FinancialReport: REPORT_FIGURES,
    Dividend: DIVIDEND_FIGURES,
    ReportNotice: NOTICE_FIGURES,
}


def _values(item, columns: Sequence[str]) -> list:
    return [v if isinstance(v := getattr(item, c), str | None) else decimal_text(v) for c in columns]


def _insert(
    db: Database, table: str, columns: Sequence[str], rows: list[list], verb: str = "insert or replace"
) -> None:
    marks = ", ".join("?" for _ in columns)
    db.conn.executemany(f"{verb} into {table} ({', '.join(columns)}) values ({marks})", rows)


class FundamentalsStore:
    def __init__(self, db: Database):
        self.db = db

    # writes ----------------------------------------------------------------------
    def write(self, w: FundamentalsWrite) -> None:
        """One stock's sync in one transaction: valuation days and report periods upserted,
        the source's dividends replaced, notices upserted, the sync stamped."""
        stamp = [w.at]
        with write_transaction(self.db):
            rows = [_values(v, _VALUATION) + stamp for v in w.valuations]
            _insert(self.db, "valuation_days", (*_VALUATION, "fetched_at"), rows)
            if w.reports_fetched:  # the source's answer is its whole dividend list: plans change until paid
                _insert(
                    self.db,
                    "financial_reports",
                    (*_REPORT, "fetched_at"),
                    [_values(r, _REPORT) + stamp for r in w.reports],
                )
                self.db.conn.execute("delete from dividends where symbol = ? and source = ?", [w.symbol, w.source])
                rows = [_values(d, _DIVIDEND) + stamp for d in w.dividends]
                _insert(self.db, "dividends", (*_DIVIDEND, "fetched_at"), rows, "insert")
                _insert(
                    self.db,
                    "report_notices",
                    (*_NOTICE, "fetched_at"),
                    [_values(n, _NOTICE) + stamp for n in w.notices],
                )
            self.db.conn.execute(
                "insert into fundamentals_sync (symbol, source, last_sync_at, reports_at, last_error, errored_at) "
                "values (?, ?, ?, ?, null, null) on conflict(symbol) do update set source = excluded.source, "
                "last_sync_at = excluded.last_sync_at, reports_at = coalesce(excluded.reports_at, reports_at), "
                "last_error = null, errored_at = null",
                [w.symbol, w.source, w.at, w.at if w.reports_fetched else None],
            )

    def mark_failed(self, symbol: str, error: str, at: str) -> None:
        """A failed sync keeps what is stored and says why."""
        with write_transaction(self.db):
            self.db.conn.execute(
                "insert into fundamentals_sync (symbol, last_error, errored_at) values (?, ?, ?) "
                "on conflict(symbol) do update set last_error = excluded.last_error, errored_at = excluded.errored_at",
                [symbol, error, at],
            )

    # reads -----------------------------------------------------------------------
    def kept(self) -> list[str]:
        """The stocks whose fundamentals were ever synced (a daily sync keeps these current)."""
        return [text(r[0]) for r in self.db.conn.execute("select symbol from fundamentals_sync order by symbol")]

    def sync_state(self, symbol: str) -> dict | None:
        rows = dict_rows(self.db, "select * from fundamentals_sync where symbol = ?", [symbol])
        return rows[0] if rows else None

    def valuations(self, symbol: str, start: str = "") -> list[ValuationDay]:
        rows = dict_rows(
            self.db,
            f"select {', '.join(_VALUATION)} from valuation_days where symbol = ? and date >= ? order by date",
            [symbol, start],
        )
        return [_read(ValuationDay, r) for r in rows]

    def last_valuation_date(self, symbol: str) -> str | None:
        row = self.db.conn.execute("select max(date) from valuation_days where symbol = ?", [symbol]).fetchone()
        return optional_text(row[0])

    def reports(self, symbol: str, limit: int = 8) -> list[FinancialReport]:
        """Newest period first."""
        rows = dict_rows(
            self.db, "select * from financial_reports where symbol = ? order by period desc limit ?", [symbol, limit]
        )
        return [_read(FinancialReport, r) for r in rows]

    def dividends(self, symbol: str) -> list[Dividend]:
        """Newest first (by ex-date, a plan without one first)."""
        rows = dict_rows(
            self.db,
            "select * from dividends where symbol = ? order by coalesce(ex_date, '9999') desc, announced desc, id",
            [symbol],
        )
        return [_read(Dividend, r) for r in rows]

    def notices(self, symbol: str, limit: int = 4) -> list[ReportNotice]:
        rows = dict_rows(
            self.db,
            "select * from report_notices where symbol = ? order by period desc, coalesce(published, '') desc limit ?",
            [symbol, limit],
        )
        return [_read(ReportNotice, r) for r in rows]
