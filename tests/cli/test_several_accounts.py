"""Several broker accounts through the real `pixiu` command on a real database: two
statements of two accounts (different 股东代码) holding the same stock make two accounts;
`holdings --account A` and `--account B` add up to the combined view to the cent (shares,
cost, market value, cash, P&L); `--account` on import names (and makes) the account; an
unknown account is refused in one line that lists the accounts. Every figure is worked out
by hand in the comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import bars_csv, clean_env, in_process_ok, pixiu_in_process, pixiu_ok

HEADER = (
    "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,"
    "发生金额,资金余额,合同编号,股东代码"
)
# 600519 closes at 1,530.00 on Friday 2025-03-07: the value of every share held
BARS = [
    f"2025-03-0{d},1500,1540,1490,{close},1000" for d, close in ((3, 1500), (4, 1510), (5, 1520), (6, 1525), (7, 1530))
]

# account A (A111111111): ¥1,000,000 in; 100 shares at 1,500.00 + 5.00 = 150,005.00 → cash 849,995.00
A_ROWS = [
    "20250303,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,1000000.00,1000000.00,,",
    "20250303,10:05:12,600519,贵州茅台,买入,100,1500.000,150000.00,5.00,0.00,0.00,0.00,-150005.00,849995.00,1001,A111111111",
]
# account B (A222222222): ¥500,000 in; 200 at 1,510.00 + 6.00 = 302,006.00 → 197,994.00; 100 sold at
# 1,520.00 − 5.00 = 151,995.00 → 349,989.00. Cost out: half of 302,006 = 151,003.00, realised 992.00
B_ROWS = [
    "20250304,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,500000.00,500000.00,,",
    "20250304,10:00:00,600519,贵州茅台,买入,200,1510.000,302000.00,6.00,0.00,0.00,0.00,-302006.00,197994.00,2001,A222222222",
    "20250305,10:00:00,600519,贵州茅台,卖出,100,1520.000,152000.00,5.00,0.00,0.00,0.00,151995.00,349989.00,2002,A222222222",
]


def statement(tmp_path: Path, name: str, rows: list[str]) -> Path:
    path = tmp_path / name
    path.write_bytes(("\r\n".join([HEADER, *rows]) + "\r\n").encode("gbk"))
    return path


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home, PIXIU_NOW="2025-03-07T16:00")


@pytest.fixture
def two(env, tmp_path):
    """A home with A's statement, then B's: B's numbers are no account's, so it is a new one."""
    in_process_ok(env, "data", "import", str(bars_csv(tmp_path / "600519.csv", *BARS)), "--symbol", "600519")
    in_process_ok(env, "trades", "import", str(statement(tmp_path, "a.csv", A_ROWS)))
    said = in_process_ok(env, "trades", "import", str(statement(tmp_path, "b.csv", B_ROWS)))
    assert "对账单的股东代码/资金账号 A222222222 不属于已有账户：已新建账户「同花顺-2222」" in said
    return env


def holdings(env, *args) -> dict:
    return json.loads(pixiu_ok(env, "holdings", "--json", *args))


def refused(env, *args) -> str:
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 1, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "意外错误" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    return done.stderr.strip()


def _cents(*values: float | None) -> float:
    return round(sum(v or 0.0 for v in values), 2)


def test_two_accounts_add_up_to_the_combined_view_to_the_cent(two):
    a, b, both = holdings(two, "--account", "默认账户"), holdings(two, "--account", "同花顺-2222"), holdings(two)
    (ha,), (hb,), (line,) = a["holdings"], b["holdings"], both["holdings"]
    # A: 100 × 1,530 = 153,000.00, unrealised 153,000 − 150,005 = 2,995.00
    assert (ha["shares"], ha["value"], ha["unrealised_pnl"], ha["realised_pnl"]) == (100, 153000.0, 2995.0, 0.0)
    # B: 100 × 1,530 = 153,000.00 against 151,003.00: 1,997.00; realised 992.00
    assert (hb["shares"], hb["value"], hb["unrealised_pnl"], hb["realised_pnl"]) == (100, 153000.0, 1997.0, 992.0)
    # one line of 600519: the sums of the two lots
    assert line["shares"] == ha["shares"] + hb["shares"] == 200
    for figure in (
        "value",
        "unrealised_pnl",
        "realised_pnl",
        "holding_pnl",
        "total_pnl",
        "cost_in",
        "proceeds",
        "fees",
    ):
        assert line[figure] == _cents(ha[figure], hb[figure]), figure
    # the cost of the shares held, per share × shares: (150,005 + 151,003) / 200 = 1,505.04
    assert line["average_cost"] == 1505.04
    assert _cents(line["average_cost"] * line["shares"]) == _cents(
        ha["average_cost"] * ha["shares"], hb["average_cost"] * hb["shares"]
    )
    # cash: 849,995.00 + 349,989.00 = 1,199,984.00, each account's listed
    assert (a["cash"]["amount"], b["cash"]["amount"], both["cash"]["amount"]) == (849995.0, 349989.0, 1199984.0)
    assert [(x["name"], x["cash"]["amount"]) for x in both["accounts"]] == [
        ("默认账户", 849995.0),
        ("同花顺-2222", 349989.0),
    ]
    for figure in ("stock_value", "total_assets", "unrealised_pnl", "realised_pnl"):
        assert both[figure] == _cents(a[figure], b[figure]), figure
    text = pixiu_ok(two, "holdings")
    assert "各账户现金：默认账户 849,995.00；同花顺-2222 349,989.00（合计为各账户之和）" in text
    assert "各账户现金" not in pixiu_ok(two, "holdings", "--account", "默认账户")


def test_cash_trades_and_the_accounts_list_take_the_account(two):
    assert "849,995.00" in in_process_ok(two, "cash", "--account", "默认账户")
    assert "各账户现金：默认账户 849,995.00；同花顺-2222 349,989.00" in in_process_ok(two, "cash")
    listed = json.loads(in_process_ok(two, "trades", "--account", "同花顺-2222", "--json"))
    assert [t["kind"] for t in listed] == ["银证转入", "买入", "卖出"]
    assert len(json.loads(in_process_ok(two, "trades", "--json"))) == 5
    accounts = json.loads(in_process_ok(two, "accounts", "--json"))
    assert [(x["name"], x["default"], x["shareholder_codes"], x["holdings"], x["cash"]) for x in accounts] == [
        ("默认账户", True, ["A111111111"], 1, 849995.0),
        ("同花顺-2222", False, ["A222222222"], 1, 349989.0),
    ]
    assert "同花顺-2222" in in_process_ok(two, "accounts")


def test_a_trade_and_a_balance_go_to_the_account_named(two):
    # 100 more in B at 1,530.00 + 5.00: B holds 200, A still 100; B's cash 349,989 − 153,005 = 196,984.00
    in_process_ok(
        two, "trade", "buy", "600519", "100", "1530", "--fee", "5", "--date", "2025-03-07", "--account", "同花顺-2222"
    )
    assert holdings(two, "--account", "同花顺-2222")["holdings"][0]["shares"] == 200
    assert holdings(two, "--account", "默认账户")["holdings"][0]["shares"] == 100
    assert holdings(two)["holdings"][0]["shares"] == 300
    assert holdings(two, "--account", "同花顺-2222")["cash"]["amount"] == 196984.0
    in_process_ok(two, "cash", "set", "1000", "--account", "默认账户")
    assert holdings(two)["cash"]["amount"] == 197984.0
    # a sale of more than the account holds is refused against that account, not the total
    assert "超过持仓 100 股" in refused(two, "trade", "sell", "600519", "200", "1530", "--account", "默认账户")


def test_an_unknown_account_is_refused_in_one_line(two):
    for args in (
        ("holdings",),
        ("cash",),
        ("trades",),
        ("cash", "set", "5"),
        ("trade", "buy", "600519", "100", "1530"),
    ):
        said = refused(two, *args, "--account", "招商")
        assert "没有名为「招商」的账户；现有账户：默认账户、同花顺-2222" in said, args


def test_account_on_import_names_and_makes_the_account(env, tmp_path):
    in_process_ok(env, "data", "import", str(bars_csv(tmp_path / "600519.csv", *BARS)), "--symbol", "600519")
    said = in_process_ok(env, "trades", "import", str(statement(tmp_path, "b.csv", B_ROWS)), "--account", "招商")
    assert "新建账户" not in said  # named: made as asked, not guessed
    accounts = json.loads(in_process_ok(env, "accounts", "--json"))
    assert [(x["name"], x["shareholder_codes"]) for x in accounts] == [("默认账户", []), ("招商", ["A222222222"])]
    # the same file again, to the same account by its numbers: nothing new
    assert "已新增 0 笔，已有 3 笔" in in_process_ok(env, "trades", "import", str(statement(tmp_path, "b.csv", B_ROWS)))
    # B's numbers named to another account: refused, nothing written
    said = refused(env, "trades", "import", str(statement(tmp_path, "b2.csv", B_ROWS)), "--account", "默认账户")
    assert "属于账户「招商」，而不是「默认账户」" in said
    # a file naming two accounts' numbers: refused
    in_process_ok(env, "trades", "import", str(statement(tmp_path, "a.csv", A_ROWS)), "--account", "默认账户")
    mixed = statement(tmp_path, "mixed.csv", [A_ROWS[1].replace("1001", "3001"), B_ROWS[1].replace("2001", "3002")])
    assert "分属账户 默认账户、招商" in refused(env, "trades", "import", str(mixed))


def test_one_account_home_shows_nothing_new(env, tmp_path):
    in_process_ok(env, "data", "import", str(bars_csv(tmp_path / "600519.csv", *BARS)), "--symbol", "600519")
    said = in_process_ok(env, "trades", "import", str(statement(tmp_path, "a.csv", A_ROWS)))
    assert "账户" not in said  # the first statement fills the home's only account
    record = holdings(env)
    assert [x["name"] for x in record["accounts"]] == ["默认账户"] and record["account"] is None
    assert "各账户现金" not in pixiu_ok(env, "holdings")


def test_the_context_block_says_the_combined_figures_and_each_accounts_cash(two):
    block = in_process_ok(two, "context", "我的持仓怎么样", "--pretty")
    assert (
        "以上为 2 个券商账户合计，同一股票合并为一行（各账户现金：默认账户 849,995.00，同花顺-2222 349,989.00）"
        in block
    )
    assert "1,199,984.00" in block  # the cash, combined


def test_a_document_carries_each_rows_account(two, tmp_path, pixiu_home):
    document = tmp_path / "home.json"
    in_process_ok(two, "export", "-o", str(document))
    fills = json.loads(document.read_text(encoding="utf-8"))["account"]["fills"]
    # the default account's rows name none (they go to the default account of any home)
    assert [f.get("broker_account") for f in fills] == [None, None, "同花顺-2222", "同花顺-2222", "同花顺-2222"]
    other = clean_env(tmp_path / "other-home", PIXIU_NOW="2025-03-07T16:00")
    in_process_ok(other, "data", "import", str(bars_csv(tmp_path / "600519.csv", *BARS)), "--symbol", "600519")
    in_process_ok(other, "import", str(document))
    for args in ((), ("--account", "默认账户"), ("--account", "同花顺-2222")):
        mine, theirs = holdings(two, *args), holdings(other, *args)
        assert (theirs["holdings"], theirs["cash"]["amount"]) == (mine["holdings"], mine["cash"]["amount"]), args


def test_a_trade_list_of_several_accounts_says_each_fills_account(two):
    listed = json.loads(in_process_ok(two, "trades", "--json"))
    assert [t["broker_account"] for t in listed] == [
        "默认账户",
        "默认账户",
        "同花顺-2222",
        "同花顺-2222",
        "同花顺-2222",
    ]
    assert "同花顺-2222" in in_process_ok(two, "trades")  # the table's 账户 column
    assert "同花顺-2222" not in in_process_ok(two, "trades", "--account", "默认账户")
