"""The command line's entry point with its one-line error handling. Every command goes through
the `pixiu` click group (cli/root.py), which imports only the typed command's module.
`pixiu --help` reads the group's table and imports no area (it never imports openai)."""

from __future__ import annotations

import sys

from pixiu_cli.commands import common
from pixiu_cli.kernel.errors import UserError


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
        code = _run(_click_command(), sys.argv[1:])
        if code:
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


def _run(group, argv: list[str]) -> int:
    """The command's exit status. Not click's `main`: it would print a blank line on Ctrl-C and
    turn a reader gone (`pixiu ask … | head -1`) into status 1; both are handled below."""
    import click

    try:
        with group.make_context("pixiu", list(argv)) as ctx:
            group.invoke(ctx)
    except click.exceptions.Exit as done:
        return done.exit_code
    return 0


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
        from pixiu_cli.commands.usage import is_usage_error, usage_line

        if is_usage_error(exc):
            common.renderer().error(usage_line(exc, sys.argv[1:], _click_command()))
        elif hasattr(exc, "show"):
            exc.show()
        sys.exit(getattr(exc, "exit_code", 2))
