"""New shares paid for in one monthly statement and credited in the next: `pixiu trades import`
of the two files, in either order, leaves one allotment at the price paid, and every surface
(holdings, the context block, the brief, get_holdings, MCP, export) shows the same figures."""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

import pytest

from tests.helpers import clean_env, every_surface, in_process_ok, surfaces_agree, without_risk

NOW = "2025-08-20T16:00:00"
HEADER = "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,发生金额,资金余额,合同编号,股东代码"
MARCH = (
    "20250303,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,100000.00,100000.00,,",
    '20250304,14:20:30,="600036",招商银行,买入,1000,42.500,42500.00,12.75,0.00,0.43,0.00,-42513.18,57486.82,1002,A123456789',
    # the money for 500 new shares leaves on the last days of March ...
    '20250328,15:00:00,="603375",盛景微,新股申购确认缴款,500,10.500,5250.00,0.00,0.00,0.00,0.00,-5250.00,52236.82,,A123456789',
)
APRIL = (
    # ... the shares arrive, at 0, in April's statement, and 200 of them are sold
    '20250408,15:00:00,="603375",盛景微,新股入帐,500,0.000,0.00,0.00,0.00,0.00,0.00,0.00,52236.82,,A123456789',
    '20250415,10:30:00,="603375",盛景微,卖出,200,15.000,3000.00,5.00,1.50,0.03,0.00,2993.47,55230.29,2001,A123456789',
)
# A 通达信 交割单 books the payment without its shares (quantity 0): alone it is no allotment
TDX_HEADER = "交割日期,业务名称,证券代码,证券名称,成交数量,成交价格,成交金额,佣金,印花税,过户费,其他费,发生金额,剩余金额,股东代码,成交编号"
TDX_MARCH = (
    "20250303,银行转证券,,,0,0.000,0.00,0.00,0.00,0.00,0.00,100000.00,100000.00,,",
    "20250328,新股申购确认缴款,001395,亚联机械,0,0.000,0.00,0.00,0.00,0.00,0.00,-8440.00,91560.00,0123456789,",
)
TDX_APRIL = (
    "20250408,新股入帐,001395,亚联机械,500,0.000,0.00,0.00,0.00,0.00,0.00,0.00,91560.00,0123456789,",
    "20250415,证券卖出,001395,亚联机械,200,20.000,4000.00,5.00,2.00,0.04,0.00,3992.96,95552.96,0123456789,T2001",
)


def statement(folder: Path, name: str, header: str, rows: tuple[str, ...]) -> Path:
    path = folder / name
    path.write_bytes(("\r\n".join([header, *rows]) + "\r\n").encode("gbk"))
    return path


def months(tmp_path: Path, layout: str) -> tuple[Path, Path]:
    if layout == "ths":
        return statement(tmp_path, "2025-03.csv", HEADER, MARCH), statement(tmp_path, "2025-04.csv", HEADER, APRIL)
    return (
        statement(tmp_path, "2025-03.csv", TDX_HEADER, TDX_MARCH),
        statement(tmp_path, "2025-04.csv", TDX_HEADER, TDX_APRIL),
    )


def closes(tmp_path: Path, symbol: str, close: float) -> Path:
    path = tmp_path / f"{symbol}.csv"
    rows = [f"2025-08-{day},{close},{close},{close},{close},1000.0,0" for day in (13, 14, 15)]
    path.write_text("datetime,open,high,low,close,volume,openinterest\n" + "\n".join(rows) + "\n")
    return path


def imported(tmp_path: Path, files: tuple[Path, ...], name: str) -> tuple[dict, Path, list[str]]:
    home = tmp_path / name
    env = clean_env(home, PIXIU_NOW=NOW)
    for symbol, close in (("603375", 18.0), ("001395", 21.5), ("600036", 44.1)):
        in_process_ok(env, "data", "import", str(closes(tmp_path, symbol, close)), "--symbol", symbol, "--no-refresh")
    said = [in_process_ok(env, "trades", "import", str(path)) for path in files]
    return env, home, said


def ipo_fills(env, symbol: str) -> list[tuple]:
    listed = json.loads(in_process_ok(env, "trades", "list", symbol, "--json"))
    return [(t["day"], t["kind"], t["quantity"], t["price"], t["amount"]) for t in listed]


def mcp_holdings(env) -> dict:
    from pixiu_cli.kernel.settings import load_settings
    from pixiu_cli.mcp.reads import Reader, holdings

    with mock.patch.dict(os.environ, env, clear=True):
        return holdings(Reader(load_settings()))["account"]


