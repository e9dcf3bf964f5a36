"""The built-in tools: one static list (same names, order and JSON on every call, so the
provider's prefix cache survives), argument validation, and the handlers.

A handler returns a ToolOutcome; bad arguments raise ToolArgumentError, which the loop
turns into an error result for the model, never a crash."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache
from typing import Any

from pixiu_cli.context.quoting import quote_data
from pixiu_cli.domain.codes import is_finite_number, normalise_code
from pixiu_cli.domain.vocabulary import NOTE_KIND_NAMES, NOTE_KINDS, SIDES
from pixiu_cli.resources import prompts_dir
from pixiu_cli.store.investor import InvestorStore
from pixiu_cli.store.memory import MemoryStore, note_ref
from pixiu_cli.store.portfolio import PortfolioStore
from pixiu_cli.store.shared import stores_of


class ToolArgumentError(Exception):
    """Arguments that do not fit the schema; the message goes back to the model."""


class Ungrounded(ToolArgumentError):
    """A change to the account the user's words of the turn do not state: refused, and the
    message (what the words lack) goes back to the model."""


@dataclass(frozen=True)
class ToolOutcome:
    content: dict | list | str  # what the model sees (JSON-encoded)
    notice: str | None = None  # one line for the user (e.g. 已记住 #12：…)


@dataclass
class ToolContext:
    domain: InvestorStore
    memory: MemoryStore
    portfolio: PortfolioStore
    now: Callable[[], datetime]
    cost_method: str = "diluted"  # [account] cost_method: the cost a holding the fills explain shows
    # The user's words of the turn the tools run in: what every change to the account or the
    # memory must come from. None: no user spoke this turn (the brief), so nothing is changed.
    said: str | None = None

    def for_turn(self, said: str | None) -> ToolContext:
        return replace(self, said=said)

    def isolated(self) -> ToolContext:
        """The same stores on a connection of their own, for a tool thread the loop may stop
        waiting for: an abandoned thread must never hold a transaction open on the
        connection the turn itself writes through (its writes would be rolled back with
        it). An in-memory database has no second connection: the context itself."""
        from pixiu_cli.store.database import database_path, open_database

        path = database_path(self.domain.db)
        if path is None:
            return self
        db = open_database(path, migrate=False)
        return ToolContext(
            stores_of(db).investor, stores_of(db).memory, stores_of(db).portfolio, self.now, self.cost_method, self.said
        )

    def close(self) -> None:
        self.domain.db.close()


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict
    handler: Callable[[ToolContext, dict], ToolOutcome]
    writes: bool = False  # changes the account or the memory: only from the user's words of a turn

    def schema(self) -> dict:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


# The schema's own spelling (the tool list is part of the cached prefix: keep its bytes);
# validation folds codes with normalise_code, which accepts ASCII digits only.
CODE = r"\d{6}"
DATE = r"\d{4}-\d{2}-\d{2}"

_TYPES = {"string": str, "integer": int, "number": (int, float), "array": list, "object": dict, "boolean": bool}


def validate_arguments(schema: dict, args: Any) -> dict:
    if not isinstance(args, dict):
        raise ToolArgumentError("参数应为 JSON 对象")
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if args.get(name) in (None, ""):
            raise ToolArgumentError(f"缺少必填参数 {name}")
    unknown = set(args) - set(properties)
    if unknown:
        raise ToolArgumentError(f"未知参数：{', '.join(sorted(unknown))}")
    args = dict(args)
    for name, value in list(args.items()):
        if value is not None:
            args[name] = _argument(name, properties[name], value)
    return args


def _argument(name: str, spec: dict, value: Any) -> Any:
    """One argument checked against its schema, its stock codes folded to six ASCII digits."""
    _check_type(name, spec, value)
    if spec.get("pattern") == CODE:
        value = _code(name, value)
    if spec["type"] == "array" and spec.get("items", {}).get("pattern") == CODE:
        value = [_code(name, item) for item in value]
    _check_constraints(name, spec, value)
    return value


def _check_type(name: str, spec: dict, value: Any) -> None:
    numeric = spec["type"] in ("integer", "number")
    if isinstance(value, bool) and numeric:
        raise ToolArgumentError(f"参数 {name} 应为数字")
    if not isinstance(value, _TYPES[spec["type"]]):
        raise ToolArgumentError(f"参数 {name} 应为 {spec['type']}")
    if numeric and not is_finite_number(value):
        raise ToolArgumentError(f"参数 {name} 应为有限的数字，而不是 {value!r}")


def _check_constraints(name: str, spec: dict, value: Any) -> None:
    if "enum" in spec and value not in spec["enum"]:
        raise ToolArgumentError(f"参数 {name} 应为 {' / '.join(spec['enum'])} 之一")
    if spec["type"] == "string" and "pattern" in spec and not re.fullmatch(spec["pattern"], value, re.ASCII):
        raise ToolArgumentError(f"参数 {name} 格式不对：{value!r}")
    if spec["type"] in ("integer", "number") and "exclusiveMinimum" in spec and value <= spec["exclusiveMinimum"]:
        raise ToolArgumentError(f"参数 {name} 应大于 {spec['exclusiveMinimum']}")
    if spec["type"] == "array":
        item_spec = spec.get("items", {})
        for item in value:
            if "pattern" in item_spec and not (isinstance(item, str) and re.fullmatch(item_spec["pattern"], item)):
                raise ToolArgumentError(f"参数 {name} 中的 {item!r} 格式不对")


def _code(name: str, value: object) -> str:
    code = normalise_code(value)
    if code is None:
        raise ToolArgumentError(f"参数 {name} 应为六位股票代码，而不是 {value!r}")
    return code


def _stamp(ctx: ToolContext) -> str:
    return ctx.now().isoformat(timespec="seconds")


def _requested(use_case: Callable, *args):
    """A use case's refusal (bad or impossible arguments) goes back to the model."""
    from pixiu_cli.services.errors import RequestError

    try:
        return use_case(*args)
    except RequestError as exc:
        raise ToolArgumentError(str(exc)) from None


