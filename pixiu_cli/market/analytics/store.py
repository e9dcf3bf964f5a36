"""What local analytics write: every strategy's backtest, the selected profile (the row the
memory classes read), computed signals, alert rules and the alerts they fire, and each
decision's scored outcome."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields

from pixiu_cli.home.model import Decision, decision_from_row
from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import dict_rows, record
from pixiu_cli.market.analytics.model import AlertRule, BacktestRow, ComputedProfile, DecisionScore, FiredAlert


def _rule(r) -> AlertRule:
    return record(AlertRule, r, "alert_rules", exact=True)


def _fields(row) -> dict:
    """A flat dataclass's fields by name (asdict deep-copies every value: ~0.2 ms a row)."""
    return {f.name: getattr(row, f.name) for f in fields(row)}


class AnalyticsStore:
    def __init__(self, db: Database):
        self.db = db

    # profiles --------------------------------------------------------------------------
    def save_profile(self, rows: Sequence[BacktestRow], profile: ComputedProfile) -> None:
        """Replace what was computed for this symbol on this as-of date, in one transaction."""
        with write_transaction(self.db):
            conn = self.db.conn
            conn.execute("delete from backtests where symbol = ? and as_of = ?", [profile.symbol, profile.as_of])
            for row in rows:
                values = _fields(row)
                values["selected"] = int(row.selected)
                conn.execute(
                    f"insert into backtests ({', '.join(values)}) values ({', '.join('?' * len(values))})",
                    list(values.values()),
                )
            conn.execute(
                "delete from profiles where symbol = ? and as_of = ? and source = 'computed'",
                [profile.symbol, profile.as_of],
            )
            values = {**_fields(profile), "source": "computed"}
            conn.execute(
                f"insert into profiles ({', '.join(values)}) values ({', '.join('?' * len(values))})",
                list(values.values()),
            )

    def backtests(self, symbols: Sequence[str] | None = None) -> list[BacktestRow]:
        """Each symbol's newest computation, every strategy."""
        where, params = "", []
        if symbols:  # in the newest-per-symbol subquery too, or it reads every symbol's rows
            where = f"where symbol in ({', '.join('?' * len(symbols))})"
            params = list(symbols)
        rows = dict_rows(
            self.db,
            f"""
            select b.* from backtests b
            join (select symbol, max(as_of) as as_of from backtests {where} group by symbol) latest
              on latest.symbol = b.symbol and latest.as_of = b.as_of
            order by b.symbol, b.id""",
            params,
        )
        return [record(BacktestRow, r, "backtests") for r in rows]

    # signals ---------------------------------------------------------------------------
    def save_signal(self, symbol: str, score: float, direction: str, components: dict, as_of: str) -> None:
        with write_transaction(self.db):
            self.db.conn.execute(
                "delete from signals where symbol = ? and as_of = ? and source = 'computed'", [symbol, as_of]
            )
            self.db.conn.execute(
                "insert into signals (symbol, score, direction, components, as_of, source) "
                "values (?, ?, ?, ?, ?, 'computed')",
                [symbol, score, direction, json.dumps(components, ensure_ascii=False), as_of],
            )

    # alerts ----------------------------------------------------------------------------
    def add_rule(
        self,
        *,
        symbol: str,
        kind: str,
        threshold: float,
        created_at: str,
        source: str,
        cooldown_days: int = 5,
        checked_through: str | None = None,
    ) -> int:
        with write_transaction(self.db):
            cursor = self.db.conn.execute(
                "insert into alert_rules (symbol, kind, threshold, cooldown_days, created_at, source, "
                "checked_through) values (?, ?, ?, ?, ?, ?, ?)",
                [symbol, kind, threshold, cooldown_days, created_at, source, checked_through],
            )
        return cursor.lastrowid

    def rules(self, symbols: Sequence[str] | None = None) -> list[AlertRule]:
        rows = dict_rows(self.db, "select * from alert_rules where deleted_at is null order by id")
        return [_rule(r) for r in rows if not symbols or r["symbol"] in symbols]

    def rule(self, rule_id: int) -> AlertRule | None:
        rows = dict_rows(self.db, "select * from alert_rules where id = ? and deleted_at is null", [rule_id])
        return _rule(rows[0]) if rows else None

    def remove_rule(self, rule_id: int, at: str) -> bool:
        with write_transaction(self.db):
            cursor = self.db.conn.execute(
                "update alert_rules set deleted_at = ? where id = ? and deleted_at is null", [at, rule_id]
            )
        return cursor.rowcount > 0

    def record_check(self, rule_id: int, *, through: str, fired: Sequence[tuple[str, str, str, str]], at: str) -> int:
        """Store the alerts a rule fired — (bar_date, rule_text, message, triggered_at) — at most
        once per bar date, and how far the rule has been checked; `at`: when this check found
        them (an alert dated at an old close can be found long after it). Returns how many
        were new."""
        new = 0
        with write_transaction(self.db):
            rule = self.db.conn.execute("select symbol from alert_rules where id = ?", [rule_id]).fetchone()
            for bar_date, text, message, fired_at in fired:
                cursor = self.db.conn.execute(
                    "insert or ignore into alerts (symbol, rule, message, triggered_at, rule_id, bar_date, recorded_at) "
                    "values (?, ?, ?, ?, ?, ?, ?)",
                    [rule[0], text, message, fired_at, rule_id, bar_date, at],
                )
                new += cursor.rowcount
            last = max((f[0] for f in fired), default=None)
            self.db.conn.execute(
                "update alert_rules set checked_through = ?, last_fired_on = coalesce(?, last_fired_on) where id = ?",
                [through, last, rule_id],
            )
        return new

    def unseen_alerts(self) -> list[FiredAlert]:
        return [
            record(FiredAlert, r, "alerts")
            for r in dict_rows(
                self.db, "select * from alerts where rule_id is not null and seen_at is null order by bar_date, id"
            )
        ]

    def mark_seen(self, ids: Sequence[int], at: str) -> None:
        if not ids:
            return
        with write_transaction(self.db):
            self.db.conn.execute(f"update alerts set seen_at = ? where id in ({', '.join('?' * len(ids))})", [at, *ids])

    # decisions -------------------------------------------------------------------------
    def save_scores(self, scores: Sequence[DecisionScore]) -> None:
        with write_transaction(self.db):
            self.db.conn.executemany(
                "update decisions set return_5d = ?, return_20d = ?, outcome_5d = ?, outcome_20d = ?, "
                "vs_stock_5d = ?, vs_stock_20d = ?, scored_at = ? where id = ?",
                [
                    [
                        s.return_5d,
                        s.return_20d,
                        s.outcome_5d,
                        s.outcome_20d,
                        s.vs_stock_5d,
                        s.vs_stock_20d,
                        s.scored_at,
                        s.decision_id,
                    ]
                    for s in scores
                ],
            )

    def decisions(self, symbols: Sequence[str] | None = None) -> list[Decision]:
        """Every decision in force, or those of `symbols` only (read by the (symbol,
        decided_at) index): one withdrawn with /forget dN is no longer on the record."""
        if not symbols:
            return [
                decision_from_row(r)
                for r in dict_rows(self.db, "select * from decisions where deleted_at is null order by decided_at, id")
            ]
        wanted, rows = sorted(set(symbols)), []
        for start in range(0, len(wanted), 500):  # SQLite's variable limit is 999 on old builds
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows += dict_rows(
                self.db, f"select * from decisions where symbol in ({marks}) and deleted_at is null", chunk
            )
        return [decision_from_row(r) for r in sorted(rows, key=lambda r: (r["decided_at"], r["id"]))]

    def scores(self) -> dict[int, DecisionScore]:
        return {
            r["id"]: record(DecisionScore, r, "decisions", decision_id=r["id"])
            for r in dict_rows(self.db, "select * from decisions where scored_at is not null")
        }
