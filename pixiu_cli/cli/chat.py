"""`pixiu chat` (the REPL, the default command) and `pixiu ask` (one question, then exit):
their typer options; what they do is in talk.py."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.commands import typer_surface


def chat(
    demo: Annotated[bool, typer.Option("--demo", help="使用演示数据库（真实 A 股名称的示例持仓）")] = False,
    resume: Annotated[int | None, typer.Option("--resume", help="继续指定 ID 的对话")] = None,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="继续最近的对话")] = False,
    model: typer_surface.ModelOpt = None,
    offline: typer_surface.OfflineOpt = False,
) -> None:
    """交互式对话（默认命令）。"""
    from pixiu_cli.cli import talk

    talk.chat(demo, resume, continue_, model, offline)


def ask(
    text: Annotated[str | None, typer.Argument(help="问题；为 - 或省略（从管道输入）时从标准输入读取")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="输出一个 JSON 对象")] = False,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="接着最近的对话问")] = False,
    conversation: Annotated[int | None, typer.Option("--conversation", help="接着指定 ID 的对话问")] = None,
    model: typer_surface.ModelOpt = None,
    offline: typer_surface.OfflineOpt = False,
    demo: typer_surface.DemoOpt = False,
    retry_partial: Annotated[
        bool | None,
        typer.Option(
            "--retry-partial/--no-retry-partial",
            help="回复中途断开时自动重新生成（--json 时默认开启）；开启后回答在完成后一次输出",
        ),
    ] = None,
) -> None:
    """问一个问题并退出（不进入交互界面）。"""
    from pixiu_cli.cli import talk

    talk.ask(text, as_json, continue_, conversation, model, offline, demo, retry_partial)


def register(app: typer.Typer) -> None:
    app.command()(chat)
    app.command()(ask)
