"""The model's tools: one static list (same names, order and JSON on every call, so the
provider's prefix cache survives) and their handlers, each calling the use case it stands
for. They sit with the services they call, above the agent: app.py builds the registry from
`TOOLS` and hands it to the loop, so the agent never imports a service."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import cache

from pixiu_cli.account.overview import account_record, read_account
from pixiu_cli.conversation.agent.tools import (
    CODE,
    DATE,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    code_argument,
)
from pixiu_cli.conversation.context.quoting import quote_data
from pixiu_cli.kernel.clock import find_date_words
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.resources import prompts_dir
from pixiu_cli.kernel.vocabulary import AUTHOR_MODEL, AUTHOR_PROPOSAL, NOTE_KIND_NAMES, NOTE_KINDS, SIDES
from pixiu_cli.memory.model import note_ref


def _stamp(ctx: ToolContext) -> str:
    return ctx.now().isoformat(timespec="seconds")


def _requested(use_case: Callable, *args):
    """A use case's refusal (bad or impossible arguments) goes back to the model."""

    try:
        return use_case(*args)
    except RequestError as exc:
        raise ToolArgumentError(str(exc)) from None


def _remember(ctx: ToolContext, args: dict) -> ToolOutcome:
    from pixiu_cli.conversation.grounding import ground_note, note_refusal
    from pixiu_cli.memory.notes import NewNote, add_note, note_notice
    from pixiu_cli.memory.proposals import PROPOSAL_LONGEST, check_room

    if not args["text"].strip():
        raise ToolArgumentError("text 不能为空")
    if len(args["text"]) > PROPOSAL_LONGEST and args["text"] not in (ctx.said or ""):  # a proposal at most
        _requested(check_room, ctx.memory, len(args["text"]), ctx.turn.proposals, ctx.now())
    grounding = ground_note(ctx.market, ctx.said or "", args["text"], args.get("symbol"))
    author = AUTHOR_MODEL if grounding.grounded else AUTHOR_PROPOSAL
    if author == AUTHOR_PROPOSAL:
        _requested(check_room, ctx.memory, len(args["text"]), ctx.turn.proposals, ctx.now())
        ctx.turn.proposals += 1
    request = NewNote(args["kind"], args["text"], args.get("symbol"), "model", author)
    write = _requested(add_note, ctx.memory, request, _stamp(ctx))
    event = write.event
    content = {
        "ok": True,
        "id": note_ref(event.id),
        "result": write.outcome,
        "kind": event.note_kind,
        "symbol": event.symbol,
        "text": quote_data(event.text),
        # older plans it restates: still in force until the user accepts the offer the notice makes
        "offers_to_replace": [{"id": note_ref(p.id), "text": quote_data(p.text)} for p in write.offered],
    }
    if event.author == AUTHOR_PROPOSAL:
        content.update(ok=False, result="proposed", error=note_refusal(grounding, note_ref(event.id)))
    return ToolOutcome(content, notice=note_notice(write))


def _quoted(value):
    """Stored strings reach the model quoted, as in the context block, so a stored field
    (a profile's strategy, a name) cannot pass for structure or an instruction."""
    return quote_data(value) if isinstance(value, str) else value


def _profile_dict(p) -> dict:
    return {k: (v if k in ("symbol", "as_of") else _quoted(v)) for k, v in p.__dict__.items() if v is not None}


def _get_stock_profiles(ctx: ToolContext, args: dict) -> ToolOutcome:
    symbols = args.get("symbols") or [h.symbol for h in ctx.domain.holdings()]
    profiles = ctx.domain.profiles_for(symbols)
    return ToolOutcome(
        {
            "profiles": [_profile_dict(profiles[s]) for s in symbols if s in profiles],
            "missing": [s for s in symbols if s not in profiles],
        }
    )


def _get_holdings(ctx: ToolContext, args: dict) -> ToolOutcome:
    """The account as `pixiu holdings --json` gives it (one derivation), names quoted as data."""

    record = account_record(read_account(ctx.account, ctx.now()))
    shorts = {h.symbol: h.short_names for h in ctx.domain.holdings()}
    for h in record["holdings"]:
        h["name"] = _quoted(h["name"])
        h["role"] = _quoted(h["role"])
        h["short_names"] = [_quoted(n) for n in shorts.get(h["symbol"], ())]
    for p in record["closed"]:
        p["name"] = _quoted(p["name"])
    return ToolOutcome(record)


def _already(ctx: ToolContext, key: tuple) -> ToolOutcome | None:
    """This turn already wrote (or proposed) what the call states: its ref, nothing written again."""
    from pixiu_cli.conversation.grounding import already_written

    if key not in ctx.turn.refs:
        return None
    ref, proposed = ctx.turn.refs[key]
    result = "already_proposed" if proposed else "already_recorded"
    return ToolOutcome({"ok": not proposed, "result": result, "id": ref, "note": already_written(ref, proposed)})


