"""Stored answer-eval runs: what `pixiu eval --live` measured, for `pixiu eval --history`."""

from __future__ import annotations

import json
from dataclasses import dataclass

from pixiu_cli.kernel.safe_text import scrub
from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import dict_rows


@dataclass(frozen=True)
class EvalResultRow:
    ablation: str  # "none" for the full context
    case_id: str
    category: str
    passed: bool
    reply_text: str
    tools: list[str]
    grades: list[dict]
    error: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cache_hit_tokens: int | None
    cache_miss_tokens: int | None


@dataclass(frozen=True)
class EvalRun:
    id: int
    started_at: str
    finished_at: str | None
    provider: str
    model: str
    offline: bool
    cases: int
    ablations: list[str]
    summary: dict


class EvalRunStore:
    def __init__(self, db: Database):
        self.db = db

    def save(
        self,
        *,
        started_at: str,
        finished_at: str,
        provider: str,
        model: str,
        offline: bool,
        cases: int,
        ablations: list[str],
        summary: dict,
        results: list[EvalResultRow],
    ) -> int:
        with write_transaction(self.db):
            cursor = self.db.conn.execute(
                "insert into eval_runs (started_at, finished_at, provider, model, offline, cases, ablations_json, "
                "summary_json) values (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    started_at,
                    finished_at,
                    provider,
                    model,
                    int(offline),
                    cases,
                    json.dumps(ablations),
                    json.dumps(summary, ensure_ascii=False),
                ],
            )
            run_id = cursor.lastrowid
            self.db.conn.executemany(
                "insert into eval_results (run_id, ablation, case_id, category, passed, reply_text, tools_json, "
                "grades_json, error, prompt_tokens, completion_tokens, cache_hit_tokens, cache_miss_tokens) "
                "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    [
                        run_id,
                        r.ablation,
                        r.case_id,
                        r.category,
                        int(r.passed),
                        r.reply_text,
                        json.dumps(r.tools),
                        json.dumps(r.grades, ensure_ascii=False),
                        scrub(r.error) if r.error else r.error,
                        r.prompt_tokens,
                        r.completion_tokens,
                        r.cache_hit_tokens,
                        r.cache_miss_tokens,
                    ]
                    for r in results
                ],
            )
        return run_id

    def runs(self, limit: int = 20) -> list[EvalRun]:
        return [
            EvalRun(
                r["id"],
                r["started_at"],
                r["finished_at"],
                r["provider"],
                r["model"],
                bool(r["offline"]),
                r["cases"],
                json.loads(r["ablations_json"] or "[]"),
                json.loads(r["summary_json"] or "{}"),
            )
            for r in dict_rows(self.db, "select * from eval_runs order by id desc limit ?", [limit])
        ]

    def results(self, run_id: int) -> list[EvalResultRow]:
        return [
            EvalResultRow(
                r["ablation"],
                r["case_id"],
                r["category"],
                bool(r["passed"]),
                r["reply_text"] or "",
                json.loads(r["tools_json"] or "[]"),
                json.loads(r["grades_json"] or "[]"),
                r["error"],
                r["prompt_tokens"],
                r["completion_tokens"],
                r["cache_hit_tokens"],
                r["cache_miss_tokens"],
            )
            for r in dict_rows(self.db, "select * from eval_results where run_id = ? order by id", [run_id])
        ]
