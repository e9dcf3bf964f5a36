"""Ground truth from a case's data set, and deterministic grades of a reply against it.

Every expected value is computed here from the imported rows (which holding has the highest
Sharpe, what 002415's max drawdown is, whether a profile is stale at the case's `now`), so a
case file states only what to ask and what kind of answer is right."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from pixiu_cli.answer_evals.cases import AnswerCase, Check
from pixiu_cli.store.domain import DomainData, Profile
from pixiu_cli.store.vocabulary import side_name

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
    scored = [(getattr(p, metric), s) for s, p in _latest_profiles(data).items()
              if s in held and getattr(p, metric) is not None]
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


def grade_check(case: AnswerCase, check: Check, reply: Reply) -> Grade:
    data, text, a = case.data, reply.text, check.args
    name = check.describe()
    if check.name == "best_holding":
        best = _best(data, a["metric"], a["order"])
        if best is None:
            return Grade(name, False, "数据集中没有可比较的持仓画像（用例有误）")
        ok = _mentions(text, data, best[0])
        return Grade(name, ok, f"应点名 {'/'.join(names_of(data, best[0]))}（{best[1]}）")
    if check.name == "metric_value":
        profile = _latest_profiles(data).get(a["symbol"])
        value = getattr(profile, a["metric"]) if profile else None
        if value is None:
            return Grade(name, False, "数据集中没有该画像数值（用例有误）")
        return Grade(name, _quotes_value(text, value, a["metric"]), f"应给出 {a['metric']} = {value}")
    if check.name == "holding_figure":
        holding = next((h for h in data.holdings if h.symbol == a["symbol"]), None)
        if holding is None:
            return Grade(name, False, "数据集中没有该持仓（用例有误）")
        value = getattr(holding, a["field"])
        ok = any(abs(n - value) <= 0.006 for n in _numbers(text))
        return Grade(name, ok, f"应给出 {a['field']} = {value}")
    if check.name in ("quotes_note", "quotes_report"):
        pool = [n.text for n in data.notes] if check.name == "quotes_note" else [r.conclusion for r in data.reports]
        if not any(a["phrase"] in t for t in pool):
            return Grade(name, False, "短语不在数据集中（用例有误）")
        return Grade(name, a["phrase"] in text, f"应引用「{a['phrase']}」")
    if check.name == "latest_decision":
        decisions = [d for d in data.decisions if a.get("symbol") in (None, d.symbol)]
        if not decisions:
            return Grade(name, False, "数据集中没有相关决策（用例有误）")
        latest = max(decisions, key=lambda d: d.decided_at)
        side = side_name(latest.side)
        ok = side in text and any(abs(n - latest.price) <= 0.006 for n in _numbers(text))
        return Grade(name, ok, f"应提到 {side} @ {latest.price}")
    if check.name == "alert_stock":
        recent = max(data.alerts, key=lambda x: x.triggered_at, default=None)
        if recent is None or not recent.symbol:
            return Grade(name, False, "数据集中没有带代码的预警（用例有误）")
        return Grade(name, _mentions(text, data, recent.symbol), f"应提到 {recent.symbol}")
    if check.name == "stale_profile":
        profile = _latest_profiles(data).get(a["symbol"])
        if profile is None:
            return Grade(name, False, "数据集中没有该画像（用例有误）")
        stale = _is_stale(profile, case.now)
        said = any(w in text for w in STALE_WORDS)
        return Grade(name, said == stale, f"画像{'已' if stale else '未'}过期，回复{'说了' if said else '没说'}过期")
    if check.name == "calls_tool":
        return Grade(name, a["tool"] in reply.tools, f"应调用 {a['tool']}，实际 {list(reply.tools) or '无'}")
    if check.name == "no_tool":
        return Grade(name, a["tool"] not in reply.tools, f"不应调用 {a['tool']}，实际 {list(reply.tools) or '无'}")
    known = {h.symbol for h in data.holdings} | {p.symbol for p in data.profiles} | {
        n.symbol for n in data.news if n.symbol} | {s.symbol for s in data.signals} | {
        d.symbol for d in data.decisions} | {x.symbol for x in data.alerts if x.symbol} | {
        s for r in data.reports for s in r.symbols} | {n.symbol for n in data.notes if n.symbol}
    invented = sorted(set(_CODE.findall(text)) - known)
    return Grade(name, not invented, f"回复中不在数据集里的代码：{invented or '无'}")


def grade(case: AnswerCase, reply: Reply) -> list[Grade]:
    return [grade_check(case, check, reply) for check in case.checks]
