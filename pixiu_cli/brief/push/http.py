"""One JSON POST over urllib, and what its answer means for a retry. A refused connection
never reached the service, so it is tried again; a timeout may have delivered the message,
so it is not (a second copy on the investor's phone is worse than one line saying so).
A request has one deadline for its whole exchange, a redirect is an answer (never followed),
and an answer is read up to MAX_ANSWER bytes."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pixiu_cli.brief.push.config import is_loopback

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
    import urllib.error

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
