"""The only module that imports openai, and only when the first call is made.

Every call is streamed with usage included; the exact body that went over the wire is
captured from the HTTP layer, so what is stored is what the model saw. The SDK sends the
request; the response body is read here (see wire.py), and retries are made here rather
than inside the SDK, so that each one can be announced and all of them fit in one deadline."""

from __future__ import annotations

import functools
import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator

from pixiu_cli.conversation.llm import wire
from pixiu_cli.conversation.llm.model import THINKING_PROVIDERS, request_json, retired_model_line
from pixiu_cli.conversation.llm.retry import RETRYABLE_KINDS, RetryPolicy, parse_retry_after, retryable_status
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, LLMError
from pixiu_cli.kernel.safe_text import remember_secret, remember_url, scrub, without_credentials

DROPPED = "回复中途断开（连接提前结束），已保存收到的部分。"
BAD_KEY = "API key 含有换行、控制字符或非 ASCII 字符（多半是复制时带入的），请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY 或 config.toml。"
MALFORMED = "模型服务返回了无法解析的数据（{cause}），已保存收到的部分。"
UNDECODABLE = "模型服务的回复无法解压（声明为压缩数据，内容却不是；多半是代理配置有误），已保存收到的部分。"
HTML_PAGE = (
    "模型服务地址返回的是一个网页（HTML），不是 API 回复：多半是需要登录的 Wi-Fi 或代理页面，"
    "请检查网络或 PIXIU_BASE_URL。"
)
DEADLINE = "模型服务在 {seconds:g} 秒内没有完成回复（上限见 config.toml 的 [llm] deadline_seconds），已保存收到的部分。"
RETRYING = "重试中…"
MAX_PLAIN_BODY = 32 * 1024 * 1024  # a non-streamed body larger than this is not a reply
MAX_SERVER_MESSAGE = 64 * 1024  # of an error body, read to scrub it whole; 200 characters are shown


_sdk_import_lock = threading.Lock()


def load_sdk() -> None:
    """Import the openai SDK (and httpx2) with the cyclic garbage collector paused, then keep
    what the import built out of every later collection (gc.freeze). The import makes some
    100,000 objects (pydantic models, their schemas) that live as long as the process:
    collected while they arrive, they cost about a third of the import's CPU (0.2-0.4 s of
    ~1 s), and every later full collection, a REPL turn's included, would walk them again."""
    if "openai" in sys.modules:
        return
    with _sdk_import_lock:
        if "openai" in sys.modules:
            return
        collecting = gc.isenabled()
        gc.disable()
        try:
            import httpx2  # noqa: F401 - imported for the freeze below
            import openai  # noqa: F401
        finally:
            if collecting:
                gc.enable()
        gc.freeze()


@functools.cache
def verified_tls_context():
    """The default verified TLS context (the system's CA store, SSL_CERT_FILE honoured), built
    once per process: loading the CA store costs about 20 ms, and every client built its own."""
    import httpx2

    return httpx2.create_ssl_context()


def _tls_for(base_url: str):
    """The TLS context for a client of `base_url`. A plain-http address (a local server, the
    offline one) gets None: httpcore then builds the same verified default context only if a
    connection ever needs TLS (a redirect to https), instead of loading the CA store up front
    in every process (~20 ms idle, far more on a busy machine)."""
    if base_url.lower().startswith("http://"):
        return None
    return verified_tls_context()


def _remembered(base_url: str) -> str:
    remember_url(base_url)
    return without_credentials(base_url)


