"""The clients' statement layouts pixiu knows by name, each by the columns that tell it
apart. Any file whose header maps (columns.py) is read; the name is what the user sees, and
`--broker NAME` checks the file has that client's columns (one client may export more than
one layout: 通达信's 交割单 and 资金对账单)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.account.statements.columns import Columns
from pixiu_cli.account.statements.rows import StatementError


@dataclass(frozen=True)
class Layout:
    key: str
    label: str
    signature: tuple[str, ...]  # header names only this client's export has together


LAYOUTS = (
    Layout("ths", "同花顺交割单", ("成交日期", "操作", "成交均价")),
    Layout("tdx", "通达信交割单", ("交割日期", "业务名称")),
    Layout("tdx", "通达信对账单", ("发生日期", "业务名称", "清算金额")),
    Layout("eastmoney", "东方财富交割单", ("发生日期", "业务名称", "成交价格", "发生金额")),
)
BROKERS = ("auto", *dict.fromkeys(layout.key for layout in LAYOUTS))
GENERIC = "通用对账单"


def _headers(columns: Columns) -> set[str]:
    return {h.replace(" ", "") for h in columns.headers}


def detect_layout(columns: Columns) -> str:
    found = _headers(columns)
    for layout in LAYOUTS:
        if set(layout.signature) <= found:
            return layout.label
    return GENERIC


def require_layout(columns: Columns, broker: str) -> str:
    found = _headers(columns)
    candidates = [x for x in LAYOUTS if x.key == broker]
    missing = {x: [h for h in x.signature if h not in found] for x in candidates}
    closest = min(candidates, key=lambda x: len(missing[x]))
    if missing[closest]:
        listed = "、".join(h for h in columns.headers if h)
        raise StatementError(
            f"这不像{closest.label}：缺少列 {'、'.join(missing[closest])}；文件中的列：{listed}（不确定时用 --broker auto）"
        )
    return closest.label
