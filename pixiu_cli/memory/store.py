"""The memory write path: notes (add with dedup, edit, forget, undo a merge), one typed id
space for notes and recorded trades (trades themselves: store/portfolio.py), and what changed
since a block was sent.

Ids the user sees are typed: `n<id>` a note (memory_events), `d<id>` a decision. Slow work
(the near-duplicate scan) runs before the write transaction, never inside it: another
pixiu process waits for the write lock at most as long as a few inserts take."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass

from pixiu_cli.home.model import MemoryEvent, event_from_row
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import count, dict_rows
from pixiu_cli.kernel.store.rows import text as stored_text
from pixiu_cli.kernel.vocabulary import AUTHOR_PROPOSAL, AUTHOR_USER, NOTE_KINDS, decision_author
from pixiu_cli.memory.dedup import FUZZY_MAX_CHARS, could_match, normalise, note_key, same_memory
from pixiu_cli.memory.model import Withdrawal, decision_ref, note_ref, trade_text

CANDIDATES = 200  # live notes of the same symbol compared with a new one


class MemoryRefError(UserError, ValueError):
    """An id the user typed that names no memory, or two; the message is one line."""


@dataclass(frozen=True)
class MemoryRef:
    kind: str  # "n" note | "d" decision
    id: int

    def __str__(self) -> str:
        return f"{self.kind}{self.id}"


_REF = re.compile(r"#?([nd]?)([0-9]{1,12})")


@dataclass(frozen=True)
class NoteWrite:
    event: MemoryEvent
    outcome: str  # added | merged | unchanged (the same memory already exists)
    offered: tuple[MemoryEvent, ...] = ()  # older plans this one offers to replace (still in force)

    @property
    def merged(self) -> bool:
        return self.outcome != "added"


@dataclass(frozen=True)
class Forgotten:
    event: MemoryEvent  # as it was before
    action: str  # deleted | unmerged
    restored_text: str | None = None
    reinstated: tuple[int, ...] = ()  # plans it had replaced, in force again


@dataclass(frozen=True)
class MemoryEntry:
    """One row of /memory: a note or a decision under its typed id."""

    ref: str
    kind: str  # view | plan | rule | decision | user_note | <event kind>
    symbol: str | None
    created_at: str
    source: str | None
    inject_count: int
    text: str
    pinned: bool = False
    replaced_by: int = 0  # a plan: the id of the plan that replaced it
    replace_offered_by: int = 0  # a plan: the id of a newer plan offering to replace it
    author: str = AUTHOR_PROPOSAL  # who wrote it (vocabulary.AUTHORS)


class MemoryStore:
    """User notes and tool-triggered events: add (merging only true duplicates), edit,
    forget (undoing a merge first), search. Notes past their window stop being injected
    but stay searchable here."""

    def __init__(self, db: Database):
        self.db = db

    def get(self, event_id: int) -> MemoryEvent | None:
        rows = dict_rows(self.db, "select * from memory_events where id = ? and deleted_at is null", [event_id])
        return event_from_row(rows[0]) if rows else None

    # ids ------------------------------------------------------------------------------
    def resolve(self, text: str) -> MemoryRef:
        """`n12`, `d5`, `#n12` or a plain `12` (when only one live memory has that number)."""
        # full-width forms (Ｎ１２) are what a Chinese IME types; nothing else is folded, so a
        # superscript or another script's digit is not taken for an id
        folded = "".join(
            unicodedata.normalize("NFKC", ch) if 0xFF01 <= ord(ch) <= 0xFF5E else ch for ch in text.strip()
        ).lower()
        match = _REF.fullmatch(folded)
        if match is None:
            raise MemoryRefError(f"记忆 ID 格式不对：{text}（笔记如 n12，交易如 d5，见 /memory）")
        kind, number = match.group(1), int(match.group(2))
        note = self._live_note_row(number) if kind in ("", "n") else None
        decision = self._live_decision_row(number) if kind in ("", "d") else None
        if note is not None and note["kind"] == "decision" and note["decision_id"]:
            # the event a recorded trade wrote stands for the trade itself
            linked = self._live_decision_row(note["decision_id"])
            if kind == "n" or decision is None or decision["id"] == note["decision_id"]:
                return MemoryRef("d", note["decision_id"]) if linked else MemoryRef("n", number)
        if note is not None and decision is not None:
            raise MemoryRefError(
                f"ID {number} 有两条记忆：笔记 n{number} 和交易 d{number}，请写明 n{number} 或 d{number}"
            )
        if note is not None:
            return MemoryRef("n", number)
        if decision is not None:
            return MemoryRef("d", number)
        raise MemoryRefError(f"没有 ID 为 {text.strip()} 的记忆（见 /memory）")

    def _live_note_row(self, event_id: int) -> dict | None:
        rows = dict_rows(self.db, "select * from memory_events where id = ? and deleted_at is null", [event_id])
        return rows[0] if rows else None

    def _live_decision_row(self, decision_id: int) -> dict | None:
        rows = dict_rows(self.db, "select * from decisions where id = ? and deleted_at is null", [decision_id])
        return rows[0] if rows else None

    # writes ---------------------------------------------------------------------------
    def _duplicate_of(
        self, text: str, note_kind: str, symbol: str | None, source: str, author: str
    ) -> tuple[dict, str] | None:
        """(row, outcome) of the live note `text` repeats, or None. Read-only: runs before
        the write transaction. The model never rewrites a note it did not write, and a
        proposal rewrites nothing: it only finds the same words already stored."""
        key = note_key(text)
        if not key.text:
            return None
        rows = dict_rows(
            self.db,
            "select * from memory_events where kind = 'user_note' and deleted_at is null "
            "and coalesce(symbol, '') = ? order by created_at desc, id desc limit ?",
            [symbol or "", CANDIDATES],
        )
        for row in rows:
            if len(key.text) > FUZZY_MAX_CHARS and len(row["text"]) < len(key.text):
                continue  # a long note only matches identical text, never a shorter one
            if not could_match(key, normalise(row["text"])):
                continue
            other = note_key(row["text"])
            if not same_memory(key, other):
                continue
            identical = other.text == key.text
            if not identical and row["note_kind"] != note_kind:
                continue
            found = self._duplicate_outcome(row, text, note_kind, source, author, identical)
            if found is not None:
                return row, found
        return None

    @staticmethod
    def _duplicate_outcome(row: dict, text: str, note_kind: str, source: str, author: str, identical: bool):
        """unchanged | merged | None (keep looking) for a stored note the new one repeats."""
        if author != AUTHOR_USER and row["author"] == AUTHOR_PROPOSAL and author != AUTHOR_PROPOSAL:
            return None  # the user's words now: a note of its own, the proposal stays one
        # only the user rewrites anyone's note; the model only its own (not the user's, not
        # an imported one, not a proposal); a proposal nobody's
        protected = author == AUTHOR_PROPOSAL or (source != "user" and row["source"] != source)
        if identical and (protected or (row["text"] == text and row["note_kind"] == note_kind)):
            return "unchanged"
        return None if protected else "merged"

    def add_note(
        self, *, note_kind: str, text: str, symbol: str | None, source: str, at: str, author: str
    ) -> NoteWrite:
        """A new note, or the note it duplicates (refreshed when the writer may change it).
        A merge keeps the earlier version in memory_revisions, so forget() can undo it.
        `author`: who wrote it (vocabulary.AUTHORS)."""
        found = self._duplicate_of(text, note_kind, symbol, source, author)
        with write_transaction(self.db):
            if found is not None:
                row, outcome = found
                current = self._live_note_row(row["id"])
                if current is not None and current["text"] == row["text"] and current["note_kind"] == row["note_kind"]:
                    if outcome == "merged":
                        self._revise(row, "merged", text, at)
                        mine = source == "user"
                        self.db.conn.execute(
                            "update memory_events set text = ?, note_kind = ?, created_at = ?, source = ?, "
                            "author = ? where id = ?",
                            [
                                text,
                                note_kind,
                                at,
                                source if mine else row["source"],
                                author if mine else row["author"],
                                row["id"],
                            ],
                        )
                    return NoteWrite(event_from_row(self._live_note_row(row["id"])), outcome)
                # changed by someone else meanwhile: keep both rather than guess
            cursor = self.db.conn.execute(
                "insert into memory_events (kind, note_kind, symbol, text, created_at, source, author, inject_count) "
                "values ('user_note', ?, ?, ?, ?, ?, ?, 0)",
                [note_kind, symbol, text, at, source, author],
            )
            return NoteWrite(event_from_row(self._live_note_row(cursor.lastrowid)), "added")

    def _revise(self, row: dict, action: str, new_text: str | None, at: str) -> None:
        self.db.conn.execute(
            "insert into memory_revisions (event_id, action, old_text, old_note_kind, old_created_at, old_source, "
            "old_author, new_text, at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                row["id"],
                action,
                row["text"],
                row["note_kind"],
                row["created_at"],
                row["source"],
                row["author"],
                new_text,
                at,
            ],
        )

    def edit(self, event_id: int, text: str, at: str | None = None) -> bool:
        with write_transaction(self.db):
            row = self._live_note_row(event_id)
            if row is None:
                return False
            self._revise(row, "edited", text, at or row["created_at"])
            self.db.conn.execute("update memory_events set text = ? where id = ?", [text, event_id])
            return True

    def forget(self, event_id: int, at: str) -> Forgotten | None:
        """Undo the last thing the user was told about this note: a merge is undone (the
        earlier text, kind and source come back), anything else deletes the note."""
        with write_transaction(self.db):
            row = self._live_note_row(event_id)
            if row is None:
                return None
            last = dict_rows(
                self.db, "select * from memory_revisions where event_id = ? order by id desc limit 1", [event_id]
            )
            if last and last[0]["action"] == "merged":
                before = last[0]
                self._revise(row, "unmerged", before["old_text"], at)
                self.db.conn.execute(
                    "update memory_events set text = ?, note_kind = ?, created_at = ?, source = ?, "
                    "author = coalesce(?, author) where id = ?",
                    [
                        before["old_text"],
                        before["old_note_kind"],
                        before["old_created_at"],
                        before["old_source"],
                        before["old_author"],
                        event_id,
                    ],
                )
                return Forgotten(event_from_row(row), "unmerged", before["old_text"])
            self._revise(row, "deleted", None, at)
            self.db.conn.execute("update memory_events set deleted_at = ? where id = ?", [at, event_id])
            reinstated = [
                r[0] for r in self.db.conn.execute("select id from memory_events where replaced_by = ?", [event_id])
            ]
            self.db.conn.execute("update memory_events set replaced_by = 0 where replaced_by = ?", [event_id])
            self.db.conn.execute(
                "update memory_events set replace_offered_by = 0 where replace_offered_by = ?", [event_id]
            )
            return Forgotten(event_from_row(row), "deleted", reinstated=tuple(reinstated))

    def plans_in_force(self, symbol: str, limit: int = CANDIDATES) -> list[MemoryEvent]:
        """The live plans about `symbol` that no newer plan replaced, newest first."""
        rows = dict_rows(
            self.db,
            "select * from memory_events where kind = 'user_note' and note_kind = 'plan' and symbol = ? "
            "and deleted_at is null and replaced_by = 0 and author != 'proposal' "
            "order by created_at desc, id desc limit ?",
            [symbol, limit],
        )
        return [event_from_row(r) for r in rows]

    def offer_replacement(self, old_ids: list[int], new_id: int) -> None:
        """Older plans are marked as offered for replacement by `new_id`; they stay in force."""
        self._mark_live_plans(old_ids, new_id, "replace_offered_by = ?")

    def offers_of(self, new_id: int) -> list[MemoryEvent]:
        """The live plans `new_id` offered to replace and the user has not yet let it."""
        rows = dict_rows(
            self.db,
            "select * from memory_events where replace_offered_by = ? and replaced_by = 0 and deleted_at is null "
            "order by created_at, id",
            [new_id],
        )
        return [event_from_row(r) for r in rows]

    def replace(self, old_ids: list[int], new_id: int) -> None:
        """Older plans leave the block for the one that restates them (forget(new_id) undoes it)."""
        self._mark_live_plans(old_ids, new_id, "replaced_by = ?, replace_offered_by = 0")

    def _mark_live_plans(self, old_ids: list[int], new_id: int, assignment: str) -> None:
        """`assignment` (its one ? is `new_id`) on each of `old_ids` still live and not replaced."""
        with write_transaction(self.db):
            self.db.conn.executemany(
                f"update memory_events set {assignment} where id = ? and replaced_by = 0 and deleted_at is null",
                [(new_id, old) for old in old_ids],
            )

    def accept(self, event_id: int) -> MemoryEvent | None:
        """The user takes a proposal as their own (None: no such live proposal)."""
        with write_transaction(self.db):
            row = self._live_note_row(event_id)
            if row is None or row["author"] != AUTHOR_PROPOSAL:
                return None
            self.db.conn.execute("update memory_events set author = ? where id = ?", [AUTHOR_USER, event_id])
            return event_from_row(self._live_note_row(event_id))

    # changes to the account the model proposed ---------------------------------------------
    def add_proposal(self, *, change: str, symbol: str | None, text: str, arguments: str, at: str) -> MemoryEvent:
        """A proposed change (kind 'proposal', its `change` in note_kind, `arguments` its JSON)."""
        with write_transaction(self.db):
            cursor = self.db.conn.execute(
                "insert into memory_events (kind, note_kind, symbol, text, created_at, source, author, inject_count, "
                "proposed) values ('proposal', ?, ?, ?, ?, 'model', ?, 0, ?)",
                [change, symbol, text, at, AUTHOR_PROPOSAL, arguments],
            )
            return event_from_row(self._live_note_row(cursor.lastrowid))

    def proposed(self, event_id: int) -> tuple[str, str | None] | None:
        """(its change, the JSON of its arguments) of a live proposed change, pending or taken."""
        row = self._live_note_row(event_id)
        return (row["note_kind"], row["proposed"]) if row and row["kind"] == "proposal" else None

    def take_proposal(self, event_id: int, decision_id: int | None) -> bool:
        """The user took a pending proposed change: it is theirs now and leaves the lists (the
        trade or the alert it made stands for it). False: it was not pending (taken already)."""
        cursor = self.db.conn.execute(
            "update memory_events set author = ?, decision_id = ? where id = ? and kind = 'proposal' "
            "and author = ? and deleted_at is null",
            [AUTHOR_USER, decision_id, event_id, AUTHOR_PROPOSAL],
        )
        return cursor.rowcount == 1

    def taken_as(self, event_id: int) -> int | None:
        """The decision a taken trade proposal recorded."""
        row = self._live_note_row(event_id)
        return count(row["decision_id"]) if row and row["decision_id"] else None

    def pending_changes(self, after_id: int) -> list[MemoryEvent]:
        """The proposed changes still pending, of ids above `after_id`, oldest first."""
        rows = dict_rows(
            self.db,
            "select * from memory_events where kind = 'proposal' and author = ? and deleted_at is null and id > ? "
            "order by id",
            [AUTHOR_PROPOSAL, after_id],
        )
        return [event_from_row(r) for r in rows]

    def last_event_id(self) -> int:
        return count(self.db.conn.execute("select coalesce(max(id), 0) from memory_events").fetchone()[0])

    def proposals_since(self, since: str) -> int:
        """Proposals (notes and changes) made at or after `since` and still pending."""
        row = self.db.conn.execute(
            "select count(*) from memory_events where author = ? and deleted_at is null and created_at >= ?",
            [AUTHOR_PROPOSAL, since],
        ).fetchone()
        return count(row[0])

    def set_pinned(self, event_id: int, pinned: bool) -> MemoryEvent | None:
        with write_transaction(self.db):
            if self._live_note_row(event_id) is None:
                return None
            self.db.conn.execute("update memory_events set pinned = ? where id = ?", [int(pinned), event_id])
            return event_from_row(self._live_note_row(event_id))

    # reads ----------------------------------------------------------------------------
    def search(
        self,
        *,
        text: str | None = None,
        kind: str | None = None,
        symbol: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = 20,
    ) -> list[MemoryEvent]:
        # a proposed change the user took is the trade or the alert it made, listed as such
        where, params = ["deleted_at is null and not (kind = 'proposal' and author != 'proposal')"], []
        if text:
            where.append("text like ? escape '\\'")
            params.append(_like(text))
        if kind in NOTE_KINDS:
            where.append("kind = 'user_note' and note_kind = ?")
            params.append(kind)
        elif kind:
            where.append("kind = ?")
            params.append(kind)
        if symbol:
            where.append("symbol = ?")
            params.append(symbol)
        if since:
            where.append("created_at >= ?")
            params.append(since)
        if until:
            where.append("created_at <= ?")
            params.append(until)
        sql = f"select * from memory_events where {' and '.join(where)} order by created_at desc, id desc limit ?"
        return [event_from_row(r) for r in dict_rows(self.db, sql, [*params, limit])]

    def ref_of(self, event: MemoryEvent) -> str:
        """The typed id of an event: a trade's event is its decision."""
        if event.kind == "decision":
            rows = dict_rows(self.db, "select decision_id from memory_events where id = ?", [event.id])
            if rows and rows[0]["decision_id"]:
                return decision_ref(rows[0]["decision_id"])
        return note_ref(event.id)

    def listing(
        self, *, text: str | None = None, kind: str | None = None, symbol: str | None = None, limit: int = 50
    ) -> list[MemoryEntry]:
        """Notes and decisions, newest first, each under its typed id (/memory)."""
        entries: list[MemoryEntry] = []
        if kind != "decision":
            for e in self.search(text=text, kind=kind, symbol=symbol, limit=limit * 2):
                if e.kind != "decision":
                    entries.append(
                        MemoryEntry(
                            note_ref(e.id),
                            e.note_kind or e.kind,
                            e.symbol,
                            e.created_at,
                            e.source,
                            e.inject_count,
                            e.text,
                            e.pinned,
                            e.replaced_by,
                            e.replace_offered_by,
                            e.author,
                        )
                    )
        if kind in (None, "decision"):
            where, params = ["d.deleted_at is null"], []
            if symbol:
                where.append("d.symbol = ?")
                params.append(symbol)
            if text:
                where.append("(coalesce(d.reason, '') like ? escape '\\' or d.symbol like ? escape '\\')")
                params += [_like(text), _like(text)]
            rows = dict_rows(
                self.db,
                "select d.*, d.inject_count + (select coalesce(sum(inject_count), 0) from memory_events m "
                f"where m.decision_id = d.id) as injected from decisions d where {' and '.join(where)} "
                "order by d.decided_at desc, d.id desc limit ?",
                [*params, limit],
            )
            entries += [
                MemoryEntry(
                    decision_ref(r["id"]),
                    "decision",
                    r["symbol"],
                    r["decided_at"],
                    r["source"],
                    count(r["injected"]),
                    trade_text(r["side"], r["symbol"], r["quantity"], r["price"], r["reason"]),
                    author=decision_author(r["source"]),
                )
                for r in rows
            ]
        entries.sort(key=lambda e: e.created_at, reverse=True)
        return entries[:limit]

    def withdrawals(
        self, note_ids: set[int], decision_ids: set[int], seen: dict[str, str], said_replaced: frozenset = frozenset()
    ) -> list[Withdrawal]:
        """Of the notes and decisions a conversation has already shown the model: those
        deleted, undone or whose text no longer matches what was shown (`seen`: typed id →
        the text as shown, in any rendering that contains the stored text); and the plans it
        was told were replaced that are in force again (`said_replaced`: their typed ids)."""
        out: list[Withdrawal] = []
        if note_ids:
            rows = dict_rows(
                self.db,
                "select * from memory_events where id in (select value from json_each(?)) order by id",
                [json.dumps(sorted(note_ids))],
            )
            for r in rows:
                ref, stored = note_ref(r["id"]), stored_text(r["text"])  # any stored value reads as text
                if r["deleted_at"]:
                    out.append(Withdrawal(ref, "deleted", stored))
                elif r["replaced_by"]:
                    out.append(Withdrawal(ref, "replaced", stored, note_ref(count(r["replaced_by"]))))
                elif ref in said_replaced:
                    out.append(Withdrawal(ref, "reinstated", stored))
                elif ref in seen and not _shows(seen[ref], stored):
                    out.append(Withdrawal(ref, "edited", None, stored))
        if decision_ids:
            rows = dict_rows(
                self.db,
                "select * from decisions where deleted_at is not null and id in "
                "(select value from json_each(?)) order by id",
                [json.dumps(sorted(decision_ids))],
            )
            out += [
                Withdrawal(
                    decision_ref(r["id"]),
                    "undone",
                    trade_text(r["side"], r["symbol"], r["quantity"], r["price"], r["reason"]),
                )
                for r in rows
            ]
        return out


def _shows(shown: str, text: str) -> bool:
    return normalise(text) in normalise(shown)


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
