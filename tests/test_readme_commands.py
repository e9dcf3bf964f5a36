"""README's command tables match the commands that exist: `pixiu --help` (every command and
every subcommand of a group) and the REPL's `/help` (the slash-command registry)."""

from __future__ import annotations

import re

import typer.main

from pixiu_cli.cli.app import app
from pixiu_cli.repl import loop  # noqa: F401  (registers every slash command)
from pixiu_cli.repl.commands import registry
from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def _table_after(heading_line: str) -> list[str]:
    """The first column of the markdown table whose header is `heading_line`."""
    lines = README[README.index(heading_line) :].splitlines()
    rows = []
    for line in lines[2:]:  # after the header and its separator
        if not line.startswith("|"):
            break
        rows.append(re.split(r"(?<!\\)\|", line)[1])
    return rows


def _cli_tree() -> dict[str, set[str]]:
    root = typer.main.get_command(app)
    return {
        name: set(getattr(command, "commands", {}) or ())
        for name, command in root.commands.items()  # type: ignore[attr-defined]
    }


def _documented_cli() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for cell in _table_after("| command | what it does |"):
        for snippet in re.findall(r"`pixiu ([a-z][a-z-]*)((?: [a-z|\\]+)?)", cell):
            name, rest = snippet
            subs = {s for s in re.split(r"\\\||\|", rest.strip()) if s} if rest.strip() else set()
            found.setdefault(name, set()).update(subs)
    return found


def test_every_pixiu_command_is_in_the_readme_and_every_listed_one_exists():
    tree, documented = _cli_tree(), _documented_cli()
    assert set(tree) == set(documented)
    for group, subcommands in tree.items():
        if subcommands:
            assert subcommands == documented[group], group


def test_every_slash_command_is_in_the_readme_and_every_listed_one_exists():
    cells = _table_after("| slash command | |")
    documented = {name for cell in cells for name in re.findall(r"`/([a-z]+)", cell)}
    assert documented == set(registry.names())


def test_help_lists_what_the_readme_lists():
    from tests.helpers import pixiu_in_process

    shown = pixiu_in_process({"PIXIU_HOME": "/nonexistent-pixiu-home", "PATH": "/usr/bin"}, "--help", text=True)
    listed = set(re.findall(r"^\s{2}([a-z][a-z-]+)\s{2,}", shown.stdout, re.MULTILINE))
    assert listed == set(_cli_tree())
