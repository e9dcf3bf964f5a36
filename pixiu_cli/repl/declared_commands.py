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


class _ClickSlash:
    """A /word that is a plain click command of cli/root.py's group (repl/slash.py)."""

    def __init__(self, word: str):
        self.word = word

    def completing(self, before: list[str]):
        from pixiu_cli.repl.slash import completing

        return completing(self.word, before)


def _click_handler(word: str):
    def handle(state: ReplState, cmd: ParsedCommand) -> None:
        from pixiu_cli.repl.slash import run_slash

        run_slash(state, word, cmd.args, cmd.raw_args)

    return handle


def register_declared(registry: CommandRegistry) -> None:
    """Each /name into `registry`: the declared ones run in a context over the REPL; the plain
    click commands of cli/root.py through that group. /help lists them by name."""
    from pixiu_cli.repl.slash import usage, words

    for word, summary in words():
        registry.command(word, summary, usage(word), declaration=_ClickSlash(word))(_click_handler(word))
    for slash in slash_commands(DECLARED):
        registry.command(slash.name, slash.summary, slash.usage, declaration=slash)(_handler(slash, registry))
