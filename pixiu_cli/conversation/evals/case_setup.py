"""What an eval data set sets up beyond an import document: the watch list, and which plans
replaced which. Both are the user's own doing in the product (`pixiu watch add`, accepting a
newer plan's offer), not rows an import writes, so an eval states them next to the document:

* ``"watch"``: the watch list, each entry a code or ``{"symbol": …, "added_at": …}`` (or
  ``"days_ago"``; without either, added at the case's ``now``);
* a note row's ``"ref"`` (a name for it) and ``"replaced_by"`` (the ref of the plan that
  replaced it): after the import the older plan is replaced as the product replaces one.

`split_setup` takes them out of the document (which then imports like any other) and
`apply_setup` writes them after the import, through the stores the product writes with."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pixiu_cli.home.document_file import DatasetError, normalise_timestamp
from pixiu_cli.kernel.codes import normalise_code
from pixiu_cli.kernel.db.stores import stores_of

WATCH = "watch"
REF, REPLACED_BY = "ref", "replaced_by"


@dataclass(frozen=True)
class EvalSetup:
    watch: tuple[tuple[str, str], ...] = ()  # (symbol, when it was added)
    replaced: tuple[tuple[int, int], ...] = ()  # (older note, the note replacing it), as indexes of the notes


def split_setup(document: dict, now: datetime, fail) -> tuple[dict, EvalSetup]:
    """The import document without the eval's own setup, and that setup."""
    document = dict(document)
    watch = _watch(document.pop(WATCH, []), now, fail)
    notes = document.get("notes", [])
    if not isinstance(notes, list):
        return document, EvalSetup(watch)
    refs: dict[str, int] = {}
    links: list[tuple[int, str]] = []
    plain = []
    for index, note in enumerate(notes):
        if isinstance(note, dict) and (REF in note or REPLACED_BY in note):
            note = dict(note)
            ref, replacing = note.pop(REF, None), note.pop(REPLACED_BY, None)
            if ref is not None:
                if not isinstance(ref, str) or not ref or ref in refs:
                    raise fail(f"notes[{index}].ref 应为不重复的非空字符串")
                refs[ref] = index
            if replacing is not None:
                links.append((index, replacing))
        plain.append(note)
    document["notes"] = plain
    replaced = []
    for index, ref in links:
        if ref not in refs or refs[ref] == index:
            raise fail(f"notes[{index}].replaced_by 应为另一条笔记的 ref，而不是 {ref!r}")
        replaced.append((index, refs[ref]))
    return document, EvalSetup(watch, tuple(replaced))


def _watch(value, now: datetime, fail) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        raise fail("watch 应为数组（代码，或 {symbol, added_at | days_ago}）")
    out = []
    for index, entry in enumerate(value):
        entry = {"symbol": entry} if isinstance(entry, str) else entry
        symbol = normalise_code(entry.get("symbol")) if isinstance(entry, dict) else None
        if symbol is None:
            raise fail(f"watch[{index}] 应为六位代码或 {{symbol, added_at}}")
        out.append((symbol, _added_at(entry, index, now, fail)))
    return tuple(out)


def _added_at(entry: dict, index: int, now: datetime, fail) -> str:
    try:
        if "added_at" in entry:
            return normalise_timestamp(entry["added_at"], f"watch[{index}].added_at", now)
        days = entry.get("days_ago", 0)
        if isinstance(days, bool) or not isinstance(days, int | float) or days < 0:
            raise fail(f"watch[{index}].days_ago 应为非负数字")
        return (now - timedelta(days=days)).isoformat(timespec="seconds")
    except DatasetError as exc:
        raise fail(str(exc)) from None


def apply_setup(db, setup: EvalSetup, notes: list) -> None:
    """Write the setup after the import: `notes` are the document's notes as parsed (in its
    order), matched to the stored ones by kind, text and time."""

    market = stores_of(db).market
    for symbol, added_at in setup.watch:
        market.watch(symbol, added_at)
    if not setup.replaced:
        return
    stored = {(n.note_kind, n.text, n.created_at): n.id for n in stores_of(db).investor.export().notes}
    ids = [stored[(n.note_kind, n.text, n.created_at)] for n in notes]
    memory = stores_of(db).memory
    for old, new in setup.replaced:
        memory.replace([ids[old]], ids[new])
