"""One declaration per command: the typed parameters read the same values from a slash line
and from a command line, the usage and completion come from them, and each migrated command
of both surfaces is generated from its declaration (no second registration)."""

from __future__ import annotations

import pytest

from pixiu_cli.commands.values import CommandError
from pixiu_cli.memory import alerts as alert_service
from pixiu_cli.memory import commands as memory_commands
from pixiu_cli.memory.alerts import SOURCE_BY_HAND, NewAlert
from pixiu_cli.repl import loop  # noqa: F401  (registers every slash command)
from pixiu_cli.repl.registry import parse_command, registry
from pixiu_cli.repl.slash import completing, run_slash
from pixiu_cli.repl.slash import usage as slash_usage
from tests.helpers import clean_env, offline_repl, pixiu_in_process

# plain click commands (memory/commands.py), the same function for `pixiu X` and `/X`
CLICK = ("alias", "alert", "memory", "remember", "forget")


def test_the_memorys_commands_are_one_click_command_on_both_surfaces():
    from pixiu_cli.cli.root import command_of

    for name in CLICK:
        assert command_of(name) is memory_commands.COMMANDS[name], name
        slash = registry.get(name)
        assert slash is not None and slash.declaration is not None, name


def _alerts_added(monkeypatch) -> list:
    added = []
    monkeypatch.setattr(memory_commands, "add_alert", lambda db, request, at: added.append(request))
    monkeypatch.setattr(memory_commands.views, "show_added", lambda *_: None)
    return added


def _slash(state, word: str, line: str) -> None:
    """`/word line` as the REPL runs it (its shell-like words, and the line as typed)."""
    run_slash(state, word, parse_command(f"/{word} {line}").args, line)


def test_the_alert_command_reads_one_request_from_either_surface(monkeypatch, tmp_path):
    # 76 yuan, the default cooldown of 5 trading days; the same request on both surfaces
    want = NewAlert("000333", "above", 76.0, SOURCE_BY_HAND, 5)
    added = _alerts_added(monkeypatch)
    with offline_repl(tmp_path) as (state, _):
        _slash(state, "alert", "add 000333 --above 76")
        _slash(state, "alert", "add ０００３３３ --above 76 --cooldown 0")
        assert added == [want, NewAlert("000333", "above", 76.0, SOURCE_BY_HAND, 0)]
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
                _slash(state, "alert", f"add {bad}")
    assert len(added) == 2


def test_the_command_line_builds_the_same_alert_request(monkeypatch, tmp_path):
    added = _alerts_added(monkeypatch)
    done = pixiu_in_process(clean_env(tmp_path), "alert", "add", "000333", "--above", "76", text=True)
    assert done.returncode == 0, done.stderr
    assert added == [NewAlert("000333", "above", 76.0, SOURCE_BY_HAND, 5)]
    done = pixiu_in_process(clean_env(tmp_path), "alert", "add", "000333", "--below", "x", text=True)
    assert len(added) == 1 and done.returncode == 1 and done.stderr.strip() == "错误：阈值应为正数，而不是 'x'"


def test_the_cooldown_bound_is_the_services_one():
    (param,) = [p for p in memory_commands.alert.commands["add"].params if p.name == "cooldown"]
    assert param.type.max == alert_service.MAX_COOLDOWN_DAYS
    assert param.default == alert_service.DEFAULT_COOLDOWN_DAYS


def test_free_text_is_kept_as_typed_around_the_options(monkeypatch, tmp_path):
    noted = []
    monkeypatch.setattr(memory_commands, "add_note", lambda db, note, at: noted.append(note))
    monkeypatch.setattr(memory_commands.views, "show_note", lambda *_: None)
    with offline_repl(tmp_path) as (state, _):
        _slash(state, "remember", 'don\'t 追高 --kind rule  "回踩"  再买 --symbol 300750')
        assert (noted[0].text, noted[0].kind, noted[0].symbol) == ('don\'t 追高 "回踩"  再买', "rule", "300750")
        _slash(state, "remember", "--5% 就止损")
        assert noted[1].text == "--5% 就止损"  # "--5%" is text, not an option
        with pytest.raises(CommandError, match="--kind 只能是 view、plan、rule，而不是 'idea'"):
            _slash(state, "remember", "不追高 --kind idea")
        with pytest.raises(CommandError, match="^未知选项 --bogus$"):
            _slash(state, "remember", "不追高 --bogus")
    assert len(noted) == 2


def test_usage_lines_and_completion_come_from_the_parameters(tmp_path):
    assert slash_usage("remember") == "/remember [文本] [--kind view|plan|rule] [--symbol 代码]"
    with offline_repl(tmp_path) as (state, _):
        with pytest.raises(CommandError, match="^用法：/memory accept 提议ID$"):
            _slash(state, "memory", "accept")
    assert completing("alert", []) == ("list", "add", "remove")
    assert completing("alert", ["add"]) == "stock"
    assert completing("remember", ["回踩", "--kind"]) == ("view", "plan", "rule")
    assert completing("remember", ["回踩", "--symbol"]) == "stock"
    assert completing("forget", []) == "memory"
    assert completing("memory", ["pin"]) == "memory"


def test_a_group_runs_its_default_subcommand_on_both_surfaces():
    """trades is a plain click group now (account/commands.py), the same for `pixiu` and `/`."""
    from pixiu_cli.account.commands import trades

    assert trades.default == "list" and set(trades.commands) == {"list", "import"}
    with trades.make_context("trades", ["600036"]) as ctx:
        assert ctx.protected_args + ctx.args == ["list", "600036"] or ctx.invoked_subcommand in (None, "list")


def test_a_declaration_appears_only_on_its_surfaces():
    import click

    from pixiu_cli.cli.root import root

    memory = memory_commands.memory
    with click.Context(root) as on_the_command_line:
        assert "edit" not in memory.list_commands(on_the_command_line)
        assert memory.get_command(on_the_command_line, "edit") is None
    with click.Context(root, obj=object()) as in_the_repl:
        assert "edit" in memory.list_commands(in_the_repl)


def test_words_no_subcommand_takes_are_the_groups_usage(tmp_path):
    assert slash_usage("alert").startswith("/alert [list] | /alert add 代码 [--below P]")
    with offline_repl(tmp_path) as (state, _):
        with pytest.raises(CommandError, match=r"^用法：/alert \[list\] \| /alert add"):
            _slash(state, "alert", "nope")
        with pytest.raises(CommandError, match="^未知选项 --bogus$"):
            _slash(state, "memory", "--bogus")


def test_a_negative_amount_is_refused_as_on_the_command_line(tmp_path):
    """`/cash set -5`: click reads "-5" as an unknown short option; the REPL says what the
    command line says (a negative amount), not that -5 is an unknown option."""
    with offline_repl(tmp_path) as (state, _):
        with pytest.raises(CommandError, match="^-5 不是选项：这里的数值不能为负$"):
            _slash(state, "cash", "set -5")
        with pytest.raises(CommandError, match="^-100.5 不是选项：这里的数值不能为负$"):
            _slash(state, "cash", "set -100.5")
        with pytest.raises(CommandError, match="^未知选项 --bogus$"):
            _slash(state, "cash", "set 5 --bogus")
