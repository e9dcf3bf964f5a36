"""The declared commands (pixiu_cli/commands/) in the REPL: each /name registered with the
usage and completion its declaration gives, run with a context over the REPL's app."""

from __future__ import annotations

from pixiu_cli.commands.catalog import DECLARED
from pixiu_cli.commands.declaration import REPL, Context
from pixiu_cli.commands.slash import Slash, slash_commands
from pixiu_cli.repl.registry import CommandRegistry, ParsedCommand
from pixiu_cli.repl.state import ReplState
from pixiu_cli.repl.turn import show_asked, turn_status


def context_of(state: ReplState, registry: CommandRegistry) -> Context:
    app = state.app
    return Context(
        REPL,
        state.renderer,
        connect=lambda: app.db,
        clock=state.clock,
        cost_method=lambda: app.settings.cost_method,
        master=lambda: app.builder.securities,
        edit_text=state.edit_text,
        settings=lambda: app.settings,
        state=state,
        demo=app.demo,
        turn_status=lambda turn: turn_status(state, turn),
        after_turn=lambda asked: show_asked(state, asked),
        commands=registry.rows,
    )


def _handler(slash: Slash, registry: CommandRegistry):
    def handle(state: ReplState, cmd: ParsedCommand) -> None:
        slash.run(context_of(state, registry), cmd.args, cmd.raw_args)

    return handle


def register_declared(registry: CommandRegistry) -> None:
    """Each declared /name into `registry`, its handler running it in a context over the REPL."""
    for slash in slash_commands(DECLARED):
        registry.command(slash.name, slash.summary, slash.usage, declaration=slash)(_handler(slash, registry))
