"""One JSON POST over urllib, and what its answer means for a retry. A refused connection
never reached the service, so it is tried again; a timeout may have delivered the message,
so it is not (a second copy on the investor's phone is worse than one line saying so)."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pixiu_cli.push.config import is_loopback

USER_AGENT = "pixiu-push/1"


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
    """POST `payload` as JSON; any HTTP status is a Reply. Raises OSError subclasses: TimeoutError
    when no answer came in time, ConnectionError (or another OSError) when none could come."""
    import urllib.error
    import urllib.request

    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT, **(headers or {})},
    )
    # A proxy from the environment must not carry a request for this machine elsewhere.
    handlers = [urllib.request.ProxyHandler({})] if is_loopback(urlsplit(url).hostname) else []
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(request, timeout=timeout) as response:
            return Reply(response.status, _lower(response.headers), response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return Reply(exc.code, _lower(exc.headers), exc.read())
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, socket.timeout | TimeoutError):
            raise TimeoutError(str(reason)) from None
        if isinstance(reason, OSError):
            raise reason from None
        raise ConnectionError(str(reason)) from None


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
    if not 200 <= reply.status < 300:
        return fail(f"HTTP {reply.status}")
    return None
