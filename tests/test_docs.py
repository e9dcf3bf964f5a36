"""The README and docs/ say what the code does: the command reference is regenerated from the
CLI and must equal docs/commands.md; every `pixiu …` command shown parses with the real CLI
(a usage line's command path and flags exist); the README is short and opens with the two
commands of the quick start, the second being what .ci/run runs; every command and slash
command is in usage.md's tables; each area has a page with its commands and its data; links, anchors and repository paths resolve."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import re
import shlex
import unicodedata

import click

from pixiu_cli.evals.contexts import load_cases
from pixiu_cli.repl import loop  # noqa: F401  (registers every slash command)
from pixiu_cli.repl.registry import registry
from tests.helpers import REPO

README = REPO / "README.md"
DOCS = [README, *sorted((REPO / "docs").glob("*.md"))]
REGENERATE = ".venv/bin/python scripts/build_command_reference.py"


def _text(path) -> str:
    return path.read_text(encoding="utf-8")


def _generator():
    spec = importlib.util.spec_from_file_location(
        "build_command_reference", REPO / "scripts" / "build_command_reference.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _subcommands(command) -> list[str]:
    """A group's subcommands as the command line lists them (a REPL-only one left out)."""
    return command.list_commands(click.Context(command)) if isinstance(command, click.Group) else []


@functools.cache
def _root():
    """The `pixiu` group with every command-line word loaded, so its tree can be walked."""
    import copy

    from pixiu_cli.cli.root import TABLE, command_of, root

    loaded = copy.copy(root)
    loaded.commands = {word: command_of(word) for word, top in TABLE.items() if top.cli}
    return loaded


# --- the generated reference ------------------------------------------------------------------


def test_the_command_reference_is_what_the_cli_says():
    generator = _generator()
    assert generator.COMMAND == REGENERATE
    expected, stored = generator.render(), _text(REPO / "docs" / "commands.md")
    assert stored == expected, f"docs/commands.md differs from the CLI's --help: run `{REGENERATE}`"


def test_the_reference_has_every_command_and_subcommand():
    headings = set(re.findall(r"^## (pixiu.*)$", _text(REPO / "docs" / "commands.md"), re.MULTILINE))
    root = _root()
    expected = {"pixiu"} | {f"pixiu {name}" for name in root.commands}
    expected |= {f"pixiu {g} {s}" for g, c in root.commands.items() for s in _subcommands(c)}
    assert expected <= headings
    assert "pixiu trades" in headings and "pixiu data sync" in headings  # the walk reaches both levels


# --- every command shown parses ---------------------------------------------------------------

_FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SHELL = {"", "bash", "sh", "shell", "console"}
# A usage line (`pixiu trade buy|sell CODE QTY PRICE [--date D]`) rather than a command to run.
_USAGE = re.compile(r"[\[\]…]|\b[A-Z][A-Z0-9_.]*\b|\S\|\S")
_FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def shown_commands(text: str) -> list[str]:
    """Every `pixiu …` the text shows: lines of shell blocks and inline code spans."""
    found = []
    for lang, body in _FENCE.findall(text):
        if lang in _SHELL:
            for line in body.replace("\\\n", " ").splitlines():
                found += [p.strip() for p in re.split(r";|&&", line) if p.strip().startswith("pixiu")]
    prose = _FENCE.sub("", text)
    for span in re.findall(r"`([^`\n]+)`", prose):
        span = span.replace("\\|", "|")
        found += [p.strip() for p in re.split(r";|&&", span) if re.match(r"\s*pixiu(\s|$)", p)]
    return found


def _resolve(words: list[str]) -> tuple[list, list[str]]:
    """The commands a usage line names (several for `memory list|accept`), and the words after."""
    command, rest = _root(), list(words)
    if not rest:
        return [command], rest
    while hasattr(command, "commands"):
        if not rest:
            default = getattr(command, "default", None)
            return [command.commands[default] if default else command], rest
        names = rest[0].split("|")
        if not all(n in command.commands for n in names):
            default = getattr(command, "default", None)  # `pixiu trades 600036` runs `trades list`
            if default:
                command = command.commands[default]
            break
        rest.pop(0)
        if len(names) > 1:
            return [command.commands[n] for n in names], rest
        command = command.commands[names[0]]
    return [command], rest


