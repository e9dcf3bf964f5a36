"""差别化个人所得税: the tax a broker takes at a sale on the cash dividends the sold shares
received, by how long they were held. A dividend is paid before tax; when the shares are
sold, the broker works out the holding period (from the day they were bought to the sale,
first bought first sold) and takes the tax from the account.

Each rule is dated and names its source. A dividend with an ex-date before the first rule's
effective day is not estimated (the older rules withheld part of it at payment)."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class HeldBracket:
    months: int  # held at most this many calendar months: the sale day ≤ the buy day + months
    rate: Decimal  # of the cash dividend


@dataclass(frozen=True)
class DividendTaxRule:
    effective: str  # dividends with an ex-date on or after this day
    brackets: tuple[HeldBracket, ...]  # shortest first; held longer than the last: `longer`
    longer: Decimal
    source: str


DIVIDEND_TAX_RULES = (
    # held ≤ 1 month: the whole dividend is income, 20%; ≤ 1 year: half of it, 10%; longer: exempt
    DividendTaxRule(
        "2015-09-08",
        (HeldBracket(1, Decimal("0.20")), HeldBracket(12, Decimal("0.10"))),
        Decimal(0),
        "财税〔2015〕101号",
    ),
)


def _untaxed_after() -> int | None:
    """Months after which no rule takes anything from shares held that long (None: some does)."""
    if any(rule.longer for rule in DIVIDEND_TAX_RULES):
        return None
    return max(b.months for rule in DIVIDEND_TAX_RULES for b in rule.brackets)


UNTAXED_AFTER_MONTHS = _untaxed_after()


def months_later(day: date, months: int) -> date:
    """The same day `months` calendar months on (the month's last day when it has fewer)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def rule_for(ex_date: str) -> DividendTaxRule | None:
    """The rule a dividend with this ex-date falls under; None before the first."""
    found = None
    for rule in DIVIDEND_TAX_RULES:
        if rule.effective <= ex_date:
            found = rule
    return found


def never_taxed(bought: str, day: str) -> bool:
    """Shares bought on `bought` that are still held on `day` carry no tax into any later sale."""
    if UNTAXED_AFTER_MONTHS is None or not bought:
        return not bought
    return months_later(date.fromisoformat(bought), UNTAXED_AFTER_MONTHS) < date.fromisoformat(day)


def dividend_tax_rate(ex_date: str, bought: str, sold: str) -> Decimal:
    """The share of a dividend (paid on `ex_date`) taken when shares bought on `bought` are
    sold on `sold`. No buy day known (shares held before the ledger begins): no tax."""
    rule = rule_for(ex_date)
    if rule is None or not bought:
        return Decimal(0)
    start, sale = date.fromisoformat(bought), date.fromisoformat(sold)
    for bracket in rule.brackets:
        if sale <= months_later(start, bracket.months):
            return bracket.rate
    return rule.longer
