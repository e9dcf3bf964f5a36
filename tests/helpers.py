"""Helpers shared by test modules (test modules never import each other or a conftest).

One `build_app(...)` factory opens a database and wires the agent over it through the
product's composition root (`app.build_agent`), on the model a test gives it: the
deterministic `OfflineModel` in process, or the real client on the offline server."""

from __future__ import annotations

import ast
import functools
import inspect
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from pixiu_cli.brief.handle import Brief
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from pixiu_cli.home.document_file import SHANGHAI
from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.engine import build_frame
from pixiu_cli.market.bars import Bar, BarSeries, CorporateAction

# A key-shaped secret planted in the environment; tests grep every artefact for it.
PLANTED_KEY = "sk-pixiutest" + "0123456789abcdef" * 2
PIXIU_BIN = str(Path(sys.executable).with_name("pixiu"))
TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURE = TESTS / "fixtures" / "small_portfolio.json"
MARKET_FIXTURES = TESTS / "fixtures" / "market"
MARKET_IMPORTED_AT = "2026-11-30T16:00:00+08:00"
NOW = datetime(2026, 11, 24, 10, 15, tzinfo=SHANGHAI)  # a Tuesday, mid-morning session
PROMPT = "你 ›"


@functools.cache
def package_syntax_trees() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of the product as (path inside the package, parsed tree), parsed once per
    test process: several static checks walk them all (function length, vocabulary). The
    trees are shared, so a check must only read them."""
    import pixiu_cli

    package = Path(pixiu_cli.__file__).parent
    return tuple(
        (path.relative_to(package).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(package.rglob("*.py"))
    )


def is_store_module(path: str) -> bool:
    """Where SQL may live (a path inside the package): the kernel's database package and each
    area's store module (`account/store.py`, `market/news/store.py`…)."""
    return path.startswith("kernel/store/") or path.rsplit("/", 1)[-1] == "store.py"


def is_view_module(path: str) -> bool:
    """What the user reads is composed here: each area's `views.py` (or `views_*.py`), the
    /context presenters and the renderer's primitives."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return stem == "views" or stem.startswith("views_") or path in ("kernel/render.py", "conversation/presenters.py")


# The use cases every surface calls (a command, a slash command, a model tool, MCP): each in
# the area its name says. They return what happened; the views say it.
USE_CASE_MODULES = frozenset(
    {
        "account/overview.py",
        "account/performance.py",
        "account/statement_import.py",
        "account/trades.py",
        "brief/daily_brief.py",
        "brief/facts.py",
        "brief/push/deliver.py",
        "brief/schedule.py",
        "conversation/ask.py",
        "conversation/grounding.py",
        "conversation/model_tools.py",
        "home/config.py",
        "home/demo_state.py",
        "home/documents.py",
        "market/analytics/service.py",
        "market/analytics/signals.py",
        "market/fundamentals/service.py",
        "market/importer.py",
        "market/news/service.py",
        "market/review/service.py",
        "market/service.py",
        "mcp/reads.py",
        "memory/alerts.py",
        "memory/changes.py",
        "memory/notes.py",
        "memory/proposals.py",
    }
)


_WALKED: dict[int, tuple[ast.AST, tuple[ast.AST, ...]]] = {}


def walked(tree: ast.AST) -> tuple[ast.AST, ...]:
    """`ast.walk(tree)` as a tuple, walked once per test process: a dozen static checks walk
    every module of the product, and the walk (not the check) was most of their CPU. The tree
    is kept with its nodes, so an id is never reused for another tree."""
    hit = _WALKED.get(id(tree))
    if hit is None or hit[0] is not tree:
        hit = _WALKED[id(tree)] = (tree, tuple(ast.walk(tree)))
    return hit[1]


def sqlite_steps(db, action) -> int:
    """SQLite virtual-machine steps `action()` costs on `db`: a count that does not depend on
    the machine's speed or load, for checks that a query stays the same size."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    db.conn.set_progress_handler(count, 1)
    try:
        action()
    finally:
        db.conn.set_progress_handler(None, 1)
    return steps[0]


# What `pixiu context` does not import: the typer coercion, the agent loop and the SDK.
NOT_IMPORTED_BY_CONTEXT = (
    "pydantic",
    "typer._adapters",
    "openai",
    "pixiu_cli.conversation.agent.loop",
    "pixiu_cli.conversation.agent.compaction",
    "pixiu_cli.conversation.agent.calls",
)


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PIXIU_") and k not in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")
    }
    env.update({"PIXIU_HOME": str(home), "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"})
    env.update(extra)
    return env


