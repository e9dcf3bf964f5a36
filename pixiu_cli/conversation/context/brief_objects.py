"""A brief's items are objects a follow-up can point to: the stocks the briefs a turn read
named (今天的简报说了什么 → 里面点名的那只该怎么办).

Given the selection of an earlier turn that asked about the brief, `BriefObjects` reads the
reports that turn's block showed (its reports window, moved by its time words, else the
configured one) and finds the stocks each conclusion names with the turn's own name table —
the one name matcher — oldest report first, so the newest brief's stock is the one last named."""

from __future__ import annotations

from datetime import datetime, time

from pixiu_cli.conversation.context.memory import MemoryLimits, window_bounds
from pixiu_cli.conversation.selection.names import INDEX, SHADOW, NameTable
from pixiu_cli.conversation.selection.normalize import normalize
from pixiu_cli.conversation.selection.result import Carried, Selection
from pixiu_cli.home.store import InvestorStore


class BriefObjects:
    def __init__(self, domain: InvestorStore, table: NameTable, limits: MemoryLimits, now: datetime):
        self.domain, self.table, self.limits, self.now = domain, table, limits, now

    def __call__(self, selection: Selection) -> tuple[Carried, ...]:
        found: dict[str, Carried] = {}
        for report in reversed(self._reports(selection)):
            for match in self.table.matches(normalize(report.conclusion or "")):
                name = match.name
                if name.symbol and name.kind not in (SHADOW, INDEX):
                    found.pop(name.symbol, None)  # the newest brief naming it is the one said
                    found[name.symbol] = Carried(name.symbol, 0, "", f"简报「{report.title}」点名")
        return tuple(found.values())

    def _reports(self, selection: Selection) -> list:
        """The reports of the period the turn named (昨天的简报: yesterday's alone, though
        its block also showed the days after), else of the configured window."""
        move = selection.window("reports")
        if move is None:
            since, until = window_bounds(self.now, self.limits.reports_days)
        else:
            since = datetime.combine(move.start, time(0, 0), self.now.tzinfo).isoformat(timespec="seconds")
            end = min(datetime.combine(move.end, time(23, 59, 59), self.now.tzinfo), self.now)
            until = end.isoformat(timespec="seconds")
        return self.domain.recent_reports(since, until, self.limits.reports_limit)
