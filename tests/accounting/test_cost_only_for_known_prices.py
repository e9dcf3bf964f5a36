"""A cost is shown only where the price table knows the model (DeepSeek's published prices,
or the user's own [prices]); for any other provider pixiu shows tokens only, in `pixiu
cache` and in /cache."""

from __future__ import annotations

import json

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import PROMPT, leave, pixiu_for_result, repl_session, say


def pixiu(env, *args):
    return pixiu_for_result(env, *args)


def _one_turn(server, env):
    server.enqueue(ScriptedReply(text="好的。"))
    assert pixiu(env, "ask", "茅台怎么看").returncode == 0


@pytest.mark.pty
@pytest.mark.slow
def test_unknown_model_shows_tokens_only(server, online_env):
    env = dict(online_env, PIXIU_MODEL="qwen2.5:7b")
    _one_turn(server, env)
    shown = pixiu(env, "cache").stdout
    assert "CNY" not in shown and "只显示 tokens" in shown
    totals = json.loads(pixiu(env, "cache", "--json").stdout)["totals"]
    assert totals["all_time"]["cost"] is None and totals["all_time"]["savings"] is None
    assert totals["all_time"]["prompt_tokens"] > 0
    with repl_session(env, "chat", "--continue") as child:
        child.expect(PROMPT)
        say(child, "/cache")
        child.expect("只显示 tokens")
        child.expect(PROMPT)
        assert "CNY" not in child.before
        leave(child)


@pytest.mark.slow
def test_deepseek_model_is_priced(server, online_env):
    env = dict(online_env, PIXIU_MODEL="deepseek-flash")
    _one_turn(server, env)
    shown = pixiu(env, "cache").stdout
    assert "CNY" in shown and "只显示 tokens" not in shown
    assert json.loads(pixiu(env, "cache", "--json").stdout)["totals"]["all_time"]["cost"] > 0


@pytest.mark.slow
def test_users_own_prices_apply_to_any_model(server, online_env):
    env = dict(online_env, PIXIU_MODEL="qwen2.5:7b")
    assert pixiu(env, "config", "set", "prices.currency", "USD").returncode == 0
    assert pixiu(env, "config", "set", "prices.miss_per_million", "1.5").returncode == 0
    _one_turn(server, env)
    shown = pixiu(env, "cache").stdout
    assert "USD" in shown and "config.toml [prices]" in shown and "只显示 tokens" not in shown
    assert json.loads(pixiu(env, "cache", "--json").stdout)["totals"]["all_time"]["cost"] > 0


@pytest.mark.slow
def test_mixed_models_say_what_the_cost_leaves_out(server, online_env):
    _one_turn(server, dict(online_env, PIXIU_MODEL="deepseek-flash"))
    _one_turn(server, dict(online_env, PIXIU_MODEL="qwen2.5:7b"))
    shown = pixiu(online_env, "cache").stdout
    assert "不含 1 次未知价格的调用" in shown