def fresh_python(code: str, env: dict[str, str] | None = None, timeout: float = 60) -> str:
    """`code` run by a new interpreter of this virtualenv (what it imports is its own), which
    must succeed; its standard output."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def pixiu(env, *args, input_bytes=None, timeout=60):
    """The real `pixiu` command in a pipe."""
    return subprocess.run([PIXIU_BIN, *args], env=env, input=input_bytes, capture_output=True, timeout=timeout)


def pixiu_ok(env, *args, timeout=120) -> str:
    """The real `pixiu` command, which must succeed; its standard output as text."""
    done = pixiu(env, *args, timeout=timeout)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done.stdout.decode("utf-8")


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections for as long as the block runs: bound but not
    listening, so no other process (another test run on the machine) can take it meanwhile,
    as it could a port found free and closed again."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


# -- the REPL in a pseudo-terminal -----------------------------------------------------------


def spawn(env, *args):
    import pexpect

    env = dict(env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="110", LINES="40")
    return pexpect.spawn(PIXIU_BIN, list(args), env=env, encoding="utf-8", timeout=40, dimensions=(40, 110))


def fill_until_full(path: str) -> None:
    """Write zeros to `path` until its file system is full (ENOSPC): for a private mount the
    test made, never a real disk."""
    try:
        with open(path, "wb", buffering=0) as filler:
            while True:
                filler.write(b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == 28


@contextmanager
def repl_session(env, *args):
    """`pixiu ARGS` in a pseudo-terminal for the block; killed at its end if still running
    (a failed expect), so no test leaves a REPL behind."""
    child = spawn(env, *args)
    try:
        yield child
    finally:
        if child.isalive():
            child.terminate(force=True)


def leave(child) -> None:
    """End the session as a user does, Ctrl-D at the prompt, and wait for the REPL to exit."""
    import pexpect

    child.sendeof()
    child.expect(pexpect.EOF)


# prompt_toolkit turns bracketed paste on when a prompt starts reading keys and off when it
# returns: unlike the prompt text, which redraws can repeat, these mark the prompt's life.
PROMPT_READING = "\x1b[?2004h"
PROMPT_DONE = "\x1b[?2004l"


def wait_for_new_prompt(child):
    """After a key that ends the current prompt (Enter, Ctrl-C): wait until that prompt has
    returned and the next one reads keys, so the next key cannot reach the old one."""
    child.expect_exact(PROMPT_DONE)
    child.expect_exact(PROMPT_READING)


def say(child, text):
    child.send(text + "\r")  # Enter is carriage return in a terminal; "\n" would be Ctrl-J (newline)


@contextmanager
def offline_repl(home: Path, **extra: str):
    """A real offline app on its own database and the REPL's state over it, its output in a
    StringIO (`run_command` drives it): (state, out)."""
    import io
    from unittest import mock

    from pixiu_cli.app import open_app
    from pixiu_cli.kernel.render import Renderer
    from pixiu_cli.kernel.settings import load_settings
    from pixiu_cli.repl.state import ReplState

    with mock.patch.dict(os.environ, clean_env(home, **extra), clear=True):
        app = open_app(load_settings(force_offline=True))
    out = io.StringIO()
    renderer = Renderer(file=out, stderr=out, rich_output=False)
    renderer.console.width = 10_000
    try:
        yield ReplState(app=app, renderer=renderer), out
    finally:
        app.close()


# -- the composition root, the product's, with the model injected ------------------------------


@dataclass
class App:
    db: Any
    store: Any
    domain: Any
    client: Any
    builder: Any
    agent: Any
    tool_context: Any = None
    extras: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    def new_conversation(self) -> int:
        return self.store.create_conversation().id

    def agent_with(self, *, tools, guardrails=None):
        """Another agent on the same database, model and clock, with other tools or guardrails."""
        options = dict(self.options, tools=tools)
        if guardrails is not None:
            options["guardrails"] = guardrails
        return _agent(self.db, self.domain, self.client, **options)


def http_model(server, *, provider: str = "deepseek", model: str = "deepseek-test", **options):
    """The product's HTTP client on `server` (the offline server), with the planted key;
    `options`: timeout (10 s), max_retries (0), thinking, reasoning_effort."""
    from pixiu_cli.conversation.llm.client import ChatClient

    options = {"timeout": 10, "max_retries": 0, **options}
    return ChatClient(base_url=server.base_url, api_key=PLANTED_KEY, model=model, provider=provider, **options)


def _agent(db, domain, model, *, now=None, tools=None, guardrails=None, limits=None, history_blocks=None):
    from pixiu_cli.app import build_agent
    from pixiu_cli.conversation.agent.guardrails import Guardrails
    from pixiu_cli.conversation.agent.tools import ToolRegistry
    from pixiu_cli.conversation.context.memory_classes import MemoryLimits

    return build_agent(
        db,
        model,
        limits=limits or MemoryLimits(),
        guardrails=guardrails or Guardrails(),
        temperature=None,
        clock=(lambda: now) if now is not None else (lambda: datetime.now(SHANGHAI)),
        domain=domain,
        tools=ToolRegistry(tuple(tools)) if tools is not None else None,
        **({"history_blocks": history_blocks} if history_blocks is not None else {}),
    )


def build_app(
    model,
    db_path: Path,
    *,
    portfolio: Path | None = None,
    now: datetime | None = None,
    tools=None,
    guardrails=None,
    compact_budget: int | None = None,
    limits=None,
    history_blocks: str | None = None,
) -> App:
    """A database and the agent `app.build_agent` wires over it, as `pixiu` does, on `model`:
    the in-process `OfflineModel` (the `model` fixture), or `http_model(server)` for the wire.

    `tools` (a list of Tool) replaces the product's tools; `compact_budget` the history
    budget past which the compactor summarises; `now` pins the clock of the builder and
    the tools."""
    from dataclasses import replace

    from pixiu_cli.conversation.context.memory_classes import MemoryLimits
    from pixiu_cli.home.store import InvestorStore
    from pixiu_cli.kernel.store.database import open_database

    db = open_database(db_path)
    domain = InvestorStore(db)
    if portfolio is not None:
        from pixiu_cli.home.document_file import load_document

        domain.replace_all(load_document(portfolio, now or NOW))
    limits = limits or MemoryLimits()
    if compact_budget is not None:
        limits = replace(limits, history_budget_tokens=compact_budget)
    options = {"now": now, "tools": tools, "guardrails": guardrails, "limits": limits, "history_blocks": history_blocks}
    agent = _agent(db, domain, model, **options)
    return App(db, agent.store, domain, model, agent.builder, agent, agent.tool_context, options=options)


def tool_messages(store, conversation_id):
    calls = store.calls_for_conversation(conversation_id)
    return [m for m in calls[-1].request["messages"] if m["role"] == "tool"], calls


def call(name, args):
    from pixiu_cli.conversation.offline.script import ToolCallSpec

    return ToolCallSpec(name, args if isinstance(args, str) else json.dumps(args, ensure_ascii=False))


# -- market data ------------------------------------------------------------------------------


def load(db, code: str, *, actions: bool = True, path: Path | None = None, **kw):
    """Import one real history from tests/fixtures/market/ into `db`."""
    from pixiu_cli.market.importer import import_csv
    from pixiu_cli.market.store import MarketStore, SecurityMaster

    action_file = MARKET_FIXTURES / f"{code}_actions.csv"
    return import_csv(
        MarketStore(db),
        SecurityMaster(db),
        path or MARKET_FIXTURES / f"{code}.csv",
        code,
        at=MARKET_IMPORTED_AT,
        actions_path=action_file if actions and action_file.exists() else None,
        **kw,
    )


def truncated_history(tmp_path, code: str, last_day: str) -> Path:
    """A copy of one real history that ends on `last_day`."""
    lines = (MARKET_FIXTURES / f"{code}.csv").read_text().splitlines()
    kept = [lines[0]] + [line for line in lines[1:] if line[:10] <= last_day]
    path = tmp_path / f"{code}_to_{last_day}.csv"
    path.write_text("\n".join(kept) + "\n")
    return path


# -- synthetic bars for analytics ---------------------------------------------------------------

NO_COSTS = CostModel(commission_rate=0.0, commission_min=0.0, transfer_fee_rate=0.0, slippage_bps=0.0)


def fill_row(fill_id: str, day: str, kind: str, symbol: str, quantity, price, fees, amount=None, **more) -> dict:
    """One fill of an import document's account section; `amount` defaults to quantity × price."""
    return {
        "fill_id": fill_id,
        "day": day,
        "kind": kind,
        "symbol": symbol,
        "quantity": quantity,
        "price": price,
        "amount": quantity * price if amount is None else amount,
        "fees": fees,
        **more,
    }


