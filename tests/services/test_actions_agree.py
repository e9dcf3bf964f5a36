"""Corporate actions and the dividend tax, seen the same way everywhere: a 送转 with its cash
and the 差别化个人所得税 the broker takes at a sale within a month and within a year show the
same figures to the cent in `pixiu holdings --json`, the context block, the brief's facts,
the `get_holdings` tool, `pixiu mcp` and `pixiu export`; each expected figure is worked out
here in Decimal from the events and the rule (财税〔2015〕101号), not by the product. The
bars and the actions are real (tests/fixtures/market/README.md)."""

from __future__ import annotations

import json
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.helpers import (
    MARKET_FIXTURES,
    clean_env,
    drive_mcp,
    every_surface,
    in_process_ok,
    json_document,
    surfaces_agree,
    without_risk,
)

CENT = Decimal("0.01")


def close_on(code: str, day: str) -> Decimal:
    """The real unadjusted close of `code` on `day`."""
    rows = (MARKET_FIXTURES / f"{code}.csv").read_text().splitlines()
    return Decimal(next(r.split(",")[4] for r in rows if r.startswith(day)))


def last_close(code: str, day: str) -> Decimal:
    """The real close of `code` on `day` or, where it did not trade (a suspension), before it."""
    rows = (MARKET_FIXTURES / f"{code}.csv").read_text().splitlines()[1:]
    return Decimal([r for r in rows if r[:10] <= day][-1].split(",")[4])


def with_market(home: Path, now: str, *codes: str) -> dict[str, str]:
    env = clean_env(home, PIXIU_NOW=now)
    for code in codes:
        bars, actions = MARKET_FIXTURES / f"{code}.csv", MARKET_FIXTURES / f"{code}_actions.csv"
        in_process_ok(env, "data", "import", str(bars), "--symbol", code, "--actions", str(actions), "--no-refresh")
    return env


