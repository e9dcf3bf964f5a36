from __future__ import annotations

import os

import pytest

from pixiu_cli.settings import DEEPSEEK_BASE_URL, SettingsError, load_settings


@pytest.fixture
def env(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("PIXIU_") or name in ("DEEPSEEK_API_KEY",):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    return monkeypatch


def test_no_key_means_offline(env, tmp_path):
    s = load_settings()
    assert s.offline and s.home == tmp_path and s.api_key is None


def test_deepseek_key(env):
    env.setenv("DEEPSEEK_API_KEY", "sk-abc")
    s = load_settings()
    assert (s.provider, s.base_url, s.api_key) == ("deepseek", DEEPSEEK_BASE_URL, "sk-abc")
    assert "sk-abc" not in repr(s)


def test_precedence_flag_env_config_default(env, tmp_path):
    env.setenv("DEEPSEEK_API_KEY", "sk-abc")
    assert load_settings().model == "deepseek-flash"  # default
    (tmp_path / "config.toml").write_text('model = "from-config"\ntimeout = 12\n')
    assert load_settings().model == "from-config" and load_settings().timeout == 12
    env.setenv("PIXIU_MODEL", "from-env")
    assert load_settings().model == "from-env"
    assert load_settings(model="from-flag").model == "from-flag"


def test_openai_compatible_server_needs_a_model(env):
    env.setenv("PIXIU_API_KEY", "ollama")
    env.setenv("PIXIU_BASE_URL", "http://localhost:11434/v1")
    with pytest.raises(SettingsError):
        load_settings()
    env.setenv("PIXIU_MODEL", "qwen2.5:7b")
    s = load_settings()
    assert (s.provider, s.base_url, s.model) == ("openai-compatible", "http://localhost:11434/v1", "qwen2.5:7b")


def test_force_offline_ignores_key(env):
    env.setenv("DEEPSEEK_API_KEY", "sk-abc")
    assert load_settings(force_offline=True).offline


def test_bad_config_is_one_line_error(env, tmp_path):
    (tmp_path / "config.toml").write_text("model = [unclosed\n")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert "config.toml" in str(info.value)


def test_world_readable_config_with_key_warns(env, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('api_key = "sk-secret"\nbase_url = "http://x/v1"\nmodel = "m"\n')
    path.chmod(0o644)
    warnings = load_settings().warnings
    assert warnings and "chmod 600" in warnings[0] and "sk-secret" not in warnings[0]
    path.chmod(0o600)
    assert load_settings().warnings == ()


def test_config_tables_become_typed_settings_built_once(env, tmp_path):
    from pixiu_cli.app import open_app

    (tmp_path / "config.toml").write_text(
        '[context]\nnotes_limit = 2\n[agent]\nmax_steps = 3\n[prices]\ncurrency = "USD"\n'
        "[backtest]\ncommission_rate = 0.001\n",
        encoding="utf-8",
    )
    s = load_settings()
    assert (s.limits.notes_limit, s.guardrails.max_steps) == (2, 3)
    assert (s.prices.currency, s.prices.user_set, s.costs.commission_rate) == ("USD", True, 0.001)
    app = open_app(s, calls_model=False)
    try:  # the composition root uses the objects the settings hold, not copies rebuilt from tables
        assert app.agent.guardrails is s.guardrails and app.builder.limits is s.limits
    finally:
        app.close()


def test_defaults_without_config_tables(env):
    from pixiu_cli.accounting.prices import PriceTable
    from pixiu_cli.agent.guardrails import Guardrails
    from pixiu_cli.analytics.costs import CostModel
    from pixiu_cli.context.memory import MemoryLimits

    s = load_settings()
    assert (s.limits, s.guardrails, s.prices, s.costs) == (MemoryLimits(), Guardrails(), PriceTable(), CostModel())
