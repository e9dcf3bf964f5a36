"""What a statement row's business name (操作 / 业务名称 / 摘要) means: a kind of fill, or
a row pixiu does not count, with the reason it is skipped (reported, never dropped unseen)."""

from __future__ import annotations

import re

from pixiu_cli.domain.account import (
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

# Checked in order: the first pattern the name contains wins (股息红利税补缴 before 股息).
_KINDS: tuple[tuple[str, str], ...] = (
    ("红利税", DIVIDEND_TAX),
    ("差异扣税", DIVIDEND_TAX),
    ("股息税", DIVIDEND_TAX),
    ("配股缴款", RIGHTS),
    ("配股认购", RIGHTS),
    ("配股", RIGHTS),
    ("红股", BONUS),
    ("送股", BONUS),
    ("转增", BONUS),
    ("股息", DIVIDEND),
    ("红利", DIVIDEND),
    ("派息", DIVIDEND),
    ("新股入", ALLOTMENT),
    ("申购中签", ALLOTMENT),
    ("中签入", ALLOTMENT),
    ("银证转入", TRANSFER_IN),
    ("银行转证券", TRANSFER_IN),
    ("银行转存", TRANSFER_IN),
    ("银证转出", TRANSFER_OUT),
    ("证券转银行", TRANSFER_OUT),
    ("银行转取", TRANSFER_OUT),
    ("利息", INTEREST),
    ("结息", INTEREST),
    ("扣费", FEE),
    ("扣收", FEE),
    ("卖", SELL),
    ("买", BUY),
)

# Rows that move nothing pixiu counts (the cash they move shows in the balance column).
_SKIPPED: tuple[tuple[str, str], ...] = (
    ("回购", "国债逆回购（借出的资金在资金余额中）"),
    ("购回", "国债逆回购（借出的资金在资金余额中）"),
    ("配股入", "配股股份到账（已按配股缴款计入）"),
    ("配股上市", "配股股份到账（已按配股缴款计入）"),
    ("申购", "新股申购、配号或退款（中签后按新股入账计入）"),
    ("配号", "新股申购、配号或退款（中签后按新股入账计入）"),
    ("中签缴款", "新股中签缴款（股份按新股入账计入）"),
    ("撤单", "撤单"),
    ("指定", "指定交易"),
)


# 国债逆回购 codes (上交所 204xxx, 深交所 1318xx): a "sell" of one lends cash overnight
REPO_CODE = re.compile(r"204\d{3}|1318\d{2}")
REPO_REASON = "国债逆回购（借出的资金在资金余额中）"


def kind_of(action: str) -> tuple[str | None, str | None]:
    """(kind, None) for a counted row, (None, reason) for a skipped one."""
    text = action.replace(" ", "")
    for pattern, reason in _SKIPPED:
        if pattern in text and not ("新股入" in text or "申购中签" in text):
            return None, reason
    for pattern, kind in _KINDS:
        if pattern in text:
            return kind, None
    return None, f"未识别的业务「{text or '（空）'}」"