def weekdays(start: str, count: int) -> list[str]:
    day, out = date.fromisoformat(start), []
    while len(out) < count:
        if day.weekday() < 5:
            out.append(day.isoformat())
        day += timedelta(days=1)
    return out


def series(symbol: str, rows, start: str = "2024-03-04") -> BarSeries:
    """rows: close, or (open, close), or (open, high, low, close[, traded[, is_st]]) per day."""
    bars = []
    for day, row in zip(weekdays(start, len(rows)), rows):
        row = (row, row) if isinstance(row, (int, float)) else row
        if len(row) == 2:
            o, c = row
            row = (o, max(o, c), min(o, c), c)
        o, h, lo, c, *rest = row
        traded = rest[0] if rest else True
        bars.append(
            Bar(day, o, h, lo, c, 1_000_000.0 if traded else 0.0, None, int(traded), bool(rest[1:] and rest[1]))
        )
    columns = zip(
        *((b.date, b.open, b.high, b.low, b.close, b.volume, b.amount, b.trade_status, b.is_st) for b in bars)
    )
    return BarSeries(symbol, "none", *columns)


def frame_of(symbol: str, rows, actions: list[CorporateAction] = (), start: str = "2024-03-04", list_date=None):
    raw = series(symbol, rows, start)
    return build_frame(raw, list(actions), list_date=list_date)


