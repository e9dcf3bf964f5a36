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

from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.conversation.context.account_history import asked_periods, returns_section
from pixiu_cli.conversation.context.block import (
    ContextBlock,
    MemoryId,
    Section,
    assemble,
    delta_block,
    is_context_message,
    parsed_digests,
)
from pixiu_cli.conversation.context.memory_classes import PRIORITY, Asked, MemoryAssembler, MemoryLimits, applied_moves
from pixiu_cli.conversation.context.quoting import clipped_message, text
from pixiu_cli.conversation.context.sections import BriefObjects, with_topics, withdrawn_section
from pixiu_cli.conversation.context.watch import watch_holders, watch_section, watched
from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.conversation.selection.select import Selection, select
from pixiu_cli.conversation.selection.targets import ACCOUNT, PERFORMANCE, WATCHLIST
from pixiu_cli.conversation.selection.windows import GOVERNED
from pixiu_cli.conversation.store import Conversation, ConversationStore, Turn
from pixiu_cli.home.handle import Home
from pixiu_cli.kernel.clock import Clock, system_clock
from pixiu_cli.kernel.resources import prompts_dir, read_prompt
from pixiu_cli.market.calendar import SHANGHAI, last_complete_session
from pixiu_cli.market.handle import Market
from pixiu_cli.market.names.table import Holder, NameSource
from pixiu_cli.memory.handle import Memory

if TYPE_CHECKING:
    from pixiu_cli.account.handle import Account
    from pixiu_cli.home.handle import InvestorStore
    from pixiu_cli.market.handle import Market, SecurityMaster
    from pixiu_cli.memory.handle import Memory


@cache
def system_prompt() -> str:
    return read_prompt("system.md")


@cache
def scene_fragment(intent: Intent, targets=()) -> str | None:
    """The scene of the question's intent; a question about the account's returns has its own."""
    name = PERFORMANCE if PERFORMANCE in targets else intent.value
    path = prompts_dir() / "scenes" / f"{name}.md"
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
    def memory_ids(self) -> list[MemoryId]:
        return self.context_block.memory_ids if self.context_block else []

    def block_record(self, added: list[dict]) -> dict | None:
        """What later turns need to know about the block (see ContextBlock.record), if
        `added`, the messages the turn keeps in the history, carry it."""
        if self.context_block is None or not any(is_context_message(m) for m in added):
            return None
        return self.context_block.record()


HISTORY_BLOCK_POLICIES = ("keep", "drop", "delta")
# What an ablation can remove: a section key, "symbol_context" for every symbol:* section, or
# "all" for the whole [上下文信息] block (answer evals measure what each part is worth).
ABLATE_ALL = "all"
SYMBOL_CONTEXT = "symbol_context"


def ablated(key: str, ablate: frozenset[str]) -> bool:
    """ "notes" stands for all the user's own notes, rules (their own section) included."""
    return (
        key in ablate
        or (key.startswith("symbol:") and SYMBOL_CONTEXT in ablate)
        or (key == "rules" and "notes" in ablate)
    )


def history_messages(
    store: ConversationStore,
    conversation_id: int,
    before_seq: int | None = None,
    keep_context_blocks: bool = True,
    after_seq: int = 0,
) -> list[dict]:
    """Earlier turns as they were sent (those after the summarised ones)."""
    turns = store.turns(conversation_id, after_seq=after_seq, before_seq=before_seq, replies=False)
    return _messages(turns, keep_context_blocks)


def sent_back(messages: list[dict]) -> list[dict]:
    """One turn's messages as later requests carry them. DeepSeek's thinking mode needs the
    reasoning of a turn that called tools in every later request, byte for byte (a 400
    otherwise); a turn without tool calls sends none, as the API ignores it there."""
    if any(m.get("tool_calls") for m in messages):
        return messages
    return [{k: v for k, v in m.items() if k != "reasoning_content"} for m in messages]


