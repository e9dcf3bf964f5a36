"""One declaration per command: the typed parameters read the same values from a slash line
and from a command line, the usage and completion come from them, and each migrated command
of both surfaces is generated from its declaration (no second registration)."""

from __future__ import annotations

from decimal import Decimal

import pytest
import typer.main

from pixiu_cli.cli.typer_app import app  # the commands still declared
from pixiu_cli.commands.catalog import DECLARED
from pixiu_cli.commands.declaration import CLI, REPL, Command
from pixiu_cli.commands.slash import parse, slash_commands, usage
from pixiu_cli.commands.values import CommandError
from pixiu_cli.memory import alerts as alert_service
from pixiu_cli.memory import commands_alerts as alert_declarations
from pixiu_cli.memory.commands_alerts import AlertRequest
from pixiu_cli.repl import loop  # noqa: F401  (registers every slash command)
from pixiu_cli.repl.slash_commands import registry
from tests.commands.requests import cli_request as _cli_request
from tests.commands.requests import context as _context
from tests.commands.requests import declared as _declared
from tests.commands.requests import leaves as _leaf_paths
from tests.commands.requests import slash_request as _slash_request

MIGRATED = ("alias", "alert", "memory", "remember", "forget")  # track and watch: market/commands.py


def test_every_migrated_command_on_both_surfaces_comes_from_a_declaration():
    root = typer.main.get_command(app)
    for name in MIGRATED:
        slash = registry.get(name)
        assert slash is not None and slash.declaration is not None, name
        command = root.commands[name]
        leaves = list(getattr(command, "commands", {}).values()) or [command]
        assert all(getattr(leaf.callback, "declaration", None) is not None for leaf in leaves), name
    declared_tops = {d.path[0] for d in DECLARED}
    assert set(MIGRATED) <= declared_tops


def test_the_alert_declaration_reads_one_request_from_either_surface():
    # 76 yuan, the default cooldown of 5 trading days; the same request type on both surfaces
    want = AlertRequest("000333", None, Decimal("76"), None, None, 5)
    assert _slash_request(("alert", "add"), "000333 --above 76") == want
    assert _slash_request(("alert", "add"), "０００３３３ --above 76 --cooldown 0").cooldown == 0
    for bad, said in (
        ("000333 --below 70 --cooldown", "--cooldown 需要一个值"),
        ("000333 --below 70 --cooldown 251", "--cooldown 应为 0 到 250 之间的整数，而不是 251"),
        ("000333 --below x", "阈值应为正数，而不是 'x'"),
        ("000333", "请给出且只给出一个条件"),
        ("000333 --below 1 --above 2", "请给出且只给出一个条件"),
        ("60051 --below 3", "股票代码应为 6 位数字，而不是 '60051'"),
        ("000333 --below 3 --bogus 1", "未知选项 --bogus"),
    ):
        with pytest.raises(CommandError, match=said):
            _slash_request(("alert", "add"), bad)


def test_the_command_line_builds_the_same_alert_request(monkeypatch, tmp_path):
    done, built = _cli_request(("alert", "add"), monkeypatch, tmp_path, "000333", "--above", "76")
    assert built == [AlertRequest("000333", None, Decimal("76"), None, None, 5)], done
    done, built = _cli_request(("alert", "add"), monkeypatch, tmp_path, "000333", "--below", "x")
    assert built == [] and done.returncode == 1 and done.stderr.strip() == "错误：阈值应为正数，而不是 'x'"


def test_the_cooldown_bound_is_the_services_one():
    (param,) = [p for p in _declared(("alert", "add")).params if p.name == "cooldown"]
    assert param.kind.high == alert_service.MAX_COOLDOWN_DAYS == alert_declarations.MAX_COOLDOWN_DAYS
    assert param.default == alert_service.DEFAULT_COOLDOWN_DAYS


def test_free_text_is_kept_as_typed_around_the_options():
    line = 'don\'t 追高 --kind rule  "回踩"  再买 --symbol 300750'
    request = _slash_request(("remember",), line)
    assert (request.text, request.kind, request.symbol) == ('don\'t 追高 "回踩"  再买', "rule", "300750")
    assert _slash_request(("remember",), "--5% 就止损").text == "--5% 就止损"  # "--5%" is text, not an option
    with pytest.raises(CommandError, match="--kind 只能是 view、plan、rule，而不是 'idea'"):
        _slash_request(("remember",), "不追高 --kind idea")


def test_usage_lines_and_completion_come_from_the_parameters():
    assert usage(_declared(("memory", "accept"))) == "/memory accept 提议ID"
    assert usage(_declared(("remember",))) == "/remember [文本] [--kind view|plan|rule] [--symbol 代码]"
    with pytest.raises(CommandError, match="^用法：/memory accept 提议ID$"):
        parse(_declared(("memory", "accept")), [], "")
    slashes = {s.name: s for s in slash_commands(DECLARED)}
    assert slashes["alert"].completing([]) == ("list", "add", "remove")
    assert slashes["alert"].completing(["add"]) == "stock"
    assert slashes["remember"].completing(["回踩", "--kind"]) == ("view", "plan", "rule")
    assert slashes["remember"].completing(["回踩", "--symbol"]) == "stock"
    assert slashes["forget"].completing([]) == "memory"
    assert slashes["memory"].completing(["pin"]) == "memory"


def test_a_group_runs_its_default_subcommand_on_both_surfaces():
    """trades is a plain click group now (account/commands.py), the same for `pixiu` and `/`."""
    from pixiu_cli.account.commands import trades

    assert trades.default == "list" and set(trades.commands) == {"list", "import"}
    with trades.make_context("trades", ["600036"]) as ctx:
        assert ctx.protected_args + ctx.args == ["list", "600036"] or ctx.invoked_subcommand in (None, "list")


def test_a_declaration_appears_only_on_its_surfaces():
    edit = _declared(("memory", "edit"))
    assert edit.surfaces == {REPL}
    root = typer.main.get_command(app)
    assert "edit" not in root.commands["memory"].commands
    assert "edit" in {s.name: s for s in slash_commands(DECLARED)}["memory"].subcommands
    on_the_command_line = {path for path, _ in _leaf_paths(root)}
    for d in DECLARED:
        if isinstance(d, Command):
            assert (d.path in on_the_command_line) == (CLI in d.surfaces), d.path


def test_words_no_subcommand_takes_are_the_groups_usage():
    slashes = {s.name: s for s in slash_commands(DECLARED)}
    alert = slashes["alert"]
    assert alert.usage.startswith("/alert [list] | /alert add 代码 [--below P]")
    with pytest.raises(CommandError, match=r"^用法：/alert \[list\] \| /alert add"):
        alert.run(_context(REPL), ["nope"], "nope")
    with pytest.raises(CommandError, match="^未知选项 --bogus$"):
        slashes["memory"].run(_context(REPL), ["--bogus"], "--bogus")
