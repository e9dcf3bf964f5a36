"""A day as the user says it: 今天, 昨天, 前天, 3月3日 / 3月3号, 2025年3月3日, 2025-03-03,
2025/3/3. A month and day without a year is the latest such day that is not in the future."""

from __future__ import annotations

import re
from datetime import date, timedelta

_RELATIVE = {"今天": 0, "今日": 0, "昨天": 1, "昨日": 1, "前天": 2, "大前天": 3}
_FULL = re.compile(r"(\d{4})\s*(?:年|-|/|\.)\s*(\d{1,2})\s*(?:月|-|/|\.)\s*(\d{1,2})\s*(?:日|号)?")
_MONTH_DAY = re.compile(r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*(?:日|号)")
# longest first, so 大前天 is not read as 前天
_RELATIVE_WORD = re.compile("|".join(sorted(_RELATIVE, key=len, reverse=True)))


class DateWordsError(ValueError):
    """The words name no day, or a day after today; the message is one line."""


def _day(year: int, month: int, day_: int, words: str) -> date:
    try:
        return date(year, month, day_)
    except ValueError:
        raise DateWordsError(f"没有这一天：{words}") from None


def find_date_words(text: str) -> str | None:
    """The part of `text` that names a day, if any (for reading a reported trade)."""
    for pattern in (_FULL, _MONTH_DAY, _RELATIVE_WORD):
        match = pattern.search(text)
        if match:
            return match.group(0)
    return None


def parse_date_words(words: str, today: date) -> date:
    """The day `words` name; DateWordsError for none, or one after `today`."""
    text = words.strip()
    if text in _RELATIVE:
        return today - timedelta(days=_RELATIVE[text])
    full = _FULL.fullmatch(text)
    if full:
        when = _day(*(int(g) for g in full.groups()), words=text)
    else:
        short = _MONTH_DAY.fullmatch(text)
        if not short:
            raise DateWordsError(f"无法识别的日期：{text}（可以写 今天、昨天、3月3日、2025年3月3日 或 2025-03-03）")
        month, day_ = int(short.group(1)), int(short.group(2))
        when = _day(today.year, month, day_, text)
        if when > today:
            when = _day(today.year - 1, month, day_, text)
    if when > today:
        raise DateWordsError(f"{text} 在今天（{today.isoformat()}）之后：不能记录未来的交易")
    return when
