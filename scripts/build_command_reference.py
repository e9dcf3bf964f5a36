"""Write docs/commands.md: the `--help` of every pixiu command and subcommand, read from the
`pixiu` click group itself, and the REPL's slash commands as /help lists them. The reference is what
the CLI says, never a second description of it; tests/test_docs.py regenerates it in
process and fails when the file differs.

    .venv/bin/python scripts/build_command_reference.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "commands.md"
COMMAND = ".venv/bin/python scripts/build_command_reference.py"
WIDTH = 100  # a fixed width, so the file does not depend on the terminal it was built in

HEADER = f"""# Command reference

Generated from the CLI: every command's and subcommand's `--help`, then the REPL's slash
commands from their registry. Do not edit it by hand; after changing a command, regenerate it:

    {COMMAND}

`tests/test_docs.py` fails when this file differs from what the CLI says. How the commands fit
together: [usage.md](usage.md).
"""


def _help(command, path: list[str], parent=None):
    """The help text `pixiu … --help` prints, at WIDTH columns, and the context it was made in."""
    ctx = command.context_class(
        command, info_name=path[-1], parent=parent, terminal_width=WIDTH, max_content_width=WIDTH
    )
    return command.get_help(ctx), ctx


def _walk(command, path: list[str], parent=None):
    """(path, help text) for `command` and, depth first in the order `--help` lists them,
    every subcommand under it."""
    text, ctx = _help(command, path, parent)
    yield path, text
    import click

    for name in command.list_commands(ctx) if isinstance(command, click.Group) else ():
        sub = command.get_command(ctx, name)
        if sub is not None and not getattr(sub, "hidden", False):
            yield from _walk(sub, [*path, name], ctx)


def _cli_sections() -> list[str]:
    from pixiu_cli.cli.root import root

    return [f"## {' '.join(path)}\n\n```text\n{text.rstrip()}\n```\n" for path, text in _walk(root, ["pixiu"])]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _slash_section() -> str:
    from pixiu_cli.cli.root import root
    from pixiu_cli.commands import common
    from pixiu_cli.repl.commands import help_rows

    common.command_group = lambda: root  # as the entry point hands it down
    rows = [f"| `{_cell(usage)}` | {_cell(summary)} |" for usage, summary in help_rows()]
    return "\n".join(
        [
            "## Slash commands (the REPL)",
            "",
            "As `/help` lists them inside `pixiu chat`.",
            "",
            "| usage | what it does |",
            "|---|---|",
            *rows,
            "",
        ]
    )


def render() -> str:
    """The whole of docs/commands.md."""
    return "\n".join([HEADER, *_cli_sections(), _slash_section()])


def main() -> None:
    sys.path.insert(0, str(REPO))
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
