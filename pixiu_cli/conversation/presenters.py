"""What /context shows: the stored request of a call, message by message, labelled and
counted with DeepSeek's tokenizer, and where it first differs from the previous call.

Compose what /context (and later /cache, /memory) show, on top of the renderer's
primitives. Shared by the REPL commands and the one-shot CLI commands."""

from __future__ import annotations

import json
from dataclasses import dataclass

from pixiu_cli.account.explain import REPLY_REACH, explain
from pixiu_cli.conversation.context.block import is_context_message
from pixiu_cli.conversation.tokenizer.counts import count_tokens_by_line, message_text
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.safe_text import scrub
from pixiu_cli.kernel.store.database import DISK_FULL, damaged_line, disk_full, lock_timeout_line, read_only_line
from pixiu_cli.kernel.vocabulary import CONTEXT_OPEN


@dataclass(frozen=True)
class MessageView:
    index: int
    role: str
    label: str  # static | history | history · context block | context block | user | tool | assistant | … · reasoning
    tokens: int
    preview: str


@dataclass(frozen=True)
class RequestView:
    messages: list[MessageView]
    tools_tokens: int
    tool_names: list[str]
    total_tokens: int


@dataclass(frozen=True)
class RequestDiff:
    index: int | None  # first differing message index; None when only non-message fields differ
    what: str  # human-readable, one line
    previous_excerpt: str
    current_excerpt: str


def label_messages(messages: list[dict]) -> list[str]:
    last_user = max(
        (i for i, m in enumerate(messages) if m.get("role") == "user" and not is_context_message(m)), default=-1
    )
    current_block = max((i for i, m in enumerate(messages[:last_user]) if is_context_message(m)), default=-1)
    labels = []
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "system":
            labels.append("static")
        elif i == current_block:
            labels.append("context block")
        elif i == last_user:
            labels.append("user")
        elif i > last_user:
            labels.append("tool" if role == "tool" else "assistant (this turn)")
        elif is_context_message(m):
            labels.append("history · context block")
        else:
            labels.append("history")
    return labels


def view_request(request: dict) -> RequestView:
    """Each message's tokens, counted by line: exactly count_tokens, from the stored per-line
    counts, so showing a request whose lines were all counted before loads no tokenizer."""
    messages = request.get("messages", [])
    labels = label_messages(messages)
    views = []
    for i, (m, label) in enumerate(zip(messages, labels)):
        text = message_text(m)
        views.append(MessageView(i, m.get("role", "?"), label, count_tokens_by_line(text), " ".join(text.split())[:60]))
        reasoning = m.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            # Its own row: thinking sent back after tool calls costs tokens the answer text does not show.
            preview = " ".join(reasoning.split())[:60]
            views.append(
                MessageView(i, m.get("role", "?"), f"{label} · reasoning", count_tokens_by_line(reasoning), preview)
            )
    tools = request.get("tools") or []
    tools_tokens = count_tokens_by_line(json.dumps(tools, ensure_ascii=False)) if tools else 0
    names = [t.get("function", {}).get("name", "?") for t in tools]
    return RequestView(views, tools_tokens, names, sum(v.tokens for v in views) + tools_tokens)


def _excerpt(text: str, at: int) -> str:
    start = max(0, at - 12)
    snippet = text[start : at + 28].replace("\n", "⏎")
    return ("…" if start else "") + snippet + ("…" if at + 28 < len(text) else "")


def diff_requests(previous: dict, current: dict) -> RequestDiff | None:
    """Where `current` first stops being a continuation of `previous`."""
    for key in ("model", "temperature", "top_p", "max_tokens", "thinking", "reasoning_effort"):
        if previous.get(key) != current.get(key):
            return RequestDiff(None, f"参数 {key} 变化：{previous.get(key)!r} → {current.get(key)!r}", "", "")
    if (previous.get("tools") or []) != (current.get("tools") or []):
        return RequestDiff(None, "工具列表变化", "", "")
    prev_msgs, cur_msgs = previous.get("messages", []), current.get("messages", [])
    labels = label_messages(cur_msgs)
    for i, (a, b) in enumerate(zip(prev_msgs, cur_msgs)):
        if a != b:
            ta, tb = message_text(a), message_text(b)
            if ta == tb:  # the same text: what changed is the reasoning sent with it
                ta, tb = a.get("reasoning_content") or "", b.get("reasoning_content") or ""
            at = next((k for k, (x, y) in enumerate(zip(ta, tb)) if x != y), min(len(ta), len(tb)))
            return RequestDiff(
                i,
                f"第 {i} 条消息（{labels[i]}，{b.get('role')}）第 {at} 个字符起不同",
                _excerpt(ta, at),
                _excerpt(tb, at),
            )
    if len(cur_msgs) < len(prev_msgs):
        return RequestDiff(len(cur_msgs), f"消息被删减：上次 {len(prev_msgs)} 条，本次 {len(cur_msgs)} 条", "", "")
    first_new = len(prev_msgs)
    label = labels[first_new] if first_new < len(labels) else "—"
    return RequestDiff(
        first_new,
        f"前 {first_new} 条消息与上次完全相同；从第 {first_new} 条（{label}）起是新增内容",
        "",
        message_text(cur_msgs[first_new])[:40] if first_new < len(cur_msgs) else "",
    )


