"""Compose what /context (and later /cache, /memory) show, on top of the renderer's
primitives. Shared by the REPL commands and the one-shot CLI commands."""

from __future__ import annotations

import json

from pixiu_cli.context.inspect import diff_requests, view_request
from pixiu_cli.render import Renderer


def show_request(renderer: Renderer, request: dict, context_info: dict | None, *, title: str,
                 previous: dict | None = None, mode: str = "table") -> None:
    """mode: table (labelled summary) | raw (the verbatim JSON) | json (same, compact) | diff."""
    if mode in ("raw", "json"):
        renderer.raw(json.dumps(request, ensure_ascii=False, indent=2 if mode == "raw" else None))
        return
    if mode == "diff":
        if previous is None:
            renderer.info(f"{title}：这是本对话的第一次调用，没有可比较的上一次请求。")
            return
        diff = diff_requests(previous, request)
        if diff is None:
            renderer.info(f"{title}：与上一次请求完全相同。")
            return
        renderer.info(f"{title}：与上一次请求相比，{diff.what}")
        if diff.previous_excerpt:
            renderer.dim(f"  上次：{diff.previous_excerpt}")
        if diff.current_excerpt:
            renderer.dim(f"  本次：{diff.current_excerpt}")
        return
    view = view_request(request)
    rows = [[str(m.index), m.label, m.role, f"{m.tokens:,}", m.preview] for m in view.messages]
    if view.tool_names:
        rows.insert(1, ["—", "static", "tools", f"{view.tools_tokens:,}", "、".join(view.tool_names)])
    renderer.table(f"{title} · 模型 {request.get('model', '?')} · 共约 {view.total_tokens:,} tokens",
                   ["#", "类别", "角色", "tokens", "内容预览"], rows)
    if context_info:
        section_rows = [[s["title"], f"{s['tokens']:,}", str(s["items"]), " ".join(s["memory_ids"]) or "—"]
                        for s in context_info.get("sections", [])]
        renderer.table(f"[上下文信息] 分节 · {context_info.get('tokens', 0):,}/{context_info.get('budget', 0):,} tokens"
                       f" · 意图 {context_info.get('intent')} · 标的 {', '.join(context_info.get('symbols') or []) or '无'}",
                       ["分节", "tokens", "条数", "记忆 ID"], section_rows)
        if context_info.get("omitted"):
            renderer.dim("预算裁剪省略：" + "；".join(f"{k} {n} 条" for k, n in context_info["omitted"].items()))
        renderer.dim("注入的记忆 ID：" + (" ".join(context_info.get("memory_ids") or []) or "无"))
    renderer.dim("用 --raw 查看原样请求 JSON，--diff 查看与上一次请求的差异。")
