"""Each service's documented request and answer. 企业微信 群机器人: markdown content at most
4096 bytes, errcode 0 is success, 45009 is its rate limit (20 messages a minute). 飞书 自定义
机器人: signed with HMAC-SHA256 keyed by "timestamp\\nsecret" over nothing, the body at most
20 KB, code 0 is success, 11232 its rate limit (and HTTP 429 with x-ogw-ratelimit-reset).
钉钉 自定义机器人: timestamp (ms) and sign (HMAC-SHA256 of "timestamp\\nsecret" keyed by the
secret, Base64, URL-encoded) in the query, errcode 0 is success, 130101 its rate limit.
Telegram sendMessage: 1–4096 characters after entity parsing, {"ok": true}, a 429 names
retry_after. The generic webhook gets the message's fields as JSON; any 2xx is success."""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import math
import time
from dataclasses import dataclass
from urllib.parse import quote_plus

from pixiu_cli.brief.push.config import TELEGRAM_API, ChannelConfig
from pixiu_cli.brief.push.http import OK, Outcome, Reply, fail, http_outcome, later, post_json, seconds
from pixiu_cli.brief.push.message import Message, Parts, json_bytes, split, utf8, utf16
from pixiu_cli.kernel.clock import machine_seconds

WIDEST_NUMBER = "（5/5）"


def numbered(title: str, index: int, total: int) -> str:
    return title if total == 1 else f"{title}（{index}/{total}）"


def _said(body: dict, *keys: str) -> str:
    text = next((str(body[k]) for k in keys if body.get(k)), "")
    return text[:120]


@dataclass
class Channel:
    config: ChannelConfig
    timeout: float  # seconds for one request
    until: float = math.inf  # time.monotonic() by which the whole delivery ends

    def left(self) -> float:
        return self.until - time.monotonic()

    def budget(self) -> float:
        """The next request's seconds: its timeout, or what is left of the delivery's."""
        left = self.left()
        if left <= 0:
            raise TimeoutError("deadline")
        return min(self.timeout, left)

    @property
    def kind(self) -> str:
        return self.config.kind

    @property
    def label(self) -> str:
        return self.config.label

    def parts(self, message: Message) -> Parts:
        return Parts([message.markdown], False)

    def send(self, message: Message, part: str, index: int, total: int) -> Outcome:
        raise NotImplementedError


class WeCom(Channel):
    LIMIT = 4096  # bytes of markdown.content

    def _head(self, title: str) -> str:
        return f"### {title}\n"

    def parts(self, message: Message) -> Parts:
        return split(message.markdown, self.LIMIT - utf8(self._head(message.title + WIDEST_NUMBER)), utf8)

    def send(self, message, part, index, total) -> Outcome:
        content = self._head(numbered(message.title, index, total)) + part
        reply = post_json(
            self.config.get("webhook"), {"msgtype": "markdown", "markdown": {"content": content}}, self.budget()
        )
        return _errcode(reply, rate_limited=(45009,))


def _zero(code) -> bool:
    """The documented success code, 0 itself: JSON's false or 0.0 is no service's success."""
    return type(code) is int and code == 0


def _errcode(reply: Reply, rate_limited: tuple[int, ...], known: dict[int, str] | None = None) -> Outcome:
    """企业微信 and 钉钉 answer {"errcode": 0, "errmsg": "ok"}, an error with HTTP 200."""
    body = reply.json()
    code = body.get("errcode")
    if code in rate_limited:
        return later(f"errcode {code} 发送过于频繁")
    by_status = http_outcome(reply)
    if by_status is not None:
        return by_status
    if _zero(code):
        return OK
    if code is None:
        return fail("应答不是预期的 JSON（缺少 errcode）")
    hint = (known or {}).get(code, "")
    return fail(f"errcode {code}{hint}：{_said(body, 'errmsg')}")


