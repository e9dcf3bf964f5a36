"""What the commands share: the one-line error, opening the settings, the workspace a command
runs on (the REPL's app, or one opened for the command), the renderer it shows through, and
reading what was typed. Heavy modules are imported inside the functions so `pixiu --help`
stays fast (no openai).

The one line for a command line typer's parser refuses (an unknown flag or command, a value
out of range, a missing argument): in Chinese, naming the flag, with where to find the usage.
The parser's own text is English and several lines; its exception says what went wrong, and
only that is read here. The fast path (cli/fast.py) leaves every such command line to typer,
so this is the one place its refusals are worded."""

from __future__ import annotations

import re
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime

import click

from pixiu_cli.commands.values import read_stdin_text, require_utf8  # noqa: F401  (the ask's and the context's)
from pixiu_cli.kernel.errors import UserError

# The `pixiu` command group (cli/root.py), handed down by the entry point: the REPL runs
# `/X` through it, and it holds the REPL (its default command), so the REPL cannot name it.
command_group = None  # () -> click.Group


class CliError(UserError):
    """One line for the user, exit status 1."""


def renderer(**kw):
    from pixiu_cli.kernel.render import Renderer

    return Renderer(**kw)


# The settings one run of `main` has read, by (model, offline): a command reads them once,
# however many of the helpers here it calls. None outside `main` (a test calling a command
# function directly reads them on each call, as its environment may change in between).
_READ: dict | None = None


@contextmanager
def one_invocation():
    """One command: the settings are read once in it, and forgotten after it."""
    global _READ
    _READ = {}
    try:
        yield
    finally:
        _READ = None


def settings(model: str | None = None, offline: bool = False):
    from pixiu_cli.app import load_settings

    if _READ is None:
        return load_settings(model=model, force_offline=offline)
    if (model, offline) not in _READ:
        _READ[model, offline] = load_settings(model=model, force_offline=offline)
    return _READ[model, offline]


def open_app(model: str | None, offline: bool, demo: bool = False, calls_model: bool = True):
    from pixiu_cli.app import open_app as open_composed

    return open_composed(settings(model, offline), demo=demo, calls_model=calls_model)


@contextmanager
def opened(
    model: str | None,
    offline: bool,
    demo: bool,
    resume: int | None,
    continue_: bool,
    new_if_none: bool = False,
    shown=None,
):
    """Open the app, show configuration warnings (on `shown`, a renderer, or a new one), and
    pick the conversation to continue (None for a new one, also for `continue_` with none
    when `new_if_none`); the app is closed however the command ends."""
    from pixiu_cli.conversation.ask import pick_conversation

    shown = shown or renderer()
    app_ = open_app(model, offline, demo)
    try:
        for warning in app_.settings.warnings:
            shown.warn(warning)
        conversation_id = pick_conversation(app_.store, resume, continue_, new_if_none)
        if conversation_id is not None and model is None:  # an explicit --model wins over the stored switch
            _continue_with_its_model(app_, conversation_id)
        yield shown, app_, conversation_id
    except Exception as exc:
        from pixiu_cli.conversation.presenters import error_line

        try:  # a turn this error cut off is labelled with its real cause
            app_.store.fail_own_pending(error_line(exc))
        except Exception:
            pass  # e.g. the disk is still full: it is labelled when the conversation reopens
        raise
    finally:
        app_.close()


def _continue_with_its_model(app_, conversation_id: int) -> None:
    from pixiu_cli.conversation.ask import resumed_model

    conversation = app_.store.get_conversation(conversation_id)
    if conversation is not None:
        app_.use_model(resumed_model(conversation, app_.default_model))


def db_path(loaded, demo: bool):
    return loaded.demo_db_path if demo else loaded.db_path


@contextmanager
def workspace(demo: bool = False):
    """The command's workspace (app.Workspace): the settings, the app's clock, the database
    (the demo's with `demo`, re-dated as the chat's is) and its stores, closed when the
    command ends."""
    from pixiu_cli.app import open_workspace

    opened = open_workspace(settings(), demo=demo)
    try:
        yield opened
    finally:
        opened.close()


@contextmanager
def database(demo: bool = False):
    """The database of the command's workspace, closed when the command ends."""
    with workspace(demo) as opened:
        yield opened.db


