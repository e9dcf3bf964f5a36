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

from pixiu_cli.context.block import ContextBlock, Section, assemble, delta_block, sent_sections
from pixiu_cli.context.inspect import is_context_message
from pixiu_cli.context.intent import Intent
from pixiu_cli.context.memory import MemoryAssembler, MemoryLimits
from pixiu_cli.context.names import NameSource
from pixiu_cli.context.selection import Selection, select
from pixiu_cli.context.values import text
from pixiu_cli.context.withdrawals import withdrawn_section
from pixiu_cli.resources import prompts_dir, read_prompt
from pixiu_cli.store.conversations import ConversationStore
from pixiu_cli.store.domain import DomainStore
from pixiu_cli.store.securities import SecurityMaster

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
    selection: Selection | None = None

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
    return [message for _, message in _history(store, conversation_id, before_seq, keep_context_blocks, after_seq)]


def _history(store: ConversationStore, conversation_id: int, before_seq: int | None, keep_context_blocks: bool,
             after_seq: int) -> list[tuple[int, dict]]:
    """history_messages, each with the seq of the turn it belongs to."""
    history: list[tuple[int, dict]] = []
    for turn in store.turns(conversation_id, after_seq=after_seq, before_seq=before_seq):
        for message in turn.messages:
            if not keep_context_blocks and is_context_message(message):
                continue
            history.append((turn.seq, {k: v for k, v in message.items() if k != "reasoning_content"}))
    return history


class ContextBuilder:
    def __init__(self, store: ConversationStore, domain: DomainStore, limits: MemoryLimits | None = None,
                 clock=None, history_blocks: str = "delta", valuer=None, prices=None,
                 ablate: frozenset[str] = frozenset()):
        """history_blocks: what happens to earlier turns' [上下文信息] blocks — "keep" them as
        sent, "drop" them, or keep them and send only the sections that changed ("delta").
        prices: a callable giving symbol → latest price where one is known, so positions
        are weighted by market value (by cost × shares without it).
        ablate: parts of the block never to send (see `ablated`); empty in normal use."""
        if history_blocks not in HISTORY_BLOCK_POLICIES:
            raise ValueError(f"history_blocks must be one of {HISTORY_BLOCK_POLICIES}")
        self.store = store
        self.domain = domain
        self.limits = limits or MemoryLimits()
        self.clock = clock or (lambda: datetime.now(SHANGHAI))
        self.history_blocks = history_blocks
        self.valuer = valuer  # (holdings, now) -> PortfolioValue on stored prices, or None
        self.prices = prices
        self.names = NameSource(SecurityMaster(domain.db))
        self.ablate = frozenset(ablate)

    def select(self, user_text: str, earlier: tuple[str, ...] | list[str] = (), holdings=None) -> Selection:
        """Symbols, intent and overview for a message (and why), given the earlier questions."""
        holdings = self.domain.holdings() if holdings is None else holdings
        return select(user_text, self.names.table(holdings), earlier=earlier)

    def _unheld_names(self, symbols: list[str], holdings) -> dict[str, str]:
        """Names of mentioned stocks the user does not hold, so their sections say what they are."""
        held = {text(h.symbol) for h in holdings}
        found = {s: self.names.master.get(s) for s in symbols if s not in held}
        return {s: sec.name for s, sec in found.items() if sec is not None}

    def context_block(self, user_text: str, summary: str | None = None, now: datetime | None = None,
                      earlier: tuple[str, ...] | list[str] = (), withdrawn: Section | None = None
                      ) -> tuple[ContextBlock, Intent, list[str]]:
        block, selection = self.selected_block(user_text, summary, now, earlier, withdrawn)
        return block, selection.intent, selection.symbols

    def selected_block(self, user_text: str, summary: str | None = None, now: datetime | None = None,
                       earlier: tuple[str, ...] | list[str] = (), withdrawn: Section | None = None
                       ) -> tuple[ContextBlock, Selection]:
        now = (now or self.clock()).astimezone(SHANGHAI)
        holdings = self.domain.holdings()
        selection = self.select(user_text, earlier, holdings)
        prices = self.prices() if self.prices else None
        sections = MemoryAssembler(self.domain, self.limits, prices).sections(
            now=now, symbols=selection.symbols, intent=selection.intent, holdings=holdings, summary=summary,
            scene=scene_fragment(selection.intent), overview=selection.overview,
            names=self._unheld_names(selection.symbols, holdings),
            valuation=self.valuer(holdings, now) if self.valuer and holdings else None)
        if withdrawn is not None:  # right after the time: never trimmed, read before the rest
            sections.insert(1, withdrawn)
        if self.ablate:
            sections = [s for s in sections if not ablated(s.key, self.ablate)]
        return assemble(sections, self.limits.budget_tokens), selection

    def build_messages(self, conversation_id: int | None, user_text: str, before_seq: int | None = None,
                       now: datetime | None = None) -> BuiltMessages:
        history: list[tuple[int, dict]] = []
        summary = None
        if conversation_id:
            conversation = self.store.get_conversation(conversation_id)
            summary = conversation.summary if conversation else None
            history = _history(self.store, conversation_id, before_seq, self.history_blocks != "drop",
                               conversation.summary_upto_turn if conversation else 0)
        earlier_messages = [m for _, m in history]
        withdrawn = withdrawn_section(self.domain, earlier_messages) if history else None
        earlier = [m["content"] for m in earlier_messages
                   if m.get("role") == "user" and isinstance(m.get("content"), str) and not is_context_message(m)]
        block, selection = self.selected_block(user_text, summary, now, earlier, withdrawn)
        intent, symbols = selection.intent, selection.symbols
        if self.history_blocks == "delta":
            previously_sent: dict[str, str] = {}
            sent_in: dict[str, int] = {}
            for seq, message in history:
                if is_context_message(message):
                    sent = sent_sections(message["content"])
                    previously_sent.update(sent)
                    sent_in.update(dict.fromkeys(sent, seq))
            block = delta_block(block, previously_sent, sent_in)
        sent_block = [] if ABLATE_ALL in self.ablate else [{"role": "user", "content": block.text}]
        messages = [{"role": "system", "content": system_prompt()}, *earlier_messages, *sent_block,
                    {"role": "user", "content": user_text}]
        return BuiltMessages(messages=messages, history_count=len(history),
                             context_block=block if sent_block else None, intent=intent, symbols=symbols,
                             selection=selection)