def _usage_problem(line: str) -> str | None:
    commands, _ = _resolve(line.split()[1:])
    known = {o for c in commands for p in c.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    unknown = sorted({f for f in _FLAG.findall(line) if f not in known})
    return f"no option {', '.join(unknown)}" if unknown else None


def _run_problem(line: str) -> str | None:
    words = shlex.split(re.split(r"\s[|>]\s", line)[0], comments=True)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ctx = _root().make_context("pixiu", words[1:])
            while hasattr(ctx.command, "commands") and (ctx._protected_args or ctx.args):
                _, sub, rest = ctx.command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
                ctx = sub.make_context(sub.name, rest, parent=ctx)
    except click.exceptions.Exit:  # --version, --help: they parse
        return None
    except Exception as exc:  # click's usage errors, one message each
        return exc.format_message() if hasattr(exc, "format_message") else repr(exc)
    return None


def _is_mention(line: str) -> bool:
    """`pixiu memory accept`, `pixiu trade --date`: a command named with its flags, no values."""
    _, rest = _resolve(line.split()[1:])
    return all(word.startswith("-") for word in rest)


def command_problem(line: str) -> str | None:
    """Why `line` is no command pixiu has, or None."""
    return _usage_problem(line) if _USAGE.search(line) or _is_mention(line) else _run_problem(line)


def test_every_pixiu_command_in_the_readme_and_docs_parses():
    problems = []
    for path in DOCS:
        for line in shown_commands(_text(path)):
            problem = command_problem(line)
            if problem:
                problems.append(f"{path.relative_to(REPO)}: `{line}`: {problem}")
    assert not problems, "\n".join(problems)


def test_the_command_check_can_fail():
    assert command_problem("pixiu holdings --jsn")
    assert command_problem("pixiu trade buy 600519 100 1500 --dat 2025-03-03")
    assert command_problem("pixiu chart 000333 --days many")
    assert command_problem("pixiu data sync --securites [--source baostock|akshare]")
    assert command_problem("pixiu memory list|accept [--jsn]")
    assert command_problem("pixiu fundamentals --jsn")
    assert command_problem("pixiu 离线服务")
    assert command_problem("pixiu trades import 交割单.csv --dry-run") is None
    assert command_problem("pixiu memory accept") is None
    assert command_problem("pixiu data sync --if-trading-day") is None
    assert shown_commands("```bash\npixiu a # x\npixiu b; pixiu c\n```\n`pixiu d \\| x` and `echo pixiu`") == [
        "pixiu a # x",
        "pixiu b",
        "pixiu c",
        "pixiu d | x",
    ]


# --- the README -------------------------------------------------------------------------------


def _ci_command() -> str:
    lines = [line for line in _text(REPO / ".ci" / "run").splitlines() if line.startswith("python3 -m venv")]
    assert len(lines) == 1, ".ci/run runs one command line"
    return lines[0]


def test_the_readme_is_short_and_begins_with_the_two_command_quick_start():
    text = _text(README)
    lines = text.splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250)"
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[0] == "## Quick start" and lines.index("## Quick start") < 20
    blocks = _FENCE.findall(text)
    run, test = (body.strip() for _, body in blocks[:2])
    assert run.startswith("python3 -m venv .venv && .venv/bin/pip install") and run.endswith("pixiu chat --demo")
    assert test == _ci_command(), "the README's test command is what .ci/run runs"
    quick = text[text.index("## Quick start") :]
    assert quick.index(test) < quick.index("\n## "), "both commands are in the quick start"
    assert "## Your own account in three commands" in headings
    account = text[text.index("## Your own account in three commands") :]
    assert [line for line in _FENCE.findall(account)[0][1].splitlines() if line.startswith("pixiu")] == [
        "pixiu trades import 交割单.csv",
        "pixiu holdings",
        'pixiu ask "我的持仓里哪只该减仓？"',
    ]


# --- usage.md's tables list what exists ------------------------------------------------------

USAGE = REPO / "docs" / "usage.md"