class ChatClient:
    def __init__(
        self,
        *,
        base_url: str | Callable[[], str],
        api_key: str,
        model: str,
        provider: str,
        timeout: float = 60.0,
        max_retries: int = 5,
        deadline_seconds: float = 600.0,
        thinking: str | None = None,
        reasoning_effort: str | None = None,
    ):
        """thinking / reasoning_effort: DeepSeek's thinking-mode switch and effort, sent only
        to providers that understand them (None: the provider's default). `base_url` may be
        a callable, asked once when the address is first needed (the SDK client is built, an
        error names the server): the REPL's offline server starts only then."""
        # Credentials in the URL never reach the SDK: its HTTP client would send them as
        # `Authorization: Basic`, in place of the key. The key goes as DeepSeek and OpenAI
        # document it, `Authorization: Bearer`; both are masked in every error line.
        remember_secret(api_key)
        self._base_url = base_url if callable(base_url) else _remembered(base_url)
        self.model = model
        self.provider = provider
        speaks_thinking = provider in THINKING_PROVIDERS
        self.thinking = thinking if speaks_thinking else None
        self.reasoning_effort = reasoning_effort if speaks_thinking else None
        # A key pasted with a trailing newline or spaces is the same key; HTTP headers
        # cannot carry them (the request would fail as a connection error).
        self._api_key = api_key.strip() if isinstance(api_key, str) else api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self.policy = RetryPolicy(max_retries=max_retries, deadline_seconds=deadline_seconds)
        self._sdk = None
        self._sdk_lock = threading.Lock()  # the REPL builds the SDK client in the background
        self._last_body: bytes = b""

    @property
    def base_url(self) -> str:
        if callable(self._base_url):
            self._base_url = _remembered(self._base_url())
        return self._base_url

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def warm(self) -> None:
        """Import the SDK and build the client now (from a background thread while the user
        types), so that the first call does not pay for it. The chat resource is imported
        by the SDK on first use, so it is touched here too."""
        self._client().chat.completions  # noqa: B018

    def _client(self):
        with self._sdk_lock:
            return self._sdk or self._build_client()

    def _build_client(self):
        if self._sdk is None:
            load_sdk()
            import openai

            def remember_body(request) -> None:
                self._last_body = request.content

            http_client = openai.DefaultHttpx2Client(
                event_hooks={"request": [remember_body]}, verify=_tls_for(self.base_url)
            )
            # max_retries=0: retrying is done in stream(), within the call's deadline.
            self._sdk = openai.OpenAI(
                base_url=self.base_url,
                api_key=self._api_key,
                timeout=self._timeout,
                max_retries=0,
                http_client=http_client,
            )
        return self._sdk

    def body_for(self, request: ChatRequest) -> dict:
        body: dict = {
            "model": self.model,
            "messages": request.messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = request.tools
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if self.thinking is not None:
            body["thinking"] = {"type": self.thinking}
        if self.reasoning_effort is not None:
            body["reasoning_effort"] = self.reasoning_effort
        return body

    def stream(
        self,
        request: ChatRequest,
        outcome: CallOutcome,
        retries_used: int = 0,
        body: dict | None = None,
        deadline: float | None = None,
    ) -> Iterator[tuple[str, str]]:
        """Yield ("reasoning" | "text", delta) while filling `outcome`, and ("retry", line)
        before each new attempt. Raises LLMError (with `after_output` set if part of the
        reply had been yielded: that call is not retried here). `retries_used`: attempts
        already spent on this request by the caller, which count against the same budget.
        `body`: `body_for(request)` when the caller has built it already, with its JSON in
        `outcome.request_json`, so that a call builds its body once. `deadline`: the
        time.monotonic() by which the caller's whole command must end (else the deadline
        setting from now)."""
        if body is None:
            body = self.body_for(request)
            # Until the HTTP layer reports the real bytes, keep the bytes we asked the SDK to send.
            outcome.request_json = request_json(body)
        if isinstance(self._api_key, str) and not (self._api_key.isascii() and self._api_key.isprintable()):
            # httpx would fail to encode the header: 'UnicodeEncodeError' or a connection error.
            raise LLMError(BAD_KEY, kind="config")
        started = time.perf_counter()
        if deadline is None:
            deadline = time.monotonic() + self.policy.deadline_seconds
        retries = retries_used
        try:
            while True:
                outcome.attempts = retries - retries_used + 1
                shown = False
                try:
                    for kind, delta in self._attempt(request, body, outcome, deadline, retries):
                        if not shown:
                            shown = True
                            outcome.ttft_ms = outcome.ttft_ms or (time.perf_counter() - started) * 1000
                        yield kind, delta
                    return
                except LLMError as exc:
                    exc.after_output = shown
                    wait = self._retry_wait(exc, retries + 1, deadline) if not shown else None
                    if wait is None:
                        raise
                retries += 1
                _forget_attempt(outcome)
                yield "retry", RETRYING
                time.sleep(wait)
        finally:
            outcome.latency_ms = (time.perf_counter() - started) * 1000

    def _retry_wait(self, exc: LLMError, retry_number: int, deadline: float) -> float | None:
        if not (exc.kind in RETRYABLE_KINDS or (exc.kind == "status" and retryable_status(exc.status))):
            return None
        wait = self.policy.delay(retry_number, exc.retry_after)
        if wait is None or time.monotonic() + wait >= deadline:
            return None
        return wait

    def _attempt(
        self, request: ChatRequest, body: dict, outcome: CallOutcome, deadline: float, retries: int
    ) -> Iterator[tuple[str, str]]:
        load_sdk()
        import httpx2
        import openai

        kwargs = {k: v for k, v in body.items() if k not in ("model", "messages", "thinking")}
        if "thinking" in body:  # not an SDK parameter: DeepSeek documents it in extra_body
            kwargs["extra_body"] = {"thinking": body["thinking"]}
        # A read timeout never reaches past the deadline.
        timeout = max(0.001, min(self._timeout, deadline - time.monotonic()))
        try:
            with self._client().chat.completions.with_streaming_response.create(
                model=self.model, messages=request.messages, timeout=timeout, **kwargs
            ) as response:
                outcome.request_json = self._last_body.decode("utf-8") or outcome.request_json
                yield from self._read(response.http_response, outcome, deadline)
        except openai.APIError as exc:
            if isinstance(exc, openai.APITimeoutError) and time.monotonic() >= deadline - 0.01:
                raise self._deadline_error() from None
            raise translated_error(exc, self, retries) from None
        except httpx2.TimeoutException:
            if time.monotonic() >= deadline - 0.01:
                raise self._deadline_error() from None
            raise LLMError(
                f"模型服务响应超时（{self._timeout:g} 秒，{without_credentials(self.base_url)}），已保存收到的部分。",
                kind="timeout",
            ) from None
        except httpx2.TransportError:
            # The connection closed in the middle of the body (RemoteProtocolError, a reset).
            raise LLMError(DROPPED, kind="dropped") from None
        except httpx2.DecodingError:
            # Content-Encoding: gzip over a body that is not gzip (a misconfigured proxy)
            raise LLMError(UNDECODABLE, kind="malformed") from None

    def _deadline_error(self) -> LLMError:
        return LLMError(DEADLINE.format(seconds=self.policy.deadline_seconds), kind="deadline")

    def _read(self, http, outcome: CallOutcome, deadline: float) -> Iterator[tuple[str, str]]:
        content_type = http.headers.get("content-type", "").lower()
        if "event-stream" not in content_type:
            yield from self._read_plain(http, content_type, outcome, deadline)
            return
        state, decoder = wire.StreamState(), wire.SSEDecoder()
        first = True
        for data in http.iter_bytes():
            if time.monotonic() > deadline:
                raise self._deadline_error()
            if first and data.strip():
                first = False
                if wire.looks_like_html("", data[:512]):
                    raise LLMError(HTML_PAGE, kind="html")  # a login page labelled as a stream
            yield from self._events(decoder.feed(data), outcome, state)
            if state.done:
                break
        else:
            yield from self._events(decoder.close(), outcome, state)
        # Without the finish reason and the [DONE] terminator the stream was cut, even if the
        # connection closed cleanly (a proxy's time limit does exactly that).
        if outcome.finish_reason is None or not state.done:
            raise LLMError(DROPPED, kind="dropped")

    def _events(self, events: list[str], outcome: CallOutcome, state) -> Iterator[tuple[str, str]]:
        for event in events:
            try:
                yield from wire.read_event(event, outcome, state)
            except wire.BadChunk as exc:
                raise LLMError(MALFORMED.format(cause=exc.cause), kind="malformed") from None
            except wire.ServerReportedError as exc:
                raise LLMError(
                    f"回复中途出错：{_scrub(str(exc), self._api_key)}，已保存收到的部分。", kind="stream"
                ) from None

    def _read_plain(self, http, content_type: str, outcome: CallOutcome, deadline: float) -> Iterator[tuple[str, str]]:
        """A 200 that is not an event stream: a whole completion, an event stream with the
        wrong content type, or something else entirely (a login page)."""
        pieces, size = [], 0
        for data in http.iter_bytes():
            if time.monotonic() > deadline:
                raise self._deadline_error()
            pieces.append(data)
            size += len(data)
            if size > MAX_PLAIN_BODY:
                break
        body = b"".join(pieces)
        if wire.looks_like_html(content_type, body[:512]):
            raise LLMError(HTML_PAGE, kind="html")
        if body.lstrip().startswith((b"data:", b":")):
            state, decoder = wire.StreamState(), wire.SSEDecoder()
            yield from self._events(decoder.feed(body) + decoder.close(), outcome, state)
            if outcome.finish_reason is None or not state.done:
                raise LLMError(DROPPED, kind="dropped")
            return
        try:
            shown = wire.read_completion(body, outcome)
        except wire.BadChunk as exc:
            raise LLMError(MALFORMED.format(cause=exc.cause), kind="malformed") from None
        except wire.ServerReportedError as exc:
            raise LLMError(f"模型服务返回错误：{_scrub(str(exc), self._api_key)}", kind="stream") from None
        outcome.finish_reason = outcome.finish_reason or "stop"
        yield from shown


def _forget_attempt(outcome: CallOutcome) -> None:
    """A failed attempt showed nothing; what it half-read must not leak into the next one."""
    outcome.text, outcome.reasoning, outcome.tool_calls, outcome.finish_reason = "", "", [], None


def translated_error(exc, client: ChatClient, retries: int | None = None) -> LLMError:
    """`retries`: how many were made before this error (default: the configured number)."""
    import openai

    retries = client._max_retries if retries is None else retries

    if isinstance(exc, openai.APITimeoutError):
        return timeout_error(client)
    if isinstance(exc, openai.APIConnectionError):
        where = without_credentials(client.base_url)
        return LLMError(f"无法连接模型服务 {where}：请检查网络或 PIXIU_BASE_URL。", kind="connection")
    if isinstance(exc, openai.APIStatusError):
        return status_error(
            client,
            exc.status_code,
            retries,
            _server_message(exc),
            parse_retry_after(getattr(exc.response, "headers", None)),
        )
    # An error the SDK raised from inside the stream (an `error` event, a broken chunk).
    return LLMError(f"回复中途出错：{_scrub(str(exc), client._api_key)[:200]}，已保存收到的部分。", kind="stream")


def timeout_error(client: ChatClient) -> LLMError:
    where = without_credentials(client.base_url)
    return LLMError(f"模型服务响应超时（{client._timeout:g} 秒，{where}）。", kind="timeout")


def status_error(
    client: ChatClient, status: int, retries: int, server_message: str, retry_after: float | None
) -> LLMError:
    """The line for an HTTP error status (`server_message`: what the error body said)."""
    messages = {
        400: "请求被模型服务拒绝（400）：",
        401: "API key 无效或已失效（401），请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY。",
        402: "账户余额不足（402），请到服务商控制台充值。",
        403: "没有权限使用该模型（403）。",
        404: f"找不到模型或接口（404）：请检查模型名 {client.model} 和 PIXIU_BASE_URL。",
        422: "请求参数不被接受（422）：",
        429: f"请求过于频繁（429），已重试 {retries} 次，请稍后再试。",
    }
    text = messages.get(status) or f"模型服务出错（{status}），已重试 {retries} 次，请稍后再试。"
    retired = retired_model_line(client.model) if status in (400, 404, 422) else None
    if retired:
        return LLMError(retired, kind="status", status=status)
    if text.endswith("："):  # scrubbed before it is cut: a secret cut in half would not be found
        text += _scrub(server_message, client._api_key)[:200]
    return LLMError(text, kind="status", status=status, retry_after=retry_after)


def _server_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:MAX_SERVER_MESSAGE]
    return str(getattr(exc, "message", "") or exc)[:MAX_SERVER_MESSAGE]


def _scrub(text: str, secret: str) -> str:
    """One line, without the key (remembered when the client was built) or anything else
    redact.scrub masks. Providers that echo a key in an error show a masked form such as
    ``sk-abc…wxyz``, so a long key's last eight characters are masked as well."""
    remember_secret(secret)
    return scrub(" ".join(text.split()))
