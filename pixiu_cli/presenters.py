"""Compose what /context (and later /cache, /memory) show, on top of the renderer's
primitives. Shared by the REPL commands and the one-shot CLI commands."""

from __future__ import annotations

import json

from pixiu_cli.context.inspect import diff_requests, view_request
from pixiu_cli.render import Renderer


def show_request(renderer: Renderer, request: dict, context_info: dict | None, *, title: str,
                 previous: dict | None = None, mode: str = "table", cache_note: str | None = None) -> None:
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
        if cache_note:
            renderer.info(cache_note)
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
        if context_info.get("selection"):
            show_selection(renderer, context_info["selection"])
    renderer.dim("用 --raw 查看原样请求 JSON，--diff 查看与上一次请求的差异。")


def selection_lines(selection: dict) -> list[str]:
    """Why these sections: the intent's reason, the cues that fired, each name or code
    accepted or rejected, and how the previous turn was used."""
    overview = "，注入持仓画像概览" if selection.get("overview") else ""
    lines = [f"选择依据：{selection.get('reason', '')}{overview}"]
    if selection.get("follow_up"):
        lines.append(f"  追问：{selection['follow_up']}")
    for cue in selection.get("cues", []):
        lines.append(f"  线索 {cue['name']}「{cue['matched']}」：{cue['why']}")
    for mention in selection.get("mentions", []):
        mark = "✓" if mention["accepted"] else "✗"
        target = f" → {mention['symbol']}" if mention.get("symbol") else ""
        lines.append(f"  {mark} {mention['text']}{target}：{mention['why']}")
    return lines


def show_selection(renderer: Renderer, selection: dict) -> None:
    for line in selection_lines(selection):
        renderer.dim(line)


def _n(value) -> str:
    return "未知" if value is None else f"{value:,}"


def _pct(value) -> str:
    return "未知" if value is None else f"{value:.0%}"


def _money(value: float, currency: str) -> str:
    return f"{value:.4f} {currency}"


def show_cache(renderer: Renderer, report, *, bar_width: int = 40) -> None:
    from pixiu_cli.cache.report import CacheReport

    assert isinstance(report, CacheReport)
    currency = report.prices.currency
    if report.turns:
        renderer.line("每轮缓存命中（█ 命中  ░ 未命中）")
        widest = max(t.totals.prompt_tokens for t in report.turns) or 1
        for turn in report.turns:
            t = turn.totals
            width = max(1, round(bar_width * t.prompt_tokens / widest))
            if t.cache_hit_tokens is None:
                renderer.bar(f"#{turn.seq:<3}", 0, width, f"{_n(t.prompt_tokens)} tokens · 命中 未知")
            else:
                hit = round(width * t.cache_hit_tokens / t.prompt_tokens) if t.prompt_tokens else 0
                renderer.bar(f"#{turn.seq:<3}", hit, width - hit,
                             f"{_pct(t.hit_rate)} · {_n(t.cache_hit_tokens)}/{_n(t.prompt_tokens)}")
        rows = []
        for c in report.calls:
            e = c.explanation
            gap = "" if e.gap is None else (f" ⚠ 实际与预测相差 {e.gap:+,}" if e.flagged else "")
            rows.append([str(c.call_id), f"#{c.turn_seq}" + ("·摘要" if c.step < 0 else f"·{c.step}"),
                         _n(c.prompt_tokens), _n(c.cache_hit_tokens), _n(c.cache_miss_tokens), _n(c.completion_tokens),
                         _pct(c.hit_rate), "—" if c.latency_ms is None else f"{c.latency_ms / 1000:.1f}s",
                         f"{e.label}{'：' + e.detail if e.detail else ''}（可复用 {e.predicted_hit:,}）{gap}"])
        renderer.table(f"对话 {report.conversation_id} 的调用", ["调用", "轮", "输入", "命中", "未命中", "输出",
                                                               "命中率", "耗时", "缓存分析"], rows)
    else:
        renderer.info("当前对话还没有模型调用。")
    total_rows = []
    for name, t in (("本对话", report.conversation), ("今天", report.today), ("全部", report.all_time)):
        note = f"（{t.unreported_calls} 次调用未报告缓存）" if t.unreported_calls else ""
        total_rows.append([name, str(t.calls), _n(t.prompt_tokens), _n(t.cache_hit_tokens) + note,
                           _n(t.cache_miss_tokens), _n(t.completion_tokens), _pct(t.hit_rate),
                           _money(t.cost, currency), _money(t.savings, currency)])
    renderer.table("合计", ["范围", "调用", "输入", "命中", "未命中", "输出", "命中率", "费用", "缓存节省"], total_rows)
    p = report.prices
    renderer.dim(f"价格（每百万 tokens，{currency}）：命中 {p.hit_per_million:g} · 未命中 {p.miss_per_million:g} · "
                 f"输出 {p.output_per_million:g}。{p.source}")


def cache_note(explanation) -> str:
    reported = "未报告" if explanation.reported_hit is None else f"{explanation.reported_hit:,}"
    flag = f"（⚠ 与预测相差 {explanation.gap:+,}）" if explanation.flagged else ""
    return (f"缓存：{explanation.label}；按 DeepSeek 分词，与上一次请求+回复共同前缀 {explanation.common_tokens:,} tokens，"
            f"可复用 {explanation.predicted_hit:,}，服务商报告命中 {reported}{flag}")


class NothingToShow(Exception):
    """The asked-for call does not exist; the message is one line for the user."""


def show_stored_call(renderer: Renderer, store, conversation_id: int | None, *, turn_seq: int | None = None,
                     mode: str = "table") -> None:
    """/context and `pixiu context`: the last call of the conversation (or of turn N),
    exactly as stored, compared with the call before it for --diff."""
    from pixiu_cli.cache.explain import explain

    calls = store.calls_for_conversation(conversation_id) if conversation_id else []
    if turn_seq is not None:
        turn = store.turn_by_seq(conversation_id, turn_seq) if conversation_id else None
        if turn is None:
            raise NothingToShow(f"当前对话没有第 {turn_seq} 轮")
        calls_of_turn = [c for c in calls if c.turn_id == turn.id]
        if not calls_of_turn:
            raise NothingToShow(f"第 {turn_seq} 轮没有模型调用记录")
        call = calls_of_turn[-1]
    elif calls:
        call = calls[-1]
    else:
        raise NothingToShow("当前对话还没有调用过模型；可先提问，或用 pixiu context TEXT 预览将要发送的内容")
    if mode == "json":
        renderer.raw(json.dumps(call.request["messages"], ensure_ascii=False, indent=2))
        return
    if mode == "explain":
        info = json.loads(call.context_json) if call.context_json else {}
        renderer.raw(json.dumps(info, ensure_ascii=False, indent=2))
        return
    previous = next((c for c in reversed(calls) if c.id < call.id), None)
    note = cache_note(explain(previous, call)) if mode == "diff" and previous else None
    turn = store.get_turn(call.turn_id)
    show_request(renderer, call.request, json.loads(call.context_json) if call.context_json else None,
                 title=f"对话 {conversation_id} · 第 {turn.seq} 轮 · 调用 #{call.id}（{call.status}）",
                 previous=previous.request if previous else None, mode=mode, cache_note=note)
