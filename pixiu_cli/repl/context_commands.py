"""/context: what the model saw, exactly as stored."""

from __future__ import annotations

from pixiu_cli.repl.commands import CommandError, ParsedCommand, parse_number, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.views.presenters import show_stored_call

_MODES = {"--raw": "raw", "--pretty": "pretty", "--json": "json", "--diff": "diff"}


def parse_context_args(args: list[str]) -> tuple[int | None, str]:
    turn, mode = None, "table"
    for arg in args:
        if arg in _MODES:
            mode = _MODES[arg]
        elif parse_number(arg) and turn is None:
            turn = parse_number(arg)
        else:
            raise CommandError(f"无法识别的参数 {arg}：用法 /context [轮次] [--raw|--pretty|--json|--diff]")
    return turn, mode


@registry.command("context", "查看模型上一次（或第 N 轮）真正看到的内容", "/context [N] [--raw|--pretty|--json|--diff]")
def context_command(state: ReplState, cmd: ParsedCommand) -> None:
    turn_seq, mode = parse_context_args(cmd.args)
    show_stored_call(state.renderer, state.app.store, state.conversation_id, turn_seq=turn_seq, mode=mode)