def show_request(
    renderer: Renderer,
    request: dict,
    context_info: dict | None,
    *,
    title: str,
    previous: dict | None = None,
    mode: str = "table",
    cache_note: str | None = None,
    raw_text: str | None = None,
) -> None:
    """mode: table (labelled summary) | raw (the request exactly as sent: `raw_text`, the
    stored bytes) | pretty (the same JSON, indented) | json (the messages) | diff."""
    if mode in ("raw", "pretty", "json"):
        # Exact when piped (what was sent, for jq or a file); on a terminal, characters that
        # would act on it are escaped (\uXXXX: the same JSON value, so nothing is lost).
        if mode == "raw" and raw_text is not None:
            text = raw_text
        else:
            text = json.dumps(request, ensure_ascii=False, indent=2 if mode == "pretty" else None)
        renderer.json_text(text, exact_when_piped=True)
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
    renderer.table(
        f"{title} · 模型 {request.get('model', '?')} · 共约 {view.total_tokens:,} tokens",
        ["#", "类别", "角色", "tokens", "内容预览"],
        rows,
    )
    if context_info:
        show_sections(renderer, context_info)
        if context_info.get("selection"):
            show_selection(renderer, context_info["selection"])
    renderer.dim("用 --raw 查看原样发送的请求字节，--pretty 查看缩进后的请求 JSON，--diff 查看与上一次请求的差异。")


_OVERHEAD_LABELS = {"frame": "（开头结尾标记与说明）", "unchanged": "（未变化说明）", "omitted": "（已省略说明）"}


def show_sections(renderer: Renderer, info: dict) -> None:
    """The [上下文信息] block of one request, section by section. A delta turn lists what it
    carried with its tokens; the sections an earlier turn carried are named, not counted."""
    sent, unchanged = [], []
    for s in info.get("sections", []):
        if s.get("unchanged"):
            since = s.get("unchanged_since")
            unchanged.append([s["title"], f"未变化（见第 {since} 轮）" if since else "未变化（见上文）", "—", "—"])
        else:
            sent.append([s["title"], f"{s['tokens']:,}", str(s["items"]), " ".join(s["memory_ids"]) or "—"])
    extra = [[_OVERHEAD_LABELS.get(k, k), f"{n:,}", "—", "—"] for k, n in (info.get("overhead") or {}).items() if n]
    renderer.table(
        f"{CONTEXT_OPEN} 分节 · {info.get('tokens', 0):,}/{info.get('budget', 0):,} tokens"
        f" · 意图 {info.get('intent')} · 标的 {', '.join(info.get('symbols') or []) or '无'}",
        ["分节", "tokens", "条数", "记忆 ID"],
        sent + extra + unchanged,
    )
    if unchanged:
        renderer.dim(f"本次只发送了变化的分节；{len(unchanged)} 个分节未变化，其 tokens 计在它们发送的那一轮。")
    if info.get("omitted"):
        renderer.dim("预算裁剪省略：" + "；".join(f"{k} {n} 条" for k, n in info["omitted"].items()))
    renderer.dim("注入的记忆 ID：" + (" ".join(info.get("memory_ids") or []) or "无"))


def show_tool_messages(renderer: Renderer, calls: list) -> None:
    """What the later calls of a tool-loop turn added: the assistant's tool calls and the
    tool results, call by call."""
    rows = []
    for previous, call in zip(calls, calls[1:]):
        for m in call.request.get("messages", [])[len(previous.request.get("messages", [])) :]:
            text = message_text(m)
            names = "、".join(t.get("function", {}).get("name", "?") for t in m.get("tool_calls") or [])
            preview = f"调用 {names}" if names else " ".join(text.split())[:60]
            rows.append(
                [
                    f"#{call.id}",
                    f"第 {call.step + 1} 次调用",
                    m.get("role", "?"),
                    f"{count_tokens_by_line(text):,}",
                    preview,
                ]
            )
    if rows:
        renderer.table(
            "本轮后续调用新增的消息（工具调用与工具结果）", ["调用", "步骤", "角色", "tokens", "内容预览"], rows
        )


