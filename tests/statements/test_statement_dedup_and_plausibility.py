"""`pixiu trades import` of statements written as brokers write them (GBK CSV, CRLF) into
tmp_path, through the real entry point on a real database: the broker's number is a
fill's identity, so two equal fills in a morning and a day export stay two; rows without a
number count one for one; a trade told by hand merges once per told fill. Rows no statement
could mean are refused with their row and column (or listed and left out with --skip-bad),
full-width codes are the ASCII stock, a row whose columns a comma shifted never sets cash,
and a statement's 证券名称 is never the name shown. Every figure is worked out by hand."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import clean_env, in_process_ok, in_process_refused

# 同花顺-like columns, with the broker's number under `{number}` (合同编号 or 成交编号)
HEADER = (
    "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,"
    "发生金额,资金余额,{number},股东代码"
)
FIELDS = (
    "day", "time", "code", "name", "action", "quantity", "price", "amount", "fee", "stamp", "transfer", "other",
    "change", "balance", "number", "account",
)  # fmt: skip
# 银证转入 ¥1,000,000 on Monday 2025-03-03: the balance every file below starts from
DEPOSIT = "20250303,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,1000000.00,1000000.00,,"
REFUSED = "；未导入任何内容（加 --skip-bad 可跳过有误的行）"


def row(**cells) -> str:
    """A buy of 100 贵州茅台 at ¥1,500.00 on 2025-03-03 10:05:12 (¥150,000 + ¥5 commission),
    the deposit before it: balance 1,000,000 − 150,005 = 849,995.00; `cells` replace fields."""
    base = dict(
        day="20250303", time="10:05:12", code="600519", name="贵州茅台", action="买入", quantity="100",
        price="1500.000", amount="150000.00", fee="5.00", stamp="0.00", transfer="0.00", other="0.00",
        change="-150005.00", balance="849995.00", number="1001", account="A123456789",
    )  # fmt: skip
    base.update(cells)
    return ",".join(base[f] for f in FIELDS)


def statement(tmp_path: Path, name: str, *rows: str, number: str = "合同编号", header: str | None = None) -> Path:
    path = tmp_path / name
    text = "\r\n".join([header or HEADER.format(number=number), *rows]) + "\r\n"
    path.write_bytes(text.encode("gbk"))
    return path


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home, PIXIU_NOW="2025-12-19T16:00")


def run(env, *args) -> str:
    return in_process_ok(env, *args, warnings=True)


fails = in_process_refused


def account(env) -> dict:
    return json.loads(run(env, "holdings", "--json"))


def held(env) -> dict[str, tuple]:
    return {h["symbol"]: (h["shares"], h["cost"]) for h in account(env)["holdings"]}


def cash(env) -> float | None:
    stated = account(env)["cash"]
    return stated["amount"] if stated else None


def fills(env) -> list[dict]:
    return json.loads(run(env, "trades", "--json"))


# the broker's number is the identity ---------------------------------------------------------
# the afternoon's fill: as the morning's, at 14:05:12 under its own number: 849,995 − 150,005
AFTERNOON = {"time": "14:05:12", "balance": "699990.00"}


@pytest.mark.parametrize("number, first, second", [("合同编号", "1001", "1002"), ("成交编号", "T0001", "T0002")])
def test_two_equal_fills_in_a_morning_and_an_afternoon_export_are_two(env, tmp_path, number, first, second):
    morning = statement(tmp_path, "上午.csv", DEPOSIT, row(number=first), number=number)
    afternoon = statement(tmp_path, "下午.csv", row(number=second, **AFTERNOON), number=number)
    run(env, "trades", "import", str(morning))
    assert "已新增 1 笔，已有 0 笔" in run(env, "trades", "import", str(afternoon))
    # 2 × 150,005 = 300,010 over 200 shares = 1,500.05; cash the afternoon's balance
    assert held(env) == {"600519": (200, 1500.05)}
    assert cash(env) == 699990.0


@pytest.mark.parametrize("number, first, second", [("合同编号", "1001", "1002"), ("成交编号", "T0001", "T0002")])
def test_a_day_file_after_the_morning_file_adds_the_afternoon_fill(env, tmp_path, number, first, second):
    morning = statement(tmp_path, "上午.csv", DEPOSIT, row(number=first), number=number)
    day = statement(tmp_path, "当日.csv", DEPOSIT, row(number=first), row(number=second, **AFTERNOON), number=number)
    run(env, "trades", "import", str(morning))
    assert "已新增 1 笔，已有 2 笔" in run(env, "trades", "import", str(day))  # the deposit and the morning's buy
    assert held(env) == {"600519": (200, 1500.05)}
    assert "已新增 0 笔，已有 3 笔" in run(env, "trades", "import", str(day))  # again: nothing
    assert held(env) == {"600519": (200, 1500.05)} and len(fills(env)) == 3


def test_fifty_fills_with_their_own_numbers_over_two_overlapping_files_are_fifty(env, tmp_path):
    """The attack's loss (2,750 of 3,350 fills) without concurrency: 50 buys of 100 招商银行
    at ¥40.00, no fees, all at 10:00:00 on one day, each with its 成交编号; the first file has
    fills 1–30, the second 21–50. After fill k the balance is 1,000,000 − 4,000 k."""

    def buy(k: int) -> str:
        return row(
            time="10:00:00", code="600036", name="招商银行", price="40.000", amount="4000.00", fee="0.00",
            change="-4000.00", balance=f"{1000000 - 4000 * k:.2f}", number=f"T{k:04d}",
        )  # fmt: skip

    first = statement(tmp_path, "1.csv", DEPOSIT, *(buy(k) for k in range(1, 31)), number="成交编号")
    second = statement(tmp_path, "2.csv", *(buy(k) for k in range(21, 51)), number="成交编号")
    assert "已新增 31 笔，已有 0 笔" in run(env, "trades", "import", str(first))
    assert "已新增 20 笔，已有 10 笔" in run(env, "trades", "import", str(second))
    # 50 × 100 = 5,000 shares at 40.00; cash 1,000,000 − 50 × 4,000 = 800,000
    assert held(env) == {"600036": (5000, 40.0)}
    assert cash(env) == 800000.0
    assert "已新增 0 笔，已有 31 笔" in run(env, "trades", "import", str(first))
    assert "已新增 0 笔，已有 30 笔" in run(env, "trades", "import", str(second))
    assert held(env) == {"600036": (5000, 40.0)}


# no broker number: the rows' fields, one for one ----------------------------------------------
NO_NUMBER = "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,发生金额"
SAME = "20250303,10:05:12,600519,贵州茅台,买入,100,1500.000,150000.00,5.00,0.00,0.00,0.00,-150005.00"


def test_rows_without_a_number_count_one_for_one(env, tmp_path):
    two = statement(tmp_path, "2.csv", SAME, SAME, header=NO_NUMBER)
    three = statement(tmp_path, "3.csv", SAME, SAME, SAME, header=NO_NUMBER)
    assert "已新增 2 笔" in run(env, "trades", "import", str(two))  # two equal rows: two fills
    assert held(env) == {"600519": (200, 1500.05)}
    assert "已新增 0 笔，已有 2 笔" in run(env, "trades", "import", str(two))
    assert "已新增 1 笔，已有 2 笔" in run(env, "trades", "import", str(three))
    # 3 × 150,005 = 450,015 over 300 shares = 1,500.05
    assert held(env) == {"600519": (300, 1500.05)}


def test_one_trade_number_written_twice_is_one_fill(env, tmp_path):
    path = statement(tmp_path, "重复.csv", DEPOSIT, row(number="T0001"), row(number="T0001"), number="成交编号")
    assert "跳过 1 行：重复的成交编号（同一笔成交写了两次）" in run(env, "trades", "import", str(path))
    assert held(env) == {"600519": (100, 1500.05)}  # 150,005 / 100


def test_another_clients_numbers_do_not_tell_fills_apart_but_their_times_do(env, tmp_path):
    """A 合同编号 export, then another client's day file numbered by 成交编号: the morning
    fill is the one stored (same minute), the afternoon one is new."""
    morning = statement(tmp_path, "a.csv", DEPOSIT, row(number="1001"))
    other = statement(tmp_path, "b.csv", DEPOSIT, row(number="T9"), row(number="T10", **AFTERNOON), number="成交编号")
    run(env, "trades", "import", str(morning))
    assert "已新增 1 笔，已有 2 笔" in run(env, "trades", "import", str(other))
    assert held(env) == {"600519": (200, 1500.05)}


def test_fills_stored_before_numbers_had_a_kind_are_told_apart_by_their_time(env, tmp_path, pixiu_home):
    run(env, "trades", "import", str(statement(tmp_path, "上午.csv", DEPOSIT, row(number="1001"))))
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    with db:
        db.execute("update account_fills set contract_kind = null")  # as an older version stored them
    db.close()
    afternoon = statement(tmp_path, "下午.csv", row(number="1002", **AFTERNOON))
    assert "已新增 1 笔" in run(env, "trades", "import", str(afternoon))
    assert held(env) == {"600519": (200, 1500.05)}


def test_a_trade_told_by_hand_merges_once_per_told_fill(env, tmp_path):
    day = statement(tmp_path, "当日.csv", DEPOSIT, row(number="1001"), row(number="1002", **AFTERNOON))
    run(env, "trade", "buy", "600519", "100", "1500", "--date", "2025-03-03")
    done = run(env, "trades", "import", str(day))
    assert "已新增 2 笔，已与对话中记录的同一笔交易合并 1 笔" in done  # the deposit and the afternoon buy
    # the told buy now carries the statement's ¥5: 300,010 / 200 = 1,500.05
    assert held(env) == {"600519": (200, 1500.05)}
    assert [f["origin"] for f in fills(env) if f["kind"] == "买入"] == ["对账单", "对账单"]


def test_two_trades_told_by_hand_are_the_two_fills(env, tmp_path):
    day = statement(tmp_path, "当日.csv", DEPOSIT, row(number="1001"), row(number="1002", **AFTERNOON))
    run(env, "trade", "buy", "600519", "100", "1500", "--date", "2025-03-03")
    run(env, "trade", "buy", "600519", "100", "1500", "--date", "2025-03-03")
    assert "已新增 1 笔，已与对话中记录的同一笔交易合并 2 笔" in run(env, "trades", "import", str(day))
    assert held(env) == {"600519": (200, 1500.05)} and len(fills(env)) == 3


# plausibility: refused with the row and the column ---------------------------------------------
@pytest.mark.parametrize(
    "cells, message",
    [
        ({"quantity": "1e300"}, "第 3 行「成交数量」：1e+300 股超过可能的持股数量"),
        ({"quantity": "100.5"}, "第 3 行「成交数量」：100.5 不是整数股"),
        ({"price": "1000000"}, "第 3 行「成交均价」：1e+06 元超过任何 A 股价格（上限 100,000 元）"),
        ({"fee": "-99999"}, "第 3 行「手续费」：费用不能为负 '-99999'"),
        # at most a tenth of 150,000 plus ¥100 = 15,100.00
        (
            {"fee": "99999"},
            "第 3 行「手续费」：费用 99,999.00 元不合理（成交金额 150,000.00 元，费用至多 15,100.00 元）",
        ),
        ({"amount": "1e300"}, "第 3 行「成交金额」：1e+300 元超过任何账户的金额（上限 1 万亿元）"),
        ({"balance": "1e300"}, "第 3 行「资金余额」：1e+300 元超过任何账户的金额（上限 1 万亿元）"),
        ({"day": "19891229"}, "第 3 行「成交日期」：日期 1989-12-29 早于 A 股开市（1990-12-19）"),
        ({"day": "20250308"}, "第 3 行「成交日期」：2025-03-08 是周六，交易所休市，不可能有成交"),
        ({"day": "20251001"}, "第 3 行「成交日期」：2025-10-01 是国庆节、中秋节，交易所休市，不可能有成交"),
        ({"day": "99991231"}, "第 3 行的日期 9999-12-31 晚于今天（2025-12-19）"),
    ],
)
def test_a_row_no_statement_could_mean_is_refused_with_its_row_and_column(env, tmp_path, cells, message):
    path = statement(tmp_path, "交割单.csv", DEPOSIT, row(**cells))
    assert fails(env, "trades", "import", str(path)) == f"错误：{message}{REFUSED}"
    assert fills(env) == [] and cash(env) is None


def test_with_skip_bad_the_refused_rows_are_listed_and_the_rest_imported(env, tmp_path):
    sale = {"action": "卖出", "quantity": "40", "amount": "60000.00", "change": "59995.00"}
    path = statement(
        tmp_path,
        "交割单.csv",
        DEPOSIT,  # line 2
        row(),  # line 3: 100 bought, balance 849,995
        row(day="20250308", number="1002", balance="699990.00"),  # line 4: a Saturday
        row(quantity="1e300", number="1003", balance="549985.00"),  # line 5
        row(day="99991231", number="1004", balance="1.00"),  # line 6: its balance must not become the cash
        row(day="20250304", number="1005", balance="909990.00", **sale),  # line 7: 40 sold, +59,995
    )
    done = run(env, "trades", "import", str(path), "--skip-bad")
    assert "已新增 3 笔" in done
    assert "已跳过有误的行：第 4 行「成交日期」：2025-03-08 是周六，交易所休市，不可能有成交" in done
    assert "已跳过有误的行：第 5 行「成交数量」：1e+300 股超过可能的持股数量" in done
    assert "已跳过有误的行：第 6 行的日期 9999-12-31 晚于今天（2025-12-19）" in done
    # 100 − 40 = 60 shares; diluted cost (150,005 − 59,995) / 60 = 1,500.1667
    assert held(env) == {"600519": (60, 1500.1667)}
    assert cash(env) == 909990.0  # the sale's balance, never the 9999 row's
    run(env, "cash", "set", "12345")  # said later: it wins
    assert cash(env) == 12345.0


def test_a_full_width_code_is_the_ascii_stock_and_export_import_never_doubles(env, tmp_path, pixiu_home):
    wide = statement(tmp_path, "a.csv", DEPOSIT, row(code="６００５１９", quantity="１００"))
    narrow = statement(tmp_path, "b.csv", row(day="20250304", number="1002", balance="699990.00"))
    run(env, "trades", "import", str(wide))
    run(env, "trades", "import", str(narrow))
    before = account(env)
    assert {h["symbol"]: h["shares"] for h in before["holdings"]} == {"600519": 200}
    exported = tmp_path / "export.json"
    run(env, "export", "-o", str(exported))
    run(env, "import", str(exported))  # into the same home: every fill already there
    target = tmp_path / "target"
    target.mkdir()
    other = clean_env(target, PIXIU_NOW="2025-12-19T16:00")
    run(other, "import", str(exported))
    assert account(env) == before and account(other)["holdings"] == before["holdings"]


# columns shifted by a comma, and names -----------------------------------------------------------
def test_a_row_a_comma_shifted_is_refused_and_never_sets_cash(env, tmp_path):
    shifted = row(name="贵州,茅台", number="1001")  # unquoted: 17 cells under 16 columns
    path = statement(tmp_path, "交割单.csv", DEPOSIT, shifted)
    message = fails(env, "trades", "import", str(path))
    assert message == f"错误：第 3 行有 17 列，表头只有 16 列（字段中有未加引号的逗号？各列已错位）{REFUSED}"
    done = run(env, "trades", "import", str(path), "--skip-bad")
    assert "已跳过有误的行：第 3 行有 17 列" in done
    assert held(env) == {} and cash(env) == 1000000.0  # the deposit's balance, not a shifted cell


def test_a_quoted_comma_in_a_name_reads_as_one_field(env, tmp_path):
    path = statement(tmp_path, "交割单.csv", DEPOSIT, row(name='"贵州,茅台"'))
    run(env, "trades", "import", str(path))
    assert held(env) == {"600519": (100, 1500.05)} and cash(env) == 849995.0


def test_the_names_shown_are_the_security_masters_never_the_statements(env, tmp_path):
    formula = '"=HYPERLINK(""http://example.invalid"",""茅台"")"'
    path = statement(
        tmp_path,
        "交割单.csv",
        DEPOSIT,
        row(name=formula),
        row(code="000333", name="平安银行", number="1002", price="70.000", amount="7000.00", change="-7005.00",
            balance="842990.00"),
        row(code="689999", name=formula, number="1003", price="10.000", amount="1000.00", change="-1005.00",
            balance="841985.00"),
    )  # fmt: skip
    run(env, "trades", "import", str(path))
    names = {h["symbol"]: h["name"] for h in account(env)["holdings"]}
    # the shipped security list names 600519 and 000333; 689999 it does not know: its code
    assert names == {"600519": "贵州茅台", "000333": "美的集团", "689999": "689999"}
    listed = {f["symbol"]: f["name"] for f in fills(env) if f["symbol"]}
    assert listed == {"600519": "贵州茅台", "000333": "美的集团", "689999": None}
    shown = run(env, "trades")
    assert "HYPERLINK" not in shown and "平安银行" not in shown and "600519 贵州茅台" in shown
