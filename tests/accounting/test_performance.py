"""`pixiu performance` against independent computations on the same ledger: the daily value
recomputed with pandas from the trades, the transfers, the real unadjusted closes and corporate
actions (tests/fixtures/market, with a 送转 and dividends, and 000002's six-month suspension)
on exchange_calendars' XSHG sessions; the time-weighted return, drawdown and volatility by
empyrical-reloaded on that series; the money-weighted return by pyxirr's xirr."""

from __future__ import annotations

import functools
import json
import math
import shutil
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.helpers import MARKET_FIXTURES, clean_env, in_process_clean, in_process_ok

pd = pytest.importorskip("pandas")
empyrical = pytest.importorskip("empyrical")
pyxirr = pytest.importorskip("pyxirr")
exchange_calendars = pytest.importorskip("exchange_calendars")

NOW = "2025-06-03T16:00:00"
END = "2025-06-03"
FEE = Decimal(5)
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")


@dataclass(frozen=True)
class Trade:
    day: str
    side: str  # buy | sell
    symbol: str
    quantity: int


@dataclass(frozen=True)
class Transfer:
    day: str
    amount: Decimal  # + in, − out


@functools.cache
def closes(symbol: str) -> pd.Series:
    frame = pd.read_csv(MARKET_FIXTURES / f"{symbol}.csv", dtype={"close": str})
    return pd.Series([Decimal(c) for c in frame["close"]], index=frame["datetime"])


@functools.cache
def actions(symbol: str) -> list[tuple[str, Decimal, Decimal]]:
    path = MARKET_FIXTURES / f"{symbol}_actions.csv"
    if not path.exists():
        return []
    frame = pd.read_csv(path, dtype=str)
    return [(r.ex_date, Decimal(r.cash_per_share), Decimal(r.shares_per_share)) for r in frame.itertuples()]


def price(t: Trade) -> Decimal:
    return closes(t.symbol)[t.day]  # traded at that day's close: always within the day's range


SYMBOLS = ("000001", "000002", "000333")
TRADES = [
    Trade("2015-12-01", "buy", "000002", 1000),  # then suspended 2015-12-18 → 2016-07-04
    Trade("2016-01-05", "buy", "000001", 2000),  # 10送2派1.53 on 2016-06-16
    Trade("2016-03-01", "buy", "000333", 1000),  # 10转5派12 on 2016-05-06, suspended 05-17 → 06-01
    Trade("2018-01-05", "sell", "000333", 500),  # held over a year: no dividend tax
    Trade("2020-03-02", "buy", "000002", 500),
]
TRANSFERS = [
    Transfer("2015-11-30", Decimal(300000)),
    Transfer("2017-03-01", Decimal(20000)),
    Transfer("2019-06-03", Decimal(-30000)),
    Transfer("2024-09-02", Decimal(15000)),
]


@functools.cache
def sessions(first: str) -> list[str]:
    xshg = exchange_calendars.get_calendar("XSHG", start="2015-01-05", end="2025-12-31")
    days = [d.strftime("%Y-%m-%d") for d in xshg.sessions_in_range(first, END)]
    before = xshg.previous_session(pd.Timestamp(first)).strftime("%Y-%m-%d")
    return [before, *days]


def reference(trades, transfers, cash_known: bool) -> pd.DataFrame:
    """The value at each session's close and the day's external flow, from the trades alone."""
    return _reference(tuple(trades), tuple(transfers), cash_known).copy()


@functools.cache
def _reference(trades, transfers, cash_known: bool) -> pd.DataFrame:
    first = min([t.day for t in trades] + [t.day for t in transfers])
    days = sessions(first)
    shares = dict.fromkeys(SYMBOLS, Decimal(0))
    cash, rows = Decimal(0), []
    prices = {s: closes(s).reindex(days).ffill() for s in SYMBOLS}
    for day in days:
        flow = Decimal(0)
        for s in SYMBOLS:
            for ex_date, per_share, bonus in actions(s):
                if ex_date == day and shares[s]:
                    paid = shares[s] * per_share
                    cash += paid
                    flow -= 0 if cash_known else paid  # the stocks alone: a dividend leaves them
                    shares[s] += (shares[s] * bonus).to_integral_value(rounding="ROUND_DOWN")
        for t in transfers:
            if t.day == day:
                cash += t.amount
                flow += t.amount if cash_known else 0
        for t in trades:
            if t.day == day:
                gross = price(t) * t.quantity
                moved = -(gross + FEE) if t.side == "buy" else gross - FEE
                shares[t.symbol] += t.quantity if t.side == "buy" else -t.quantity
                cash += moved
                flow -= 0 if cash_known else moved
        stocks = sum((shares[s] * prices[s][day] for s in SYMBOLS if shares[s]), Decimal(0))
        rows.append((day, stocks + (cash if cash_known else 0), flow))
    return pd.DataFrame(rows, columns=["day", "value", "flow"]).set_index("day")