def _messages(turns: list[Turn], keep_context_blocks: bool) -> list[dict]:
    """The turns' messages as they were sent, each turn's reasoning as `sent_back` keeps it."""
    return [
        clipped_message(message)
        for turn in turns
        for message in sent_back(turn.messages)
        if keep_context_blocks or not is_context_message(message)
    ]


def _previously_sent(turns: list[Turn]) -> tuple[dict[str, str], dict[str, int]]:
    """Section title → digest of its last sent rendering, and title → the turn that sent it,
    from the block records stored with the turns. A turn stored without one (before
    records were kept, or cut off by a killed process) has its block text parsed instead."""
    digests: dict[str, str] = {}
    sent_in: dict[str, int] = {}
    for turn in turns:
        blocks = [m for m in turn.messages if is_context_message(m)]
        if not blocks:
            continue
        if turn.block:
            sent = turn.block["sections"]
        else:
            sent = {title: digest for m in blocks for title, digest in parsed_digests(m["content"]).items()}
        digests.update(sent)
        sent_in.update(dict.fromkeys(sent, turn.seq))
    return digests, sent_in


def _asks_account(selection: Selection) -> bool:
    """The question is about the account as a whole: the holdings lines and the total."""
    return bool(selection.overview) or selection.intent == Intent.PORTFOLIO_REVIEW or ACCOUNT in selection.targets


def asked_first(sections: list[Section], budget: int) -> list[Section]:
    """Budget priority by what the question asked, for a question about the account: the
    holdings lines and the total are kept whole before anything else the block can lose,
    then the scene; the generic sections and the profiles are cut first. When the full lines
    cannot all fit, each holding gets its compact line (the section says so) rather than any
    being dropped. Only when even those cannot fit (hundreds of holdings) do the sections keep
    their usual priorities: the largest positions, the rest summed up in one line."""
    holdings = next((s for s in sections if s.key == "holdings"), None)
    for form in (holdings, holdings.compact) if holdings is not None else ():
        if form is None:
            continue
        raised = [_raised(form if s is holdings else s) for s in sections]
        if "holdings" not in assemble(raised, budget).omitted:
            return raised
    return sections


def asked_classes_first(sections: list[Section], targets) -> list[Section]:
    """The sections of the memory classes the question asks about (selection/windows.py
    `GOVERNED`: the trades and decisions, the reports, the news, the notes, the alerts) rise
    above the stocks' sections and the profiles when the budget is short."""
    keys = {key for target in targets for key in GOVERNED.get(target, ())}
    raised = PRIORITY["asked_class"]
    return [replace(s, priority=raised) if s.key in keys and s.priority < raised else s for s in sections]


def _raised(section: Section) -> Section:
    if section.key in ("holdings", "scene"):
        return replace(section, priority=PRIORITY[f"asked_{section.key}"])
    return section


def _worth_saying(account) -> bool:
    """A valuation adds to the holding lines only with a price or the cash known."""
    return account.cash is not None or any(h.priced for h in account.holdings)


def _market_over(domain: InvestorStore) -> Market:

    return Market(domain.db, home=Home(domain.db, investor=domain))


def _memory_over(domain: InvestorStore, market: Market) -> Memory:

    return Memory(domain.db, home=market.home, market=market)


