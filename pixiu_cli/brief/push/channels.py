"""One JSON POST over urllib, and what its answer means for a retry. A refused connection
never reached the service, so it is tried again; a timeout may have delivered the message,
so it is not (a second copy on the investor's phone is worse than one line saying so).
A request has one deadline for its whole exchange, a redirect is an answer (never followed),
and an answer is read up to MAX_ANSWER bytes.

Each service's documented request and answer. 企业微信 群机器人: markdown content at most
4096 bytes, errcode 0 is success, 45009 is its rate limit (20 messages a minute). 飞书 自定义
机器人: signed with HMAC-SHA256 keyed by "timestamp
secret" over nothing, the body at most
20 KB, code 0 is success, 11232 its rate limit (and HTTP 429 with x-ogw-ratelimit-reset).
钉钉 自定义机器人: timestamp (ms) and sign (HMAC-SHA256 of "timestamp
secret" keyed by the
secret, Base64, URL-encoded) in the query, errcode 0 is success, 130101 its rate limit.
Telegram sendMessage: 1–4096 characters after entity parsing, {"ok": true}, a 429 names
retry_after. The generic webhook gets the message's fields as JSON; any 2xx is success.

E-mail over SMTP: implicit TLS (`security = "ssl"`, port 465), STARTTLS (587), or plain on
this machine only; the whole message in one mail (no size limit worth splitting for). A 4xx
reply and a dropped connection are "later", a 5xx or a refused login a failure.

What is pushed, and how a text too long for a channel is cut: at line breaks into parts no
larger than the channel's limit (measured as that channel counts: UTF-8 bytes, UTF-16 units,
the JSON body), at most a few parts; past that the rest is left out and the last part says so."""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import http.client
import json
import math
import re
import smtplib
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime
from urllib.parse import quote_plus, urlsplit

from pixiu_cli.brief.push.config import TELEGRAM_API, ChannelConfig, is_loopback
from pixiu_cli.kernel.clock import SHANGHAI, machine_seconds
from pixiu_cli.kernel.safe_text import visible

MAX_PARTS = 5  # the bots allow 20 messages a minute; a brief in more parts is no longer read on a phone
SHORTENED = "…（内容过长，其余部分未推送；完整内容见 pixiu）"


@dataclass(frozen=True)
class Message:
    title: str
    text: str  # plain text, for channels that do not render Markdown
    markdown: str
    as_of: str | None  # the session the content is about
    kind: str  # "brief" | "alert" | "test"

    def inert(self) -> Message:
        """The message with every control sequence in it made visible (domain/inert.py)."""
        return replace(self, title=visible(self.title), text=visible(self.text), markdown=visible(self.markdown))


@dataclass(frozen=True)
class Parts:
    texts: list[str]
    shortened: bool  # some of the text was left out


Measure = Callable[[str], int]


def utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def json_bytes(text: str) -> int:
    """The bytes `text` takes inside a JSON body (escapes included)."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


def _cut(line: str, limit: int, measure: Measure) -> list[str]:
    """A line longer than `limit`, in pieces that each fit (never splitting a character)."""
    pieces, start = [], 0
    while start < len(line):
        low, high = start + 1, len(line)
        while low < high:  # the longest prefix that fits
            middle = (low + high + 1) // 2
            if measure(line[start:middle]) <= limit:
                low = middle
            else:
                high = middle - 1
        pieces.append(line[start:low])
        start = low
    return pieces


def _chunks(text: str, limit: int, measure: Measure) -> list[str]:
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        for piece in _cut(line, limit, measure) if measure(line) > limit else [line]:
            candidate = f"{current}\n{piece}" if current else piece
            if current and measure(candidate) > limit:
                chunks.append(current)
                candidate = piece
            current = candidate
    if current.strip():
        chunks.append(current)
    return [c.strip("\n") for c in chunks if c.strip()]


def split(text: str, limit: int, measure: Measure = utf8, max_parts: int = MAX_PARTS) -> Parts:
    """`text` in at most `max_parts` parts of at most `limit` (as `measure` counts)."""
    chunks = _chunks(text, limit, measure) or [""]
    if len(chunks) <= max_parts:
        return Parts(chunks, False)
    kept = chunks[:max_parts]
    last = _chunks(kept[-1], limit - measure(SHORTENED) - 1, measure)[0]
    kept[-1] = f"{last}\n{SHORTENED}"
    return Parts(kept, True)


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")


def plain(markdown: str) -> str:
    """Markdown as a plain-text reader sees it: no heading marks, no bold markers."""
    return _EMPHASIS.sub(r"\2", _HEADING.sub("", markdown))


USER_AGENT = "pixiu-push/1"
MAX_ANSWER = 64 * 1024  # bytes: every service's success answer is a few hundred


class AnswerTooLarge(Exception):
    """The answer went past MAX_ANSWER: no service's success, and not worth reading whole."""


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes

    def json(self) -> dict:
        try:
            value = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Outcome:
    """ok; or a failure, `retry` when the service asked to be tried later (after `after` s)."""

    ok: bool
    reason: str = ""
    retry: bool = False
    after: float | None = None
    extra: dict = field(default_factory=dict)