def daily_returns(frame: pd.DataFrame) -> pd.Series:
    value, flow = frame["value"].astype(float), frame["flow"].astype(float)
    at_work = value.shift(1) + flow
    return (value / at_work - 1).iloc[1:].where(at_work.iloc[1:] > 0, 0.0)


def home(tmp_path: Path, trades, transfers, cash_set: tuple[str, str] | None = None) -> dict[str, str]:
    env = clean_env(tmp_path / "home", PIXIU_NOW=NOW)
    for s in SYMBOLS:
        extra = ["--actions", str(MARKET_FIXTURES / f"{s}_actions.csv")] if actions(s) else []
        in_process_ok(env, "data", "import", str(MARKET_FIXTURES / f"{s}.csv"), "--symbol", s, *extra, "--no-refresh")
    index = tmp_path / "index.csv"  # a real series stored as the benchmark: 000333's closes
    shutil.copy(MARKET_FIXTURES / "000333.csv", index)
    in_process_ok(env, "data", "import", str(index), "--symbol", "sh000300", "--no-refresh")
    if cash_set:
        in_process_ok(env, "cash", "set", cash_set[1], "--date", cash_set[0])
    for t in transfers:
        verb = "in" if t.amount > 0 else "out"
        in_process_ok(env, "cash", verb, str(abs(t.amount)), "--date", t.day)
    for t in trades:
        in_process_ok(env, "trade", t.side, t.symbol, str(t.quantity), str(price(t)), "--date", t.day, "--fee", "5")
    return env


def figures(env, *period: str) -> dict:
    return json.loads(in_process_ok(env, "performance", *period, "--json"))


def window(frame: pd.DataFrame, base: str) -> pd.DataFrame:
    """The period's days: its base (the last session on or before `base`) and the days after."""
    at = frame.index[frame.index <= base]
    start = at[-1] if len(at) else frame.index[0]
    return frame.loc[start:]


def check_against_references(done: dict, frame: pd.DataFrame, benchmark: pd.Series | None = None) -> None:
    returns = daily_returns(frame)
    assert done["from"] == frame.index[1] and done["to"] == frame.index[-1]
    assert done["end_value"] == pytest.approx(float(frame["value"].iloc[-1]), abs=0.005)
    assert done["start_value"] == pytest.approx(float(frame["value"].iloc[0]), abs=0.005)
    assert [d["day"] for d in done["daily"]] == list(frame.index)
    assert [d["value"] for d in done["daily"]] == pytest.approx([float(v) for v in frame["value"]], abs=0.005)
    assert done["time_weighted_return"] == pytest.approx(empyrical.cum_returns_final(returns), abs=1e-6)
    assert done["max_drawdown"]["depth"] == pytest.approx(empyrical.max_drawdown(returns), abs=1e-6)
    assert done["annual_volatility"] == pytest.approx(empyrical.annual_volatility(returns), abs=1e-6)
    flows = [(frame.index[0], -float(frame["value"].iloc[0]))] if frame["value"].iloc[0] else []
    flows += [(d, -float(f)) for d, f in frame["flow"].iloc[1:].items() if f]
    flows.append((frame.index[-1], float(frame["value"].iloc[-1])))
    dates = [pd.Timestamp(d).date() for d, _ in flows]
    assert done["money_weighted_return_annual"] == pytest.approx(pyxirr.xirr(dates, [a for _, a in flows]), abs=1e-6)
    profit = frame["value"].iloc[-1] - frame["value"].iloc[0] - frame["flow"].iloc[1:].sum()
    assert done["profit"] == pytest.approx(float(profit), abs=0.005)
    monthly = (1 + returns).groupby(returns.index.str[:7]).prod() - 1
    assert [m["period"] for m in done["months"]] == list(monthly.index)
    assert [m["return"] for m in done["months"]] == pytest.approx(list(monthly), abs=1e-6)
    if benchmark is not None:
        on = benchmark.reindex(frame.index).ffill().astype(float)
        assert done["benchmark_return"] == pytest.approx(on.iloc[-1] / on.iloc[0] - 1, abs=1e-9)
        assert done["excess_return"] == pytest.approx(done["time_weighted_return"] - done["benchmark_return"])


