"""The kinds of value a command's parameter takes, as click parameter types: each reads one
typed word the same way for `pixiu X` and `/X`, and a word that does not fit is one Chinese
line (a `CommandError`, raised past click so neither surface rewords it; nothing has been
done yet). Bounds are click's own (IntRange-like `low`/`high`, reported through cli/usage.py,
which names them). `shown`: the placeholder the REPL's usage line shows; `complete`: what Tab
offers for it (a completion source's name, or the words)."""

from __future__ import annotations

import click

from pixiu_cli.commands.common import resolve_stock
from pixiu_cli.commands.values import Choice as _Choice
from pixiu_cli.commands.values import CommandError, read_stdin_text, require_utf8, whole_number
from pixiu_cli.commands.values import Day as _Day
from pixiu_cli.commands.values import Number as _Number
from pixiu_cli.commands.values import SeriesCode as _SeriesCode
from pixiu_cli.commands.values import StockCode as _StockCode
from pixiu_cli.commands.values import Text as _Text

__all__ = ["CommandError", "Choice", "Codes", "Day", "Int", "Number", "Real", "SeriesCode", "StockCode", "Text"]


class Kind(click.ParamType):
    """A click type over one of the kinds' readers; `label` names the value in a refusal."""

    name = "text"
    shown = "文本"
    complete: str | tuple[str, ...] | None = None

    def __init__(self, shown: str | None = None, label: str | None = None):
        self.shown = shown or self.shown
        self.label = label

    def called(self, param) -> str:
        if self.label:
            return self.label
        flags = [o for o in getattr(param, "opts", ()) if o.startswith("-")]
        return flags[0] if flags else self.shown

    def read(self, word: str, label: str):
        return word

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value  # a default, already a value
        return self.read(value, self.called(param))


class Text(Kind):
    def __init__(self, shown: str = "文本", label: str | None = None, complete: str | None = None):
        super().__init__(shown, label)
        self.complete = complete

    def read(self, word, label):
        return _Text().read(word, label)


class Question(Kind):
    """A question to ask: "-" reads it from standard input; undecodable bytes are refused."""

    shown = "TEXT"

    def read(self, word, label):
        text = read_stdin_text() if word == "-" else word
        require_utf8(text)
        return text


class Number(Kind):
    """A decimal number (money, shares) read exactly; `positive`: above zero."""

    name = "number"
    shown = "数值"

    def __init__(self, shown: str = "数值", positive: bool = False, label: str | None = None):
        super().__init__(shown, label)
        self.positive = positive

    def read(self, word, label):
        return _Number(self.shown, self.positive).read(word, label)


class Choice(Kind):
    """One of a few words; completion offers them."""

    name = "choice"

    def __init__(self, choices: tuple[str, ...], shown: str = "", label: str | None = None):
        super().__init__(shown or "|".join(choices), label)
        self.choices = choices
        self.complete = choices

    def read(self, word, label):
        return _Choice(self.choices).read(word, label)


class StockCode(Kind):
    """A stock: a code in any spelling, or a name, short name or alias (through the name
    matcher, with the command's database)."""

    name = "code"
    shown = "代码"
    complete = "stock"

    def read(self, word, label):

        return _StockCode().read(word, label, resolve_stock)


def _within(kind, number, value, param, ctx):
    """`number` when it was read (not None, not NaN) and lies within the kind's [min, max];
    else click's refusal, carrying the word as typed for the Chinese wording."""
    if (
        number is None
        or number != number
        or (kind.min is not None and number < kind.min)
        or (kind.max is not None and number > kind.max)
    ):
        error = click.BadParameter(str(value), ctx=ctx, param=param)
        error.given = str(value)
        raise error
    return number


class Int(Kind):
    """A whole number within [low, high]: out of bounds it is click's refusal, worded by
    cli/usage.py on both surfaces ("--limit 应为 1 到 1000 之间的整数，而不是 0")."""

    name = "integer"
    shown = "N"

    def __init__(self, low: int | None = None, high: int | None = None, shown: str = "N", label=None):
        super().__init__(shown, label)
        self.min, self.max = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        return _within(self, whole_number(str(value)), value, param, ctx)


class Real(Kind):
    """A number of seconds within [low, high]: out of bounds (or not a number) it is click's
    refusal, worded by cli/usage.py as a number's ("--timeout 应为不小于 1 的数字，而不是 0.5")."""

    name = "float"
    shown = "秒"
    kind = float  # cli/usage.py: a number, though the bound is written whole

    def __init__(self, low: float | None = None, high: float | None = None, shown: str = "秒", label=None):
        super().__init__(shown, label)
        self.min, self.max = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, int | float):
            return float(value)
        try:
            number = float(value)
        except ValueError:
            number = None
        return _within(self, number, value, param, ctx)


class Day(Kind):
    """A calendar day written YYYY-MM-DD, kept as that text."""

    name = "day"
    shown = "YYYY-MM-DD"

    def read(self, word, label):
        return _Day().read(word, label)


