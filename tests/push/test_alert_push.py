"""[push] alerts = true: an alert a sync finds is pushed once, with the close it fired on, to
each channel — never again by a later sync, nor by a refetch of the same bars, nor by two
pushes racing (each alert is claimed for a channel before it is sent)."""

from __future__ import annotations

import csv
import json

import pytest

from pixiu_cli.brief.handle import Brief
from pixiu_cli.brief.push.config import read_push
from pixiu_cli.brief.push.deliver import push_new_alerts
from pixiu_cli.brief.store import PushLog
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.analytics.store import AnalyticsStore
from tests.helpers import MARKET_FIXTURES, fake_baostock_env, pixiu_ok
from tests.push_receivers import Receiver

BARS = MARKET_FIXTURES / "000333.csv"
EARLY_END = "2025-04-30"
NOW = "2025-06-03T16:00"
HOLDING = {"holdings": [{"symbol": "000333", "name": "美的集团", "shares": 1000, "cost": 60.5, "role": "core"}]}


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def _first_cross_above(level: float) -> tuple[str, float]:
    with BARS.open(encoding="utf-8") as rows:
        closes = [(r["datetime"][:10], float(r["close"])) for r in csv.DictReader(rows)]
    return next(
        (day, close)
        for (_, before), (day, close) in zip(closes, closes[1:])
        if day > EARLY_END and before <= level < close
    )


def _early_bars(tmp_path):
    lines = BARS.read_text(encoding="utf-8").splitlines()
    early = tmp_path / "early.csv"
    early.write_text("\n".join([lines[0], *(ln for ln in lines[1:] if ln[:10] <= EARLY_END)]) + "\n", encoding="utf-8")
    return early


@pytest.mark.slow
def test_an_alert_a_sync_finds_is_pushed_once_with_its_close(offline_env, pixiu_home, tmp_path, receiver):
    env = fake_baostock_env(dict(offline_env, PIXIU_NOW=NOW), tmp_path, {"sz.000333": BARS})
    holding = tmp_path / "holding.json"
    holding.write_text(json.dumps(HOLDING, ensure_ascii=False), encoding="utf-8")
    pixiu_ok(env, "import", str(holding))
    pixiu_ok(env, "data", "import", str(_early_bars(tmp_path)), "--symbol", "000333", "--name", "美的集团")
    pixiu_ok(env, "alert", "add", "000333", "--above", "76")
    config = pixiu_home / "config.toml"
    config.write_text(receiver.config("wecom", "webhook").replace("[push]\n", "[push]\nalerts = true\n"), "utf-8")
    config.chmod(0o600)

    out = pixiu_ok(env, "data", "sync", "000333")
    day, close = _first_cross_above(76)
    assert "预警已推送到 企业微信" in out and "预警已推送到 webhook" in out
    [alert] = receiver.received["webhook"]
    assert alert["kind"] == "alert" and alert["as_of"] == day
    assert (
        alert["text"]
        == f"- 000333 美的集团 收盘突破 76 元：{day} 收盘 {close:.2f} 元" + alert["text"].split(f"{close:.2f} 元", 1)[1]
    )
    assert f"{day} 收盘 {close:.2f}" in receiver.received["wecom"][0]["markdown"]["content"]

    again = pixiu_ok(env, "data", "sync", "000333")  # nothing new
    refetched = pixiu_ok(env, "data", "sync", "000333", "--since", "2025-05-01")  # the same bars again
    assert "预警已推送" not in again + refetched
    assert len(receiver.received["webhook"]) == 1 and len(receiver.received["wecom"]) == 1


def test_a_sync_on_a_closed_day_does_nothing(offline_env, pixiu_home, receiver, monkeypatch):
    import sys

    from tests.helpers import pixiu_in_process

    monkeypatch.setitem(sys.modules, "baostock", None)  # any fetch would fail the command
    env = dict(offline_env, PIXIU_NOW="2025-10-01T16:00")
    (pixiu_home / "config.toml").write_text(receiver.config("webhook"), "utf-8")  # alerts not set
    done = pixiu_in_process(env, "data", "sync", "000333", "--if-trading-day", text=True)
    assert done.returncode == 0 and "今天 2025-10-01（国庆节、中秋节）休市：什么也不做" in done.stdout, done.stderr
    db = open_database(pixiu_home / "pixiu.db")
    try:
        assert db.execute("select count(*) from market_bars").fetchone() == (0,)
    finally:
        db.close()


def _fired(db, count: int) -> list[int]:
    """`count` alerts recorded as a rule check records them (one per bar date)."""
    store = AnalyticsStore(db)
    rule = store.add_rule(
        symbol="000333", kind="above", threshold=76.0, created_at="2025-05-01T00:00:00+08:00", source="手动"
    )
    days = [f"2025-05-{d:02d}" for d in range(12, 12 + count)]
    fired = [(d, "收盘突破 76 元", f"000333 收盘突破 76 元：{d} 收盘 77.00 元", f"{d}T15:00:00+08:00") for d in days]
    store.record_check(rule, through=days[-1], fired=fired, at="2025-06-03T16:00:00+08:00")
    return [r[0] for r in db.execute("select id from alerts order by id")]


def test_a_claimed_alert_is_never_sent_to_that_channel_again(tmp_path, receiver):
    import tomllib

    db = open_database(tmp_path / "pixiu.db")
    try:
        config = read_push(
            tomllib.loads(receiver.config("webhook").replace("[push]\n", "[push]\nalerts = true\n"))["push"], {}
        )
        mark = PushLog(db).last_alert_id()
        ids = _fired(db, 2)
        now = __import__("datetime").datetime.fromisoformat("2025-06-03T16:00:00+08:00")
        first = push_new_alerts(Brief(db), config, mark, now, sleep=lambda s: None)
        second = push_new_alerts(Brief(db), config, mark, now, sleep=lambda s: None)  # the same firings again
        assert [d.ok for d in first] == [True] and second == []
        unasked = read_push({**tomllib.loads(receiver.config("webhook"))["push"], "alerts": False}, {})
        assert push_new_alerts(Brief(db), unasked, 0, now) == []  # [push] alerts unset: nothing is claimed or sent
        [body] = receiver.received["webhook"]
        assert body["title"] == "pixiu 预警 2025-05-13（2 条）" and body["text"].count("\n") == 1
        rows = db.execute("select ref, channel, status from push_log where kind = 'alert' order by ref").fetchall()
        assert rows == [(ids[0], "webhook", "sent"), (ids[1], "webhook", "sent")]
    finally:
        db.close()


def test_a_failed_alert_push_is_one_line_and_not_repeated(tmp_path, receiver):
    import tomllib

    db = open_database(tmp_path / "pixiu.db")
    try:
        toml = receiver.config("webhook").replace("[push]\n", "[push]\nalerts = true\n")
        config = read_push(tomllib.loads(toml)["push"], {})
        mark = PushLog(db).last_alert_id()
        _fired(db, 1)
        receiver.faults["webhook"] = ["error"]
        now = __import__("datetime").datetime.fromisoformat("2025-06-03T16:00:00+08:00")
        [failed] = push_new_alerts(Brief(db), config, mark, now, sleep=lambda s: None)
        assert not failed.ok and failed.reason == "HTTP 400"
        assert push_new_alerts(Brief(db), config, mark, now, sleep=lambda s: None) == []  # it may have half-arrived
        assert db.execute("select status, detail from push_log").fetchall() == [("failed", "HTTP 400")]
    finally:
        db.close()