def _table_after(text: str, heading_line: str) -> list[str]:
    """The first column of the markdown table whose header is `heading_line`."""
    rows = []
    for line in text[text.index(heading_line) :].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(re.split(r"(?<!\\)\|", line)[1])
    return rows


def _documented_cli() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for cell in _table_after(_text(USAGE), "| command | what it does |"):
        for name, rest in re.findall(r"`pixiu ([a-z][a-z-]*)((?: [a-z|\\]+)?)", cell):
            subs = {s for s in re.split(r"\\\||\|", rest.strip()) if s} if rest.strip() else set()
            found.setdefault(name, set()).update(subs)
    return found


def test_every_command_is_in_the_usage_table_and_every_listed_one_exists():
    tree = {name: set(_subcommands(c)) for name, c in _root().commands.items()}
    documented = _documented_cli()
    assert set(tree) == set(documented), (
        f"docs/usage.md's command table: missing {sorted(set(tree) - set(documented))}, "
        f"no such command {sorted(set(documented) - set(tree))}"
    )
    for group, subcommands in tree.items():
        if subcommands:
            assert subcommands == documented[group], f"docs/usage.md's command table: pixiu {group}"


def test_every_slash_command_is_in_the_usage_table_and_every_listed_one_exists():
    cells = _table_after(_text(USAGE), "| slash command | |")
    documented = {name for cell in cells for name in re.findall(r"`/([a-z]+)", cell)}
    assert documented == set(registry.names()), (
        f"docs/usage.md's slash table: missing {sorted(set(registry.names()) - documented)}, "
        f"no such command {sorted(documented - set(registry.names()))}"
    )


# --- links, anchors, paths, figures ----------------------------------------------------------


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def _anchors(path) -> set[str]:
    body = _FENCE.sub("", _text(path))
    return {_anchor(h) for h in re.findall(r"^#{1,6} (.+)$", body, re.MULTILINE)}


# Written in another branch of the same issue; checked like any other once it exists.
WRITTEN_ELSEWHERE = {"architecture.md"}