class SeriesCode(StockCode):
    """A stock, or an index benchmark (sh000300, 沪深300)."""

    def read(self, word, label):

        return _SeriesCode().read(word, label, resolve_stock)


def Codes(series: bool = False) -> Kind:
    """Each of several words a stock (`series`: or an index benchmark): a `many` argument's type."""
    return SeriesCode() if series else StockCode()


class Command(click.Command):
    """A command that refuses words it takes no place for before it reads any value: `/news
    bogus x` is the usage line, as under the declared framework, not a look-up of "bogus"."""

    def parse_args(self, ctx, args):
        if not ctx.resilient_parsing and not ctx.allow_extra_args:
            _, rest, _ = self.make_parser(ctx).parse_args(args=list(args))
            if rest:
                ctx.fail(f"Got unexpected extra argument{'s' if len(rest) > 1 else ''} ({' '.join(rest)})")
        return super().parse_args(ctx, args)


class DefaultGroup(click.Group):
    """A group whose `default` subcommand takes the words when the first one names no other
    (`pixiu trades 600036` is `pixiu trades list 600036`; `/cash` is `/cash show`)."""

    command_class = Command

    def __init__(self, *args, default: str | None = None, **kwargs):
        kwargs.setdefault("invoke_without_command", False)
        super().__init__(*args, **kwargs)
        self.default = default
        self.no_args_is_help = default is None

    def list_commands(self, ctx):
        return list(self.commands)  # the declared order, not sorted

    def parse_args(self, ctx, args):
        if self.default and (not args or (args[0] not in self.commands and args[0] != "--help")):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


def group(name: str, help: str, default: str | None = None) -> DefaultGroup:
    return DefaultGroup(name, help=help, default=default)


json_option = click.option("--json", "as_json", is_flag=True, help="输出一个 JSON 文档")
demo_option = click.option("--demo", is_flag=True, is_eager=True, help="使用演示数据库")


CLI, REPL = "cli", "repl"
BOTH = (CLI, REPL)


class Argument(click.Argument):
    """A positional parameter with its help: a refusal of a missing one names what it is.
    `surfaces`: where it is taken (a `SurfaceCommand` drops it elsewhere)."""

    def __init__(self, *args, help: str | None = None, surfaces=BOTH, **kwargs):
        super().__init__(*args, **kwargs)
        self.help = help
        self.surfaces = surfaces

    def make_metavar(self, *_) -> str:
        """The placeholder, bracketed when optional and dotted when it takes every word left
        (`[CODES]...`), as --help's usage line showed it."""
        shown = self.metavar if self.required else f"[{self.metavar}]"
        return shown + ("..." if self.nargs != 1 else "")


def argument(name: str, type: Kind, help: str, required: bool = True, many: bool = False, **more):
    """`many`: every remaining word (a tuple, empty when none is given)."""
    more.setdefault("metavar", name.upper())
    more.setdefault("nargs", -1 if many else 1)
    return click.argument(name, cls=Argument, type=type, help=help, required=required, **more)


class Option(click.Option):
    """An option taken on `surfaces` only (see `SurfaceCommand`); `within`: the flag it goes
    with (`--last` with `--push`), which the REPL's usage line shows it inside."""

    def __init__(self, *args, surfaces=BOTH, within: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.surfaces = surfaces
        self.within = within


def option(*decls, **kwargs):
    return click.option(*decls, cls=Option, **kwargs)


def on_repl(ctx: click.Context | None) -> bool:
    """The REPL runs the group with its session as the root's `obj` (repl/slash.py)."""
    return ctx is not None and ctx.find_root().obj is not None


class SurfaceCommand(click.Command):
    """A command some of whose parameters are one surface's alone (`surfaces=(CLI,)`): the
    other surface neither shows nor takes them (typed there, it is an unknown option or an
    extra word), and the command is called with their defaults."""

    def get_params(self, ctx):
        surface = REPL if on_repl(ctx) else CLI
        return [p for p in super().get_params(ctx) if surface in getattr(p, "surfaces", BOTH)]

    def parse_args(self, ctx, args):
        rest = super().parse_args(ctx, args)
        taken = self.get_params(ctx)
        for param in self.params:
            if param not in taken and param.name not in ctx.params:
                value, _ = param.handle_parse_result(ctx, {}, [])  # its default, as click reads it
                ctx.params[param.name] = None if value is _NO_VALUE else value
        alone = [p for p in taken if getattr(p, "within", None) and ctx.params[p.name] and not ctx.params[p.within]]
        if alone and on_repl(ctx):  # the REPL says its usage line (repl/slash.py); the command says why
            raise click.UsageError(f"{alone[0].opts[0]} 只与 --{alone[0].within} 一起使用", ctx)
        return rest


_NO_VALUE = getattr(click.core, "UNSET", None)  # click 8.3+: what an absent value is before the command sees it
