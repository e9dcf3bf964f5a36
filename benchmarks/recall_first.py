"""Token cost of recall first (issue 27): the compact overview a question about the user's own
money gets when its intent is uncertain (`selection.intent._own_money`).

Every shipped context eval case (``data/evals/``) and every case of the selection corpus
(tune, held-out and frozen parts) is built twice in this process, with the rule and
without it (the same engine with `_own_money` taken out of the decision's rules), and the
blocks' token counts compared. Printed per corpus: cases, how many the rule changed, the
extra tokens in total and per changed case, the share of all block tokens, and what the
full overview would have added instead of the compact one. Exits 0.

Run:  python benchmarks/recall_first.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pixiu_cli.conversation.selection import intent  # noqa: E402
from pixiu_cli.evals.contexts import load_cases, run_evals, selection_corpus


def _tokens(cases) -> dict[str, tuple[int, str]]:
    intent._fired.cache_clear()
    report = run_evals(cases)
    return {r.id: (r.tokens or 0, r.intent or "") for r in report.results}


def _without_recall_first(cases) -> dict[str, tuple[int, str]]:
    rules = intent._RULES
    intent._RULES = tuple(rule for rule in rules if rule is not intent._own_money)
    try:
        return _tokens(cases)
    finally:
        intent._RULES = rules


def _full_overview(cases) -> dict[str, tuple[int, str]]:
    """The rule with the full overview instead of the compact one, for comparison."""
    rule = intent._own_money

    def full(reading):
        result = rule(reading)
        return None if result is None else intent.IntentResult(result.intent, True, result.cues, result.reason)

    rules = intent._RULES
    intent._RULES = tuple(full if r is rule else r for r in rules)
    try:
        return _tokens(cases)
    finally:
        intent._RULES = rules


def main() -> int:
    corpora = {"shipped evals": load_cases(None), **selection_corpus()}
    for name, cases in corpora.items():
        with_rule, without, full = _tokens(cases), _without_recall_first(cases), _full_overview(cases)
        changed = [k for k in with_rule if with_rule[k] != without[k]]
        extra = sum(with_rule[k][0] - without[k][0] for k in changed)
        total = sum(t for t, _ in with_rule.values())
        per = extra / len(changed) if changed else 0
        full_extra = sum(full[k][0] - without[k][0] for k in changed)
        print(
            f"{name:<14} {len(cases):4d} cases  recall first changed {len(changed):3d}  "
            f"+{extra:,} tokens (+{per:.0f} a changed case, {extra / total:.2%} of all block tokens; "
            f"the full overview would add {full_extra:,})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
