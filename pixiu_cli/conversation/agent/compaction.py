"""History compaction (摘要): when the history passes its budget, summarise one large old
chunk at once — one cache miss — instead of trimming a turn per call, which would miss
the cache on every call. The summary is stored on the conversation and shown in the
[上下文信息] block; the history then starts after the summarised turns."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pixiu_cli.conversation.agent.calls import ModelCaller, SilentSink
from pixiu_cli.conversation.context.quoting import clipped
from pixiu_cli.conversation.llm.model import ChatModel
from pixiu_cli.conversation.llm.types import ChatRequest
from pixiu_cli.conversation.store import Conversation, ConversationStore, Turn
from pixiu_cli.conversation.tokenizer.counts import count_message_tokens
from pixiu_cli.kernel.resources import read_prompt

SUMMARY_CHAR_LIMIT = 2400
SUMMARY_STEP = -1  # the step of a turn's summary call: answer calls count from 0


@dataclass(frozen=True)
class Compaction:
    upto_seq: int
    turns: int
    tokens_before: int
    tokens_after: int
    method: str  # model | extractive
    summary: str
    rows: tuple = ()  # the summary call's rows (conversation/store.py UsageRow), priced with the turn

    def applied_to(self, conversation: Conversation) -> Conversation:
        return replace(conversation, summary=self.summary, summary_upto_turn=self.upto_seq)


def transcript(turns: list[Turn]) -> str:
    lines = []
    for turn in turns:
        lines.append(f"第 {turn.seq} 轮 用户：{turn.user_text.strip()}")
        if turn.reply_text:
            lines.append(f"第 {turn.seq} 轮 助理：{clipped(turn.reply_text.strip())}")
    return "\n".join(lines)


def extractive_summary(previous: str | None, turns: list[Turn]) -> str:
    """Offline and fallback summary: the first sentence of each exchange, newest kept."""
    lines = [line for line in (previous or "").splitlines() if line.strip()]
    for turn in turns:
        asked = " ".join(turn.user_text.split())[:80]
        answered = " ".join((turn.reply_text or "").split())[:80]
        lines.append(f"- 第 {turn.seq} 轮：用户问「{asked}」" + (f"；助理答「{answered}」" if answered else ""))
    text = "\n".join(lines)
    while len(text) > SUMMARY_CHAR_LIMIT and len(lines) > 1:
        lines.pop(0)
        text = "\n".join(lines)
    return text


class Compactor:
    def __init__(
        self, store: ConversationStore, client: ChatModel | None, *, budget_tokens: int, keep_ratio: float = 0.4
    ):
        self.store = store
        self.client = client
        self.budget_tokens = budget_tokens
        self.keep_ratio = keep_ratio

    def maybe_compact(self, conversation: Conversation, turn: Turn) -> Compaction | None:
        """`conversation` as read at the start of the turn; the compacted one is
        `compaction.applied_to(conversation)`, without reading it again."""
        total = self.store.history_tokens_after(conversation.id, conversation.summary_upto_turn)
        if total <= self.budget_tokens:
            return None
        earlier = self.store.turns(conversation.id, after_seq=conversation.summary_upto_turn, before_seq=turn.seq)
        chunk, remaining = [], total
        for old in earlier:
            if remaining <= self.budget_tokens * self.keep_ratio:
                break
            chunk.append(old)
            remaining -= old.history_tokens or 0
        if not chunk:
            return None
        summary, method, rows = self._summarise(conversation.summary, chunk, turn)
        self.store.set_summary(conversation.id, summary, chunk[-1].seq)
        return Compaction(chunk[-1].seq, len(chunk), total, remaining, method, summary, rows)

    def _summarise(self, previous: str | None, chunk: list[Turn], turn: Turn) -> tuple[str, str, tuple]:
        if self.client is None or self.client.provider == "offline":
            return extractive_summary(previous, chunk), "extractive", ()
        material = (f"已有摘要：\n{previous}\n\n" if previous else "") + "需要压缩的对话：\n" + transcript(chunk)
        request = ChatRequest(
            messages=[{"role": "system", "content": read_prompt("summarize.md")}, {"role": "user", "content": material}]
        )
        result = ModelCaller(self.store, self.client).call(turn, SUMMARY_STEP, request, SilentSink())
        if result.status == "interrupted":  # Ctrl-C while summarising stops the turn, as while answering
            raise result.stop()
        if result.status != "complete" or not result.outcome.text.strip():
            return extractive_summary(previous, chunk), "extractive", result.rows
        return result.outcome.text.strip()[:SUMMARY_CHAR_LIMIT], "model", result.rows


turn_history_tokens = count_message_tokens
