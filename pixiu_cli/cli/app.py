"""The command line's entry point with its one-line error handling. The common calls of
`pixiu`, `pixiu chat`, `pixiu ask`, `pixiu context` and `pixiu cache` run without typer
(cli/fast.py); everything else goes through the typer app (cli/typer_app.py), imported then.
Commands import heavy modules inside themselves so `pixiu --help` stays fast (it never
imports openai)."""

from __future__ import annotations

import sys

from pixiu_cli.cli import common
from pixiu_cli.cli.fast import fast_call
from pixiu_cli.kernel.errors import UserError


def _talk(name: str):
    def load():
        from pixiu_cli.cli import talk

        return getattr(talk, name)

    return load


def _declared(*path: str):
    def load():
        from pixiu_cli.cli.declared import fast_command

        return fast_command(*path)

    return load


# The commands whose common calls skip typer (cli/fast.py): only the one typed is loaded.
FAST_COMMANDS = {
    "chat": _talk("CHAT"),
    "ask": _talk("ASK"),
    "cache": _declared("cache"),
    "context": _declared("context"),
}


def __getattr__(name: str):
    if name == "app":  # the `pixiu` group, for `from pixiu_cli.cli.app import app` (tests, scripts)
        from pixiu_cli.cli.root import root

        return root
    raise AttributeError(name)


def _click_command():
    from pixiu_cli.cli.root import root

    return root


def main() -> None:
    common.command_group = _click_command
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
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # Whoever read our output has gone; say nothing more and let the shell see SIGPIPE.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    except UserError as exc:
        common.renderer().error(str(exc))
        sys.exit(exc.exit_code)
    except Exception as exc:
        _exit_typer(exc)
        from pixiu_cli.conversation.presenters import error_line

        common.renderer().error(error_line(exc))
        sys.exit(1)


def _exit_typer(exc: Exception) -> None:
    """Exit as click's (or typer's copy of click's) own exceptions ask; return for any other.
    Only a command that went through the parser can raise one, so neither is imported here."""
    found = {}
    for module in ("click.exceptions", "typer._click.exceptions", "typer.exceptions"):
        for name in ("Exit", "Abort", "ClickException"):
            kind = getattr(sys.modules.get(module), name, None)
            if kind is not None:
                found.setdefault(name, []).append(kind)
    if isinstance(exc, tuple(found.get("Exit", ()))):
        sys.exit(exc.exit_code)
    if isinstance(exc, tuple(found.get("Abort", ()))):
        sys.exit(130)
    if isinstance(exc, tuple(found.get("ClickException", ()))):  # usage errors: one Chinese line naming the flag
        from pixiu_cli.cli.usage import is_usage_error, usage_line

        if is_usage_error(exc):
            common.renderer().error(usage_line(exc, sys.argv[1:], _click_command()))
        elif hasattr(exc, "show"):
            exc.show()
        sys.exit(getattr(exc, "exit_code", 2))
