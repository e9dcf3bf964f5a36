"""What a trade costs in the A-share market, by date: commission with its minimum, transfer
fee (halved on 2022-04-29), stamp duty on sells (halved on 2023-08-28) and slippage. Dividend
tax is not modelled: it depends on how long each share was held."""

from __future__ import annotations

from dataclasses import dataclass

STAMP_DUTY_HALVED_ON = "2023-08-28"
TRANSFER_FEE_HALVED_ON = "2022-04-29"  # 0.002% of the amount before, 0.001% from this day


@dataclass(frozen=True)
class CostModel:
    commission_rate: float = 0.00025  # 万2.5, each side
    commission_min: float = 5.0  # yuan per order
    transfer_fee_rate: float | None = None  # each side; None: the exchanges' rate on the day
    slippage_bps: float = 5.0  # the fill is this much worse than the open

    @classmethod
    def from_mapping(cls, values: dict) -> CostModel:
        known = {k: float(v) for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def transfer_rate(self, day: str) -> float:
        if self.transfer_fee_rate is not None:
            return self.transfer_fee_rate
        return 0.00002 if day < TRANSFER_FEE_HALVED_ON else 0.00001

    @staticmethod
    def stamp_duty_rate(day: str) -> float:
        return 0.001 if day < STAMP_DUTY_HALVED_ON else 0.0005

    def fees(self, amount: float, day: str, selling: bool) -> float:
        commission = max(amount * self.commission_rate, self.commission_min)
        stamp = amount * self.stamp_duty_rate(day) if selling else 0.0
        return commission + amount * self.transfer_rate(day) + stamp

    def fill_price(self, open_price: float, buying: bool) -> float:
        slip = open_price * self.slippage_bps / 10_000
        return open_price + slip if buying else open_price - slip

    def describe(self) -> str:
        transfer = (
            "过户费0.002%(2022-04-29起0.001%)"
            if self.transfer_fee_rate is None
            else f"过户费{self.transfer_fee_rate:.3%}"
        )
        return (
            f"佣金{self.commission_rate:.3%}(最低{self.commission_min:g}元)+{transfer}"
            f"+印花税卖出0.1%(2023-08-28起0.05%)+滑点{self.slippage_bps:g}bp；未计红利税"
        )
