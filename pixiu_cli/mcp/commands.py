"""`pixiu mcp [--http PORT] [--allow-proposals]` and `pixiu mcp log`: the investor's memory
served to other agents over the Model Context Protocol, and the log of what they asked; plain
click commands of the root group (cli/root.py), command-line only. The SDK is an optional
extra, imported (with mcp/server.py) only when the server starts."""

from __future__ import annotations

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.params import Int, json_option
from pixiu_cli.conversation.views_tools import mcp_log_record, show_mcp_log
from pixiu_cli.mcp.reads import Reader

INSTALL_LINE = "pixiu mcp 需要可选的 MCP SDK：pip install 'pixiu-cli[mcp]'（或 pip install 'mcp>=2.3'）"


@click.group(
    "mcp",
    invoke_without_command=True,
    subcommand_metavar="COMMAND [ARGS]...",
    help="MCP 服务：让其他代理（Claude、Cursor 等）只读地使用 pixiu 的记忆。",
)
@click.option(
    "--http",
    type=Int(1, 65535),
    metavar="<int range>",
    help="改用可流式 HTTP，只监听本机 127.0.0.1 的这个端口  [1<=x<=65535]",
)
@click.option("--allow-proposals", is_flag=True, help="允许 propose_note：其他代理提议笔记（需你采纳）")
@click.pass_context
def mcp(ctx: click.Context, http: int | None, allow_proposals: bool) -> None:
    if ctx.invoked_subcommand is not None:
        return
    try:
        from pixiu_cli.mcp.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] != "mcp":
            raise
        raise common.CliError(INSTALL_LINE) from None
    serve(Reader(common.settings()), allow_proposals=allow_proposals, http_port=http)


@mcp.command("log", help="其他代理通过 pixiu mcp 的调用：哪个代理、哪个工具、何时、结果。")
@click.option(
    "--limit", type=Int(1, 10000), default=50, metavar="<int range>", help="最多显示 N 条  [default: 50; 1<=x<=10000]"
)
@json_option
def mcp_log(limit: int, as_json: bool) -> None:
    with Reader(common.settings()).call_log() as log:
        calls = log.recent(limit)
    shown = common.renderer()
    if as_json:
        shown.json(mcp_log_record(calls))
    else:
        show_mcp_log(shown, calls)


COMMANDS = {"mcp": mcp}
