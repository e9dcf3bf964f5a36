"""What `pixiu brief` and `/brief` say around the model's prose: the cost line before a paid
call, where the brief's call can be inspected, and the stored conclusion; and the --json
document."""

from __future__ import annotations

from contextlib import contextmanager

from pixiu_cli.brief.daily_brief import BriefEstimate, BriefOutcome, BriefPlan
from pixiu_cli.brief.facts import BriefFacts
from pixiu_cli.market.review.service import review_record


def cost_line(estimate: BriefEstimate, provider: str, model: str, limit: float) -> str:
    price = (
        f"最多约 {estimate.cost:.4f} {estimate.currency}（按未命中缓存计），超过 [brief] confirm_above = {limit:g}"
        if estimate.cost is not None
        else "该模型没有已知价格"
    )
    return (
        f"简报将调用 {provider} · {model}：预计约 {estimate.prompt_tokens:,} 输入 tokens、"
        f"{estimate.output_tokens:,} 输出 tokens，{price}"
    )


def show_cost(renderer, estimate: BriefEstimate, settings) -> None:
    """The line before a paid brief over [brief] confirm_above, on both surfaces."""
    renderer.warn(cost_line(estimate, settings.provider, settings.model, settings.brief_confirm_above))


@contextmanager
def facts_then_reply(renderer, plan: BriefPlan, *, gap: bool = False):
    """The fact section pixiu computed, then the model's brief streamed below it."""
    for line in plan.lines:
        renderer.line(line)
    if gap:
        renderer.line()
    with renderer.reply() as stream:
        yield stream


def show_stored(renderer, outcome: BriefOutcome) -> None:
    (renderer.info if outcome.report_id else renderer.error)(stored_line(outcome))


def stored_line(outcome: BriefOutcome) -> str:
    turn = outcome.turn
    if outcome.report_id is None:
        return f"简报未完成（{turn.status}），结论没有保存；可重新运行"
    return (
        f"结论已保存为报告 report:{outcome.report_id}（近期报告结论）：{(outcome.conclusion or '').rstrip('。')}；"
        f"本次调用：对话 {turn.conversation_id} 第 {turn.seq} 轮（/context {turn.seq}，"
        f"或 pixiu context --conversation {turn.conversation_id} --turn {turn.seq}）"
    )


def _facts_json(f: BriefFacts) -> dict:
    return {
        "session": f.session,
        "stale_days": f.stale_days,
        "calendar_note": f.calendar_note,
        "created_at": f.created_at,
        "since": f.since,
        "previous_brief": f.previous.created_at if f.previous else None,
        "market_value": f.market_value,
        "change": f.change,
        "change_pct": f.change_pct,
        "cash": f.cash,
        "holdings": [m.__dict__ for m in f.moves],
        "trades": [d.__dict__ for d in f.trades],
        "alerts": [a.__dict__ for a in f.alerts],
        "signal_changes": [s.__dict__ for s in f.signals],
        "news": [n.__dict__ for n in f.news],
        "market": review_record(f.market) if f.market else None,
        "rules_at_risk": [
            {
                "kind": r.rule.kind,
                "symbol": r.symbol,
                "level": r.rule.level,
                "actual": r.actual,
                "text": r.rule.text,
                "origin": r.rule.origin,
            }
            for r in f.risks
        ],
    }


def brief_json(outcome: BriefOutcome, offline: bool) -> dict:
    turn, usage = outcome.turn, outcome.turn.usage
    return {
        "as_of": outcome.plan.facts.as_of,
        "facts": _facts_json(outcome.plan.facts),
        "fact_lines": outcome.plan.lines,
        "reply": turn.reply,
        "status": turn.status,
        "error": turn.error,
        "conclusion": outcome.conclusion,
        "report_id": outcome.report_id,
        "conversation_id": turn.conversation_id,
        "turn_id": turn.turn_id,
        "turn": turn.seq,
        "offline": offline,
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cache_hit_tokens": usage.cache_hit_tokens,
            "cache_miss_tokens": usage.cache_miss_tokens,
        },
    }


def show_briefed(renderer, briefed, spell=None) -> int | None:
    """What `pixiu brief` and `/brief` leave: the holiday's line (--if-trading-day), the last
    brief pushed again (--push --last), or the stored conclusion, the REPL's status line and
    the pushes; 1 when the brief was not written or a channel did not get it."""
    from pixiu_cli.brief.push.views import deliveries_json, failed, show

    if briefed.closed:
        renderer.info(f"{briefed.closed}：什么也不做（--if-trading-day）")
        return None
    if briefed.resent is not None:
        brief, deliveries = briefed.resent
        if briefed.json_out:
            renderer.json({"brief_id": brief.id, "report_id": brief.report_id, "push": deliveries_json(deliveries)})
        else:
            if briefed.announce:
                renderer.line(f"重新推送 {brief.created_at[:16].replace('T', ' ')} 的简报（report:{brief.report_id}）")
            show(renderer, deliveries)
        return 1 if failed(deliveries) else None
    done = briefed.done
    if briefed.json_out:
        pushed = {"push": deliveries_json(done.deliveries)} if briefed.push else {}
        renderer.json(brief_json(done.outcome, briefed.offline) | pushed)
    else:
        show_stored(renderer, done.outcome)
        if briefed.status is not None:
            renderer.status(briefed.status)
        if briefed.push:
            show(renderer, done.deliveries, resend_hint=True)
    return None if done.written and not failed(done.deliveries) else 1