def _proposed(ctx: ToolContext, key: tuple, propose: Callable, request, refusal: Callable, grounding) -> ToolOutcome:
    """The change kept as a proposal the user confirms; the model is told it awaits them."""
    from pixiu_cli.memory.proposals import change_notice

    proposal = _requested(propose, ctx.memory, request, ctx.turn.proposals, ctx.now())
    ctx.turn.proposals += 1
    ctx.turn.refs[key] = (proposal.ref, True)
    content = {
        "ok": False,
        "result": "proposed",
        "proposal_id": proposal.ref,
        "error": refusal(grounding, proposal.ref),
    }
    return ToolOutcome(content, notice=change_notice(proposal))


def _record_decision(ctx: ToolContext, args: dict) -> ToolOutcome:
    from pixiu_cli.account.trades import NewTrade, record_trade, trade_key
    from pixiu_cli.conversation.grounding import ground_trade, trade_refusal
    from pixiu_cli.memory.proposals import propose_trade

    trade = NewTrade(
        symbol=args["symbol"],
        side=args["side"],
        price=float(args["price"]),
        quantity=float(args["quantity"]),
        reason=args.get("reason"),
        name=args.get("name"),
        source="model",
        day=args.get("date") or find_date_words(ctx.said or ""),  # the day the user named, when the call gives none
        fee=float(args["fee"]) if args.get("fee") else None,  # none given: the account's rates estimate it
    )
    key = ("trade", *_requested(trade_key, trade, ctx.now()))
    if (already := _already(ctx, key)) is not None:
        return already
    grounding = ground_trade(ctx.market, ctx.said or "", trade, ctx.now())
    if not grounding.grounded:
        return _proposed(ctx, key, propose_trade, trade, trade_refusal, grounding)
    recorded = _requested(record_trade, ctx.account, trade, _stamp(ctx), ctx.commission)
    ctx.turn.refs[key] = (recorded.ref, False)
    return ToolOutcome(
        {
            "ok": True,
            "decision_id": recorded.ref,
            "date": recorded.decision.decided_at[:10],
            "fee": recorded.fee,
            "fee_estimated": recorded.fee_estimated,
            "holding_after": recorded.holding_line(),
        },
        notice=recorded.notice(),
    )


def _set_alert(ctx: ToolContext, args: dict) -> ToolOutcome:

    from pixiu_cli.conversation.grounding import alert_refusal, ground_alert
    from pixiu_cli.memory.alerts import SOURCE_CONVERSATION, NewAlert, add_alert
    from pixiu_cli.memory.proposals import propose_alert

    request = NewAlert(
        symbol=args["symbol"], kind=args["kind"], threshold=args["threshold"], source=SOURCE_CONVERSATION
    )
    key = ("alert", request.symbol, request.kind, Decimal(repr(float(request.threshold))).normalize())
    if (already := _already(ctx, key)) is not None:
        return already
    grounding = ground_alert(ctx.market, ctx.said or "", request)
    if not grounding.grounded:
        return _proposed(ctx, key, propose_alert, request, alert_refusal, grounding)
    added = _requested(add_alert, ctx.memory, request, _stamp(ctx))
    ctx.turn.refs[key] = (added.ref, False)
    return ToolOutcome(
        {
            "ok": True,
            "alert_id": added.ref,
            "rule": added.text,
            "note": "导入或同步新的日线后按收盘价检查；触发后进入待办预警",
        },
        notice=added.notice(),
    )


def _search_memory(ctx: ToolContext, args: dict) -> ToolOutcome:
    events = ctx.memory.store.search(
        text=args.get("text"),
        kind=args.get("kind"),
        symbol=args.get("symbol"),
        since=args.get("since"),
        until=(args["until"] + "T23:59:59+08:00") if args.get("until") else None,
        limit=args.get("limit") or 10,
    )
    return ToolOutcome(
        {
            "results": [
                {
                    "id": ctx.memory.store.ref_of(e),
                    "kind": e.note_kind or e.kind,
                    "symbol": e.symbol,
                    "text": quote_data(e.text),
                    "date": e.created_at[:10],
                    "source": _quoted(e.source),
                    "author": _quoted(e.author),
                }
                for e in events
            ]
        }
    )


@cache
def knowledge_topics() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in (prompts_dir() / "knowledge").glob("*.md")))


# Stored data in its long form, beside the knowledge documents (context/fundamentals.py,
# context/market_review.py, context/account_history.py).
STORED_TOPICS = ("fundamentals", "market", "performance")


def _stored_long_form(ctx: ToolContext, topic: str, symbol: str | None) -> ToolOutcome:
    from pixiu_cli.conversation.context.fundamentals import long_form
    from pixiu_cli.conversation.context.market_review import long_form as market_long_form
    from pixiu_cli.market.fundamentals.sources import read_fundamentals
    from pixiu_cli.market.review.breadth import market_review

    now = ctx.now()
    if topic == "performance":
        from pixiu_cli.conversation.context.account_history import returns_long_form

        return ToolOutcome({"topic": topic, "content": "\n".join(returns_long_form(ctx.account.performance, now))})
    if topic == "market":
        return ToolOutcome({"topic": topic, "content": "\n".join(market_long_form(market_review(ctx.market, now)))})
    if symbol is None:
        raise ToolArgumentError("topic 为 fundamentals 时需要 symbol（六位股票代码）")
    found = read_fundamentals(ctx.market.fundamentals, symbol, report_limit=12)
    return ToolOutcome({"topic": topic, "symbol": symbol, "content": "\n".join(long_form(found, now.date()))})


