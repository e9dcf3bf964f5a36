"""Values nobody could mean, refused where they enter: a date the calendar does not have or
the market had not reached, a price or a corporate action no A-share has ever had. Each check
returns the reason as Chinese text (or None), so every boundary names its own row and field."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date, timedelta
from typing import NamedTuple

from pixiu_cli.market.bars import Bar

# The Shanghai exchange's first trading day: no A-share bar or action is older.
FIRST_TRADING_DAY = date(1990, 12, 19)
# The highest A-share price ever quoted is a few thousand yuan; a hundred times that is a typo.
MAX_PRICE = 100_000.0
# 10送100 would already be extraordinary; more than ten new shares per share is not a real action.
MAX_SHARES_PER_SHARE = 10.0
# Shares held or traded: more than every A-share in issue is not a holding.
MAX_SHARES = 1e13
# One account's row of money (a trade, a transfer, a balance): a trillion yuan is no one's.
MAX_MONEY = 1e12
# Commission, stamp duty and transfer fees are tenths of a percent of a trade; the minimum
# commission of an odd lot can exceed a tiny trade, so the bound is a tenth plus this much.
FEE_FLOOR = 100.0
# The smallest price step of an A-share: a reference price below one fen cannot be quoted.
FEN = 0.01
# Limit prices and reference prices are rounded to the fen: −10.04% is still a limit-down open.
ROUNDING = 0.005


def calendar_date(text: str) -> date | None:
    """A YYYY-MM-DD the calendar has (no 02-30, no year 0), else None."""
    try:
        return date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        return None


def market_date_problem(day: date, today: date) -> str | None:
    """A bar or ex-date must fall between the market's first day and tomorrow (time zones)."""
    reason = day_problem(day, today, days_ahead=1)
    return f"日期 {reason}" if reason else None


def price_problem(value: float) -> str | None:
    if not math.isfinite(value) or value < 0:
        return f"{value!r} 不是有效价格"
    if value > MAX_PRICE:
        return f"{value:.6g} 元超过任何 A 股价格（上限 {MAX_PRICE:,.0f} 元）"
    return None


def shares_problem(value: float) -> str | None:
    if value > MAX_SHARES:
        return f"{value:.6g} 股超过可能的持股数量"
    return None


def whole_shares_problem(value: float) -> str | None:
    """Shares change hands whole: a fraction of a share is a typo (or a shifted column)."""
    if not math.isfinite(value) or value != math.floor(value):
        return f"{value:g} 不是整数股"
    return None


def money_problem(value: float) -> str | None:
    if not math.isfinite(value) or abs(value) > MAX_MONEY:
        return f"{value:.6g} 元超过任何账户的金额（上限 1 万亿元）"
    return None


def fee_problem(fees: float, amount: float) -> str | None:
    """Fees are money paid, never negative, and never most of what they were paid on."""
    if not math.isfinite(fees) or fees < 0:
        return f"{fees:g} 元不是有效费用（费用不能为负）"
    limit = 0.1 * abs(amount) + FEE_FLOOR
    if fees > limit:
        return f"费用 {fees:,.2f} 元不合理（成交金额 {amount:,.2f} 元，费用至多 {limit:,.2f} 元）"
    return None


def action_problem(cash_per_share: float, shares_per_share: float, close_before: float | None) -> str | None:
    """A cash dividend below the price it is paid on, and at most ten new shares per share."""
    if shares_per_share > MAX_SHARES_PER_SHARE:
        return f"每股送转 {shares_per_share:.6g} 股超过上限 {MAX_SHARES_PER_SHARE:g}"
    if cash_per_share > MAX_PRICE:
        return f"每股派现 {cash_per_share:.6g} 元不可能"
    if close_before is not None and cash_per_share >= close_before:
        return f"每股派现 {cash_per_share:g} 元不低于除权前收盘价 {close_before:g} 元"
    return None


def fill_problems(
    *,
    moves_shares: bool,
    day: date | None = None,
    today: date | None = None,
    quantity: float = 0.0,
    price: float = 0.0,
    amount: float | None = None,
    fees: float = 0.0,
    cash_change: float | None = None,
    balance: float | None = None,
) -> Iterator[tuple[str, str]]:
    """(field, problem) for each value of a fill no account could have, checked alike at
    every door fills come in by (a statement, a JSON ledger, a trade told by hand)."""
    checks = [("day", market_date_problem(day, today) if day is not None and today is not None else None)]
    if moves_shares:
        checks.append(("quantity", shares_problem(quantity) or whole_shares_problem(quantity) if quantity else None))
        checks.append(("price", price_problem(price)))
    checks += [
        (f, money_problem(v))
        for f, v in (("amount", amount), ("cash_change", cash_change), ("balance", balance))
        if v is not None
    ]
    checks.append(("fees", fee_problem(fees, amount or 0.0)))
    yield from ((field, problem) for field, problem in checks if problem)


