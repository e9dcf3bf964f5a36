"""What a one-shot command loads, as upper bounds that may only go down: the pixiu modules
in sys.modules at its exit, how often it read the settings (once), and which heavy packages
it imported (none it does not use). Measured by benchmarks/command_modules.py, which prints
the same figures with import times against `pixiu --help`.

Before the settings became plain data every command here loaded the agent, the context's
limits and the selection (holdings 102 pixiu modules, `trades import` 118 and the settings
three times, `data status` pandas and numpy through sqlite-utils: 847 modules in all)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "command_modules.py"
_SPEC = importlib.util.spec_from_file_location("command_modules", _PATH)
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)

# domain/account (SkippedRow) joins every reader that reads around an unreadable ledger row (+1).
# command -> (pixiu modules at most, the heavy packages it may load). Lower a bound when a
# command loads less; raising one needs a reason in the commit that does it.
# Every start reads the command declarations (commands/, ~20 small modules): each typer command
# and slash command is generated from one, so they are the price of `--help` listing them.
# typer only where a command goes through it (the common calls of chat, ask, context and
# cache do not: cli/fast.py), sqlite-utils where a command opens the database.
TYPER, STORE = {"typer"}, {"typer", "sqlite_utils"}
BOUNDS = {
    "--help": (44, TYPER),  # +1: market/publication (the schedule's default time is the source's)
    "holdings": (88, STORE),  # +7: the fee and dividend-tax tables, the plausibility bounds, the inert text, cash_said
    "trades import FILE": (106, STORE),  # +7: as holdings
    "trades": (87, STORE),  # +7: as holdings
    "cash": (88, STORE),  # +7: as holdings
    "alert list": (73, STORE),  # +4: fees (settings), plausible, inert, publication
    "memory list": (84, STORE),  # +4: as alert list; +1: selection/form_kinds (a note's stock by its own forms)
    "sessions": (80, STORE),  # +1: store/packed_text (turn texts packed against a dictionary); +4: as alert list
    "config show": (54, TYPER),  # +2: inert (moved out of render), publication
    "data status": (85, STORE),  # +6: as holdings, less the tax table
    "context TEXT": (
        116,  # +1: store/packed_text, as sessions; +5: the fee, tax and plausibility tables, inert, publication;
        # +1: the senses, now in selection/select (a name's everyday sense in its sentence: every mention kind's one veto);
        # +1: selection/form_kinds (the name table tells an own form's kind without the generator);
        # +1: selection/words (whether an own form that needs evidence sits inside a longer word)
        {"pixiu_cli.conversation.agent", "sqlite_utils"},
    ),  # the request preview: conversation/agent/preview.py, no loop, no SDK
    # +1: store/packed_text; +1: the senses (selection/select); +2: selection/form_kinds and words, as context TEXT
    "ask": (135, {"openai", "pixiu_cli.conversation.agent", "sqlite_utils"}),
}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return bench.prepared_home(tmp_path_factory.mktemp("commands"))


def test_every_measured_command_has_a_bound():
    assert set(BOUNDS) == set(bench.COMMANDS)


@pytest.mark.slow  # a new process per command is what is measured: whole suite only
@pytest.mark.parametrize("name", list(BOUNDS))
def test_a_one_shot_command_loads_only_what_it_uses(home, name):
    most, may_load = BOUNDS[name]
    pixiu, _, settings_read, heavy = bench.measure(home, bench.COMMANDS[name])
    assert pixiu <= most, f"pixiu {name} loads {pixiu} pixiu modules (bound {most})"
    assert settings_read <= 1, f"pixiu {name} read the settings {settings_read} times"
    assert heavy <= may_load, f"pixiu {name} loads {sorted(heavy - may_load)}"


@pytest.mark.slow  # a new process (or a terminal) is what is checked: whole suite only
def test_holdings_reads_the_settings_once_and_loads_no_agent(tmp_path):
    """The fast subset's check, on the most common command."""
    home = bench.prepared_home(tmp_path, asked=False)
    pixiu, _, settings_read, heavy = bench.measure(home, bench.COMMANDS["holdings"])
    # holdings is a plain click command now (cli/root.py): typer is no longer loaded for it
    assert (settings_read, heavy) == (1, {"sqlite_utils"}) and pixiu <= BOUNDS["holdings"][0]
