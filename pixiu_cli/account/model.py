"""The investor's account: fills (from a broker statement or told one at a time), the
positions and cash they add up to."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.home.model import Decision, Holding
from pixiu_cli.kernel.vocabulary import SIDE_NAMES, SIDES

# What a statement row does to the account. Share kinds move shares, cash kinds only cash.
BUY, SELL = SIDES
BONUS = "bonus"  # 红股入账 / 送股 / 转增: shares at no cost
DIVIDEND = "dividend"  # 股息入账 / 红利入账: cash on a holding
DIVIDEND_TAX = "dividend_tax"  # 股息红利税补缴: cash out, on a holding
ALLOTMENT = "allotment"  # 新股入帐 / 中签: shares at the issue price
RIGHTS = "rights"  # 配股缴款: shares at the rights price
TRANSFER_IN, TRANSFER_OUT = "transfer_in", "transfer_out"  # 银证转账
INTEREST = "interest"  # 利息归本
FEE = "fee"  # 其他扣费
# 新股申购确认缴款 without its shares: the money left, the shares (新股入帐) come in a later
# statement, which joins the two into one allotment (domain/fill_match.py). No shares yet.
IPO_PAYMENT = "ipo_payment"

SHARE_KINDS = (BUY, SELL, BONUS, ALLOTMENT, RIGHTS)
HOLDING_CASH_KINDS = (DIVIDEND, DIVIDEND_TAX)  # cash that belongs to a stock's P&L
ACCOUNT_CASH_KINDS = (TRANSFER_IN, TRANSFER_OUT, INTEREST, FEE)
FILL_KINDS = SHARE_KINDS + HOLDING_CASH_KINDS + ACCOUNT_CASH_KINDS + (IPO_PAYMENT,)

KIND_NAMES = {
    **SIDE_NAMES,
    BONUS: "红股入账",
    DIVIDEND: "股息入账",
    DIVIDEND_TAX: "股息红利税补缴",
    ALLOTMENT: "新股入账",
    RIGHTS: "配股",
    TRANSFER_IN: "银证转入",
    TRANSFER_OUT: "银证转出",
    INTEREST: "利息归本",
    FEE: "扣费",
    IPO_PAYMENT: "新股缴款（待入账）",
}

# Where a fill came from (its `origin`), as a trade list names it: anything not read from a
# statement was told by hand.
STATEMENT, MANUAL = "statement", "manual"
ORIGIN_NAMES = {STATEMENT: "对账单", MANUAL: "手工"}

# Which of the broker's numbers a fill's `contract` is: an order's 合同编号 (its partial
# fills share it) or a fill's own 成交编号 (unique). Numbers of one kind are comparable.
ORDER_NUMBER, TRADE_NUMBER = "order", "trade"

COST_METHODS = ("diluted", "average")  # 摊薄成本 | 买入均价
COST_METHOD_NAMES = {"diluted": "摊薄成本", "average": "持仓均价"}


@dataclass(frozen=True)
class Fill:
    """One movement of the account, as the statement (or the user) gave it.

    amount: the gross value (quantity × price) for share kinds, the cash for cash kinds;
    fees: commission + stamp duty + transfer fee + other fees; cash_change: the signed cash
    effect (negative for a buy), None when the statement does not say; balance: the cash
    balance after it, None when the statement does not say."""

    fill_id: str
    day: str  # YYYY-MM-DD
    time: str | None
    kind: str  # one of FILL_KINDS
    symbol: str | None
    name: str | None
    quantity: float
    price: float
    amount: float
    fees: float
    cash_change: float | None
    balance: float | None
    account: str | None = None  # 股东代码
    contract: str | None = None  # 合同编号 / 成交编号
    origin: str = "statement"  # statement | manual
    decision_id: int | None = None
    recorded_at: str | None = None  # when pixiu wrote it
    seq: int | None = None  # its place in the ledger: later writes have higher numbers
    contract_kind: str | None = None  # ORDER_NUMBER | TRADE_NUMBER; None: not known (older rows)
    fee_estimated: bool = False  # fees are pixiu's estimate (a trade told without them): a statement's fill replaces it


@dataclass(frozen=True)
class CashBalance:
    """A balance as stated (a statement's 资金余额, or `pixiu cash set`): the ledger's later
    flows move it (domain/ledger.py cash_after)."""

    amount: float
    as_of: str  # YYYY-MM-DD
    source: str  # statement | user
    set_at: str | None = None  # when it was stated
    fills_before: int | None = None  # the ledger's last seq when it was stated: later fills of its day move it


@dataclass(frozen=True)
class UndoneTrade:
    decision: Decision
    holding: Holding | None  # after the undo
    holding_changed: bool  # False for an imported decision, which never moved the holding
    held: object = None  # the account's shares and cost after the undo (services/account.py Held)