class Problem(NamedTuple):
    """What is wrong with one row: the field at fault and why, in Chinese."""

    field: str
    reason: str

    def text(self) -> str:
        return f"{self.field} {self.reason}"


def day_problem(day: date, today: date, days_ahead: int = 0) -> str | None:
    """A day from the market's first session to `days_ahead` after today (Beijing): a bar is
    of a session that has happened (0), an announced ex-date may be tomorrow's (1). The
    reason leaves out the field's name, which the caller puts before it."""
    if day < FIRST_TRADING_DAY:
        return f"{day.isoformat()} 早于 A 股开市（{FIRST_TRADING_DAY.isoformat()}）"
    if day > today + timedelta(days=days_ahead):
        return f"{day.isoformat()} 在未来（今天是 {today.isoformat()}）"
    return None


def future_problem(day: date, today: date) -> str | None:
    """A stored fact (news, a decision, a report, a note) dated after today (Beijing)."""
    if day > today:
        return f"日期 {day.isoformat()} 在未来（今天是 {today.isoformat()}）"
    return None


def bar_problem(bar: Bar) -> Problem | None:
    """Prices a quote could have had (finite, positive, low ≤ open, close ≤ high, below any
    A-share's), and a volume and amount that could have traded."""
    prices = (("开盘价", bar.open), ("最高价", bar.high), ("最低价", bar.low), ("收盘价", bar.close))
    for field, value in prices:
        if not math.isfinite(value) or value < 0:
            return Problem(field, f"{value!r} 不是有效价格")
    o, h, lo, c = bar.open, bar.high, bar.low, bar.close
    if not (lo <= o <= h and lo <= c <= h) or c <= 0:
        return Problem("价格", f"不自洽（最低 {lo:g} 最高 {h:g} 开 {o:g} 收 {c:g}）")
    if problem := price_problem(h):
        return Problem("最高价", problem)
    if not math.isfinite(bar.volume) or bar.volume < 0 or (problem := shares_problem(bar.volume)):
        return Problem("成交量", problem or f"{bar.volume!r} 不是有效数值")
    if bar.amount is not None and (not math.isfinite(bar.amount) or bar.amount < 0):
        return Problem("成交额", f"{bar.amount!r} 不是有效数值")
    return None


def action_values_problem(cash_per_share: float, shares_per_share: float, ratio: float | None) -> Problem | None:
    """The numbers alone: finite, not negative, a dividend below any price, at most ten new
    shares per share, and a price ratio that leaves the highest price at least a fen."""
    for field, value in (("每股派现", cash_per_share), ("每股送转", shares_per_share)):
        if not math.isfinite(value) or value < 0:
            return Problem(field, f"{value!r} 不是有效数值")
    if cash_per_share > MAX_PRICE:
        return Problem("每股派现", f"{cash_per_share:.6g} 元超过任何 A 股价格")
    if shares_per_share > MAX_SHARES_PER_SHARE:
        return Problem("每股送转", f"{shares_per_share:.6g} 股超过上限 {MAX_SHARES_PER_SHARE:g}")
    if ratio is not None and not (math.isfinite(ratio) and 0 < ratio <= MAX_PRICE / FEN):
        return Problem("除权比例", f"{ratio!r} 不可能")
    return None


def reference_price(close_before: float, cash_per_share: float, shares_per_share: float, ratio: float | None) -> float:
    """The exchange's ex-rights reference price (除权除息参考价): (close − cash) / (1 + shares),
    or the close over the source's own before/after ratio when it gave one."""
    if ratio:
        return close_before / ratio
    return (close_before - cash_per_share) / (1 + shares_per_share)


