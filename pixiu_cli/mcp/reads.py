"""What each MCP tool answers: one service call each, the same as the CLI and the REPL make,
as JSON-ready dicts stamped with the moment they were read. Stored free text is quoted as the
context block quotes it, and no result carries a secret. No SDK here: tests call these too.

What other agents asked through `pixiu mcp`: each call recorded as it is answered or
refused, and the latest listed (`pixiu mcp log`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from pixiu_cli.account.performance import account_performance, performance_record
from pixiu_cli.account.risk import holdings_record
from pixiu_cli.conversation.context.block import is_context_message, message_text
from pixiu_cli.conversation.context.quoting import quote_data
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.safe_text import scrub
from pixiu_cli.kernel.settings import Settings
from pixiu_cli.kernel.vocabulary import AUTHOR_PROPOSAL, NOTE_KIND_NAMES, normalise_code
from pixiu_cli.market.analytics.rules import describe_rule
from pixiu_cli.market.analytics.service import profiles as listed
from pixiu_cli.market.handle import resolve_stock


@dataclass(frozen=True)
class Reader:
    """The settings every read opens its workspace (the database and its handles) and the
    clock from."""

    settings: Settings

    def now(self) -> datetime:
        from pixiu_cli.app import clock_of

        return clock_of(self.settings)()

    def costs(self):
        from pixiu_cli.app import configured

        return configured(self.settings).costs

    @contextmanager
    def workspace(self) -> Iterator[Workspace]:
        from pixiu_cli.app import open_workspace

        ws = open_workspace(self.settings)
        try:
            yield ws
        finally:
            ws.close()

    @contextmanager
    def call_log(self) -> Iterator[McpCallLog]:
        """The log of what other agents asked: the MCP surface's own store (no area's handle
        hands it out), over the settings' database."""
        from pixiu_cli.mcp.store import McpCallLog

        with self.workspace() as ws:
            yield McpCallLog(ws.db)

    def stamped(self, payload: dict) -> dict:
        return scrubbed({"as_of": self.now().isoformat(timespec="seconds"), **payload})


def scrubbed(value):
    """`value` with every string scrubbed of secrets (redact.scrub)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrubbed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrubbed(v) for v in value]
    return value


# The longest argument each tool takes, by name: an agent's call is answered in moments or
# refused in one line, never left to build a context block from millions of characters.
ARGUMENT_LIMITS = {"question": 2_000, "text": 2_000, "code": 40, "since": 10, "kind": 16}
MAX_CODES = 50  # codes in one call of profiles or signals


def check_arguments(**arguments) -> None:
    """RequestError naming the first argument past its bound (ARGUMENT_LIMITS, MAX_CODES)."""
    for name, value in arguments.items():
        if isinstance(value, list):
            if len(value) > MAX_CODES:
                raise RequestError(f"{name} 最多 {MAX_CODES} 个，而不是 {len(value):,} 个")
            for code in value:
                check_arguments(code=code)
        elif isinstance(value, str) and len(value) > (limit := ARGUMENT_LIMITS.get(name, ARGUMENT_LIMITS["text"])):
            raise RequestError(f"{name} 过长：{len(value):,} 字，最多 {limit:,} 字")


def _quoted(rows: list[dict], keys: tuple[str, ...]) -> list[dict]:
    return [{k: quote_data(v) if k in keys and isinstance(v, str) and v else v for k, v in r.items()} for r in rows]


def context_for(reader: Reader, question: str) -> dict:
    """The [上下文信息] block `pixiu context TEXT` would send now, its sections and tokens."""
    from pixiu_cli.app import open_preview

    preview = open_preview(reader.settings)
    try:
        request, info = preview.requests.preview(None, question)
    finally:
        preview.close()
    blocks = [message_text(m) for m in request["messages"] if is_context_message(m)]
    info = info or {}
    return reader.stamped(
        {
            "block": blocks[0] if blocks else None,
            "tokens": info.get("tokens"),
            "budget": info.get("budget"),
            "sections": [
                {"key": s["key"], "title": s["title"], "tokens": s["tokens"], "items": s["items"]}
                for s in info.get("sections", [])
            ],
            "messages": request["messages"],
        }
    )


def holdings(reader: Reader) -> dict:
    """`pixiu holdings --json`'s record, where the risk sits included: the one derivation."""
    with reader.workspace() as ws:
        record = holdings_record(ws.account, ws.memory.investor, reader.now())
    return reader.stamped({"account": record})


def performance(reader: Reader, period: str | None = None) -> dict:
    """`pixiu performance PERIOD --json`'s record, the daily series left out: account/performance.py."""
    with reader.workspace() as ws:
        done = account_performance(ws.account, reader.now(), period)
    return reader.stamped({"performance": performance_record(done, with_daily=False)})


