"""The stock a note is about when nobody said which: the one stock its text names, found
by the same rules as a turn's stocks (the turn's name table, `selection.select`): by code,
by a holding's name or short name, a security master name, a shipped nickname or a user's
alias, with a short name taken only on the same evidence a question would need.

Notes the user states (a view, a plan, a rule): one add path for `/remember` and the
`remember` tool, the stock found in the text by the same rules when nobody named it, and
the one confirmation line both show. A new plan that restates an older one only offers to
replace it (a tool call inside a streamed turn cannot stop for a y/N): the user accepts with
`/memory replace NEW`, and until then both plans are in force."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pixiu_cli.conversation.selection.select import select
from pixiu_cli.home.model import MemoryEvent
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import (
    AUTHOR_PROPOSAL,
    AUTHOR_USER,
    NOTE_KIND_NAMES,
    NOTE_KINDS,
    NOTE_NAME,
    PROPOSAL_NAME,
)
from pixiu_cli.market.names.table import NameSource
from pixiu_cli.memory.model import note_ref, restates
from pixiu_cli.memory.store import MemoryStore, NoteWrite


def symbol_in_text(memory: Memory, text: str) -> str | None:
    """The one stock `text` names, or None when it names none or several (a note comparing
    two stocks belongs to neither)."""
    table = NameSource(memory.market.securities).table(memory.investor.holdings())
    found = select(text, table).symbols
    return found[0] if len(found) == 1 else None


if TYPE_CHECKING:
    from pixiu_cli.kernel.settings import Commission
    from pixiu_cli.memory.handle import Memory


@dataclass(frozen=True)
class NewNote:
    kind: str  # one of NOTE_KINDS
    text: str
    symbol: str | None  # None: the one stock the text names, if it names exactly one
    source: str  # user | model
    author: str = AUTHOR_USER  # who wrote it (vocabulary.AUTHORS): the model's is grounded or a proposal


def add_note(memory: Memory, request: NewNote, at: str) -> NoteWrite:
    text = request.text.strip()
    if not text:
        raise RequestError("要记住的内容为空")
    if request.kind not in NOTE_KINDS:
        raise RequestError(f"记忆类型只能是 {' / '.join(NOTE_KINDS)}，而不是 {request.kind!r}")
    symbol = request.symbol or symbol_in_text(memory, text)
    store = memory.store
    write = store.add_note(
        note_kind=request.kind, text=text, symbol=symbol, source=request.source, at=at, author=request.author
    )
    if write.outcome == "added" and write.event.author != AUTHOR_PROPOSAL and request.kind == "plan" and symbol:
        return _offering_to_replace(store, write)
    return write


def _offering_to_replace(store: MemoryStore, write: NoteWrite) -> NoteWrite:
    """A new plan that restates older ones for the same stock and action (other numbers)
    offers to replace them; they stay in force, marked, until the user accepts."""
    new = write.event
    older = [p for p in store.plans_in_force(new.symbol) if p.id != new.id and restates(p.text, new.text)]
    if not older:
        return write
    store.offer_replacement([p.id for p in older], new.id)
    return replace(write, offered=tuple(older))


def accept_proposal(memory: Memory, typed: str, at: str | None = None, commission: Commission | None = None):
    """The user takes the model's proposal as their own: from now on a note is shown as theirs
    (a plan then offers to replace the older plans it restates, as one the user wrote); a
    proposed trade or alert is made, once (services/proposals.py). Returns the NoteWrite, or
    the RecordedTrade or AddedAlert."""
    store = memory.store
    ref = store.resolve(typed)
    event = store.get(ref.id) if ref.kind == "n" else None
    if event is not None and event.kind == "proposal":
        from pixiu_cli.memory.proposals import accept_change

        return accept_change(memory, event, at or event.created_at, commission)
    if event is None or event.author != AUTHOR_PROPOSAL:
        raise RequestError(f"#{ref} 不是待确认的模型提议：/memory accept 后面写提议的 ID（见 /memory 的作者一栏）")
    accepted = store.accept(ref.id)
    if accepted is None:
        raise RequestError(f"#{ref} 不是待确认的模型提议（见 /memory）")
    write = NoteWrite(accepted, "added")
    if accepted.note_kind == "plan" and accepted.symbol:
        return _offering_to_replace(store, write)
    return write


def accept_notice(write: NoteWrite) -> str:
    event, ref = write.event, note_ref(write.event.id)
    kind = NOTE_KIND_NAMES.get(event.note_kind, event.note_kind or NOTE_NAME)
    line = f"已采纳 #{ref}：{kind} · {event.text}，现在算作你自己的{kind}（/forget {ref} 删除）"
    return line + _offer_text(write, ref)


@dataclass(frozen=True)
class Replacement:
    ref: str  # the plan now in force
    text: str
    replaced: tuple[MemoryEvent, ...]  # the older plans it replaced, as they were


def accept_replacement(memory: Memory, typed: str) -> Replacement:
    """The user accepts a plan's offer: the older plans it restates leave the block
    (/forget of the new plan puts them back)."""
    store = memory.store
    ref = store.resolve(typed)
    event = store.get(ref.id) if ref.kind == "n" else None
    if event is None or event.note_kind != "plan":
        raise RequestError(f"#{ref} 不是一条计划：memory replace 后面写新计划的 ID（见 /memory 或 pixiu memory list）")
    older = store.offers_of(ref.id)
    if not older:
        raise RequestError(f"#{ref} 没有待确认替换的旧计划（见 /memory）")
    store.replace([p.id for p in older], ref.id)
    return Replacement(str(ref), event.text, tuple(older))


def plans_text(plans) -> str:
    """Plans named by their reference and words, as the confirmation lines name them."""
    return "、".join(f"#{note_ref(p.id)}「{p.text}」" for p in plans)


_VERBS = {"added": "已记住", "merged": "已合并到已有记忆", "unchanged": "已有相同记忆"}
_UNDO = {"added": "（/forget {ref} 可撤销）", "merged": "（/forget {ref} 撤销本次合并）", "unchanged": "（未改动）"}


def note_notice(write: NoteWrite) -> str:
    """The confirmation line of a note write (REPL, tool notice, `ask --json` notices)."""
    event, ref = write.event, note_ref(write.event.id)
    kind = NOTE_KIND_NAMES.get(event.note_kind, event.note_kind or NOTE_NAME)
    about = f"（{event.symbol}）" if event.symbol else ""
    if write.outcome == "added" and event.author == AUTHOR_PROPOSAL:
        return (
            f"{PROPOSAL_NAME} #{ref}：{kind}{about} · {event.text}——你这一轮的话里没有这些内容，"
            f"它不算你的{kind}，也不会注入对话；采纳：/memory accept {ref}，删除：/forget {ref}"
        )
    line = f"{_VERBS[write.outcome]} #{ref}：{kind}{about} · {event.text}"
    return line + _UNDO[write.outcome].format(ref=ref) + _offer_text(write, ref)


def _offer_text(write: NoteWrite, ref: str) -> str:
    if not write.offered:
        return ""
    return (
        f"。这条计划与 {plans_text(write.offered)}同一只股票同一方向，替换旧计划吗？"
        f"输入 /memory replace {ref}（脚本中用 pixiu memory replace {ref}）替换（之后 /forget {ref} 可撤销，旧计划恢复）；"
        "不替换则两条计划都有效"
    )


@dataclass(frozen=True)
class Pinned:
    ref: str
    pinned: bool
    text: str


def pin_note(memory: Memory, typed: str, pinned: bool) -> Pinned:
    """Pin a note (injected whatever its age) or unpin it; a trade is not a note."""
    store = memory.store
    ref = store.resolve(typed)
    if ref.kind != "n":
        raise RequestError(f"#{ref} 是交易记录，只有笔记可以置顶")
    event = store.set_pinned(ref.id, pinned)
    if event is None:
        raise RequestError(f"没有 ID 为 {ref} 的记忆（见 /memory）")
    return Pinned(str(ref), pinned, event.text)