@pytest.fixture(scope="module")
def whole_account(tmp_path_factory):
    """Ledger one: cash told by transfers (no balance ever set), four of them in and out."""
    return home(tmp_path_factory.mktemp("whole"), TRADES, TRANSFERS)


@pytest.mark.parametrize(("words", "base"), [("ytd", "2024-12-31"), ("1y", "2024-06-03"), ("all", "0000")])
def test_transfers_and_trades_equal_the_references(whole_account, words, base):
    frame = window(reference(TRADES, TRANSFERS, cash_known=True), base)
    check_against_references(figures(whole_account, words), frame, closes("000333"))


def test_the_daily_value_carries_a_suspended_stock_at_its_last_close(whole_account):
    done = figures(whole_account, "--from", "2015-12-01", "--to", "2016-07-29")
    frame = reference(TRADES, TRANSFERS, cash_known=True).loc["2015-11-30":"2016-07-29"]
    check_against_references(done, frame)
    suspended = sum(1 for d in frame.index[1:] if d not in closes("000002").index)
    assert suspended > 100 and done["carried_days"] >= suspended  # 000002 off for six months, counted


@pytest.fixture(scope="module")
def stated_balance(tmp_path_factory):
    """Ledger two: a balance set by hand before the first trade, a transfer out later."""
    transfers = [Transfer("2019-06-03", Decimal(-30000))]
    return home(tmp_path_factory.mktemp("stated"), TRADES, transfers, cash_set=("2015-11-30", "300000")), transfers


@pytest.mark.parametrize(("words", "base"), [("ytd", "2024-12-31"), ("1y", "2024-06-03"), ("all", "2015-11-30")])
def test_a_stated_balance_equals_the_references(stated_balance, words, base):
    env, transfers = stated_balance
    # the set balance is the account's money from its day on: the same as a transfer in of it
    frame = window(reference(TRADES, [Transfer("2015-11-30", Decimal(300000)), *transfers], cash_known=True), base)
    if words == "all":
        frame = frame.loc["2015-11-30":]
        frame.loc["2015-11-30", "flow"] = Decimal(0)  # known from its day: the base, not a flow
    check_against_references(figures(env, words), frame, closes("000333"))


@pytest.fixture(scope="module")
def stocks_only(tmp_path_factory):
    """Ledger three: trades only, no cash ever stated."""
    return home(tmp_path_factory.mktemp("stocks"), TRADES, [])


@pytest.mark.parametrize(("words", "base"), [("ytd", "2024-12-31"), ("1y", "2024-06-03"), ("all", "0000")])
def test_without_cash_the_stocks_alone_equal_the_references(stocks_only, words, base):
    frame = window(reference(TRADES, [], cash_known=False), base)
    done = figures(stocks_only, words)
    assert done["stocks_only"] is True
    check_against_references(done, frame, closes("000333"))


def test_the_table_says_the_figures_and_that_the_stocks_stand_alone(stocks_only):
    text = in_process_ok(stocks_only, "performance", "2016", "--no-chart", warnings=True)
    done = figures(stocks_only, "2016")
    assert f"时间加权收益率 {done['time_weighted_return'] * 100:+.2f}%" in text
    assert "月度收益率（%）" in text and "2016" in text
    assert "没有设置过现金余额：只算股票部分" in text


def test_a_period_before_the_known_value_says_so(tmp_path):
    # a balance set after a sale: rolled back, the cash before the sale is negative, so the
    # ledger misses money put in earlier and the account's value before then is not known
    trades = [Trade("2016-01-05", "buy", "000001", 2000), Trade("2016-09-01", "sell", "000001", 1000)]
    env = home(tmp_path, trades, [], cash_set=("2017-01-03", "1000"))
    done = in_process_clean(env, "performance", "2016")
    assert done.returncode != 0
    assert "之前的账户价值未知" in done.stderr and "2016-08-31 及之前的现金算出来是负数" in done.stderr
    assert "--from 2016-09-02" in done.stderr
    known = figures(env, "all")
    assert known["from"] == "2016-09-02"  # the figures start after the base day 2016-09-01