def trades(reader: Reader, code: str | None = None, since: str | None = None) -> dict:
    from pixiu_cli.account.overview import list_trades

    if since is not None and not _is_day(since):
        raise RequestError(f"since 应为 YYYY-MM-DD 日期，而不是 {since!r}")
    with reader.workspace() as ws:
        lines = list_trades(ws.account, _code(ws.market, code))
    rows = [t.record() for t in lines if since is None or (t.day or "") >= since]
    return reader.stamped({"trades": rows})


def alerts(reader: Reader) -> dict:

    with reader.workspace() as ws:
        rules = ws.market.analytics.rules()
    rows = [
        {"id": f"a{r.id}", "rule": describe_rule(r), **{k: v for k, v in r.__dict__.items() if k != "id"}}
        for r in rules
    ]
    return reader.stamped({"alerts": rows})


def profiles(reader: Reader, codes: list[str] | None = None) -> dict:

    with reader.workspace() as ws:
        symbols = [_code(ws.market, c) for c in codes] if codes else None
        listing = listed(ws.market, symbols, reader.now(), reader.costs(), False)
    return reader.stamped({"profiles": [dict(r.__dict__) for r in listing.rows]})


def signals(reader: Reader, codes: list[str] | None = None) -> dict:
    from pixiu_cli.market.analytics.signals import stored_signals

    with reader.workspace() as ws:
        views = stored_signals(ws.market, [_code(ws.market, c) for c in codes] if codes else None)
    return reader.stamped({"signals": [dict(v.__dict__) for v in views]})


def news(reader: Reader, code: str | None = None) -> dict:

    with reader.workspace() as ws:
        items = ws.market.news.listing(_code(ws.market, code), 20)
    return reader.stamped({"news": _quoted([asdict(n) for n in items], ("title", "summary"))})


def latest_brief(reader: Reader) -> dict:
    from pixiu_cli.brief.push.deliver import brief_message, last_brief

    with reader.workspace() as ws:
        try:
            brief = last_brief(ws.brief)
            message = brief_message(ws.brief, brief)
        except RequestError as exc:  # none yet, or its text lost: said, not an error of the call
            return reader.stamped({"brief": None, "message": str(exc)})
    return reader.stamped({"brief": {"as_of": brief.as_of, "title": message.title, "text": message.text}})


def persona(reader: Reader) -> dict:

    with reader.workspace() as ws:
        items = ws.home.investor.persona()
    return reader.stamped({"persona": {k: quote_data(v) for k, v in items.items()}})


def search_memory(reader: Reader, text: str) -> dict:
    from pixiu_cli.memory.changes import search_memories

    keys = ("ref", "kind", "symbol", "created_at", "author", "source", "text", "pinned")
    with reader.workspace() as ws:
        entries = search_memories(ws.memory, text, limit=50)
    return reader.stamped({"memories": _quoted([{k: getattr(e, k) for k in keys} for e in entries], ("text",))})


def propose_note(reader: Reader, kind: str, text: str, code: str | None = None) -> dict:
    """Stored as a proposal (author `proposal`): the user's only once accepted."""
    from pixiu_cli.memory.notes import NewNote, add_note

    with reader.workspace() as ws:
        note = NewNote(kind, text, _code(ws.market, code), "model", AUTHOR_PROPOSAL)
        write = add_note(ws.memory, note, reader.now().isoformat(timespec="seconds"))
    ref, name = f"n{write.event.id}", NOTE_KIND_NAMES.get(kind, kind)
    notice = (
        f"已存为其他代理的提议 #{ref}（{name}）：它不算用户自己的{name}，也不会注入 pixiu 的对话，"
        f"用户用 pixiu memory accept {ref} 采纳后才生效"
    )
    if write.event.author != AUTHOR_PROPOSAL:  # the same words the user already stated: nothing new
        notice = f"用户自己已有相同的记忆 #{ref}，未另存提议"
    return reader.stamped({"ref": ref, "outcome": write.outcome, "notice": notice})


def _is_day(text: str) -> bool:
    try:
        return len(text) == 10 and date.fromisoformat(text) is not None
    except ValueError:
        return False


def _code(market: Market, raw: str | None) -> str | None:
    """A code in any spelling, or a name (market/handle.py), as the CLI reads one."""
    if not raw:
        return None

    code = normalise_code(raw)
    if code is not None:
        return code
    from pixiu_cli.app import names_cache_dir

    return resolve_stock(market, raw, names_cache_dir())


if TYPE_CHECKING:
    from pixiu_cli.app import Workspace
    from pixiu_cli.market.handle import Market
    from pixiu_cli.mcp.store import McpCallLog

UNKNOWN_AGENT = "未知"


def record_call(
    log: McpCallLog, agent: str | None, kind: str, name: str, at: str, outcome: str, detail: str = ""
) -> None:
    log.record((agent or "").strip() or UNKNOWN_AGENT, kind, name, at, outcome, detail[:200])
