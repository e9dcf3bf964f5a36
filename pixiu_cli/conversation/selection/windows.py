"""Time words move windows: a named period (上个月, 上周三, 十月底, 上半年, 去年, 近两周) or a
colloquial one (节前, 国庆后, 过完年, 两个月前, 一个多月前, 月初到现在, 年初以来, 最近两三周) moves
the window of the memory class the question asks about to that period, for that turn.

`period(text, today)` finds the periods a normalised message names (``data/selection/rules/
windows.toml``: a pattern and a kind each, worked out here from `today`; a holiday on the
trading calendar by selection/holidays.py) and joins them; a period followed by 以来 / 到现在
runs until today. `moves(period, targets, intent)` says which sections it governs: the trades
(the ledger's fills and the recorded decisions), the brief and reports, the news, the plans
and views, the alerts — those the message asks about (`targets`); a trade review with no
other class governs the trades. The block then widens a class's window back to a period that
reaches into it (上周 on a Wednesday) and moves it to an older one (上个月; context/memory.py
`window_bounds`). Each move carries its words, how they were read (a holiday: which closure,
which side) and a reason, shown in `--explain` and `/context`. A plain "最近" names no
period: the class keeps its configured window."""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from pixiu_cli.market.names.rules import compiled, joined, table

# The sections each class's time word governs (context/memory.py section keys).
GOVERNED = {
    "trades": ("trades", "decisions"),
    "brief": ("reports",),
    "news": ("news",),
    "plans": ("notes",),
    "alerts": ("alerts",),
}
_CLASS_NAMES = {
    "trades": "成交与操作",
    "brief": "简报 / 报告",
    "news": "公告与新闻",
    "plans": "计划 / 观点",
    "alerts": "预警",
}


@dataclass(frozen=True)
class Period:
    start: date
    end: date
    words: str  # as the user wrote them, joined with 、
    reading: str = ""  # Chinese: how a word was read, where that is not plain (a holiday's closure)


@dataclass(frozen=True)
class WindowMove:
    section: str  # the section whose window moved
    start: date
    end: date
    words: str
    why: str  # Chinese, shown in --explain and /context
    reading: str = ""  # how the time word was read (节后: which closure, which side)

    def said(self) -> str:
        """The time word and its period, as every explanation of the move names them."""
        reading = f"{self.reading}：" if self.reading else ""
        said = f"时间词“{self.words}”" if self.words else "没有时间词"
        return f"{said}（{reading}{self.start.isoformat()} 至 {self.end.isoformat()}）"

    def explanation(self) -> dict:
        said = {
            "section": self.section,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "words": self.words,
            "why": self.why,
        }
        return {**said, "reading": self.reading} if self.reading else said


@dataclass(frozen=True)
class _Rule:
    name: str
    kind: str
    pattern: re.Pattern[str]
    offset: int


@cache
def _rules() -> tuple[_Rule, ...]:
    return tuple(
        _Rule(
            p["name"], p["kind"], compiled(_with_holidays(joined(p["pattern"])), re.IGNORECASE), int(p.get("offset", 0))
        )
        for p in table("windows.toml")["period"]
    )


