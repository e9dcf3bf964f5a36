"""The user's stated caps, stops and plan prices, gathered from their rule notes (in force
until withdrawn, whatever their age), their live plans and the persona: the rules the
brief checks against stored prices and the valuation's weights."""

from __future__ import annotations

from pixiu_cli.home.store import InvestorStore
from pixiu_cli.market.analytics.stated_rules import StatedRule, stated_rules, unique
from pixiu_cli.memory.store import note_ref

NOTES_READ = 500


def user_rules(domain: InvestorStore, until: str) -> list[StatedRule]:
    rules: list[StatedRule] = []
    for key, value in domain.persona().items():
        rules += stated_rules(value, None, f"画像 {key}")
    # the rule notes are no windowed note: recent_notes leaves them to rules()
    notes = [*domain.rules(until, NOTES_READ), *domain.recent_notes("", until, NOTES_READ)]
    for note in notes:
        if note.note_kind in ("rule", "plan"):
            rules += stated_rules(note.text, note.symbol, f"笔记 {note_ref(note.id)}", is_plan=note.note_kind == "plan")
    return unique(rules)
