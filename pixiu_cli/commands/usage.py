"""The one line for a command line typer's parser refuses (an unknown flag or command, a value
out of range, a missing argument): in Chinese, naming the flag, with where to find the usage.
The parser's own text is English and several lines; its exception says what went wrong, and
only that is read here. The fast path (cli/fast.py) leaves every such command line to typer,
so this is the one place its refusals are worded."""

from __future__ import annotations

import re
import sys

import click.exceptions


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


def _no_such_option(exc, argv: list[str]) -> str:
    name = exc.option_name
    if _NEGATIVE.match(name):
        # "-5" or "-100" read as short options "-5", "-1": name the word as typed
        word = next((w for w in argv if w.startswith(name) and _is_number(w)), name)
        return f"{word} 不是选项：这里的数值不能为负"
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
