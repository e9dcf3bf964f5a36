"""/context: what the model saw, exactly as stored."""

from __future__ import annotations

import json

from pixiu_cli.cache.explain import explain
from pixiu_cli.presenters import cache_note, show_request
from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState

_MODES = {"--raw": "raw", "--json": "json", "--diff": "diff"}


def parse_context_args(args: list[str]) -> tuple[int | None, str]:
    turn, mode = None, "table"
    for arg in args:
        if arg in _MODES:
            mode = _MODES[arg]
        elif arg.isdigit() and int(arg) > 0 and turn is None:
            turn = int(arg)
        else:
            raise CommandError(f"无法识别的参数 {arg}：用法 /context [轮次] [--raw|--json|--diff]")
    return turn, mode


@registry.command("context", "查看模型上一次（或第 N 轮）真正看到的内容", "/context [N] [--raw|--json|--diff]")
def context_command(state: ReplState, cmd: ParsedCommand) -> None:
    turn_seq, mode = parse_context_args(cmd.args)
    store = state.app.store
    if state.conversation_id is None:
        raise CommandError("当前对话还没有调用过模型；先问一个问题")
    calls = store.calls_for_conversation(state.conversation_id)
    if turn_seq is not None:
        turn = store.turn_by_seq(state.conversation_id, turn_seq)
        if turn is None:
            raise CommandError(f"当前对话没有第 {turn_seq} 轮")
        chosen = [c for c in calls if c.turn_id == turn.id]
        if not chosen:
            raise CommandError(f"第 {turn_seq} 轮没有模型调用记录")
        call = chosen[-1]
    elif calls:
        call = calls[-1]
    else:
        raise CommandError("当前对话还没有调用过模型；先问一个问题")
    previous = next((c for c in reversed(calls) if c.id < call.id), None)
    turn = store.get_turn(call.turn_id)
    note = cache_note(explain(previous, call)) if mode == "diff" and previous else None
    show_request(state.renderer, call.request,
                 json.loads(call.context_json) if call.context_json else None,
                 title=f"第 {turn.seq} 轮 · 调用 #{call.id}（{call.status}）",
                 previous=previous.request if previous else None, mode=mode, cache_note=note)
