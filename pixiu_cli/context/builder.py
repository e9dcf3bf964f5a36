"""build_messages: the static prefix, the history, the dynamic block, the user's message.

    system   prompts/system.md            byte-identical on every call, for every user
    history  earlier turns as sent        so turn N+1 reuses turn N's cached prefix
    user     [上下文信息] … [/上下文信息]   time · holdings · persona · memory · summary · scene
    user     the real question

Static first so the provider's prefix cache can reuse it; everything that changes goes
last. The per-intent scene fragment lives in the dynamic block, never in a second system
message (DeepSeek hoists every system message to the front, which would break the prefix
whenever the intent changes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from zoneinfo import ZoneInfo

from pixiu_cli.context.block import ContextBlock, assemble, delta_block, sent_sections
from pixiu_cli.context.inspect import is_context_message
from pixiu_cli.context.intent import Intent, detect_intent
from pixiu_cli.context.memory import MemoryAssembler, MemoryLimits
from pixiu_cli.context.symbols import HoldingName, extract_symbols
from pixiu_cli.resources import prompts_dir, read_prompt
from pixiu_cli.store.conversations import ConversationStore
from pixiu_cli.store.domain import DomainStore

SHANGHAI = ZoneInfo("Asia/Shanghai")


@cache
def system_prompt() -> str:
    return read_prompt("system.md")


@cache
def scene_fragment(intent: Intent) -> str | None:
    path = prompts_dir() / "scenes" / f"{intent.value}.md"
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


@dataclass(frozen=True)
class BuiltMessages:
    messages: list[dict]
    history_count: int
    context_block: ContextBlock | None = None
    intent: Intent = Intent.GENERAL
    symbols: list[str] = field(default_factory=list)

    @property
    def memory_ids(self) -> list[str]:
        return self.context_block.memory_ids if self.context_block else []


HISTORY_BLOCK_POLICIES = ("keep", "drop", "delta")
# What an ablation can remove: a section key, "symbol_context" for every symbol:* section, or
# "all" for the whole [上下文信息] block (answer evals measure what each part is worth).
ABLATE_ALL = "all"
SYMBOL_CONTEXT = "symbol_context"


def ablated(key: str, ablate: frozenset[str]) -> bool:
    return key in ablate or (key.startswith("symbol:") and SYMBOL_CONTEXT in ablate)


def history_messages(store: ConversationStore, conversation_id: int, before_seq: int | None = None,
                     keep_context_blocks: bool = True, after_seq: int = 0) -> list[dict]:
    """Earlier turns as they were sent (those after the summarised ones). Reasoning is
    dropped between user turns (the API wants it back only inside one turn's tool loop)."""
    history: list[dict] = []
    for turn in store.turns(conversation_id):
        if before_seq is not None and turn.seq >= before_seq:
            break
        if turn.seq <= after_seq:
            continue
        for message in turn.messages:
            if not keep_context_blocks and is_context_message(message):
                continue
            history.append({k: v for k, v in message.items() if k != "reasoning_content"})
    return history


class ContextBuilder:
    def __init__(self, store: ConversationStore, domain: DomainStore, limits: MemoryLimits | None = None,
                 clock=None, history_blocks: str = "delta", ablate: frozenset[str] = frozenset()):
        """history_blocks: what happens to earlier turns' [上下文信息] blocks — "keep" them as
        sent, "drop" them, or keep them and send only the sections that changed ("delta").
        ablate: parts of the block never to send (see `ablated`); empty in normal use."""
        if history_blocks not in HISTORY_BLOCK_POLICIES:
            raise ValueError(f"history_blocks must be one of {HISTORY_BLOCK_POLICIES}")
        self.store = store
        self.domain = domain
        self.limits = limits or MemoryLimits()
        self.clock = clock or (lambda: datetime.now(SHANGHAI))
        self.history_blocks = history_blocks
        self.ablate = frozenset(ablate)

    def context_block(self, user_text: str, summary: str | None = None, now: datetime | None = None
                      ) -> tuple[ContextBlock, Intent, list[str]]:
        now = (now or self.clock()).astimezone(SHANGHAI)
        holdings = self.domain.holdings()
        names = [HoldingName(h.symbol, h.name, h.short_names) for h in holdings]
        symbols = extract_symbols(user_text, names)
        intent = detect_intent(user_text, symbols)
        sections = MemoryAssembler(self.domain, self.limits).sections(
            now=now, symbols=symbols, intent=intent, holdings=holdings, summary=summary,
            scene=scene_fragment(intent))
        if self.ablate:
            sections = [s for s in sections if not ablated(s.key, self.ablate)]
        return assemble(sections, self.limits.budget_tokens), intent, symbols

    def build_messages(self, conversation_id: int | None, user_text: str, before_seq: int | None = None,
                       now: datetime | None = None) -> BuiltMessages:
        history: list[dict] = []
        summary = None
        if conversation_id:
            conversation = self.store.get_conversation(conversation_id)
            summary = conversation.summary if conversation else None
            history = history_messages(self.store, conversation_id, before_seq, self.history_blocks != "drop",
                                       after_seq=conversation.summary_upto_turn if conversation else 0)
        block, intent, symbols = self.context_block(user_text, summary, now)
        if self.history_blocks == "delta":
            previously_sent: dict[str, str] = {}
            for message in history:
                if is_context_message(message):
                    previously_sent.update(sent_sections(message["content"]))
            block = delta_block(block, previously_sent)
        sent_block = [] if ABLATE_ALL in self.ablate else [{"role": "user", "content": block.text}]
        messages = [{"role": "system", "content": system_prompt()}, *history, *sent_block,
                    {"role": "user", "content": user_text}]
        return BuiltMessages(messages=messages, history_count=len(history),
                             context_block=None if sent_block == [] else block, intent=intent,
                             symbols=symbols)
