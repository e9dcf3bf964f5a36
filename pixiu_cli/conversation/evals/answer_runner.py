"""Running answer cases through the real agent loop, with and without parts of the context.

Each case × ablation gets a throw-away SQLite file with the case's data set imported, the
case's frozen `now` as the clock, and one turn of `Agent.run_turn` against the target model.
The reply and the tools it called are graded against the data set (evals/answer_grading.py).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pixiu_cli.account.explain import wait_for_explanations
from pixiu_cli.app import build_agent
from pixiu_cli.conversation.agent.guardrails import Guardrails
from pixiu_cli.conversation.context.builder import ABLATE_ALL, SYMBOL_CONTEXT
from pixiu_cli.conversation.context.memory import MemoryLimits
from pixiu_cli.conversation.evals.answer_cases import AnswerCase
from pixiu_cli.conversation.evals.answer_grading import Grade, Reply, grade
from pixiu_cli.conversation.llm.types import Usage
from pixiu_cli.conversation.selection.names import securities_for_document
from pixiu_cli.conversation.tokenizer.counts import count_tokens
from pixiu_cli.kernel.db.database import open_database
from pixiu_cli.kernel.db.stores import stores_of

FULL = "none"  # the ablation name of the unablated run
ABLATIONS = (
    "portfolio_profiles",
    SYMBOL_CONTEXT,
    "notes",
    "decisions",
    "alerts",
    "reports",
    "holdings",
    "persona",
    ABLATE_ALL,
)
# Output is unknown before the model answers: an estimate per call for the cost preview.
EXPECTED_OUTPUT_TOKENS = 400
EXPECTED_CALLS_PER_CASE = 1.5


@dataclass(frozen=True)
class CaseOutcome:
    case_id: str
    category: str
    ablation: str
    passed: bool
    grades: list[Grade]
    reply: str
    tools: tuple[str, ...]
    usage: Usage
    error: str | None = None


@dataclass
class LiveReport:
    ablations: list[str]
    outcomes: list[CaseOutcome] = field(default_factory=list)

    def _of(self, ablation: str) -> list[CaseOutcome]:
        return [o for o in self.outcomes if o.ablation == ablation]

    def pass_rate(self, ablation: str = FULL) -> float:
        rows = self._of(ablation)
        return sum(o.passed for o in rows) / len(rows) if rows else 0.0

    def categories(self, ablation: str = FULL) -> dict[str, float]:
        table: dict[str, list[int]] = {}
        for o in self._of(ablation):
            row = table.setdefault(o.category, [0, 0])
            row[0] += o.passed
            row[1] += 1
        return {k: v[0] / v[1] for k, v in sorted(table.items())}

    def tokens(self) -> tuple[int, int]:
        prompt = sum(o.usage.prompt_tokens or 0 for o in self.outcomes)
        return prompt, sum(o.usage.completion_tokens or 0 for o in self.outcomes)

    def summary(self) -> dict:
        cases = len(self._of(FULL))
        return {
            "cases": cases,
            "pass_rate": self.pass_rate(),
            "ablations": {a: self.pass_rate(a) for a in self.ablations if a != FULL},
            "categories": self.categories(),
            "categories_by_ablation": {a: self.categories(a) for a in self.ablations if a != FULL},
        }


def ablation_set(name: str) -> frozenset[str]:
    return frozenset() if name == FULL else frozenset({name})


def _tools_called(agent, turn_id: int) -> tuple[str, ...]:
    names: list[str] = []
    for call in agent.store.calls_for_turn(turn_id):
        for part in json.loads(call.tool_calls_json or "[]"):
            names.append(str((part.get("function") or {}).get("name", "")))
    return tuple(names)


def _open_case(case: AnswerCase, client, ablation: str, workdir: Path, guardrails: Guardrails, temperature):
    safe = re.sub(r"[^0-9A-Za-z_.-]", "_", f"{case.id}-{ablation}")[:100]
    db = open_database(workdir / f"{safe}.db")
    domain = stores_of(db).investor
    domain.replace_all(case.data)
    # as `pixiu import` does: every stock the data set mentions has a name the questions can use
    stores_of(db).securities.upsert(securities_for_document(case.data), keep_names=True)
    agent = build_agent(
        db,
        client,
        limits=MemoryLimits(),
        guardrails=guardrails,
        temperature=temperature,
        clock=lambda: case.now,
        domain=domain,
        ablate=ablation_set(ablation),
    )
    return db, agent


def run_case(
    case: AnswerCase, client, ablation: str, workdir: Path, *, guardrails: Guardrails, temperature: float | None = None
) -> CaseOutcome:
    db, agent = _open_case(case, client, ablation, workdir, guardrails, temperature)
    try:
        conversation = agent.store.create_conversation(title=f"eval {case.id}", model=client.model)
        result = agent.run_turn(conversation.id, case.message)
        reply = Reply(result.reply or "", _tools_called(agent, result.turn_id))
        grades = grade(case, reply)
        passed = result.status == "complete" and all(g.passed for g in grades)
        return CaseOutcome(
            case.id, case.category, ablation, passed, grades, reply.text, reply.tools, result.usage, result.error
        )
    finally:
        wait_for_explanations()  # the case's database is deleted with the run's folder
        db.close()


def estimate_prompt_tokens(cases: Sequence[AnswerCase], client, ablations: Sequence[str]) -> int:
    """The tokens the first call of every case × ablation would send, assembled without a model."""
    total = 0
    with tempfile.TemporaryDirectory(prefix="pixiu-eval-live-") as tmp:
        for case in cases:
            for ablation in ablations:
                db, agent = _open_case(case, client, ablation, Path(tmp), Guardrails(), None)
                try:
                    body, _ = agent.preview(None, case.message)
                    total += count_tokens(json.dumps(body["messages"], ensure_ascii=False))
                    total += count_tokens(json.dumps(body.get("tools") or [], ensure_ascii=False))
                finally:
                    db.close()
    return int(total * EXPECTED_CALLS_PER_CASE)


def run_live(
    cases: Sequence[AnswerCase],
    client,
    ablations: Sequence[str],
    *,
    guardrails: Guardrails,
    temperature: float | None = None,
    progress: Callable[[CaseOutcome], None] | None = None,
) -> LiveReport:
    report = LiveReport(ablations=[FULL, *[a for a in ablations if a != FULL]])
    with tempfile.TemporaryDirectory(prefix="pixiu-eval-live-") as tmp:
        for ablation in report.ablations:
            for case in cases:
                outcome = run_case(case, client, ablation, Path(tmp), guardrails=guardrails, temperature=temperature)
                report.outcomes.append(outcome)
                if progress:
                    progress(outcome)
    return report
