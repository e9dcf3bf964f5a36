"""The push log: per channel, what a push of a brief or an alert did. An alert is claimed for
a channel (a row with status `sending`) before it is sent, in one transaction, so two syncs
at once, or a sync after a crash mid-send, never send one firing to one channel twice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlite_utils import Database

from pixiu_cli.kernel.db.database import write_transaction
from pixiu_cli.kernel.db.rows import dict_rows, record
from pixiu_cli.market.analytics.model import FiredAlert


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
