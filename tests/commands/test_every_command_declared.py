"""Every command of both surfaces is generated from its one declaration, but for a named few;
and a declaration reads the same request from a slash line and from a command line (what the
cross-surface tests of /chart, /sessions, /context and /news checked by running both)."""

from __future__ import annotations

import pytest

from pixiu_cli.commands.values import CommandError
from pixiu_cli.repl import loop  # noqa: F401  (registers every slash command)
from pixiu_cli.repl.registry import registry
from pixiu_cli.repl.slash import usage as slash_usage
from tests.commands.requests import cli_params, slash_params

# Not generated, and why:
CONVERSATION = {"chat", "ask"}  # the conversation surfaces themselves: a turn typed or asked, not a command
ABOVE_COMMANDS = {"eval", "mcp"}  # they run evals/ and mcp_server/, layers above commands/
NOT_DECLARED = CONVERSATION | ABOVE_COMMANDS


def _market_call(monkeypatch, module, name: str) -> list:
    """What the market's command passes to its use case `module.name` (which is not run)."""
    calls = []
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append((a[1:], k)))
    return calls


def _slash_refusal(line: str) -> str:
    """The one line /word refuses `line` with (nothing has run: the values are read first)."""
    from pixiu_cli.repl.slash import run_slash

    word, *args = line.split()
    with pytest.raises(CommandError) as refused:
        run_slash(object(), word, args)
    return str(refused.value)


def test_the_chart_reads_one_request_from_either_surface(monkeypatch, tmp_path):
    """chart is a plain click command (market/commands.py): `pixiu chart` and /chart are one
    command, so they read the same values and refuse bad ones with the same lines."""
    from pixiu_cli.market import service
    from pixiu_cli.repl.loop import run_command
    from tests.helpers import clean_env, offline_repl, pixiu_in_process

    calls = _market_call(monkeypatch, service, "chart")
    monkeypatch.setattr("pixiu_cli.market.views.show_chart", lambda *a: None)
    # a full-width code is the same stock; 120 trading days within 5…5000
    done = pixiu_in_process(clean_env(tmp_path), "chart", "600519", "--days", "120", text=True)
    assert done.returncode == 0, done.stderr
    with offline_repl(tmp_path / "repl") as (state, out):
        run_command(state, "/chart ６００５１９ --days 120")
        run_command(state, "/chart 600519")
    # after the market: the account whose cost line it draws, then what was typed
    assert [c[0][1:3] for c in calls] == [("600519", 120), ("600519", 120), ("600519", 250)], out.getvalue()
    for bad, said in (
        ("chart 600519 --days 4", "--days 应为 5 到 5000 之间的整数，而不是 4"),
        ("chart 600519 --days", "--days 需要一个值"),
        ("chart 60051", "股票代码应为 6 位数字，而不是 '60051'"),
        ("chart 600519 600036", "用法：/chart 代码 [--days N]"),
    ):
        assert _slash_refusal(bad) == said, bad


def test_the_context_reads_the_turn_as_a_word_in_the_repl_and_as_an_option_on_the_command_line():
    """context is a plain click command (conversation/commands.py): the REPL's N and the
    command line's --turn N are one turn to the one function."""
    slash = slash_params("context", "2 --raw")
    cli = cli_params("context", "--turn", "2", "--raw")
    turn = lambda values: values["turn"] if values["turn"] is not None else values["turn_option"]  # noqa: E731
    assert turn(slash) == turn(cli) == 2 and slash["raw"] and cli["raw"]
    others = lambda values: {k: v for k, v in values.items() if k not in ("turn", "turn_option")}  # noqa: E731
    assert others(slash) == others(cli)
    plain = slash_params("context", "")
    assert not any(plain[flag] for flag in ("json_out", "raw", "pretty", "diff", "explain"))  # the table
    assert slash_usage("context") == "/context [N] [--json] [--raw] [--pretty] [--diff]"
    with pytest.raises(CommandError, match="未知选项 --explain"):  # the command line's alone
        slash_params("context", "--explain")
    with pytest.raises(CommandError, match="N 应为不小于 1 的整数，而不是 0"):
        slash_params("context", "0")


def test_news_sync_is_a_subcommand_on_both_surfaces(monkeypatch, tmp_path):
    from pixiu_cli.market.news import service
    from pixiu_cli.repl.loop import run_command
    from tests.helpers import clean_env, offline_repl, pixiu_in_process

    calls = _market_call(monkeypatch, service, "sync_news")
    monkeypatch.setattr("pixiu_cli.market.news.views.show_sync", lambda *a: None)
    done = pixiu_in_process(clean_env(tmp_path), "news", "sync", "600519", "000333", text=True)
    assert done.returncode == 0, done.stderr
    with offline_repl(tmp_path / "repl") as (state, out):
        run_command(state, "/news sync 600519 000333")
    requests = [c[0][0] for c in calls]
    assert len(requests) == 2 and requests[0] == requests[1], out.getvalue()
    assert requests[0].symbols == ["600519", "000333"] and requests[0].timeout == 20.0
    listed = []
    monkeypatch.setattr("pixiu_cli.market.news.views.show_news", lambda r, found, spell: listed.append(found))
    with offline_repl(tmp_path / "repl") as (state, out):
        run_command(state, "/news 600519")
    assert [f.symbol for f in listed] == ["600519"], out.getvalue()
    assert _slash_refusal("news list 600519 --limit 0") == "--limit 应为 1 到 1000 之间的整数，而不是 0"


