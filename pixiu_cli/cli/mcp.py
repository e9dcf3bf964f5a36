"""`pixiu mcp [--http PORT] [--allow-proposals]` and `pixiu mcp log`: the investor's memory
served to other agents over the Model Context Protocol (pixiu_cli/mcp_server), and the log of
what they asked. The SDK is an optional extra, imported only when the server starts."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common
from pixiu_cli.commands import typer_surface

INSTALL_LINE = "pixiu mcp 需要可选的 MCP SDK：pip install 'pixiu-cli[mcp]'（或 pip install 'mcp>=2.3'）"

mcp_app = typer.Typer(help="MCP 服务：让其他代理（Claude、Cursor 等）只读地使用 pixiu 的记忆。")


@mcp_app.callback(invoke_without_command=True)
def mcp_command(
    ctx: typer.Context,
    http: Annotated[
        int | None, typer.Option("--http", help="改用可流式 HTTP，只监听本机 127.0.0.1 的这个端口", min=1, max=65535)
    ] = None,
    allow_proposals: Annotated[
        bool, typer.Option("--allow-proposals", help="允许 propose_note：其他代理提议笔记（需你采纳）")
    ] = False,
) -> None:
    """启动 MCP 服务（默认 stdio）：只读工具、最新简报与画像资源、review_my_portfolio 提示。"""
    if ctx.invoked_subcommand is not None:
        return
    try:
        from pixiu_cli.mcp.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] != "mcp":
            raise
        raise common.CliError(INSTALL_LINE) from None
    from pixiu_cli.mcp.reads import Reader

    serve(Reader(common.settings()), allow_proposals=allow_proposals, http_port=http)


@mcp_app.command("log")
def mcp_log(
    limit: Annotated[int, typer.Option("--limit", help="最多显示 N 条", min=1, max=10000)] = 50,
    as_json: typer_surface.JsonOpt = False,
) -> None:
    """其他代理通过 pixiu mcp 的调用：哪个代理、哪个工具、何时、结果。"""
    from pixiu_cli.kernel.db.shared_stores import stores_of

    with common.database() as db:
        calls = stores_of(db).mcp_calls.recent(limit)
    from pixiu_cli.conversation.views_tools import mcp_log_record, show_mcp_log

    shown = common.renderer()
    if as_json:
        shown.json(mcp_log_record(calls))
    else:
        show_mcp_log(shown, calls)


def register(app: typer.Typer) -> None:
    app.add_typer(mcp_app, name="mcp")
