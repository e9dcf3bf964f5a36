"""The columns of a statement: each client names the same field differently (成交日期,
交割日期 or 发生日期; 发生金额, 清算金额 or 资金发生数…). A header row is mapped to pixiu's
fields by these synonyms."""

from __future__ import annotations

from dataclasses import dataclass

# field → the header names clients use for it, the most specific first: a header that has
# two of them (成交日期 and 交割日期, 业务名称 and 操作) is read by the first
SYNONYMS: dict[str, tuple[str, ...]] = {
    "day": ("成交日期", "交割日期", "发生日期", "交收日期", "清算日期", "业务日期", "交易日期", "委托日期", "日期"),
    "time": ("成交时间", "发生时间", "委托时间", "时间"),
    "symbol": ("证券代码", "股票代码", "证券代号", "代码"),
    "name": ("证券名称", "股票名称", "证券简称", "名称"),
    "action": (
        "业务名称",
        "操作",
        "买卖标志",
        "摘要",
        "业务类型",
        "业务标志",
        "委托类别",
        "买卖方向",
        "交易类别",
        "交易类型",
        "操作类型",
    ),
    "quantity": ("成交数量", "发生数量", "成交股数", "发生数", "数量"),
    "price": ("成交均价", "成交价格", "成交价", "价格"),
    "amount": ("成交金额",),
    "commission": ("手续费", "佣金", "净佣金", "实收佣金"),
    "stamp": ("印花税",),
    "transfer": ("过户费",),
    "other": ("其他杂费", "规费", "其他费", "其他费用", "交易规费", "经手费", "证管费", "结算费", "清算费"),
    "cash_change": ("发生金额", "清算金额", "收付金额", "资金发生数", "资金发生额", "变动金额", "应收金额"),
    "balance": ("资金余额", "剩余金额", "本次余额", "资金本次余额", "本次资金余额", "本次金额", "可用金额"),
    "contract": ("合同编号", "委托编号", "合同号"),
    "trade_no": ("成交编号", "成交序号", "流水号"),
    "account": ("股东代码", "股东帐户", "股东账户", "股东帐号", "股东账号", "证券账户"),
    "fund_account": ("资金账号", "资金帐号", "资金账户", "资金帐户"),
}
FEE_FIELDS = ("commission", "stamp", "transfer", "other")

FIELD_NAMES = {field: names[0] for field, names in SYNONYMS.items()}
_RANK = {name: (field, rank) for field, names in SYNONYMS.items() for rank, name in enumerate(names)}

REQUIRED = ("day", "action")
NEEDS_ONE_OF = ("quantity", "cash_change", "amount")


def _field(header: str) -> tuple[str, int] | None:
    text = header.replace(" ", "")
    for unit in ("(元)", "（元）", "(股)", "（股）"):
        text = text.removesuffix(unit)
    return _RANK.get(text)


@dataclass(frozen=True)
class Columns:
    index: dict[str, int]  # field → its cell's position
    headers: tuple[str, ...]  # as the file spells them

    def has(self, field: str) -> bool:
        return field in self.index

    def complete(self) -> bool:
        return all(self.has(f) for f in REQUIRED) and any(self.has(f) for f in NEEDS_ONE_OF)


def map_header(cells: tuple[str, ...]) -> Columns:
    best: dict[str, tuple[int, int]] = {}  # field → (rank of its synonym, position)
    for i, cell in enumerate(cells):
        found = _field(cell)
        if found and (found[0] not in best or found[1] < best[found[0]][0]):
            best[found[0]] = (found[1], i)
    return Columns({field: i for field, (_, i) in best.items()}, cells)


def looks_like_header(cells: tuple[str, ...]) -> bool:
    return map_header(cells).complete()


def needed_text() -> str:
    day = "/".join(SYNONYMS["day"][:3])
    action = "/".join(SYNONYMS["action"][:4])
    amounts = "、".join("/".join(SYNONYMS[f][:2]) for f in NEEDS_ONE_OF)
    return f"{day}、{action}，以及 {amounts} 之一"