# -- benchmarks ---------------------------------------------------------------------------------


def run_quick(script: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), "--quick"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def line(lines: list[str], prefix: str) -> str:
    found = [candidate for candidate in lines if candidate.startswith(prefix)]
    assert len(found) == 1, (prefix, lines)
    return found[0]


# -- the CLI in process -------------------------------------------------------------------------


@dataclass
class CliResult:
    returncode: int
    stdout: bytes | str
    stderr: bytes | str


def pixiu_in_process(
    env: dict[str, str], *args: str, input_bytes: bytes | None = None, text: bool = False
) -> CliResult:
    """`pixiu ARGS` through the real entry point (`main`, with its one-line error handling)
    inside this process, with `env` as the whole environment: for exit codes and messages.
    Signals, pipes, terminals and crash safety need the real process (`pixiu`)."""

    from typer.testing import CliRunner

    from pixiu_cli import cli

    overrides: dict[str, str | None] = {k: None for k in os.environ if k not in env}
    overrides.update(env)
    runner = CliRunner()
    saved_argv = sys.argv
    with runner.isolation(input=input_bytes, env=overrides) as streams:
        sys.argv = ["pixiu", *args]
        try:
            cli.main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.argv = saved_argv
        out, err = streams[0].getvalue(), streams[1].getvalue()
    if text:
        return CliResult(code, out.decode("utf-8"), err.decode("utf-8"))
    return CliResult(code, out, err)


class OfflineControl:
    """A client for the offline server's /_pixiu control routes, to drive a server that runs in
    another process (`pixiu offline-server --control`, whose token is required)."""

    def __init__(self, url: str, token: str, timeout: float = 10.0) -> None:
        """``url`` is the server root or its ``base_url`` (a trailing ``/v1`` is dropped);
        ``token`` the server's ``control_token``."""
        self.token = token
        url = url.rstrip("/")
        if url.endswith("/v1"):
            url = url[: -len("/v1")]
        self.url = url
        self.timeout = timeout

    def _call(self, method: str, path: str, payload: Any = None) -> Any:
        import urllib.request

        from pixiu_cli.conversation.offline.server import CONTROL_TOKEN_HEADER

        data = None if payload is None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={
                CONTROL_TOKEN_HEADER: self.token,
                **({"Content-Type": "application/json"} if data is not None else {}),
            },
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.loads(response.read() or b"null")

    def enqueue(self, *replies: ScriptedReply | str) -> int:
        """Queue replies; returns how many are pending."""
        items = [ScriptedReply(text=r) if isinstance(r, str) else r for r in replies]
        return self._call("POST", "/_pixiu/script", [r.to_dict() for r in items])["pending"]

    def inject(self, *faults: Fault) -> int:
        """Queue faults; returns how many are pending."""
        return self._call("POST", "/_pixiu/faults", [f.to_dict() for f in faults])["pending"]

    def requests(self) -> list[dict[str, Any]]:
        """The request log: dicts with method, path, headers (credentials hidden), key_sha256,
        body, json, status, usage."""
        return self._call("GET", "/_pixiu/requests")

    def reset(self) -> None:
        self._call("POST", "/_pixiu/reset", {})


class CsvSource:
    """The PriceSource interface over one symbol's CSV files, so a test can feed sync (or
    anything that takes a source) the way baostock and akshare do."""

    name = "csv"

    def __init__(self, symbol: str, path: Path, actions_path: Path | None = None, volume_unit: str = "auto"):
        from pixiu_cli.market.csv_source import parse_actions, parse_bars, read_text

        self.symbol = symbol
        self.parsed = parse_bars(read_text(path), volume_unit)
        self._actions = parse_actions(read_text(actions_path), symbol, source=self.name) if actions_path else []

    def daily_bars(self, symbol: str, start: str, end: str) -> list[Bar]:
        if symbol != self.symbol:
            return []
        return [b for b in self.parsed.bars if start <= b.date <= end and b.trade_status]

    def actions(self, symbol: str, start: str, end: str) -> list[CorporateAction]:
        return [a for a in self._actions if a.symbol == symbol and start <= a.ex_date <= end]

    def trading_days(self, start: str, end: str) -> list[str]:
        return []  # one stock's bars skip its suspensions: not the exchange's calendar

    def securities(self) -> list:
        return []

    def close(self) -> None:
        pass


# -- akshare 1.19.5's return shapes (pandas frames built as akshare builds them, no network) --


def pixiu_in_process_ok(env: dict[str, str], *args: str) -> str:
    """`pixiu ARGS` in this process (`pixiu_in_process`), which must succeed: its output."""
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def akshare_frame(records, date_column=None):
    """A DataFrame of `records`; akshare's bar functions end with
    `pd.to_datetime(df[date_column], errors="coerce").dt.date`, and so does this."""
    import pandas as pd

    temp_df = pd.DataFrame(records)
    if date_column:
        temp_df[date_column] = pd.to_datetime(temp_df[date_column], errors="coerce").dt.date
    return temp_df


