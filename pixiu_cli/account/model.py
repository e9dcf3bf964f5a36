"""The investor's account: fills (from a broker statement or told one at a time), the
positions and cash they add up to.

Which of a statement's fills the account already has. The broker's number is a fill's
identity: two fills whose numbers are of one kind (two 成交编号, two 合同编号) are one fill
only when the numbers are equal, however alike the rest is, so a morning and an afternoon
export of two equal fills give two fills. Fills without comparable numbers (a client that
writes none, another client's kind of number, a trade told in conversation) are matched
on what they say (stock, side, quantity, price, day), each stored fill standing for one
incoming fill at most: multiplicity counts, so two equal rows are two fills and a file with
three of them after one with two adds one. A trade told in conversation is the statement's
fill also when its price differs by the rounding of the 成交均价 and whatever its fees were
(told or estimated): the statement's fill, with its fees, takes its place."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from pixiu_cli.home.model import Decision, Holding
from pixiu_cli.kernel.errors import RequestError
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


def check_cost_method(method: str) -> str:
    if method not in COST_METHODS:
        raise RequestError(f"成本算法只能是 {' / '.join(COST_METHODS)}，而不是 {method!r}")
    return method


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
    broker_account: str | None = (
        None  # the name of the broker account it belongs to (None: the store's own, else the default)
    )


@dataclass(frozen=True)
class CashBalance:
    """A balance as stated (a statement's 资金余额, or `pixiu cash set`): the ledger's later
    flows move it (domain/ledger.py cash_after)."""

    amount: float
    as_of: str  # YYYY-MM-DD
    source: str  # statement | user
    set_at: str | None = None  # when it was stated
    fills_before: int | None = None  # the ledger's last seq when it was stated: later fills of its day move it
    broker_account: str | None = None  # the broker account whose balance it is


@dataclass(frozen=True)
class BrokerAccount:
    """One broker account (券商, 资金账号, 股东代码): a statement goes to the one its numbers
    name. The first one of a home is its default: trades told and balances set without an
    account go there."""

    name: str
    broker: str | None = None  # the client whose statements filled it (同花顺 …), when one did
    fund_account: str | None = None  # 资金账号
    shareholder_codes: tuple[str, ...] = ()  # 股东代码: one for Shanghai, one for Shenzhen, …

    @property
    def numbers(self) -> frozenset[str]:
        return frozenset(self.shareholder_codes) | ({self.fund_account} if self.fund_account else set())


# An account whose balance was never stated but whose bank transfers were told (`pixiu cash
# in|out`) starts from nothing: its cash is what the ledger moved since.
NEVER_STATED = "0001-01-01"


def opening_balance() -> CashBalance:
    return CashBalance(0.0, NEVER_STATED, "ledger")


@dataclass(frozen=True)
class UndoneTrade:
    decision: Decision
    holding: Holding | None  # after the undo
    holding_changed: bool  # False for an imported decision, which never moved the holding
    held: object = None  # the account's shares and cost after the undo (services/account.py Held)


def loose_key(f: Fill) -> tuple:
    """What a fill says, without the numbers and times clients write differently."""
    if f.kind in (BUY, SELL):
        return (f.symbol, f.kind, round(f.quantity, 4), round(f.price, 4), f.day)
    return (f.symbol, f.kind, round(f.quantity, 4), round(f.amount, 2), f.day)


def _minute(f: Fill) -> str | None:
    return f.time[:5] if f.time else None


def could_be_same(new: Fill, had: Fill) -> bool:
    """Two fills saying the same: one fill, unless their numbers or times tell them apart.
    A trade told in conversation carries neither (its time is when it was told)."""
    if had.origin == MANUAL:
        return True
    if new.contract and had.contract and new.contract_kind and new.contract_kind == had.contract_kind:
        return new.contract == had.contract and (not (new.account and had.account) or new.account == had.account)
    # numbers of different kinds (or an older row's, kind unknown): the time of the fill
    # still tells a morning fill from an afternoon one
    return _minute(new) is None or _minute(had) is None or _minute(new) == _minute(had)


# A price told in conversation is in 分 (42.5); the statement's 成交均价 of the same fill may
# carry more digits (42.503): within half a 分 they are one price. Fees are never compared:
# a told trade's fees are the user's figure or an estimate, the statement's are what was paid.
_TOLD_PRICE_WITHIN = 0.005 + 1e-9


def _told_key(f: Fill) -> tuple:
    return (f.symbol, f.kind, round(f.quantity, 4), f.day)


def _told_near(fill: Fill, told: dict[tuple, list[Fill]]) -> Fill | None:
    """A trade told in conversation that is `fill` but for the rounding of its price."""
    if fill.kind not in (BUY, SELL):
        return None
    return next((f for f in told.get(_told_key(fill), []) if abs(f.price - fill.price) <= _TOLD_PRICE_WITHIN), None)


@dataclass
class FillPlan:
    added: list[Fill] = field(default_factory=list)
    matched: list[tuple[Fill, Fill]] = field(default_factory=list)  # (the fill told by hand, the statement's)
    duplicates: int = 0


def plan_fills(existing: list[Fill], incoming: tuple[Fill, ...]) -> FillPlan:
    """The incoming fills that are new, the ones that are a trade told by hand, and how many
    the account already has (by id first, so a stored fill matched by its id is not also
    taken for another incoming fill)."""
    plan = FillPlan()
    by_id = {f.fill_id for f in existing}
    seen: set[str] = set()
    rest = []
    for fill in incoming:
        if fill.fill_id in by_id or fill.fill_id in seen:
            plan.duplicates += 1
        else:
            rest.append(fill)
        seen.add(fill.fill_id)
    open_: dict[tuple, list[Fill]] = defaultdict(list)
    told: dict[tuple, list[Fill]] = defaultdict(list)
    for f in existing:
        if f.fill_id not in seen:
            open_[loose_key(f)].append(f)
            if f.origin == MANUAL:
                told[_told_key(f)].append(f)
    for fill in rest:
        candidates = open_.get(loose_key(fill), [])
        twin = next((f for f in candidates if could_be_same(fill, f)), None) or _told_near(fill, told)
        if twin is None:
            plan.added.append(fill)
            continue
        open_[loose_key(twin)].remove(twin)
        if twin.origin == MANUAL:
            told[_told_key(twin)].remove(twin)
            plan.matched.append((twin, replace(fill, decision_id=twin.decision_id)))
        else:
            plan.duplicates += 1  # the same fill from another client's export
    return plan


# New shares: the money (新股申购确认缴款 …) and the shares (新股入帐, at 0) of one allotment
# are often in two monthly statements. Each half is stored as it arrives (a payment naming its
# shares as an allotment at the price paid, one that does not as IPO_PAYMENT, a credit at 0);
# the other half, when a later import brings it, joins it into one allotment, whichever came
# first.
# A payment is taken for a credit's by their size alone (the shares arrive under the listing
# code, the money left under the subscription code) only this close: new shares list within
# weeks of the payment.
_SIZE_ALONE_WITHIN = timedelta(days=45)


NEW_SHARES_KINDS = (ALLOTMENT, IPO_PAYMENT)  # the kinds a half of an allotment is stored as


def is_credit(f: Fill) -> bool:
    """New shares credited without their money (新股入帐 at 0)."""
    return f.kind == ALLOTMENT and not f.price


def _halves(a: Fill, b: Fill) -> tuple[Fill, Fill] | None:
    """(payment, credit) when one of the two is each, of one holder, for as many shares (a
    payment that names none: any), the money first."""
    paid, credit = (b, a) if is_credit(a) else (a, b)
    if not is_credit(credit) or is_credit(paid) or paid.kind not in NEW_SHARES_KINDS or credit.quantity <= 0:
        return None
    if paid.account and credit.account and paid.account != credit.account:
        return None
    if paid.quantity and round(paid.quantity, 4) != round(credit.quantity, 4):
        return None
    return (paid, credit) if paid.day <= credit.day else None


def allotment_half(new: Fill, stored: list[Fill]) -> Fill | None:
    """The stored other half of the allotment `new` is a half of: the same code, else the same
    contract number, else the only one of its size within weeks."""
    halves = [f for f in stored if _halves(new, f) is not None]
    by_code = [f for f in halves if f.symbol == new.symbol]
    by_contract = [f for f in halves if new.contract and f.contract == new.contract]
    by_size = [f for f in halves if _near(new, f)]
    found = by_code or by_contract or (by_size if len(by_size) == 1 else [])
    return found[0] if found else None


def _near(a: Fill, b: Fill) -> bool:
    return abs(date.fromisoformat(a.day) - date.fromisoformat(b.day)) <= _SIZE_ALONE_WITHIN


def joined_allotment(a: Fill, b: Fill) -> Fill:
    """One allotment of a payment and its credit (`allotment_half`), the same whichever is
    `a`: the payment's id, day, money and number, the shares' code and name. The credit's
    own money (none) is not added: joining the same halves again changes nothing."""
    paid, credit = _halves(a, b) or (a, b)
    numbered = paid if paid.contract else credit
    return replace(
        paid, kind=ALLOTMENT, symbol=credit.symbol, name=credit.name or paid.name, quantity=credit.quantity,
        price=paid.price if paid.quantity else round(paid.amount / credit.quantity, 4), account=paid.account or credit.account,
        contract=numbered.contract, contract_kind=numbered.contract_kind, seq=None, recorded_at=None,
    )  # fmt: skip