class ContextBuilder:
    def __init__(
        self,
        store: ConversationStore,
        domain: InvestorStore,
        limits: MemoryLimits | None = None,
        clock: Clock | None = None,
        history_blocks: str = "delta",
        account: Account | None = None,
        prices=None,
        ablate: frozenset[str] = frozenset(),
        names_cache: Path | None = None,
        market: Market | None = None,
        memory: Memory | None = None,
    ):
        """history_blocks: what happens to earlier turns' [上下文信息] blocks — "keep" them as
        sent, "drop" them, or keep them and send only the sections that changed ("delta").
        prices: a callable giving symbol → latest price where one is known, so positions
        are weighted by market value (by cost × shares without it).
        ablate: parts of the block never to send (see `ablated`); empty in normal use.
        names_cache: where built name tables are kept between processes (None: not kept).
        market, memory: the workspace's (a builder made alone over `domain` makes its own)."""
        if history_blocks not in HISTORY_BLOCK_POLICIES:
            raise ValueError(f"history_blocks must be one of {HISTORY_BLOCK_POLICIES}")
        self.store = store
        self.domain = domain
        self.limits = limits or MemoryLimits()
        self.clock = clock or system_clock
        self.history_blocks = history_blocks
        self.account = account  # the account's derivation (account/api.py), or None: the stated holdings
        self.prices = prices
        self.market = market or _market_over(domain)
        self.memory = memory or _memory_over(domain, self.market)
        self.names = NameSource(self.market.securities, cache_dir=names_cache)
        self.ablate = frozenset(ablate)

    def select(
        self,
        user_text: str,
        earlier: tuple[str, ...] | list[str] = (),
        holdings=None,
        watch=None,
        now=None,
        closed: tuple[str, ...] = (),
    ) -> Selection:
        """Symbols, intent and overview for a message (and why), given the earlier questions.
        Watched stocks and the positions the ledger closed (`closed`) are named like holdings
        (context/watch.py). With `now`, the windows its time words move, and the stocks the
        briefs an earlier turn read named."""
        holdings = self.domain.holdings() if holdings is None else holdings
        watch = watched(self.market) if watch is None else watch
        held = {text(h.symbol) for h in holdings}
        named = [*holdings, *watch_holders(watch, self.names, held), *self._closed_holders(closed, held)]
        named += self._noted_holders({text(h.symbol) for h in named})
        table = self.names.table(named)
        if now is None:
            return select(user_text, table, earlier=earlier)
        objects = BriefObjects(self.domain, table, self.limits, now)
        return select(user_text, table, earlier=earlier, today=now.date(), objects=objects)

    def _closed_holders(self, closed: tuple[str, ...], held: set[str]) -> list[Holder]:
        """Positions sold out of, named as the user named them while held (a closed holding
        row keeps its short names) or by the security master."""
        rows = {text(h.symbol): h for h in self.domain.holdings()} if closed else {}
        return [
            Holder(s, self.names.security_name(s) or "", tuple(rows[s].short_names) if s in rows else ())
            for s in closed
            if s not in held
        ]

    def _noted_holders(self, named: set[str]) -> list[Holder]:
        """The stocks the user's notes and decisions name and nothing else does: the rest of
        the investor's own universe, whose everyday forms are matched recall-first too."""
        return [Holder(s, self.names.security_name(s) or "", ()) for s in self.domain.noted_symbols() if s not in named]

    def _named(self, holdings: list) -> list:
        """Holdings recorded without a name (a trade that named none stores the code as its
        name) under the security master's or the shipped list's name, where one is known."""
        return [
            replace(h, name=self.names.security_name(h.symbol) or h.name)
            if text(h.name).strip() in ("", text(h.symbol))
            else h
            for h in holdings
        ]

    def _unheld_names(self, symbols: list[str], holdings) -> dict[str, str]:
        """Names of mentioned stocks the user does not hold, so their sections say what they are."""
        held = {text(h.symbol) for h in holdings}
        found = {s: self.names.security_name(s) for s in symbols if s not in held}
        return {s: name for s, name in found.items() if name}

    def context_block(
        self,
        user_text: str,
        summary: str | None = None,
        now: datetime | None = None,
        earlier: tuple[str, ...] | list[str] = (),
        withdrawn: Section | None = None,
    ) -> tuple[ContextBlock, Intent, list[str]]:
        block, selection = self.selected_block(user_text, summary, now, earlier, withdrawn)
        return block, selection.intent, selection.symbols

    def selected_block(
        self,
        user_text: str,
        summary: str | None = None,
        now: datetime | None = None,
        earlier: tuple[str, ...] | list[str] = (),
        withdrawn: Section | None = None,
    ) -> tuple[ContextBlock, Selection]:
        now = (now or self.clock()).astimezone(SHANGHAI)
        account = self.account.read(now) if self.account else None
        holdings = list(account.holdings) if account is not None else self._named(self.domain.holdings())
        watch = watched(self.market)
        closed = tuple(p.symbol for p in account.account.closed) if account is not None else ()
        selection = self.select(user_text, earlier, holdings, watch, now, closed)
        selection = replace(selection, windows=applied_moves(selection.windows, self.limits, now))
        prices = self.prices() if self.prices else None
        asked = Asked(
            frozenset(selection.targets),
            {w.section: w for w in selection.windows},
            self.account.history if self.account else None,
            tuple(cue.matched for cue in selection.topics.cues),
        )
        sections = MemoryAssembler(self.domain, self.limits, prices).sections(
            now=now,
            symbols=selection.symbols,
            intent=selection.intent,
            holdings=holdings,
            summary=summary,
            scene=scene_fragment(selection.intent, selection.targets),
            overview=selection.overview,
            compact_overview=selection.compact_overview,
            names=self._unheld_names(selection.symbols, holdings),
            valuation=account if account is not None and _worth_saying(account.account) else None,
            watched=watch,
            asked=asked,
        )
        sections = with_topics(sections, selection, self.market, holdings, account, now)
        if WATCHLIST in selection.targets:
            sections.append(watch_section(watch, self.names, self.domain, now.date()))
        if PERFORMANCE in selection.targets and self.account is not None:
            periods = asked_periods(user_text, last_complete_session(now))
            sections.append(returns_section(self.account.performance, now, periods))
        if withdrawn is not None:  # right after the time: never trimmed, read before the rest
            sections.insert(1, withdrawn)
        if self.ablate:
            sections = [s for s in sections if not ablated(s.key, self.ablate)]
        sections = asked_classes_first(sections, selection.targets)
        if _asks_account(selection):
            sections = asked_first(sections, self.limits.budget_tokens)
        return assemble(sections, self.limits.budget_tokens), selection

    @property
    def securities(self) -> SecurityMaster:
        return self.names.master

    def count_injection(self, built: BuiltMessages) -> None:
        """Count each note and trade the block put in front of the model (their use, for /memory)."""
        ids = built.memory_ids
        self.domain.count_injection(
            [m.id for m in ids if m.kind == "note"], [m.id for m in ids if m.kind == "decision"]
        )

    def carried_later(self, messages: list[dict]) -> list[dict]:
        """Of a turn's messages, those later requests will carry: under "drop" earlier
        [上下文信息] blocks are not sent."""
        return [clipped_message(m) for m in messages if self.history_blocks != "drop" or not is_context_message(m)]

    def build_messages(
        self,
        conversation_id: int | None,
        user_text: str,
        before_seq: int | None = None,
        now: datetime | None = None,
        conversation: Conversation | None = None,
    ) -> BuiltMessages:
        """`conversation`: the conversation as the caller has just read it (read here if None)."""
        turns: list[Turn] = []
        if conversation is None and conversation_id:
            conversation = self.store.get_conversation(conversation_id)
        if conversation is not None:
            turns = self.store.turns(
                conversation.id, after_seq=conversation.summary_upto_turn or 0, before_seq=before_seq, replies=False
            )
        earlier_messages = _messages(turns, self.history_blocks != "drop")
        withdrawn = withdrawn_section(self.memory, earlier_messages) if earlier_messages else None
        earlier = [
            m["content"]
            for m in earlier_messages
            if m.get("role") == "user" and isinstance(m.get("content"), str) and not is_context_message(m)
        ]
        block, selection = self.selected_block(
            user_text, conversation.summary if conversation else None, now, earlier, withdrawn
        )
        if self.history_blocks == "delta":
            block = delta_block(block, *_previously_sent(turns))
        sent_block = [] if ABLATE_ALL in self.ablate else [{"role": "user", "content": block.text}]
        messages = [
            {"role": "system", "content": system_prompt()},
            *earlier_messages,
            *sent_block,
            {"role": "user", "content": user_text},
        ]
        return BuiltMessages(
            messages=messages,
            history_count=len(earlier_messages),
            context_block=block if sent_block else None,
            intent=selection.intent,
            symbols=selection.symbols,
            selection=selection,
        )
