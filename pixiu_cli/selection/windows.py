"""Time words move windows: a named period (上个月, 上周三, 十月底, 上半年, 去年, 近两周) moves
the window of the memory class the question asks about to that period, for that turn.

`period(text, today)` finds the periods a normalised message names (``data/selection/rules/
windows.toml``: a pattern and a kind each, worked out here from `today`) and joins them;
`moves(period, targets, intent)` says which sections it governs: the trades (the ledger's
fills and the recorded decisions), the brief and reports, the news, the plans — those the
message asks about (`targets`); a trade review with no other class governs the trades. The
block then widens a class's window back to a period that reaches into it (上周 on a
Wednesday) and moves it to an older one (上个月; context/memory.py `window_bounds`).
Each move carries its words and a reason, shown in `--explain` and `/context`. A plain
"最近" names no period: the class keeps its configured window."""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from pixiu_cli.selection.rules import compiled, joined, table

# The sections each class's time word governs (context/memory.py section keys).
GOVERNED = {"trades": ("trades", "decisions"), "brief": ("reports",), "news": ("news",), "plans": ("notes",)}
_CLASS_NAMES = {"trades": "成交与操作", "brief": "简报 / 报告", "news": "公告与新闻", "plans": "计划"}


@dataclass(frozen=True)
class Period:
    start: date
    end: date
    words: str  # as the user wrote them, joined with 、


@dataclass(frozen=True)
class WindowMove:
    section: str  # the section whose window moved
    start: date
    end: date
    words: str
    why: str  # Chinese, shown in --explain and /context

    def explanation(self) -> dict:
        return {
            "section": self.section,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "words": self.words,
            "why": self.why,
        }


@dataclass(frozen=True)
class _Rule:
    name: str
    kind: str
    pattern: re.Pattern[str]
    offset: int


@cache
def _rules() -> tuple[_Rule, ...]:
    return tuple(
        _Rule(p["name"], p["kind"], compiled(joined(p["pattern"]), re.IGNORECASE), int(p.get("offset", 0)))
        for p in table("windows.toml")["period"]
    )


@cache
def _tables() -> dict:
    data = table("windows.toml")
    return {key: data[key] for key in ("numerals", "weekdays", "days_ago", "english_months")}


def warm() -> None:
    _rules()
    _tables()


def _number(text: str | None, default: float = 1) -> float:
    if not text or text == "几":
        return default if text is None else 3
    return float(text) if text.isdigit() else float(_tables()["numerals"].get(text, default))


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


def _quarter(m: re.Match[str], today: date) -> tuple[date, date] | None:
    groups = m.groupdict()
    q = int(_number(groups.get("q") or groups.get("qx"), 0))
    if not 1 <= q <= 4:
        return None
    year = today.year - 1 if groups.get("year") == "去年" else today.year
    return date(year, 3 * q - 2, 1), _month_span(year, 3 * q)[1]


def _recent(m: re.Match[str], today: date) -> tuple[date, date]:
    groups = m.groupdict()
    n = _number(groups.get("n") or groups.get("n2"), 1)
    unit = groups.get("unit") or groups.get("unit2")
    days = {"天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7, "月": 30, "年": 365}[unit]
    return today - timedelta(days=round(n * days)), today


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
        first = (today.replace(day=1) - timedelta(days=1)).replace(day=1) if rule.offset == -1 else today.replace(day=1)
        return _month_span(first.year, first.month)
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
        return _quarter(m, today)
    if kind == "recent":
        return _recent(m, today)
    raise ValueError(f"selection rules: period {rule.name!r} has an unknown kind {kind!r}")


def _month_day(m: re.Match[str], today: date) -> tuple[date, date] | None:
    month, day_text = _month(m), m.group("d")
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
    """The period a normalised message names (several joined), or None."""
    taken: list[tuple[int, int]] = []
    spans: list[tuple[date, date]] = []
    words: list[tuple[int, str]] = []
    for rule in _rules():
        for m in rule.pattern.finditer(text):
            if any(lo < m.end() and m.start() < hi for lo, hi in taken):
                continue
            found = _span(rule, m, today)
            if found is None:
                continue
            taken.append(m.span())
            spans.append(found)
            words.append((m.start(), m.group().strip()))
    if not spans:
        return None
    start = min(s for s, _ in spans)
    end = min(max(e for _, e in spans), today)
    if start > today:
        return None
    return Period(start, end, "、".join(w for _, w in sorted(words)))


def moves(found: Period | None, targets: Iterable[str], trade_review: bool) -> tuple[WindowMove, ...]:
    """The windows the period moves: of the classes asked about, or of the trades for a trade review."""
    if found is None:
        return ()
    governed = [t for t in targets if t in GOVERNED] or (["trades"] if trade_review else [])
    out = []
    for target in governed:
        why = (
            f"时间词“{found.words}”（{found.start.isoformat()} 至 {found.end.isoformat()}）："
            f"{_CLASS_NAMES[target]}的窗口按它放宽或移动"
        )
        out.extend(WindowMove(section, found.start, found.end, found.words, why) for section in GOVERNED[target])
    return tuple(out)


def spans_text(text: str) -> list[tuple[int, int]]:
    """Where a normalised message names periods (the targets read a period before a trading act)."""
    found: list[tuple[int, int]] = []
    for rule in _rules():
        for m in rule.pattern.finditer(text):
            if not any(lo < m.end() and m.start() < hi for lo, hi in found):
                found.append(m.span())
    return sorted(found)