# The memory classes a question can ask about (selection/targets.py), as /context names them.
_TARGET_NAMES = {
    "account": "现金与总资产",
    "trades": "成交与已实现盈亏",
    "news": "公告与新闻",
    "brief": "简报与报告",
    "rules": "纪律",
    "plans": "计划 / 观点",
    "watchlist": "自选列表",
    "alerts": "预警",
}


# What a follow-up did to the conversation's focus (selection/follow_up.py), as /context names it.
_OPERATION_NAMES = {
    "keep": "沿用焦点",
    "replace": "换一只股票",
    "same_topic": "换一只股票，沿用话题",
    "add": "加入比较",
    "complement": "转向其余持仓",
    "widen": "扩大到整个组合",
}


def _operation_line(operation: dict) -> str:
    turns = operation["turns_ago"]
    ago = "上一轮" if turns == 1 else f"前 {turns} 轮"
    name = _OPERATION_NAMES.get(operation["name"], operation["name"])
    return f"  操作：{name}（{operation['name']}），作用于{ago}的问题“{operation['message'][:20]}”"


def selection_lines(selection: dict) -> list[str]:
    """Why these sections: the intent's reason, the cues that fired, each name or code
    accepted or rejected, and how the previous turn was used."""
    overview = "，注入持仓画像概览" if selection.get("overview") else ""
    lines = [f"选择依据：{selection.get('reason', '')}{overview}"]
    if selection.get("operation"):
        lines.append(_operation_line(selection["operation"]))
    if selection.get("follow_up"):
        lines.append(f"  追问：{selection['follow_up']}")
    if selection.get("targets"):
        lines.append("  问到的记忆：" + "、".join(_TARGET_NAMES.get(t, t) for t in selection["targets"]))
    for window in selection.get("windows", []):
        lines.append(f"  窗口：{window['why']}")
    for cue in selection.get("cues", []):
        lines.append(f"  线索 {cue['name']}「{cue['matched']}」：{cue['why']}")
    for mention in selection.get("mentions", []):
        mark = "✓" if mention["accepted"] else "✗"
        target = f" → {mention['symbol']}" if mention.get("symbol") else ""
        form = f"（{mention['form']}：{mention['of']}）" if mention.get("form") else ""
        lines.append(f"  {mark} {mention['text']}{target}{form}：{mention['why']}")
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
    from pixiu_cli.account.report import CacheReport

    assert isinstance(report, CacheReport)
    if report.turns:
        _show_turn_bars(renderer, report.turns, bar_width)
        renderer.table(
            f"对话 {report.conversation_id} 的调用",
            ["调用", "轮", "输入", "命中", "未命中", "输出", "命中率", "耗时", "缓存分析"],
            [_call_row(c) for c in report.calls],
        )
    else:
        renderer.info("当前对话还没有模型调用。")
    totals = (("本对话", report.conversation), ("今天", report.today), ("全部", report.all_time))
    renderer.table(
        "合计",
        ["范围", "调用", "输入", "命中", "未命中", "输出", "命中率", "费用", "缓存节省"],
        [_total_row(name, t, report.prices.currency) for name, t in totals],
    )
    _show_price_notes(renderer, [t for _, t in totals], report.prices)


def _show_turn_bars(renderer: Renderer, turns, bar_width: int) -> None:
    """One bar per turn, as long as its prompt relative to the longest, split hit / miss."""
    renderer.line("每轮缓存命中（█ 命中  ░ 未命中）")
    widest = max(t.totals.prompt_tokens for t in turns) or 1
    for turn in turns:
        t = turn.totals
        width = max(1, round(bar_width * t.prompt_tokens / widest))
        if t.cache_hit_tokens is None:
            renderer.bar(f"#{turn.seq:<3}", 0, width, f"{_n(t.prompt_tokens)} tokens · 命中 未知")
        else:
            hit = round(width * t.cache_hit_tokens / t.prompt_tokens) if t.prompt_tokens else 0
            renderer.bar(
                f"#{turn.seq:<3}",
                hit,
                width - hit,
                f"{_pct(t.hit_rate)} · {_n(t.cache_hit_tokens)}/{_n(t.prompt_tokens)}",
            )


def _call_row(c) -> list[str]:
    e = c.explanation
    gap = "" if e.gap is None else (f" ⚠ 实际与预测相差 {e.gap:+,}" if e.flagged else "")
    return [
        str(c.call_id),
        f"#{c.turn_seq}" + ("·摘要" if c.step < 0 else f"·{c.step}"),
        _n(c.prompt_tokens),
        _n(c.cache_hit_tokens),
        _n(c.cache_miss_tokens),
        _n(c.completion_tokens),
        _pct(c.hit_rate),
        "—" if c.latency_ms is None else f"{c.latency_ms / 1000:.1f}s",
        f"{e.label}{'：' + e.detail if e.detail else ''}（可复用 {e.predicted_hit:,}）{gap}",
    ]


