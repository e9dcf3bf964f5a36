"""The selection corpus runs on every core: the results are the cases' own, in their order,
whichever worker ran them."""

from __future__ import annotations

from pixiu_cli.evals import contexts
from tests.helpers import REPO


def test_cases_run_in_workers_give_the_results_of_one_process(monkeypatch):
    cases = contexts.load_cases([REPO / "data" / "selection" / "heldout.json"])[:7]
    cases[3] = type(cases[3])(**{**cases[3].__dict__, "sections": ("no-such-section",)})  # one fails
    alone = contexts.run_evals(cases).results
    monkeypatch.setattr(contexts, "_CHUNK", 2)  # four chunks over the workers
    spread = contexts.run_in_parallel(cases)
    assert [(r.id, r.passed, r.failures) for r in spread] == [(r.id, r.passed, r.failures) for r in alone]
    assert [r.passed for r in spread].count(False) >= 1