def akshare_dividend_frame(rows):
    """`stock_history_dividend_detail(indicator="分红")` as akshare 1.19.5 builds it: the
    scraped table's text cells, then akshare's own conversions, so a plan row's empty
    除权除息日 ("--") becomes NaT exactly as it does for a real stock."""
    import pandas as pd

    columns = ["公告日期", "送股", "转增", "派息", "进度", "除权除息日", "股权登记日", "红股上市日"]
    temp_df = pd.DataFrame(rows, columns=columns)
    temp_df["公告日期"] = pd.to_datetime(temp_df["公告日期"], errors="coerce").dt.date
    temp_df["送股"] = pd.to_numeric(temp_df["送股"], errors="coerce")
    temp_df["转增"] = pd.to_numeric(temp_df["转增"], errors="coerce")
    temp_df["派息"] = pd.to_numeric(temp_df["派息"], errors="coerce")
    for column in ("除权除息日", "股权登记日", "红股上市日"):
        temp_df[column] = pd.to_datetime(temp_df[column], format="%Y-%m-%d", errors="coerce").dt.date
    return temp_df


def akshare_trade_date_frame(days):
    """`tool_trade_date_hist_sina()` as akshare builds it: a `trade_date` column of dates."""
    import pandas as pd

    temp_df = pd.DataFrame(days, columns=["trade_date"])
    temp_df["trade_date"] = pd.to_datetime(temp_df["trade_date"]).dt.date
    return temp_df


def stock_news_em_frame(rows):
    """`stock_news_em(symbol=…)` as akshare builds it: the search API's records renamed to
    Chinese columns, 关键词 set to the code, text columns only (发布时间 is the API's text)."""
    import pandas as pd

    raw = pd.DataFrame(
        [
            {
                "date": r["time"],
                "mediaName": r["source"],
                "code": "x",
                "title": r["title"],
                "content": r["content"],
                "url": r["url"],
                "image": "",
            }
            for r in rows
        ]
    )
    raw = raw.rename(
        columns={
            "date": "发布时间",
            "mediaName": "文章来源",
            "code": "-",
            "title": "新闻标题",
            "content": "新闻内容",
            "url": "新闻链接",
            "image": "-",
        }
    )
    raw["关键词"] = rows[0]["symbol"] if rows else ""
    return raw[["关键词", "新闻标题", "新闻内容", "发布时间", "文章来源", "新闻链接"]]


def cninfo_frame(rows):
    """`stock_zh_a_disclosure_report_cninfo(...)` as akshare builds it: announcementTime in
    epoch milliseconds → pandas datetime → Beijing → naive → str; 公告链接 built from the ids."""
    import pandas as pd

    if not rows:
        return pd.DataFrame(columns=["代码", "简称", "公告标题", "公告时间", "公告链接"])
    df = pd.DataFrame(
        [
            {
                "secCode": r["symbol"],
                "secName": r["name"],
                "announcementTitle": r["title"],
                "announcementTime": r["ms"],
                "announcementId": r["id"],
                "orgId": "gssh0600519",
            }
            for r in rows
        ]
    ).rename(
        columns={"secCode": "代码", "secName": "简称", "announcementTitle": "公告标题", "announcementTime": "公告时间"}
    )
    df["公告时间"] = pd.to_datetime(df["公告时间"], unit="ms", utc=True, errors="coerce")
    df["公告时间"] = df["公告时间"].dt.tz_convert("Asia/Shanghai").dt.tz_localize(None).astype(str)
    df["公告链接"] = [
        f"http://www.cninfo.com.cn/new/disclosure/detail?stockCode={c}&announcementId={i}&orgId={o}&announcementTime={t}"
        for c, i, o, t in zip(df["代码"], df["announcementId"], df["orgId"], df["公告时间"])
    ]
    return df[["代码", "简称", "公告标题", "公告时间", "公告链接"]]


def news_sync(monkeypatch, home: Path, fake, *codes: str, now: str = "2026-11-30T16:00:00") -> CliResult:
    """`pixiu news sync CODES…` in process, with `fake` standing in for the akshare package."""
    monkeypatch.setitem(sys.modules, "akshare", fake)
    return pixiu_in_process(clean_env(home, PIXIU_NOW=now), "news", "sync", *codes, text=True)


# A stand-in for the baostock package (its functions and ResultData shape, no network) that
# serves each exchange-prefixed code from its own CSV: FAKE_BAOSTOCK_FILES maps "sz.000333"
# to a file; FAKE_BAOSTOCK_DOWN names a code whose query fails as a dropped connection does.
class ResultData:
    """baostock's ResultData: error_code/error_msg, fields, next() and get_row_data()."""

    def __init__(self, fields, rows, error_code="0", error_msg="success"):
        self.fields, self._rows, self._i = fields, rows, -1
        self.error_code, self.error_msg = error_code, error_msg

    def next(self):
        self._i += 1
        return self._i < len(self._rows)

    def get_row_data(self):
        return self._rows[self._i]


