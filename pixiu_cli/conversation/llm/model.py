"""What the agent loop needs from a model service, as a type: `ChatModel`.

The production implementation is `llm.client.ChatClient` (OpenAI-compatible HTTP through
the SDK); `offline.model.OfflineModel` answers in process, for tests and tools that need a
model but not the wire. Both build the same request body and store the same bytes:
`request_json` is the one serialisation, written as the SDK writes it on the wire.

DeepSeek's model names and thinking-mode options, as its API pages gave them on 2026-12-01.

`deepseek-flash` (DeepSeek-V4.1-Flash) is the name DeepSeek asks callers to use;
`deepseek-v4-flash` is still accepted and served by it. `deepseek-chat` and
`deepseek-reasoner` were retired on 2026-07-24: requests naming them fail."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Literal, Protocol, runtime_checkable

from pixiu_cli.conversation.llm.retry import RetryPolicy
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest

# What `stream` yields: a piece of the reply ("reasoning" or "text"), or the line to show
# before the client tries the call again ("retry").
StreamEvent = tuple[Literal["reasoning", "text", "retry"], str]

# The order in which the openai SDK writes the body's fields (its `chat.completions.create`);
# fields it does not know (a provider's extra body) follow, in the body's own order.
SDK_FIELD_ORDER = (
    "model",
    "stream",
    "service_tier",
    "messages",
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "moderation",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "stop",
    "store",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
)


@runtime_checkable
class ChatModel(Protocol):
    """One model service as the loop sees it.

    `body_for` builds the request body (the loop stores it before the call); `stream` makes
    the call, retries included, filling `outcome` as the reply arrives (text, reasoning,
    tool calls, finish reason, usage, the bytes sent, timings, attempts) and yielding
    `StreamEvent`s; a failure is an `LLMError` with `after_output` set when part of the
    reply had already been yielded. `policy` bounds the retries; `provider` and `model` are
    recorded with each call."""

    provider: str
    model: str
    policy: RetryPolicy

    def body_for(self, request: ChatRequest) -> dict: ...

    def stream(
        self,
        request: ChatRequest,
        outcome: CallOutcome,
        retries_used: int = 0,
        body: dict | None = None,
        deadline: float | None = None,
    ) -> Iterator[StreamEvent]: ...

    def warm(self) -> None: ...


def request_json(body: dict) -> str:
    """The body's bytes as sent: the SDK's field order and compact separators, non-ASCII
    kept. The contract tests check this against what the HTTP server receives."""
    known = [name for name in SDK_FIELD_ORDER if name in body]
    ordered = {name: body[name] for name in known} | {k: v for k, v in body.items() if k not in known}
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


DEFAULT_DEEPSEEK_MODEL = "deepseek-flash"
CURRENT_DEEPSEEK_MODELS = ("deepseek-flash", "deepseek-v4-flash", "deepseek-v4-pro")
RETIRED_MODELS = {"deepseek-chat": DEFAULT_DEEPSEEK_MODEL, "deepseek-reasoner": DEFAULT_DEEPSEEK_MODEL}

# `{"thinking": {"type": ...}}` in the request body; DeepSeek's default is enabled.
THINKING_MODES = ("enabled", "disabled")
# `reasoning_effort`: DeepSeek maps minimal/low → low, medium/high/xhigh → high, max/ultra → max.
REASONING_EFFORTS = ("low", "high", "max")
# The providers that understand those two fields; any other server is sent neither.
THINKING_PROVIDERS = ("deepseek", "offline")


def retired_model_line(model: str) -> str | None:
    """The one line for a retired model name, or None when the name is not retired."""
    replacement = RETIRED_MODELS.get(model)
    if replacement is None:
        return None
    return f"模型 {model} 已停用，请改用 {replacement}（pixiu config set model {replacement}）"