def clock(loaded=None):
    """The app's clock (app.clock_of) for a command: PIXIU_NOW pins it, so a test can run a
    command or the REPL's market checks at a chosen session (after a close, on a holiday)."""
    from pixiu_cli.app import clock_of

    return clock_of(loaded or settings())


def now(loaded=None) -> datetime:
    """Beijing time on the app's clock; `loaded`: the settings the command already read."""
    return clock(loaded)()


def stamp(loaded=None) -> str:
    return now(loaded).isoformat(timespec="seconds")


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is None or sys.stdin.isatty()
    except (AttributeError, ValueError):  # closed or replaced
        return True


def configured(loaded=None):
    """What the settings' tables configure (app.configured): limits, guardrails, prices,
    costs and push channels; `loaded`: the settings the command already read."""
    from pixiu_cli.app import configured as tables

    return tables(loaded or settings())


# What a command runs against, from click's context: the REPL invokes the command group with
# its session as `obj` (repl/slash.py), the command line with none. A one-shot command's
# workspace is opened on first use and closed when the command ends.


def _root():
    return click.get_current_context().find_root()


# The REPL's line after `/word`, exactly as typed, while the command runs (repl/slash.py): a
# command reading free text takes it from there (quotes, line breaks). None on the command line.
_TYPED: ContextVar[str | None] = ContextVar("typed_args", default=None)


def typed_args() -> str | None:
    return _TYPED.get() if repl_state() is not None else None


@contextmanager
def typed(raw: str | None):
    """`raw` as the typed line of the command run inside."""
    token = _TYPED.set(raw)
    try:
        yield
    finally:
        _TYPED.reset(token)


def repl_state():
    """The REPL's session when the REPL runs the command, else None."""
    return _root().obj


def on_workspace(demo: bool | None = None):
    """The one workspace (app.Workspace) of the running command: the REPL's app, or one over
    the settings' database (the demo's with --demo)."""
    root = _root()
    if root.obj is not None:
        return root.obj.app
    opened = root.meta.get("pixiu.workspace")
    if opened is None:
        if demo is None:
            demo = bool(click.get_current_context().params.get("demo"))
        opened = root.meta["pixiu.workspace"] = root.with_resource(workspace(demo))
    return opened


def shown():
    """The renderer the running command shows its result on."""
    root = _root()
    if root.obj is not None:
        return root.obj.renderer
    return root.meta.setdefault("pixiu.renderer", renderer())


def spell(words: str) -> str:
    """A command as the surface running it spells it: `pixiu alert remove` / `/alert remove`."""
    return f"pixiu {words}" if repl_state() is None else f"/{words}"


def resolve_stock(typed: str) -> str:
    """A name, short name or alias → its code, through the conversation's name matcher."""
    from pixiu_cli.app import names_cache_dir
    from pixiu_cli.market.handle import resolve_stock as resolve

    return resolve(on_workspace().market, typed, names_cache_dir())


def finish(status) -> None:
    """A view that showed a failure returns 1: the command line exits so."""
    if status:
        click.get_current_context().exit(status)


class _Errors:
    """The parser's exception classes: click's, and typer's own copy of click's when a
    command went through typer (the commands not yet plain click commands)."""

    def __getattr__(self, name: str) -> tuple[type, ...]:
        modules = [click.exceptions]
        if "typer" in sys.modules:
            modules.append(sys.modules[sys.modules["typer"].BadParameter.__module__])
        return tuple(getattr(m, name) for m in modules if hasattr(m, name))


_errors = _Errors()

_NEGATIVE = re.compile(r"-\d")
_UNEXPECTED = re.compile(r"unexpected extra argument(?:\(s\)|s)?\s*\((.*)\)", re.S)
_NO_COMMAND = re.compile(r"No such command '([^']*)'(?:\. Did you mean '([^']*)')?")


def is_usage_error(exc: BaseException) -> bool:
    return isinstance(exc, _errors.UsageError) and not isinstance(exc, getattr(_errors, "NoArgsIsHelpError", ()))


def usage_line(exc: BaseException, argv: list[str], root=None) -> str:
    """`exc`: a usage error of the parser; `argv`: the words after `pixiu`; `root`: the click
    command of `pixiu`, to name the subcommand when the parser did not (an option's value)."""
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else _command_path(root, argv)
    return f"{what(exc, argv)}（{path} --help 查看用法）"