OK = Outcome(True)


def fail(reason: str) -> Outcome:
    return Outcome(False, reason)


def later(reason: str, after: float | None = None) -> Outcome:
    return Outcome(False, reason, retry=True, after=after)


def seconds(value) -> float | None:
    """A Retry-After style number of seconds, None when absent or not a number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if 0 <= number < 86_400 else None


def post_json(url: str, payload, timeout: float, headers: dict[str, str] | None = None) -> Reply:
    """POST `payload` as JSON and read the answer, all within `timeout` seconds; any HTTP
    status is a Reply (a redirect too: it is never followed). Raises TimeoutError when the
    answer did not come whole in time, AnswerTooLarge past MAX_ANSWER bytes, ConnectionError
    (or another OSError) when no answer could come."""
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT, **(headers or {})},
    )
    # A proxy from the environment must not carry a request for this machine elsewhere.
    proxies = [urllib.request.ProxyHandler({})] if is_loopback(urlsplit(url).hostname) else []
    with Watch(timeout) as watch:
        opener = urllib.request.build_opener(*proxies, *watch.handlers())
        try:
            reply = _exchange(opener, request, timeout)
        except (OSError, http.client.HTTPException) as exc:
            if watch.expired:
                raise TimeoutError(f"{timeout:g} 秒内没有完整应答") from None
            if isinstance(exc, OSError):
                raise
            raise ConnectionError(str(exc) or type(exc).__name__) from None
    if watch.expired:  # the shut socket read as an answer's end: what came is not the answer
        raise TimeoutError(f"{timeout:g} 秒内没有完整应答")
    return reply


def _exchange(opener, request, timeout: float) -> Reply:
    try:
        with opener.open(request, timeout=timeout) as response:
            return Reply(response.status, _lower(response.headers), _bounded(response))
    except urllib.error.HTTPError as exc:
        with exc:
            return Reply(exc.code, _lower(exc.headers), _bounded(exc))
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, socket.timeout | TimeoutError):
            raise TimeoutError(str(reason)) from None
        if isinstance(reason, OSError):
            raise reason from None
        raise ConnectionError(str(reason)) from None


def _bounded(response) -> bytes:
    body = response.read(MAX_ANSWER + 1)
    if len(body) > MAX_ANSWER:
        raise AnswerTooLarge(f"应答超过 {MAX_ANSWER // 1024} KiB，不是该服务的成功应答")
    return body


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as it came: followed, the POST would become a GET without its
    body (to wherever the Location points) and its 200 would read as a delivery."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Watch:
    """Sockets shut when `seconds` have passed (from entering the block): socket timeouts
    count each read on its own, so a receiver trickling a byte at a time could hold a request
    for ever. `expired` says whether the time ran out."""

    def __init__(self, seconds: float):
        self.sockets: list[Callable[[], socket.socket | None]] = []
        self.expired = False
        self.lock = threading.Lock()
        self.timer = threading.Timer(seconds, self.expire)
        self.timer.daemon = True

    def __enter__(self) -> Watch:
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.cancel()

    def follow(self, socket_of: Callable[[], socket.socket | None]) -> None:
        with self.lock:
            self.sockets.append(socket_of)

    def expire(self) -> None:
        with self.lock:
            self.expired = True
            for socket_of in self.sockets:
                _shut(socket_of())

    def _made(self, http_class):
        def make(*args, **kwargs):
            connection = http_class(*args, **kwargs)
            self.follow(lambda: connection.sock)
            return connection

        return make

    def handlers(self) -> list:
        watch = self

        class Http(urllib.request.HTTPHandler):
            def http_open(self, req):
                return self.do_open(watch._made(http.client.HTTPConnection), req)

        class Https(urllib.request.HTTPSHandler):
            def https_open(self, req):
                return self.do_open(watch._made(http.client.HTTPSConnection), req, context=self._context)

        return [_NoRedirect(), Http(), Https()]


def _shut(sock) -> None:
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _lower(headers) -> dict[str, str]:
    return {k.lower(): v for k, v in (headers or {}).items()}


def http_outcome(reply: Reply) -> Outcome | None:
    """What the status alone says: 429 and 5xx are "later", other 4xx a failure; None for a
    2xx, whose body the channel reads (a 200 can carry an error code)."""
    after = seconds(reply.headers.get("retry-after"))
    if reply.status == 429:
        return later("HTTP 429 请求过于频繁", after)
    if reply.status >= 500:
        return later(f"HTTP {reply.status} 服务端错误", after)
    if 300 <= reply.status < 400:
        return fail(f"HTTP {reply.status} 重定向（不跟随：检查地址）")
    if not 200 <= reply.status < 300:
        return fail(f"HTTP {reply.status}")
    return None


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


class Email(Channel):
    def _mail(self, message: Message) -> EmailMessage:
        mail = EmailMessage()
        sender = self.config.get("from") or self.config.get("user") or f"pixiu@{self.config.get('host')}"
        mail["From"] = sender
        mail["To"] = ", ".join(self.config.get("to"))
        mail["Subject"] = message.title
        mail["Date"] = format_datetime(datetime.fromtimestamp(machine_seconds(), SHANGHAI))  # read by other clocks
        mail.set_content(message.text, charset="utf-8")
        return mail

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.config.get("ca_file"))

    def _client(self, timeout: float) -> smtplib.SMTP:
        """Not yet connected: the watch follows its socket from the greeting on."""
        if self.config.get("security") == "ssl":
            return smtplib.SMTP_SSL(timeout=timeout, context=self._context())
        return smtplib.SMTP(timeout=timeout)

    def _session(self, client: smtplib.SMTP, message: Message) -> dict:
        with client:
            client._host = self.config.get("host")  # what SMTP(host) sets: the name TLS checks
            code, greeting = client.connect(self.config.get("host"), self.config.get("port"))
            if code != 220:  # what smtplib.SMTP(host) raises for a server that is busy
                raise smtplib.SMTPConnectError(code, greeting)
            if self.config.get("security") == "starttls":
                client.starttls(context=self._context())
            if self.config.get("user") and self.config.get("password"):
                client.login(self.config.get("user"), self.config.get("password"))
            return client.send_message(self._mail(message))

    def _within(self, message: Message) -> dict:
        """The whole SMTP session within the request's time: a server trickling its replies is cut."""
        budget = self.budget()
        client = self._client(budget)
        with Watch(budget) as watch:
            watch.follow(lambda: client.sock)
            try:
                refused = self._session(client, message)
            except (OSError, smtplib.SMTPException):
                if watch.expired:
                    raise TimeoutError("deadline") from None
                raise
        if watch.expired:
            raise TimeoutError("deadline")
        return refused

    def send(self, message, part, index, total) -> Outcome:
        try:
            refused = self._within(message)
        except smtplib.SMTPAuthenticationError as exc:
            return fail(f"SMTP 登录失败（{exc.smtp_code}）：检查 user 与 password")
        except smtplib.SMTPRecipientsRefused as exc:
            return fail(f"收件人被拒绝：{', '.join(exc.recipients)}")
        except smtplib.SMTPResponseException as exc:
            said = f"SMTP {exc.smtp_code}：{_text(exc.smtp_error)}"
            return later(said) if 400 <= exc.smtp_code < 500 else fail(said)
        except smtplib.SMTPNotSupportedError:
            return fail("服务器不支持 STARTTLS 或登录：检查 security 与端口")
        except ssl.SSLError as exc:
            return fail(f"TLS 失败：{exc.reason or exc}")
        except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError, ConnectionError) as exc:
            return later(f"连接中断：{exc}")
        if refused:
            return fail(f"部分收件人被拒绝：{', '.join(refused)}")
        return OK


def _text(raw) -> str:
    return (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw))[:120]
