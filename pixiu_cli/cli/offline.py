"""`pixiu offline-server`: the offline OpenAI-compatible server in the foreground."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common
from pixiu_cli.errors import os_reason


def offline_server(
    port: Annotated[int, typer.Option("--port", help="监听端口（0 表示随机）", min=0, max=65535)] = 8765,
    cache_profile: Annotated[str, typer.Option("--cache-profile", help="deepseek | openai | none")] = "deepseek",
    control: Annotated[
        bool, typer.Option("--control", help="开启 /_pixiu 控制接口（仅用于测试，需要启动时显示的令牌）")
    ] = False,
    request_log: Annotated[
        int, typer.Option("--request-log", help="控制接口保留最近多少个请求（内存上限）", min=0)
    ] = 256,
) -> None:
    """在前台运行离线 OpenAI 兼容服务（127.0.0.1），用于测试和无 key 体验。"""
    if cache_profile not in ("deepseek", "openai", "none"):
        raise common.CliError(f"--cache-profile 只能是 deepseek、openai 或 none，而不是 {cache_profile!r}")
    import errno

    from pixiu_cli.offline.server import OfflineServer

    renderer = common.renderer()
    try:
        server = OfflineServer(cache_profile=cache_profile, port=port, control=control, request_log=request_log).bind()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise common.CliError(f"端口 {port} 已被占用：请用 --port 换一个端口（--port 0 表示随机）") from None
        raise common.CliError(f"无法在端口 {port} 上启动离线服务：{os_reason(exc)}") from None
    renderer.info(f"离线服务已启动：{server.base_url}（缓存模拟：{cache_profile}），按 Ctrl-C 停止。")
    if server.control_token:
        renderer.dim(f"控制接口令牌（请求头 X-Pixiu-Control-Token）：{server.control_token}")
    server.serve_in_foreground()  # until Ctrl-C


def register(app: typer.Typer) -> None:
    app.command("offline-server")(offline_server)
