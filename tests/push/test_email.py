"""E-mail over SMTP against a loopback SMTP server (tests/push_receivers.py) with the test
certificate: STARTTLS and implicit TLS, the login, and the server's refusals — a wrong
password and an unknown recipient fail at once, a busy server (421) is tried again."""

from __future__ import annotations

import tomllib

import pytest

from pixiu_cli.brief.push.channels import Message
from pixiu_cli.brief.push.config import PushConfigError, read_push
from pixiu_cli.brief.push.deliver import deliver
from tests.push_receivers import SmtpReceiver

BODY = "今天：组合 +1.20%\n" + "- 一行很长的简报内容。" * 2000  # ~44 KB: one mail, never split


def _config(toml: str):
    return read_push(tomllib.loads(toml)["push"], {})


class Waits(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture(params=["starttls", "ssl"])
def smtp(request):
    server = SmtpReceiver(implicit_tls=request.param == "ssl")
    yield server, request.param
    server.close()


def test_the_whole_brief_arrives_as_one_mail_over_tls(smtp):
    server, security = smtp
    message = Message("pixiu 每日简报 2026-11-30", BODY, "**" + BODY + "**", "2026-11-30", "brief")
    sent = deliver(message, _config(server.config(security)), Waits())[0]
    assert (sent.ok, sent.parts, sent.attempts) == (True, 1, 1), sent.reason
    [mail] = server.mails
    assert mail["tls"] and mail["rcpt"] == ["me@example.com"] and mail["from"] == server.user
    assert mail["subject"] == "pixiu 每日简报 2026-11-30"
    assert mail["body"].rstrip("\n") == BODY  # the plain text, not the Markdown
    assert mail["date"]


def test_smtp_refusals_fail_at_once_and_a_busy_server_is_tried_again():
    server = SmtpReceiver()
    try:
        config = _config(server.config("starttls"))
        message = Message("t", "x", "x", None, "test")
        server.faults = ["auth"]
        failed = deliver(message, config, Waits())[0]
        assert (failed.ok, failed.attempts) == (False, 1)
        assert failed.reason == "SMTP 登录失败（535）：检查 user 与 password"
        server.faults = ["rcpt"]
        refused = deliver(message, config, Waits())[0]
        assert (refused.ok, refused.reason) == (False, "收件人被拒绝：me@example.com")
        server.faults = ["busy"]
        waits = Waits()
        retried = deliver(message, config, waits)[0]
        assert (retried.ok, retried.attempts, waits) == (True, 2, [1.0])
        assert len(server.mails) == 1
        assert server.password not in failed.reason + refused.reason
    finally:
        server.close()


def test_a_certificate_the_client_does_not_trust_is_a_tls_failure():
    server = SmtpReceiver()
    try:
        toml = server.config("starttls").replace("ca_file = ", "# ca_file = ")
        sent = deliver(Message("t", "x", "x", None, "test"), _config(toml), Waits())[0]
        assert not sent.ok and sent.reason.startswith("TLS 失败：") and sent.attempts == 1
        assert server.mails == []
    finally:
        server.close()


def test_plain_smtp_is_refused_for_any_host_but_this_machine():
    table = {"email": {"host": "smtp.example.com", "port": 25, "security": "none", "to": "me@example.com"}}
    with pytest.raises(PushConfigError, match="security = none 只能用于本机"):
        read_push(table, {})
    table["email"]["host"] = "127.0.0.1"
    assert read_push(table, {}).channels[0].get("security") == "none"
