"""The offline server: a real OpenAI-compatible HTTP server on loopback (stdlib only).

Routes (``/v1`` is optional on the API routes, as with DeepSeek):

* ``POST /v1/chat/completions`` — JSON, or SSE when ``stream`` is true;
* ``GET  /v1/models``;
* ``POST /_pixiu/script``  — JSON list of scripted replies to enqueue;
* ``POST /_pixiu/faults``  — JSON list of faults to inject;
* ``GET  /_pixiu/requests`` — the request log;
* ``POST /_pixiu/reset``   — clear replies, faults, cache and the request log.

The ``/_pixiu`` routes exist only on a server started with ``control=True`` (tests, or
``pixiu offline-server --control``), and then only for a caller that presents the server's
per-run token in ``X-Pixiu-Control-Token``; POSTs must be ``application/json``. Otherwise
any local process (or a web page posting a form) could script the user's next answer.
The request log keeps a digest of each API key, never the key itself.

Replies come from the scripted FIFO, or from the offline responder when it is empty.
Faults come from their own FIFO (one fault per request) or ride on a scripted reply.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import socket
import threading
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pixiu_cli.conversation.llm.template import render_prompt
from pixiu_cli.conversation.offline.cache import PROFILES, PrefixCache
from pixiu_cli.conversation.offline.chunks import ReplyMeta, account_call, completion_body, stream_chunks, tool_call_ids
from pixiu_cli.conversation.offline.responder import refusal_of, respond, thought
from pixiu_cli.conversation.offline.script import REJECTING_FAULT_KINDS, Fault, ScriptedReply
from pixiu_cli.kernel.clock import machine_seconds


def respond_offline(request, **options):
    """The offline responder, imported on the first request: its tables and patterns are
    not needed before then (an offline REPL draws its prompt without them)."""

    return respond(request, **options)


log = logging.getLogger(__name__)

DEFAULT_MODEL = "pixiu-offline"
TIMEOUT_FAULT_DEFAULT_SECONDS = 30.0
MAX_BODY_BYTES = 64 * 1024 * 1024

ERROR_DEFAULTS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "Invalid request"),
    401: ("authentication_error", "Authentication Fails (no such user or missing API key)"),
    402: ("insufficient_balance", "Insufficient Balance"),
    404: ("not_found", "Not found"),
    422: ("invalid_request_error", "Invalid Parameters"),
    429: ("rate_limit_error", "Rate Limit Reached"),
    500: ("api_error", "Server Error"),
    503: ("server_overloaded", "Server Overloaded"),
}

Responder = Callable[[Mapping[str, Any]], ScriptedReply]


def error_body(status: int, message: str | None = None) -> dict[str, Any]:
    kind, default = ERROR_DEFAULTS.get(
        status, ("api_error" if status >= 500 else "invalid_request_error", f"HTTP {status}")
    )
    return {"error": {"message": message or default, "type": kind, "code": kind}}


@dataclass
class RecordedRequest:
    """One request received on a chat-completions route, exactly as it arrived.

    ``headers`` has lower-case names. ``json`` is None when the body did not parse.
    ``status`` and ``usage`` describe what the server answered."""

    method: str
    path: str
    headers: dict[str, str]
    body_bytes: bytes
    json: Any
    received_at: float
    status: int | None = None
    usage: dict[str, Any] | None = None
    fault: Fault | None = None

    key_sha256: str | None = None  # the digest of the bearer key; the key is never kept

    def sent_key(self, key: str) -> bool:
        """Whether this request carried `key` as its bearer token."""
        return self.key_sha256 is not None and hmac.compare_digest(self.key_sha256, _digest(key))

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": dict(self.headers),
            "key_sha256": self.key_sha256,
            "body": self.body_bytes.decode("utf-8", errors="replace"),
            "json": self.json,
            "received_at": self.received_at,
            "status": self.status,
            "usage": self.usage,
            "fault": self.fault.to_dict() if self.fault else None,
        }


CONTROL_TOKEN_HEADER = "X-Pixiu-Control-Token"
CREDENTIAL_HEADERS = (
    "authorization",
    "proxy-authorization",
    "api-key",
    "x-api-key",
    "cookie",
    CONTROL_TOKEN_HEADER.lower(),
)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _loggable_headers(headers) -> dict[str, str]:
    return {k.lower(): ("[redacted]" if k.lower() in CREDENTIAL_HEADERS else v) for k, v in headers.items()}


def _bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token


def _invalid_request(parsed: Any) -> str | None:
    """Why a parsed body is not a chat request, or None."""
    if not isinstance(parsed, dict):
        return "the request body must be a JSON object"
    if not isinstance(parsed.get("messages"), list) or not parsed["messages"]:
        return "'messages' is required and must be a non-empty list"
    if not all(isinstance(m, dict) and "role" in m for m in parsed["messages"]):
        return "every message must be an object with a 'role'"
    return None


class _Abort(Exception):
    """The client went away or the server is stopping: stop writing this response."""


@dataclass
class _State:
    cache: PrefixCache
    responder: Responder
    lock: threading.Lock = field(default_factory=threading.Lock)
    replies: deque[ScriptedReply] = field(default_factory=deque)
    faults: deque[Fault] = field(default_factory=deque)
    requests: deque[RecordedRequest] = field(default_factory=deque)  # the last request_log of them
    last_model: str | None = None
    stopping: threading.Event = field(default_factory=threading.Event)
    control_token: str | None = None  # None: the /_pixiu routes do not exist

    @property
    def profile(self) -> str:
        return self.cache.profile


logger = logging.getLogger(__name__)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], state: _State) -> None:
        self.state = state
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request, client_address):  # type: ignore[override]
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):  # type: ignore[override]
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request, client_address) -> None:  # type: ignore[override]
        # A client that hangs up mid-request (Ctrl-C, a closed pipe) is normal here; it must
        # never print a traceback into the user's terminal.
        logger.debug("offline server: request from %s ended with an error", client_address, exc_info=True)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "pixiu-offline/0.1"
    server: _HTTPServer

    # -- plumbing -----------------------------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        # The request line only: headers (and the Authorization header) are never logged.
        log.debug("%s %s", self.address_string(), format % args)

    @property
    def state(self) -> _State:
        return self.server.state

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        if path.startswith("/v1/"):
            path = path[3:]
        return path

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0 or length > MAX_BODY_BYTES:
            raise ValueError("bad Content-Length")
        return self.rfile.read(length) if length else b""

    def _write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError) as exc:
            self.close_connection = True
            raise _Abort from exc

    def _wait(self, seconds: float) -> None:
        if seconds > 0 and self.state.stopping.wait(seconds):
            self.close_connection = True
            raise _Abort

    def _send_json(
        self,
        status: int,
        payload: Any,
        headers: Mapping[str, str] | None = None,
        *,
        leading_lines: int = 0,
        line_pause: float = 0.0,
    ) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body) + leading_lines))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        for _ in range(leading_lines):
            self._write(b"\n")
            self._wait(line_pause)
        self._write(body)

    def _send_error_json(
        self, status: int, message: str | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        self._send_json(status, error_body(status, message), headers)

    def _guarded(self, action: Callable[[], None]) -> None:
        try:
            action()
        except _Abort:
            log.debug("response aborted (client gone or server stopping)")

    # -- routing ------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802
        route = self._route()
        if route == "/models":
            self._guarded(self._models)
        elif route == "/_pixiu/requests":
            if self._control_allowed(post=False):
                with self.state.lock:
                    log_copy = [r.to_dict() for r in self.state.requests]
                self._guarded(lambda: self._send_json(200, log_copy))
        else:
            self._guarded(lambda: self._send_error_json(404, f"no route for GET {self.path}"))

    def do_POST(self) -> None:  # noqa: N802
        route = self._route()
        try:
            body = self._read_body()
        except (ValueError, OSError):
            self.close_connection = True
            self._guarded(lambda: self._send_error_json(400, "unreadable request body"))
            return
        if route == "/chat/completions":
            self._guarded(lambda: self._chat(body))
        elif route in ("/_pixiu/script", "/_pixiu/faults", "/_pixiu/reset"):
            if self._control_allowed(post=True):
                self._guarded(lambda: self._control(route, body))
        else:
            self._guarded(lambda: self._send_error_json(404, f"no route for POST {self.path}"))

    # -- endpoints ----------------------------------------------------------------

    def _control_allowed(self, *, post: bool) -> bool:
        """Answer (and return False) unless control is on, the token matches and a POST is JSON."""
        token = self.state.control_token
        if token is None:
            self._guarded(lambda: self._send_error_json(404, f"no route for {self.command} {self.path}"))
            return False
        given = self.headers.get(CONTROL_TOKEN_HEADER) or ""
        if not hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8")):
            self.close_connection = True
            self._guarded(lambda: self._send_error_json(403, f"control requires the {CONTROL_TOKEN_HEADER} header"))
            return False
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if post and content_type != "application/json":
            self._guarded(lambda: self._send_error_json(415, "control requests must be application/json"))
            return False
        return True

    def _authorised(self) -> str | None:
        key = _bearer(self.headers.get("Authorization"))
        if key is None:
            self._send_error_json(401, "Authentication Fails: an 'Authorization: Bearer <key>' header is required")
        return key

    def _models(self) -> None:
        if self._authorised() is None:
            return
        with self.state.lock:
            names = [DEFAULT_MODEL]
            if self.state.last_model and self.state.last_model != DEFAULT_MODEL:
                names.append(self.state.last_model)
        self._send_json(
            200,
            {
                "object": "list",
                "data": [{"id": n, "object": "model", "created": 0, "owned_by": "pixiu"} for n in names],
            },
        )

    def _control(self, route: str, body: bytes) -> None:
        state = self.state
        if route == "/_pixiu/reset":
            _reset(state)
            self._send_json(200, {"ok": True})
            return
        parse = ScriptedReply.from_dict if route == "/_pixiu/script" else Fault.from_dict
        try:
            payload = json.loads(body or b"null")
            if isinstance(payload, dict):
                payload = [payload]
            if not isinstance(payload, list):
                raise ValueError("expected a JSON list")
            items = [parse(item) for item in payload]
        except (ValueError, TypeError) as exc:
            self._send_error_json(400, f"bad control payload: {exc}")
            return
        with state.lock:
            queue = state.replies if route == "/_pixiu/script" else state.faults
            queue.extend(items)
            pending = len(queue)
        self._send_json(200, {"ok": True, "pending": pending})

    def _chat(self, body: bytes) -> None:
        record, parsed, parse_error = self._record(body)
        api_key = self._authorised()
        if api_key is None:
            record.status = 401
            return
        parse_error = parse_error or _invalid_request(parsed)
        if parse_error is not None:
            record.status = 400
            self._send_error_json(400, parse_error)
            return
        request: dict[str, Any] = parsed
        model = request.get("model") if isinstance(request.get("model"), str) else None
        refusal = refusal_of(request, model)
        if refusal is not None:
            record.status = 400
            self._send_error_json(400, refusal)
            return
        fault, reply = self._take_script(model)
        record.fault = fault
        if fault is not None and fault.kind in REJECTING_FAULT_KINDS:
            self._reject(fault, record)
            return
        if reply is None:
            reply = thought(self.state.responder(request), request)
        if fault is not None and fault.kind == "delay":
            self._wait(fault.seconds)
        prompt = render_prompt(request)
        truncated = fault is not None and fault.kind in ("drop_stream", "malformed_chunk")
        usage = self._account(api_key, prompt, reply, truncated)
        record.usage = usage
        record.status = 200
        self._answer(
            request,
            reply,
            fault,
            usage,
            ReplyMeta(
                completion_id=f"chatcmpl-{uuid.uuid4().hex}",
                created=int(machine_seconds()),
                model=model or DEFAULT_MODEL,
            ),
            tool_call_ids(reply, prompt),
        )

    def _record(self, body: bytes) -> tuple[RecordedRequest, Any, str | None]:
        """Record the request as received (every request is recorded, even a rejected one);
        the parsed body, and why it could not be parsed."""
        parsed: Any = None
        parse_error: str | None = None
        try:
            parsed = json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            parse_error = f"could not parse the JSON body: {exc}"
        key = _bearer(self.headers.get("Authorization"))
        record = RecordedRequest(
            method="POST",
            path=self.path,
            headers=_loggable_headers(self.headers),
            body_bytes=body,
            json=parsed,
            received_at=machine_seconds(),
            key_sha256=_digest(key) if key else None,
        )
        with self.state.lock:
            self.state.requests.append(record)
        return record, parsed, parse_error

    def _take_script(self, model: str | None) -> tuple[Fault | None, ScriptedReply | None]:
        """The next injected fault and scripted reply (a rejecting fault consumes no reply)."""
        state = self.state
        with state.lock:
            if model:
                state.last_model = model
            fault = state.faults.popleft() if state.faults else None
            reply = None
            if fault is None or fault.kind not in REJECTING_FAULT_KINDS:
                reply = state.replies.popleft() if state.replies else None
        if fault is None and reply is not None:
            fault = reply.fault
        return fault, reply

    def _account(self, api_key: str, prompt: str, reply: ScriptedReply, truncated: bool) -> dict[str, Any]:
        """Usage for this call, with the prefix cache consulted and updated (a cut-off
        answer caches only the prompt)."""
        return account_call(self.state.cache, api_key, prompt, reply, truncated)

    def _answer(
        self,
        request: dict[str, Any],
        reply: ScriptedReply,
        fault: Fault | None,
        usage: dict[str, Any],
        meta: ReplyMeta,
        call_ids: list[str],
    ) -> None:
        if request.get("stream"):
            options = request.get("stream_options") or {}
            include_usage = bool(isinstance(options, dict) and options.get("include_usage"))
            chunks = stream_chunks(meta, reply, call_ids, usage if include_usage else None)
            self._stream(chunks, reply, fault)
        else:
            self._respond_json(completion_body(meta, reply, call_ids, usage), fault)

    # -- response writers ---------------------------------------------------------

    def _reject(self, fault: Fault, record: RecordedRequest) -> None:
        if fault.kind == "timeout":
            record.status = None
            self._wait(fault.seconds or TIMEOUT_FAULT_DEFAULT_SECONDS)
            # Close without an answer: the client sees a dropped connection if it is
            # still waiting.
            self.close_connection = True
            return
        status = int(fault.status or 500)
        record.status = status
        headers = {}
        if fault.retry_after is not None:
            headers["Retry-After"] = f"{fault.retry_after:g}"
        self._send_error_json(status, headers=headers)

    def _respond_json(self, payload: dict[str, Any], fault: Fault | None) -> None:
        if fault is not None and fault.kind == "keepalive":
            lines = fault.keepalive_lines
            pause = fault.seconds / lines if lines else 0.0
            self._send_json(200, payload, leading_lines=lines, line_pause=pause)
            return
        if fault is not None and fault.kind in ("drop_stream", "malformed_chunk"):
            body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            if fault.kind == "drop_stream":
                # Promise the whole body, send half, hang up.
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self._write(body[: len(body) // 2])
                self._hang_up()
            else:
                broken = b"{not json"
                self.send_header("Content-Length", str(len(broken)))
                self.end_headers()
                self._write(broken)
            return
        self._send_json(200, payload)

    def _write_chunk(self, data: bytes) -> None:
        self._write(b"%x\r\n%s\r\n" % (len(data), data))

    def _hang_up(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _stream(self, chunks: list[dict[str, Any]], reply: ScriptedReply, fault: Fault | None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Accel-Buffering", "no")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

        if fault is not None and fault.kind == "keepalive":
            lines = fault.keepalive_lines
            pause = fault.seconds / lines if lines else 0.0
            for _ in range(lines):
                self._write_chunk(b": keep-alive\n\n")
                self._wait(pause)

        cut = fault.after_chunks if fault is not None and fault.kind in ("drop_stream", "malformed_chunk") else None
        for sent, chunk in enumerate(chunks):
            if cut is not None and sent >= cut:
                break
            if sent:
                self._wait(reply.chunk_delay)
            data = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
            self._write_chunk(f"data: {data}\n\n".encode())

        if fault is not None and fault.kind == "drop_stream":
            self._hang_up()
            return
        if fault is not None and fault.kind == "malformed_chunk":
            self._write_chunk(b"data: {not json\n\n")
        else:
            self._write_chunk(b"data: [DONE]\n\n")
        self._write(b"0\r\n\r\n")


def _reset(state: _State) -> None:
    with state.lock:
        state.replies.clear()
        state.faults.clear()
        state.requests.clear()
        state.last_model = None
    state.cache.reset()


DEFAULT_REQUEST_LOG = 256


class OfflineServer:
    """An OpenAI-compatible server on loopback, serving from a daemon thread.

    >>> with OfflineServer() as server:
    ...     server.enqueue(ScriptedReply(text="你好"))
    ...     client = OpenAI(base_url=server.base_url, api_key="sk-test")
    """

    def __init__(
        self,
        cache_profile: str = "deepseek",
        host: str = "127.0.0.1",
        port: int = 0,
        ttl_seconds: float | None = None,
        responder: Responder | None = None,
        control: bool = False,
        cache: PrefixCache | None = None,
        request_log: int = DEFAULT_REQUEST_LOG,
    ) -> None:
        """``control=True`` (tests only) opens the ``/_pixiu`` routes behind a fresh token
        (``control_token``); the in-process methods (enqueue, requests…) work either way.
        ``cache`` replaces the in-memory one (e.g. a ``PrefixCache.persisted`` file); its
        profile then wins over ``cache_profile``. ``request_log`` is how many of the latest
        requests are kept (each holds its body and parsed JSON: a long session's requests
        would otherwise all stay in memory)."""
        if request_log < 0:
            raise ValueError("request_log must be 0 or more")
        if cache is not None:
            cache_profile = cache.profile
        if cache_profile not in PROFILES:
            raise ValueError(f"unknown cache profile {cache_profile!r}; expected one of {sorted(PROFILES)}")
        self.cache_profile = cache_profile
        self.host = host
        self._requested_port = port
        self._state = _State(
            cache=cache if cache is not None else PrefixCache(cache_profile, ttl_seconds=ttl_seconds),
            responder=responder or respond_offline,
            control_token=secrets.token_urlsafe(24) if control else None,
            requests=deque(maxlen=request_log),
        )
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._serving = False
        self._lifecycle_lock = threading.Lock()

    # -- lifecycle ----------------------------------------------------------------

    def bind(self) -> OfflineServer:
        """Open the listening socket (``start`` does this too)."""
        if self._httpd is None:
            self._state.stopping.clear()
            self._httpd = _HTTPServer((self.host, self._requested_port), self._state)
        return self

    def start(self) -> OfflineServer:
        self.bind()
        if self._thread is None:
            assert self._httpd is not None
            self._serving = True
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"pixiu-offline-{self.port}",
                daemon=True,
            )
            self._thread.start()
            log.info("offline server listening on %s", self.base_url)
        return self

    def serve_in_foreground(self) -> None:
        """Serve from the calling thread until interrupted (Ctrl-C) or ``stop()``."""
        self.bind()
        assert self._httpd is not None
        self._serving = True
        log.info("offline server listening on %s", self.base_url)
        try:
            self._httpd.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            self._serving = False
            self._close()

    def stop(self) -> None:
        httpd = self._httpd
        if httpd is None:
            return
        self._state.stopping.set()
        if self._serving:
            httpd.shutdown()  # returns once serve_forever has returned
            self._serving = False
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close()

    def _close(self) -> None:
        with self._lifecycle_lock:
            httpd, self._httpd = self._httpd, None
        if httpd is not None:
            self._state.stopping.set()
            httpd.server_close()
            httpd.close_connections()

    def __enter__(self) -> OfflineServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ----------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the offline server is not bound; call start() first")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The server root (control endpoints live under ``/_pixiu``)."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url``."""
        return f"{self.url}/v1"

    @property
    def control_token(self) -> str | None:
        return self._state.control_token

    # -- scripting ----------------------------------------------------------------

    @property
    def cache(self) -> PrefixCache:
        return self._state.cache

    def enqueue(self, *replies: ScriptedReply | str) -> None:
        items = [ScriptedReply(text=r) if isinstance(r, str) else r for r in replies]
        with self._state.lock:
            self._state.replies.extend(items)

    def inject(self, *faults: Fault) -> None:
        with self._state.lock:
            self._state.faults.extend(faults)

    @property
    def pending_replies(self) -> int:
        with self._state.lock:
            return len(self._state.replies)

    @property
    def pending_faults(self) -> int:
        with self._state.lock:
            return len(self._state.faults)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of the chat-completions requests received (the last ``request_log``),
        oldest first."""
        with self._state.lock:
            return list(self._state.requests)

    def reset(self) -> None:
        _reset(self._state)