def test_sessions_takes_a_count_or_words_in_the_repl_and_options_on_the_command_line():
    searched = slash_params("sessions", "茅台 怎么样")
    assert (" ".join(searched["words"]), searched["limit"], searched["rename"]) == ("茅台 怎么样", 20, None)
    cli = cli_params("sessions", "茅台", "--limit", "5")
    assert (cli["text"], cli["limit"], cli["words"]) == ("茅台", 5, ())
    with pytest.raises(CommandError, match="未知选项 --rename"):
        slash_params("sessions", "--rename 3 新标题")


def test_resume_wants_one_conversation_id():
    assert slash_params("resume", "12")["conversation_id"] == 12
    for bad, said in (("", "用法：/resume ID"), ("0", "ID 应为不小于 1 的整数"), ("1 2", "用法：/resume ID")):
        with pytest.raises(CommandError, match=said):
            slash_params("resume", bad)


def test_the_data_commands_are_the_command_lines_alone():
    from pixiu_cli.cli.root import TABLE

    assert (TABLE["data"].cli, TABLE["data"].repl) == (True, False)
    assert (TABLE["sync"].cli, TABLE["sync"].repl) == (False, True)
    assert registry.get("data") is None and registry.get("sync") is not None


def test_the_repl_reads_a_stock_name_where_the_command_line_does(tmp_path):
    """/news and /chart took only six digits while `pixiu news` and `pixiu chart` took a name;
    one declaration reads the stock one way (the conversation's name matcher) on both."""
    from pixiu_cli.repl.loop import run_command
    from tests.helpers import offline_repl

    with offline_repl(tmp_path) as (state, out):
        run_command(state, "/news 贵州茅台")
        run_command(state, "/chart 贵州茅台")
    said = out.getvalue()
    assert "没有已存的新闻（600519）：/news sync 从 akshare 同步" in said, said
    assert "没有 600519 的行情数据" in said and "6 位" not in said, said


BRIEF_USAGE = "/brief [--yes] [--push [--last]]"


def test_the_brief_reads_one_request_from_either_surface():
    slash = slash_params("brief", "--yes --push --last")
    assert cli_params("brief", "-y", "--push", "--last") == slash
    assert (slash["yes"], slash["push"], slash["last"]) == (True, True, True)
    # the command line's own options keep their defaults in the REPL
    assert (slash["json_out"], slash["model"], slash["offline"], slash["if_trading_day"]) == (False, None, False, False)
    cli = cli_params("brief", "--json", "--model", "deepseek-flash", "--offline", "--if-trading-day")
    assert (cli["json_out"], cli["model"], cli["offline"], cli["if_trading_day"]) == (
        True,
        "deepseek-flash",
        True,
        True,
    )
    assert (cli["yes"], cli["push"], cli["last"]) == (False, False, False)
    assert slash_usage("brief") == BRIEF_USAGE == registry.get("brief").usage


def test_brief_last_without_push_is_the_usage_line_and_nothing_else_is_taken():
    assert slash_params("brief", "--push")["push"] and not slash_params("brief", "")["push"]
    for bad, said in (
        ("--last", f"^用法：{BRIEF_USAGE}$"),
        ("--yes --last", f"^用法：{BRIEF_USAGE}$"),
        ("now", f"^用法：{BRIEF_USAGE}$"),
        ("--offline", "^未知选项 --offline$"),  # the command line's alone
        ("--json", "^未知选项 --json$"),
    ):
        with pytest.raises(CommandError, match=said.replace("[", r"\[").replace("]", r"\]")):
            slash_params("brief", bad)


REPL_OWN = ("help", "exit", "new", "resume", "model", "save", "copy", "undo", "retry")


def test_the_repls_own_commands_are_its_alone_and_declared_once():
    """Plain click commands of the root group (conversation/commands.py, repl/commands.py)
    that only the REPL runs: not on the command line."""
    import click

    from pixiu_cli.cli.root import TABLE, command_of, root

    with click.Context(root) as on_the_command_line:
        cli_words = set(root.list_commands(on_the_command_line))
    for word in REPL_OWN:
        assert not TABLE[word].cli and TABLE[word].repl and word not in cli_words, word
        assert isinstance(command_of(word), click.Command) and registry.get(word) is not None, word


def test_retry_is_the_repls_alone_and_takes_no_words():
    assert "retry" in REPL_OWN
    assert slash_params("retry", "") == {}
    with pytest.raises(CommandError, match="^用法：/retry$"):
        slash_params("retry", "again")


def test_retry_in_the_repl_refuses_as_before_and_asks_a_failed_turn_again(tmp_path):
    from pixiu_cli.repl.loop import run_command
    from pixiu_cli.repl.turn import run_chat_turn
    from tests.helpers import offline_repl

    with offline_repl(tmp_path) as (state, out):
        run_command(state, "/retry")
        assert out.getvalue().strip() == "错误：当前对话还没有可以重试的一轮"
        run_chat_turn(state, "你好")
        run_command(state, "/retry")
        assert "第 1 轮已完整回答，无需重试" in out.getvalue()
        conversation_id = state.conversation_id
        state.app.store.db.execute("update turns set status = 'error' where conversation_id = ?", [conversation_id])
        before = len(out.getvalue())
        run_command(state, "/retry")
        said = out.getvalue()[before:]
        turns = state.app.store.turns(conversation_id)
    assert said.startswith("重新提问第 1 轮：你好") and "tokens · 缓存命中" in said, said
    assert state.conversation_id == conversation_id and [t.status for t in turns] == [
        "error",
        "complete",
    ]  # the failed turn kept on record
