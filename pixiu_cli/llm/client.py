"""The only module that imports openai, and only when the first call is made.

Every call is streamed with usage included; the exact body that went over the wire is
captured from the HTTP layer, so what is stored is what the model saw."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

from pixiu_cli.llm.types import CallOutcome, ChatRequest, LLMError, ToolCall
from pixiu_cli.llm.usage import parse_usage

DROPPED = "回复中途断开（连接提前结束），已保存收到的部分。"
BAD_KEY = "API key 含有换行、控制字符或非 ASCII 字符（多半是复制时带入的），请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY 或 config.toml。"


class ChatClient:
    def __init__(self, *, base_url: str, api_key: str, model: str, provider: str,
                 timeout: float = 60.0, max_retries: int = 2):
        self.base_url = base_url
        self.model = model
        self.provider = provider
        # A key pasted with a trailing newline or spaces is the same key; HTTP headers
        # cannot carry them (the request would fail as a connection error).
        self._api_key = api_key.strip() if isinstance(api_key, str) else api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self._sdk = None
        self._last_body: bytes = b""

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def _client(self):
        if self._sdk is None:
            import openai

            def remember_body(request) -> None:
                self._last_body = request.content

            http_client = openai.DefaultHttpx2Client(event_hooks={"request": [remember_body]})
            self._sdk = openai.OpenAI(base_url=self.base_url, api_key=self._api_key,
                                      timeout=self._timeout, max_retries=self._max_retries,
                                      http_client=http_client)
        return self._sdk

    def body_for(self, request: ChatRequest) -> dict:
        body: dict = {"model": self.model, "messages": request.messages, "stream": True,
                      "stream_options": {"include_usage": True}}
        if request.tools:
            body["tools"] = request.tools
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    def stream(self, request: ChatRequest, outcome: CallOutcome) -> Iterator[tuple[str, str]]:
        """Yield ("reasoning" | "text", delta) while filling `outcome`. Raises LLMError."""
        import openai

        body = self.body_for(request)
        # Until the HTTP layer reports the real bytes, keep the body we asked the SDK to send.
        outcome.request_json = json.dumps(body, ensure_ascii=False)
        if isinstance(self._api_key, str) and not (self._api_key.isascii() and self._api_key.isprintable()):
            # httpx would fail to encode the header: 'UnicodeEncodeError' or a connection error.
            raise LLMError(BAD_KEY, kind="config")
        started = time.perf_counter()
        partial_calls: dict[int, dict] = {}
        stream = None
        try:
            kwargs = {k: v for k, v in body.items() if k not in ("model", "messages")}
            stream = self._client().chat.completions.create(model=self.model, messages=request.messages,
                                                            **kwargs)
            outcome.request_json = self._last_body.decode("utf-8") or outcome.request_json
            for chunk in stream:
                if chunk.usage is not None:
                    outcome.usage = parse_usage(chunk.usage)
                for choice in chunk.choices or []:
                    delta = choice.delta
                    if delta is None:
                        continue
                    reasoning = getattr(delta, "reasoning_content", None) or \
                        (getattr(delta, "model_extra", None) or {}).get("reasoning_content")
                    if reasoning:
                        outcome.ttft_ms = outcome.ttft_ms or (time.perf_counter() - started) * 1000
                        outcome.reasoning += reasoning
                        yield "reasoning", reasoning
                    if delta.content:
                        outcome.ttft_ms = outcome.ttft_ms or (time.perf_counter() - started) * 1000
                        outcome.text += delta.content
                        yield "text", delta.content
                    for part in delta.tool_calls or []:
                        slot = partial_calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                        if part.id:
                            slot["id"] = part.id
                        if part.function is not None:
                            slot["name"] += part.function.name or ""
                            slot["arguments"] += part.function.arguments or ""
                        outcome.tool_calls = [ToolCall(s["id"] or f"call_{i}", s["name"], s["arguments"])
                                              for i, s in sorted(partial_calls.items())]
                    if choice.finish_reason:
                        outcome.finish_reason = choice.finish_reason
            if outcome.finish_reason is None:
                raise LLMError(DROPPED, kind="dropped")
        except openai.APIError as exc:
            if stream is not None and type(exc) is openai.APIConnectionError:
                # The SDK reports a connection closed in the middle of the body (httpx's
                # RemoteProtocolError) as a connection error; the connection did work.
                raise LLMError(DROPPED, kind="dropped") from None
            raise _translate(exc, self) from None
        except LLMError:
            raise
        except (json.JSONDecodeError, ValueError) as exc:
            raise LLMError(f"模型服务返回了无法解析的数据（{type(exc).__name__}），已保存收到的部分。",
                           kind="malformed") from None
        except (TypeError, AttributeError, KeyError, IndexError) as exc:
            if stream is None:
                raise
            # Valid JSON of the wrong shape ({"choices": "x"}, null, a number as content):
            # the SDK does not validate stream chunks, so reading one fails here.
            raise LLMError(f"模型服务返回了无法解析的数据（{type(exc).__name__}），已保存收到的部分。",
                           kind="malformed") from None
        finally:
            outcome.latency_ms = (time.perf_counter() - started) * 1000
            if stream is not None:
                stream.close()


def _translate(exc, client: ChatClient) -> LLMError:
    import openai

    where = _without_credentials(client.base_url)
    if isinstance(exc, openai.APITimeoutError):
        return LLMError(f"模型服务响应超时（{client._timeout:g} 秒，{where}）。", kind="timeout")
    if isinstance(exc, openai.APIConnectionError):
        return LLMError(f"无法连接模型服务 {where}：请检查网络或 PIXIU_BASE_URL。", kind="connection")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        messages = {
            400: "请求被模型服务拒绝（400）：",
            401: "API key 无效或已失效（401），请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY。",
            402: "账户余额不足（402），请到服务商控制台充值。",
            403: "没有权限使用该模型（403）。",
            404: f"找不到模型或接口（404）：请检查模型名 {client.model} 和 PIXIU_BASE_URL。",
            422: "请求参数不被接受（422）：",
            429: f"请求过于频繁（429），已重试 {client._max_retries} 次，请稍后再试。",
        }
        text = messages.get(status) or f"模型服务出错（{status}），已重试 {client._max_retries} 次，请稍后再试。"
        if text.endswith("："):
            text += _scrub(_server_message(exc), client._api_key)
        return LLMError(text, kind="status", status=status)
    # An error the SDK raised from inside the stream (an `error` event, a broken chunk).
    return LLMError(f"回复中途出错：{_scrub(str(exc), client._api_key)[:200]}，已保存收到的部分。",
                    kind="stream")


def _server_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:200]
    return str(getattr(exc, "message", "") or exc)[:200]


def _scrub(text: str, secret: str) -> str:
    """One line, without the key. Providers that echo a key in an error show a masked form
    such as ``sk-abc…wxyz``, so a long key's last eight characters are masked as well."""
    text = " ".join(text.split())
    if not secret:
        return text
    text = text.replace(secret, "***")
    if len(secret) >= 16:
        text = text.replace(secret[-8:], "***")
    return text


def _without_credentials(url: str) -> str:
    """A base URL may carry user:password@; error messages show the host only."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