def ex_date_problem(
    reference: float, close_before: float, ex_open: float | None, limit: float | None
) -> Problem | None:
    """The ex-date's price limits are set around the reference price, so its open lies within
    the board's daily limit of it (plus the fen rounding of both); a reference below a fen
    is no price at all. `limit` None: no limit applied (before 1996-12-16, or the open
    follows a suspension long enough for news to move it past one day's limit)."""
    if not reference >= FEN:  # NaN too
        return Problem("除权参考价", f"前收盘 {close_before:g} 元除权后为 {reference:.4g} 元，不是有效价格")
    if ex_open is None or limit is None:
        return None
    band = reference * (limit + ROUNDING) + FEN
    if abs(ex_open - reference) > band:
        return Problem(
            "除权参考价",
            f"前收盘 {close_before:g} 元除权后应为 {reference:.2f} 元，而除权日开盘 {ex_open:g} 元，"
            f"超出 ±{limit:.0%} 涨跌幅",
        )
    return None


# Bounds of what the market's own figures can be (the fundamentals and the review), each far
# past anything an A-share has reported, so only a typo or a broken feed reaches them.
# A PE or PB over a million is a profit or a book value of almost nothing, shown as such by
# the sources long before this; a company's yearly revenue, profit or market value of 100
# trillion yuan is over ten times China's largest (about 3 trillion of revenue in 2024).
MAX_MULTIPLE = 1e6
MAX_COMPANY_MONEY = 1e14
# A growth rate or a margin as a fraction: 10,000 is a million percent.
MAX_RATIO = 1e4
# About 5,400 A-shares were listed in 2026; twice that still bounds every count of stocks.
MAX_LISTED = 10_000
# One session's whole-market turnover has stayed under 4 trillion yuan; 100 trillion is none.
MAX_TURNOVER = 1e14
# A board's move in a session is a fraction of its stocks' limits; a stock's first session
# (no limit) has never reached +5,000%.
MAX_BOARD_MOVE = 1.0
MAX_STOCK_MOVE = 50.0

# The kind of a stored figure → (the lowest and the highest value it can have, its unit shown).
FIGURE_BOUNDS: dict[str, tuple[float, float, str]] = {
    "price": (0.0, MAX_PRICE, "元"),
    "multiple": (-MAX_MULTIPLE, MAX_MULTIPLE, "倍"),
    "company_money": (-MAX_COMPANY_MONEY, MAX_COMPANY_MONEY, "元"),
    "market_value": (0.0, MAX_COMPANY_MONEY, "元"),
    "ratio": (-MAX_RATIO, MAX_RATIO, ""),
    "per_share": (-MAX_PRICE, MAX_PRICE, "元"),
    "shares": (0.0, MAX_SHARES, "股"),
    "shares_per_share": (0.0, MAX_SHARES_PER_SHARE, "股"),
    "stocks": (0.0, MAX_LISTED, "只"),
    "turnover": (0.0, MAX_TURNOVER, "元"),
    "board_move": (-MAX_BOARD_MOVE, MAX_BOARD_MOVE, ""),
    "stock_move": (-1.0, MAX_STOCK_MOVE, ""),
}


# Each stored figure: its Chinese name and its kind of bounds (FIGURE_BOUNDS).
VALUATION_FIGURES = {
    "close": ("收盘价", "price"),
    "pe_ttm": ("市盈率", "multiple"),
    "pb_mrq": ("市净率", "multiple"),
    "ps_ttm": ("市销率", "multiple"),
    "pcf_ttm": ("市现率", "multiple"),
    "total_mv": ("总市值", "market_value"),
    "float_mv": ("流通市值", "market_value"),
}
REPORT_FIGURES = {
    "revenue": ("营业收入", "company_money"),
    "revenue_yoy": ("营收同比", "ratio"),
    "net_profit": ("净利润", "company_money"),
    "net_profit_yoy": ("净利润同比", "ratio"),
    "roe": ("净资产收益率", "ratio"),
    "gross_margin": ("毛利率", "ratio"),
    "net_margin": ("净利率", "ratio"),
    "debt_ratio": ("资产负债率", "ratio"),
    "operating_cash_flow": ("经营现金流", "company_money"),
    "cfo_to_profit": ("现金流/净利润", "ratio"),
    "eps_ttm": ("每股收益", "per_share"),
    "total_shares": ("总股本", "shares"),
    "float_shares": ("流通股本", "shares"),
}
DIVIDEND_FIGURES = {
    "cash": ("每股派现", "price"),
    "bonus_shares": ("每股送股", "shares_per_share"),
    "transfer_shares": ("每股转增", "shares_per_share"),
}
NOTICE_FIGURES = {"change_low": ("预告变动下限", "ratio"), "change_high": ("预告变动上限", "ratio")}
BREADTH_FIGURES = {
    "stocks": ("有价股票数", "stocks"),
    "advancers": ("上涨家数", "stocks"),
    "decliners": ("下跌家数", "stocks"),
    "flat": ("平盘家数", "stocks"),
    "suspended": ("停牌家数", "stocks"),
    "limit_up": ("涨停家数", "stocks"),
    "limit_down": ("跌停家数", "stocks"),
    "turnover": ("成交额", "turnover"),
}
INDUSTRY_FIGURES = {
    "change": ("涨跌幅", "board_move"),
    "advancers": ("上涨家数", "stocks"),
    "decliners": ("下跌家数", "stocks"),
    "leader_change": ("领涨股涨跌幅", "stock_move"),
}