def test_every_link_and_anchor_resolves():
    problems = []
    for path in DOCS:
        for target in re.findall(r"\]\(([^)\s]+)\)", _FENCE.sub("", _text(path))):
            if re.match(r"[a-z]+://", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            if not linked.exists() and linked.name in WRITTEN_ELSEWHERE:
                continue
            if not linked.exists():
                problems.append(f"{path.name}: {target}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                problems.append(f"{path.name}: {target}: no such heading")
    assert not problems, "\n".join(problems)


def test_the_anchor_rule_is_githubs():
    assert _anchor("PIXIU_HOME and PIXIU_NOW") == "pixiu_home-and-pixiu_now"
    assert _anchor("Slash commands (the REPL)") == "slash-commands-the-repl"
    assert _anchor("Local analytics: profiles, signals, alerts, track record") == (
        "local-analytics-profiles-signals-alerts-track-record"
    )


# `pixiu_cli/conversation/context/builder.py`, `tests/helpers.py`, `data/calendar/`, or a module named from its
# package down (`conversation/grounding.py`, `account/ledger.py`: under pixiu_cli/).
_PATH = re.compile(r"`((?:[a-z_]+/)+(?:[\w*-]+\.(?:py|toml|json|md|txt|tsv|csv|marshal))?)`")


_ROOTS = {p.name for p in REPO.iterdir()} | {p.name for p in (REPO / "pixiu_cli").iterdir() if p.is_dir()}


def test_every_repository_path_named_exists():
    missing = []
    for path in DOCS:
        for named in _PATH.findall(_text(path)):
            if named.split("/")[0] not in _ROOTS:
                continue  # a folder of the home (`backups/`) or of a package's data (`rules/`)
            if not any(any(base.glob(named.rstrip("/"))) for base in (REPO, REPO / "pixiu_cli")):
                missing.append(f"{path.name}: {named}")
    assert not missing, "\n".join(missing)


def test_the_shipped_case_count_the_docs_give_is_pixiu_evals():
    current = [path for path in DOCS if path.name != "changelog.md"]  # history keeps its own counts
    stated = {int(n) for path in current for n in re.findall(r"(\d+) shipped (?:context |eval )?cases", _text(path))}
    assert stated == {len(load_cases())}, f"pixiu eval runs {len(load_cases())} shipped cases; the docs say {stated}"


# --- what PIXIU_NOW pins, as configuration.md says ----------------------------------------

CONFIGURATION = REPO / "docs" / "configuration.md"
# Every module that reads the machine's clock past PIXIU_NOW, and the words naming it there.
UNPINNED = {
    "conversation/llm/retry.py": ("`Retry-After` date",),
    "brief/push/channels.py": ("signature timestamps", "a mail's `Date`"),
    "kernel/store/backup.py": ("partial-backup age",),
    "conversation/offline/model.py": ("completion stamps",),
    "conversation/offline/server.py": ("completion stamps",),
}


def test_configuration_names_every_reading_of_the_clock_pixiu_now_does_not_pin():
    readers = {
        str(p.relative_to(REPO / "pixiu_cli"))
        for p in (REPO / "pixiu_cli").rglob("*.py")
        if "machine_seconds()" in p.read_text(encoding="utf-8") and p.name != "clock.py"
    }
    assert readers == set(UNPINNED), "a new reading of the machine's clock: say so in docs/configuration.md"
    paragraph = re.sub(r"\s+", " ", _text(CONFIGURATION).split("`PIXIU_NOW` pins", 1)[1].split("\n\n", 1)[0])
    assert [words for named in UNPINNED.values() for words in named if words not in paragraph] == []


def test_pixiu_now_pins_a_backups_name_as_configuration_says(tmp_path):
    from tests.helpers import pixiu_in_process

    env = {"PIXIU_HOME": str(tmp_path), "PIXIU_NOW": "2025-03-03T15:30:00", "PATH": "/usr/bin"}
    assert pixiu_in_process(env, "backup").returncode == 0
    assert [p.name for p in (tmp_path / "backups").iterdir()] == ["pixiu-20250303-153000.db"]
    assert "backups" in _text(CONFIGURATION).split("`PIXIU_NOW` pins", 1)[1].split("It does", 1)[0]


MEMORY = REPO / "docs" / "memory.md"


def test_the_memory_page_names_every_tool_the_model_has():
    from pixiu_cli.conversation.model_tools import TOOLS

    intro = _text(MEMORY).split("## Memory and tools", 1)[1].split("\n\n", 2)[1]
    named = set(re.findall(r"`([a-z_]+)`", intro))
    assert named == {t.name for t in TOOLS}
    assert (
        f"The model has {['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'][len(TOOLS)]} tools"
        in intro
    )


# --- a page per area --------------------------------------------------------------------------

AREAS = ("account", "market", "memory", "conversation", "brief", "home")  # the order of the index


def test_each_area_has_a_page_with_its_commands_and_its_data():
    problems = []
    for area in AREAS:
        assert (REPO / "pixiu_cli" / area).is_dir(), f"no area {area}"
        text = _text(REPO / "docs" / f"{area}.md")
        headings = re.findall(r"^## (.+)$", _FENCE.sub("", text), re.MULTILINE)
        if headings[:2] != ["Commands", "Data"]:
            problems.append(f"docs/{area}.md: its first parts are {headings[:2]}, not Commands and Data")
        if f"`pixiu_cli/{area}/`" not in text:
            problems.append(f"docs/{area}.md does not say where its code lives (`pixiu_cli/{area}/`)")
    assert not problems, "\n".join(problems)


def test_the_index_lists_the_area_pages_first_in_the_order_of_the_folders():
    rows = re.findall(r"^\| \[([\w-]+\.md)\]", _text(REPO / "docs" / "README.md"), re.MULTILINE)
    assert rows[: len(AREAS)] == [f"{area}.md" for area in AREAS]
    assert set(rows) == {path.name for path in (REPO / "docs").glob("*.md")} - {"README.md"}


def test_no_doc_holds_a_merge_conflict_marker():
    markers = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.MULTILINE)
    assert not [(path.name, m.group(0)) for path in DOCS for m in markers.finditer(_text(path))]
