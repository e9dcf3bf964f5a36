"""The consent held-out sets are measured, never tuned on: their files must not change (a
change would make a set measure its own tuning; write a new set instead), and the runner must
be able to tell a record from a proposal on them."""

from __future__ import annotations

import hashlib

import pytest

from pixiu_cli.evals.answers import consent_sets, run_consent
from pixiu_cli.kernel.resources import data_dir

FROZEN = {
    "heldout.json": "ddb62d88b43e90fd3fc473e8052bc2e6bea25b367bc54c01b1c6011ae551e4e9",
    "heldout_2.json": "6752a253d4d5c11631d388128e2e25669d07cebc32c919fb2a163ac018c4bda6",
}


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_the_held_out_set_is_unchanged(name):
    path = data_dir() / "consent" / name
    assert hashlib.sha256(path.read_bytes()).hexdigest() == FROZEN[name], f"{name} changed after it was frozen"


def test_every_set_has_reports_and_non_reports_over_its_own_account():
    for split, (cases, held) in consent_sets().items():
        expected = {c["expected"] for c in cases}
        assert expected == {"record", "propose"} and len(cases) >= 200, split
        assert {c["call"]["symbol"] for c in cases} <= {row[0] for row in held}, split


def test_the_runner_fails_a_case_whose_expectation_is_wrong():
    cases, held = consent_sets()["heldout_2"]
    report_case = next(c for c in cases if c["expected"] == "record")
    flipped = dict(report_case, expected="propose", id="flipped")
    report = run_consent([report_case, flipped], held)
    assert [r.passed for r in report.results].count(True) == 1
