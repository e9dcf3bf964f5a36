"""Why did a call miss the cache? Compare its request, token-exact with DeepSeek's
tokenizer over DeepSeek's serialisation, with the previous call's request plus its reply,
and name the first difference. Worked out once, when the call finishes: the shared lines
are counted from the stored per-line counts and only the first differing line is encoded
(tokens.common_prefix_tokens), so it is cheap enough to do on the turn's thread."""

from __future__ import annotations

import json
import queue
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.conversation.context.quoting import HISTORY_REPLY_CHARS
from pixiu_cli.conversation.llm.template import MARKERS, render_completion, render_prompt
from pixiu_cli.conversation.tokenizer.counts import (
    COMPARE_SLACK,
    EXPLAIN_CHARS,
    NeedsTokenizer,
    Spend,
    common_prefix_tokens,
    markers_pattern,
    remember_segments,
)

if TYPE_CHECKING:  # `pixiu cache` reads stored explanations: the store and context load when explaining
    from pixiu_cli.conversation.handle import CallRecord, ConversationStore

UNIT = 64
# How much of a call's reply a later request can share with it: no message carries more of
# one reply (context/oversize.py), so the rest of a reply of megabytes is never read here.
REPLY_REACH = HISTORY_REPLY_CHARS + COMPARE_SLACK
CAUSES = {
    "first_call": "首次调用",
    "new_conversation": "新对话（只有系统提示和工具可复用）",
    "append_only": "只在末尾追加，前缀完整复用",
    "model_or_params": "模型或参数变化",
    "system_changed": "系统提示变化",
    "tools_changed": "工具列表变化",
    "history_rewritten": "历史被改写（压缩或编辑）",
    "context_block_changed": "较早的 [上下文信息] 块被修改或删除",
    "turn_withdrawn": "上一轮已用 /retry 或 /undo 撤出历史（它的问题和回复不再发送）",
    "history_compacted": "压缩历史：较早的轮次已压缩为摘要（改由 [上下文信息] 的对话摘要发送）",
}


@dataclass(frozen=True)
class BreakExplanation:
    cause: str  # a key of CAUSES
    common_tokens: int  # tokens equal to a prefix of the previous request + reply
    predicted_hit: int  # common_tokens floored to the cache unit
    reported_hit: int | None
    detail: str = ""

    @property
    def label(self) -> str:
        return CAUSES[self.cause]

    @property
    def gap(self) -> int | None:
        """Reported minus predicted; None when the provider did not report."""
        return None if self.reported_hit is None else self.reported_hit - self.predicted_hit

    @property
    def flagged(self) -> bool:
        return self.gap is not None and abs(self.gap) >= UNIT


def explanation_json(e: BreakExplanation) -> str:
    return json.dumps(
        {"cause": e.cause, "common_tokens": e.common_tokens, "predicted_hit": e.predicted_hit, "detail": e.detail},
        ensure_ascii=False,
    )


def stored_explanation(call: CallRecord) -> BreakExplanation | None:
    """The explanation worked out when the call finished; None for rows older than that."""
    if not call.cache_explanation_json:
        return None
    try:
        data = json.loads(call.cache_explanation_json)
        return BreakExplanation(
            data["cause"],
            data["common_tokens"],
            data["predicted_hit"],
            call.usage.cache_hit_tokens,
            data.get("detail", ""),
        )
    except (ValueError, KeyError, TypeError):
        return None


def record_explanation(store, call_id: int, *, may_load: bool = True) -> None:
    """Explain a finished call once, so /cache reads it instead of re-tokenising two
    requests per call on every view. With may_load=False, a call that only the tokenizer
    could explain (it is not loaded) is left to /cache, which explains it once."""
    call = store.get_call(call_id)
    if call is None or call.status == "pending":
        return
    try:
        explanation = explain(store.previous_for_cache(call, REPLY_REACH), call, may_load=may_load)
    except NeedsTokenizer:
        return
    store.set_cache_explanation(call_id, explanation_json(explanation))


