"""The columns of a statement: each client names the same field differently (成交日期 or
发生日期, 成交数量 or 发生数量…). A header row is mapped to pixiu's fields by these synonyms."""

from __future__ import annotations

from dataclasses import dataclass

# field → the header names clients use for it, the most specific first
SYNONYMS: dict[str, tuple[str, ...]] = {
    "day": ("成交日期", "发生日期", "交收日期", "清算日期", "业务日期", "交易日期", "日期"),
    "time": ("成交时间", "发生时间", "委托时间", "时间"),
    "symbol": ("证券代码", "股票代码", "代码"),
    "name": ("证券名称", "股票名称", "名称"),
    "action": ("操作", "业务名称", "买卖标志", "摘要", "业务类型", "委托类别", "买卖方向", "交易类别", "操作类型"),
    "quantity": ("成交数量", "发生数量", "成交股数", "数量"),
    "price": ("成交均价", "成交价格", "成交价", "价格"),
    "amount": ("成交金额",),
    "commission": ("手续费", "佣金", "净佣金"),
    "stamp": ("印花税",),
    "transfer": ("过户费",),
    "other": ("其他杂费", "规费", "其他费", "其他费用", "交易规费", "经手费", "证管费"),
    "cash_change": ("发生金额", "清算金额", "收付金额", "资金发生数", "变动金额"),
    "balance": ("资金余额", "剩余金额", "本次余额", "资金本次余额"),
    "contract": ("合同编号", "委托编号"),
    "trade_no": ("成交编号",),
    "account": ("股东代码", "股东帐户", "股东账户", "证券账户"),
}
FEE_FIELDS = ("commission", "stamp", "transfer", "other")

FIELD_NAMES = {field: names[0] for field, names in SYNONYMS.items()}
_BY_HEADER = {name: field for field, names in SYNONYMS.items() for name in names}

REQUIRED = ("day", "action")
NEEDS_ONE_OF = ("quantity", "cash_change", "amount")


def _field(header: str) -> str | None:
    text = header.replace(" ", "")
    for unit in ("(元)", "（元）", "(股)", "（股）"):
        text = text.removesuffix(unit)
    return _BY_HEADER.get(text)


@dataclass(frozen=True)
class Columns:
    index: dict[str, int]  # field → its cell's position
    headers: tuple[str, ...]  # as the file spells them

    def has(self, field: str) -> bool:
        return field in self.index

    def complete(self) -> bool:
        return all(self.has(f) for f in REQUIRED) and any(self.has(f) for f in NEEDS_ONE_OF)


def map_header(cells: tuple[str, ...]) -> Columns:
    index: dict[str, int] = {}
    for i, cell in enumerate(cells):
        field = _field(cell)
        if field and field not in index:
            index[field] = i
    return Columns(index, cells)


def looks_like_header(cells: tuple[str, ...]) -> bool:
    return map_header(cells).complete()


def needed_text() -> str:
    day = "/".join(SYNONYMS["day"][:2])
    action = "/".join(SYNONYMS["action"][:4])
    amounts = "、".join("/".join(SYNONYMS[f][:2]) for f in NEEDS_ONE_OF)
    return f"{day}、{action}，以及 {amounts} 之一"
