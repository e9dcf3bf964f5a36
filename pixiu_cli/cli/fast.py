"""Calling `pixiu`, `pixiu chat …` and `pixiu ask TEXT …` without typer's parsing when their
argv holds nothing but on/off flags: typer's parameter coercion imports pydantic just to
check that the flags are bools, before the prompt can show or the question can be sent.
What a command accepts here is read from its own typer signature (the flag names its
options declare, its defaults), so the two cannot drift; anything else (a value, --help,
an unknown flag, a question starting with "-") goes through typer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from typer.models import ArgumentInfo, OptionInfo
from typer.utils import get_params_from_function


@dataclass(frozen=True)
class FastSignature:
    flags: dict[str, str]  # "--demo" / "-c" → the parameter it sets to True
    defaults: dict[str, object]  # every option's default
    arguments: tuple[str, ...]  # the positional parameters, each one word of argv


def _flag_names(name: str, info: OptionInfo) -> list[str]:
    declared = [d for d in info.param_decls or () if d.startswith("-")]
    return declared or [f"--{name.replace('_', '-')}"]


@cache
def fast_signature(command: Callable) -> FastSignature | None:
    """None when a parameter is of a kind this path does not parse (it then always goes
    through typer): arguments must be plain strings (given: an optional one absent from
    argv goes through typer), and only `bool` options
    without an on/off pair are flags. Read through typer's own reading of the signature."""
    flags: dict[str, str] = {}
    defaults: dict[str, object] = {}
    arguments: list[str] = []
    for name, meta in get_params_from_function(command).items():
        info = meta.default
        if isinstance(info, ArgumentInfo):
            # a plain string, required or optional (None when absent: then typer parses argv)
            if not (meta.annotation is str and info.default is ...) and not (
                meta.annotation == (str | None) and info.default is None
            ):
                return None
            arguments.append(name)
            continue
        if not isinstance(info, OptionInfo):
            return None
        defaults[name] = info.default
        if meta.annotation is bool and not any("/" in d for d in info.param_decls or ()):
            flags.update(dict.fromkeys(_flag_names(name, info), name))
    return FastSignature(flags, defaults, tuple(arguments))


def fast_call(argv: list[str], commands: dict[str, Callable], default: str) -> tuple[Callable, dict] | None:
    """(command, keyword arguments) when argv needs no parsing beyond on/off flags, else None.
    An empty argv is the `default` command with every default."""
    name, rest = (argv[0], argv[1:]) if argv else (default, [])
    command = commands.get(name)
    signature = fast_signature(command) if command else None
    if signature is None:
        return None
    kwargs, words = dict(signature.defaults), []
    for arg in rest:
        if arg in signature.flags:
            kwargs[signature.flags[arg]] = True
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            words.append(arg)
    if len(words) != len(signature.arguments):
        return None
    return command, dict(kwargs, **dict(zip(signature.arguments, words)))


def defaults_of(command: Callable) -> dict[str, object]:
    signature = fast_signature(command)
    if signature is None or signature.arguments:
        raise TypeError(f"{command.__name__} cannot be called with its defaults alone")
    return dict(signature.defaults)
