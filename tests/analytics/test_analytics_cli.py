"""The issue's done-when as a user runs it: bars imported, a profile with every field, a
signal and a triggered alert in the context for "美的集团最近怎么样", a recorded trade scored
by `pixiu track` and `/track`, and the new alert shown when the REPL starts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pexpect
import pytest

from tests.helpers import PROMPT, leave, pixiu_for_result, pixiu_in_process, repl_session, say, spawn

MARKET = Path(__file__).resolve().parents[1] / "fixtures" / "market"
HOLDING_AND_TRADE = {
    "holdings": [
        {
            "symbol": "000333",
            "name": "美的集团",
            "short_names": ["美的"],
            "shares": 1000,
            "cost": 60.5,
            "role": "core",
            "updated_at": "2025-04-01T15:00:00+08:00",
        }
    ],
    "decisions": [
        {
            "symbol": "000333",
            "side": "buy",
            "price": 75.0,
            "quantity": 200,
            "reason": "回踩均线加仓",
            "decided_at": "2025-04-01T10:00:00+08:00",
        }
    ],
}


def pixiu(env, *args, check=True):
    done = pixiu_for_result(env, *args)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _setup(env, tmp_path):
    data = tmp_path / "holding.json"
    data.write_text(json.dumps(HOLDING_AND_TRADE, ensure_ascii=False), encoding="utf-8")
    pixiu(env, "import", str(data))
    lines = (MARKET / "000333.csv").read_text(encoding="utf-8").splitlines()
    early = tmp_path / "000333-early.csv"
    early.write_text(
        "\n".join([lines[0], *(line for line in lines[1:] if line[:10] <= "2025-04-30")]) + "\n", encoding="utf-8"
    )
    args = ["--symbol", "000333", "--name", "美的集团", "--actions", str(MARKET / "000333_actions.csv")]
    first = pixiu(env, "data", "import", str(early), *args).stdout
    assert "已更新回测画像 1 只" in first and "预警触发" not in first
    added = pixiu(env, "alert", "add", "000333", "--above", "76").stdout
    assert "已设预警 a1" in added and "收盘突破 76 元" in added
    return pixiu(env, "data", "import", str(MARKET / "000333.csv"), *args).stdout


@pytest.mark.slow
def test_profile_signal_alert_and_track(offline_env, tmp_path):
    second = _setup(offline_env, tmp_path)
    assert "预警触发：a1 000333 美的集团 收盘突破 76 元：2025-05-12 收盘 76.58 元" in second
    profiles = json.loads(pixiu(offline_env, "profile", "000333", "--json").stdout)
    assert len(profiles) == 4 and sum(p["selected"] for p in profiles) == 1
    for p in profiles:
        for field in ("symbol", "strategy", "annual_return", "max_drawdown", "sharpe", "win_rate", "trades", "as_of"):
            assert field in p
        assert p["as_of"] == "2025-05-30" and p["max_drawdown"] < 0
    context = json.loads(pixiu(offline_env, "context", "--json", "美的集团最近怎么样").stdout)
    block = next(m["content"] for m in context if m["content"].startswith("[上下文信息]"))
    assert "本地回测 pixiu-bt-1" in block and "融合信号" in block
    # the alert is dated at the close of the bar that fired it, not when the import ran: a
    # year and a half old, it is no 待办预警 of today
    db = sqlite3.connect(offline_env["PIXIU_HOME"] + "/pixiu.db")
    assert db.execute("select triggered_at from alerts").fetchall() == [("2025-05-12T15:00:00+08:00",)]
    assert "收盘突破 76 元" not in block
    track = json.loads(pixiu(offline_env, "track", "--json").stdout)
    (row,) = track
    assert row["symbol"] == "000333" and row["decided_at"].startswith("2025-04-01")
    # 5 sessions after 2025-04-01 is 2025-04-09 (close 69.67), on a price of 75.00
    assert abs(row["return_5d"] - (69.67 / 75.0 - 1)) < 1e-9
    assert row["return_20d"] is not None


@pytest.mark.pty
@pytest.mark.slow
def test_alert_and_track_in_the_repl(offline_env, tmp_path):
    _setup(offline_env, tmp_path)
    with repl_session(offline_env) as child:
        child.expect_exact("新预警 · 000333 美的集团 收盘突破 76 元")
        child.expect(PROMPT)
        say(child, "/track")
        child.expect_exact("d1")
        child.expect("命中率")
        child.expect(PROMPT)
        say(child, "/alert")
        child.expect_exact("a1")
        child.expect(PROMPT)
        say(child, "/alert remove a1")
        child.expect_exact("已删除预警 a1")
        child.expect(PROMPT)
        say(child, "/alert add 000333 --below x")
        child.expect("阈值应为正数")
        child.expect(PROMPT)
        leave(child)
    again = spawn(offline_env)  # shown once: the next session starts quietly
    try:
        again.expect(PROMPT)
        assert "新预警" not in again.before
        again.sendeof()
        again.expect(pexpect.EOF)
    finally:
        if again.isalive():
            again.terminate(force=True)


@pytest.mark.slow
def test_bad_alert_flags_are_one_line(offline_env):
    for args, needle in (
        (["000333"], "只给出一个条件"),
        (["000333", "--below", "1", "--above", "2"], "只给出一个条件"),
        (["000333", "--below", "-3"], "阈值应为正数"),
        (["60051", "--below", "3"], "6 位数字"),
    ):
        done = pixiu(offline_env, "alert", "add", *args, check=False)
        assert done.returncode == 1 and needle in done.stderr and "Traceback" not in done.stderr
    done = pixiu(offline_env, "alert", "remove", "a99", check=False)
    assert done.returncode == 1 and "没有预警规则 a99" in done.stderr
    done = pixiu(offline_env, "profile", "000333", check=False)
    assert done.returncode == 1 and "没有 000333 的日线" in done.stderr


@pytest.mark.slow
def test_cost_model_is_configurable_and_validated(offline_env, pixiu_home):
    (pixiu_home / "config.toml").write_text(
        "[backtest]\ncommission_rate = 0.0003\ncommission_min = 0\n", encoding="utf-8"
    )
    pixiu(
        offline_env,
        "data",
        "import",
        str(MARKET / "000333.csv"),
        "--symbol",
        "000333",
        "--actions",
        str(MARKET / "000333_actions.csv"),
    )
    (row, *_) = json.loads(pixiu(offline_env, "profile", "000333", "--json").stdout)
    assert row["cost_model"].startswith("佣金0.030%(最低0元)")
    (pixiu_home / "config.toml").write_text("[backtest]\ncommission_rate = -1\n", encoding="utf-8")
    done = pixiu(offline_env, "profile", "000333", check=False)
    assert done.returncode == 1 and "[backtest]" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_demo_holding_with_shipped_bars_gets_computed_figures(offline_env):
    done = pixiu_in_process(offline_env, "context", "--demo", "--json", "美的集团最近怎么样", text=True)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)
    block = next(m["content"] for m in context if m["content"].startswith("[上下文信息]"))
    section = block[block.index("## 标的上下文：000333") :]
    section = section[: section.index("\n## ")] if "\n## " in section else section
    assert "本地回测 pixiu-bt-1（数据 csv）" in section and "融合信号" in section
    assert "2025-05-30" in section and "已过期" in section  # computed from real bars that end in May 2025
    assert "股息再投资" not in section  # the demo file's made-up profile for 000333 is gone
    holding = next(line for line in block.splitlines() if line.startswith("- ") and "000333 美的集团" in line)
    assert "收盘 79.06（2025-05-30 不复权" in holding
    other = next(line for line in block.splitlines() if line.startswith("- ") and "600519 贵州茅台" in line)
    assert "无行情数据" in other  # the other demo holdings keep their made-up figures, with no price
