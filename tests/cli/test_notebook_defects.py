"""Small defects of issue 25, each as the user met it: config set with a negative number, an
unknown key or a [prices] typo; a forgotten imported note on re-import; a drawdown alert on
a stock not held; /context's reason without a position word."""

from __future__ import annotations

import pytest

from pixiu_cli.selection.intent import analyze
from pixiu_cli.store.database import open_database
from pixiu_cli.store.memory import MemoryStore
from tests.helpers import FIXTURE, pixiu_in_process


def run(env, *args):
    return pixiu_in_process(env, *args, text=True)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("timeout", "-5", "错误：设置 timeout 应为 大于 0 的秒数，而不是 -5"),
        ("modle", "x", "错误：config.toml 有未知设置：modle"),
        ("prices.hit", "0.1", "错误：config.toml 的 [prices] 有未知设置：hit（可用：currency, hit_per_million"),
        ("prices.hit_per_million", "abc", "错误：config.toml 的 [prices] hit_per_million 应为数字"),
    ],
)
def test_config_set_refuses_in_one_chinese_line_and_writes_nothing(offline_env, pixiu_home, key, value, message):
    assert run(offline_env, "config", "set", "model", "deepseek-flash").returncode == 0
    before = (pixiu_home / "config.toml").read_text()
    done = run(offline_env, "config", "set", key, value)
    assert done.returncode == 1 and done.stderr.startswith(message) and done.stderr.count("\n") == 1
    assert "No such option" not in done.stderr and "unknown" not in done.stderr
    assert (pixiu_home / "config.toml").read_text() == before


def test_a_forgotten_imported_note_is_not_called_a_conversation_note(offline_env, pixiu_home):
    assert run(offline_env, "import", str(FIXTURE)).returncode == 0
    memory = MemoryStore(open_database(pixiu_home / "pixiu.db"))
    imported = memory.search(kind="plan")[0]
    memory.forget(imported.id, "2026-11-30T10:00:00+08:00")
    again = run(offline_env, "import", str(FIXTURE))
    line = next(line for line in (again.stdout + again.stderr).splitlines() if "（notes）" in line)
    assert "你删除过的 1 条" in line and "对话中记下的" not in line


def test_a_drawdown_alert_needs_a_holding(offline_env):
    done = run(offline_env, "alert", "add", "000333", "--drawdown-from-cost", "10")
    assert done.returncode == 1 and "没有持有 000333" in done.stderr and done.stderr.count("\n") == 1
    assert "没有预警" in run(offline_env, "alert", "list").stdout + run(offline_env, "alert", "list").stderr


def test_the_intent_reason_names_position_words_only_when_there_are_some():
    assert analyze("茅台最近怎么样", ["600519"]).reason == "点名了个股"
    assert "仓位词" in analyze("茅台仓位要不要减", ["600519"]).reason
