"""offline-server: the offline OpenAI-compatible server in the foreground. (`eval` and `mcp`
stay typer functions in cli/: they run evals/ and mcp_server/, layers above this one.)"""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import CLI, Command, lazy, option, switch
from pixiu_cli.commands.values import Choice, CommandError, Int

CLI_ONLY = frozenset({CLI})
VIEWS = "pixiu_cli.conversation.views_tools"


@dataclass(frozen=True)
class ServerRequest:
    port: int
    cache_profile: str
    control: bool
    request_log: int


def _offline_server(ctx, r: ServerRequest) -> None:
    import errno

    from pixiu_cli.conversation.offline.server import OfflineServer
    from pixiu_cli.conversation.views_tools import show_serving
    from pixiu_cli.kernel.errors import os_reason

    server = OfflineServer(cache_profile=r.cache_profile, port=r.port, control=r.control, request_log=r.request_log)
    try:
        server = server.bind()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CommandError(f"端口 {r.port} 已被占用：请用 --port 换一个端口（--port 0 表示随机）") from None
        raise CommandError(f"无法在端口 {r.port} 上启动离线服务：{os_reason(exc)}") from None
    show_serving(ctx.renderer, server, r.cache_profile)
    server.serve_in_foreground()  # until Ctrl-C


DECLARED = (
    Command(
        ("offline-server",),
        "在前台运行离线 OpenAI 兼容服务（127.0.0.1），用于测试和无 key 体验。",
        (
            option("--port", "port", Int(0, 65535), "监听端口（0 表示随机）", 8765),
            option(
                "--cache-profile",
                "cache_profile",
                Choice(("deepseek", "openai", "none")),
                "deepseek | openai | none",
                "deepseek",
            ),
            switch("--control", "control", "开启 /_pixiu 控制接口（仅用于测试，需要启动时显示的令牌）"),
            option("--request-log", "request_log", Int(0), "控制接口保留最近多少个请求（内存上限）", 256),
        ),
        ServerRequest,
        _offline_server,
        lazy(f"{VIEWS}:show_nothing"),
        surfaces=CLI_ONLY,
    ),
)