class Feishu(Channel):
    LIMIT = 20 * 1024 - 1024  # the body may be 20 KB: room for the card's frame, title and signature
    RATE_LIMITED = (11232, 99991400)

    def parts(self, message: Message) -> Parts:
        return split(message.markdown, self.LIMIT - json_bytes(message.title + WIDEST_NUMBER), json_bytes)

    def signed(self) -> dict:
        secret = self.config.get("secret")
        if not secret:
            return {}
        timestamp = str(int(machine_seconds()))  # compared with the service's clock, never pinned
        key = f"{timestamp}\n{secret}".encode()
        sign = base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
        return {"timestamp": timestamp, "sign": sign}

    def send(self, message, part, index, total) -> Outcome:
        card = {
            "header": {"title": {"tag": "plain_text", "content": numbered(message.title, index, total)}},
            "elements": [{"tag": "markdown", "content": part}],
        }
        payload = {**self.signed(), "msg_type": "interactive", "card": card}
        reply = post_json(self.config.get("webhook"), payload, self.budget())
        body = reply.json()
        code = body.get("code", body.get("StatusCode"))
        if code in self.RATE_LIMITED or reply.status == 429:
            return later(f"code {code or 429} 发送过于频繁", seconds(reply.headers.get("x-ogw-ratelimit-reset")))
        by_status = http_outcome(reply)
        if _zero(code) and by_status is None:
            return OK
        if code is None or (by_status is not None and by_status.retry):
            return by_status or fail("应答不是预期的 JSON（缺少 code）")
        hints = {19021: "（签名校验失败：检查 secret 与本机时间）", 9499: "（请求格式错误或超过 20 KB）"}
        return fail(f"code {code}{hints.get(code, '')}：{_said(body, 'msg', 'StatusMessage')}")


class DingTalk(Channel):
    LIMIT = 15_000  # bytes; the robot documents 20 messages a minute, a message well under 20 KB

    def _head(self, title: str) -> str:
        return f"### {title}\n"

    def parts(self, message: Message) -> Parts:
        return split(message.markdown, self.LIMIT - utf8(self._head(message.title + WIDEST_NUMBER)), utf8)

    def url(self) -> str:
        webhook, secret = self.config.get("webhook"), self.config.get("secret")
        if not secret:
            return webhook
        timestamp = str(int(machine_seconds() * 1000))  # milliseconds, on the service's clock
        digest = hmac.new(secret.encode(), f"{timestamp}\n{secret}".encode(), hashlib.sha256).digest()
        sign = quote_plus(base64.b64encode(digest).decode())
        return f"{webhook}{'&' if '?' in webhook else '?'}timestamp={timestamp}&sign={sign}"

    def send(self, message, part, index, total) -> Outcome:
        title = numbered(message.title, index, total)
        payload = {"msgtype": "markdown", "markdown": {"title": title, "text": self._head(title) + part}}
        reply = post_json(self.url(), payload, self.budget())
        return _errcode(reply, rate_limited=(130101,), known={310000: "（签名、关键词或 IP 校验未通过）"})


class Telegram(Channel):
    LIMIT = 4096  # characters after entity parsing, counted in UTF-16 units

    def parts(self, message: Message) -> Parts:
        return split(message.text, self.LIMIT - utf16(message.title + WIDEST_NUMBER + "\n"), utf16)

    def send(self, message, part, index, total) -> Outcome:
        base = str(self.config.get("api_base") or TELEGRAM_API).rstrip("/")
        text = f"<b>{html.escape(numbered(message.title, index, total))}</b>\n{html.escape(part)}"
        payload = {"chat_id": self.config.get("chat_id"), "text": text, "parse_mode": "HTML"}
        payload["link_preview_options"] = {"is_disabled": True}
        reply = post_json(f"{base}/bot{self.config.get('token')}/sendMessage", payload, self.budget())
        body = reply.json()
        if body.get("ok") is True and 200 <= reply.status < 300:
            return OK
        if reply.status == 429 or body.get("error_code") == 429:
            after = seconds((body.get("parameters") or {}).get("retry_after"))
            return later(
                "429 Too Many Requests", after if after is not None else seconds(reply.headers.get("retry-after"))
            )
        by_status = http_outcome(reply)
        if by_status is not None and (by_status.retry or not body):
            return by_status
        return fail(f"{body.get('error_code', reply.status)}：{_said(body, 'description') or '应答缺少 ok'}")


class Webhook(Channel):
    def send(self, message, part, index, total) -> Outcome:
        payload = {
            "title": message.title,
            "text": message.text,
            "markdown": message.markdown,
            "as_of": message.as_of,
            "kind": message.kind,
        }
        reply = post_json(self.config.get("url"), payload, self.budget())
        return http_outcome(reply) or OK