_queue: queue.Queue[tuple[str, int]] | None = None


def _worker(jobs) -> None:
    from pixiu_cli.conversation.handle import conversations_at

    stores: dict[str, ConversationStore] = {}
    while True:
        path, call_id = jobs.get()
        try:
            if path not in stores:
                if not Path(path).exists():  # deleted meanwhile: opening would create it again
                    continue
                stores[path] = conversations_at(Path(path))
            record_explanation(stores[path], call_id)
        except Exception:  # noqa: BLE001 - /cache works an explanation out itself when none is stored
            pass
        finally:
            if jobs.empty():  # idle: hold no database open, so its owner may close or delete it
                for store in stores.values():
                    store.db.close()
                stores.clear()
            jobs.task_done()


_one_shot = False


@contextmanager
def one_shot_explanations():
    """For a process that makes one turn and exits (`pixiu ask`): a worker thread could be
    cut off at exit, leaving the call unexplained, so the call is explained at once, on the
    turn's thread (a line or two to encode, see explain), unless that would load the
    tokenizer (benchmarks/README.md has its cost): a repeated ask whose lines were all
    counted before does not, and leaves its call to /cache."""
    global _one_shot
    saved, _one_shot = _one_shot, True
    try:
        yield
    finally:
        _one_shot = saved


def explain_finished_call(store, call_id: int) -> None:
    """record_explanation off the turn's path (the REPL): a worker thread does it on a
    connection of its own. A one-shot process does it at once (one_shot_explanations). A
    REPL that exits first leaves the row without one, and /cache works it out once, as for
    rows stored before explanations were."""
    global _queue
    path = store.path
    if _one_shot or not path:  # not path: an in-memory database has no second connection
        try:
            record_explanation(store, call_id, may_load=not _one_shot)
        except Exception:  # noqa: BLE001 - an explanation is never worth failing a turn over
            pass
        return
    if _queue is None:
        _queue = queue.Queue()
        threading.Thread(target=_worker, args=(_queue,), name="pixiu-cache-explain", daemon=True).start()
    _queue.put((path, call_id))


def wait_for_explanations() -> None:
    """Block until every explanation asked for so far is stored: before a database is
    deleted (the live evals' throw-away copies), and in tests and benchmarks."""
    if _queue is not None:
        _queue.join()


def _system(request: dict) -> list:
    return [m.get("content") for m in request.get("messages", []) if m.get("role") == "system"]


def _rest(request: dict) -> list:
    return [m for m in request.get("messages", []) if m.get("role") != "system"]


def _params(request: dict) -> dict:
    return {k: v for k, v in request.items() if k not in ("messages", "tools", "stream", "stream_options")}


_AT_MARKERS = markers_pattern(MARKERS)


def previous_with_reply(call: CallRecord, limit: int | None = None) -> str:
    """The previous call's request and reply as the next request would start; with `limit`,
    only its first `limit` characters (a reply of megabytes is never rendered whole)."""
    tool_calls = json.loads(call.tool_calls_json) if call.tool_calls_json else []
    reply, reasoning = call.reply_text or "", call.reasoning_text or ""
    if limit is not None:
        reply, reasoning = reply[:limit], reasoning[:limit]
    text = render_prompt(call.request) + render_completion(reply, reasoning, tool_calls)
    return text if limit is None else text[:limit]


def _block_or_history(prev_rest: list, cur_rest: list, i: int) -> str:
    """At the first difference: if only a context block changed or vanished, the turns
    around it are still there; if the turns themselves are gone (compaction, an edit), the
    history was rewritten."""
    from pixiu_cli.conversation.context.block import is_context_message

    if not is_context_message(prev_rest[i]):
        return "history_rewritten"
    following = next((m for m in prev_rest[i + 1 :] if not is_context_message(m)), None)
    return "context_block_changed" if following is None or following in cur_rest[i:] else "history_rewritten"


