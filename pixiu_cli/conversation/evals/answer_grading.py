"""Ground truth from a case's data set, and deterministic grades of a reply against it.

Every expected value is computed here from the imported rows (which holding has the highest
Sharpe, what 002415's max drawdown is, whether a profile is stale at the case's `now`), so a
case file states only what to ask and what kind of answer is right."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from pixiu_cli.conversation.evals.answer_cases import AnswerCase, Check
from pixiu_cli.home.model import DomainData, Profile
from pixiu_cli.kernel.vocabulary import side_name

# A profile older than this at the case's `now` is stale (the context engine's default limit).
PROFILE_FRESH_DAYS = 90
STALE_WORDS = ("过期", "陈旧", "过时", "不是最新", "较旧", "已久")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_CODE = re.compile(r"(?<![0-9])([0-9]{6})(?![0-9])")


@dataclass(frozen=True)
class Grade:
    check: str
    passed: bool
    detail: str  # what was expected and what was found, one line


@dataclass(frozen=True)
class Reply:
    text: str
    tools: tuple[str, ...]  # names of the tools the model called in the turn


def _latest_profiles(data: DomainData) -> dict[str, Profile]:
    latest: dict[str, Profile] = {}
    for p in data.profiles:
        if p.symbol not in latest or p.as_of > latest[p.symbol].as_of:
            latest[p.symbol] = p
    return latest


def names_of(data: DomainData, symbol: str) -> tuple[str, ...]:
    for h in data.holdings:
        if h.symbol == symbol:
            return (symbol, h.name, *h.short_names)
    return (symbol,)


def _mentions(text: str, data: DomainData, symbol: str) -> bool:
    return any(n and n in text for n in names_of(data, symbol))


def _numbers(text: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(text.replace(",", ""))]


def _quotes_value(text: str, value: float, metric: str) -> bool:
    """The reply states `value` as shown to an investor: 0.79 for a Sharpe ratio; -46.8% or
    46.8% (or -0.468) for a fraction."""
    numbers = _numbers(text)
    if metric == "sharpe":
        return any(abs(n - value) <= 0.011 for n in numbers)
    percent = value * 100
    return any(abs(abs(n) - abs(percent)) <= 0.051 or abs(abs(n) - abs(value)) <= 0.00051 for n in numbers)


def _best(data: DomainData, metric: str, order: str) -> tuple[str, float] | None:
    held = {h.symbol for h in data.holdings}
    scored = [
        (getattr(p, metric), s)
        for s, p in _latest_profiles(data).items()
        if s in held and getattr(p, metric) is not None
    ]
    if not scored:
        return None
    # "highest max drawdown" reads as the deepest one: the most negative fraction.
    pick_max = (order == "max") != (metric == "max_drawdown")
    value, symbol = max(scored) if pick_max else min(scored)
    return symbol, value


def _is_stale(profile: Profile, now: datetime) -> bool:
    as_of = datetime.fromisoformat(profile.as_of)
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=now.tzinfo)
    return (now - as_of).days > PROFILE_FRESH_DAYS


# Each grader: (case, the check's args, reply) → (passed, detail). A case whose data set
# cannot answer its own check fails with a detail that says the case is wrong.
_Verdict = tuple[bool, str]


def _best_holding(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    data = case.data
    best = _best(data, a["metric"], a["order"])
    if best is None:
        return False, "数据集中没有可比较的持仓画像（用例有误）"
    return _mentions(reply.text, data, best[0]), f"应点名 {'/'.join(names_of(data, best[0]))}（{best[1]}）"


def _metric_value(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    profile = _latest_profiles(case.data).get(a["symbol"])
    value = getattr(profile, a["metric"]) if profile else None
    if value is None:
        return False, "数据集中没有该画像数值（用例有误）"
    return _quotes_value(reply.text, value, a["metric"]), f"应给出 {a['metric']} = {value}"


def _holding_figure(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    holding = next((h for h in case.data.holdings if h.symbol == a["symbol"]), None)
    if holding is None:
        return False, "数据集中没有该持仓（用例有误）"
    value = getattr(holding, a["field"])
    return any(abs(n - value) <= 0.006 for n in _numbers(reply.text)), f"应给出 {a['field']} = {value}"


def _quotes(pool: list[str], a: dict, reply: Reply) -> _Verdict:
    if not any(a["phrase"] in t for t in pool):
        return False, "短语不在数据集中（用例有误）"
    return a["phrase"] in reply.text, f"应引用「{a['phrase']}」"


def _quotes_note(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return _quotes([n.text for n in case.data.notes], a, reply)


def _quotes_report(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return _quotes([r.conclusion for r in case.data.reports], a, reply)


def _latest_decision(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    decisions = [d for d in case.data.decisions if a.get("symbol") in (None, d.symbol)]
    if not decisions:
        return False, "数据集中没有相关决策（用例有误）"
    latest = max(decisions, key=lambda d: d.decided_at)
    side = side_name(latest.side)
    ok = side in reply.text and any(abs(n - latest.price) <= 0.006 for n in _numbers(reply.text))
    return ok, f"应提到 {side} @ {latest.price}"


def _alert_stock(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    recent = max(case.data.alerts, key=lambda x: x.triggered_at, default=None)
    if recent is None or not recent.symbol:
        return False, "数据集中没有带代码的预警（用例有误）"
    return _mentions(reply.text, case.data, recent.symbol), f"应提到 {recent.symbol}"


def _stale_profile(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    profile = _latest_profiles(case.data).get(a["symbol"])
    if profile is None:
        return False, "数据集中没有该画像（用例有误）"
    stale = _is_stale(profile, case.now)
    said = any(w in reply.text for w in STALE_WORDS)
    return said == stale, f"画像{'已' if stale else '未'}过期，回复{'说了' if said else '没说'}过期"


def _calls_tool(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return a["tool"] in reply.tools, f"应调用 {a['tool']}，实际 {list(reply.tools) or '无'}"


def _no_tool(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    return a["tool"] not in reply.tools, f"不应调用 {a['tool']}，实际 {list(reply.tools) or '无'}"


def _no_invented_symbol(case: AnswerCase, a: dict, reply: Reply) -> _Verdict:
    data = case.data
    known = (
        {h.symbol for h in data.holdings}
        | {p.symbol for p in data.profiles}
        | {n.symbol for n in data.news if n.symbol}
        | {s.symbol for s in data.signals}
        | {d.symbol for d in data.decisions}
        | {x.symbol for x in data.alerts if x.symbol}
        | {s for r in data.reports for s in r.symbols}
        | {n.symbol for n in data.notes if n.symbol}
    )
    invented = sorted(set(_CODE.findall(reply.text)) - known)
    return not invented, f"回复中不在数据集里的代码：{invented or '无'}"


_GRADERS = {
    "best_holding": _best_holding,
    "metric_value": _metric_value,
    "holding_figure": _holding_figure,
    "quotes_note": _quotes_note,
    "quotes_report": _quotes_report,
    "latest_decision": _latest_decision,
    "alert_stock": _alert_stock,
    "stale_profile": _stale_profile,
    "calls_tool": _calls_tool,
    "no_tool": _no_tool,
    "no_invented_symbol": _no_invented_symbol,
}


def grade_check(case: AnswerCase, check: Check, reply: Reply) -> Grade:
    grader = _GRADERS.get(check.name, _no_invented_symbol)
    passed, detail = grader(case, check.args, reply)
    return Grade(check.describe(), passed, detail)


def grade(case: AnswerCase, reply: Reply) -> list[Grade]:
    return [grade_check(case, check, reply) for check in case.checks]
