"""A new user with a 同花顺 交割单: `pixiu trades import`, `pixiu holdings`, `pixiu context`
and `pixiu track` through the real entry point, in process, on a real database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import clean_env, in_process_ok, pixiu_in_process

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
THS = FIXTURES / "statements" / "ths_jiaogedan.csv"
BARS = FIXTURES / "market" / "000333.csv"
ACTIONS = FIXTURES / "market" / "000333_actions.csv"


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home, PIXIU_NOW="2025-08-20T16:00")


run = in_process_ok


def fails(env, *args) -> str:
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 1, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "意外错误" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    return done.stderr.strip()


def test_a_new_user_imports_a_statement_and_sees_the_account(env):
    run(env, "data", "import", str(BARS), "--symbol", "000333", "--actions", str(ACTIONS))
    preview = run(env, "trades", "import", str(THS), "--dry-run")
    assert "识别为同花顺交割单：将新增 12 笔" in preview and "（试运行：没有写入任何内容）" in preview
    assert "跳过 1 行：配股股份到账（已按配股缴款计入）" in preview
    imported = run(env, "trades", "import", str(THS))
    assert "已新增 12 笔" in imported and "现金：已按对账单设为 27,094.95（2025-08-15 资金余额）" in imported

    view = json.loads(run(env, "holdings", "--json"))
    midea = next(h for h in view["holdings"] if h["symbol"] == "000333")
    # 290 shares at 摊薄成本 38.4313; the last close 79.06 (2025-05-30): value 22,927.40,
    # unrealised 22,927.40 − 290 × 38.4313 = 11,782.32; realised 4,472.69
    assert (midea["shares"], midea["cost"], midea["last_close"], midea["close_date"]) == (
        290,
        38.4313,
        79.06,
        "2025-05-30",
    )
    # 持仓盈亏 against the diluted cost includes the realised 4,472.69; unrealised is against
    # the average cost (53.8544): 22,927.40 − 15,617.78 = 7,309.62; the two add up to it
    assert (midea["value"], midea["holding_pnl"], midea["realised_pnl"]) == (22927.4, 11782.32, 4472.69)
    assert midea["unrealised_pnl"] == pytest.approx(22927.40 - 290 * 53.8544, abs=0.01)
    assert midea["unrealised_pnl"] + midea["realised_pnl"] == pytest.approx(midea["holding_pnl"], abs=0.01)
    # total assets: 22,927.40 + 600036 at its cost, the 51,513.18 put in (no bars; not 1,300 ×
    # the rounded 39.6255 = 51,513.15) + 500 × 10.50 + cash 27,094.95
    total = 22927.40 + 51513.18 + 500 * 10.5 + 27094.95
    assert view["total_assets"] == round(total, 2) == 106785.53
    assert midea["weight"] == pytest.approx(22927.40 / total)
    assert view["cash"] == {
        "amount": 27094.95,
        "as_of": "2025-08-15",
        "stated_amount": 27094.95,
        "stated_as_of": "2025-08-15",
        "source": "statement",
        "rolled": 0,
        "missing": 0,
    }

    table = run(env, "holdings")
    assert (
        "000333 美的集团" in table
        and "无行情（按成本计）" in table
        and "现金 27,094.95（2025-08-15 余额 27,094.95）" in table
    )

    block = run(env, "context", "我的持仓怎么样", "--pretty")
    assert "仓位 21.5%" in block  # 22,927.40 / 106,785.50 of total assets, cash included
    assert "现金 27,094.95（2025-08-15 余额 27,094.95）；仓位按总资产计；成本为摊薄成本" in block

    track = {row["id"]: row for row in json.loads(run(env, "track", "--json"))}
    # scored from the statement's day, 2025-03-03: the close 20 sessions later against 70.00
    closes = [line.split(",") for line in BARS.read_text().splitlines()[1:]]
    start = next(i for i, row in enumerate(closes) if row[0] >= "2025-03-03")
    assert track["d1"]["decided_at"] == "2025-03-03T10:05:12+08:00"
    assert track["d1"]["return_20d"] == pytest.approx(float(closes[start + 20][4]) / 70 - 1)

    again = run(env, "trades", "import", str(THS))
    assert "已新增 0 笔，已有 12 笔（不重复导入）" in again


def test_trade_cash_and_trades_commands(env):
    told = run(env, "trade", "buy", "600036", "1000", "42.5", "--date", "3月4日", "--fee", "13.18")
    assert "已记录 #d1：2025-03-04 买入 600036 1000 股 @ 42.5，持仓 1000 股，成本 42.51；费用 13.18 元（" in told
    assert "已设置现金 20,000.00（截至 2025-08-20）" in run(env, "cash", "set", "20000")
    listing = run(env, "trades", "600036")
    assert "2025-03-04" in listing and "手工" in listing and "d1" in listing
    assert "现金 20,000.00（2025-08-20 余额 20,000.00）" in run(env, "cash")


@pytest.mark.parametrize(
    "args, message",
    [
        (("trade", "buy", "600036", "100", "42.5", "--date", "明年3月"), "无法识别的日期：明年3月"),
        (("trade", "buy", "600036", "100", "42.5", "--date", "2025-08-21"), "不能记录未来的交易"),
        (("trade", "hold", "600036", "100", "42.5"), "买卖方向 只能是 buy、sell"),
        (("trade", "sell", "600036", "100", "42.5"), "卖出数量 100 超过持仓 0 股"),
        (("trade", "buy", "600519", "100", "abc"), "成交价应为正数，而不是 'abc'"),
        (("cash", "set", "--", "-5"), "现金余额应为非负数字"),
        (("trades", "import", "/nonexistent/交割单.csv"), "无法读取 /nonexistent/交割单.csv"),
    ],
)
def test_bad_input_is_one_chinese_line(env, args, message):
    assert message in fails(env, *args)


def test_trades_import_is_a_subcommand_whose_missing_file_is_a_usage_line(env):
    done = pixiu_in_process(env, "trades", "import", text=True)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "错误：缺少参数 FILE：对账单文件（交割单.csv / .xlsx）（pixiu trades import --help 查看用法）"
    ]


def test_an_unknown_layout_and_a_bad_number_name_what_is_wrong(env, tmp_path):
    odd = tmp_path / "odd.csv"
    odd.write_text("日期,品种,手数\n2025-03-03,IF2503,1\n", encoding="gbk")
    assert "无法识别对账单的列：找到 日期、品种、手数；需要" in fails(env, "trades", "import", str(odd))
    bad = tmp_path / "bad.csv"
    bad.write_text(THS.read_bytes().decode("utf-8-sig").replace("75.000", "7x.000"), encoding="utf-8")
    assert "第 5 行「成交均价」：不是数字 '7x.000'" in fails(env, "trades", "import", str(bad))
    assert "还没有成交记录" in run(env, "trades")
    partial = run(env, "trades", "import", str(bad), "--skip-bad")
    assert "已新增 11 笔" in partial


def test_the_demo_concentration_is_over_all_eight_holdings(pixiu_home):
    """The demo ships bars for 000333 only: the other seven are valued at cost, so the
    largest position is 贵州茅台 at 26.5% (over its own 25% cap), not 美的 at 100%."""
    block = run(clean_env(pixiu_home), "context", "--demo", "我的持仓怎么样", "--pretty")
    shipped = FIXTURES.parents[1] / "data" / "demo"
    demo = json.loads((shipped / "portfolio.json").read_text(encoding="utf-8"))
    last_close = float((shipped / "market" / "000333.csv").read_text().splitlines()[-1].split(",")[4])
    values = {
        h["symbol"]: h["shares"] * (last_close if h["symbol"] == "000333" else h["cost"]) for h in demo["holdings"]
    }
    total = sum(values.values())  # 316,000 + 166,000 + 146,700 + 158,120 + 91,400 + 142,600 + 101,400 + 69,120
    assert len(values) == 8 and total == pytest.approx(1191340)
    top3 = sorted(values.values(), reverse=True)[:3]
    assert f"股票市值 {total:,.2f}（全部持仓，其中 7 只无行情按成本计；现金未知，仓位按股票市值计）" in block
    assert f"最大仓位 600519 {values['600519'] / total * 100:.1f}%，前三 {sum(top3) / total * 100:.1f}%" in block
    assert "100.0%" not in block


def test_a_trade_withdrawn_with_forget_leaves_the_track_record(env):
    run(env, "data", "import", str(BARS), "--symbol", "000333")
    run(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03")
    run(env, "trade", "buy", "000333", "100", "72", "--date", "2025-03-10")
    assert [row["id"] for row in json.loads(run(env, "track", "--json"))] == ["d1", "d2"]
    run(env, "forget", "d2")
    assert [row["id"] for row in json.loads(run(env, "track", "--json"))] == ["d1"]
    listing = run(env, "track")
    assert "d2" not in listing and "/1 条" in listing
