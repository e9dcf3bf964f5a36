"""Where the account's risk sits: the valued account's weights by industry (the shipped
security list's industry; a stock it gives none is 未分类), its largest stock (the
valuation's `Account.concentration`), and each cap the user stated that a program can read
(market/analytics/rules.py: a stock's or every stock's cap, a role's, an industry's, the
stocks' total, a cash floor) checked against those weights. Weights are of total assets when
the cash is known, else of the stocks, as every weight of the valuation is; the stocks'
total and the cash floor need the cash, and without it stay unchecked. A rule the reader
cannot read is not checked: never a guessed cap."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from pixiu_cli.account.ledger import ZERO, dec
from pixiu_cli.account.overview import account_record, read_account
from pixiu_cli.account.valuation import AccountView, Concentration
from pixiu_cli.market.analytics.rules import (
    CAP,
    CASH_MIN,
    INDUSTRY_CAP,
    ROLE_CAP,
    TOTAL_CAP,
    StatedRule,
    stated_rules,
    unique,
)
from pixiu_cli.market.securities import shipped_industries
from pixiu_cli.memory.model import note_ref

if TYPE_CHECKING:
    from pixiu_cli.account.books import AccountBooks
    from pixiu_cli.home.handle import InvestorStore

UNCLASSIFIED = "未分类"  # a stock the security list gives no industry
CAP_KINDS = frozenset({CAP, ROLE_CAP, INDUSTRY_CAP, TOTAL_CAP, CASH_MIN})
RULES_READ = 500  # rule notes read: every one in force in any real home


@dataclass(frozen=True)
class IndustryWeight:
    industry: str  # the security list's name, or UNCLASSIFIED
    value: Decimal
    of_stocks: Decimal  # of the stocks' value
    of_assets: Decimal | None  # of total assets; None when the cash is unknown
    symbols: tuple[str, ...]  # largest first

    @property
    def weight(self) -> Decimal:
        """On the valuation's basis: of total assets when the cash is known."""
        return self.of_stocks if self.of_assets is None else self.of_assets


@dataclass(frozen=True)
class CapCheck:
    rule: StatedRule
    actual: Decimal | None  # the weight the cap bounds (a fraction); None: needs the cash, unknown
    symbol: str | None = None  # a stock's cap: the stock; every stock's: the largest
    over: tuple[str, ...] = ()  # every stock's cap: the stocks past it, largest first

    @property
    def limit(self) -> Decimal:
        return dec(self.rule.level)

    @property
    def beyond(self) -> Decimal | None:
        """How far past the cap (a fraction; ≤ 0 within it): above a cap, below a floor."""
        if self.actual is None:
            return None
        return self.limit - self.actual if self.rule.kind == CASH_MIN else self.actual - self.limit

    @property
    def within(self) -> bool | None:
        beyond = self.beyond
        return None if beyond is None else beyond <= 0


@dataclass(frozen=True)
class Risk:
    industries: tuple[IndustryWeight, ...]  # largest first
    concentration: Concentration | None
    caps: tuple[CapCheck, ...]  # in the order the rules were stated
    of_assets: bool  # the weights are of total assets (the cash is known), else of the stocks
    cash: Decimal | None  # the cash's share of total assets; None when unknown


def industry_of(symbol: str, industries: Mapping[str, str]) -> str:
    return industries.get(symbol) or UNCLASSIFIED


def industry_weights(view: AccountView, industries: Mapping[str, str]) -> tuple[IndustryWeight, ...]:
    """The held stocks grouped by industry, each group's value and weights, largest first."""
    account = view.account
    stocks, of_assets = account.stock_value, account.cash is not None
    groups: dict[str, list] = {}
    for h in account.holdings:  # largest first: each group's symbols keep that order
        groups.setdefault(industry_of(h.symbol, industries), []).append(h)
    out = []
    for industry, held in groups.items():
        value = sum((h.value for h in held), ZERO)
        assets = sum((h.weight for h in held), ZERO) if of_assets else None
        out.append(
            IndustryWeight(
                industry, value, value / stocks if stocks > 0 else ZERO, assets, tuple(h.symbol for h in held)
            )
        )
    return tuple(sorted(out, key=lambda w: (-w.value, w.industry == UNCLASSIFIED, w.industry)))


