"""`pixiu context`: the full context the model saw (or would see), without calling it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated

import typer

from pixiu_cli.cli import common


def context(
    text: Annotated[str | None, typer.Argument(help="假设要问的问题；省略时显示最近一次真实调用")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="输出消息列表 JSON")] = False,
    raw: Annotated[bool, typer.Option("--raw", help="原样输出发送的请求字节")] = False,
    pretty: Annotated[bool, typer.Option("--pretty", help="输出缩进后的请求 JSON")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="与上一次调用的请求比较")] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="输出上下文块的 JSON 摘要，含选择依据（selection）")
    ] = False,
    conversation: Annotated[int | None, typer.Option("--conversation", help="对话 ID（默认最近的对话）")] = None,
    turn: Annotated[int | None, typer.Option("--turn", help="查看第 N 轮的调用", min=1)] = None,
    demo: common.DemoOpt = False,
) -> None:
    """显示模型看到（或将要看到）的完整上下文，不调用模型。"""
    view = _ContextView(as_json=as_json, raw=raw, pretty=pretty, diff=diff, explain=explain)
    if view.chosen() > 1:
        raise common.CliError("--json、--raw、--pretty、--diff、--explain 只能选一个")
    from pixiu_cli.app import open_preview

    renderer = common.renderer()
    app_ = open_preview(common.settings(), demo=demo)
    try:
        if conversation is not None and app_.store.get_conversation(conversation) is None:
            raise common.CliError(f"没有 ID 为 {conversation} 的对话")
        if text is not None:
            _show_context_preview(renderer, app_, conversation, text, view, turn)
        else:
            _show_context_of_call(renderer, app_.store, conversation, view, turn)
    finally:
        app_.close()


@dataclass(frozen=True)
class _ContextView:
    """The output flags of `pixiu context`; at most one may be set."""

    as_json: bool
    raw: bool
    pretty: bool
    diff: bool
    explain: bool

    def chosen(self) -> int:
        return sum([self.as_json, self.raw, self.pretty, self.diff, self.explain])

    def stored_mode(self) -> str:
        flags = (("json", self.as_json), ("raw", self.raw), ("pretty", self.pretty), ("diff", self.diff))
        return next((mode for mode, on in flags if on), "explain" if self.explain else "table")


def _show_context_preview(renderer, app_, conversation: int | None, text: str, view: _ContextView, turn) -> None:
    """The request a question would send now, built without calling the model."""
    from pixiu_cli.views.presenters import show_request

    if text == "-":
        text = common.read_stdin_text()
    common.require_utf8(text)
    if view.diff or turn:
        raise common.CliError("--diff / --turn 用于查看已发生的调用，不能与 TEXT 一起用")
    request, info = app_.requests.preview(conversation, text)
    if view.explain:
        renderer.json(info or {})
        return
    if view.as_json:
        renderer.json_text(json.dumps(request["messages"], ensure_ascii=False, indent=2), exact_when_piped=True)
        return
    show_request(
        renderer,
        request,
        info,
        title="将要发送的请求（未调用模型）",
        mode="raw" if view.raw else "pretty" if view.pretty else "table",
    )


def _show_context_of_call(renderer, store, conversation: int | None, view: _ContextView, turn: int | None) -> None:
    """A call already made: the latest one of the conversation, or the one of turn N."""
    from pixiu_cli.views.presenters import show_stored_call

    latest = store.latest_conversation()
    conv_id = conversation or (latest.id if latest else None)
    show_stored_call(renderer, store, conv_id, turn_seq=turn, mode=view.stored_mode())


def register(app: typer.Typer) -> None:
    app.command()(context)
