"""`pixiu eval --live` and `pixiu eval --history`: choose the target model (the configured one,
or the offline reading model without a key), show the expected cost and ask before spending
money, run, store the results, and render the ablation table."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from pixiu_cli.app import chat_client, clock_of, configured
from pixiu_cli.evals.answers import (
    ABLATIONS,
    EXPECTED_CALLS_PER_CASE,
    EXPECTED_OUTPUT_TOKENS,
    FULL,
    LiveReport,
    estimate_prompt_tokens,
    load_answer_cases,
    run_live,
)
from pixiu_cli.evals.store import EvalResultRow
from pixiu_cli.kernel.clock import iso
from pixiu_cli.kernel.db.database import open_database
from pixiu_cli.kernel.db.shared_stores import stores_of
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.settings import Settings


class LiveEvalError(UserError):
    """One line for the user."""


@dataclass(frozen=True)
class LiveOptions:
    cases: list[Path] | None
    ablate: list[str]
    yes: bool
    as_json: bool


def parse_ablations(values: list[str]) -> list[str]:
    names: list[str] = []
    for value in values:
        for name in (v.strip() for v in value.split(",")):
            if name not in ABLATIONS:
                raise LiveEvalError(f"未知的消融项 {name!r}（可用：{', '.join(ABLATIONS)}）")
            names.append(name)
    return list(dict.fromkeys(names))


def _client(settings: Settings):
    """The model to evaluate, and the offline server behind it when there is no key."""
    if settings.offline:
        from pixiu_cli.conversation.offline import grounded
        from pixiu_cli.conversation.offline.server import OfflineServer

        server = OfflineServer(cache_profile=settings.offline_cache_profile, responder=grounded.respond).start()
        client = chat_client(
            settings,
            base_url=server.base_url,
            api_key="pixiu-offline",
            model="pixiu-offline-reader",
            provider="offline",
        )
        return client, server
    return chat_client(settings), None


def _cost_line(settings: Settings, prompt_tokens: int, output_tokens: int) -> str:
    prices = configured(settings).prices
    rates = prices.rates_for(settings.model) or prices.rates_for("deepseek-flash")
    cost = (prompt_tokens * rates.miss + output_tokens * rates.output) / 1e6
    return (
        f"预计约 {prompt_tokens:,} 输入 tokens、{output_tokens:,} 输出 tokens，"
        f"最多约 {cost:.2f} {prices.currency}（按未命中缓存计；{prices.source}）"
    )


def run_command(settings: Settings, options: LiveOptions, renderer) -> LiveReport:
    cases = load_answer_cases(options.cases)
    ablations = [FULL, *parse_ablations(options.ablate)]
    client, server = _client(settings)
    try:
        if settings.offline:
            renderer.warn(
                "离线：未设置 API key，回答来自本地离线评测模型（只会照读请求里的资料），不是真实模型；"
                "结果只说明上下文里有没有所需资料。"
            )
        else:
            runs = len(cases) * len(ablations)
            prompt = estimate_prompt_tokens(cases, client, ablations)
            output = int(runs * EXPECTED_CALLS_PER_CASE * EXPECTED_OUTPUT_TOKENS)
            renderer.line(
                f"将调用 {settings.provider} · {settings.model}：{len(cases)} 个用例 × {len(ablations)} 组，"
                f"{_cost_line(settings, prompt, output)}"
            )
            if not options.yes:
                if not sys.stdin.isatty():
                    raise LiveEvalError("这会调用付费模型：确认后加 --yes 再运行")
                if not renderer.confirm("继续吗？"):
                    raise LiveEvalError("已取消，没有调用模型")
        started = iso(clock_of(settings)())
        report = run_live(
            cases,
            client,
            ablations,
            guardrails=configured(settings).guardrails,
            temperature=settings.temperature,
            progress=None
            if options.as_json
            else lambda o: renderer.dim(f"{'✓' if o.passed else '✗'} {o.case_id} [{o.ablation}]"),
        )
        _save(settings, report, started, client, len(cases))
        return report
    finally:
        if server is not None:
            server.stop()


def _save(settings: Settings, report: LiveReport, started: str, client, cases: int) -> None:
    db = open_database(settings.db_path)
    try:
        rows = [
            EvalResultRow(
                o.ablation,
                o.case_id,
                o.category,
                o.passed,
                o.reply,
                list(o.tools),
                [{"check": g.check, "passed": g.passed, "detail": g.detail} for g in o.grades],
                o.error,
                o.usage.prompt_tokens,
                o.usage.completion_tokens,
                o.usage.cache_hit_tokens,
                o.usage.cache_miss_tokens,
            )
            for o in report.outcomes
        ]
        stores_of(db).eval_runs.save(
            started_at=started,
            finished_at=iso(clock_of(settings)()),
            provider=client.provider,
            model=client.model,
            offline=settings.offline,
            cases=cases,
            ablations=report.ablations,
            summary=report.summary(),
            results=rows,
        )
    finally:
        db.close()


def render_report(report: LiveReport, renderer, *, offline: bool, as_json: bool) -> None:
    summary = {**report.summary(), "offline": offline}
    if as_json:
        prompt, completion = report.tokens()
        renderer.json({**summary, "usage": {"prompt_tokens": prompt, "completion_tokens": completion}})
        return
    from pixiu_cli.conversation.views_tools import show_live_report

    show_live_report(renderer, report, offline=offline, full=FULL)


def render_history(settings: Settings, renderer, *, as_json: bool) -> None:
    db = open_database(settings.db_path)
    try:
        runs = stores_of(db).eval_runs.runs()
    finally:
        db.close()
    if as_json:
        renderer.json(
            [
                {
                    "id": r.id,
                    "started_at": r.started_at,
                    "provider": r.provider,
                    "model": r.model,
                    "offline": r.offline,
                    "cases": r.cases,
                    **r.summary,
                }
                for r in runs
            ]
        )
        return
    from pixiu_cli.conversation.views_tools import show_eval_runs

    show_eval_runs(renderer, runs)
