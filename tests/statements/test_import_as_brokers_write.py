"""`pixiu trades import` of statements as brokers write them, through the real entry point
on a real database: a 通达信 交割单 with an IPO paid and credited on two rows and two
dividend taxes, unknown business names, a row dated after today, a 同花顺 交割单 without
资金余额 after one with it, new shares with no payment. Figures by hand in each test (the
fixture's are worked out in test_business_as_brokers_write.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import clean_env, pixiu_in_process

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
THS = FIXTURES / "ths_jiaogedan.csv"
THS_NO_BALANCE = FIXTURES / "ths_jiaogedan_no_balance.csv"
TDX_JGD = FIXTURES / "tdx_jiaogedan.csv"


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home, PIXIU_NOW="2025-08-20T16:00")


def run(env, *args):
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def fails(env, *args) -> str:
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 1, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    return done.stderr.strip()


def held(env) -> dict[str, tuple]:
    view = json.loads(run(env, "holdings", "--json").stdout)
    return {h["symbol"]: (h["shares"], h["cost"]) for h in view["holdings"]}


def with_rows(tmp_path: Path, *rows: str) -> Path:
    """The 同花顺 fixture (13 rows, lines 2–14) with `rows` after it, from line 15."""
    path = tmp_path / "交割单.csv"
    path.write_text(THS.read_bytes().decode("utf-8-sig").rstrip() + "\r\n" + "\r\n".join(rows) + "\r\n", "gbk")
    return path


def test_a_tdx_jiaogedan_with_an_ipo_pair_and_dividend_taxes(env):
    preview = run(env, "trades", "import", str(TDX_JGD), "--dry-run").stdout
    assert "识别为通达信交割单：将新增 12 笔" in preview
    # the 新股申购确认缴款 (−8,440.00) and the 新股入帐 (500 at 0) as one allotment
    assert "  + 2025-03-14 新股入账 001395 500 8,440.00" in preview
    assert "跳过 1 行：新股申购、配号或退款（中签后按新股入账计入）" in preview  # the 申购配号
    done = run(env, "trades", "import", str(TDX_JGD), "--skip-bad")
    assert "已新增 12 笔" in done.stdout and "现金：已按对账单设为 41,268.74（2025-08-15 资金余额）" in done.stdout
    assert "有误" not in done.stderr  # nothing refused, nothing vanished
    # 摊薄成本: 600900 15,106.40 / 600 = 25.1773 (the −38.00 股息红利差异扣税 raises it: without
    # it, 15,068.40 / 600 = 25.114); 000001 10,189.42 / 1,000 = 10.1894; 001395 8,440 / 500 = 16.88
    assert held(env) == {"600900": (600, 25.1773), "000001": (1000, 10.1894), "001395": (500, 16.88)}
    again = run(env, "trades", "import", str(TDX_JGD)).stdout
    assert "已新增 0 笔，已有 12 笔（不重复导入）" in again  # the paired allotment keeps its id


def test_unknown_business_names_are_listed_with_counts(env, tmp_path):
    path = with_rows(
        tmp_path,
        "20250816,10:00:00,,,融资融券划转,0,0,0,0,0,0,0,0.00,27094.95,,",
        '20250818,09:00:00,="600900",长江电力,转托管转入,1000,0,0,0,0,0,0,0.00,27094.95,,A123456789',
        '20250818,09:00:01,="000001",平安银行,转托管转入,500,0,0,0,0,0,0,0.00,27094.95,,0123456789',
    )
    done = run(env, "trades", "import", str(path))
    assert "已新增 12 笔" in done.stdout
    assert "注意：未识别的业务 3 行：转托管转入 2、融资融券划转 1（未计入）" in done.stderr


def test_a_row_dated_after_today_is_refused_with_its_row_number(env, tmp_path):
    path = with_rows(tmp_path, "20270601,15:00:00,,,银证转入,0,0,0,0,0,0,0,50000.00,77094.95,,")
    message = fails(env, "trades", "import", str(path))
    assert (
        message
        == "错误：第 15 行的日期 2027-06-01 晚于今天（2025-08-20）；未导入任何内容（加 --skip-bad 可跳过有误的行）"
    )
    assert "还没有成交记录" in run(env, "trades").stdout
    done = run(env, "trades", "import", str(path), "--skip-bad")
    assert "注意：已跳过有误的行：第 15 行的日期 2027-06-01 晚于今天（2025-08-20）" in done.stderr
    # the cash is the last balance of a real day, never the 2027 one (77,094.95)
    assert "现金：已按对账单设为 27,094.95（2025-08-15 资金余额）" in done.stdout


def test_a_statement_without_a_balance_after_one_with_it(env, pixiu_home):
    run(env, "trades", "import", str(THS))
    done = run(env, "trades", "import", str(THS_NO_BALANCE))
    assert "识别为同花顺交割单：已新增 3 笔" in done.stdout
    assert "现金：" not in done.stdout  # it states no balance, so it sets none
    # 000333 290 + 100 = 390 shares; 600036 1,300 − 300 = 1,000
    shares = {symbol: shares for symbol, (shares, _) in held(env).items()}
    assert (shares["000333"], shares["600036"]) == (390, 1000)
    # each fill keeps the signed 发生金额 for the cash that follows the last balance
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    flows = db.execute(
        "select day, kind, cash_change from account_fills where day >= '2025-08-18' order by id"
    ).fetchall()
    db.close()
    assert flows == [
        ("2025-08-18", "buy", -7255.07),
        ("2025-08-18", "sell", 13488.11),
        ("2025-08-19", "transfer_out", -5000.0),
    ]


def test_new_shares_with_no_payment_are_reported(env, tmp_path):
    path = with_rows(
        tmp_path, '20250818,15:00:00,="603375",盛景微,新股入帐,200,0.000,0.00,0,0,0,0,0.00,27094.95,,A123456789'
    )
    done = run(env, "trades", "import", str(path))
    assert "已新增 13 笔" in done.stdout
    assert (
        "注意：2025-08-18 新股入账 603375 200 股：对账单和已导入的记录中都没有对应的缴款，暂按成本 0 计入"
        in done.stderr
    )
    # 500 @ 10.50 (the fixture's own 新股入帐, paid on its row) + 200 @ 0: 5,250 / 700 = 7.50
    assert held(env)["603375"] == (700, 7.5)