def _summaries(request: dict) -> list[str]:
    """The conversation summaries a request's context blocks carry (the line under the
    summary section's heading), oldest first."""
    from pixiu_cli.conversation.context.block import is_context_message, message_text
    from pixiu_cli.conversation.context.memory_classes import SUMMARY_TITLE

    heading = f"\n## {SUMMARY_TITLE}\n"
    texts = [message_text(m) for m in request.get("messages", []) if is_context_message(m)]
    return [t.split(heading, 1)[1].split("\n", 1)[0] for t in texts if heading in t]


def _compacted(previous: CallRecord, current: CallRecord) -> bool:
    """A compaction ran between the two calls: the current request sends a summary the
    previous one never carried (each compaction writes a new one)."""
    if previous.conversation_id != current.conversation_id:
        return False
    now = _summaries(current.request)
    return bool(now) and now[-1] not in _summaries(previous.request)


def _withdrawn(previous: CallRecord, current: CallRecord, prev_rest: list, cur_rest: list) -> bool:
    """The previous call's turn left the history (/retry asks it again, /undo drops it): its
    question is not among the messages the next turn carries before its own question."""
    from pixiu_cli.conversation.context.block import is_context_message

    if previous.turn_id == current.turn_id or previous.conversation_id != current.conversation_id:
        return False
    asked = next((m for m in reversed(prev_rest) if m.get("role") == "user" and not is_context_message(m)), None)
    return asked is not None and asked not in cur_rest[:-1]


def explain(previous: CallRecord | None, current: CallRecord, *, may_load: bool = True) -> BreakExplanation:
    reported = current.usage.cache_hit_tokens
    prompt, spend = render_prompt(current.request), Spend(EXPLAIN_CHARS)  # one bound for the whole explanation
    remember_segments(prompt, _AT_MARKERS, spend)  # for the next call's explanation
    if previous is None:
        return BreakExplanation("first_call", 0, 0, reported)
    prev_req, cur_req = previous.request, current.request
    # The common prefix never runs past the request: the previous reply is read that far only.
    before = previous_with_reply(previous, len(prompt) + COMPARE_SLACK)
    common = common_prefix_tokens(before, prompt, _AT_MARKERS, may_load=may_load, spend=spend)
    predicted = (common // UNIT) * UNIT  # a common prefix is never longer than the request

    def result(cause: str, detail: str = "") -> BreakExplanation:
        return BreakExplanation(cause, common, predicted, reported, detail)

    if _params(prev_req) != _params(cur_req):
        changed = sorted(
            k
            for k in set(_params(prev_req)) | set(_params(cur_req))
            if _params(prev_req).get(k) != _params(cur_req).get(k)
        )
        return result("model_or_params", "、".join(changed))
    if _system(prev_req) != _system(cur_req):
        return result("system_changed")
    if (prev_req.get("tools") or []) != (cur_req.get("tools") or []):
        return result("tools_changed")
    return result(*_messages_cause(previous, current))


def _messages_cause(previous: CallRecord, current: CallRecord) -> tuple[str, str]:
    """Why the messages after the system prompt differ (the same model, system and tools):
    the cause and its detail."""
    prev_rest, cur_rest = _rest(previous.request), _rest(current.request)
    if _compacted(previous, current):
        return "history_compacted", ""
    if _withdrawn(previous, current, prev_rest, cur_rest):
        return "turn_withdrawn", ""
    for i, (a, b) in enumerate(zip(prev_rest, cur_rest)):
        if a != b:
            if current.conversation_id != previous.conversation_id:
                return "new_conversation", ""
            at = i + len(_system(current.request))
            return _block_or_history(prev_rest, cur_rest, i), f"第 {at} 条消息起不同"
    if len(cur_rest) < len(prev_rest):
        return "history_rewritten", "消息变少"
    if current.conversation_id != previous.conversation_id:
        return "new_conversation", ""
    return "append_only", ""
