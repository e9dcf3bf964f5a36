"""What `pixiu eval`, `pixiu offline-server` and `pixiu mcp log` show."""

from __future__ import annotations

from dataclasses import asdict

from pixiu_cli.kernel.render import Renderer


def show_eval_table(renderer: Renderer, title: str, report) -> None:
    """One eval report by category, then its failures and its count."""
    rows = [[name, f"{p}/{t}", f"{p / t:.0%}"] for name, (p, t) in report.by_category().items()]
    renderer.table(title, ["类别", "通过", "通过率"], rows)
    for line in report.failure_lines():
        renderer.line(line)
    renderer.line(f"{report.passed} passed, {report.total - report.passed} failed")


def show_live_report(renderer: Renderer, report, *, offline: bool, full: str) -> None:
    """The answer evals: each category's pass rate with the full context and without each
    ablated part, then the full context's failures."""
    columns = ["类别", "完整上下文", *report.ablations[1:]]
    categories = sorted({o.category for o in report.outcomes})
    rows = [[c, *(f"{report.categories(a).get(c, 0):.0%}" for a in report.ablations)] for c in categories]
    rows.append(["合计", *(f"{report.pass_rate(a):.0%}" for a in report.ablations)])
    title = "回答评测（离线评测模型）" if offline else "回答评测"
    renderer.table(f"{title}：去掉某部分上下文后的通过率", columns, rows)
    for o in report.outcomes:
        if o.ablation == full and not o.passed:
            reasons = "；".join(g.detail for g in o.grades if not g.passed) or (o.error or "")
            renderer.line(f"{o.case_id} [{o.category}]: {reasons}")
    passed = sum(o.passed for o in report.outcomes if o.ablation == full)
    total = sum(1 for o in report.outcomes if o.ablation == full)
    renderer.line(f"完整上下文：{passed}/{total} 通过")


def show_eval_runs(renderer: Renderer, runs) -> None:
    """`pixiu eval --history`: one row a stored answer-eval run."""
    rows = [
        [
            str(r.id),
            r.started_at[:16].replace("T", " "),
            f"{r.provider} · {r.model}",
            str(r.cases),
            f"{r.summary.get('pass_rate', 0):.0%}",
            "，".join(f"{k} {v:.0%}" for k, v in r.summary.get("ablations", {}).items()) or "—",
        ]
        for r in runs
    ]
    renderer.table("回答评测记录", ["#", "时间（北京）", "模型", "用例", "通过率", "消融"], rows)


def show_serving(renderer: Renderer, server, cache_profile: str) -> None:
    renderer.info(f"离线服务已启动：{server.base_url}（缓存模拟：{cache_profile}），按 Ctrl-C 停止。")
    if server.control_token:
        renderer.dim(f"控制接口令牌（请求头 X-Pixiu-Control-Token）：{server.control_token}")


def mcp_log_record(calls) -> list[dict]:

    return [asdict(c) for c in calls]


def show_mcp_log(renderer: Renderer, calls, spell=None) -> None:
    if not calls:
        renderer.line("还没有代理通过 pixiu mcp 调用过。")
        return
    rows = [[c.at, c.agent, c.kind, c.name, c.outcome, c.detail or ""] for c in calls]
    renderer.table(f"MCP 调用（{len(calls)} 条）", ["时间", "代理", "类型", "名称", "结果", "说明"], rows)
