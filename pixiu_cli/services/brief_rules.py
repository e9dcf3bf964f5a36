"""The user's stated caps, stops and plan prices, gathered from their live notes (rules and
plans) and the persona: the rules the brief checks against stored prices."""

from __future__ import annotations

from pixiu_cli.analytics.stated_rules import StatedRule, stated_rules, unique
from pixiu_cli.store.domain import DomainStore
from pixiu_cli.store.memory import note_ref

NOTES_READ = 500


def user_rules(domain: DomainStore, until: str) -> list[StatedRule]:
    rules: list[StatedRule] = []
    for key, value in domain.persona().items():
        rules += stated_rules(value, None, f"画像 {key}")
    for note in domain.recent_notes("", until, NOTES_READ):
        if note.note_kind in ("rule", "plan"):
            rules += stated_rules(note.text, note.symbol, f"笔记 {note_ref(note.id)}", is_plan=note.note_kind == "plan")
    return unique(rules)
