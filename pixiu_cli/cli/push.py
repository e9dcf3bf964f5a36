"""`pixiu brief --push --last` (the newest stored brief again); `pixiu push test` and `pixiu
schedule` are declared in commands/push.py. The sending is services/push.py; views/push.py
says a line per channel."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def resend_last(app_, renderer, as_json: bool) -> None:
    """`pixiu brief --push --last`: the newest stored brief again, no model call."""
    from pixiu_cli.services.push import last_brief, push_brief
    from pixiu_cli.views.push import deliveries_json, failed, show

    brief = last_brief(app_.store.db)
    deliveries = push_brief(app_.store.db, app_.push, brief, app_.clock())
    if as_json:
        renderer.json({"brief_id": brief.id, "report_id": brief.report_id, "push": deliveries_json(deliveries)})
    else:
        renderer.line(f"重新推送 {brief.created_at[:16].replace('T', ' ')} 的简报（report:{brief.report_id}）")
        show(renderer, deliveries)
    if failed(deliveries):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    declared.register(app, ("push", "schedule"))
