"""One account: every figure derived once from the ledger (account/ledger.py) and shown the
same by `pixiu holdings --json`, the holdings table, the context block, the brief's facts and
the get_holdings tool. Each expectation is a hand computation written out beside it."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixiu_cli.account.ledger import cash_after, cash_effect, positions
from pixiu_cli.account.model import BONUS, BUY, DIVIDEND, DIVIDEND_TAX, SELL, CashBalance, Fill
from pixiu_cli.account.valuation import Close, account_cash, value_account
from tests.helpers import MARKET_FIXTURES, clean_env, every_surface, in_process_ok, surfaces_agree

STATEMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
NOW = "2025-08-20T16:00:00"


run = in_process_ok


def account(env) -> dict:
    return json.loads(run(env, "holdings", "--json"))


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home", PIXIU_NOW=NOW)


def bars(tmp_path: Path, symbol: str, closes: list[tuple[str, float]]) -> Path:
    path = tmp_path / f"{symbol}.csv"
    rows = [f"{day},{c},{c},{c},{c},1000.0,0" for day, c in closes]
    path.write_text("datetime,open,high,low,close,volume,openinterest\n" + "\n".join(rows) + "\n")
    return path


def test_a_trade_without_bars_is_valued_at_its_cost_in_every_view(env):
    run(env, "trade", "buy", "600519", "100", "1500", "--fee", "0")
    view = account(env)
    (held,) = view["holdings"]
    # no bar stored: 100 × 1,500 at cost, never ¥0; the name is the security master's
    assert (held["name"], held["priced"], held["value"], view["stock_value"]) == ("贵州茅台", False, 150000.0, 150000.0)
    table = run(env, "holdings")
    assert "600519 贵州茅台" in table and "150,000.00" in table and "股票市值 150,000.00" in table
    block = run(env, "context", "我的持仓怎么样", "--pretty")
    assert "600519 贵州茅台 · 卫星仓 · 100 股 · 成本 1500.00" in block


def test_realised_pnl_is_not_counted_twice(env, tmp_path):
    path = bars(tmp_path, "600519", [("2025-08-13", 1650.0), ("2025-08-14", 1680.0), ("2025-08-15", 1700.0)])
    run(env, "data", "import", str(path), "--symbol", "600519", "--no-refresh")
    run(env, "trade", "buy", "600519", "200", "1500", "--date", "2025-08-01", "--fee", "0")
    run(env, "trade", "sell", "600519", "100", "1600", "--date", "2025-08-05", "--fee", "0")
    (held,) = account(env)["holdings"]
    # unrealised against the average cost: 100 × (1,700 − 1,500) = 20,000; realised 100 × 100 = 10,000;
    # the broker's 持仓盈亏 against the diluted cost (300,000 − 160,000) / 100 = 1,400: 100 × 300 = 30,000,
    # which already contains the 10,000: the account made 30,000, not 40,000
    assert (held["unrealised_pnl"], held["realised_pnl"], held["holding_pnl"]) == (20000.0, 10000.0, 30000.0)
    assert (held["average_cost"], held["diluted_cost"], held["total_pnl"]) == (1500.0, 1400.0, 30000.0)
    assert held["value"] + held["proceeds"] - held["cost_in"] == held["total_pnl"]  # 170,000 + 160,000 − 300,000


def test_bonus_shares_after_a_backdated_trade(env):
    for name in ("000001.csv", "000001_actions.csv"):
        assert (MARKET_FIXTURES / name).exists()
    run(
        env, "data", "import", str(MARKET_FIXTURES / "000001.csv"), "--symbol", "000001",
        "--actions", str(MARKET_FIXTURES / "000001_actions.csv"), "--no-refresh",
    )  # fmt: skip
    run(env, "trade", "buy", "000001", "1000", "10.5", "--date", "2016-06-01", "--fee", "0")
    (held,) = account(env)["holdings"]
    # 10送2派1.53 on 2016-06-16: 1,000 → 1,200 shares and 153 paid; the last close 14.08 (2022-06-01):
    # value 16,896; unrealised 16,896 − 10,500 = 6,396; realised 153
    assert (held["name"], held["shares"], held["bonus_shares"], held["dividends"]) == ("平安银行", 1200, 200, 153.0)
    assert (held["value"], held["unrealised_pnl"], held["realised_pnl"]) == (16896.0, 6396.0, 153.0)
    assert "000001 平安银行" in run(env, "trades")


def test_cash_rolls_forward_over_a_statement_without_a_balance(env):
    run(env, "trades", "import", str(STATEMENTS / "ths_jiaogedan.csv"))
    assert account(env)["cash"]["amount"] == 27094.95
    run(env, "trades", "import", str(STATEMENTS / "ths_jiaogedan_no_balance.csv"))
    cash = account(env)["cash"]
    # the 2025-08-15 balance 27,094.95 and the later rows' 发生金额: −7,255.07 + 13,488.11 − 5,000.00
    assert (cash["stated_amount"], cash["stated_as_of"], cash["rolled"]) == (27094.95, "2025-08-15", 3)
    assert cash["amount"] == round(27094.95 - 7255.07 + 13488.11 - 5000.00, 2) == 28327.99
    assert "现金 28,327.99（2025-08-15 余额 27,094.95，其后 3 笔流水已计入）" in run(env, "holdings")


def test_a_told_trade_moves_the_cash_set_before_it(env):
    run(env, "cash", "set", "200000")
    run(env, "trade", "buy", "600519", "100", "1500", "--fee", "5")
    # 200,000 − 150,000 − 5 fees: the balance set today, the trade told after it
    assert account(env)["cash"]["amount"] == 49995.0


def test_the_average_method_values_at_the_average_cost_and_nothing_is_rounded_first(tmp_path):
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=NOW)
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[account]\ncost_method = "average"\n', encoding="utf-8")
    run(env, "trade", "buy", "600519", "200", "1500", "--date", "2025-08-01", "--fee", "0")
    run(env, "trade", "sell", "600519", "100", "1600", "--date", "2025-08-05", "--fee", "0")
    (held,) = account(env)["holdings"]
    # no bars: the 100 shares at the average cost 1,500 = 150,000 (the diluted cost would give 140,000)
    assert (held["cost"], held["value"]) == (1500.0, 150000.0)
    other = clean_env(tmp_path / "other", PIXIU_NOW=NOW)
    run(other, "trade", "buy", "600519", "300", "333.33", "--fee", "1")
    run(other, "cash", "set", "0")
    # 300 × 333.33 + 1 = 100,000.00 in; the cost 333.3366… is never rounded before multiplying
    assert account(other)["total_assets"] == 100000.0


# every surface, one figure ---------------------------------------------------------------
@pytest.mark.parametrize(
    "files", [("ths_jiaogedan.csv",), ("tdx_jiaogedan.csv",), ("ths_jiaogedan.csv", "ths_jiaogedan_no_balance.csv")]
)
def test_every_surface_shows_the_same_figures_for_statements(tmp_path, files):
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=NOW)
    for name in files:
        run(env, "trades", "import", str(STATEMENTS / name))
    surfaces_agree(*every_surface(env, home, NOW))


def test_every_surface_shows_the_same_figures_for_the_demo(tmp_path):
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=NOW)
    record, block, facts, tool = every_surface(env, home, NOW, demo=True)
    assert len(record["holdings"]) == 8
    surfaces_agree(record, block, facts, tool)


# the ledger's identities on random ledgers -----------------------------------------------
_DAYS = [f"2025-0{m}-{d:02d}" for m in (3, 4, 5) for d in (3, 10, 17, 24)]


@st.composite
def ledgers(draw):
    fills, held = [], {"600519": 0, "000333": 0}
    for i, day in enumerate(sorted(draw(st.lists(st.sampled_from(_DAYS), min_size=1, max_size=12)))):
        symbol = draw(st.sampled_from(sorted(held)))
        kind = draw(st.sampled_from([BUY, BUY, SELL, DIVIDEND, DIVIDEND_TAX, BONUS]))
        if kind == SELL and held[symbol] == 0:
            kind = BUY
        quantity = draw(st.integers(1, 10)) * 100
        price = draw(st.decimals(min_value=1, max_value=500, places=2))
        fees = draw(st.decimals(min_value=0, max_value=20, places=2))
        if kind == SELL:
            quantity = min(quantity, held[symbol])
        amount = Decimal(quantity) * price if kind in (BUY, SELL) else draw(st.decimals(1, 900, places=2))
        if kind in (BUY, BONUS):
            held[symbol] += quantity
        elif kind == SELL:
            held[symbol] -= quantity
        shares = quantity if kind in (BUY, SELL, BONUS) else 0
        fills.append(
            Fill(f"f{i}", day, None, kind, symbol, None, shares, float(price), float(amount), float(fees), None, None)
        )
    return fills


@settings(max_examples=200, deadline=None)
@given(fills=ledgers(), c1=st.decimals(1, 2000, places=2), c2=st.decimals(1, 2000, places=2))
def test_property_every_holding_adds_up_and_cash_is_the_sum_of_its_flows(fills, c1, c2):
    derived = positions(fills)
    closes = {"600519": Close("2025-06-30", c1), "000333": Close("2025-06-30", c2)}
    stated = CashBalance(100000.0, "2025-03-01", "user")
    cash = account_cash(stated, cash_after("2025-03-01", fills))
    acct = value_account(derived, closes, cash, "diluted")
    for h in acct.holdings:
        p = h.position
        assert h.unrealised_pnl + h.realised_pnl == h.value + p.proceeds - p.cost_in
        assert h.holding_pnl == h.value - p.invested
    for p in acct.closed:
        assert p.realised_pnl == p.proceeds - p.cost_in
    assert cash.amount == Decimal("100000.0") + sum(cash_effect(f) for f in fills)
    assert acct.total_assets == acct.stock_value + cash.amount
    if acct.holdings and acct.total_assets > 0:
        assert sum(h.weight for h in acct.holdings) == pytest.approx(acct.stock_value / acct.total_assets)