def _alternation(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _with_holidays(pattern: str) -> str:
    """<HOLIDAY> and <SIDE> in a pattern: every holiday's words and every side word (read
    from the rules here: selection/holidays.py loads only for a message that names one);
    <NAMED_DAY> and <DAY_SIDE>: the days named by their date and their side words."""
    data = table("windows.toml")
    if "<NAMED_DAY>" in pattern:
        days = _alternation(re.escape(w) for w in data["named_days"])
        sides = _alternation(re.escape(w) for words in data["named_day_sides"].values() for w in words)
        return pattern.replace("<NAMED_DAY>", days).replace("<DAY_SIDE>", sides)
    if "<HOLIDAY>" not in pattern:
        return pattern
    named = _alternation(w for h in data["holiday"] for w in h["words"])
    said = _alternation(re.escape(w) for words in data["holidays"]["sides"].values() for w in words)
    return pattern.replace("<HOLIDAY>", named).replace("<SIDE>", said)


@cache
def _tables() -> dict:
    data = table("windows.toml")
    keys = ("numerals", "weekdays", "days_ago", "english_months", "month_parts", "year_parts", "unit_days", "unsaid")
    keys += ("seasons", "year_ago_days", "review_days")
    patterns = {key: compiled(data[key]) for key in ("since", "review", "later")}
    return {**{key: data[key] for key in keys}, **patterns}


def warm() -> None:
    _rules()
    _tables()


def _number(text: str | None, default: float = 1) -> float:
    if not text or text == "几":
        return default if text is None else 3
    if text.isdigit():
        return float(text)
    numerals = _tables()["numerals"]
    if text.lower() in numerals:
        return float(numerals[text.lower()])
    if len(text) == 2 and all(c in numerals for c in text):  # 两三, 一两: the larger
        return float(max(numerals[c] for c in text))
    return float(numerals.get(text.lower(), default))


def _unit_days(unit: str) -> int:
    return int(_tables()["unit_days"][unit.lower().removesuffix("s")])


def _more(groups: dict) -> bool:
    """一个多月, 两周多: half a unit more than the number says."""
    return any(value for key, value in groups.items() if key.startswith("more"))


def _first(groups: dict, name: str) -> str | None:
    """The group `name`, `name2`, `name3`… that matched (a pattern's alternatives)."""
    return next((v for k, v in groups.items() if v and k.rstrip("0123456789") == name), None)


def _month(match: re.Match[str], key: str = "m") -> int | None:
    value = match.groupdict().get(key)
    if not value:
        return None
    month = int(_number(value, 0))
    return month if 1 <= month <= 12 else None


def _year_of(match: re.Match[str], month: int, today: date) -> int:
    said = match.groupdict().get("year")
    if said == "去年":
        return today.year - 1
    if said == "今年":
        return today.year
    return today.year if month <= today.month else today.year - 1


def _month_span(year: int, month: int, part: str | None = None) -> tuple[date, date]:
    last = calendar.monthrange(year, month)[1]
    first, end = 1, last
    if part in ("初", "上旬"):
        end = 10
    elif part in ("中", "中旬"):
        first, end = 11, 20
    elif part in ("底", "末", "下旬"):
        first = 21
    return date(year, month, first), date(year, month, end)


def _month_before(first: date) -> date:
    """The first day of the month before the one `first` opens."""
    return (first - timedelta(days=1)).replace(day=1)


def _monday(today: date, weeks: int) -> date:
    return today - timedelta(days=today.weekday()) + timedelta(weeks=weeks)


def _named_month(m: re.Match[str], today: date) -> tuple[date, date] | None:
    groups = m.groupdict()
    month = _month(m) or _tables()["english_months"].get((groups.get("english") or "").lower())
    if not month:
        return None
    year = _year_of(m, month, today)
    start, end = _month_span(year, month, groups.get("part"))
    last = _month(m, "m2")
    if last and last > month:
        end = _month_span(year, last)[1]
    return start, end


def _half(m: re.Match[str], today: date, offset: int) -> tuple[date, date]:
    groups = m.groupdict()
    first = groups.get("h") == "上" or (groups.get("hx") or "").lower() in ("h1", "first half")
    year = today.year - 1 if groups.get("year") == "去年" else today.year + offset
    return (date(year, 1, 1), date(year, 6, 30)) if first else (date(year, 7, 1), date(year, 12, 31))


def _quarter(m: re.Match[str], today: date, offset: int) -> tuple[date, date] | None:
    groups = m.groupdict()
    said = groups.get("q") or groups.get("qx")
    if not said:  # 上个季度 / 本季度: the quarter `offset` quarters from today's
        index = today.year * 4 + (today.month - 1) // 3 + offset
        year, q = divmod(index, 4)
        return date(year, 3 * q + 1, 1), _month_span(year, 3 * q + 3)[1]
    q = int(_number(said, 0))
    if not 1 <= q <= 4:
        return None
    year = today.year - 1 if groups.get("year") == "去年" else today.year
    return date(year, 3 * q - 2, 1), _month_span(year, 3 * q)[1]


def _recent(m: re.Match[str], today: date) -> tuple[date, date]:
    groups = m.groupdict()
    n = _number(_first(groups, "n"), 1) + (0.5 if _more(groups) else 0)
    days = _unit_days(_first(groups, "unit"))
    return today - timedelta(days=round(n * days)), today


def _ago(m: re.Match[str], today: date) -> tuple[date, date]:
    """两个月前: a unit wide around that day (half a unit either side; less for 半个月前);
    一个多月前: from a unit further back to that day."""
    groups = m.groupdict()
    n = _number(_first(groups, "n"), 1)
    unit = _unit_days(_first(groups, "unit"))
    if _more(groups):
        return today - timedelta(days=round((n + 1) * unit)), today - timedelta(days=round(n * unit))
    centre = n * unit
    half = unit / 2 if n >= 1 else centre / 2
    return today - timedelta(days=math.ceil(centre + half)), today - timedelta(days=math.floor(centre - half))


def _month_part(m: re.Match[str], today: date) -> tuple[date, date]:
    groups = m.groupdict()
    back = (groups.get("prev") or "").count("上")  # 上个月底: one month back, 上上个月初: two
    first = today.replace(day=1)
    for _ in range(back):
        first = _month_before(first)
    low, high = _tables()["month_parts"][_first(groups, "part")]
    if not groups.get("prev") and first.replace(day=low) > today:  # 月中 on the 4th: last month's
        first = _month_before(first)
    last = calendar.monthrange(first.year, first.month)[1]
    return first.replace(day=low), first.replace(day=min(high, last))


def _year_part(m: re.Match[str], today: date) -> tuple[date, date]:
    groups = m.groupdict()
    year = today.year - 1 if groups.get("y") == "去" else today.year
    low, high = _tables()["year_parts"][_first(groups, "part")]
    return date(year, low, 1), _month_span(year, high)[1]


def _holiday(m: re.Match[str], today: date):
    """The span a holiday word names (holidays.HolidaySpan), or None."""
    from pixiu_cli.conversation.selection import holidays  # only for a message that names a holiday

    groups = m.groupdict()
    if groups.get("h2"):
        return holidays.span(groups["h2"], holidays.FIRST if groups.get("first") else holidays.AFTER, today)
    if groups.get("year") == "去年":  # last year's closure, its sides within that year
        today = date(today.year - 1, 12, 31)
    return holidays.span(groups["h"], holidays.sides()[groups["side"]], today)


def _span(rule: _Rule, m: re.Match[str], today: date) -> tuple[date, date] | None:
    kind = rule.kind
    if kind == "day":
        day = today - timedelta(days=int(_tables()["days_ago"][m.group("word").lower()]))
        return day, day
    if kind == "week":
        monday = _monday(today, rule.offset)
        return monday, monday + timedelta(days=6)
    if kind == "weekday":
        day = _monday(today, rule.offset) + timedelta(days=int(_tables()["weekdays"][m.group("wd")]))
        return day, day
    if kind == "month":
        first = today.replace(day=1)
        for _ in range(-rule.offset):  # 上个月, 上上个月
            first = _month_before(first)
        return _month_span(first.year, first.month)
    if kind == "holiday":
        found = _holiday(m, today)
        return (found.start, found.end) if found else None
    if kind == "month_day":
        return _month_day(m, today)
    if kind == "named_month":
        return _named_month(m, today)
    if kind == "year":
        year = today.year + rule.offset
        return date(year, 1, 1), date(year, 12, 31)
    if kind == "half":
        return _half(m, today, rule.offset)
    if kind == "quarter":
        return _quarter(m, today, rule.offset)
    return _span_more(rule, m, today)


def _span_more(rule: _Rule, m: re.Match[str], today: date) -> tuple[date, date] | None:
    kind = rule.kind
    if kind == "recent":
        return _recent(m, today)
    if kind == "ago":
        return _ago(m, today)
    if kind == "named_day":
        return _named_day(m, today)
    if kind == "lately":
        return today - timedelta(days=rule.offset), today
    return _span_of_day(rule, m, today)


def _span_of_day(rule: _Rule, m: re.Match[str], today: date) -> tuple[date, date] | None:
    """The kinds that name a day or a season by itself: 周一, 11号, 夏天, 去年这个时候."""
    kind = rule.kind
    if kind == "last_weekday":  # the most recent such day, today included
        back = (today.weekday() - int(_tables()["weekdays"][m.group("wd")])) % 7
        day = today - timedelta(days=back)
        return day, day
    if kind == "day_of_month":
        number = int(m.group("d"))
        first = today.replace(day=1) if number <= today.day else _month_before(today.replace(day=1))
        if number > calendar.monthrange(first.year, first.month)[1]:
            return None
        return first.replace(day=number), first.replace(day=number)
    if kind == "season":
        return _season(m, today)
    if kind == "year_ago":
        width, centre = timedelta(days=int(_tables()["year_ago_days"])), today - timedelta(days=365)
        return centre - width, centre + width
    if kind == "month_part":
        return _month_part(m, today)
    if kind == "year_part":
        return _year_part(m, today)
    raise ValueError(f"selection rules: period {rule.name!r} has an unknown kind {kind!r}")


def _season(m: re.Match[str], today: date) -> tuple[date, date]:
    """夏天, 暑假: the months of the season, the most recent by today (this year's once it has
    begun, with 去年 last year's); winter runs from December into the next year."""
    first, last = _tables()["seasons"][m.group("s")]
    year = today.year if (today.month, today.day) >= (first, 1) else today.year - 1
    if m.group("year") == "去年":
        year = today.year - 1
    end_year = year + 1 if last < first else year
    return date(year, first, 1), _month_span(end_year, last)[1]


def _named_day(m: re.Match[str], today: date) -> tuple[date, date]:
    start, end, _ = _named_day_span(m, today)
    return start, end


def _named_day_span(m: re.Match[str], today: date) -> tuple[date, date, str]:
    """双十一前后: the most recent such day by today, the days its side word says, and how it
    was read (Chinese, for --explain)."""
    data = table("windows.toml")
    month, day_of = (int(x) for x in data["named_days"][m.group("day")].split("-"))
    day = date(today.year, month, day_of)
    if day > today:
        day = day.replace(year=today.year - 1)
    side = next((k for k, words in data["named_day_sides"].items() if m.group("side") in words), "around")
    width = int(data["named_day_around"])
    before, after = day - timedelta(days=width), day + timedelta(days=width)
    spans = {
        "around": (before, after, f"前后各 {width} 天"),
        "before": (before, day, f"之前 {width} 天"),
        "after": (day, today, "当天至今"),
        "day": (day, day, "当天"),
    }
    start, end, said = spans[side]
    return start, end, f"{m.group('day')}即 {day.isoformat()}，取{said}"


def _month_day(m: re.Match[str], today: date) -> tuple[date, date] | None:
    month, day_text = _month(m) or _month(m, "m2"), m.group("d") or m.group("d2")
    day_number = int(day_text) if day_text.isdigit() else _chinese_day(day_text)
    if not month or not 1 <= day_number <= calendar.monthrange(today.year, month)[1]:
        return None
    day = date(_year_of(m, month, today), month, day_number)
    return day, day


def _chinese_day(text: str) -> int:
    """一 … 三十一 as a number."""
    numerals = _tables()["numerals"]
    if "十" not in text:
        return int(numerals.get(text, 0))
    tens, _, units = text.partition("十")
    return int(numerals.get(tens, 1) if tens else 1) * 10 + int(numerals.get(units, 0) if units else 0)


def period(text: str, today: date) -> Period | None:
    """The period a normalised message names (several joined, one inside another narrowing
    it), or None. A period followed by 以来 / 到现在 / 以后 (`since`) runs until today."""
    taken: list[tuple[int, int]] = []
    spans: list[tuple[date, date]] = []
    words: list[tuple[int, str]] = []
    readings: list[str] = []
    for rule in _rules():
        for m in rule.pattern.finditer(text):
            if any(lo < m.end() and m.start() < hi for lo, hi in taken):
                continue
            found = _span(rule, m, today)
            if found is None:
                continue
            since = _tables()["since"].match(text, m.end())
            end = m.end() if since is None else since.end()
            taken.append((m.start(), end))
            spans.append(found if since is None else (found[0], today))
            words.append((m.start(), text[m.start() : end].strip()))
            if rule.kind == "holiday":
                readings.append(_holiday(m, today).reading)
            elif rule.kind == "named_day":
                readings.append(_named_day_span(m, today)[2])
    if not spans:
        return None
    # a period inside another narrows it (今年春节前: before this year's Spring Festival);
    # periods apart are joined (上周和上上周)
    spans = [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
    start = min(s for s, _ in spans)
    end = min(max(e for _, e in spans), today)
    if start > today:
        return None
    return Period(start, end, "、".join(w for _, w in sorted(words)), "；".join(readings))


def moves(
    found: Period | None, targets: Iterable[str], trade_review: bool, named: bool = False
) -> tuple[WindowMove, ...]:
    """The windows the period moves: of the classes asked about, or of the trades for a trade
    review, or of the news for a named stock asked about in a period (东航物流国庆假期货运数据咋样)."""
    if found is None:
        return ()
    governed = [t for t in targets if t in GOVERNED] or (["trades"] if trade_review else ["news"] if named else [])
    out = []
    for target in governed:
        said = WindowMove(target, found.start, found.end, found.words, "", found.reading).said()
        why = f"{said}：{_CLASS_NAMES[target]}的窗口按它放宽或移动"
        out.extend(
            WindowMove(section, found.start, found.end, found.words, why, found.reading) for section in GOVERNED[target]
        )
    return tuple(out)


def _after_words(found: Period | None, text: str) -> int | None:
    """Where the text goes on after the period's last words, None when it names none."""
    if found is None or not found.words:
        return None
    last = found.words.split("、")[-1]
    at = text.find(last)
    return None if at < 0 else at + len(last)


def reviewed(found: Period | None, text: str, today: date) -> Period | None:
    """A review of a period (上半年回顾, 十月的复盘总结) is written as the period ends or after
    it: its window runs past the period's end as long as the period lasts, up to `review_days`."""
    after = _after_words(found, text)
    if after is None or not _tables()["review"].match(text, after):
        return found
    # a day's review is written that day, a week's by the next, a half year's within a month
    late = min(int(_tables()["review_days"]), (found.end - found.start).days)
    end = min(found.end + timedelta(days=late), today)
    return Period(found.start, end, found.words, found.reading)


def followed(found: Period | None, text: str, today: date) -> Period | None:
    """A period whose act is asked after (春节前买的那只 后来咋处理的): what came of it runs
    until today."""
    after = _after_words(found, text)
    if after is None or not _tables()["later"].search(text, after):
        return found
    return Period(found.start, today, found.words, found.reading)


def unsaid_period(cue_names: Iterable[str], today: date) -> Period | None:
    """The period a tally question means when it names none (`unsaid` in windows.toml):
    the last year for what the fees, taxes and dividends came to and for the last few trades;
    None for other questions."""
    named = set(cue_names)
    for unsaid in _tables()["unsaid"]:
        if set(unsaid["cues"]) & named:
            return Period(today - timedelta(days=unsaid["days"]), today, "", unsaid["reading"])
    return None


def spans_text(text: str) -> list[tuple[int, int]]:
    """Where a normalised message names periods (the targets read a period before a trading act)."""
    found: list[tuple[int, int]] = []
    for rule in _rules():
        for m in rule.pattern.finditer(text):
            if not any(lo < m.end() and m.start() < hi for lo, hi in found):
                since = _tables()["since"].match(text, m.end())
                found.append((m.start(), m.end() if since is None else since.end()))
    return sorted(found)
