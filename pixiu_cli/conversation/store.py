"""A call's request body stored once and compactly, yet byte-exact. Each request is
mostly the previous request of its conversation plus what was appended (the tools and
parameters follow the messages, so the change sits between a shared prefix and a shared
suffix): it is stored as that previous call's id, the lengths of the shared prefix and
suffix (in UTF-8 bytes) and the zlib-packed middle. The middle is packed with the
WINDOW bytes of the previous request before it as zlib's dictionary (request_dict: how many):
what a turn appends (a tool result, a context block) mostly repeats something said a few
turns earlier, which a middle packed alone cannot refer to. Every MAX_DEPTH links a call is
stored whole, so reading one request never walks a long chain.

Conversations, turns and model calls. Every write is its own short transaction, so the
user's message is on disk before the model is called and a killed process loses nothing
that was already received."""

from __future__ import annotations

import codecs
import json
import sqlite3
import zlib
from dataclasses import dataclass
from datetime import UTC
from functools import cached_property
from typing import Protocol

from pixiu_cli.conversation.tokenizer.counts import count_message_tokens
from pixiu_cli.kernel.clock import Clock, system_clock
from pixiu_cli.kernel.safe_text import scrub
from pixiu_cli.kernel.store.database import (
    Database,
    StoreError,
    owned_by_another_live_process,
    this_process,
    write_transaction,
)
from pixiu_cli.kernel.store.rows import pack_text, text_of, unpack_text


# A call's token counts as the cost report adds them up (the account's report reads them).
@dataclass(frozen=True)
class UsageRow:
    started_at: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cache_hit_tokens: int | None
    cache_miss_tokens: int | None
    model: str | None = None


MAX_DEPTH = 16
WINDOW = 32 * 1024  # zlib looks back this far, so a longer dictionary adds nothing
COLUMNS = "id, request_json, request_z, request_base, request_prefix, request_suffix, request_dict"


@dataclass(frozen=True)
class Packed:
    blob: bytes
    base: int | None = None
    prefix: int = 0
    suffix: int = 0
    depth: int = 0
    dictionary: int = 0

    def columns(self) -> dict:
        return {
            "request_z": self.blob,
            "request_base": self.base,
            "request_prefix": self.prefix,
            "request_suffix": self.suffix,
            "request_depth": self.depth,
            "request_dict": self.dictionary or None,
        }


def _shared(a: bytes, b: bytes) -> tuple[int, int]:
    limit = min(len(a), len(b))
    prefix = 0
    step = 4096
    while step:  # galloping compare: whole blocks first, then narrower
        while prefix + step <= limit and a[prefix : prefix + step] == b[prefix : prefix + step]:
            prefix += step
        step //= 8
    limit -= prefix
    suffix = 0
    while suffix < limit and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
        suffix += 1
    return prefix, suffix


def pack(text: str, base: tuple[int, str, int] | None = None) -> Packed:
    """`base` is (call id, exact request, depth) of the previous finished call, or None."""
    data = text.encode("utf-8")
    if base is None or base[2] + 1 >= MAX_DEPTH:
        return Packed(zlib.compress(data, 6))
    base_id, base_text, depth = base
    old = base_text.encode("utf-8")
    prefix, suffix = _shared(old, data)
    window = old[max(prefix - WINDOW, 0) : prefix]
    packer = zlib.compressobj(6, zdict=window) if window else zlib.compressobj(6)
    blob = packer.compress(data[prefix : len(data) - suffix]) + packer.flush()
    return Packed(blob, base_id, prefix, suffix, depth + 1, len(window))


def unpack(row: dict, base_text: str | None) -> str:
    if row.get("request_base") is None:
        return zlib.decompress(row["request_z"]).decode("utf-8")
    old = (base_text or "").encode("utf-8")
    window = row.get("request_dict") or 0  # 0: packed alone (rows written before dictionaries)
    prefix = row["request_prefix"]
    unpacker = zlib.decompressobj(zdict=old[prefix - window : prefix]) if window else zlib.decompressobj()
    middle = unpacker.decompress(row["request_z"]) + unpacker.flush()
    return (old[: row["request_prefix"]] + middle + old[len(old) - row["request_suffix"] :]).decode("utf-8")


