from __future__ import annotations

import os

import pytest

from pixiu_cli.kernel.settings import DEEPSEEK_BASE_URL, SettingsError, load_settings


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


def test_config_tables_become_typed_objects_built_once_by_the_app(env, tmp_path):
    from pixiu_cli.app import configured, open_app

    path = tmp_path / "config.toml"
    path.write_text(
        'deepseek_api_key = "sk-test"\n[context]\nnotes_limit = 2\n[agent]\nmax_steps = 3\n'
        '[prices]\ncurrency = "USD"\n[backtest]\ncommission_rate = 0.001\n',
        encoding="utf-8",
    )
    path.chmod(0o644)  # a warning: the opened settings differ from the plain ones only by it
    s = load_settings()
    assert s.tables["context"] == {"notes_limit": 2}  # the settings keep the table as plain data
    tables = configured(s)
    assert (tables.limits.notes_limit, tables.guardrails.max_steps) == (2, 3)
    assert (tables.prices.currency, tables.prices.user_set, tables.costs.commission_rate) == ("USD", True, 0.001)
    assert configured(load_settings()) is tables  # equal settings: built once
    from pixiu_cli.app import load_settings as opened

    with_warning = opened()
    assert with_warning.warnings and with_warning.tables == s.tables
    app = open_app(with_warning, calls_model=False)
    try:  # the composition root uses the objects it built, not copies rebuilt from tables
        assert app.agent.guardrails is tables.guardrails and app.builder.limits is tables.limits
        assert app.prices is tables.prices and app.costs is tables.costs
    finally:
        app.close()


def test_defaults_without_config_tables(env):
    from pixiu_cli.account.report import PriceTable
    from pixiu_cli.app import configured
    from pixiu_cli.conversation.agent.guardrails import Guardrails
    from pixiu_cli.conversation.context.memory_classes import MemoryLimits
    from pixiu_cli.market.analytics.costs import CostModel

    t = configured(load_settings())
    assert (t.limits, t.guardrails, t.prices, t.costs) == (MemoryLimits(), Guardrails(), PriceTable(), CostModel())
    assert t.push.channels == ()


# Everything config.toml can hold, so that no branch of the loading imports more.
FULL_CONFIG = """\
model = "deepseek-chat"
base_url = "https://bob:pw@api.example.com/v1"
timeout = 30
[context]
notes_limit = 2
[agent]
max_steps = 3
[prices]
currency = "USD"
[backtest]
commission_rate = 0.001
[market]
auto_sync = true
[llm]
thinking = "disabled"
[account]
cost_method = "average"
[brief]
confirm_above = 0.5
[backup]
keep = 3
[push]
alerts = true
[push.telegram]
token = "123456:abcdefghijklmnopqrstu"
chat_id = "42"
"""

_COUNT = (
    "import sys\n"
    "from pixiu_cli.kernel.settings import load_settings\n"
    "s = load_settings()\n"
    "print(s.provider, sorted(m for m in sys.modules if m == 'pixiu_cli' or m.startswith('pixiu_cli.')))\n"
)


@pytest.mark.parametrize("configured", [False, True], ids=["no config", "every table, a key and a URL"])
def test_loading_the_settings_imports_only_the_kernel_modules_it_needs(tmp_path, configured):
    """Plain data: env + config.toml read into values, no core module (the context's limits,
    the agent's guardrails, the selection's intents and the stores were 61 modules)."""
    import json
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_") and "API_KEY" not in k}
    clean["PIXIU_HOME"] = str(tmp_path)
    if configured:
        (tmp_path / "config.toml").write_text(FULL_CONFIG, encoding="utf-8")
        clean.update(DEEPSEEK_API_KEY="sk-abcdef", PIXIU_NOW="2026-12-01T15:30", PIXIU_PUSH_TELEGRAM_CHAT_ID="7")
    done = subprocess.run([sys.executable, "-c", _COUNT], env=clean, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    provider, listed = done.stdout.split(" ", 1)
    loaded = json.loads(listed.replace("'", '"'))
    assert provider == ("deepseek" if configured else "offline")
    assert loaded == [
        "pixiu_cli",
        "pixiu_cli.kernel",
        "pixiu_cli.kernel.clock",
        "pixiu_cli.kernel.errors",
        "pixiu_cli.kernel.resources",
        "pixiu_cli.kernel.settings",
    ]


def test_the_settings_default_model_is_the_llm_packages(env):
    from pixiu_cli.conversation.llm.model import DEFAULT_DEEPSEEK_MODEL
    from pixiu_cli.kernel.settings import DEFAULT_DEEPSEEK_MODEL as in_settings

    assert in_settings == DEFAULT_DEEPSEEK_MODEL


def test_the_app_adds_what_plain_settings_cannot_know(env, tmp_path):
    """A retired model name and credentials in the base URL are said by app.load_settings."""
    from pixiu_cli.app import CREDENTIALS_NOT_SENT
    from pixiu_cli.app import load_settings as opened

    env.setenv("DEEPSEEK_API_KEY", "sk-abc")
    env.setenv("PIXIU_BASE_URL", "https://bob:pw@api.example.com/v1")
    env.setenv("PIXIU_MODEL", "deepseek-chat")
    assert load_settings().warnings == ()
    assert opened().warnings == (
        "模型 deepseek-chat 已停用，请改用 deepseek-flash（pixiu config set model deepseek-flash）",
        CREDENTIALS_NOT_SENT,
    )