def exported(env) -> tuple[dict, list[tuple]]:
    """`pixiu export`'s holdings (shares, cost to 4 places as shown) and its fills."""
    document = json.loads(in_process_ok(env, "export"))
    keep = ("day", "kind", "symbol", "quantity", "price", "amount", "fees", "cash_change", "balance", "fill_id")
    holdings = {h["symbol"]: (h["shares"], round(h["cost"], 4)) for h in document["holdings"]}
    return holdings, sorted(tuple(f.get(k) for k in keep) for f in document["account"]["fills"])


@pytest.mark.parametrize(
    "layout, symbol, expected",
    [
        # 500 paid 5,250.00 (10.50 a share); 200 sold at 15: 3,000 − 5.00 − 1.50 − 0.03 = 2,993.47,
        # whose cost is 200 × 10.50 = 2,100: realised 893.47; 300 left, 摊薄 (5,250 − 2,993.47) / 300
        ("ths", "603375", {"shares": 300.0, "realised_pnl": 893.47, "cost": 7.5218, "average_cost": 10.5}),
        # 500 paid 8,440.00 (16.88); 200 sold at 20: 4,000 − 7.04 = 3,992.96, cost 3,376: realised 616.96;
        # 300 left, 摊薄 (8,440 − 3,992.96) / 300 = 14.8235
        ("tdx", "001395", {"shares": 300.0, "realised_pnl": 616.96, "cost": 14.8235, "average_cost": 16.88}),
    ],
)
def test_an_ipo_split_across_two_monthly_statements_is_one_lot_in_either_order(tmp_path, layout, symbol, expected):
    march, april = months(tmp_path, layout)
    accounts = {}
    for order in ((march, april), (april, march)):
        env, home, said = imported(tmp_path, order, "-".join(p.stem for p in order))
        assert not any("按成本 0" in s for s in said), said
        if order[0] == march and layout == "tdx":  # the money alone: no shares yet, said
            assert "新股 001395 亚联机械 2025-03-28 缴款 8,440.00：股份尚未入账" in said[0], said
        if order[0] == april or layout == "tdx":  # the stored half changes: the import says so
            assert "与之前导入的缴款或入账合为一笔" in said[1], said
        record, block, facts, tool = every_surface(env, home, NOW)
        surfaces_agree(record, block, facts, tool)
        assert without_risk(mcp_holdings(env)) == record
        (held,) = [h for h in record["holdings"] if h["symbol"] == symbol]
        assert {k: held[k] for k in expected} == expected
        paid = 8440.0 if layout == "tdx" else 5250.0
        assert ipo_fills(env, symbol)[0] == ("2025-03-28", "新股入账", 500.0, paid / 500, paid)
        assert len(ipo_fills(env, symbol)) == 2  # the allotment and the sale
        holdings, fills = exported(env)
        assert holdings == {h["symbol"]: (h["shares"], h["cost"]) for h in record["holdings"]}
        accounts[order] = (record, fills)
        # either file again adds nothing
        for path in order:
            assert "新增 0 笔" in in_process_ok(env, "trades", "import", str(path))
        again = json.loads(in_process_ok(env, "holdings", "--json"))
        assert again.pop("risk")["industries"] and again == record  # every_surface leaves the risk out
    (first, second) = accounts.values()
    assert first == second


def test_money_left_under_the_subscription_code_and_shares_arrived_under_the_listing_code(tmp_path):
    # 华泰/中信: 中签缴款 under 732999 in June's statement, 新股入帐 under 603999 in July's
    june = statement(
        tmp_path,
        "2025-06.csv",
        HEADER,
        (
            "20250603,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,100000.00,100000.00,,",
            '20250627,15:00:00,="732999",某某申购,中签缴款,1000,12.340,12340.00,0.00,0.00,0.00,0.00,-12340.00,87660.00,,A123456789',
        ),
    )
    july = statement(
        tmp_path,
        "2025-07.csv",
        HEADER,
        (
            '20250708,15:00:00,="603999",某某股份,新股入帐,1000,0.000,0.00,0.00,0.00,0.00,0.00,0.00,87660.00,,A123456789',
        ),
    )
    records = []
    for order in ((june, july), (july, june)):
        env, _, said = imported(tmp_path, order, "-".join(p.stem for p in order))
        record = json.loads(in_process_ok(env, "holdings", "--json"))
        # one holding, under the code it trades as, at 12,340 / 1,000 = 12.34; none left under 732999
        assert [(h["symbol"], h["shares"], h["cost"]) for h in record["holdings"]] == [("603999", 1000.0, 12.34)]
        assert ipo_fills(env, "732999") == []
        assert [h["symbol"] for h in json.loads(in_process_ok(env, "export"))["holdings"]] == ["603999"]
        assert "与之前导入的缴款或入账合为一笔" in said[1]
        records.append(record)
    assert records[0] == records[1]