def _check(rule: StatedRule, view: AccountView, industries: Mapping[str, str]) -> CapCheck:
    account = view.account
    held = account.holdings
    if rule.kind == CAP and rule.symbol is not None:
        h = account.holding(rule.symbol)
        return CapCheck(rule, h.weight if h else ZERO, rule.symbol)
    if rule.kind == CAP:
        c = account.concentration
        over = tuple(h.symbol for h in held if h.weight > dec(rule.level))
        return CapCheck(rule, c.largest_weight if c else ZERO, c.largest_symbol if c else None, over)
    if rule.kind == ROLE_CAP:
        return CapCheck(rule, sum((h.weight for h in held if view.roles.get(h.symbol) == rule.role), ZERO))
    if rule.kind == INDUSTRY_CAP:
        named = set(rule.industries)
        return CapCheck(rule, sum((h.weight for h in held if industry_of(h.symbol, industries) in named), ZERO))
    total = account.total_assets
    if total is None or total <= 0:
        return CapCheck(rule, None)
    return CapCheck(rule, (account.stock_value if rule.kind == TOTAL_CAP else account.cash.amount) / total)


def account_risk(
    view: AccountView, rules: Iterable[StatedRule] = (), industries: Mapping[str, str] | None = None
) -> Risk:
    """Where the risk of the valued account sits, and each of `rules` (the caps among them)
    checked; `industries`: code → industry (the shipped security list's when None)."""
    if industries is None:
        industries = shipped_industries()
    account = view.account
    total = account.total_assets
    cash = account.cash.amount / total if account.cash is not None and total and total > 0 else None
    caps = tuple(_check(r, view, industries) for r in rules if r.kind in CAP_KINDS)
    return Risk(industry_weights(view, industries), account.concentration, caps, account.cash is not None, cash)


def caps_in_force(investor: InvestorStore, now: datetime) -> list[StatedRule]:
    """The caps the user stated: in their rule notes in force (whatever their age) and in
    their persona, read as the daily brief reads them (one cap stated twice is one)."""
    until = now.isoformat(timespec="seconds")
    rules: list[StatedRule] = []
    for key, value in investor.persona().items():
        rules += stated_rules(value, None, f"画像 {key}")
    for note in reversed(investor.rules(until, RULES_READ)):  # as they were written, oldest first
        rules += stated_rules(note.text, note.symbol, f"笔记 {note_ref(note.id)}")
    return [r for r in unique(rules) if r.kind in CAP_KINDS]


def _ratio(value: Decimal | None) -> float | None:
    return None if value is None else float(round(value, 6))


def risk_record(risk: Risk, view: AccountView) -> dict:
    """The risk as JSON-ready data (`holdings --json`'s `risk`): weights as fractions."""
    c = risk.concentration
    return {
        "basis": "total_assets" if risk.of_assets else "stock_value",
        "cash_weight": _ratio(risk.cash),
        "industries": [
            {
                "industry": w.industry,
                "value": float(round(w.value, 2)),
                "weight_of_stocks": _ratio(w.of_stocks),
                "weight_of_assets": _ratio(w.of_assets),
                "symbols": list(w.symbols),
            }
            for w in risk.industries
        ],
        "largest": None
        if c is None
        else {
            "symbol": c.largest_symbol,
            "name": view.name(c.largest_symbol),
            "weight": _ratio(c.largest_weight),
            "top3_weight": _ratio(c.top3_weight),
        },
        "caps": [
            {
                "kind": check.rule.kind,
                "text": check.rule.text,
                "origin": check.rule.origin,
                "limit": _ratio(check.limit),
                "every_stock": check.rule.kind == CAP and check.rule.symbol is None,
                "symbol": check.symbol,
                "name": view.names.get(check.symbol) if check.symbol else None,  # None: a stock not held
                "role": check.rule.role,
                "industries": list(check.rule.industries),
                "actual": _ratio(check.actual),
                "within": check.within,
                "beyond": _ratio(check.beyond),
                "over": list(check.over),
            }
            for check in risk.caps
        ],
    }


def holdings_record(
    account: AccountBooks, investor: InvestorStore, now: datetime, broker_account: str | None = None
) -> dict:
    """`pixiu holdings --json`'s record, where the risk sits included: what the command line,
    the REPL and `pixiu mcp`'s holdings show."""
    view = read_account(account, now, broker_account)
    record = account_record(view)
    record["risk"] = risk_record(account_risk(view, caps_in_force(investor, now)), view)
    return record
