"""Notes the user states (a view, a plan, a rule): one add path for `/remember` and the
`remember` tool, the stock found in the text by the same rules when nobody named it, and
the one confirmation line both show."""

from __future__ import annotations

from dataclasses import dataclass

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
    return MemoryStore(db).add_note(note_kind=request.kind, text=text, symbol=symbol, source=request.source, at=at)


_VERBS = {"added": "已记住", "merged": "已合并到已有记忆", "unchanged": "已有相同记忆"}
_UNDO = {"added": "（/forget {ref} 可撤销）", "merged": "（/forget {ref} 撤销本次合并）", "unchanged": "（未改动）"}


def note_notice(write: NoteWrite) -> str:
    """The confirmation line of a note write (REPL, tool notice, `ask --json` notices)."""
    event, ref = write.event, note_ref(write.event.id)
    kind = NOTE_KIND_NAMES.get(event.note_kind, event.note_kind or NOTE_NAME)
    about = f"（{event.symbol}）" if event.symbol else ""
    return f"{_VERBS[write.outcome]} #{ref}：{kind}{about} · {event.text}" + _UNDO[write.outcome].format(ref=ref)
