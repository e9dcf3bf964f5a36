"""pixiu config: the key file is 0600, secrets are never shown, bad values change nothing."""

from __future__ import annotations

import stat
import subprocess

import pytest

from tests.helpers import PIXIU_BIN, PLANTED_KEY, pixiu_in_process


def pixiu_fast(env, *args, input_text=None):
    """Exit code and messages only: the real entry point, in process."""
    return pixiu_in_process(env, *args, input_bytes=input_text.encode() if input_text else None, text=True)


def pixiu(env, *args, input_text=None):
    return subprocess.run([PIXIU_BIN, *args], env=env, input=input_text, capture_output=True, text=True, timeout=60)


def test_config_file_with_key_is_0600_and_masked(offline_env, pixiu_home):
    done = pixiu_fast(offline_env, "config", "set", "deepseek_api_key", "-", input_text=PLANTED_KEY + "\n")
    assert done.returncode == 0 and PLANTED_KEY not in done.stdout + done.stderr
    path = pixiu_home / "config.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert pixiu_fast(offline_env, "config", "set", "context.notes_days", "45").returncode == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    shown = pixiu_fast(offline_env, "config", "show")
    assert PLANTED_KEY not in shown.stdout and "已设置（隐藏）" in shown.stdout and "notes_days = 45" in shown.stdout
    # the key in config.toml switches pixiu online (DeepSeek) — without ever printing it
    done = pixiu_fast(offline_env, "context", "--json", "你好")
    assert done.returncode == 0 and PLANTED_KEY not in done.stdout + done.stderr


def test_invalid_setting_changes_nothing(offline_env, pixiu_home):
    assert pixiu_fast(offline_env, "config", "set", "model", "deepseek-flash").returncode == 0
    before = (pixiu_home / "config.toml").read_text()
    for key, value in (("context.bogus", "1"), ("agent.max_steps", "many"), ("a.b.c", "1"), ("prices.currency_x", "1")):
        done = pixiu_fast(offline_env, "config", "set", key, value)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, (key, done.stderr)
    assert (pixiu_home / "config.toml").read_text() == before


@pytest.mark.slow
def test_readable_config_with_key_warns(offline_env, pixiu_home):
    path = pixiu_home / "config.toml"
    path.write_text(f'api_key = "{PLANTED_KEY}"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n')
    path.chmod(0o644)
    done = pixiu(offline_env, "ask", "你好")
    assert "chmod 600" in done.stderr and PLANTED_KEY not in done.stderr + done.stdout
