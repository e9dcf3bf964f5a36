"""What an A-share trade costs, by date: the broker's commission (the account's own rate and
minimum, [account] in config.toml), the stamp duty and the transfer fee. One table for the
backtests (analytics/costs.py) and for the fee a trade told without one is estimated at
(services/trades.py).

Stamp duty: the Ministry of Finance and the State Taxation Administration's announcements
(2008-04-24 to 0.1%; 2008-09-19 sells only; 2023-08-28 halved to 0.05%; the earlier rows are
the rates those announcements replaced). Transfer fee: China Securities Depository and
Clearing's notices (from 2015-08-01 both exchanges 0.02‰ of the amount, replacing Shanghai's
0.3‰ of the face value and Shenzhen's 0.0255‰ of the amount; halved to 0.01‰ on 2022-04-29).
Shanghai's face-value fee was cut more than once before 2015 (1‰ of the face value with a ¥1
minimum in the 1990s and 2000s); the rows keep the rate the 2015 notice replaced. The Beijing
exchange's trades settle with Shenzhen's rows.

差别化个人所得税: the tax a broker takes at a sale on the cash dividends the sold shares
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

from pixiu_cli.kernel.settings import Commission

# (in force from, rate of the amount, sells only): the latest row in force wins.
STAMP_DUTY: tuple[tuple[str, float, bool], ...] = (
    ("1990-12-19", 0.003, False),
    ("1997-05-12", 0.005, False),
    ("1998-06-12", 0.004, False),
    ("2001-11-16", 0.002, False),
    ("2005-01-24", 0.001, False),
    ("2007-05-30", 0.003, False),
    ("2008-04-24", 0.001, False),
    ("2008-09-19", 0.001, True),
    ("2023-08-28", 0.0005, True),
)

FACE_VALUE = 1.0  # yuan per A share: what Shanghai's transfer fee was charged on before 2015-08-01

# (exchange, in force from, rate, basis: "amount" or "face" value): each side of a trade.
TRANSFER_FEE: tuple[tuple[str, str, float, str], ...] = (
    ("SH", "1990-12-19", 0.0003, "face"),
    ("SZ", "1990-12-19", 0.0000255, "amount"),
    ("SH", "2015-08-01", 0.00002, "amount"),
    ("SZ", "2015-08-01", 0.00002, "amount"),
    ("SH", "2022-04-29", 0.00001, "amount"),
    ("SZ", "2022-04-29", 0.00001, "amount"),
)


def _in_force(rows, day: str):
    dated = [row for row in rows if row[0] <= day]
    return dated[-1] if dated else rows[0]


def stamp_duty_rate(day: str, selling: bool) -> float:
    _, rate, sells_only = _in_force(STAMP_DUTY, day)
    return rate if selling or not sells_only else 0.0


def exchange_of(symbol: str | None) -> str:
    """SH for Shanghai's codes (6xxxxx), SZ otherwise (Shenzhen; Beijing settles alike)."""
    return "SH" if symbol and symbol.startswith("6") else "SZ"


def transfer_row(day: str, exchange: str = "SZ") -> tuple[float, str]:
    """(rate, basis) of the transfer fee on `day`."""
    rows = [(start, rate, basis) for ex, start, rate, basis in TRANSFER_FEE if ex == exchange]
    _, rate, basis = _in_force(rows, day)
    return rate, basis


def transfer_fee(amount: float, shares: float | None, day: str, exchange: str = "SZ") -> float:
    """A face-value fee with no share count known is charged on the amount (a backtest's
    order whose shares are being sized)."""
    rate, basis = transfer_row(day, exchange)
    if basis == "face" and shares is not None:
        return shares * FACE_VALUE * rate
    return amount * rate


@dataclass(frozen=True)
class TradeCost:
    commission: float
    stamp_duty: float
    transfer: float

    @property
    def total(self) -> float:
        return self.commission + self.stamp_duty + self.transfer


def trade_cost(
    amount: float,
    day: str,
    selling: bool,
    commission: Commission,
    symbol: str | None = None,
    shares: float | None = None,
) -> TradeCost:
    """The fees of one order of `amount` yuan on `day`."""
    return TradeCost(
        commission.on(amount),
        amount * stamp_duty_rate(day, selling),
        transfer_fee(amount, shares, day, exchange_of(symbol)),
    )


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
