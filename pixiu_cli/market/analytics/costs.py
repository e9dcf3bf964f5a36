"""What a backtest's trade costs: the dated A-share fees of domain/fees.py (commission with
its minimum, transfer fee, stamp duty) plus slippage. Dividend tax is not modelled: it
depends on how long each share was held."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.account.fees import stamp_duty_rate, trade_cost, transfer_row
from pixiu_cli.kernel.settings import DEFAULT_COMMISSION_MIN, DEFAULT_COMMISSION_RATE, Commission


@dataclass(frozen=True)
class CostModel:
    commission_rate: float = DEFAULT_COMMISSION_RATE  # each side
    commission_min: float = DEFAULT_COMMISSION_MIN  # yuan per order
    transfer_fee_rate: float | None = None  # each side; None: the exchanges' rate on the day
    slippage_bps: float = 5.0  # the fill is this much worse than the open

    @classmethod
    def from_mapping(cls, values: dict) -> CostModel:
        known = {k: float(v) for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def transfer_rate(self, day: str) -> float:
        if self.transfer_fee_rate is not None:
            return self.transfer_fee_rate
        return transfer_row(day)[0]

    @staticmethod
    def stamp_duty_rate(day: str) -> float:
        return stamp_duty_rate(day, selling=True)

    def fees(self, amount: float, day: str, selling: bool) -> float:
        cost = trade_cost(amount, day, selling, Commission(self.commission_rate, self.commission_min))
        transfer = cost.transfer if self.transfer_fee_rate is None else amount * self.transfer_fee_rate
        return cost.commission + cost.stamp_duty + transfer

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