def test_cash_in_and_out_move_the_cash_holdings_shows(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW=NOW)
    in_process_ok(env, "cash", "in", "50000", "--date", "2025-05-06")
    in_process_ok(env, "cash", "out", "1234.5", "--date", "2025-05-07")
    shown = json.loads(in_process_ok(env, "holdings", "--json"))
    assert shown["cash"]["amount"] == 48765.5
    listed = in_process_ok(env, "trades")
    assert "银证转入" in listed and "银证转出" in listed
    refused = in_process_clean(env, "cash", "in", "100", "--date", "2025-05-03")  # a Saturday
    assert refused.returncode != 0 and "休市" in refused.stderr


def kept_series(env) -> list[tuple[str, str]]:
    with sqlite3.connect(Path(env["PIXIU_HOME"]) / "pixiu.db") as db:
        return db.execute("select scope, key from account_value_series").fetchall()


def test_the_second_call_reads_the_kept_series(whole_account):
    env = dict(whole_account)
    first = figures(env, "all")
    (kept,) = kept_series(env)  # the series derived once, kept by what it was derived from
    assert figures(env, "all") == first and kept_series(env) == [kept]
    in_process_ok(env, "cash", "in", "1000", "--date", "2025-06-03")
    again = figures(env, "all")
    assert again["end_value"] == pytest.approx(first["end_value"] + 1000)  # a change of the ledger derives anew
    assert kept_series(env) != [kept]
    in_process_ok(env, "cash", "out", "1000", "--date", "2025-06-03")


def test_growth_chart_and_unknown_benchmark(whole_account):
    text = in_process_ok(whole_account, "performance", "1y")
    assert "账户净值" in text and "对比 沪深300" in text
    refused = in_process_clean(whole_account, "performance", "--benchmark", "nasdaq")
    assert refused.returncode != 0 and "不认识的指数" in refused.stderr
    wrong = in_process_clean(whole_account, "performance", "下个月")
    assert wrong.returncode != 0 and "不认识的区间" in wrong.stderr
    assert math.isfinite(figures(whole_account, "2020-03")["time_weighted_return"])


def test_the_context_block_shows_the_years_return_equal_to_performance_json(whole_account):
    done = figures(whole_account, "ytd")
    block = in_process_ok(whole_account, "context", "我今年收益多少，跑赢沪深300没有", "--pretty")
    assert "## 账户收益" in block
    (line,) = [x for x in block.split("\n") if "今年以来（" in x and "时间加权收益率" in x]
    assert f"今年以来（{done['from']} 至 {done['to']}）" in line
    assert f"时间加权收益率 {done['time_weighted_return'] * 100:+.2f}%" in line
    assert f"盈亏 {done['profit']:+,.2f} 元" in line
    assert f"同期沪深300 {done['benchmark_return'] * 100:+.2f}%" in line
    gap = done["excess_return"] * 100
    assert (f"跑赢 {gap:.2f} 个百分点" if gap > 0 else f"跑输 {-gap:.2f} 个百分点") in line
    assert "最大回撤" in line and done["max_drawdown"]["trough"] in line


def test_a_question_naming_periods_gets_those_periods(whole_account):
    block = in_process_ok(whole_account, "context", "去年和2024年3月我赚了多少", "--pretty")
    last_year, march = figures(whole_account, "2024"), figures(whole_account, "2024-03")
    assert f"2024 年（{last_year['from']} 至 {last_year['to']}）" in block
    assert f"时间加权收益率 {march['time_weighted_return'] * 100:+.2f}%" in block
    plain = in_process_ok(whole_account, "context", "我的持仓有哪些", "--pretty")
    assert "## 账户收益" not in plain  # not a question about the account's return


def test_load_context_returns_every_month(whole_account):
    from pixiu_cli.app import open_workspace
    from pixiu_cli.conversation.agent.tools import ToolContext
    from pixiu_cli.conversation.model_tools import model_tools
    from pixiu_cli.kernel.settings import load_settings

    ws = open_workspace(load_settings(force_offline=True, home=Path(whole_account["PIXIU_HOME"])))
    now = datetime.fromisoformat(NOW).replace(tzinfo=ZoneInfo("Asia/Shanghai"))
    ctx = ToolContext(ws.memory, lambda: now)
    content = model_tools().get("load_context").handler(ctx, {"topic": "performance"}).content["content"]
    done = figures(whole_account, "all")
    for month in done["months"]:
        assert f"- {month['period']}：{month['return'] * 100:+.2f}%；{month['profit']:+,.2f}" in content
    assert "逐年收益：" in content and len(done["months"]) > 100