# The part of every baostock stand-in that is baostock's own shape: login, logout, ResultData.
FAKE_BAOSTOCK_PRELUDE = (
    '''"""A stand-in for the baostock package: its functions and ResultData shape, no network."""
import csv, json, os

'''
    + inspect.getsource(ResultData)
    + """
class _Login:
    error_code, error_msg = "0", "success"

def login():
    return _Login()

def logout():
    return _Login()

"""
)

FAKE_BAOSTOCK_BY_CODE = (
    FAKE_BAOSTOCK_PRELUDE
    + """def query_history_k_data_plus(code, fields, start_date, end_date, frequency, adjustflag):
    if code == os.environ.get("FAKE_BAOSTOCK_DOWN"):
        raise ConnectionResetError(104, "Connection reset by peer")
    names = fields.split(",")
    path = json.loads(os.environ["FAKE_BAOSTOCK_FILES"]).get(code)
    rows = []
    if path:
        with open(path) as handle:
            for r in csv.DictReader(handle):
                if start_date <= r["datetime"] <= end_date:
                    row = dict(r, date=r["datetime"], amount="", tradestatus="1", isST="0")
                    rows.append([row[name] for name in names])
    return ResultData(names, rows)

def query_adjust_factor(code, start_date, end_date):
    return ResultData(["code", "dividOperateDate", "foreAdjustFactor", "backAdjustFactor", "adjustFactor"], [])

def query_dividend_data(code, year, yearType):
    return ResultData(["code", "dividOperateDate", "dividCashPsBeforeTax", "dividStocksPs", "dividReserveToStockPs"], [])

def query_trade_dates(start_date, end_date):
    return ResultData(["calendar_date", "is_trading_day"], [])

def query_stock_basic():
    return ResultData(["code", "code_name", "ipoDate", "outDate", "type", "status"], [])
"""
)


def fake_baostock_env(env: dict[str, str], tmp_path: Path, files: dict[str, Path], down: str = "") -> dict[str, str]:
    """`env` with the stand-in baostock package first on the path, serving `files`."""
    package = tmp_path / "fake-baostock" / "baostock"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(FAKE_BAOSTOCK_BY_CODE, encoding="utf-8")
    return dict(
        env,
        PYTHONPATH=str(package.parent),
        FAKE_BAOSTOCK_FILES=json.dumps({code: str(path) for code, path in files.items()}),
        FAKE_BAOSTOCK_DOWN=down,
    )


def pixiu_for_result(
    env: dict[str, str], *args: str, input_text: str | None = None, text: bool = True, timeout: float = 120
) -> CliResult | subprocess.CompletedProcess:
    """`pixiu ARGS` where the subject is the command's result (its output, exit code and files),
    not the process: in process; in a new process only when `env` puts a stand-in library on
    PYTHONPATH (fake_baostock_env), which only a new interpreter imports."""
    if env.get("PYTHONPATH", "") != os.environ.get("PYTHONPATH", ""):
        return subprocess.run(
            [PIXIU_BIN, *args], env=env, input=input_text, capture_output=True, text=text, timeout=timeout
        )
    return pixiu_in_process(env, *args, input_bytes=input_text.encode() if input_text else None, text=text)


def in_process_ok(env: dict[str, str], *args: str, warnings: bool = False) -> str:
    """`pixiu ARGS` in process that must succeed: its stdout (with `warnings`, its stderr after it)."""
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout + done.stderr if warnings else done.stdout


UNEXPECTED = "意外错误"


def in_process_clean(env: dict[str, str], *args: str, input_bytes: bytes | None = None) -> CliResult:
    """`pixiu ARGS` in process, whatever its exit code: never `意外错误` nor a traceback."""
    done = pixiu_in_process(env, *args, input_bytes=input_bytes, text=True)
    assert UNEXPECTED not in done.stderr + done.stdout, done.stderr
    assert "Traceback" not in done.stderr
    return done


