"""`pixiu push test` against addresses that only look like they delivered: a 302 to another
port (followed, the POST became a GET without its body whose 200 read as a delivery), a
receiver trickling its answer a byte at a time (each read within the timeout, the whole never),
and a 100 MB answer (read whole, then counted as delivered). Each is a failure, in time, and
"已推送" is printed only on the service's own success answer."""

from __future__ import annotations

import time

import pytest

from tests.helpers import clean_env, pixiu_in_process
from tests.push_receivers import HostileReceiver, TricklingSmtp


@pytest.fixture
def hostile():
    r = HostileReceiver()
    yield r
    r.close()


def wecom_and_webhook(hostile: HostileReceiver, route: str, timeout: float) -> str:
    return (
        f'[push]\ntimeout = {timeout}\n[push.wecom]\nwebhook = "{hostile.url(route)}"\n'
        f'[push.webhook]\nurl = "{hostile.url(route)}"\n'
    )


def failures(done) -> list[str]:
    """The error lines of a push in which no channel got the message."""
    assert done.returncode == 1 and "已推送" not in done.stdout + done.stderr, done.stdout
    return [line.removeprefix("错误：") for line in done.stderr.splitlines() if line.startswith("错误：")]


def push_test(tmp_path, push_table: str):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(push_table, encoding="utf-8")
    (home / "config.toml").chmod(0o600)
    started = time.monotonic()
    done = pixiu_in_process(clean_env(home), "push", "test", text=True)
    return done, time.monotonic() - started


def test_a_redirect_is_a_failure_and_never_followed(tmp_path, hostile):
    done, _ = push_test(tmp_path, wecom_and_webhook(hostile, "/moved", timeout=5))
    assert failures(done) == [
        "推送到 企业微信 失败：HTTP 302 重定向（不跟随：检查地址）",
        "推送到 webhook 失败：HTTP 302 重定向（不跟随：检查地址）",
    ]
    assert hostile.elsewhere_gets == 0 and hostile.served == ["/moved", "/moved"]


def test_a_trickling_receiver_is_cut_off_at_the_timeout_and_channels_wait_side_by_side(tmp_path, hostile):
    done, took = push_test(tmp_path, wecom_and_webhook(hostile, "/trickle", timeout=1))
    assert failures(done) == [
        "推送到 企业微信 失败：1 秒内没有完整应答（可能已送达，不再重试）",
        "推送到 webhook 失败：1 秒内没有完整应答（可能已送达，不再重试）",
    ]
    assert took < 1.9  # one timeout for both: before, each trickle held its channel for 20 s, one after the other


def test_a_trickling_mail_server_is_cut_off_at_the_timeout(tmp_path):
    smtp = TricklingSmtp()
    try:
        done, took = push_test(tmp_path, smtp.config(timeout=1))
    finally:
        smtp.close()
    assert failures(done) == ["推送到 邮件 失败：1 秒内没有完整应答（可能已送达，不再重试）"]
    assert took < 1.9  # before: the greeting held the push for as long as it trickled (20 s)


def test_the_push_deadline_cuts_retries_and_waits_short(tmp_path):
    from tests.push_receivers import Receiver

    receiver = Receiver()
    try:
        receiver.faults["webhook"] = ["503"] * 3  # the backoff's 1 s is what the deadline leaves no more
        receiver.faults["wecom"] = ["timeout"]  # 1.6 s, past the deadline
        table = receiver.config("wecom", "webhook", timeout=2).replace("[push]\n", "[push]\ndeadline = 1\n")
        done, took = push_test(tmp_path, table)
    finally:
        receiver.close()
    assert took < 1.9
    assert failures(done) == [
        "推送到 企业微信 失败：推送总时限已到，没有完整应答（可能已送达，不再重试）",
        "推送到 webhook 失败：HTTP 503 服务端错误，再等 1 秒将超过推送总时限，已放弃",
    ]


def test_a_huge_answer_is_read_no_further_than_64_kib_and_is_no_delivery(tmp_path, hostile):
    done, _ = push_test(tmp_path, wecom_and_webhook(hostile, "/huge", timeout=10))
    assert failures(done) == [
        "推送到 企业微信 失败：应答超过 64 KiB，不是该服务的成功应答",
        "推送到 webhook 失败：应答超过 64 KiB，不是该服务的成功应答",
    ]
    time.sleep(0.2)  # the receiver's writes stop once the client has closed
    assert hostile.huge_written < 2 * HostileReceiver.HUGE // 10  # the rest was never read