def request_of(conn: sqlite3.Connection, row: dict, memo: dict[int, str] | None = None) -> str:
    """The exact request of a call row; `memo` (call id → text) makes reading a
    conversation's calls in order linear."""
    memo = {} if memo is None else memo
    if row.get("request_z") is None:  # written before requests were packed
        return row.get("request_json") or ""
    chain = [row]
    while chain[-1].get("request_base") is not None and chain[-1]["request_base"] not in memo:
        cursor = conn.execute(f"select {COLUMNS} from calls where id = ?", [chain[-1]["request_base"]])
        found = cursor.fetchone()
        if found is None:
            break
        chain.append(dict(zip([d[0] for d in cursor.description], found)))
    text = None
    for link in reversed(chain):
        base = link.get("request_base")
        text = (
            link.get("request_json") or ""
            if link.get("request_z") is None
            else unpack(link, memo.get(base) if base is not None else None)
        )
        if link.get("id") is not None:
            memo[link["id"]] = text
    return text


PROCESS_EXITED = "进程在回复过程中退出"


def utc_stamp(clock: Clock) -> str:
    """How turns and calls are stamped: the clock's moment in UTC, to the millisecond."""
    return clock().astimezone(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    created_at: str
    updated_at: str
    model: str | None
    summary: str | None
    turn_count: int = 0
    summary_upto_turn: int = 0
    switched_model: str | None = None  # the model /model switched it to; None: never switched


@dataclass(frozen=True)
class Turn:
    id: int
    conversation_id: int
    seq: int
    user_text: str
    reply_text: str | None
    status: str
    error: str | None
    messages: list[dict]
    created_at: str
    history_tokens: int | None = None
    block: dict | None = None  # the record of the block its messages carry (None: not recorded)


@dataclass(frozen=True)
class CallUsage:
    """A stored call's token counts (the calls table's four usage columns)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cache_hit_tokens: int | None = None
    cache_miss_tokens: int | None = None


class ReportedUsage(Protocol):
    """What finish_call reads of a call's usage, by name, so the store needs nothing from
    llm/ (whose Usage has these counts)."""

    @property
    def prompt_tokens(self) -> int | None: ...
    @property
    def completion_tokens(self) -> int | None: ...
    @property
    def cache_hit_tokens(self) -> int | None: ...
    @property
    def cache_miss_tokens(self) -> int | None: ...


@dataclass(frozen=True)
class CallRecord:
    id: int
    turn_id: int
    conversation_id: int
    step: int
    provider: str
    model: str
    request_json: str
    reply_text: str | None
    reasoning_text: str | None
    tool_calls_json: str | None
    finish_reason: str | None
    status: str
    error: str | None
    usage: CallUsage
    ttft_ms: float | None
    latency_ms: float | None
    started_at: str
    context_json: str | None = None
    cache_explanation_json: str | None = None

    @property
    def request(self) -> dict:
        return json.loads(self.request_json)


def _turn(row: dict) -> Turn:
    return Turn(
        id=row["id"],
        conversation_id=row["conversation_id"],
        seq=row["seq"],
        user_text=row["user_text"],
        reply_text=row["reply_text"],
        status=row["status"],
        error=row["error"],
        messages=json.loads(text_of(row.get("messages_z"), row["messages_json"]) or "[]"),
        created_at=row["created_at"],
        history_tokens=row.get("history_tokens"),
        block=json.loads(row["block_json"]) if row.get("block_json") else None,
    )


def _call(row: dict, request_json: str) -> CallRecord:
    return CallRecord(
        id=row["id"],
        turn_id=row["turn_id"],
        conversation_id=row["conversation_id"],
        step=row["step"],
        provider=row["provider"],
        model=row["model"],
        request_json=request_json,
        reply_text=row["reply_text"],
        reasoning_text=row["reasoning_text"],
        tool_calls_json=row["tool_calls_json"],
        finish_reason=row["finish_reason"],
        status=row["status"],
        error=row["error"],
        usage=CallUsage(
            row["prompt_tokens"], row["completion_tokens"], row["cache_hit_tokens"], row["cache_miss_tokens"]
        ),
        ttft_ms=row["ttft_ms"],
        latency_ms=row["latency_ms"],
        started_at=row["started_at"],
        context_json=text_of(row.get("context_z"), row.get("context_json")),
        cache_explanation_json=row.get("cache_explanation_json"),
    )


def _asked(request_json: str, user_text: str) -> list[dict]:
    """The user messages a turn added (its [上下文信息] block and question): the trailing
    user messages of its first request."""
    try:
        messages = json.loads(request_json)["messages"]
    except (TypeError, ValueError, KeyError):
        messages = []
    asked: list[dict] = []
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            break
        asked.insert(0, {"role": "user", "content": message.get("content")})
    if not asked or asked[-1]["content"] != user_text:
        return [{"role": "user", "content": user_text}]
    return asked


def add_request_function(conn) -> None:
    """SQL `call_request(id)`: the exact request body of a call, however it is stored, and
    `unpacked(blob)`: a packed text column as text (`coalesce(unpacked(messages_z),
    messages_json)`), for queries outside the store (tests, ad-hoc inspection)."""

    def call_request(call_id):
        cursor = conn.execute(f"select {COLUMNS} from calls where id = ?", [call_id])
        found = cursor.fetchone()
        return request_of(conn, dict(zip([d[0] for d in cursor.description], found))) if found else None

    conn.create_function("call_request", 1, call_request)
    conn.create_function("unpacked", 1, lambda blob: None if blob is None else unpack_text(blob))


def _conversation(row: dict) -> Conversation:
    """A conversations row (with its `turn_count`) as a Conversation."""
    return Conversation(
        row["id"],
        row["title"] or "",
        row["created_at"],
        row["updated_at"],
        row["model"],
        row["summary"],
        row["turn_count"],
        row["summary_upto_turn"] or 0,
        row["switched_model"] or None,
    )


class RestoredElsewhere(StoreError):
    """Another process restored the database from a backup while this one had a turn going."""


_SAME_DATABASE = " and (select version from restore_generation where id = 1) is ?"
RESTORED = "数据库已在另一个终端从备份还原：这一轮没有写入还原后的数据库（以免混进备份里的对话）"


class ConversationStore:
    def __init__(self, db: Database, clock: Clock = system_clock):
        self.db = db
        self.clock = clock
        self._generation: int | None = None  # restore generation the current turn started in
        self._finished: dict[int, tuple[int, str]] = {}  # conversation → (call id, request) last finished here
        self._sent: dict[int, tuple[int, str]] = {}
        self._texts: dict[int, str] = {}  # request written by start_call, so finish_call writes it only if changed
        self._column_names: dict[str, list[str]] = {}  # table → its columns, for select lists

    @cached_property
    def path(self) -> str:
        """The database file ("" for an in-memory database), for a connection of one's own."""
        return next((row[2] for row in self.db.conn.execute("pragma database_list") if row[1] == "main"), "")

    def _insert(self, table: str, values: dict) -> int:
        """A plain INSERT: sqlite-utils' insert re-reads the schema (and the row) each time."""
        columns = ", ".join(values)
        marks = ", ".join("?" * len(values))
        return self.db.conn.execute(
            f"insert into {table} ({columns}) values ({marks})", list(values.values())
        ).lastrowid

    def _guarded_insert(self, table: str, values: dict) -> int:
        """`_insert` made only while the database is the one the turn started in."""
        if self._generation is None:
            return self._insert(table, values)
        marks = ", ".join("?" * len(values))
        cursor = self.db.conn.execute(
            f"insert into {table} ({', '.join(values)}) select {marks} where "
            "(select version from restore_generation where id = 1) is ?",
            [*values.values(), self._generation],
        )
        if cursor.rowcount == 0:
            raise RestoredElsewhere(RESTORED)
        return cursor.lastrowid

    def _update(self, table: str, row_id: int, values: dict) -> None:
        assignments = ", ".join(f"{column} = ?" for column in values)
        self.db.conn.execute(f"update {table} set {assignments} where id = ?", [*values.values(), row_id])

    def _pack_base(self, conversation_id: int, before: int | None = None) -> tuple[int, str, int] | None:
        """What a new request is packed against: the conversation's last finished call (a
        pending call's request may still be rewritten by finish_call, so nothing is built
        on it), as (id, exact request, depth); None to store it whole."""
        rows = self._rows(
            f"select {COLUMNS}, request_depth from calls where conversation_id = ? and status != 'pending' "
            "and id < ? order by id desc limit 1",
            [conversation_id, before or 2**62],
        )
        if not rows or rows[0]["request_z"] is None:
            return None
        known = self._finished.get(conversation_id)
        text = known[1] if known and known[0] == rows[0]["id"] else request_of(self.db.conn, rows[0])
        return rows[0]["id"], text, rows[0]["request_depth"] or 0

    def _calls(self, rows: list[dict]) -> list[CallRecord]:
        if len(self._texts) > 256:  # requests read lately, so a chain is walked once
            self._texts.clear()
        return [_call(row, request_of(self.db.conn, row, self._texts)) for row in rows]

    def set_cache_explanation(self, call_id: int, explanation_json: str) -> None:
        """Why a finished call hit or missed the cache, worked out once so /cache only reads."""
        with write_transaction(self.db):
            self.db.execute("update calls set cache_explanation_json = ? where id = ?", [explanation_json, call_id])

    # conversations -------------------------------------------------------------
    def create_conversation(self, title: str = "", model: str | None = None, switched: bool = False) -> Conversation:
        """`switched`: `model` is one /model chose, not the configured default."""
        stamp = utc_stamp(self.clock)
        row = {"title": title, "created_at": stamp, "updated_at": stamp, "model": model}
        with write_transaction(self.db):
            conv_id = self._insert("conversations", {**row, "switched_model": model if switched else None})
        return self.get_conversation(conv_id)

    def get_conversation(self, conversation_id: int, *, deleted: bool = False) -> Conversation | None:
        """A live conversation (with `deleted`, a deleted one too)."""
        live = "" if deleted else " and c.deleted_at is null"
        rows = self._rows(
            "select c.*, (select count(*) from turns t where t.conversation_id = c.id) as turn_count "
            f"from conversations c where c.id = ?{live}",
            [conversation_id],
        )
        return _conversation(rows[0]) if rows else None

    def latest_conversation(self) -> Conversation | None:
        rows = self._rows(
            "select id from conversations where deleted_at is null order by updated_at desc, id desc limit 1"
        )
        return self.get_conversation(rows[0]["id"]) if rows else None

    def list_conversations(self, limit: int = 20, text: str | None = None) -> list[Conversation]:
        """The live conversations, most recent first; with `text`, those whose title or any
        turn (question or reply) contains it."""
        where, params = "c.deleted_at is null", []
        if text:
            like = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where += (
                " and (c.title like ? escape '\\' or exists (select 1 from turns t where t.conversation_id = c.id "
                "and (t.user_text like ? escape '\\' or coalesce(t.reply_text, '') like ? escape '\\')))"
            )
            params = [like, like, like]
        rows = self._rows(
            "select c.*, (select count(*) from turns t where t.conversation_id = c.id) as turn_count "
            f"from conversations c where {where} order by c.updated_at desc, c.id desc limit ?",
            [*params, limit],
        )
        return [_conversation(r) for r in rows]

    def _restore_generation(self) -> int:
        row = self.db.conn.execute("select version from restore_generation where id = 1").fetchone()
        return row[0] if row else 0

    def _guarded(self, sql: str, params: list) -> None:
        """One write of the turn under way, made only while the database is the one the turn
        started in: a restore since then would make the turn's ids name the backup's rows.
        The check is part of the statement (no query of its own on every write)."""
        if self._generation is None:
            self.db.conn.execute(sql, params)
            return
        cursor = self.db.conn.execute(sql + _SAME_DATABASE, [*params, self._generation])
        if cursor.rowcount == 0 and self._restore_generation() != self._generation:
            raise RestoredElsewhere(RESTORED)

    def _guarded_update(self, table: str, row_id: int, values: dict) -> None:
        assignments = ", ".join(f"{column} = ?" for column in values)
        self._guarded(f"update {table} set {assignments} where id = ?", [*values.values(), row_id])

    def rename(self, conversation_id: int, title: str) -> bool:
        with write_transaction(self.db):
            cursor = self.db.conn.execute(
                "update conversations set title = ? where id = ? and deleted_at is null", [title, conversation_id]
            )
        return cursor.rowcount > 0

    def set_deleted(self, conversation_id: int, at: str | None) -> bool:
        """Delete (at a time) or restore (None) a conversation; its turns and calls stay on
        record either way, so a delete is undone whole."""
        with write_transaction(self.db):
            cursor = self.db.conn.execute(
                "update conversations set deleted_at = ? where id = ? and "
                + ("deleted_at is null" if at else "deleted_at is not null"),
                [at, conversation_id],
            )
        return cursor.rowcount > 0

    def set_model(self, conversation_id: int, model: str) -> None:
        """/model: the conversation continues with `model`, also when it is resumed later."""
        with write_transaction(self.db):
            self.db.conn.execute(
                "update conversations set model = ?, switched_model = ? where id = ?", [model, model, conversation_id]
            )

    # turns ---------------------------------------------------------------------
    def start_turn(self, conversation_id: int, user_text: str) -> Turn:
        """Commit the user's message before any network call. After a restore by another
        process the first turn is refused once (its conversation may be the backup's now)."""
        stamp = utc_stamp(self.clock)
        with write_transaction(self.db):
            seq, generation = self.db.execute(
                "select coalesce(max(seq), 0) + 1, (select version from restore_generation where id = 1) "
                "from turns where conversation_id = ?",
                [conversation_id],
            ).fetchone()
            if self._generation is not None and generation != self._generation:
                self._generation = generation
                raise RestoredElsewhere(RESTORED.replace("这一轮没有写入", "这个问题没有写入") + "；请重新提问")
            self._generation = generation
            turn_id = self._insert(
                "turns",
                {
                    "conversation_id": conversation_id,
                    "seq": seq,
                    "user_text": user_text,
                    "status": "pending",
                    "messages_json": "[]",
                    "created_at": stamp,
                    "owner": this_process(),
                },
            )
            self.db.execute(
                "update conversations set updated_at = ?, title = case when coalesce(title, '') = '' "
                "then ? else title end where id = ?",
                [stamp, user_text.strip()[:40], conversation_id],
            )
        return Turn(turn_id, conversation_id, seq, user_text, None, "pending", None, [], stamp)

    def finish_turn(
        self,
        turn_id: int,
        *,
        status: str,
        reply_text: str | None,
        messages: list[dict],
        error: str | None = None,
        history_tokens: int | None = None,
        block: dict | None = None,
    ) -> None:
        """`block`: the record of the [上下文信息] block among `messages`, if any."""
        with write_transaction(self.db):
            self._guarded_update(
                "turns",
                turn_id,
                {
                    "status": status,
                    "reply_text": reply_text,
                    "error": _scrubbed(error),
                    "history_tokens": history_tokens,
                    "messages_json": None,
                    "messages_z": pack_text(json.dumps(messages, ensure_ascii=False)),
                    "finished_at": utc_stamp(self.clock),
                    "block_json": json.dumps(block, ensure_ascii=False) if block is not None else None,
                },
            )

    def label_retried(self, turn_id: int, label: str) -> None:
        """A turn asked again (/retry): its partial reply and calls stay on record with `label`
        added to its error, but it leaves the history, so the model does not see the same
        question twice with half an answer in between."""
        with write_transaction(self.db):
            self.db.execute(
                "update turns set error = coalesce(error, '') || ?, messages_json = '[]', messages_z = null, "
                "block_json = null, history_tokens = 0 where id = ?",
                [label, turn_id],
            )

    def set_summary(self, conversation_id: int, summary: str, upto_seq: int) -> None:
        with write_transaction(self.db):
            self.db.execute(
                "update conversations set summary = ?, summary_upto_turn = ? where id = ?",
                [summary, upto_seq, conversation_id],
            )

    def history_tokens_after(self, conversation_id: int, after_seq: int) -> int:
        return self.db.execute(
            "select coalesce(sum(history_tokens), 0) from turns where conversation_id = ? and seq > ?",
            [conversation_id, after_seq],
        ).fetchone()[0]

    def get_turn(self, turn_id: int) -> Turn | None:
        rows = self._rows("select * from turns where id = ?", [turn_id])
        return _turn(rows[0]) if rows else None

    def turns(
        self, conversation_id: int, after_seq: int = 0, before_seq: int | None = None, *, replies: bool = True
    ) -> list[Turn]:
        """The turns with after_seq < seq < before_seq, filtered in SQL: a turn's history is
        read without parsing the turns a summary already replaced. replies=False leaves every
        reply_text None, unread: a history is built from the turns' messages, and a reply of
        megabytes is not read to build one."""
        columns = "*" if replies else self._columns("turns", {"reply_text": "null"})
        sql = f"select {columns} from turns where conversation_id = ? and seq > ?"
        params = [conversation_id, after_seq]
        if before_seq is not None:
            sql += " and seq < ?"
            params.append(before_seq)
        return [_turn(r) for r in self._rows(sql + " order by seq", params)]

    def _columns(self, table: str, replaced: dict[str, str]) -> str:
        """A select list of `table`'s columns, some of them replaced by an expression."""
        if table not in self._column_names:
            self._column_names[table] = [row[1] for row in self.db.conn.execute(f"pragma table_info({table})")]
        return ", ".join(f"{replaced[c]} as {c}" if c in replaced else c for c in self._column_names[table])

    def _rows(self, sql: str, params: list | tuple = ()) -> list[dict]:
        """The one row reader: a plain cursor, no sqlite-utils SAVEPOINT around a read."""
        cursor = self.db.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def turn_seqs(self, conversation_id: int) -> dict[int, int]:
        """Turn id → seq, without parsing any turn's messages."""
        return dict(
            self.db.conn.execute("select id, seq from turns where conversation_id = ?", [conversation_id]).fetchall()
        )

    def last_seq(self, conversation_id: int) -> int:
        return self.db.conn.execute(
            "select coalesce(max(seq), 0) from turns where conversation_id = ?", [conversation_id]
        ).fetchone()[0]

    def usage_rows(self, *, since_utc: str | None = None, conversation_id: int | None = None) -> list[UsageRow]:
        """The token counts of the calls (since `since_utc`, of one conversation), for totals and cost."""
        return usage_rows(self.db, since_utc=since_utc, conversation_id=conversation_id)

    def turn_by_seq(self, conversation_id: int, seq: int) -> Turn | None:
        rows = self._rows("select * from turns where conversation_id = ? and seq = ?", [conversation_id, seq])
        return _turn(rows[0]) if rows else None

    def mark_stale_pending(self, conversation_id: int) -> int:
        """A turn still 'pending' when its conversation is reopened was cut off by a process
        that is gone (killed, crashed) or abandoned by this one; a turn that another running
        pixiu process is still answering is left alone. A cut-off turn keeps what had
        arrived, as after Ctrl-C: the partial reply saved while streaming (save_partial)
        becomes its reply, and its question plus that reply its history; a turn cut off
        before any reply text adds nothing to the history, so the next request never
        carries a dangling question or tool call."""
        with write_transaction(self.db):
            pending = self.db.execute(
                "select id, user_text, owner from turns where conversation_id = ? and status = 'pending'",
                [conversation_id],
            ).fetchall()
            stale = [
                (turn_id, user_text)
                for turn_id, user_text, owner in pending
                if not owned_by_another_live_process(owner)
            ]
            for turn_id, user_text in stale:
                self._close_pending(turn_id, user_text, "interrupted", PROCESS_EXITED)
        return len(stale)

    def fail_own_pending(self, error: str, status: str = "error") -> int:
        """This process gave up on its pending turns (an unexpected error, a full disk, Ctrl-C
        outside the stream): close them now with the real cause, keeping what had arrived,
        rather than leave them to be labelled as if the process had died."""
        with write_transaction(self.db):
            pending = self.db.execute(
                "select id, user_text from turns where status = 'pending' and owner = ?", [this_process()]
            ).fetchall()
            for turn_id, user_text in pending:
                self._close_pending(turn_id, user_text, status, error)
        return len(pending)

    def _close_pending(self, turn_id: int, user_text: str, status: str, error: str) -> None:
        """A cut-off turn keeps what had arrived, as after Ctrl-C; see mark_stale_pending."""
        calls = self._rows("select * from calls where turn_id = ? and step >= 0 order by step, id", [turn_id])
        reply = (calls[-1]["reply_text"] if calls else None) or None
        asked = _asked(request_of(self.db.conn, calls[0]), user_text) if reply else []
        added = [*asked, {"role": "assistant", "content": reply}] if reply else []
        error = _scrubbed(error)
        self.db.execute(
            "update turns set status = ?, error = coalesce(error, ?), reply_text = ?, messages_json = null, "
            "messages_z = ?, history_tokens = ?, finished_at = ? where id = ?",
            [
                status,
                error,
                reply,
                pack_text(json.dumps(added, ensure_ascii=False)),
                count_message_tokens(added),
                utc_stamp(self.clock),
                turn_id,
            ],
        )
        self.db.execute(
            "update calls set status = ?, error = coalesce(error, ?) where turn_id = ? and status = 'pending'",
            [status, error, turn_id],
        )

    # calls ---------------------------------------------------------------------
    def start_call(
        self,
        *,
        turn_id: int,
        conversation_id: int,
        step: int,
        provider: str,
        model: str,
        request_json: str,
        context_json: str | None = None,
    ) -> int:
        with write_transaction(self.db):
            base = self._pack_base(conversation_id)
            call_id = self._guarded_insert(
                "calls",
                {
                    "turn_id": turn_id,
                    "conversation_id": conversation_id,
                    "step": step,
                    "provider": provider,
                    "model": model,
                    **pack(request_json, base).columns(),
                    "context_z": pack_text(context_json) if context_json is not None else None,
                    "status": "pending",
                    "started_at": utc_stamp(self.clock),
                },
            )
        # finish_call stores the bytes really sent if they differ, packed against the same base
        # (a finished call's request never changes, so it is still there and still the same).
        self._sent[call_id] = (conversation_id, request_json, base)
        return call_id

    def save_partial(self, call_id: int, reply_text: str, reasoning_text: str) -> None:
        """What has arrived of a reply still streaming, so a killed process keeps it."""
        with write_transaction(self.db):
            self._guarded(
                "update calls set reply_text = ?, reasoning_text = ? where id = ?",
                [reply_text, reasoning_text or None, call_id],
            )

    def finish_call(
        self,
        call_id: int,
        *,
        status: str,
        reply_text: str,
        reasoning_text: str,
        tool_calls: list[dict],
        finish_reason: str | None,
        usage: ReportedUsage,
        ttft_ms: float | None,
        latency_ms: float | None,
        error: str | None = None,
        request_json: str | None = None,
    ) -> None:
        values = {
            "status": status,
            "reply_text": reply_text,
            "reasoning_text": reasoning_text or None,
            "tool_calls_json": json.dumps(tool_calls, ensure_ascii=False) if tool_calls else None,
            "finish_reason": finish_reason,
            "error": _scrubbed(error),
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cache_hit_tokens": usage.cache_hit_tokens,
            "cache_miss_tokens": usage.cache_miss_tokens,
            "ttft_ms": ttft_ms,
            "latency_ms": latency_ms,
            "finished_at": utc_stamp(self.clock),
        }
        known = self._sent.pop(call_id, None)
        self._texts.pop(call_id, None)
        if known is None:  # started by another store (another process)
            conversation_id = self.db.conn.execute(
                "select conversation_id from calls where id = ?", [call_id]
            ).fetchone()[0]
            known = (conversation_id, None, None)
        conversation_id, started, base = known
        if request_json is not None and request_json != started:
            if started is None:
                base = self._pack_base(conversation_id, before=call_id)
            values.update(pack(request_json, base).columns())
        with write_transaction(self.db):
            self._guarded_update("calls", call_id, values)
        if status != "pending" and (request_json or started) is not None:
            self._finished[conversation_id] = (call_id, request_json or started)

    def calls_for_turn(self, turn_id: int) -> list[CallRecord]:
        return self._calls(self._rows("select * from calls where turn_id = ? order by step, id", [turn_id]))

    def calls_for_conversation(self, conversation_id: int, reply_chars: int | None = None) -> list[CallRecord]:
        """With reply_chars, only that many characters of each reply and reasoning are read."""
        return self._calls(self._call_rows("where conversation_id = ? order by id", [conversation_id], reply_chars))

    def get_call(self, call_id: int) -> CallRecord | None:
        rows = self._rows("select * from calls where id = ?", [call_id])
        return self._calls(rows[:1])[0] if rows else None

    def previous_for_cache(self, call: CallRecord, reply_chars: int | None = None) -> CallRecord | None:
        """The call whose cached prefix `call` should reuse: the last earlier finished call of
        the same kind (answer vs summary) in its conversation, else the last earlier one of
        the conversation, else the last finished call before the conversation's first. With
        reply_chars, only that many characters of its reply and reasoning are read (a reply
        of megabytes is compared only as far as the next request reaches)."""
        base = "where conversation_id = ? and id < ? and status != 'pending'"
        for extra in (" and (step < 0) = ?", ""):
            params = [call.conversation_id, call.id] + ([int(call.step < 0)] if extra else [])
            rows = self._call_rows(base + extra + " order by id desc limit 1", params, reply_chars)
            if rows:
                return self._calls(rows)[0]
        return self.last_call_before(call.id, reply_chars)

    def last_call_before(self, call_id: int, reply_chars: int | None = None) -> CallRecord | None:
        rows = self._call_rows("where id < ? and status != 'pending' order by id desc limit 1", [call_id], reply_chars)
        return self._calls(rows[:1])[0] if rows else None

    def _call_rows(self, where: str, params: list, reply_chars: int | None) -> list[dict]:
        """Rows of calls; with reply_chars, each reply and reasoning is only its first
        reply_chars characters, read through SQLite's incremental I/O: even substr() would
        have SQLite load a reply of megabytes whole."""
        if reply_chars is None:
            return self._rows(f"select * from calls {where}", params)
        absent = {c: f"typeof({c}) = 'null'" for c in _LONG_CALL_TEXTS}  # typeof() leaves the value unread
        rows = self._rows(f"select {self._columns('calls', absent)} from calls {where}", params)
        for row in rows:
            for column in _LONG_CALL_TEXTS:
                row[column] = None if row[column] else self._head("calls", column, row["id"], reply_chars)
        return rows

    def _head(self, table: str, column: str, row_id: int, chars: int) -> str:

        try:
            with self.db.conn.blobopen(table, column, row_id, readonly=True) as blob:
                data = blob.read(chars * 4)  # UTF-8: at most four bytes a character
        except sqlite3.Error:  # the row went meanwhile
            return ""
        return codecs.getincrementaldecoder("utf-8")().decode(data)[:chars]  # a cut character is left out


def usage_rows(db: Database, *, since_utc: str | None = None, conversation_id: int | None = None) -> list[UsageRow]:
    """Only the columns needed for totals and cost, for any number of calls."""
    where, params = ["status != 'pending'"], []
    if since_utc:
        where.append("started_at >= ?")
        params.append(since_utc)
    if conversation_id is not None:
        where.append("conversation_id = ?")
        params.append(conversation_id)
    sql = (
        "select started_at, prompt_tokens, completion_tokens, cache_hit_tokens, cache_miss_tokens, model from calls "
        f"where {' and '.join(where)} order by id"
    )
    return [UsageRow(*row) for row in db.execute(sql, params).fetchall()]


_LONG_CALL_TEXTS = ("reply_text", "reasoning_text")


def _scrubbed(error: str | None) -> str | None:
    """An error as stored: a server may echo the request's headers into its error body, and
    what is stored reaches backups and exports (the client scrubs its own errors too)."""
    return scrub(error) if error else error