def _total_row(name: str, t, currency: str) -> list[str]:
    note = f"（{t.unreported_calls} 次调用未报告缓存）" if t.unreported_calls else ""
    return [
        name,
        str(t.calls),
        _n(t.prompt_tokens),
        _n(t.cache_hit_tokens) + note,
        _n(t.cache_miss_tokens),
        _n(t.completion_tokens),
        _pct(t.hit_rate),
        *_cost_cells(t, currency),
    ]


def _show_price_notes(renderer: Renderer, totals: list, p) -> None:
    """Why some costs are missing, and the prices the others were computed with."""
    if any(t.unpriced_calls for t in totals):
        renderer.dim(
            "标“—”或“不含”的费用：所用模型不在价格表中（只有 DeepSeek 的价格），只显示 tokens；"
            "在 config.toml 的 [prices] 中设置价格后显示费用。"
        )
    if any(t.calls > t.unpriced_calls for t in totals):
        renderer.dim(
            f"价格（每百万 tokens，{p.currency}）：{_rates_text(p)}。{'来自 config.toml [prices]' if p.user_set else p.source}"
        )


def _rates_text(p) -> str:
    """The user's one table, or the published rates per model (the offline stand-in left out)."""
    from pixiu_cli.account.report import PUBLISHED_RATES

    def one(r) -> str:
        return f"命中 {r.hit:g} · 未命中 {r.miss:g} · 输出 {r.output:g}"

    if p.user_set:
        return one(p.rates_for(None))
    return "；".join(f"{model} {one(r)}" for model, r in PUBLISHED_RATES.items() if model != "pixiu-offline")


def _cost_cells(t, currency: str) -> list[str]:
    """Cost and savings, or a dash where no call had a known price."""
    if not t.priced:
        return ["—", "—"]
    note = f"（不含 {t.unpriced_calls} 次未知价格的调用）" if t.unpriced_calls else ""
    return [_money(t.cost, currency) + note, _money(t.savings, currency)]


def cache_note(explanation) -> str:
    reported = "未报告" if explanation.reported_hit is None else f"{explanation.reported_hit:,}"
    flag = f"（⚠ 与预测相差 {explanation.gap:+,}）" if explanation.flagged else ""
    return (
        f"缓存：{explanation.label}；按 DeepSeek 分词，与上一次请求+回复共同前缀 {explanation.common_tokens:,} tokens，"
        f"可复用 {explanation.predicted_hit:,}，服务商报告命中 {reported}{flag}"
    )


class NothingToShow(UserError):
    """The asked-for call does not exist; the message is one line for the user."""


def show_stored_call(
    renderer: Renderer, store, conversation_id: int | None, *, turn_seq: int | None = None, mode: str = "table"
) -> None:
    """/context and `pixiu context`: the last call of the conversation (or of turn N),
    exactly as stored, compared with the call before it for --diff."""

    calls = store.calls_for_conversation(conversation_id, REPLY_REACH) if conversation_id else []
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
        renderer.json_text(json.dumps(call.request["messages"], ensure_ascii=False, indent=2), exact_when_piped=True)
        return
    if mode == "explain":
        info = json.loads(call.context_json) if call.context_json else {}
        renderer.json(info)
        return
    previous = next((c for c in reversed(calls) if c.id < call.id), None)
    note = cache_note(explain(previous, call)) if mode == "diff" and previous else None
    turn = store.get_turn(call.turn_id)
    turn_calls = [c for c in calls if c.turn_id == call.turn_id and c.id <= call.id]
    # The block is in the turn's first call; the later calls of a tool loop add tool messages.
    first = turn_calls[0] if turn_calls else call
    info = json.loads(first.context_json) if first.context_json else None
    show_request(
        renderer,
        call.request,
        info,
        title=f"对话 {conversation_id} · 第 {turn.seq} 轮 · 调用 #{call.id}（{call.status}）",
        previous=previous.request if previous else None,
        mode=mode,
        cache_note=note,
        raw_text=call.request_json,
    )
    if mode == "table" and len(turn_calls) > 1:
        show_tool_messages(renderer, turn_calls)


def error_line(exc: BaseException) -> str:
    """The one line shown (and stored on a turn it cut off) for an error that ended a command
    or a turn: a UserError's own message, a full disk or a lock timeout in plain words, and
    anything unexpected as one scrubbed line, never a traceback."""
    if isinstance(exc, UserError):
        return str(exc)

    if disk_full(exc):
        return DISK_FULL

    return (
        lock_timeout_line(exc)
        or read_only_line(exc)
        or damaged_line(exc)
        or scrub(f"意外错误（{type(exc).__name__}）：{exc}")
    )
