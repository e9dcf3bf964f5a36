"""What a statement row's business name (业务名称 / 操作 / 摘要) means: a kind of fill, a
row pixiu does not count (with the reason, reported), or a name pixiu does not know
(listed with its count, never dropped unseen).

The names are the ones mainland clients write: 通达信, 同花顺, 东方财富 and the brokers'
own exports (华泰, 中信, 招商, 国泰君安 …) name one business many ways (股息红利税补缴,
股息红利差异扣税, 红利差异税扣税, 股息个税征收 …)."""

from __future__ import annotations

import re
from functools import lru_cache

from pixiu_cli.account.model import (
    ALLOTMENT,
    BONUS,
    BUY,
    DIVIDEND,
    DIVIDEND_TAX,
    FEE,
    FILL_KINDS,
    INTEREST,
    IPO_PAYMENT,
    RIGHTS,
    SELL,
    TRANSFER_IN,
    TRANSFER_OUT,
)

_REPO = "国债逆回购（借出的资金在资金余额中）"
_SUBSCRIPTION = "新股申购、配号或退款（中签后按新股入账计入）"
_RIGHTS_SHARES = "配股股份到账（已按配股缴款计入）"
_CASH_PRODUCT = "现金理财或货币基金申赎（资金在资金余额中）"
_FROZEN = "资金或证券冻结、解冻（资金在资金余额中）"
_CORRECTION = "资金冲正（已在资金余额中）"

# The money paid for new shares (新股申购确认缴款, 中签缴款 …) on its own row is IPO_PAYMENT:
# ipo.py pairs it with the row that credits the shares (新股入帐).
# Checked in order, the first pattern the name contains wins: the longer business before
# the word it contains (新股申购确认缴款 before 申购, 股息红利扣税 before 股息, 配股缴款
# before 缴款, 利息税 before 利息). A str is the reason a row is skipped.
_RULES: tuple[tuple[str, str], ...] = (
    ("确认缴款", IPO_PAYMENT),
    ("中签缴款", IPO_PAYMENT),
    ("缴中签款", IPO_PAYMENT),
    ("中签扣款", IPO_PAYMENT),
    ("中签款", IPO_PAYMENT),
    ("中签资金", IPO_PAYMENT),
    ("中签成本", IPO_PAYMENT),
    ("配售缴款", IPO_PAYMENT),
    ("申购中签", IPO_PAYMENT),
    ("中签通知", IPO_PAYMENT),
    ("新股入", ALLOTMENT),
    ("中签入", ALLOTMENT),
    ("配股缴款", RIGHTS),
    ("配股认购", RIGHTS),
    ("配股入", _RIGHTS_SHARES),
    ("配股上市", _RIGHTS_SHARES),
    ("配股权证", "配股权证到账（认购时按配股缴款计入）"),
    ("配股", RIGHTS),
    ("回购", _REPO),
    ("购回", _REPO),
    ("拆出", _REPO),
    ("基金资金拨", _CASH_PRODUCT),
    ("保证金产品", _CASH_PRODUCT),
    ("货币基金", _CASH_PRODUCT),
    ("申购", _SUBSCRIPTION),
    ("配号", _SUBSCRIPTION),
    ("撤单", "撤单"),
    ("指定", "指定交易"),
    ("冻结", _FROZEN),
    ("红冲", _CORRECTION),
    ("蓝补", _CORRECTION),
    ("红利税", DIVIDEND_TAX),
    ("股息税", DIVIDEND_TAX),
    ("差异税", DIVIDEND_TAX),
    ("差别税", DIVIDEND_TAX),
    ("红利差异", DIVIDEND_TAX),
    ("扣税", DIVIDEND_TAX),
    ("个税", DIVIDEND_TAX),
    ("所得税", DIVIDEND_TAX),
    ("利息税", FEE),  # after 红利税, which contains 利税
    ("利税", FEE),
    ("红股", BONUS),
    ("送股", BONUS),
    ("转增", BONUS),
    ("股息", DIVIDEND),
    ("红利", DIVIDEND),
    ("派息", DIVIDEND),
    ("分红", DIVIDEND),
    ("银证转入", TRANSFER_IN),
    ("银行转证券", TRANSFER_IN),
    ("银行转存", TRANSFER_IN),
    ("银行转入", TRANSFER_IN),
    ("银证转帐存", TRANSFER_IN),
    ("银证转账存", TRANSFER_IN),
    ("入金", TRANSFER_IN),
    ("银证转出", TRANSFER_OUT),
    ("证券转银行", TRANSFER_OUT),
    ("银行转取", TRANSFER_OUT),
    ("银行转出", TRANSFER_OUT),
    ("银证转帐取", TRANSFER_OUT),
    ("银证转账取", TRANSFER_OUT),
    ("出金", TRANSFER_OUT),
    ("利息", INTEREST),
    ("结息", INTEREST),
    ("扣费", FEE),
    ("扣收", FEE),
    ("收费", FEE),
    ("组合费", FEE),
    ("卖", SELL),
    ("买", BUY),
)
_COUNTED = {*FILL_KINDS, IPO_PAYMENT}

# 国债逆回购 codes (上交所 204xxx, 深交所 1318xx): a "sell" of one lends cash overnight
REPO_CODE = re.compile(r"204\d{3}|1318\d{2}")
REPO_REASON = _REPO


@lru_cache(maxsize=4096)  # a statement repeats a few business names over every row
def kind_of(action: str) -> tuple[str | None, str | None]:
    """(kind, None) for a counted row, (None, reason) for a skipped one, (None, None) for a
    name pixiu does not know."""
    text = action.replace(" ", "")
    for pattern, meaning in _RULES:
        if pattern in text:
            return (meaning, None) if meaning in _COUNTED else (None, meaning)
    return None, None
