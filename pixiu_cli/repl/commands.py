"""The REPL's own commands, plain click commands of the `pixiu` group that only the REPL runs
(cli=False in cli/root.py's TABLE): /help lists every /word with its usage line, /exit ends
the session, /copy puts the last reply on the clipboard. No --help: /help is theirs."""

from __future__ import annotations

from dataclasses import dataclass

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.values import CommandError
from pixiu_cli.conversation import views
from pixiu_cli.repl import slash


def help_rows() -> list[tuple[str, str]]:
    """Each /word's usage line and summary, by name: the root group's commands the REPL offers."""
    rows = {word: (slash.usage(word), summary) for word, summary in slash.words()}
    return [rows[word] for word in sorted(rows)]


@click.command("help", add_help_option=False, help="列出所有命令")
def help_() -> None:
    views.show_help(common.shown(), help_rows())


@click.command("exit", add_help_option=False, help="退出 pixiu")
def exit_() -> None:
    common.repl_state().leave()


@dataclass(frozen=True)
class Copied:
    turn: object
    tool: str


@click.command("copy", add_help_option=False, help="把上一条回复复制到剪贴板")
def copy() -> None:
    state = common.repl_state()
    turns = state.app.store.turns(state.conversation_id) if state.conversation_id is not None else []
    replies = [t for t in turns if t.reply_text]
    if not replies:
        raise CommandError("还没有可以复制的回复")
    views.show_copied(common.shown(), Copied(replies[-1], state.copy_text(replies[-1].reply_text)))


COMMANDS = {"help": help_, "exit": exit_, "copy": copy}
