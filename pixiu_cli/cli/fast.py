"""Calling `pixiu cache …`, `pixiu context [TEXT] …` and `pixiu data sync [CODES] …` (still
declared; `pixiu`, `chat` and `ask` are plain click commands of the root group) without
typer's parsing when their argv holds only on/off flags, whole-number or text options given
as `--name VALUE`, and plain arguments: typer's parameter coercion imports pydantic just to
check the values' types, and typer itself and every command's declaration are imported just
to build the app, before the answer can be printed. What a command accepts here is what its
typer signature says (the flag names its options declare, their types, bounds and
defaults): a declared command's is read from its declaration (`declared_signature`), and
tests/cli/test_fast_path.py checks each against typer's own reading (`fast_signature`), so
they cannot drift. Anything else (a value typer would refuse, --help, an unknown flag,
`--name=VALUE`, a word starting with "-") goes through typer, which gives its own message."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class ValueOption:
    """An option that takes the next word of argv: an int (within typer's bounds) or a str."""

    parameter: str
    kind: type
    low: int | None = None
    high: int | None = None

    def read(self, word: str) -> object | None:
        """The value typer would pass, or None when typer should look at the word itself."""
        if word.startswith("-") and word != "-":
            return None
        if self.kind is str:
            return word
        if not _PLAIN_INT.fullmatch(word):
            return None
        number = int(word)
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            return None
        return number


_PLAIN_INT = re.compile(r"[0-9]+")  # what every int option here is given; anything else: typer's say


@dataclass(frozen=True)
class FastSignature:
    flags: dict[str, str]  # "--demo" / "-c" → the parameter it sets to True
    values: dict[str, ValueOption]  # "--turn" → how its next word is read
    defaults: dict[str, object]  # every option's default
    arguments: tuple[str, ...]  # the positional parameters, each one word of argv
    required: int  # how many of them argv must give (the optional ones come last)
    many: str | None = None  # the last positional parameter when it takes every word left


@dataclass(frozen=True)
class FastCommand:
    """What the entry point calls with the keyword arguments `signature` reads from argv."""

    run: Callable[..., None]
    signature: FastSignature


def _flag_names(name: str, info) -> list[str]:
    declared = [d for d in info.param_decls or () if d.startswith("-")]
    return declared or [f"--{name.replace('_', '-')}"]


def _value_kind(annotation) -> type | None:
    """int or str for an option this path reads a value for (optionally None), else None."""
    for kind in (int, str):
        if annotation is kind or annotation == (kind | None):
            return kind
    return None


def _plain(info) -> bool:
    """No behaviour beyond its type and bounds that typer would apply to the value."""
    extras = ("callback", "envvar", "parser", "click_type", "count", "clamp", "prompt")
    return not any(getattr(info, extra, None) for extra in extras)  # not every typer has each


def _argument_kind(meta, info) -> str | None:
    """ "required" / "optional" for a plain string argument, None for anything else."""
    if meta.annotation is str and info.default is ...:
        return "required"
    if meta.annotation == (str | None) and info.default is None:
        return "optional"
    if meta.annotation == (list[str] | None) and info.default is None:
        return "many"
    return None


@cache
def fast_signature(command: Callable) -> FastSignature | None:
    """None when a parameter is of a kind this path does not parse (the command then always
    goes through typer). Arguments must be plain strings, the optional ones after the
    required; `bool` options without an on/off pair are flags; int and str options without
    callbacks, parsers or clamping take a value; a last optional list argument takes every
    word left (typer passes it as a list, () when no word is given). Read through typer's
    own reading."""
    from typer.models import ArgumentInfo, OptionInfo
    from typer.utils import get_params_from_function

    flags: dict[str, str] = {}
    values: dict[str, ValueOption] = {}
    defaults: dict[str, object] = {}
    arguments: list[str] = []
    kinds: list[str] = []
    for name, meta in get_params_from_function(command).items():
        info = meta.default
        if isinstance(info, ArgumentInfo):
            kind = _argument_kind(meta, info)
            if kind is None or (kinds and kinds[-1] != "required" and kind == "required") or "many" in kinds:
                return None
            arguments.append(name)
            kinds.append(kind)
            continue
        if not isinstance(info, OptionInfo):
            return None
        defaults[name] = info.default
        names = _flag_names(name, info)
        if meta.annotation is bool and not any("/" in d for d in info.param_decls or ()):
            flags.update(dict.fromkeys(names, name))
        elif (kind := _value_kind(meta.annotation)) is not None and _plain(info):
            values.update(dict.fromkeys(names, ValueOption(name, kind, info.min, info.max)))
    many = arguments[-1] if kinds and kinds[-1] == "many" else None
    return FastSignature(flags, values, defaults, tuple(arguments), kinds.count("required"), many)


def declared_signature(command) -> FastSignature | None:
    """`fast_signature` of the typer function commands/typer_surface.py generates for the
    declared `command`, read from the declaration itself (no typer, no app)."""
    from pixiu_cli.commands.declaration import CLI
    from pixiu_cli.commands.values import Flag, Int, Real

    flags: dict[str, str] = {}
    values: dict[str, ValueOption] = {}
    defaults: dict[str, object] = {}
    arguments: list[str] = []
    kinds: list[str] = []
    for param in command.on(CLI):
        kind = param.kind
        if param.flag is None:
            later_required = kinds and kinds[-1] != "required" and param.required and not param.many
            if kind.cli_type is not str or later_required or "many" in kinds:
                return None
            arguments.append(param.name)
            # a `many` one is optional to typer (the declaration says when it is missing)
            kinds.append("many" if param.many else "required" if param.required else "optional")
        elif isinstance(kind, Flag):
            if "/" not in param.flag:  # an on/off pair is typer's to read
                flags.update(dict.fromkeys((param.flag, *param.aliases), param.name))
            defaults[param.name] = bool(param.default)
        else:
            defaults[param.name] = param.default
            if kind.cli_type in (int, str):
                low, high = (kind.low, kind.high) if isinstance(kind, Int | Real) else (None, None)
                option = ValueOption(param.name, kind.cli_type, low, high)
                values.update(dict.fromkeys((param.flag, *param.aliases), option))
    extras = ([("--json", "as_json")] if command.record else []) + ([("--demo", "demo")] if command.demo else [])
    for flag, name in extras:
        flags[flag], defaults[name] = name, False
    many = arguments[-1] if kinds and kinds[-1] == "many" else None
    return FastSignature(flags, values, defaults, tuple(arguments), kinds.count("required"), many)


def fast_call(
    argv: list[str], commands: Mapping[str, Callable[[], FastCommand]], default: str
) -> tuple[Callable, dict] | None:
    """(the command's run, keyword arguments) when argv needs no parsing beyond what the
    signature declares, else None. An empty argv is the `default` command with every
    default. `commands`: each fast command's name → what loads it (only the one typed is); a
    command of a group is named by its two words ("data sync")."""
    name, rest = (argv[0], argv[1:]) if argv else (default, [])
    if len(argv) > 1 and f"{argv[0]} {argv[1]}" in commands:
        name, rest = f"{argv[0]} {argv[1]}", argv[2:]
    load = commands.get(name)
    command = load() if load else None
    signature = command.signature if command else None
    if signature is None:
        return None
    read = _read_argv(rest, signature)
    if read is None:
        return None
    options, words = read
    if signature.many is not None and len(words) >= len(signature.arguments):
        cut = len(signature.arguments) - 1
        words = [*words[:cut], words[cut:]]  # the list argument takes the rest
    if not signature.required <= len(words) <= len(signature.arguments):
        return None
    absent = {name: () if name == signature.many else None for name in signature.arguments[len(words) :]}
    return command.run, dict(signature.defaults, **options, **absent, **dict(zip(signature.arguments, words)))


def _read_argv(rest: list[str], signature: FastSignature) -> tuple[dict, list[str]] | None:
    """(options given, positional words), or None at the first word typer must read."""
    options: dict[str, object] = {}
    words: list[str] = []
    pending = iter(rest)
    for arg in pending:
        if arg in signature.flags:
            options[signature.flags[arg]] = True
        elif arg in signature.values:
            option = signature.values[arg]
            word = next(pending, None)  # a missing value: typer says so
            value = None if word is None else option.read(word)
            if value is None:
                return None
            options[option.parameter] = value
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            words.append(arg)
    return options, words


def defaults_of(command: Callable) -> dict[str, object]:
    signature = fast_signature(command)
    if signature is None or signature.arguments:
        raise TypeError(f"{command.__name__} cannot be called with its defaults alone")
    return dict(signature.defaults)