# No gate lets a figure past 1e14 (FIGURE_BOUNDS, MAX_MONEY, MAX_SHARES); one stored beyond
# this came from an older version or a damaged file, and reads as no number at all: past it,
# decimal arithmetic (28 digits) cannot round it to the fen.


# The ledger's columns read back within the bounds they were written with (fill_problems):
# the account's arithmetic multiplies shares by prices, and stays within 28 digits so.
LEDGER_BOUNDS = {
    "quantity": MAX_SHARES,
    "price": MAX_PRICE,
    "amount": MAX_MONEY,
    "fees": MAX_MONEY,
    "cash_change": MAX_MONEY,
    "balance": MAX_MONEY,
}
# A stated cash balance and a stored corporate action read back within what their gates let in.
CASH_BOUNDS = {"amount": MAX_MONEY}
ACTION_BOUNDS = {"cash_per_share": MAX_PRICE, "shares_per_share": MAX_SHARES_PER_SHARE, "ratio": MAX_PRICE / FEN}


def figure_problem(kind: str, value) -> str | None:
    """A stored figure of `kind` (FIGURE_BOUNDS): a finite number within its bounds."""
    low, high, unit = FIGURE_BOUNDS[kind]
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return f"{str(value)[:20]!r} 不是有效数值"
    if not math.isfinite(number):
        return f"{value} 不是有效数值"
    if not low <= number <= high:
        return f"{number:.6g}{unit} 超出合理范围（{low:.6g} 至 {high:.6g}{unit}）"
    return None


def within_bounds(name: str, value, figures: dict[str, tuple[str, str]]):
    """A stored figure as read back: itself when its field has no bounds or it is within
    them, else None (shown —): a value past every gate came from a damaged or older file."""
    kind = figures.get(name)
    return value if value is None or kind is None or figure_problem(kind[1], value) is None else None


def dividend_problem(cash: float, shares_held: float | None, close: float | None) -> str | None:
    """A dividend credited on a holding: per share held, below the stock's price (the exchange
    takes it off the price on the ex-date) and below any A-share's; with no shares known to be
    held, the whole sum is bounded by the biggest holding only (money_problem)."""
    if not shares_held or shares_held <= 0:
        return None
    per_share = abs(cash) / shares_held
    if close is not None and per_share >= close:
        return f"{cash:,.2f} 元合每股 {per_share:.6g} 元（持有 {shares_held:g} 股），不低于股价 {close:g} 元"
    if per_share > MAX_PRICE:
        return f"{cash:,.2f} 元合每股 {per_share:.6g} 元（持有 {shares_held:g} 股），超过任何 A 股价格"
    return None


def fill_price_band(low: float, high: float, limit: float) -> tuple[float, float]:
    """The prices a fill near a stored stretch of bars can have: the stretch's range widened
    by one daily limit each way (a day the stretch lacks may have moved that far), and the fen
    rounding of limit prices."""
    return low * (1 - limit - ROUNDING) - FEN, high * (1 + limit + ROUNDING) + FEN


def fill_price_problem(price: float, low: float, high: float, limit: float, around: str) -> str | None:
    floor, ceiling = fill_price_band(low, high, limit)
    if price and not floor <= price <= ceiling:
        return (
            f"成交价 {price:g} 元远离该股 {around} 的行情（最低 {low:g}、最高 {high:g} 元，"
            f"含涨跌幅 ±{limit:.0%} 容差应在 {max(floor, 0):.2f} 至 {ceiling:.2f} 元之间）"
        )
    return None
