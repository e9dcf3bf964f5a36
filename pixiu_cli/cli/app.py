"""The command line: the typer app, its command groups (one module each in this package),
and the entry point with its one-line error handling. Commands import heavy modules inside
themselves so `pixiu --help` stays fast (it never imports openai)."""

from __future__ import annotations

import functools
import sys
from typing import Annotated

import typer

from pixiu_cli.cli import (
    account,
    alias,
    analytics,
    chat,
    common,
    config,
    declared,
    documents,
    evals,
    market,
    mcp,
    memory,
    push,
)
from pixiu_cli.cli.fast import defaults_of, fast_call
from pixiu_cli.errors import UserError

app = typer.Typer(
    name="pixiu",
    help="貔貅 pixiu：A 股投资者的终端助理（DeepSeek 或任意 OpenAI 兼容接口；无 key 时离线）。",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(shown: bool) -> None:
    if shown:
        from pixiu_cli import __version__

        common.renderer().line(f"pixiu {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", help="显示版本并退出", is_eager=True, callback=_version)
    ] = False,
) -> None:
    if ctx.invoked_subcommand is None:
        chat.chat(**defaults_of(chat.chat))


# The order of `pixiu --help`.
for group in (
    chat,
    ("sessions",),
    ("brief",),
    push,
    ("context",),
    documents,
    account,
    memory,
    ("cache",),
    evals,
    alias,
    config,
    ("offline-server",),
    market,
    ("market", "fundamentals"),
    ("news",),
    analytics,
    ("signal",),
    mcp,
):
    # a tuple: top-level words declared in pixiu_cli/commands/
    declared.register(app, group) if isinstance(group, tuple) else group.register(app)


# The commands whose common calls skip typer's parsing (cli/fast.py).
FAST_COMMANDS = {"chat": chat.chat, "ask": chat.ask, "cache": declared.function("cache")}
FAST_COMMANDS["context"] = declared.function("context")
FAST_COMMANDS["data sync"] = declared.function("data", "sync")  # a failed sync says so before pydantic loads


@functools.cache
def _click_command():
    """typer converts the app to a click command on every call; a process that runs main more
    than once (the in-process runner) converts it once."""
    return typer.main.get_command(app)


def main() -> None:
    with common.one_invocation():
        _main()


def _main() -> None:
    try:
        fast = fast_call(sys.argv[1:], FAST_COMMANDS, default="chat")
        if fast is not None:
            command, kwargs = fast
            command(**kwargs)
            return
        code = _click_command()(standalone_mode=False, prog_name="pixiu")
        if isinstance(code, int) and code:
            sys.exit(code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # Whoever read our output has gone; say nothing more and let the shell see SIGPIPE.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    except typer.Abort:
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors (bad flags): one Chinese line naming the flag
        from pixiu_cli.cli.usage import is_usage_error, usage_line

        if is_usage_error(exc):
            common.renderer().error(usage_line(exc, sys.argv[1:], _click_command()))
        elif hasattr(exc, "show"):
            exc.show()
        sys.exit(getattr(exc, "exit_code", 2))
    except UserError as exc:
        common.renderer().error(str(exc))
        sys.exit(exc.exit_code)
    except Exception as exc:
        from pixiu_cli.views.presenters import error_line

        common.renderer().error(error_line(exc))
        sys.exit(1)
