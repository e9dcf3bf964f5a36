"""Every push channel against a loopback stand-in of its service (tests/push_receivers.py,
written from the services' documented APIs): the request each accepts, its signature, its
size limit, and the faults — 429, 5xx, a 200 carrying an error code, a timeout, a channel
that is down while the others work."""

from __future__ import annotations

import tomllib

import pytest

from pixiu_cli.brief.push.channels import SHORTENED, Message
from pixiu_cli.brief.push.config import read_push
from pixiu_cli.brief.push.deliver import deliver
from pixiu_cli.brief.views import delivery_line
from tests.helpers import refused_port
from tests.push_receivers import DINGTALK_TOKEN, FEISHU_SECRET, TELEGRAM_CHAT, WECOM_KEY, Receiver

ALL = ("wecom", "feishu", "dingtalk", "telegram", "webhook")
TITLE = "简报"  # 6 bytes, 2 UTF-16 units


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def config(toml: str, **env):
    return read_push(tomllib.loads(toml)["push"], env)


def message(text: str = "今天：组合 +1.20%\n- 600519 贵州茅台 收盘 1,580.00") -> Message:
    return Message(TITLE, text, text, "2026-11-30", "brief")


class Waits(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_each_service_accepts_the_documented_request(receiver):
    sent = deliver(message(), config(receiver.config(*ALL)), Waits())
    assert [(d.kind, d.ok, d.parts, d.attempts) for d in sent] == [(k, True, 1, 1) for k in ALL]
    got = receiver.received
    assert got["wecom"] == [{"msgtype": "markdown", "markdown": {"content": f"### {TITLE}\n" + message().markdown}}]
    card = got["feishu"][0]["card"]  # the receiver checked its signature with FEISHU_SECRET
    assert card["header"]["title"]["content"] == TITLE and card["elements"][0]["content"] == message().markdown
    assert got["dingtalk"][0]["markdown"] == {"title": TITLE, "text": f"### {TITLE}\n" + message().markdown}
    assert got["telegram"][0]["parsed"] == f"{TITLE}\n{message().text}" and got["telegram"][0]["parse_mode"] == "HTML"
    assert got["webhook"] == [
        {"title": TITLE, "text": message().text, "markdown": message().markdown, "as_of": "2026-11-30", "kind": "brief"}
    ]


def test_markup_in_the_text_is_escaped_for_telegram(receiver):
    sent = deliver(message("a <b>not bold</b> & 5 > 3"), config(receiver.config("telegram")), Waits())
    assert sent[0].ok
    assert receiver.received["telegram"][0]["parsed"] == f"{TITLE}\na <b>not bold</b> & 5 > 3"


def test_a_200_with_an_error_code_is_a_failure_in_one_line_naming_the_channel(receiver):
    toml = receiver.config(*ALL).replace(FEISHU_SECRET, "wrong-secret-0000").replace(WECOM_KEY, "unknown-key")
    toml = toml.replace('secret = "SEC', 'secret = "SECwrong')  # 钉钉's secret no longer matches
    receiver.faults["telegram"] = ["error"]
    receiver.faults["webhook"] = ["error"]
    sent = {d.kind: d for d in deliver(message(), config(toml), Waits())}
    assert not any(d.ok for d in sent.values())
    assert sent["wecom"].reason == "errcode 93000：invalid webhook url"
    assert sent["feishu"].reason.startswith("code 19021（签名校验失败：检查 secret 与本机时间）：sign match fail")
    assert sent["dingtalk"].reason == "errcode 310000（签名、关键词或 IP 校验未通过）：sign not match"
    assert sent["telegram"].reason == "400：Bad Request: chat not found"
    assert sent["webhook"].reason == "HTTP 400"
    assert all(d.attempts == 1 for d in sent.values())  # a refusal is not retried
    lines = [delivery_line(d) for d in sent.values()]
    assert lines[0] == "推送到 企业微信 失败：errcode 93000：invalid webhook url"
    assert all("\n" not in line for line in lines) and all(line.startswith("推送到 ") for line in lines)
    assert receiver.received == {}


def _lines(count: int) -> str:
    # each line: 3 digits and a space (4 bytes, 4 units) + 32 Chinese characters (96 bytes,
    # 32 units) = 100 bytes, 36 UTF-16 units; 101 bytes with its line break
    return "\n".join(f"{i:03d} " + "汉" * 32 for i in range(count))


def test_a_long_brief_is_split_to_each_services_limit_and_says_so(receiver):
    text = _lines(150)
    sent = {d.kind: d for d in deliver(message(text), config(receiver.config(*ALL)), Waits())}
    # 企业微信: 4096 − len("### 简报（5/5）\n") = 4096 − 20 = 4076 bytes a part; k lines take
    # 101k − 1 bytes, so 40 lines a part: 40 + 40 + 40 + 30
    # Telegram: 4096 − len("简报（5/5）\n") = 4096 − 8 = 4088 units; 37k − 1 ≤ 4088 → 110 + 40
    # 钉钉: 15000 − 20 = 14980 bytes; 101k − 1 ≤ 14980 → 148 + 2
    # 飞书: 19456 − 15 JSON bytes; a line is 102 in JSON (its \n escaped): all 150 in one part
    assert {k: d.parts for k, d in sent.items()} == {
        "wecom": 4,
        "telegram": 2,
        "dingtalk": 2,
        "feishu": 1,
        "webhook": 1,
    }
    assert all(d.ok and not d.shortened for d in sent.values())
    wecom = [b["markdown"]["content"] for b in receiver.received["wecom"]]
    assert [c.split("\n", 1)[0] for c in wecom] == [f"### {TITLE}（{i}/4）" for i in range(1, 5)]
    assert [len(c.split("\n")) - 1 for c in wecom] == [40, 40, 40, 30]
    assert "\n".join(c.split("\n", 1)[1] for c in wecom) == text  # nothing lost, nothing reordered
    telegram = [b["parsed"] for b in receiver.received["telegram"]]
    assert [len(t.split("\n")) - 1 for t in telegram] == [110, 40]
    assert delivery_line(sent["wecom"]) == "已推送到 企业微信（内容较长，分 4 条发送）"


def test_a_brief_too_long_for_five_parts_is_shortened_and_says_so(receiver):
    sent = deliver(message(_lines(400)), config(receiver.config("wecom")), Waits())[0]
    # 400 lines at 40 a part would be 10 parts: 5 are sent, the fifth ends with the notice
    assert (sent.ok, sent.parts, sent.shortened) == (True, 5, True)
    last = receiver.received["wecom"][-1]["markdown"]["content"]
    assert last.endswith(SHORTENED) and len(last.encode()) <= 4096
    assert delivery_line(sent) == "已推送到 企业微信（内容较长，分 5 条发送；超出长度的部分未推送）"


@pytest.mark.parametrize(
    ("service", "fault", "waited"),
    [
        ("wecom", "rate", [1.0]),  # errcode 45009 in a 200: the doubling backoff
        ("dingtalk", "rate", [1.0]),  # errcode 130101
        ("feishu", "rate", [1.0]),  # code 11232 (in an HTTP 400)
        ("feishu", "429", [0.0]),  # x-ogw-ratelimit-reset: 0
        ("telegram", "429", [0.0]),  # parameters.retry_after: 0
        ("webhook", "429", [0.0]),  # Retry-After: 0
        ("webhook", "500", [1.0]),
    ],
)
def test_the_documented_later_codes_are_retried_with_the_wait_asked_for(receiver, service, fault, waited):
    receiver.faults[service] = [fault]
    waits = Waits()
    sent = deliver(message(), config(receiver.config(service)), waits)[0]
    assert (sent.ok, sent.attempts, receiver.requests[service]) == (True, 2, 2)
    assert waits == waited and len(receiver.received[service]) == 1


def test_a_service_failing_every_attempt_is_given_up_in_one_line(receiver):
    receiver.faults["webhook"] = ["503", "503", "503", "503"]
    waits = Waits()
    sent = deliver(message(), config(receiver.config("webhook")), waits)[0]
    assert (sent.ok, sent.attempts, receiver.requests["webhook"]) == (False, 3, 3)
    assert waits == [1.0, 2.0]  # 1 s, doubled
    assert delivery_line(sent) == "推送到 webhook 失败：HTTP 503 服务端错误（已尝试 3 次）"


def test_a_timeout_is_not_retried_since_the_message_may_have_arrived(receiver):
    receiver.faults["wecom"] = ["timeout"]
    sent = deliver(message(), config(receiver.config("wecom", timeout=1)), Waits())[0]
    assert (sent.ok, sent.attempts, receiver.requests["wecom"]) == (False, 1, 1)
    assert sent.reason == "1 秒内没有完整应答（可能已送达，不再重试）"


def test_one_channel_down_does_not_keep_the_message_from_the_others(receiver):
    with refused_port() as port:
        toml = receiver.config(*ALL).replace(receiver.base + "/robot", f"http://127.0.0.1:{port}/robot")
        waits = Waits()
        sent = {d.kind: d for d in deliver(message(), config(toml), waits)}
    assert [k for k, d in sent.items() if not d.ok] == ["dingtalk"]
    assert sent["dingtalk"].attempts == 3 and waits == [1.0, 2.0]  # refused: never reached, so retried
    assert sent["dingtalk"].reason.startswith("无法连接：") and sent["dingtalk"].reason.endswith("（已尝试 3 次）")
    assert DINGTALK_TOKEN not in sent["dingtalk"].reason
    assert all(len(receiver.received[k]) == 1 for k in ALL if k != "dingtalk")


def test_a_rate_limit_longer_than_a_minute_is_given_up_at_once(receiver, monkeypatch):
    from pixiu_cli.brief.push import channels as http

    real = http.Reply

    def slow(status, headers, body):
        return real(status, {**headers, "retry-after": "600"} if status == 429 else headers, body)

    monkeypatch.setattr(http, "Reply", slow)
    receiver.faults["webhook"] = ["429"]
    waits = Waits()
    sent = deliver(message(), config(receiver.config("webhook")), waits)[0]
    assert (sent.ok, sent.attempts, waits) == (False, 1, [])
    assert sent.reason == "HTTP 429 请求过于频繁，服务要求等待 600 秒，已放弃"


def test_telegram_chat_id_may_be_a_number_in_the_toml(receiver):
    toml = receiver.config("telegram").replace(f'chat_id = "{TELEGRAM_CHAT}"', f"chat_id = {TELEGRAM_CHAT}")
    assert deliver(message(), config(toml), Waits())[0].ok
