"""Plain data that crosses the llm/ boundary. Importing this module never imports openai.

Reading cache usage from any OpenAI-compatible provider. Unknown stays unknown (None)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pixiu_cli.kernel.errors import UserError


@dataclass(frozen=True)
class Usage:
    """Token counts a provider reported for one call; None where it did not say."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cache_hit_tokens: int | None = None
    cache_miss_tokens: int | None = None


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw text from the model; may be invalid JSON

    def as_message_part(self) -> dict:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class ChatRequest:
    messages: list[dict]
    tools: list[dict] = field(default_factory=list)
    temperature: float | None = None


@dataclass
class CallOutcome:
    """What one model call produced, filled in while the stream arrives so that an
    interruption (Ctrl-C, a dropped connection) keeps everything received so far."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    request_json: str = ""
    ttft_ms: float | None = None
    latency_ms: float | None = None
    attempts: int = 0  # HTTP requests made for this call (retries included)


class LLMError(UserError):
    """A provider or network failure, already phrased as one line for the user."""

    def __init__(self, message: str, *, kind: str, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retry_after = retry_after  # seconds the server asked us to wait, if it did
        self.after_output = False  # part of the reply had already reached the user


def _get(obj, name):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def parse_usage(raw) -> Usage:
    if raw is None:
        return Usage()
    prompt = _get(raw, "prompt_tokens")
    completion = _get(raw, "completion_tokens")
    hit = _get(raw, "prompt_cache_hit_tokens")
    if hit is None:
        hit = _get(_get(raw, "prompt_tokens_details"), "cached_tokens")
    miss = _get(raw, "prompt_cache_miss_tokens")
    if miss is None and hit is not None and prompt is not None:
        miss = prompt - hit
    return Usage(prompt, completion, hit, miss)