def tax_rate(bought: str, sold: str) -> Decimal:
    """财税〔2015〕101号: held (from the buy to the sale) one month or less 20%, one year or less
    10%, longer nothing. The dates here never fall on a month's end."""
    b, s = date.fromisoformat(bought), date.fromisoformat(sold)
    month_on = date(b.year + b.month // 12, b.month % 12 + 1, b.day)
    if s <= month_on:
        return Decimal("0.20")
    return Decimal("0.10") if s <= date(b.year + 1, b.month, b.day) else Decimal(0)


def money(value: Decimal) -> float:
    return float(value.quantize(CENT, ROUND_HALF_UP))


def agree_everywhere(env: dict[str, str], home: Path, now: str) -> dict:
    """Every surface shows the record's figures; the record."""
    record, block, facts, tool = every_surface(env, home, now)
    surfaces_agree(record, block, facts, tool)
    if find_spec("mcp") is not None:

        async def steps(client):
            return (await client.call_tool("holdings", {})).structured_content

        assert without_risk(drive_mcp(env, "agree-test", (), steps)["account"]) == record
    exported = json.loads(in_process_ok(env, "export"))
    held = {h["symbol"]: (h["shares"], round(h["cost"], 4)) for h in exported["holdings"]}
    assert held == {h["symbol"]: (h["shares"], h["cost"]) for h in record["holdings"]}
    return record


def test_a_bonus_issue_with_its_cash_agrees_everywhere(tmp_path):
    now, home = "2022-06-10T16:00:00", tmp_path / "home"
    env = with_market(home, now, "000001")
    in_process_ok(env, "cash", "set", "100000", "--date", "2016-05-31")
    price = close_on("000001", "2016-06-01")
    in_process_ok(env, "trade", "buy", "000001", "1000", str(price), "--date", "2016-06-01", "--fee", "0")
    record = agree_everywhere(env, home, now)
    # 10送2派1.53 on 2016-06-16: 1,000 shares receive 1,000 × 0.153 yuan and 1,000 × 0.2 shares
    shares, cash = 1000 + 1000 * Decimal("0.2"), 1000 * Decimal("0.153")
    value = shares * close_on("000001", "2022-06-01")
    (held,) = record["holdings"]
    assert (held["shares"], held["bonus_shares"], held["dividends"]) == (float(shares), 200.0, money(cash))
    assert (held["value"], held["realised_pnl"]) == (money(value), money(cash))
    assert held["unrealised_pnl"] == money(value - 1000 * price)
    assert held["cost"] == float(((1000 * price - cash) / shares).quantize(Decimal("0.0001"), ROUND_HALF_UP))
    assert record["cash"]["amount"] == money(100000 - 1000 * price + cash)
    assert held["estimated_dividend_tax"] == 0.0  # still held: nothing is taxed before a sale


def test_the_dividend_tax_of_sales_within_a_month_and_a_year_agrees_everywhere(tmp_path):
    now, home = "2025-06-03T16:00:00", tmp_path / "home"
    env = with_market(home, now, "000333")
    in_process_ok(env, "cash", "set", "200000", "--date", "2016-02-29")
    buys = {"2016-03-01": close_on("000333", "2016-03-01"), "2016-04-20": close_on("000333", "2016-04-20")}
    sales = {"2016-05-16": 1800, "2017-03-01": 600}
    for day, price in buys.items():
        in_process_ok(env, "trade", "buy", "000333", "1000", str(price), "--date", day, "--fee", "0")
    said = [
        in_process_ok(
            env, "trade", "sell", "000333", str(quantity), str(close_on("000333", day)), "--date", day, "--fee", "0"
        )
        for day, quantity in sales.items()
    ]
    record = agree_everywhere(env, home, now)

    # 10派12转增5 on 2016-05-06: each lot of 1,000 becomes 1,500 and receives 1,200.00 before tax
    lots = [[day, Decimal(1500), Decimal(1200)] for day in buys]
    tax = Decimal(0)
    for sold, quantity in sales.items():  # first bought, first sold
        left = Decimal(quantity)
        while left:
            lot = lots[0]
            part = min(left, lot[1])
            dividend = lot[2] * part / lot[1]
            tax += (dividend * tax_rate(lot[0], sold)).quantize(CENT, ROUND_HALF_UP)
            lot[1], lot[2], left = lot[1] - part, lot[2] - dividend, left - part
            if not lot[1]:
                lots.pop(0)
    # 2016-05-16: the first lot's 1,500 held over a month (10% of 1,200) and 300 of the second
    # within one (20% of 240); 2017-03-01: 600 more of the second within a year (10% of 480)
    assert tax == Decimal("120") + Decimal("48") + Decimal("48")
    assert "按持有期扣股息红利税 168.00" in said[0] and "按持有期扣股息红利税 48.00" in said[1]
    cost_in = sum(1000 * p for p in buys.values())
    basis, proceeds, realised = cost_in, Decimal(0), Decimal(2400) - tax
    shares = Decimal(3000)
    for day, quantity in sales.items():
        cost_out = basis * quantity / shares
        realised += quantity * close_on("000333", day) - cost_out
        proceeds += quantity * close_on("000333", day)
        basis, shares = basis - cost_out, shares - quantity
    value = shares * close_on("000333", "2025-05-30")
    (held,) = record["holdings"]
    assert (held["shares"], held["dividends"], held["estimated_dividend_tax"]) == (600.0, money(2400 - tax), 216.0)
    assert (held["realised_pnl"], held["value"]) == (money(realised), money(value))
    assert held["unrealised_pnl"] == money(value - basis)
    assert record["cash"]["amount"] == money(200000 - cost_in + 2400 + proceeds - tax)
    assert record["realised_pnl"] == money(realised)


STATEMENT_HEADER = "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,发生金额,资金余额,合同编号,股东代码"


def test_a_statements_tax_row_replaces_the_estimate(tmp_path):
    now, home = "2025-06-03T16:00:00", tmp_path / "home"
    env = with_market(home, now, "000333")
    # the statement has the trades and the broker's tax on the sale, not the dividend itself
    # (the stored action books it): 1,500 shares after the transfer, 1,000 sold within a month,
    # 20% of their 800.00 is 160.00
    rows = [
        "20160229,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,100000.00,100000.00,,",
        '20160420,10:00:00,="000333",美的集团,买入,1000,29.880,29880.00,0.00,0.00,0.00,0.00,-29880.00,70120.00,1,A1',
        '20160516,10:00:00,="000333",美的集团,卖出,1000,21.800,21800.00,0.00,0.00,0.00,0.00,21800.00,91920.00,2,A1',
        '20160517,15:00:00,="000333",美的集团,股息红利税补缴,0,0.000,0.00,0.00,0.00,0.00,0.00,-160.00,91760.00,,A1',
    ]
    statement = tmp_path / "交割单.csv"
    statement.write_text("\n".join([STATEMENT_HEADER, *rows]) + "\n", encoding="utf-8")
    in_process_ok(env, "trades", "import", str(statement))
    record = agree_everywhere(env, home, now)
    (held,) = record["holdings"]
    realised = Decimal(21800) - Decimal(29880) * 1000 / 1500 + 1200 - 160  # the row's tax, once
    assert (held["shares"], held["estimated_dividend_tax"], held["dividends"]) == (500.0, 0.0, 1040.0)
    assert held["realised_pnl"] == money(realised)
    assert record["cash"]["amount"] == 91760.0  # the statement's balance after its last row


@pytest.mark.parametrize(
    "sold, rate", [("2016-05-20", "0.20"), ("2016-05-23", "0.10"), ("2017-04-20", "0.10"), ("2017-04-21", "0")]
)
def test_the_holding_period_brackets_end_on_the_same_day_a_month_and_a_year_on(tmp_path, sold, rate):
    # bought 2016-04-20: within a month through 2016-05-20, within a year through 2017-04-20
    # (the ledger takes a sale on a non-trading day as told)
    env = with_market(tmp_path / "home", "2025-06-03T16:00:00", "000333")
    in_process_ok(env, "trade", "buy", "000333", "1000", "29.88", "--date", "2016-04-20", "--fee", "0")
    in_process_ok(env, "trade", "sell", "000333", "1500", str(last_close("000333", sold)), "--date", sold, "--fee", "0")
    (closed,) = json.loads(in_process_ok(env, "holdings", "--json"))["closed"]
    assert closed["dividends"] == money(1200 - 1200 * Decimal(rate))


def test_shares_of_a_stated_holding_have_no_known_buy_day_and_are_not_taxed(tmp_path):
    # stated on 2016-04-25 (a day after which they were held, not the day they were bought);
    # the 10派12转增5 of 2016-05-06 pays 1,200.00 on them; sold 2016-05-16, within a month of
    # the statement
    env = with_market(tmp_path / "home", "2025-06-03T16:00:00", "000333")
    holding = {
        "symbol": "000333",
        "name": "美的集团",
        "shares": 1000,
        "cost": 30,
        "role": "core",
        "updated_at": "2016-04-25T15:00:00+08:00",
    }
    in_process_ok(env, "import", str(json_document(tmp_path, holdings=[holding])))
    said = in_process_ok(env, "trade", "sell", "000333", "1500", "21.8", "--date", "2016-05-16", "--fee", "0")
    (closed,) = json.loads(in_process_ok(env, "holdings", "--json"))["closed"]
    assert closed["dividends"] == 1200.0 and "股息红利税" not in said


def test_each_sale_on_one_day_says_its_own_dividend_tax(tmp_path):
    # two sales of the 2016-04-20 lot on 2016-05-16, within a month of the buy: 20% of the
    # 1,200.00 its 1,500 shares received, shared by the shares each sale sold
    env = with_market(tmp_path / "home", "2025-06-03T16:00:00", "000333")
    in_process_ok(env, "trade", "buy", "000333", "1000", "29.88", "--date", "2016-04-20", "--fee", "0")
    price = str(close_on("000333", "2016-05-16"))
    said = [
        in_process_ok(env, "trade", "sell", "000333", quantity, price, "--date", "2016-05-16", "--fee", "0")
        for quantity in ("500", "1000")
    ]
    assert "按持有期扣股息红利税 80.00" in said[0] and "按持有期扣股息红利税 160.00" in said[1]
