"""The composition root, and the only wiring: the plain settings (settings.py) are checked
whole and their tables built into limits, guardrails, prices, costs and push channels here
(`load_settings`, `configured`); the one clock is built from them (`clock_of`); a surface
gets one `Workspace` — the settings, the clock, the database opened on first use and the
areas' handles over it (each built once, handed to one another) — or an `App`, the workspace
with the agent over it (the REPL, `ask`, `brief`). `open_preview` composes only what
assembling a request needs (`pixiu context TEXT`): the agent loop, compaction and guardrails
are imported by `build_agent`, when an agent is built. Each builder imports what it builds, so a one-shot
command loads only what it uses (tests/perf/test_command_modules.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit

from pixiu_cli.home.config import ConfigTables, check_base_url
from pixiu_cli.home.handle import Home
from pixiu_cli.kernel.clock import Clock, clock_at, system_clock
from pixiu_cli.kernel.resources import data_dir, user_cache_dir
from pixiu_cli.kernel.safe_text import has_credentials, mask_url, remember_secret, remember_url
from pixiu_cli.kernel.settings import Commission, Settings, push_variables, shared_config_line
from pixiu_cli.kernel.settings import load_settings as plain_settings
from pixiu_cli.kernel.settings import validate_config as plain_config
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.handle import Market
from pixiu_cli.memory.handle import Memory

if TYPE_CHECKING:
    from sqlite_utils import Database

    from pixiu_cli.account.handle import Account
    from pixiu_cli.account.report import PriceTable
    from pixiu_cli.brief.handle import Brief
    from pixiu_cli.brief.push.config import PushConfig
    from pixiu_cli.conversation.agent.loop import Agent
    from pixiu_cli.conversation.agent.preview import RequestPreview
    from pixiu_cli.conversation.agent.tools import ToolRegistry
    from pixiu_cli.conversation.context.builder import ContextBuilder
    from pixiu_cli.conversation.llm.model import ChatModel
    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.home.config import ConfigTables
    from pixiu_cli.home.handle import Home
    from pixiu_cli.home.store import InvestorStore
    from pixiu_cli.kernel.vocabulary import Guardrails, MemoryLimits
    from pixiu_cli.market.analytics.costs import CostModel
    from pixiu_cli.market.handle import Market
    from pixiu_cli.memory.handle import Memory

OFFLINE_PLACEHOLDER_KEY = "pixiu-offline"
OFFLINE_CACHE_FILE = "offline_cache.db"
DEMO_STATE_FILE = "demo_state.json"


@dataclass
class Workspace:
    """What a surface works on: the settings, the one clock, one database (opened on first
    use; the demo's, re-dated, with `demo`), the areas' handles over it (each built once and
    handed to the others that read it) and what the settings' tables configure. A one-shot
    command gets one of these (cli/common.workspace); the REPL, `ask` and `brief` get an
    `App`, which is one too."""

    settings: Settings
    demo: bool = False
    clock: Clock = system_clock  # clock_of(settings): what every surface of this app takes as now

    @cached_property
    def db(self) -> Database:
        return _opened_domain(self.settings, self.demo, self.clock).db

    @cached_property
    def conversations(self) -> ConversationStore:
        from pixiu_cli.conversation.store import ConversationStore

        return ConversationStore(self.db, clock=self.clock)

    # The areas' handles (each area's api.py), built on first use over the one database: what
    # a use case of another area asks of that area instead of opening its store.
    @cached_property
    def account(self) -> Account:
        from pixiu_cli.account.handle import Account

        return Account(self.db, self.settings.cost_method, home=self.home, market=self.market)

    @cached_property
    def market(self) -> Market:

        return Market(self.db, home=self.home)

    @cached_property
    def memory(self) -> Memory:

        return Memory(self.db, home=self.home, market=self.market, account=self.account)

    @cached_property
    def home(self) -> Home:

        return Home(self.db)

    @cached_property
    def brief(self) -> Brief:
        from pixiu_cli.brief.handle import Brief

        return Brief(self.db, account=self.account)

    def now(self) -> datetime:
        return self.clock()

    @property
    def limits(self) -> MemoryLimits:
        return configured(self.settings).limits

    @property
    def guardrails(self) -> Guardrails:
        return configured(self.settings).guardrails

    @property
    def prices(self) -> PriceTable:
        return configured(self.settings).prices

    @property
    def costs(self) -> CostModel:
        return configured(self.settings).costs

    @property
    def push(self) -> PushConfig:
        return configured(self.settings).push

    def close(self) -> None:
        if "db" in self.__dict__:
            self.db.close()


def open_workspace(settings: Settings, *, demo: bool = False) -> Workspace:
    return Workspace(settings, demo=demo, clock=clock_of(settings))


@dataclass(kw_only=True)
class App(Workspace):
    """The workspace with the agent over its database: what the REPL, `ask` and `brief` run."""

    store: ConversationStore
    agent: Agent
    builder: ContextBuilder
    _offline_server: object | None = field(default=None, repr=False)
    default_model: str = ""  # the model configured (or given with --model) when the app opened

    def __post_init__(self) -> None:
        if not self.default_model and self.settings is not None:  # a test may wire an app without settings
            self.default_model = self.settings.model

    @property
    def db(self) -> Database:
        return self.store.db

    @property
    def conversations(self) -> ConversationStore:
        return self.store

    @property
    def account(self) -> Account:
        """The account the agent's context block values: one derivation, one memo."""
        return self.builder.account

    @property
    def home(self) -> Home:
        return self.builder.market.home

    @property
    def market(self) -> Market:
        return self.builder.market

    @property
    def memory(self) -> Memory:
        """The memory the agent's tools write through."""
        return self.builder.memory

    def use_model(self, name: str) -> None:
        """Requests from now on go to `name` (/model, or a resumed conversation's switch)."""
        self.agent.client.model = name
        self.settings = replace(self.settings, model=name)

    @property
    def model_switched(self) -> bool:
        return self.settings.model != self.default_model

    @property
    def mode_line(self) -> str:
        s = self.settings
        demo = "（演示数据）" if self.demo else ""
        if s.offline and s.offline_by_choice:
            return f"离线模式{demo}（--offline）：已设置 API key，但按你的要求不调用模型；回答来自本地离线应答器，不是真实模型。"
        if s.offline:
            return f"离线模式{demo}：未设置 API key，回答来自本地离线应答器，不是真实模型。设置 DEEPSEEK_API_KEY 后使用 DeepSeek。"
        return f"在线{demo}：{s.provider} · 模型 {s.model} · {mask_url(s.base_url)}"

    def close(self) -> None:
        if self._offline_server is not None:
            self._offline_server.stop()
            self._offline_server = None
        self.store.db.close()


def load_settings(
    *, model: str | None = None, base_url: str | None = None, force_offline: bool = False, home: Path | None = None
) -> Settings:
    """The settings a surface opens: the plain settings (settings.load_settings), checked
    whole here (the base URL, and the tables `configured` builds), their secrets registered
    so that every line pixiu prints masks them, and the warnings about what they chose."""
    settings = plain_settings(model=model, base_url=base_url, force_offline=force_offline, home=home)
    configured(settings)
    return replace(settings, warnings=_warnings(settings))


# The SDK's HTTP client would turn them into `Authorization: Basic` in place of the key.
CREDENTIALS_NOT_SENT = "base_url 中的用户名和密码不会发送（它们会顶替 API key）；API key 按文档以 Bearer 认证头发送。"


def _warnings(settings: Settings) -> tuple[str, ...]:
    """The settings' warnings and the ones only the app can tell; each check imports what it
    needs only when there is something to check."""
    warnings = list(settings.warnings)
    shared_key = shared_config_line(settings.home / "config.toml", "API key")
    if settings.config_shared and shared_key not in warnings and "push" in settings.tables:
        from pixiu_cli.brief.push.config import has_secrets

        if has_secrets(settings.tables["push"]):
            warnings.insert(0, shared_config_line(settings.home / "config.toml", "推送密钥"))
    if settings.provider == "deepseek":
        from pixiu_cli.conversation.llm.model import retired_model_line

        retired = retired_model_line(settings.model)
        if retired:  # DeepSeek itself refuses the name; say so before the first call fails
            warnings.append(retired)
    if not settings.offline and "@" in (settings.base_url or ""):
        if has_credentials(settings.base_url):
            warnings.append(CREDENTIALS_NOT_SENT)
    return tuple(warnings)


def configured(settings: Settings) -> ConfigTables:
    """The objects the settings' tables configure — limits, guardrails, prices, costs, push
    channels — checked and built once per settings (the same for its warnings, or after a
    /model switch); the settings' keys, URLs and push addresses are registered first, so
    that no line pixiu prints shows them."""
    return _configured(replace(settings, warnings=(), model=""))


@lru_cache(maxsize=8)
def _configured(settings: Settings) -> ConfigTables:

    _remember_secrets(settings)
    if settings.chosen_base_url is not None:
        check_base_url(settings.chosen_base_url)
    tables = ConfigTables(settings.tables, settings.push_env)
    if "push" in settings.tables or settings.push_env:
        _remember_push(tables.push)
    return tables


def validate_config(config: dict) -> None:
    """Raise a one-line error if `config` (a parsed config.toml) would not load (`config set`)."""

    plain_config(config)
    ConfigTables(config, push_variables())


def _remember_secrets(settings: Settings) -> None:

    for secret in settings.secrets:
        remember_secret(secret)
    for url in settings.urls:
        remember_url(url)


def _remember_push(push) -> None:
    """A bot's address is its key: the whole address and its long parts (the key or token in
    its path or query) are masked in every line, like an API key."""

    for secret in push.secrets() if push else ():
        remember_secret(secret)
        if "://" not in secret:
            continue
        parts = urlsplit(secret)
        pieces = [*parts.path.split("/"), *(v for _, v in parse_qsl(parts.query)), parts.password, parts.username]
        for piece in pieces:
            if piece and len(piece) >= 16:
                remember_secret(piece)


def names_cache_dir() -> Path:
    """Built name tables, kept between processes (selection/name_cache.py). In the user's
    cache, not the home: a table is keyed by the names it holds, so homes with the same
    names (the demo, a test's fresh home) share it."""
    return user_cache_dir() / "names"


def clock_of(settings: Settings) -> Clock:
    """The one clock of the app: the machine's Beijing time, or PIXIU_NOW's moment. Built here
    and handed to the REPL, the one-shot commands (cli/common.py), the context builder, the
    tools and, through them, every service that needs the time."""
    return clock_at(settings.pinned_now)


def refresh_demo_data(domain: InvestorStore, now: datetime, state_file: Path | None = None) -> None:
    """The demo's dates are relative, so it is re-dated on every start and always looks fresh;
    notes made in conversation are kept. With `state_file`, a start on the same day as the
    last refresh, with the database as that refresh left it, keeps it as it is: re-dating
    would write the same rows and recomputing the analytics would give the same figures."""
    from pixiu_cli.home.demo_state import DemoState

    state = DemoState(state_file, domain.db, now) if state_file is not None else None
    if state is not None and state.unchanged():
        return
    _refresh_demo_data(domain, now)
    if state is not None:
        state.save()


def _refresh_demo_data(domain: InvestorStore, now: datetime) -> None:
    from pixiu_cli.home.document_file import load_document
    from pixiu_cli.market.names.table import securities_for_document

    data = load_document(data_dir() / "demo" / "portfolio.json", now)
    shipped = sorted(p.stem for p in (data_dir() / "demo" / "market").glob("[0-9][0-9][0-9][0-9][0-9][0-9].csv"))
    # Holdings with real bars get computed figures, not the made-up ones.
    data = replace(
        data,
        profiles=[p for p in data.profiles if p.symbol not in shipped],
        signals=[s for s in data.signals if s.symbol not in shipped],
    )
    domain.replace_all(data, keep_own_notes=True)
    market = Market(domain.db, home=Home(domain.db, investor=domain))
    market.securities.upsert(securities_for_document(data, source="demo"), keep_names=True)
    _demo_market(market, shipped, now)


def _demo_market(market: Market, symbols: list[str], now: datetime) -> None:
    """Import the demo's shipped bars once, then compute profiles and signals from them."""
    from pixiu_cli.market.analytics.refresh import refresh
    from pixiu_cli.market.importer import import_csv

    folder = data_dir() / "demo" / "market"
    stored = {s.symbol for s in market.bars.series(symbols) if s.rows}
    for symbol in symbols:
        if symbol not in stored:
            actions = folder / f"{symbol}_actions.csv"
            import_csv(
                market.bars,
                market.securities,
                folder / f"{symbol}.csv",
                symbol,
                at=now.isoformat(timespec="seconds"),
                actions_path=actions if actions.exists() else None,
                today=now.date(),
            )
    refresh(market, symbols, now)


def offline_cache_path(settings: Settings) -> Path:
    return settings.home / OFFLINE_CACHE_FILE


OFFLINE_REQUEST_LOG = 8  # nothing in the app reads the log; a few requests help a debugger


def start_offline_server(settings: Settings):
    """The in-process server of offline mode. Its prompt cache is a file in the pixiu home,
    so one `pixiu ask` per turn gets the hits one long REPL would; its replies say that no
    key is set, which only holds here."""

    from pixiu_cli.conversation.offline.cache import PrefixCache
    from pixiu_cli.conversation.offline.server import OfflineServer, respond_offline

    cache = PrefixCache.persisted(settings.offline_cache_profile, offline_cache_path(settings))
    chosen = settings.offline_by_choice
    return OfflineServer(
        cache=cache, responder=partial(respond_offline, keyless=True, chosen=chosen), request_log=OFFLINE_REQUEST_LOG
    ).start()


class OfflineServerOnDemand:
    """The in-process offline server, started when its address is first needed: the REPL's
    warm-up builds the SDK client once the prompt is drawn (or the first turn does), so the
    prompt does not wait for the server's import and start (~30 ms). Every turn sees the
    same server as if it had been started with the app."""

    def __init__(self, settings: Settings):
        self._settings = settings
        self._server = None
        self._lock = threading.Lock()  # the warm-up thread and a turn may both ask

    @property
    def server(self):
        with self._lock:
            if self._server is None:
                self._server = start_offline_server(self._settings)
            return self._server

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def started(self) -> bool:
        return self._server is not None

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.stop()
            server.cache.close()


def chat_client(settings: Settings, *, base_url=None, api_key=None, model=None, provider=None):
    """The model client the settings describe; an offline server passes its own address and
    names. One place, so every caller gets the same timeouts, retries and deadline."""
    from pixiu_cli.conversation.llm.client import ChatClient

    return ChatClient(
        base_url=base_url or settings.base_url,
        api_key=api_key or settings.api_key,
        model=model or settings.model,
        provider=provider or settings.provider,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
        deadline_seconds=settings.deadline_seconds,
        thinking=settings.thinking,
        reasoning_effort=settings.reasoning_effort,
    )


def _client_of(settings: Settings, server) -> ChatModel:
    """The client for the settings; in offline mode, addressed to `server` (None: not started)."""
    if not settings.offline:
        return chat_client(settings)
    return chat_client(
        settings,
        base_url=(lambda: server.base_url) if server else "http://127.0.0.1/v1 (离线服务未启动)",
        api_key=OFFLINE_PLACEHOLDER_KEY,
        provider="offline",
    )


def _opened_domain(settings: Settings, demo: bool, clock: Clock) -> InvestorStore:
    """The settings' database (the demo's, re-dated, with `demo`)."""

    domain = Home(open_database(settings.demo_db_path if demo else settings.db_path)).investor
    if demo:
        refresh_demo_data(domain, clock(), settings.home / DEMO_STATE_FILE)
    return domain


def open_app(settings: Settings, *, demo: bool = False, calls_model: bool = True) -> App:
    """`calls_model=False` (e.g. a command that only assembles a request) skips starting the
    offline server: nothing will be sent to it."""
    clock = clock_of(settings)
    domain = _opened_domain(settings, demo, clock)
    server = OfflineServerOnDemand(settings) if settings.offline and calls_model else None
    tables = configured(settings)
    agent = build_agent(
        domain.db,
        _client_of(settings, server),
        limits=tables.limits,
        guardrails=tables.guardrails,
        temperature=settings.temperature,
        clock=clock,
        domain=domain,
        cost_method=settings.cost_method,
        names_cache=names_cache_dir(),
        commission=settings.commission,
    )
    return App(
        settings=settings,
        store=agent.store,
        agent=agent,
        builder=agent.builder,
        demo=demo,
        _offline_server=server,
        clock=clock,
    )


@dataclass
class Preview:
    """What `pixiu context` opens: the conversations and the request a turn would send."""

    settings: Settings
    store: ConversationStore
    requests: RequestPreview
    clock: Clock = system_clock

    def close(self) -> None:
        self.store.db.close()


def open_preview(settings: Settings, *, demo: bool = False) -> Preview:
    """The same store, builder, tools and client body as `open_app`'s agent, without the
    agent: assembling a request imports neither the loop nor the model's SDK."""
    from pixiu_cli.conversation.agent.preview import RequestPreview
    from pixiu_cli.conversation.model_tools import model_tools
    from pixiu_cli.conversation.store import ConversationStore

    clock = clock_of(settings)
    domain = _opened_domain(settings, demo, clock)
    store = ConversationStore(domain.db, clock=clock)
    builder = _builder(
        store,
        domain,
        configured(settings).limits,
        clock,
        cost_method=settings.cost_method,
        names_cache=names_cache_dir(),
    )
    requests = RequestPreview(store, builder, _client_of(settings, None), model_tools(), settings.temperature)
    return Preview(settings, store, requests, clock)


def _builder(
    store, domain, limits, clock, *, history_blocks="delta", ablate=frozenset(), cost_method="diluted", names_cache=None
):
    from pixiu_cli.account.handle import Account
    from pixiu_cli.conversation.context.builder import ContextBuilder

    # One home (over `domain`), market and account for the context block and the tools.
    home = Home(domain.db, investor=domain)
    market = Market(domain.db, home=home)
    account = Account(domain.db, cost_method, home=home, market=market)
    return ContextBuilder(
        store,
        domain,
        limits,
        clock=clock,
        history_blocks=history_blocks,
        ablate=ablate,
        account=account,
        names_cache=names_cache,
        market=market,
        memory=Memory(domain.db, home=home, market=market, account=account),
    )


def build_agent(
    db,
    client: ChatModel,
    *,
    limits: MemoryLimits,
    guardrails: Guardrails,
    temperature: float | None,
    clock: Clock,
    domain: InvestorStore | None = None,
    ablate: frozenset[str] = frozenset(),
    tools: ToolRegistry | None = None,
    history_blocks: str = "delta",
    cost_method: str = "diluted",
    names_cache: Path | None = None,
    commission: Commission | None = None,
) -> Agent:
    """The agent over one database: what the REPL, `ask`, the answer evals and the tests all
    run. `client` is any `ChatModel` (the HTTP client, or the offline model in process);
    `tools` and `history_blocks` differ from the product's only in tests. The tools call
    services, which sit above the agent: they are handed to it here."""
    from pixiu_cli.conversation.agent.compaction import Compactor
    from pixiu_cli.conversation.agent.loop import Agent
    from pixiu_cli.conversation.agent.tools import ToolContext
    from pixiu_cli.conversation.model_tools import model_tools
    from pixiu_cli.conversation.store import ConversationStore

    store = ConversationStore(db, clock=clock)
    if domain is None:
        domain = Home(db).investor
    builder = _builder(
        store,
        domain,
        limits,
        clock,
        history_blocks=history_blocks,
        ablate=ablate,
        cost_method=cost_method,
        names_cache=names_cache,
    )
    tool_context = ToolContext(memory=builder.memory, now=clock, commission=commission or Commission())
    return Agent(
        store,
        client,
        builder,
        tools=tools or model_tools(),
        tool_context=tool_context,
        guardrails=guardrails,
        temperature=temperature,
        compactor=Compactor(store, client, budget_tokens=limits.history_budget_tokens),
    )
