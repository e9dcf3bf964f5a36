"""The command line's side of a declaration: a typer command whose signature (a generated
`__signature__` of typer.Argument / typer.Option defaults) comes from the declared
parameters, registered into the `pixiu` app; a group runs its default subcommand when the
first word names none (`pixiu trades 600036` is `pixiu trades list 600036`). typer reads
the words (its refusals are worded by cli/usage.py); the declared types read the values."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Annotated

import typer
from typer.core import TyperGroup

from pixiu_cli.commands.declaration import CLI, Command, Group, Param, run_opened
from pixiu_cli.commands.values import Flag, Int, Real

Opener = Callable[[bool], object]  # demo → a context manager giving the command's Context


class DefaultGroup(TyperGroup):
    """A group whose `default` subcommand takes the words when the first one names no other."""

    default: str | None = None

    def parse_args(self, ctx, args):
        if self.default and (not args or (args[0] not in self.commands and args[0] != "--help")):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


def _group_class(default: str | None) -> type[TyperGroup]:
    return type("DeclaredGroup", (DefaultGroup,), {"default": default}) if default else TyperGroup


def _metavar(param: Param) -> str:
    """The declared placeholder when it is ASCII: click aligns help columns by characters,
    and a Chinese one is two columns wide."""
    return param.metavar if param.metavar.isascii() else param.name.upper()


def _annotation(param: Param):
    kind = param.kind
    if param.flag is None:
        info = typer.Argument(help=param.help, metavar=_metavar(param), show_default=False)
        if param.many:
            return Annotated[list[str] | None, info], None
        plain = kind.cli_type if param.required else kind.cli_type | None
        return Annotated[plain, info], (inspect.Parameter.empty if param.required else None)
    if isinstance(kind, Flag):
        return Annotated[bool, typer.Option(param.flag, *param.aliases, help=param.help)], bool(param.default)
    bounds = {"min": kind.low, "max": kind.high} if isinstance(kind, Int | Real) else {}
    info = typer.Option(param.flag, *param.aliases, help=param.help, metavar=_metavar(param), **bounds)
    return Annotated[kind.cli_type | None, info], param.default


# The options several commands take: the declared ones' --json and --demo, and the typer
# commands' of cli/ (chat, ask, eval, mcp).
ModelOpt = Annotated[str | None, typer.Option("--model", help="模型名（覆盖 PIXIU_MODEL）")]
OfflineOpt = Annotated[bool, typer.Option("--offline", help="即使设置了 API key 也使用离线应答器")]
DemoOpt = Annotated[bool, typer.Option("--demo", help="使用演示数据库")]
JsonOpt = Annotated[bool, typer.Option("--json", help="输出一个 JSON 文档")]

_EXTRAS = {"as_json": (JsonOpt, False), "demo": (DemoOpt, False)}


def typer_function(command: Command, opener: Opener) -> Callable:
    """The function typer registers for `command`: its parameters are the declared ones."""

    def declared_command(**given) -> None:
        status = run_opened(command, opener, given)
        if status:
            raise typer.Exit(status)

    parameters = [(p.name, *_annotation(p)) for p in command.on(CLI)]
    extras = (["as_json"] if command.record else []) + (["demo"] if command.demo else [])
    parameters += [(name, *_EXTRAS[name]) for name in extras]
    declared_command.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=a) for n, a, d in parameters]
    )
    declared_command.__annotations__ = {n: a for n, a, _ in parameters}
    declared_command.__name__ = "_".join(command.path)
    declared_command.__doc__ = command.summary
    declared_command.declaration = command  # tests: the command line's commands come from declarations
    return declared_command


def register(app: typer.Typer, declared: Iterable[Command | Group], tops: Iterable[str], opener: Opener) -> None:
    """Register the declarations under the top-level words `tops`, in that order."""
    items = [d for d in declared if CLI in d.surfaces]
    for top in tops:
        _register_under(app, (top,), items, opener)


def _register_under(parent: typer.Typer, path: tuple[str, ...], items: list, opener: Opener) -> None:
    group = next((d for d in items if isinstance(d, Group) and d.path == path), None)
    if group is None:
        command = next(d for d in items if isinstance(d, Command) and d.path == path)
        parent.command(path[-1], help=command.summary, context_settings=command.context_settings)(
            typer_function(command, opener)
        )
        return
    sub = typer.Typer(
        help=group.summary, cls=_group_class(group.default), no_args_is_help=group.default is None, add_completion=False
    )
    for child in dict.fromkeys(
        d.path[: len(path) + 1] for d in items if d.path[: len(path)] == path and d.path != path
    ):
        _register_under(sub, child, items, opener)
    parent.add_typer(sub, name=path[-1])
