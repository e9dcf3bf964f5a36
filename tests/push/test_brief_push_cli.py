"""`pixiu brief --push` end to end in a fresh home with the demo's holdings and bars: with two
loopback channels both get the same brief; with one failing the other still gets it, the
failure is one line naming the channel, the brief is stored all the same and `--last`
re-sends it. Nothing is asked of the model when no channel is configured, and no channel's
address or key reaches the database, the export or the output."""

from __future__ import annotations

import io
import json
import os
from unittest import mock

import pytest

from pixiu_cli.kernel.store.database import open_database
from tests.helpers import demo_brief_env, pixiu_in_process
from tests.push_receivers import FEISHU_SECRET, FEISHU_TOKEN, WECOM_KEY, Receiver

NOW = "2026-11-30T16:30:00"  # a Monday, after the close


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def demo_home(home, receiver, *services):
    env = demo_brief_env(home, NOW)
    (home / "config.toml").write_text(receiver.config(*services), encoding="utf-8")
    (home / "config.toml").chmod(0o600)
    return env


def _feishu_text(body: dict) -> str:
    return body["card"]["elements"][0]["content"]


def _wecom_text(body: dict) -> str:
    return body["markdown"]["content"].split("\n", 1)[1]


def test_two_channels_get_the_same_brief_and_one_failing_leaves_the_other_and_last_resends(tmp_path, receiver):
    home = tmp_path / "home"
    env = demo_home(home, receiver, "wecom", "feishu")
    done = pixiu_in_process(env, "brief", "--push", text=True)
    assert done.returncode == 0, done.stderr
    assert "已推送到 企业微信" in done.stdout and "已推送到 飞书" in done.stdout
    [wecom], [feishu] = receiver.received["wecom"], receiver.received["feishu"]
    assert _wecom_text(wecom) == _feishu_text(feishu)  # the same brief
    brief = _feishu_text(feishu)
    assert brief.startswith("（离线评测模型") and "结论：" in brief and "【事实（pixiu 本地计算" in brief
    assert wecom["markdown"]["content"].startswith("### pixiu 每日简报 2025-05-30\n")

    receiver.faults["feishu"] = ["503", "503", "503"]
    second = pixiu_in_process(env, "brief", "--push", text=True)
    assert second.returncode == 1 and "Traceback" not in second.stderr
    errors = [line for line in second.stderr.splitlines() if line.startswith("错误：")]
    assert errors == ["错误：推送到 飞书 失败：HTTP 503 服务端错误（已尝试 3 次）"]
    assert "已推送到 企业微信" in second.stdout and "pixiu brief --push --last" in second.stdout
    assert len(receiver.received["wecom"]) == 2 and len(receiver.received["feishu"]) == 1
    db = open_database(home / "pixiu.db")
    try:
        briefs = db.execute("select id, report_id from briefs order by id").fetchall()
        log = db.execute("select ref, channel, status from push_log where kind = 'brief' order by id").fetchall()
    finally:
        db.close()
    assert len(briefs) == 2  # the brief whose push failed is stored all the same
    second_brief = briefs[-1][0]
    assert log[-2:] == [(second_brief, "wecom", "sent"), (second_brief, "feishu", "failed")]

    again = pixiu_in_process(env, "brief", "--push", "--last", "--json", text=True)
    assert again.returncode == 0, again.stderr
    out = json.loads(again.stdout)
    assert out["brief_id"] == second_brief and [d["channel"] for d in out["push"] if d["ok"]] == ["wecom", "feishu"]
    assert _feishu_text(receiver.received["feishu"][-1]) == _wecom_text(receiver.received["wecom"][1])
    assert len(receiver.received["wecom"]) == 3  # --last sent the stored brief, no new one was written
    db = open_database(home / "pixiu.db")
    try:
        assert db.execute("select count(*) from briefs").fetchone() == (2,)
    finally:
        db.close()


