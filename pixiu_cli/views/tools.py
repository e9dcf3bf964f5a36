"""What `pixiu eval`, `pixiu offline-server` and `pixiu mcp log` show."""

from __future__ import annotations

from pixiu_cli.views.render import Renderer


def show_eval_table(renderer: Renderer, title: str, report) -> None:
    """One eval report by category, then its failures and its count."""
    rows = [[name, f"{p}/{t}", f"{p / t:.0%}"] for name, (p, t) in report.by_category().items()]
    renderer.table(title, ["类别", "通过", "通过率"], rows)
    for line in report.failure_lines():
        renderer.line(line)
    renderer.line(f"{report.passed} passed, {report.total - report.passed} failed")


def show_serving(renderer: Renderer, server, cache_profile: str) -> None:
    renderer.info(f"离线服务已启动：{server.base_url}（缓存模拟：{cache_profile}），按 Ctrl-C 停止。")
    if server.control_token:
        renderer.dim(f"控制接口令牌（请求头 X-Pixiu-Control-Token）：{server.control_token}")


def show_nothing(renderer: Renderer, result, spell=None) -> None:
    """A server's command: what it says, it says while it runs."""


def mcp_log_record(calls) -> list[dict]:
    from dataclasses import asdict

    return [asdict(c) for c in calls]


def show_mcp_log(renderer: Renderer, calls, spell=None) -> None:
    if not calls:
        renderer.line("还没有代理通过 pixiu mcp 调用过。")
        return
    rows = [[c.at, c.agent, c.kind, c.name, c.outcome, c.detail or ""] for c in calls]
    renderer.table(f"MCP 调用（{len(calls)} 条）", ["时间", "代理", "类型", "名称", "结果", "说明"], rows)