def _remember(ctx: ToolContext, args: dict) -> ToolOutcome:
    from pixiu_cli.domain.vocabulary import AUTHOR_MODEL, AUTHOR_PROPOSAL
    from pixiu_cli.services.grounding import ground_note, note_refusal
    from pixiu_cli.services.notes import NewNote, add_note, note_notice

    if not args["text"].strip():
        raise ToolArgumentError("text 不能为空")
    grounding = ground_note(ctx.domain.db, ctx.said or "", args["text"], args.get("symbol"))
    author = AUTHOR_MODEL if grounding.grounded else AUTHOR_PROPOSAL
    request = NewNote(args["kind"], args["text"], args.get("symbol"), "model", author)
    write = _requested(add_note, ctx.domain.db, request, _stamp(ctx))
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
    from pixiu_cli.services.account import account_record, read_account

    record = account_record(read_account(ctx.domain.db, ctx.now(), ctx.cost_method))
    shorts = {h.symbol: h.short_names for h in ctx.domain.holdings()}
    for h in record["holdings"]:
        h["name"] = _quoted(h["name"])
        h["role"] = _quoted(h["role"])
        h["short_names"] = [_quoted(n) for n in shorts.get(h["symbol"], ())]
    for p in record["closed"]:
        p["name"] = _quoted(p["name"])
    return ToolOutcome(record)


def _record_decision(ctx: ToolContext, args: dict) -> ToolOutcome:
    from pixiu_cli.services.grounding import ground_trade, trade_refusal
    from pixiu_cli.services.trades import NewTrade, record_trade

    trade = NewTrade(
        symbol=args["symbol"],
        side=args["side"],
        price=float(args["price"]),
        quantity=float(args["quantity"]),
        reason=args.get("reason"),
        name=args.get("name"),
        source="model",
        day=args.get("date"),
        fee=float(args.get("fee") or 0.0),
    )
    grounding = ground_trade(ctx.domain.db, ctx.said or "", trade, ctx.now())
    if not grounding.grounded:
        raise Ungrounded(trade_refusal(grounding))
    recorded = _requested(record_trade, ctx.domain.db, trade, _stamp(ctx), ctx.cost_method)
    return ToolOutcome(
        {
            "ok": True,
            "decision_id": recorded.ref,
            "date": recorded.decision.decided_at[:10],
            "holding_after": recorded.holding_line(),
        },
        notice=recorded.notice(),
    )


def _set_alert(ctx: ToolContext, args: dict) -> ToolOutcome:
    from pixiu_cli.services.alerts import SOURCE_CONVERSATION, NewAlert, add_alert
    from pixiu_cli.services.grounding import alert_refusal, ground_alert

    request = NewAlert(
        symbol=args["symbol"], kind=args["kind"], threshold=args["threshold"], source=SOURCE_CONVERSATION
    )
    grounding = ground_alert(ctx.domain.db, ctx.said or "", request)
    if not grounding.grounded:
        raise Ungrounded(alert_refusal(grounding))
    added = _requested(add_alert, ctx.domain.db, request, _stamp(ctx))
    return ToolOutcome(
        {
            "ok": True,
            "alert_id": added.ref,
            "rule": added.text,
            "note": "导入或同步新的日线后按收盘价检查；触发后进入待办预警",
        },
        notice=f"已设预警 {added.ref}：{added.text}（/forget {added.ref} 可撤销）",
    )


def _search_memory(ctx: ToolContext, args: dict) -> ToolOutcome:
    events = ctx.memory.search(
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
                    "id": ctx.memory.ref_of(e),
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
# context/market_review.py).
STORED_TOPICS = ("fundamentals", "market")


def _stored_long_form(ctx: ToolContext, topic: str, symbol: str | None) -> ToolOutcome:
    from pixiu_cli.context.fundamentals import long_form
    from pixiu_cli.context.market_review import long_form as market_long_form
    from pixiu_cli.market.fundamentals import read_fundamentals
    from pixiu_cli.market.review import market_review

    now = ctx.now()
    if topic == "market":
        return ToolOutcome({"topic": topic, "content": "\n".join(market_long_form(market_review(ctx.domain.db, now)))})
    if symbol is None:
        raise ToolArgumentError("topic 为 fundamentals 时需要 symbol（六位股票代码）")
    found = read_fundamentals(stores_of(ctx.domain.db).fundamentals, symbol, report_limit=12)
    return ToolOutcome({"topic": topic, "symbol": symbol, "content": "\n".join(long_form(found, now.date()))})


def _load_context(ctx: ToolContext, args: dict) -> ToolOutcome:
    topic = args["topic"]
    if topic in STORED_TOPICS:
        return _stored_long_form(ctx, topic, _code("symbol", args["symbol"]) if "symbol" in args else None)
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
        "按主题加载知识文档，或已存数据的完整版：fundamentals（加 symbol：该股全部报告期、分红、业绩预告）、market（市场概况含全部行业板块）。主题列表见系统提示。",
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


@dataclass
class ToolRegistry:
    tools: tuple[Tool, ...] = TOOLS
    _by_name: dict[str, Tool] = field(init=False)

    def __post_init__(self) -> None:
        self._by_name = {t.name: t for t in self.tools}

    def schemas(self) -> list[dict]:
        return [t.schema() for t in self.tools]

    def get(self, name: str) -> Tool | None:
        return self._by_name.get(name)


def encode_result(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
