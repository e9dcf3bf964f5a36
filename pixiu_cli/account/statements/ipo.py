"""New shares whose money and shares come on separate rows: 通达信 and the brokers' own
exports book the payment (新股申购确认缴款, 中签缴款, 市值申购中签扣款 and its 回冲 …) on
one row and the shares (新股入帐, at price 0, sometimes under the listing code rather than
the subscription code) on another. Paired, they are one allotment: the shares at the price
paid. Counting both would count the shares twice, or at nothing."""

from __future__ import annotations

from dataclasses import replace

from pixiu_cli.account.model import ALLOTMENT
from pixiu_cli.account.statements.rows import IPO_PAYMENT, Parsed, Skipped

_REFUNDED = "新股中签扣款已退回（未成交）"
_NO_SHARES = "新股缴款（没有证券代码，无法与新股入账对应，股份未计入）"

Group = list[Parsed]  # the payment rows of one subscription, in file order


def _cash(rows: list[Parsed]) -> float | None:
    changes = [r.cash_change for r in rows if r.cash_change is not None]
    return round(sum(changes), 2) if changes else None


def _paid(group: Group, rows: list[Parsed]) -> float:
    """What left the account for `rows`: their cash column's sum when the statement has
    one, else the payments' amounts (a 新股入帐's own 成交金额 is no money)."""
    cash = _cash(rows)
    return round(-cash if cash is not None else sum(r.amount for r in group), 2)


def _groups(payments: list[Parsed]) -> list[Group]:
    by_key: dict[tuple, Group] = {}
    for p in payments:
        by_key.setdefault((p.account, p.symbol) if p.symbol else ("line", p.line), []).append(p)
    return list(by_key.values())


def _shares(group: Group) -> float:
    return max(r.quantity for r in group)


def _same_holder(a: Parsed, b: Parsed) -> bool:
    return not (a.account and b.account) or a.account == b.account


def _match(allotment: Parsed, groups: list[Group]) -> Group | None:
    """The same code, else the same contract number, else the only payment for as many
    shares (the shares arrive under the listing code, the money left under another)."""
    open_ = [g for g in groups if g[0].day <= allotment.day and _same_holder(g[0], allotment)]
    by_code = [g for g in open_ if g[0].symbol == allotment.symbol]
    by_contract = [g for g in open_ if allotment.contract and any(r.contract == allotment.contract for r in g)]
    by_size = [g for g in open_ if _shares(g) == allotment.quantity]
    found = by_code or by_contract or (by_size if len(by_size) == 1 else [])
    return found[0] if found else None


def _allotment(group: Group, rows: list[Parsed], shares: float, **fields) -> Parsed:
    """One allotment dated when the money left: the shares at the price paid, fees apart."""
    fees = round(sum(r.fees for r in rows), 2)
    gross = round(_paid(group, rows) - fees, 2)
    price = round(gross / shares, 4)
    return replace(
        group[0], kind=ALLOTMENT, quantity=shares, price=price, amount=gross, fees=fees, cash_change=_cash(rows),
        balance=group[-1].balance, **fields,
    )  # fmt: skip


def _merged(allotment: Parsed, group: Group) -> Parsed:
    first = group[0]
    numbered = first if first.contract else allotment
    return _allotment(
        group, [*group, allotment], allotment.quantity, symbol=allotment.symbol, name=allotment.name or first.name,
        account=allotment.account or first.account, contract=numbered.contract, contract_kind=numbered.contract_kind,
    )  # fmt: skip


def _alone(group: Group) -> Parsed | list[Skipped]:
    """A payment no row of shares answers: an allotment when it names its shares, else the
    payment alone, for a later statement's shares to join (domain/fill_match.py)."""
    money, shares = _paid(group, group), _shares(group)
    if money and shares and group[0].symbol:
        return _allotment(group, group, shares)
    if money and group[0].symbol:
        fees = round(sum(r.fees for r in group), 2)
        return replace(
            group[0], quantity=0.0, price=0.0, amount=round(money - fees, 2), fees=fees, cash_change=_cash(group),
            balance=group[-1].balance,
        )  # fmt: skip
    reason = _NO_SHARES if money else _REFUNDED
    return [Skipped(r.line, reason, r.day, r.balance) for r in group]


def pair_new_shares(parsed: list[Parsed]) -> tuple[list[Parsed], list[Skipped]]:
    """The rows with every payment joined to its shares (in the file's order), and the
    payments nothing answers that stay skipped, with why."""
    placed, skipped = placed_new_shares(parsed)
    return [p for _, p in placed], skipped


def placed_new_shares(parsed: list[Parsed]) -> tuple[list[tuple[int, Parsed]], list[Skipped]]:
    """`pair_new_shares`, each row with the line of the row whose place in the file it takes
    (an allotment joined to its payment keeps the payment's fields but the shares' place)."""
    groups = _groups([p for p in parsed if p.kind == IPO_PAYMENT])
    if not groups:
        return [(p.line, p) for p in parsed], []
    waiting = [g for g in groups if _paid(g, g)]  # a payment refunded in full pairs with nothing
    matched: dict[int, Group] = {}
    for p in parsed:
        group = _match(p, waiting) if p.kind == ALLOTMENT else None
        if group is not None:
            waiting.remove(group)
            matched[p.line] = group
    alone = {g[0].line: _alone(g) for g in groups if g not in matched.values()}
    out: list[tuple[int, Parsed]] = []
    skipped: list[Skipped] = []
    for p in parsed:
        if p.line in matched:
            out.append((p.line, _merged(p, matched[p.line])))
        elif isinstance(alone.get(p.line), Parsed):
            out.append((p.line, alone[p.line]))
        elif p.line in alone:
            skipped += alone[p.line]
        elif p.kind != IPO_PAYMENT:
            out.append((p.line, p))
    return out, skipped
