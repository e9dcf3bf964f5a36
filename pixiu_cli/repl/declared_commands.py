"""The REPL's /words: each plain click command of cli/root.py's group that the REPL offers,
registered with its usage line and next-word completion (repl/slash.py), run through that group."""

from __future__ import annotations

from pixiu_cli.repl.registry import CommandRegistry, ParsedCommand
from pixiu_cli.repl.state import ReplState


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
    """Each /word into `registry`, run through cli/root.py's group. /help lists them by name."""
    from pixiu_cli.repl.slash import usage, words

    for word, summary in words():
        registry.command(word, summary, usage(word), declaration=_ClickSlash(word))(_click_handler(word))
