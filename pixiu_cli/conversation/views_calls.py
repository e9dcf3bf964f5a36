"""What `pixiu context` and /context show: a stored call, or the request a question would send."""

from __future__ import annotations

import json

from pixiu_cli.kernel.render import Renderer


def show_context(renderer: Renderer, shown, spell=None) -> None:
    from pixiu_cli.conversation.presenters import show_request, show_stored_call

    if not hasattr(shown, "request"):
        show_stored_call(renderer, shown.store, shown.conversation_id, turn_seq=shown.turn, mode=shown.mode)
        return
    if shown.mode == "explain":
        renderer.json(shown.info or {})
        return
    if shown.mode == "json":
        renderer.json_text(json.dumps(shown.request["messages"], ensure_ascii=False, indent=2), exact_when_piped=True)
        return
    mode = shown.mode if shown.mode in ("raw", "pretty") else "table"
    show_request(renderer, shown.request, shown.info, title="将要发送的请求（未调用模型）", mode=mode)


def show_cache_report(renderer: Renderer, report, spell=None) -> None:
    from pixiu_cli.conversation.presenters import show_cache

    show_cache(renderer, report)
