"""One declaration per command: its name (a path for a subcommand), its Chinese summary, its
typed parameters, the request they fill, the one service call and the one view, and the
surfaces it appears on. `pixiu X` (commands/typer_surface.py) and `/X` (commands/slash.py)
are generated from it, so the two cannot say, check or show different things."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pixiu_cli.commands.values import CommandError, Flag

CLI, REPL = "cli", "repl"
BOTH = frozenset({CLI, REPL})
REQUIRED = object()  # a parameter without a default: the command cannot run without it


@dataclass(frozen=True)
class Nothing:
    """The request of a command that takes no parameters."""


@dataclass(frozen=True)
class Param:
    name: str  # the request field it fills
    kind: Any  # a value type of commands/values.py
    help: str
    flag: str | None = None  # "--below": an option; None: a positional argument
    default: Any = None
    many: bool = False  # a positional argument taking every remaining word (joined by one space)
    as_typed: bool = False  # in the REPL, the rest of the line exactly as typed (quotes, line breaks)
    label: str | None = None  # how a refusal names it (default: the flag, else the metavar)
    surfaces: frozenset = BOTH
    aliases: tuple[str, ...] = ()  # more spellings of the flag on the command line ("-o")
    within: str | None = None  # a flag that goes only with another's (--last with --push): shown nested

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def metavar(self) -> str:
        return self.kind.metavar or self.name.upper()

    @property
    def called(self) -> str:
        return self.label or self.flag or self.metavar


def argument(name: str, kind, help: str, *, optional: bool = False, **more) -> Param:
    return Param(name, kind, help, default=None if optional else REQUIRED, **more)


def option(flag: str, name: str, kind, help: str, default=None, **more) -> Param:
    return Param(name, kind, help, flag=flag, default=default, **more)


def switch(flag: str, name: str, help: str, **more) -> Param:

    return Param(name, Flag(), help, flag=flag, default=False, **more)


def lazy(target: str) -> Callable:
    """A "package.module:function" imported when first called: `pixiu --help` reads every
    declaration and must not import the services and views they name."""
    module, _, name = target.partition(":")

    def call(*args, **kwargs):
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.target = target
    return call


Spell = Callable[[str], str]  # "alert remove" → "pixiu alert remove" | "/alert remove"


@dataclass(frozen=True)
class Command:
    path: tuple[str, ...]  # ("holdings",), ("trades", "import")
    summary: str
    params: tuple[Param, ...]
    request: Callable[..., Any]  # the request type: built from the parameters by name
    call: Callable[[Context, Any], Any]  # (context, request) → result: the one service call
    view: Callable[[Any, Any, Spell], None]  # (renderer, result, spell): the one view
    record: Callable[[Any], object] | None = None  # --json: the document of the result (CLI)
    surfaces: frozenset = BOTH
    demo: bool = False  # the command line's --demo: the demo database
    context_settings: dict | None = None  # click's, for the command line (ignore_unknown_options)

    @property
    def name(self) -> str:
        return " ".join(self.path)

    def on(self, surface: str) -> tuple[Param, ...]:
        return tuple(p for p in self.params if surface in p.surfaces)


@dataclass(frozen=True)
class Group:
    """Commands under one word (`pixiu alert add`, `/alert add`); `default`: the subcommand run
    when the first word names none (`/alert` lists, `pixiu trades 600036` lists one stock)."""

    path: tuple[str, ...]
    summary: str
    default: str | None = None
    surfaces: frozenset = BOTH


@dataclass
class Context:
    """What a command's service call is handed by the surface running it."""

    surface: str
    renderer: Any
    connect: Callable[[], Any]  # the database, opened on first use
    clock: Callable[[], datetime]
    cost_method: Callable[[], str]
    master: Callable[[], Any] | None = None  # the security master the surface reads names from
    edit_text: Callable[[str], str] | None = None  # the REPL's in-place editor
    settings: Callable[[], Any] | None = None  # the loaded settings (plain data: home, model, cost method…)
    state: Any = None  # the REPL's session (repl/state.py ReplState): its conversation, its app
    demo: bool = False  # the command line's --demo was given
    on_close: Callable[[Callable[[], None]], None] | None = None  # run this when the command ends
    # the command line: the app (agent, conversations, push, prices) for (model, offline), opened
    # with its warnings shown and closed when the command ends; the REPL's is `state.app`
    open_app: Callable[[str | None, bool], Any] | None = None
    turn_status: Callable[[Any], Any] | None = None  # the REPL: a turn's status line figures
    after_turn: Callable[[Any], None] | None = None  # the REPL: what an asked turn leaves (repl/turn.py)
    commands: Callable[[], list[tuple[str, str]]] | None = None  # the REPL: its commands' usage and summary
    _db: Any = field(default=None, repr=False)

    @property
    def db(self):
        if self._db is None:
            self._db = self.connect()
        return self._db

    def tables(self):
        """What the settings' tables configure, built by the wiring (app.configured): trading
        costs, push channels, prices, limits."""
        from pixiu_cli.app import configured

        return configured(self.settings())

    def securities(self):
        from pixiu_cli.kernel.db.shared_stores import stores_of

        return self.master() if self.master else stores_of(self.db).securities

    def resolve_stock(self, typed: str) -> str:
        """A name, short name or alias → its code, through the conversation's name matcher."""
        from pixiu_cli.app import names_cache_dir
        from pixiu_cli.market.stock_codes import resolve_stock

        return resolve_stock(self.db, typed, names_cache_dir())

    def now(self) -> datetime:
        return self.clock()

    def stamp(self) -> str:
        return self.clock().isoformat(timespec="seconds")

    def spell(self, words: str) -> str:
        return f"pixiu {words}" if self.surface == CLI else f"/{words}"


def read_values(command: Command, given: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Each parameter's value from the words typed for it (a list for a `many` one; None when
    absent), read by its type; the parameters of another surface keep their defaults."""
    values = {}
    # another surface's parameter first: one filling the same field on this surface then wins
    for param in sorted(command.params, key=lambda p: ctx.surface in p.surfaces):
        word = given.get(param.name)
        if ctx.surface not in param.surfaces or word is None or word == []:
            if param.required:
                raise CommandError(f"缺少{param.called}：{param.help}")
            values[param.name] = None if param.default is REQUIRED else param.default
            continue
        if param.many and isinstance(word, list) and not getattr(param.kind, "reads_list", False):
            word = " ".join(word)
        values[param.name] = param.kind.read(word, param.called, ctx.resolve_stock)
    return values


def run(command: Command, ctx: Context, given: dict[str, Any], as_json: bool = False) -> int | None:
    """The view's exit status: a view that showed a failure returns 1 (the command line exits so)."""
    request = command.request(**read_values(command, given, ctx))
    result = command.call(ctx, request)
    document = command.record(result) if as_json and command.record is not None else None
    if document is not None:
        ctx.renderer.json(document)
    else:
        return command.view(ctx.renderer, result, ctx.spell)


def run_opened(command: Command, opener: Callable[[bool], Any], given: dict[str, Any]) -> int | None:
    """`run` on the command line: `given` holds the words typed for each parameter and the
    --demo and --json flags; `opener(demo)` is the context manager giving the Context."""
    given = dict(given)
    demo, as_json = given.pop("demo", False), given.pop("as_json", False)
    with opener(demo) as ctx:
        return run(command, ctx, given, as_json)
