"""Daily briefs: each one's conclusion as a `reports` row (the 近期报告结论 memory class),
saying which brief and which turn produced it, and the brief's own figures, from which the
next brief says what changed since.

The push log: per channel, what a push of a brief or an alert did. An alert is claimed for
a channel (a row with status `sending`) before it is sent, in one transaction, so two syncs
at once, or a sync after a crash mid-send, never send one firing to one channel twice."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from pixiu_cli.home.model import Signal, signal_from_row
from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import dict_rows, json_column, record
from pixiu_cli.market.analytics.model import FiredAlert

BRIEF_ORIGIN = "brief"


@dataclass(frozen=True)
class StoredBrief:
    id: int
    report_id: int
    as_of: str
    created_at: str
    conversation_id: int
    turn_seq: int
    facts: dict  # what the brief computed (see services/brief_facts.py: BriefFacts.snapshot)


@dataclass(frozen=True)
class BriefReport:
    title: str
    symbols: list[str]
    conclusion: str
    as_of: str
    created_at: str
    conversation_id: int
    turn_id: int
    turn_seq: int


def _brief(r: dict) -> StoredBrief:
    return StoredBrief(
        r["id"],
        r["report_id"],
        r["as_of"],
        r["created_at"],
        r["conversation_id"],
        r["turn_seq"],
        json_column(r["facts_json"], {}),
    )


class BriefStore:
    def __init__(self, db: Database):
        self.db = db

    def last(self) -> StoredBrief | None:
        rows = dict_rows(self.db, "select * from briefs order by created_at desc, id desc limit 1")
        return _brief(rows[0]) if rows else None

    def of_report(self, report_id: int) -> StoredBrief | None:
        """The brief whose conclusion is report `report_id`."""
        rows = dict_rows(self.db, "select * from briefs where report_id = ? order by id desc limit 1", [report_id])
        return _brief(rows[0]) if rows else None

    def save(self, report: BriefReport, facts: dict) -> tuple[int, int]:
        """The report row and the brief row, in one transaction: (report id, brief id)."""
        with write_transaction(self.db):
            report_id = (
                self.db["reports"]
                .insert(
                    {
                        "title": report.title,
                        "symbols": json.dumps(report.symbols, ensure_ascii=False),
                        "conclusion": report.conclusion,
                        "created_at": report.created_at,
                        "as_of": report.as_of,
                        "origin": BRIEF_ORIGIN,
                        "conversation_id": report.conversation_id,
                        "turn_id": report.turn_id,
                        "turn_seq": report.turn_seq,
                    }
                )
                .last_pk
            )
            brief_id = (
                self.db["briefs"]
                .insert(
                    {
                        "report_id": report_id,
                        "as_of": report.as_of,
                        "created_at": report.created_at,
                        "conversation_id": report.conversation_id,
                        "turn_id": report.turn_id,
                        "turn_seq": report.turn_seq,
                        "facts_json": json.dumps(facts, ensure_ascii=False),
                    }
                )
                .last_pk
            )
        return report_id, brief_id

    def signals(self, symbol: str, limit: int = 2) -> list[Signal]:
        """The newest signals of a stock, newest first."""
        rows = dict_rows(
            self.db, "select * from signals where symbol = ? order by as_of desc, id desc limit ?", [symbol, limit]
        )
        return [signal_from_row(r) for r in rows]


@dataclass(frozen=True)
class PushRecord:
    kind: str
    ref: int
    channel: str
    status: str
    parts: int
    detail: str
    at: str


class PushLog:
    def __init__(self, db: Database):
        self.db = db

    def record(self, kind: str, ref: int, channel: str, status: str, parts: int, detail: str, at: str) -> None:
        with write_transaction(self.db):
            self.db.conn.execute(
                "insert into push_log (kind, ref, channel, status, parts, detail, at) values (?, ?, ?, ?, ?, ?, ?)",
                [kind, ref, channel, status, parts, detail, at],
            )

    def claim_alerts(self, alert_ids: Sequence[int], channel: str, at: str) -> list[int]:
        """The alerts of `alert_ids` not yet claimed for `channel`, now claimed for it."""
        claimed = []
        with write_transaction(self.db):
            for alert_id in alert_ids:
                cursor = self.db.conn.execute(
                    "insert or ignore into push_log (kind, ref, channel, status, parts, detail, at) "
                    "values ('alert', ?, ?, 'sending', 0, '', ?)",
                    [alert_id, channel, at],
                )
                if cursor.rowcount:
                    claimed.append(alert_id)
        return claimed

    def settle_alerts(self, alert_ids: Sequence[int], channel: str, status: str, detail: str, at: str) -> None:
        if not alert_ids:
            return
        marks = ", ".join("?" * len(alert_ids))
        with write_transaction(self.db):
            self.db.conn.execute(
                f"update push_log set status = ?, detail = ?, at = ? "
                f"where kind = 'alert' and channel = ? and ref in ({marks})",
                [status, detail, at, channel, *alert_ids],
            )

    def last_alert_id(self) -> int:
        row = self.db.conn.execute("select coalesce(max(id), 0) from alerts").fetchone()
        return int(row[0])

    def alerts_after(self, alert_id: int) -> list[FiredAlert]:
        """The alerts rules fired after `alert_id`, in the order they were found."""
        rows = dict_rows(self.db, "select * from alerts where id > ? and rule_id is not null order by id", [alert_id])
        return [record(FiredAlert, r, "alerts") for r in rows]

    def of(self, kind: str, ref: int) -> list[PushRecord]:
        rows = dict_rows(
            self.db,
            "select kind, ref, channel, status, parts, detail, at from push_log where kind = ? and ref = ? order by id",
            [kind, ref],
        )
        return [record(PushRecord, r, "push_log") for r in rows]