@pytest.mark.parametrize(
    ("question", "periods"),
    [
        ("我今年收益多少", ("ytd",)),
        ("去年和2024年3月我赚了多少", ("2024", "2024-03")),
        ("3月份赚了多少", ("2025-03",)),
        ("十二月亏了多少", ("2024-12",)),  # December has not come yet in 2025: last year's
        ("这个月和上个月", ("2025-06", "2025-05")),
        ("近3个月的回撤", ("3m",)),
        ("开户以来累计赚了多少", ("all",)),
        ("我跑赢大盘了吗", ("ytd", "1m")),  # none named: the year and the month
    ],
)
def test_the_periods_a_question_names(question, periods):
    from pixiu_cli.conversation.context.account_history import asked_periods

    assert asked_periods(question, datetime(2025, 6, 3).date()) == periods


STATEMENT_HEADER = (
    "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,"
    "发生金额,资金余额,合同编号,股东代码"
)
SECOND = "第二账户"
SECOND_TRADES = [Trade("2017-03-02", "buy", "000333", 800), Trade("2019-06-03", "sell", "000333", 300)]
SECOND_TRANSFERS = [Transfer("2017-03-01", Decimal(100000)), Transfer("2020-03-02", Decimal(-20000))]


@pytest.fixture(scope="module")
def two_accounts(tmp_path_factory):
    """The whole account's ledger in the default account, and a second broker account made by a
    statement of its first transfer, told by hand after it."""
    tmp = tmp_path_factory.mktemp("two")
    env = home(tmp, TRADES, TRANSFERS)
    first, *later = SECOND_TRANSFERS
    row = f"{first.day.replace('-', '')},09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,{first.amount}.00,{first.amount}.00,,"
    path = tmp / "second.csv"
    path.write_bytes(("\r\n".join([STATEMENT_HEADER, row]) + "\r\n").encode("gbk"))
    in_process_ok(env, "trades", "import", str(path), "--account", SECOND)
    for t in SECOND_TRADES:
        day_price = str(price(t))
        in_process_ok(
            env,
            "trade",
            t.side,
            t.symbol,
            str(t.quantity),
            day_price,
            "--date",
            t.day,
            "--fee",
            "5",
            "--account",
            SECOND,
        )
    for t in later:
        in_process_ok(
            env, "cash", "in" if t.amount > 0 else "out", str(abs(t.amount)), "--date", t.day, "--account", SECOND
        )
    return env


@pytest.mark.parametrize("words", ["ytd", "all"])
def test_two_accounts_each_and_together_equal_the_references(two_accounts, words):
    alone = reference(TRADES, TRANSFERS, cash_known=True)
    second = reference(SECOND_TRADES, SECOND_TRANSFERS, cash_known=True)
    together = alone.add(second.reindex(alone.index, fill_value=Decimal(0)), fill_value=Decimal(0))
    base = {"ytd": "2024-12-31", "all": "0000"}[words]
    default = figures(two_accounts, words, "--account", "默认账户")
    other = figures(two_accounts, words, "--account", SECOND)
    combined = figures(two_accounts, words)
    check_against_references(default, window(alone, base))
    check_against_references(other, window(second, base))
    check_against_references(combined, window(together, base), closes("000333"))
    for key in ("end_value", "profit", "money_in", "money_out"):  # the accounts add up to the cent
        assert combined[key] == pytest.approx(default[key] + other[key], abs=0.005), key


def test_holdings_stated_without_a_day_say_why_there_is_no_return(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW=NOW)
    done = in_process_clean(env, "performance", "--demo")  # the demo states its holdings, undated
    assert done.returncode == 1 and done.stderr.startswith("错误：算不出收益：持仓没有记录日期")
    assert "pixiu cash in" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    block = in_process_ok(env, "context", "--demo", "我今年收益多少", "--pretty")
    assert "## 账户收益" in block and "算不出收益：持仓没有记录日期" in block
