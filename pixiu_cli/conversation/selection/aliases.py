"""User aliases for stocks (`/alias 宁王 300750`, `pixiu alias 宁王 300750`): checked here,
stored in the security master, read by the name table on the next turn."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.vocabulary import normalise_code
from pixiu_cli.market.names.codes import normalize
from pixiu_cli.market.names.table import shipped_indexes, shipped_securities

if TYPE_CHECKING:
    from pixiu_cli.market.handle import SecurityMaster

MAX_ALIAS = 20


class AliasError(UserError):
    """Bad input for an alias; the message is one line for the user (Chinese)."""


@dataclass(frozen=True)
class AliasRow:
    alias: str
    symbol: str
    name: str  # "" when pixiu knows no name for the code
    source: str  # user | shipped


def _name(master: SecurityMaster, symbol: str) -> str:
    security = master.get(symbol)
    if security is not None:
        return security.name
    shipped = shipped_securities().get(symbol)
    return shipped.name if shipped else ""


def check_alias(alias: str) -> str:
    alias = alias.strip()
    if not alias:
        raise AliasError("别名不能为空")
    if any(ch.isspace() or not ch.isprintable() for ch in alias):
        raise AliasError(f"别名不能包含空白或控制字符：{alias!r}")
    if len(normalize(alias)) < 2:
        raise AliasError(f"别名至少两个字：{alias}")
    if len(alias) > MAX_ALIAS:
        raise AliasError(f"别名太长（最多 {MAX_ALIAS} 个字）")
    if normalise_code(alias) is not None or alias.isdigit():
        raise AliasError(f"别名不能是数字：{alias}")
    return alias


def add_alias(master: SecurityMaster, alias: str, code: str, now: datetime) -> AliasRow:
    alias = check_alias(alias)
    symbol = normalise_code(code)
    if symbol is None:
        raise AliasError(f"股票代码应为六位数字，而不是 {code!r}")
    if symbol in shipped_indexes() and _name(master, symbol) == "":
        raise AliasError(f"{symbol} 是指数代码，别名只能指向股票")
    at = now.isoformat(timespec="seconds")
    master.add_alias(alias, symbol, source="user", at=at)
    return AliasRow(alias, symbol, _name(master, symbol), "user")


def remove_alias(master: SecurityMaster, alias: str) -> None:
    alias = alias.strip()
    if not master.remove_alias(alias):
        raise AliasError(f"没有别名 {alias}（/alias 查看全部）")


def list_aliases(master: SecurityMaster) -> list[AliasRow]:
    rows = [AliasRow(a.alias, a.symbol, _name(master, a.symbol), a.source) for a in master.aliases()]
    for security in shipped_securities().values():
        rows.extend(AliasRow(n, security.symbol, security.name, "shipped") for n in security.nicknames)
    return rows