def _load_context(ctx: ToolContext, args: dict) -> ToolOutcome:
    topic = args["topic"]
    if topic in STORED_TOPICS:
        return _stored_long_form(ctx, topic, code_argument("symbol", args["symbol"]) if "symbol" in args else None)
    if topic not in knowledge_topics():
        choices = ", ".join((*knowledge_topics(), *STORED_TOPICS))
        raise ToolArgumentError(f"没有主题 {topic!r}；可用主题：{choices}")
    return ToolOutcome({"topic": topic, "content": (prompts_dir() / "knowledge" / f"{topic}.md").read_text("utf-8")})


TOOLS: tuple[Tool, ...] = (
    Tool(
        "remember",
        "记住用户陈述的观点、计划或纪律（保留用户原话），供以后的对话参考。",
        {
            "type": "object",
            "properties": {
                "kind": {
                    "type": "string",
                    "enum": list(NOTE_KINDS),
                    "description": " / ".join(f"{k} {NOTE_KIND_NAMES[k]}" for k in NOTE_KINDS),
                },
                "text": {"type": "string", "description": "用户的原话"},
                "symbol": {"type": "string", "pattern": CODE, "description": "相关的六位股票代码（可选）"},
            },
            "required": ["kind", "text"],
        },
        _remember,
        writes=True,
    ),
    Tool(
        "get_stock_profiles",
        "查询股票的回测画像；不传 symbols 时返回全部持仓的画像。",
        {
            "type": "object",
            "properties": {"symbols": {"type": "array", "items": {"type": "string", "pattern": CODE}}},
            "required": [],
        },
        _get_stock_profiles,
    ),
    Tool(
        "get_holdings",
        "查询当前全部持仓（代码、名称、股数、成本、核心/卫星定位）。",
        {"type": "object", "properties": {}, "required": []},
        _get_holdings,
    ),
    Tool(
        "record_decision",
        "记录用户报告的一笔买入或卖出，并更新持仓。",
        {
            "type": "object",
            "properties": {
                "symbol": {"type": "string", "pattern": CODE},
                "side": {"type": "string", "enum": list(SIDES)},
                "price": {"type": "number", "exclusiveMinimum": 0},
                "quantity": {"type": "number", "exclusiveMinimum": 0},
                "reason": {"type": "string"},
                "name": {"type": "string", "description": "股票名称（新买入的标的时填写）"},
                "date": {
                    "type": "string",
                    "description": "成交日期：用户说了哪天就填哪天（YYYY-MM-DD，或原话如 昨天、3月3日）；没说则不填（今天）",
                },
                "fee": {"type": "number", "minimum": 0, "description": "手续费合计（元，用户说了才填）"},
            },
            "required": ["symbol", "side", "price", "quantity"],
        },
        _record_decision,
        writes=True,
    ),
    Tool(
        "set_alert",
        "按用户说的条件设一条价格预警（如“跌破 180 就止损”→ below 180），在之后的收盘价上检查。",
        {
            "type": "object",
            "properties": {
                "symbol": {"type": "string", "pattern": CODE},
                "kind": {
                    "type": "string",
                    "enum": ["below", "above", "change_pct", "drawdown_from_cost"],
                    "description": "below 收盘跌破 / above 收盘突破 / change_pct 单日涨跌幅% / drawdown_from_cost 较成本回撤%",
                },
                "threshold": {"type": "number", "exclusiveMinimum": 0, "description": "价格（元）或百分数"},
            },
            "required": ["symbol", "kind", "threshold"],
        },
        _set_alert,
        writes=True,
    ),
    Tool(
        "search_memory",
        "按文字、类型、代码、日期范围搜索记忆（包括已超出注入窗口的旧记忆）。",
        {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "kind": {"type": "string", "enum": [*NOTE_KINDS, "decision", "user_note"]},
                "symbol": {"type": "string", "pattern": CODE},
                "since": {"type": "string", "pattern": DATE},
                "until": {"type": "string", "pattern": DATE},
                "limit": {"type": "integer", "exclusiveMinimum": 0},
            },
            "required": [],
        },
        _search_memory,
    ),
    Tool(
        "load_context",
        "按主题加载知识文档，或已存数据的完整版：fundamentals（加 symbol：该股全部报告期、分红、业绩预告）、market（市场概况含全部行业板块）、performance（账户自成立以来的收益、逐月和逐年收益表）。主题列表见系统提示。",
        {
            "type": "object",
            "properties": {
                "topic": {"type": "string"},
                "symbol": {"type": "string", "pattern": CODE, "description": "topic 为 fundamentals 时的六位股票代码"},
            },
            "required": ["topic"],
        },
        _load_context,
    ),
)


def model_tools() -> ToolRegistry:
    """The registry of the product's tools, the one app.py hands to the loop."""
    return ToolRegistry(TOOLS)