def test_no_channel_is_refused_before_any_model_call(tmp_path, receiver):
    home = tmp_path / "home"
    env = demo_home(home, receiver)
    (home / "config.toml").write_text("", encoding="utf-8")
    done = pixiu_in_process(env, "brief", "--push", text=True)
    assert done.returncode == 1 and "没有配置推送渠道" in done.stderr and done.stderr.count("\n") == 1
    db = open_database(home / "pixiu.db")
    try:
        assert db.execute("select count(*) from turns").fetchone() == (0,)  # the model was never called
    finally:
        db.close()
    lone = pixiu_in_process(env, "brief", "--last", text=True)
    assert lone.returncode == 1 and "--last 只与 --push 一起使用" in lone.stderr


def test_the_json_brief_carries_each_channels_result_and_no_secret_is_stored_or_exported(tmp_path, receiver):
    home = tmp_path / "home"
    env = demo_home(home, receiver, "wecom", "feishu")
    receiver.faults["wecom"] = ["error"]
    done = pixiu_in_process(env, "brief", "--push", "--json", text=True)
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert out["report_id"] and [(d["channel"], d["ok"]) for d in out["push"]] == [("wecom", False), ("feishu", True)]
    assert out["push"][0]["error"] == "errcode 40008：invalid message type"
    exported = pixiu_in_process(env, "export", text=True)
    assert exported.returncode == 0
    stored = (home / "pixiu.db").read_bytes() + b"".join(p.read_bytes() for p in home.glob("pixiu.db-*"))
    for secret in (WECOM_KEY, FEISHU_TOKEN, FEISHU_SECRET):
        assert secret not in done.stdout + done.stderr + exported.stdout
        assert secret.encode() not in stored


def test_brief_push_in_the_repl_sends_the_stored_brief(tmp_path, receiver):
    from pixiu_cli.app import open_app
    from pixiu_cli.kernel.render import Renderer
    from pixiu_cli.kernel.settings import load_settings
    from pixiu_cli.repl.loop import run_command
    from pixiu_cli.repl.state import ReplState

    home = tmp_path / "home"
    env = demo_home(home, receiver, "webhook")
    with mock.patch.dict(os.environ, env, clear=True):
        app = open_app(load_settings(force_offline=True))
    out = io.StringIO()
    renderer = Renderer(file=out, stderr=out, rich_output=False)
    renderer.console.width = 10_000
    state = ReplState(app=app, renderer=renderer)
    try:
        run_command(state, "/brief --push")
        run_command(state, "/brief --push --last")
        run_command(state, "/brief --last")
    finally:
        app.close()
    said = out.getvalue()
    assert said.count("已推送到 webhook") == 2 and "用法：/brief [--yes] [--push [--last]]" in said
    first, second = receiver.received["webhook"]
    assert first == second and first["kind"] == "brief" and first["as_of"] == "2025-05-30"  # the newest stored bar
    assert first["title"] == "pixiu 每日简报 2025-05-30" and "结论：" in first["text"]


def test_if_trading_day_does_nothing_on_a_holiday_and_says_so(tmp_path, receiver):
    home = tmp_path / "home"
    env = demo_home(home, receiver, "webhook")
    holiday = dict(env, PIXIU_NOW="2026-10-01T15:30:00")  # 国庆节, a Thursday
    done = pixiu_in_process(holiday, "brief", "--push", "--if-trading-day", text=True)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "今天 2026-10-01（国庆节）休市：什么也不做（--if-trading-day）\n",
        "",
    )
    db = open_database(home / "pixiu.db")
    try:
        assert db.execute("select count(*) from turns").fetchone() == (0,)
    finally:
        db.close()
    assert receiver.received == {}
    trading = pixiu_in_process(env, "brief", "--push", "--if-trading-day", text=True)  # Monday 2026-11-30
    assert trading.returncode == 0 and len(receiver.received["webhook"]) == 1
