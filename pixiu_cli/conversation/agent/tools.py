"""The tool machinery: what a tool is, the context its handler runs in, argument validation
and the registry the loop looks tools up in. The tools themselves call services, which sit
above the agent: they are in services/model_tools.py, and app.py hands their registry to
the loop.

A handler returns a ToolOutcome; bad arguments raise ToolArgumentError, which the loop
turns into an error result for the model, never a crash."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pixiu_cli.home.handle import Home
from pixiu_cli.kernel.settings import Commission
from pixiu_cli.kernel.store.database import database_path, open_database
from pixiu_cli.kernel.vocabulary import is_finite_number, normalise_code
from pixiu_cli.market.handle import Market
from pixiu_cli.memory.handle import Memory

if TYPE_CHECKING:
    from pixiu_cli.account.handle import Account, PortfolioStore
    from pixiu_cli.home.handle import InvestorStore
    from pixiu_cli.market.handle import Market
    from pixiu_cli.memory.handle import Memory


class ToolArgumentError(Exception):
    """Arguments that do not fit the schema; the message goes back to the model."""


@dataclass(frozen=True)
class ToolOutcome:
    content: dict | list | str  # what the model sees (JSON-encoded)
    notice: str | None = None  # one line for the user (e.g. 已记住 #12：…)


@dataclass
class TurnWrites:
    """What the tools of one turn wrote, by the key of what each call stated (a second call
    stating the same trade or alert is answered with the first one's ref), and how many
    proposals the turn made (they are bounded)."""

    refs: dict[tuple, tuple[str, bool]] = field(default_factory=dict)  # key → (ref, only proposed)
    proposals: int = 0


@dataclass
class ToolContext:
    # The workspace's memory, and through it the home, the market and the account it was handed
    # (the account is valued by [account] cost_method).
    memory: Memory
    now: Callable[[], datetime]
    commission: Commission = Commission()  # [account] commission_rate / commission_min: a trade's estimated fee
    # The user's words of the turn the tools run in: what every change to the account or the
    # memory must come from. None: no user spoke this turn (the brief), so nothing is changed.
    said: str | None = None
    turn: TurnWrites = field(default_factory=TurnWrites)

    @property
    def domain(self) -> InvestorStore:
        return self.memory.investor

    @property
    def market(self) -> Market:
        return self.memory.market

    @property
    def account(self) -> Account:
        return self.memory.account

    @property
    def portfolio(self) -> PortfolioStore:
        return self.memory.account.portfolio

    def for_turn(self, said: str | None) -> ToolContext:
        return replace(self, said=said, turn=TurnWrites())

    def isolated(self) -> ToolContext:
        """The same stores on a connection of their own, for a tool thread the loop may stop
        waiting for: an abandoned thread must never hold a transaction open on the
        connection the turn itself writes through (its writes would be rolled back with
        it). An in-memory database has no second connection: the context itself."""
        from pixiu_cli.account.handle import Account

        path = database_path(self.memory.db)
        if path is None:
            return self
        db = open_database(path, migrate=False)
        home = Home(db)
        market = Market(db, home=home)
        account = Account(db, self.account.cost_method, home=home, market=market)
        return ToolContext(
            Memory(db, home=home, market=market, account=account), self.now, self.commission, self.said, self.turn
        )

    def close(self) -> None:
        self.memory.db.close()


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
        value = code_argument(name, value)
    if spec["type"] == "array" and spec.get("items", {}).get("pattern") == CODE:
        value = [code_argument(name, item) for item in value]
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


def code_argument(name: str, value: object) -> str:
    code = normalise_code(value)
    if code is None:
        raise ToolArgumentError(f"参数 {name} 应为六位股票代码，而不是 {value!r}")
    return code


@dataclass
class ToolRegistry:
    """The tools of a turn, in one static order (same names, order and JSON on every call, so
    the provider's prefix cache survives). Empty unless handed its tools (app.py hands it
    services/model_tools.py's)."""

    tools: tuple[Tool, ...] = ()
    _by_name: dict[str, Tool] = field(init=False)

    def __post_init__(self) -> None:
        self._by_name = {t.name: t for t in self.tools}

    def schemas(self) -> list[dict]:
        return [t.schema() for t in self.tools]

    def get(self, name: str) -> Tool | None:
        return self._by_name.get(name)


def encode_result(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
