"""Statements as mainland brokers really write them: the business names and headers of
通达信, 同花顺, 东方财富 and the brokers' own exports (华泰, 中信, 招商, 国泰君安 …); the
direction of every cash flow from the row's sign; new shares paid on one row and credited
on another; unknown names counted; rows after today refused; statements without a
balance column. Every figure below is worked out by hand in the test."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from pixiu_cli.account.ledger import positions
from pixiu_cli.account.model import (
    ALLOTMENT,
    BONUS,
    BUY,
    DIVIDEND,
    DIVIDEND_TAX,
    FEE,
    INTEREST,
    RIGHTS,
    SELL,
    TRANSFER_IN,
    TRANSFER_OUT,
)
from pixiu_cli.account.statements.reader import read_statement
from pixiu_cli.account.statements.rows import IPO_PAYMENT, StatementError, kind_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
TDX_JGD = FIXTURES / "tdx_jiaogedan.csv"
THS_NO_BALANCE = FIXTURES / "ths_jiaogedan_no_balance.csv"
TODAY = date(2025, 8, 20)
# a 通达信-style 交割单 header; rows below give its cells in this order
HEADER = "交割日期,业务名称,证券代码,证券名称,成交数量,成交价格,成交金额,佣金,印花税,过户费,发生金额,剩余金额,股东代码"


def read(path: Path, **options):
    return read_statement(path, today=TODAY, **options)


def statement_file(tmp_path: Path, *rows: str, header: str = HEADER, name: str = "jgd.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(("\r\n".join([header, *rows]) + "\r\n").encode("gbk"))
    return path


def essence(statement):
    return [(f.day, f.kind, f.symbol, f.quantity, f.price, f.amount, f.cash_change) for f in statement.fills]


@pytest.mark.parametrize(
    "name, kind",
    [
        # dividend taxes, as the brokers' exports name them: cash out, on a holding
        ("股息红利扣税", DIVIDEND_TAX),
        ("红利差异税扣税", DIVIDEND_TAX),
        ("股息个税征收", DIVIDEND_TAX),
        ("股息红利差异扣税", DIVIDEND_TAX),
        ("红利税补缴", DIVIDEND_TAX),
        ("股息红利税补缴", DIVIDEND_TAX),
        ("股息红利税补", DIVIDEND_TAX),
        ("红利差异税补扣", DIVIDEND_TAX),
        ("股息差别税", DIVIDEND_TAX),
        ("股息红利差异", DIVIDEND_TAX),
        ("上海市场股息红利个人所得税扣款", DIVIDEND_TAX),
        # taxes on interest belong to no stock
        ("销户利息税支出", FEE),
        ("批量利税代扣", FEE),
        ("股息入帐", DIVIDEND),
        ("红利入账", DIVIDEND),
        ("基金红利拨入", DIVIDEND),
        ("红股入帐", BONUS),
        ("基金红股", BONUS),
        ("新股入帐", ALLOTMENT),
        ("新股入账", ALLOTMENT),
        ("新股申购确认缴款", IPO_PAYMENT),
        ("中签缴款", IPO_PAYMENT),
        ("缴中签款", IPO_PAYMENT),
        ("市值申购中签扣款", IPO_PAYMENT),
        ("市值申购中签扣款回冲", IPO_PAYMENT),
        ("新股中签资金扣款", IPO_PAYMENT),
        ("配售缴款", IPO_PAYMENT),
        ("配股缴款", RIGHTS),
        ("证券买入清算", BUY),
        ("担保品买入", BUY),
        ("证券卖出", SELL),
        ("银行转存", TRANSFER_IN),
        ("银证转帐存", TRANSFER_IN),
        ("银行转取", TRANSFER_OUT),
        ("批量利息归本", INTEREST),
        ("偿还融资利息", INTEREST),  # a charge: its row's minus sign makes it a fee (signs.py)
        ("港股通组合费收取", FEE),
        ("前台收费", FEE),
    ],
)
def test_business_names_brokers_write(name, kind):
    assert kind_of(name) == (kind, None)


@pytest.mark.parametrize(
    "name, reason",
    [
        ("申购配号", "新股申购、配号或退款（中签后按新股入账计入）"),
        ("申购返款", "新股申购、配号或退款（中签后按新股入账计入）"),
        ("质押回购拆出", "国债逆回购（借出的资金在资金余额中）"),
        ("拆出质押购回", "国债逆回购（借出的资金在资金余额中）"),
        ("基金资金拨出", "现金理财或货币基金申赎（资金在资金余额中）"),
        ("交收资金冻结取消", "资金或证券冻结、解冻（资金在资金余额中）"),
        ("配股权证", "配股权证到账（认购时按配股缴款计入）"),
        ("配股入帐", "配股股份到账（已按配股缴款计入）"),
    ],
)
def test_known_rows_pixiu_does_not_count_say_why(name, reason):
    assert kind_of(name) == (None, reason)


def test_a_name_pixiu_does_not_know_is_neither():
    assert kind_of("转托管转入") == (None, None)


def test_every_dividend_tax_is_cash_out_with_the_rows_sign(tmp_path):
    names = ("股息红利扣税", "红利差异税扣税", "股息个税征收", "股息红利差异扣税", "红利税补缴")
    path = statement_file(
        tmp_path,
        "20250303,证券买入,600900,长江电力,1000,28.000,28000.00,5.00,0.00,0.28,-28005.28,71994.72,A1",
        "20250520,股息入帐,600900,长江电力,0,0,0,0,0,0,950.00,72944.72,A1",
        *(f"2025060{i + 1},{n},600900,长江电力,0,0,0,0,0,0,-{i + 1}.10,,A1" for i, n in enumerate(names)),
    )
    statement = read(path)
    taxes = [f for f in statement.fills if f.kind == DIVIDEND_TAX]
    # the five taxes: 1.10, 2.10, 3.10, 4.10, 5.10 out, each as its 发生金额 says
    assert [(f.amount, f.cash_change) for f in taxes] == [
        (1.1, -1.1),
        (2.1, -2.1),
        (3.1, -3.1),
        (4.1, -4.1),
        (5.1, -5.1),
    ]
    held = positions(statement.fills)["600900"]
    # net dividends 950 − (1.10 + 2.10 + 3.10 + 4.10 + 5.10) = 950 − 15.50 = 934.50; money in
    # 28,005.28 − 934.50 = 27,070.78 over 1,000 shares
    assert held.dividends == Decimal("934.5") and round(held.diluted_cost, 4) == Decimal("27.0708")


def test_the_rows_sign_decides_the_direction(tmp_path):
    path = statement_file(
        tmp_path,
        "20250303,证券买入,600900,长江电力,1000,28.000,28000.00,5.00,0.00,0.28,-28005.28,71994.72,A1",
        "20250520,股息入帐,600900,长江电力,0,0,0,0,0,0,950.00,72944.72,A1",
        # a dividend booked back (−) and a tax refunded (+): the sign, not the name
        "20250521,红利入账,600900,长江电力,0,0,0,0,0,0,-50.00,72894.72,A1",
        "20250601,股息红利差异扣税,600900,长江电力,0,0,0,0,0,0,5.00,72899.72,A1",
        "20250602,偿还融资利息,,,0,0,0,0,0,0,-3.20,72896.52,",
        "20250621,利息归本,,,0,0,0,0,0,0,1.00,72897.52,",
    )
    kinds = [(f.kind, f.amount, f.cash_change) for f in read(path).fills[1:]]
    assert kinds == [
        (DIVIDEND, 950.0, 950.0),
        (DIVIDEND_TAX, 50.0, -50.0),
        (DIVIDEND, 5.0, 5.0),
        (FEE, 3.2, -3.2),
        (INTEREST, 1.0, 1.0),
    ]
    # dividends 950 − 50 + 5 = 905
    assert positions(read(path).fills)["600900"].dividends == 905.0


def test_an_unsigned_cash_column_is_signed_by_the_kind(tmp_path):
    """A column that never goes negative although a buy and a tax took money out."""
    path = statement_file(
        tmp_path,
        "20250303,证券买入,600900,长江电力,1000,28.000,28000.00,5.00,0.00,0.28,28005.28,,A1",
        "20250520,股息入帐,600900,长江电力,0,0,0,0,0,0,950.00,,A1",
        "20250601,股息红利差异扣税,600900,长江电力,0,0,0,0,0,0,38.00,,A1",
    )
    assert [(f.kind, f.amount, f.cash_change) for f in read(path).fills] == [
        (BUY, 28000.0, -28005.28),
        (DIVIDEND, 950.0, 950.0),
        (DIVIDEND_TAX, 38.0, -38.0),
    ]


def test_header_synonyms_of_other_brokers(tmp_path):
    """国泰君安-like: 交收日期, 交易类别, 资金发生数, 本次资金余额, 合同号, 股东帐号."""
    header = "交收日期,合同号,股东帐号,证券代码,证券名称,交易类别,成交价格,成交数量,成交金额,资金发生数,本次资金余额,佣金,规费,印花税,过户费"
    path = statement_file(
        tmp_path,
        "20250303,H001,A1,600900,长江电力,上海A股普通股票竞价买入,28.000,1000,28000.00,-28005.28,71994.72,5.00,0.00,0.00,0.28",
        header=header,
    )
    statement = read(path)
    assert essence(statement) == [("2025-03-03", BUY, "600900", 1000.0, 28.0, 28000.0, -28005.28)]
    assert (statement.fills[0].contract, statement.fills[0].account, statement.fills[0].fees) == ("H001", "A1", 5.28)
    assert statement.cash.amount == 71994.72


def test_the_most_specific_header_wins(tmp_path):
    """华泰 writes 业务名称 and 操作; a 交割单 may carry both 成交日期 and 交割日期."""
    header = "交割日期,成交日期,操作,业务名称,证券代码,证券名称,成交数量,成交均价,成交金额,发生金额"
    path = statement_file(
        tmp_path,
        "20250304,20250303,其他,股息红利扣税,600900,长江电力,0,0,0,-12.30",
        "20250304,20250303,买入,证券买入,600900,长江电力,100,28.00,2800.00,-2805.00",
        header=header,
    )
    assert [(f.day, f.kind, f.amount, f.cash_change) for f in read(path).fills] == [
        ("2025-03-03", DIVIDEND_TAX, 12.3, -12.3),
        ("2025-03-03", BUY, 2800.0, -2805.0),
    ]


def test_a_tdx_jiaogedan_reads_to_a_hand_computation():
    statement = read(TDX_JGD)
    assert statement.layout == "通达信交割单"
    assert read(TDX_JGD, broker="tdx").layout == "通达信交割单"
    assert [s.reason for s in statement.skipped] == ["新股申购、配号或退款（中签后按新股入账计入）"]  # 申购配号
    assert (statement.unknown, statement.unpaid) == ({}, ())
    assert statement.accounts == {"A123456789", "0123456789"}
    # 14 rows: 申购配号 skipped, the 新股申购确认缴款 and the 新股入帐 are one allotment
    assert len(statement.fills) == 12
    ipo = [f for f in statement.fills if f.symbol == "001395"]
    # paid 8,440.00 on 2025-03-14 for the 500 shares credited at 0 on 2025-03-25: 16.88 a share
    assert essence(statement)[3] == ("2025-03-14", ALLOTMENT, "001395", 500.0, 16.88, 8440.0, -8440.0)
    assert len(ipo) == 1 and ipo[0].name == "亚联机械" and ipo[0].balance == 20486.72
    held = positions(statement.fills)
    # 600900: buy 1,000 @ 28 + 7.00 + 0.28 = 28,007.28 (basis and money in)
    #   股息 950 → money in 27,057.28, realised 950
    #   sell 400 @ 30: 12,000 − 5.00 − 6.00 − 0.12 = 11,988.88; cost out 28,007.28 × 400/1,000 = 11,202.912
    #     realised 950 + 11,988.88 − 11,202.912 = 1,735.968; basis 16,804.368; money in 15,068.40
    #   股息红利差异扣税 −38.00 → realised 1,697.968, money in 15,106.40, dividends 912
    #   600 shares: 摊薄 15,106.40 / 600 = 25.1773; average 16,804.368 / 600 = 28.0073
    power = held["600900"]
    assert (power.shares, round(power.diluted_cost, 4), round(power.average_cost, 4)) == (
        600,
        Decimal("25.1773"),
        Decimal("28.0073"),
    )
    assert (round(power.realised_pnl, 2), power.dividends) == (Decimal("1697.97"), 912)
    # 000001: buy 2,000 @ 11.53 + 5.77 + 0.23 = 23,066.00; 股息 724 → money in 22,342.00
    #   sell 1,000 @ 12.20: 12,200 − 5.00 − 6.10 − 0.12 = 12,188.78; cost out 11,533.00
    #     realised 724 + 655.78 = 1,379.78; money in 10,153.22
    #   红利差异税扣税 −36.20 → realised 1,343.58, money in 10,189.42 → 摊薄 10.1894, average 11.533
    bank = held["000001"]
    assert (bank.shares, round(bank.diluted_cost, 4), round(bank.average_cost, 4), round(bank.realised_pnl, 2)) == (
        1000,
        Decimal("10.1894"),
        Decimal("11.5330"),
        Decimal("1343.58"),
    )
    assert (held["001395"].shares, held["001395"].average_cost) == (500, Decimal("16.88"))
    # cash: 80,000 − 28,007.28 − 23,066.00 − 8,440 + 950 + 11,988.88 − 38 + 724 + 4.56
    #       + 12,188.78 − 36.20 − 5,000 = 41,268.74, the last 剩余金额
    assert sum(f.cash_change for f in statement.fills) == pytest.approx(41268.74)
    assert (statement.cash.amount, statement.cash.as_of) == (41268.74, "2025-08-15")


_PAID = "20250414,{name},603375,盛景微,500,10.500,5250.00,0,0,0,-5250.00,94750.00,A1"
_CREDITED = "20250422,新股入帐,603375,盛景微,500,0.000,0.00,0,0,0,0.00,94750.00,A1"
_ONE_ALLOTMENT = [("2025-04-14", ALLOTMENT, "603375", 500.0, 10.5, 5250.0, -5250.0, "盛景微")]


@pytest.mark.parametrize(
    "rows, expected",
    [
        # the money (with the shares at the price, or none) on one row, the shares at 0 on
        # the next: the shares once (500, not 1,000), at the price paid, 5,250 / 500 = 10.50
        ([_PAID.format(name="新股申购确认缴款"), _CREDITED], _ONE_ALLOTMENT),
        ([_PAID.format(name="中签缴款").replace("500,10.500,5250.00", "0,0,0"), _CREDITED], _ONE_ALLOTMENT),
        ([_CREDITED, _PAID.format(name="缴中签款")], _ONE_ALLOTMENT),  # listed newest first
        # 华泰/中信: the money leaves under the subscription code (732xxx), the shares arrive
        # under the listing code; the only payment for 1,000 shares is theirs: 12,340 / 1,000
        (
            [
                "20250610,中签缴款,732999,某某申购,1000,0.000,0.00,0,0,0,-12340.00,87660.00,A1",
                "20250618,新股入帐,603999,某某股份,1000,0.000,0.00,0,0,0,0.00,87660.00,A1",
            ],
            [("2025-06-10", ALLOTMENT, "603999", 1000.0, 12.34, 12340.0, -12340.0, "某某股份")],
        ),
        # booked, booked back, booked again: −8,440 + 8,440 − 8,440 = −8,440, paid once
        (
            [
                "20250610,市值申购中签扣款,001395,亚联机械,500,16.880,8440.00,0,0,0,-8440.00,91560.00,B1",
                "20250610,市值申购中签扣款回冲,001395,亚联机械,500,16.880,8440.00,0,0,0,8440.00,100000.00,B1",
                "20250611,市值申购中签扣款,001395,亚联机械,500,16.880,8440.00,0,0,0,-8440.00,91560.00,B1",
                "20250618,新股入帐,001395,亚联机械,500,0.000,0.00,0,0,0,0.00,91560.00,B1",
            ],
            [("2025-06-10", ALLOTMENT, "001395", 500.0, 16.88, 8440.0, -8440.0, "亚联机械")],
        ),
    ],
)
def test_new_shares_paid_on_one_row_and_credited_on_another_are_one_allotment(tmp_path, rows, expected):
    statement = read(statement_file(tmp_path, *rows))
    assert [(*fill, f.name) for fill, f in zip(essence(statement), statement.fills, strict=True)] == expected
    assert statement.skipped == () and statement.unpaid == ()


def test_a_payment_refunded_in_full_is_reported_and_one_without_shares_waits_for_them(tmp_path):
    path = statement_file(
        tmp_path,
        "20250610,市值申购中签扣款,001395,亚联机械,0,0,0,0,0,0,-8440.00,91560.00,0123456789",
        "20250611,市值申购中签扣款回冲,001395,亚联机械,0,0,0,0,0,0,8440.00,100000.00,0123456789",
        "20250612,中签缴款,301999,某某科技,0,0,0,0,0,0,-6000.00,94000.00,0123456789",
    )
    statement = read(path)
    # the 6,000 paid for shares the file does not credit: kept, no shares yet, for a later
    # statement's 新股入帐 to join
    assert essence(statement) == [("2025-06-12", IPO_PAYMENT, "301999", 0.0, 0.0, 6000.0, -6000.0)]
    assert [(s.line, s.reason) for s in statement.skipped] == [
        (2, "新股中签扣款已退回（未成交）"),
        (3, "新股中签扣款已退回（未成交）"),
    ]
    assert statement.cash.amount == 94000.0  # the last row's balance still counts


def test_a_lone_credit_at_zero_stays_at_zero_and_is_reported(tmp_path):
    path = statement_file(tmp_path, "20250422,新股入帐,603375,盛景微,500,0.000,0.00,0,0,0,0.00,100000.00,A1")
    statement = read(path)
    assert essence(statement) == [("2025-04-22", ALLOTMENT, "603375", 500.0, 0.0, 0.0, 0.0)]
    assert statement.unpaid == statement.fills
    assert statement.bad == ()  # not a bad row: nothing vanishes with --skip-bad either


def test_payments_and_credits_without_a_cash_column(tmp_path):
    header = "成交日期,业务名称,证券代码,证券名称,成交数量,成交均价,成交金额"
    path = statement_file(
        tmp_path,
        "20250414,新股申购确认缴款,603375,盛景微,500,10.500,5250.00",
        "20250422,新股入帐,603375,盛景微,500,10.500,5250.00",
        header=header,
    )
    # the 成交金额 of the payment is the money; the credit's is the same shares valued again
    assert essence(read(path)) == [("2025-04-14", ALLOTMENT, "603375", 500.0, 10.5, 5250.0, None)]


def test_unknown_business_names_are_counted(tmp_path):
    path = statement_file(
        tmp_path,
        "20250303,银行转存,,,0,0,0,0,0,0,100000.00,100000.00,",
        "20250304,转托管转入,600900,长江电力,1000,0,0,0,0,0,0,100000.00,A1",
        "20250305,融资融券划转,,,0,0,0,0,0,0,0,100000.00,",
        "20250306,转托管转入,000001,平安银行,500,0,0,0,0,0,0,100000.00,0123",
        "20250307,配股入帐,600900,长江电力,300,0,0,0,0,0,0,100000.00,A1",
    )
    statement = read(path)
    assert statement.unknown == {"转托管转入": 2, "融资融券划转": 1}  # the most first
    assert [s.reason for s in statement.skipped] == ["配股股份到账（已按配股缴款计入）"]
    assert len(statement.fills) == 1


def test_a_row_dated_after_today_is_refused_with_its_row(tmp_path):
    path = statement_file(
        tmp_path,
        "20250303,银行转存,,,0,0,0,0,0,0,100000.00,100000.00,",
        "20270601,银行转存,,,0,0,0,0,0,0,50000.00,150000.00,",
    )
    with pytest.raises(StatementError) as caught:
        read(path)
    assert str(caught.value) == (
        "第 3 行的日期 2027-06-01 晚于今天（2025-08-20）；未导入任何内容（加 --skip-bad 可跳过有误的行）"
    )
    skipped = read(path, skip_bad=True)
    assert [b.line for b in skipped.bad] == [3] and len(skipped.fills) == 1
    assert (skipped.cash.amount, skipped.cash.as_of) == (100000.0, "2025-03-03")  # never the 2027 balance
    # on that day itself the row is no future
    assert read_statement(path, today=date(2027, 6, 1)).cash.amount == 150000.0


def test_a_statement_without_a_balance_column_states_no_cash():
    statement = read(THS_NO_BALANCE)
    assert statement.layout == "同花顺交割单" and statement.cash is None
    # the fills keep the signed 发生金额: −7,255.07 + 13,488.11 − 5,000 = 1,233.04
    assert [(f.kind, f.cash_change, f.balance) for f in statement.fills] == [
        (BUY, -7255.07, None),
        (SELL, 13488.11, None),
        (TRANSFER_OUT, -5000.0, None),
    ]
    assert sum(f.cash_change for f in statement.fills) == pytest.approx(1233.04)


def test_a_statement_without_a_cash_column_has_no_cash_change(tmp_path):
    header = "成交日期,操作,证券代码,证券名称,成交数量,成交均价,成交金额"
    path = statement_file(tmp_path, "20250303,买入,600900,长江电力,100,28.00,2800.00", header=header)
    statement = read(path)
    assert statement.fills[0].cash_change is None and statement.cash is None


def test_an_unreadable_balance_never_sets_cash(tmp_path):
    path = statement_file(
        tmp_path,
        "20250303,银行转存,,,0,0,0,0,0,0,100000.00,100000.00,",
        "20250304,银行转存,,,0,0,0,0,0,0,500.00,1OO500.00,",
    )
    with pytest.raises(StatementError, match="第 3 行「剩余金额」：不是数字 '1OO500.00'"):
        read(path)
    partial = read(path, skip_bad=True)
    assert (partial.cash.amount, partial.cash.as_of) == (100000.0, "2025-03-03")