def bars_csv(path: Path, *rows: str) -> Path:
    """A market CSV of daily bars (`date,open,high,low,close,volume` rows) at `path`."""
    path.write_text("date,open,high,low,close,volume\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


GOOD_BARS = ("2024-02-27,10,11,9,10,100", "2024-02-28,10,11,9,10.5,100", "2024-02-29,10,11,9,10.2,100")
HOLDING_600519 = {"symbol": "600519", "name": "贵州茅台", "shares": 100, "cost": 1500.0, "role": "core"}


def json_document(tmp_path: Path, **sections) -> Path:
    """A pixiu JSON document (`pixiu import`'s format) holding `sections`."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(sections, ensure_ascii=False), encoding="utf-8")
    return path


def in_process_refused(env: dict[str, str], *args: str) -> str:
    """`pixiu ARGS` in process that must fail with one line and no traceback: that line."""
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 1, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    return done.stderr.strip()


def demo_brief_env(home: Path, now: str) -> dict[str, str]:
    """A fresh home with the demo's holdings and 美的集团's shipped bars, at `now`: what a
    brief is written from."""
    env = clean_env(home, PIXIU_NOW=now)
    assert pixiu_in_process(env, "import", "data/demo/portfolio.json", text=True).returncode == 0
    done = pixiu_in_process(
        env, "data", "import", "data/demo/market/000333.csv", "--symbol", "000333",
        "--actions", "data/demo/market/000333_actions.csv", text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return env


@dataclass
class StandIn:
    """`pixiu` commands in process on `home` at the pinned `now`, with a stand-in module imported
    as an optional library (`sys.modules[library]`: baostock, akshare): no network."""

    monkeypatch: Any
    library: str
    home: Path
    now: str

    def run(self, module, *args: str, now: str | None = None) -> CliResult:
        self.monkeypatch.setitem(sys.modules, self.library, module)
        return pixiu_in_process(clean_env(self.home, PIXIU_NOW=now or self.now), *args, text=True)

    def ok(self, module, *args: str, now: str | None = None) -> str:
        done = self.run(module, *args, now=now)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def block(self, module, question: str, now: str | None = None) -> str:
        """The [上下文信息] block `pixiu context --json` would send for the question."""
        messages = json.loads(self.ok(module, "context", "--json", question, now=now))
        return next(m["content"] for m in messages if m["content"].startswith("[上下文信息]"))


# every surface, one figure ---------------------------------------------------------------
def every_surface(env: dict[str, str], home: Path, now: str, demo: bool = False):
    """The account as `pixiu holdings --json`, the context block of a holdings question, the
    brief's facts and the `get_holdings` tool show it, at `now`."""
    from pixiu_cli.brief.facts import brief_facts
    from pixiu_cli.conversation.agent.tools import ToolContext
    from pixiu_cli.conversation.model_tools import model_tools
    from pixiu_cli.kernel.store.database import open_database
    from pixiu_cli.memory.handle import Memory

    flag = ("--demo",) if demo else ()
    record = json.loads(in_process_ok(env, "holdings", "--json", *flag))
    _risk_agrees(record.pop("risk"), record)  # holdings' own part; the other surfaces are the rest
    block = json.loads(in_process_ok(env, "context", "我的持仓怎么样", "--json", *flag))[-2]["content"]
    at = datetime.fromisoformat(now).replace(tzinfo=SHANGHAI)
    db = open_database(home / ("demo.db" if demo else "pixiu.db"))
    try:
        facts = brief_facts(Brief(db), at)
        ctx = ToolContext(Memory(db), lambda: at)
        tool = model_tools().get("get_holdings").handler(ctx, {}).content
    finally:
        db.close()
    return record, block, facts, tool


def without_risk(record: dict) -> dict:
    """A holdings record (`pixiu holdings --json`, `pixiu mcp`'s holdings) without its risk part,
    once that part is checked against the record's own weights."""
    record = dict(record)
    _risk_agrees(record.pop("risk"), record)
    return record


def _risk_agrees(risk: dict, record: dict) -> None:
    """`holdings --json`'s risk is over the holdings' own weights: its industries hold every
    holding once, and its largest stock is the largest weight."""
    weights = {h["symbol"]: h["weight"] for h in record["holdings"]}
    assert sorted(s for w in risk["industries"] for s in w["symbols"]) == sorted(weights)
    if weights:
        assert risk["largest"]["weight"] == max(weights.values())


def surfaces_agree(record: dict, block: str, facts, tool: dict) -> None:
    """What `every_surface` returned shows the same figures to the cent."""
    from pixiu_cli.conversation.context.quoting import show_money, show_number

    assert facts.account == record
    assert {m.symbol: round(m.value, 2) for m in facts.moves} == {h["symbol"]: h["value"] for h in record["holdings"]}
    assert {m.symbol: round(m.weight, 6) for m in facts.moves} == {h["symbol"]: h["weight"] for h in record["holdings"]}
    figures = ("shares", "cost", "value", "unrealised_pnl", "realised_pnl", "holding_pnl", "weight")
    shown = {h["symbol"]: [h[k] for k in figures] for h in tool["holdings"]}
    assert shown == {h["symbol"]: [h[k] for k in figures] for h in record["holdings"]}
    assert (tool["cash"], tool["total_assets"], tool["stock_value"]) == (
        record["cash"],
        record["total_assets"],
        record["stock_value"],
    )
    for h in record["holdings"]:
        line = next(
            x for x in block.splitlines() if x.startswith("- [") and f"{h['symbol']} " in x and " 股 · 成本 " in x
        )
        assert f"{show_number(h['shares'])} 股 · 成本 {h['cost']:.2f}" in line
        if h["priced"]:
            assert f"浮动盈亏 {h['unrealised_pnl']:+,.2f}" in line and f"仓位 {h['weight'] * 100:.1f}%" in line
    if record["cash"] is not None:
        # the block writes money as it writes numbers: 89,673 and 27,094.95
        cash, assets = show_money(record["cash"]["amount"]), show_money(record["total_assets"])
        assert f"现金 {cash}（" in block and f"总资产 {assets} = " in block


# pixiu mcp, driven by the MCP SDK's own client ----------------------------------------------
def mcp_session(env, agent: str, *flags: str):
    """The SDK's client on `pixiu mcp FLAGS` started as a child process (the stdio transport)."""
    from mcp import Client, StdioServerParameters
    from mcp.types import Implementation

    server = StdioServerParameters(command=sys.executable, args=["-m", "pixiu_cli", "mcp", *flags], env=env)
    return Client(server, client_info=Implementation(name=agent, version="1.0"), read_timeout_seconds=60)


def mcp_in_memory(agent: str, *flags: str):
    """The SDK's client on the server `pixiu mcp FLAGS` builds, over the in-memory transport;
    the settings are read from the environment the caller has set, as the command reads them."""
    from mcp import Client
    from mcp.types import Implementation

    from pixiu_cli.kernel.settings import load_settings
    from pixiu_cli.mcp.reads import Reader
    from pixiu_cli.mcp.server import build_server

    server = build_server(Reader(load_settings()), allow_proposals="--allow-proposals" in flags)
    return Client(server, client_info=Implementation(name=agent, version="1.0"), read_timeout_seconds=60)


def drive_mcp(env, agent: str, flags: tuple[str, ...], steps, *, process: bool = False) -> dict:
    """Runs `steps(client) -> dict` against a fresh server (in process unless `process`); its
    answers. In process the environment is `env` alone and no secret is known beforehand, as
    in a new `pixiu mcp`."""
    import asyncio
    from unittest import mock

    async def run(connect):
        async with connect(agent, *flags) as client:
            return await steps(client)

    if process:
        return asyncio.run(run(lambda *a: mcp_session(env, *a)))
    from pixiu_cli.kernel import safe_text as redact

    with mock.patch.dict(os.environ, env, clear=True), mock.patch.object(redact, "_SECRETS", set()):
        return asyncio.run(run(mcp_in_memory))


def imported_env(root: Path, account: Path, now: str = "2026-12-04T10:15") -> dict[str, str]:
    """A home under `root` (its cache beside it) with `account` imported, the clock at `now`."""
    env = clean_env(root / "home", XDG_CACHE_HOME=str(root / "cache"), PIXIU_NOW=now)
    pixiu_in_process_ok(env, "import", str(account))
    return env


def explained(env: dict[str, str], text: str, *options: str) -> dict:
    """`pixiu context --explain [OPTIONS] TEXT`, read as JSON."""
    import json

    return json.loads(pixiu_in_process_ok(env, "context", "--explain", *options, text))


def mention_of(info: dict, text: str) -> dict:
    """The mention of `text` in an `explained` answer."""
    return next(m for m in info["selection"]["mentions"] if m["text"] == text)


# The accounts of the outsiders' tune sets, imported as a user imports them.
TUNE_DATASETS = Path(__file__).resolve().parents[1] / "data" / "selection" / "tune_5" / "datasets"


def home_of(root: Path, dataset: str, now: str) -> dict[str, str]:
    """A home with the data set imported (its eval-only watch list left out: `pixiu import`
    takes no watch list)."""
    data = json.loads((TUNE_DATASETS / dataset).read_text(encoding="utf-8"))
    data.pop("watch", None)
    account = root / dataset
    account.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return imported_env(root, account, now)


def lazy_homes(tmp_path_factory, accounts: dict[str, tuple[str, str]]):
    """name → a home with that account (data set, clock) of `accounts` imported, made on first use."""
    opened: dict[str, dict[str, str]] = {}

    def home(name: str) -> dict[str, str]:
        if name not in opened:
            opened[name] = home_of(tmp_path_factory.mktemp(name), *accounts[name])
        return opened[name]

    return home


def block_of(env: dict[str, str], text: str) -> str:
    """The [上下文信息] block `pixiu context --json TEXT` would send."""
    return json.loads(pixiu_in_process_ok(env, "context", "--json", text))[-2]["content"]


def section_text(block: str, title: str) -> str:
    """The lines of the block's section with this title."""
    return block.split(f"## {title}", 1)[1].split("## ", 1)[0]


def targets_of(env: dict[str, str], text: str) -> list[str]:
    """The memory classes `pixiu context --explain` says the question asks about."""
    return explained(env, text)["selection"]["targets"]