def _command_path(root, argv: list[str]) -> str:
    """`pixiu data sync` for argv `data sync --since`: the leading words that name commands."""
    words, command = ["pixiu"], root
    for word in argv:
        found = command.get_command(None, word) if hasattr(command, "get_command") else None
        if found is None:
            break
        words.append(word)
        command = found
    return " ".join(words)


def what(exc, argv: list[str]) -> str:
    if isinstance(exc, _errors.NoSuchOption):
        return _no_such_option(exc, argv)
    if isinstance(exc, _errors.MissingParameter):
        about = getattr(exc.param, "help", None)
        return f"缺少{_kind(exc.param)} {_name(exc.param)}" + (f"：{about}" if about else "")
    if isinstance(exc, _errors.BadParameter):
        return _bad_value(exc)
    if isinstance(exc, _errors.BadOptionUsage):
        name = exc.option_name
        return f"{name} 不接受值" if "does not take" in exc.message else f"{name} 后面需要一个值"
    message = getattr(exc, "message", "") or str(exc)
    if m := _NO_COMMAND.search(message):
        return f"没有 {m.group(1)} 这个命令" + (f"，是否想用 {m.group(2)}" if m.group(2) else "")
    if m := _UNEXPECTED.search(message):
        return f"多余的参数：{m.group(1)}"
    if "Missing command" in message:
        return "缺少子命令"
    return "命令行参数有误"


def negative_number(name: str, argv: list[str]) -> str | None:
    """The refusal of a negative number click read as a short option ("-5" or "-100" read as
    "-5", "-1"), naming the word as typed; None for any other option. Both surfaces say it."""
    if not _NEGATIVE.match(name):
        return None
    word = next((w for w in argv if w.startswith(name) and _is_number(w)), name)
    return f"{word} 不是选项：这里的数值不能为负"


def _no_such_option(exc, argv: list[str]) -> str:
    name = exc.option_name
    if negative := negative_number(name, argv):
        return negative
    near = sorted(getattr(exc, "possibilities", None) or ())
    return f"没有 {name} 这个选项" + (f"，是否想用 {'、'.join(near)}" if near else "")


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _kind(param) -> str:
    return "参数" if getattr(param, "param_type_name", "") == "argument" else "选项"


def _name(param) -> str:
    if param is None:
        return ""
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("-")]
    return " / ".join(opts) if opts else str(getattr(param, "metavar", None) or param.name)  # as --help names it


def _bad_value(exc) -> str:
    """'--limit 应为 1 到 1000 之间的整数，而不是 0'."""
    param = exc.param
    name = _name(param) if param is not None else (exc.param_hint or "参数")
    low, high, kind = _bounds(param)
    given = _given(exc)
    shown = f"，而不是 {given}" if given is not None else ""
    if low is not None and high is not None:
        return f"{name} 应为 {low} 到 {high} 之间的{kind}{shown}"
    if low is not None:
        return f"{name} 应为不小于 {low} 的{kind}{shown}"
    if high is not None:
        return f"{name} 应为不大于 {high} 的{kind}{shown}"
    return f"{name} 应为{kind}{shown}"


def _bounds(param) -> tuple[object, object, str]:
    """(min, max, what kind of value) as the command declares the parameter."""
    info = getattr(getattr(param, "type_descriptor", None), "parameter_info", None)
    kind_of = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if info is None:  # a click-typed parameter: IntRange / FloatRange, or cli/params.py's Int and Real
        info = getattr(param, "type", None)
        named_int = getattr(info, "name", None) == "integer"
        kind_of = int if named_int else getattr(info, "kind", None) or type(getattr(info, "min", None))
    kind = {int: "整数", float: "数字"}.get(_plain_type(kind_of), "有效值")
    return getattr(info, "min", None), getattr(info, "max", None), kind


def _plain_type(annotation) -> type | None:
    for kind in (int, float):
        if annotation is kind or annotation == (kind | None):
            return kind
    return None


def _given(exc) -> str | None:
    """The value typed, where the parser kept it (its validation error's input)."""
    if getattr(exc, "given", None) is not None:  # a click type of cli/params.py keeps it
        return exc.given
    cause = exc.__cause__
    errors = getattr(cause, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
        except (IndexError, TypeError):
            return None
        value = first.get("input")
        return None if value is None else str(value)
    return None
