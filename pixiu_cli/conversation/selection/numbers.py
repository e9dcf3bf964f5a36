"""Figures as a user types them: ASCII or full-width digits, thousands commas, decimals,
Chinese numerals (三百, 两千五, 一万二, 十五, 三十二点五, 一五零零), 万 or 亿 after digits
(1.5万), and the unit written after each (股, 手, 元, 块, %, 月 …). A figure the model wants
to store is checked against these (services/grounding.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10**4, "亿": 10**8}
_CHINESE = re.compile(rf"[{''.join((*_DIGITS, *_UNITS, *_BIG))}]+(?:点[{''.join(_DIGITS)}]+)?")
_WIDTH = str.maketrans({**{chr(0xFF10 + i): str(i) for i in range(10)}, "．": ".", "％": "%"})
# Multipliers and units read after a number; the longer spellings first. 成 is a tenth ("3成仓位"),
# never the 成 of 成交 ("34.8成交" is a price).
_FIGURE = re.compile(
    r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(万|亿|千)?\s*(个点|股|手|元|块|角|%|成(?!交)|年|月|日|号|点)?"
)
_TAIL = re.compile(r"(\d)(?![\d.]|\s*[股手万])")  # 30块5: five jiao after the yuan
_MULTIPLIERS = {"万": 10**4, "亿": 10**8, "千": 1000}


@dataclass(frozen=True)
class Figure:
    value: Decimal
    unit: str  # the unit word after it ("" when none); 块 reads as 元
    start: int  # where it starts in the text `figures` read (tells two mentions apart)


def fold_digits(text: str) -> str:
    """Full-width digits, point and percent sign as ASCII (nothing else changes)."""
    return text.translate(_WIDTH)


def _integer(run: str) -> int | None:
    """三百 → 300, 两千五 → 2500, 一万二 → 12000, 十五 → 15, 一百零五 → 105."""
    total = section = 0
    digit: int | None = None
    unit_before = 0  # the unit just before the last digit (0: none, or a 零 between them)
    for ch in run:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
            if ch in "零〇":
                unit_before = 0
        elif ch in _UNITS:
            section += (1 if digit is None else digit) * _UNITS[ch]
            digit, unit_before = None, _UNITS[ch]
        else:
            section += digit or 0
            total += (section or 1) * _BIG[ch]
            section, digit, unit_before = 0, None, _BIG[ch]
    if digit is not None:
        # 两千五: a digit straight after a unit counts in the unit one below it
        section += digit * (unit_before // 10 if unit_before >= 10 else 1)
    return total + section


def chinese_value(run: str) -> Decimal | None:
    """The value of a run of Chinese numerals, or None for one with no digit (万, 千万)."""
    whole, _, fraction = run.partition("点")
    if not any(ch in _DIGITS for ch in whole) and not whole.startswith("十"):
        return None
    if len(whole) > 1 and all(ch in _DIGITS for ch in whole):  # 一五零零: digit by digit
        value = Decimal("".join(str(_DIGITS[ch]) for ch in whole))
    else:
        value = Decimal(_integer(whole))
    if fraction:
        value += Decimal("0." + "".join(str(_DIGITS[ch]) for ch in fraction))
    return value


def _plain(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def arabic(text: str) -> str:
    """`text` with its full-width digits folded and each run of Chinese numerals written in
    digits (三十二点五 → 32.5); a run that is no number (万 alone) stays."""

    def digits(match: re.Match[str]) -> str:
        value = chinese_value(match.group(0))
        return match.group(0) if value is None else _plain(value)

    return _CHINESE.sub(digits, fold_digits(text))


def figures(text: str) -> list[Figure]:
    """Every figure in `text` (Chinese numerals and full-width digits read), in order."""
    folded = arabic(text)
    found: list[Figure] = []
    taken = 0  # the end of the 角 digit last read with its 块 (30块5), not a figure of its own
    for match in _FIGURE.finditer(folded):
        if match.start() < taken:
            continue
        whole, fraction, multiplier, unit = match.groups()
        try:
            value = Decimal(whole.replace(",", "") + (fraction or ""))
        except InvalidOperation:
            continue
        value *= _MULTIPLIERS.get(multiplier or "", 1)
        unit = unit or ""
        if unit == "块":
            unit = "元"
            tail = None if fraction else _TAIL.match(folded, match.end())
            if tail:
                value += Decimal(tail.group(1)) / 10
                taken = tail.end()
        found.append(Figure(value, unit, match.start()))
    return found
