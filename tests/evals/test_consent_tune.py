"""The project's own consent tune set (tests/fixtures/consent_tune.json): messages of every
family — fills reported in each completion style, negations, hypotheses, the future, orders
not filled, other people's trades, questions, calculations, conditional orders, retractions
and messages that hold two trades — each with the `record_decision` call an eager model would
make, scored through the real tool exactly as the held-out consent eval scores its set."""

from __future__ import annotations

import json
from pathlib import Path

from pixiu_cli.evals.answers import run_consent

TUNE = Path(__file__).parents[1] / "fixtures" / "consent_tune.json"


def test_the_tune_set_is_recorded_exactly_when_the_user_reports_a_fill():
    cases = [dict(case, id=f"tune{i}") for i, case in enumerate(json.loads(TUNE.read_text(encoding="utf-8")))]
    report = run_consent(cases)
    weak = {family: (passed, total) for family, (passed, total) in report.by_category().items() if passed < 0.9 * total}
    assert report.pass_rate >= 0.97 and not weak, (report.pass_rate, weak, report.failure_lines())
