"""The offline model in process: a `ChatModel` that answers as the offline server does —
the same scripted replies and faults, the same responder, token counts, prefix cache and
usage — without HTTP, so a test of the loop pays for the loop only.

It is `ChatClient` with its transport replaced: the body, the retries, the deadline and
the error lines are the client's own, and the reply is read by the client's own stream
reader (`llm.wire`) from the chunks the server would have sent. What it stores as the
request is `llm.model.request_json(body)`, the bytes the SDK sends for the same body."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pixiu_cli.conversation.llm import wire
from pixiu_cli.conversation.llm.client import DROPPED, ChatClient, status_error, timeout_error
from pixiu_cli.conversation.llm.model import request_json
from pixiu_cli.conversation.llm.template import render_prompt
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, LLMError
from pixiu_cli.conversation.offline.cache import PrefixCache
from pixiu_cli.conversation.offline.chunks import ReplyMeta, account_call, stream_chunks, tool_call_ids
from pixiu_cli.conversation.offline.responder import refusal_of, respond, thought
from pixiu_cli.conversation.offline.script import REJECTING_FAULT_KINDS, Fault, ScriptedReply
from pixiu_cli.kernel.clock import machine_seconds

IN_PROCESS_URL = "in-process://offline/v1"
DEFAULT_KEY = "sk-pixiu-in-process"
BROKEN_EVENT = "{not json"  # what a malformed_chunk fault sends, as the server does


@dataclass
class ModelRequest:
    """One request the model received: the body as parsed from the bytes sent, and what the
    model answered (the usage it reported, the fault applied)."""

    body_bytes: bytes
    json: Any
    usage: dict[str, Any] | None = None
    fault: Fault | None = None


class OfflineModel(ChatClient):
    """A deterministic model in process. Script it like the offline server (`enqueue`,
    `inject`); read what it received in `requests`."""

    def __init__(
        self,
        *,
        model: str = "deepseek-test",
        provider: str = "deepseek",
        api_key: str = DEFAULT_KEY,
        cache_profile: str = "deepseek",
        responder: Callable[[Mapping[str, Any]], ScriptedReply] | None = None,
        timeout: float = 10.0,
        max_retries: int = 0,
        deadline_seconds: float = 600.0,
        thinking: str | None = None,
        reasoning_effort: str | None = None,
    ):
        super().__init__(
            base_url=IN_PROCESS_URL,
            api_key=api_key,
            model=model,
            provider=provider,
            timeout=timeout,
            max_retries=max_retries,
            deadline_seconds=deadline_seconds,
            thinking=thinking,
            reasoning_effort=reasoning_effort,
        )
        self.cache = PrefixCache(cache_profile)
        self._responder = responder
        self._lock = threading.Lock()
        self._replies: deque[ScriptedReply] = deque()
        self._faults: deque[Fault] = deque()
        self._requests: list[ModelRequest] = []

    def __repr__(self) -> str:
        return f"OfflineModel(model={self.model!r})"

    # -- scripting, as on the offline server ---------------------------------------------

    def enqueue(self, *replies: ScriptedReply | str) -> None:
        with self._lock:
            self._replies.extend(ScriptedReply(text=r) if isinstance(r, str) else r for r in replies)

    def inject(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    @property
    def pending_replies(self) -> int:
        with self._lock:
            return len(self._replies)

    @property
    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    @property
    def requests(self) -> list[ModelRequest]:
        with self._lock:
            return list(self._requests)

    def reset(self) -> None:
        with self._lock:
            self._replies.clear()
            self._faults.clear()
            self._requests.clear()
        self.cache.reset()

    # -- the transport ---------------------------------------------------------------------

    def warm(self) -> None:
        """Nothing to load: no SDK, no connection."""

    def _attempt(
        self, request: ChatRequest, body: dict, outcome: CallOutcome, deadline: float, retries: int
    ) -> Iterator[tuple[str, str]]:
        sent = request_json(body)
        outcome.request_json = sent
        received = ModelRequest(sent.encode("utf-8"), json.loads(sent))
        with self._lock:
            self._requests.append(received)
        refusal = refusal_of(received.json, received.json.get("model"))
        if refusal is not None:
            raise status_error(self, 400, retries, refusal, None)
        fault, reply = self._take_script()
        received.fault = fault
        if fault is not None and fault.kind in REJECTING_FAULT_KINDS:
            raise self._rejection(fault, retries)
        if reply is None:
            reply = thought(self._respond(received.json), received.json)
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.seconds)
        prompt = render_prompt(received.json)
        cut = fault is not None and fault.kind in ("drop_stream", "malformed_chunk")
        received.usage = account_call(self.cache, self._api_key, prompt, reply, cut)
        model = received.json.get("model")
        meta = ReplyMeta(completion_id=f"chatcmpl-{uuid.uuid4().hex}", created=int(machine_seconds()), model=model)
        options = received.json.get("stream_options") or {}
        usage = received.usage if isinstance(options, dict) and options.get("include_usage") else None
        chunks = stream_chunks(meta, reply, tool_call_ids(reply, prompt), usage)
        yield from self._deliver(chunks, reply, fault, outcome, deadline)

    def _take_script(self) -> tuple[Fault | None, ScriptedReply | None]:
        """The next injected fault and scripted reply (a rejecting fault consumes no reply),
        as the server takes them."""
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
            reply = None
            if fault is None or fault.kind not in REJECTING_FAULT_KINDS:
                reply = self._replies.popleft() if self._replies else None
        if fault is None and reply is not None:
            fault = reply.fault
        return fault, reply

    def _respond(self, parsed: Mapping[str, Any]) -> ScriptedReply:
        if self._responder is None:
            self._responder = respond
        return self._responder(parsed)

    def _rejection(self, fault: Fault, retries: int) -> LLMError:
        """What the client makes of a rejected request: an error status, or no answer
        within its timeout (reported at once: nothing here waits for a socket)."""
        if fault.kind == "timeout":
            return timeout_error(self)
        from pixiu_cli.conversation.offline.server import error_body

        status = int(fault.status or 500)
        return status_error(self, status, retries, error_body(status)["error"]["message"], fault.retry_after)

    def _deliver(
        self, chunks: list[dict], reply: ScriptedReply, fault: Fault | None, outcome: CallOutcome, deadline: float
    ) -> Iterator[tuple[str, str]]:
        """The chunks through the client's own reader, cut where the fault cuts them."""
        state = wire.StreamState()
        cut = fault.after_chunks if fault is not None and fault.kind in ("drop_stream", "malformed_chunk") else None
        for sent, chunk in enumerate(chunks):
            if cut is not None and sent >= cut:
                break
            if sent and reply.chunk_delay:
                time.sleep(reply.chunk_delay)
            if time.monotonic() > deadline:
                raise self._deadline_error()
            yield from self._events([json.dumps(chunk, ensure_ascii=False)], outcome, state)
        if fault is not None and fault.kind == "drop_stream":
            raise LLMError(DROPPED, kind="dropped")
        yield from self._events([BROKEN_EVENT if cut is not None else "[DONE]"], outcome, state)
        if outcome.finish_reason is None or not state.done:
            raise LLMError(DROPPED, kind="dropped")
