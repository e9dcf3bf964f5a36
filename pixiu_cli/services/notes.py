"""Notes the user states (a view, a plan, a rule): one add path for `/remember` and the
`remember` tool, the stock found in the text by the same rules when nobody named it, and
the one confirmation line both show."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pixiu_cli.domain.plans import restates
from pixiu_cli.domain.vocabulary import NOTE_KIND_NAMES, NOTE_KINDS, NOTE_NAME
from pixiu_cli.services.errors import RequestError
from pixiu_cli.services.note_symbol import symbol_in_text
from pixiu_cli.store.domain import DomainStore
from pixiu_cli.store.memory import MemoryStore, NoteWrite, note_ref


@dataclass(frozen=True)
class NewNote:
    kind: str  # one of NOTE_KINDS
    text: str
    symbol: str | None  # None: the one stock the text names, if it names exactly one
    source: str  # user | model


def add_note(db, request: NewNote, at: str) -> NoteWrite:
    text = request.text.strip()
    if not text:
        raise RequestError("要记住的内容为空")
    if request.kind not in NOTE_KINDS:
        raise RequestError(f"记忆类型只能是 {' / '.join(NOTE_KINDS)}，而不是 {request.kind!r}")
    symbol = request.symbol or symbol_in_text(DomainStore(db), text)
    store = MemoryStore(db)
    write = store.add_note(note_kind=request.kind, text=text, symbol=symbol, source=request.source, at=at)
    if write.outcome == "added" and request.kind == "plan" and symbol:
        return _replacing_older_plans(store, write)
    return write


def _replacing_older_plans(store: MemoryStore, write: NoteWrite) -> NoteWrite:
    """A new plan that restates older ones for the same stock and action (other numbers)
    replaces them: only it is in force; /forget of it puts them back."""
    new = write.event
    older = [p for p in store.plans_in_force(new.symbol) if p.id != new.id and restates(p.text, new.text)]
    if not older:
        return write
    store.replace([p.id for p in older], new.id)
    return replace(write, replaced=tuple(older))


_VERBS = {"added": "已记住", "merged": "已合并到已有记忆", "unchanged": "已有相同记忆"}
_UNDO = {"added": "（/forget {ref} 可撤销）", "merged": "（/forget {ref} 撤销本次合并）", "unchanged": "（未改动）"}


def note_notice(write: NoteWrite) -> str:
    """The confirmation line of a note write (REPL, tool notice, `ask --json` notices)."""
    event, ref = write.event, note_ref(write.event.id)
    kind = NOTE_KIND_NAMES.get(event.note_kind, event.note_kind or NOTE_NAME)
    about = f"（{event.symbol}）" if event.symbol else ""
    line = f"{_VERBS[write.outcome]} #{ref}：{kind}{about} · {event.text}"
    if write.replaced:
        old = "、".join(f"#{note_ref(p.id)}「{p.text}」" for p in write.replaced)
        return f"{line}；替换了同一标的同方向的旧计划 {old}，旧计划不再注入（/forget {ref} 撤销，旧计划恢复）"
    return line + _UNDO[write.outcome].format(ref=ref)


def forget_notice(ref: str, forgotten) -> str:
    """The line /forget shows for a note (a merge undone, or the note deleted)."""
    if forgotten.action == "unmerged":
        return f"已撤销合并 #{ref}：恢复为「{forgotten.restored_text}」（再次 /forget {ref} 删除这条记忆）"
    back = "、".join(f"#{note_ref(i)}" for i in forgotten.reinstated)
    return f"已删除 #{ref}：{forgotten.event.text}" + (f"；旧计划 {back} 恢复有效" if back else "")


@dataclass(frozen=True)
class Pinned:
    ref: str
    pinned: bool
    text: str


def pin_note(db, typed: str, pinned: bool) -> Pinned:
    """Pin a note (injected whatever its age) or unpin it; a trade is not a note."""
    store = MemoryStore(db)
    ref = store.resolve(typed)
    if ref.kind != "n":
        raise RequestError(f"#{ref} 是交易记录，只有笔记可以置顶")
    event = store.set_pinned(ref.id, pinned)
    if event is None:
        raise RequestError(f"没有 ID 为 {ref} 的记忆（见 /memory）")
    return Pinned(str(ref), pinned, event.text)


def pin_notice(p: Pinned) -> str:
    if p.pinned:
        return f"已置顶 #{p.ref}：{p.text}（不受天数窗口限制，每轮都注入；/memory unpin {p.ref} 取消）"
    return f"已取消置顶 #{p.ref}：{p.text}"
