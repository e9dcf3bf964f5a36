"""Information layers (信息层次): how much weight an injected item deserves.

| layer    | what                              | how the model should use it          |
|----------|-----------------------------------|--------------------------------------|
| 事实     | news, policy, quotes, holdings    | record as is; the basis of analysis  |
| 逻辑工具 | strategy signals, backtests       | a decision aid, never the sole basis |
| 情绪观点 | opinions, comments, user views    | reference only; strip the emotion    |
| 混合     | industry reading, research        | separate the facts from the opinions |

`layer_for(kind, declared)` maps an item kind to its layer:

| kind (case-insensitive; ``-``/space = ``_``)                      | default   | declared honoured |
|-------------------------------------------------------------------|-----------|-------------------|
| holding, position, decision, trade, alert, quote, price           | 事实      | no                |
| news, 动态, announcement, 公告, policy, 政策, flash, 快讯          | 事实      | yes               |
| signal, fusion_signal, backtest, profile, backtest_profile, strategy, indicator | 逻辑工具 | no   |
| report, 报告, analysis, research, industry, 行业解读               | 混合      | yes               |
| user_note, note, view, plan, rule, opinion, comment, kol, social, 观点, 评论 | 情绪观点 | yes     |
| anything else                                                     | 混合      | yes               |

Kinds with a fixed layer ignore `declared`: a holding is a fact whatever a record says,
and a backtest stays a decision aid even if someone labels it 事实. Elsewhere a valid
`declared` wins (a news item marked 情绪观点 is a pundit's view, a report marked 事实 is a
plain data release). `declared` accepts a layer value (事实/逻辑工具/情绪观点/混合), their
long names (客观事实/混合信息), or English (fact, logic/tool/logic_tool,
opinion/sentiment, mixed); anything else is ignored.

The information layer of a fetched news item, assigned by where it came from: a company
filing or an official statistic is 事实, a media article 混合 (its facts to be separated from
its framing), commentary and forum posts 情绪观点. The rules are data
(`data/news/source_layers.toml`); the layer is stored with the item and rides with it into
the context block.

How old is too old: each class of injected item has a freshness limit (config.toml
[context], `*_fresh_days`; signals count trading days). An item past its limit is still
injected, marked `已过期 N 天` (N: days since it went past the limit; `N 个交易日` for a
limit in trading days) and listed after the
fresh items of its section, so trimming drops it first."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum
from functools import lru_cache

from pixiu_cli.conversation.context.quoting import sessions_said
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.kernel.vocabulary import FreshnessRule
from pixiu_cli.market.trading_days import CalendarEnd, calendar_end, knows, next_trading_day, sessions_between


class Layer(StrEnum):
    FACT = "事实"
    LOGIC_TOOL = "逻辑工具"
    OPINION = "情绪观点"
    MIXED = "混合"


_FIXED: dict[str, Layer] = {
    **dict.fromkeys(("holding", "position", "decision", "trade", "alert", "quote", "price"), Layer.FACT),
    **dict.fromkeys(
        ("signal", "fusion_signal", "backtest", "profile", "backtest_profile", "strategy", "indicator"),
        Layer.LOGIC_TOOL,
    ),
}
_DEFAULTS: dict[str, Layer] = {
    **dict.fromkeys(("news", "动态", "announcement", "公告", "policy", "政策", "flash", "快讯"), Layer.FACT),
    **dict.fromkeys(("report", "报告", "analysis", "research", "industry", "行业解读"), Layer.MIXED),
    **dict.fromkeys(
        ("user_note", "note", "view", "plan", "rule", "opinion", "comment", "kol", "social", "观点", "评论"),
        Layer.OPINION,
    ),
}
_DECLARED: dict[str, Layer] = {
    **{layer.value: layer for layer in Layer},
    "客观事实": Layer.FACT,
    "混合信息": Layer.MIXED,
    "fact": Layer.FACT,
    "facts": Layer.FACT,
    "logic": Layer.LOGIC_TOOL,
    "tool": Layer.LOGIC_TOOL,
    "logic_tool": Layer.LOGIC_TOOL,
    "opinion": Layer.OPINION,
    "sentiment": Layer.OPINION,
    "mixed": Layer.MIXED,
}


def _key(value: str) -> str:
    return "_".join(value.strip().lower().replace("-", " ").split())


def parse_layer(value: str | None) -> Layer | None:
    """A layer from a stored label, or None when the label is missing or unknown."""
    if not value:
        return None
    return _DECLARED.get(_key(value))


def layer_for(kind: str, declared: str | None = None) -> Layer:
    """The layer of an item of `kind`, honouring `declared` where the kind allows it."""
    key = _key(kind or "")
    if key in _FIXED:
        return _FIXED[key]
    return parse_layer(declared) or _DEFAULTS.get(key, Layer.MIXED)


@dataclass(frozen=True)
class LayerRule:
    layer: Layer
    kind: str | None
    sources: tuple[str, ...]

    def matches(self, kind: str, source: str) -> bool:
        if self.kind is not None and self.kind != kind:
            return False
        return not self.sources or any(word in source for word in self.sources)


@lru_cache(maxsize=1)
def layer_rules() -> tuple[LayerRule, ...]:
    with open(data_dir() / "news" / "source_layers.toml", "rb") as handle:
        table = tomllib.load(handle)
    rules = []
    for raw in table.get("rule", []):
        layer = parse_layer(raw.get("layer"))
        if layer is None:
            raise ValueError(f"source_layers.toml: unknown layer {raw.get('layer')!r}")
        rules.append(LayerRule(layer, raw.get("kind"), tuple(raw.get("sources", ()))))
    return tuple(rules)


def source_layer(kind: str, source: str | None) -> Layer:
    """The first rule matching the item's kind and outlet; 混合 when none does."""
    for rule in layer_rules():
        if rule.matches(kind, source or ""):
            return rule.layer
    return Layer.MIXED


def expired_days(as_of: date | None, today: date, rule: FreshnessRule) -> int | None:
    """Days since an item dated `as_of` went past `rule`, or None while it is fresh (or has
    no limit, or no readable date: that one shows 日期未知 instead)."""
    if as_of is None or rule.days <= 0 or as_of >= today:
        return None
    try:
        if rule.trading:
            expiry = as_of
            for _ in range(max(1, round(rule.days))):
                expiry = _next_session_or_weekday(expiry)
        else:
            expiry = as_of + timedelta(days=rule.days)
    except OverflowError:
        return None
    overdue = (today - expiry).days
    return overdue if overdue > 0 else None


def _next_session_or_weekday(d: date) -> date:
    # Past the calendar's end a signal still has to age: a limit counted in weekdays there
    # marks it stale at most a holiday week early, where no limit at all would keep it
    # fresh forever. Nothing here is shown as a session date.
    try:
        return next_trading_day(d)
    except CalendarEnd:
        d += timedelta(days=1)
        while d.weekday() >= 5:
            d += timedelta(days=1)
        return d


def stale_label(as_of: date | None, today: date, rule: FreshnessRule) -> str | None:
    """`已过期 N 天`, or for a limit counted in trading days `已过期 N 个交易日` (N sessions
    since the limit, not calendar days: a weekend adds none; `至少 N` past the calendar's end)."""
    overdue = expired_days(as_of, today, rule)
    if overdue is None:
        return None
    if rule.trading:
        said = _sessions_overdue(today - timedelta(days=overdue), today)
        return said if said is not None else f"已过期 {overdue} 天"
    return f"已过期 {overdue} 天"


def _sessions_overdue(expiry: date, today: date) -> str | None:
    """The sessions since the expiry; past the calendar's end those up to it, said as a floor
    (`至少 N 个交易日`); None when the calendar knows none of them (calendar days then)."""
    end, at_least = today, False
    if not knows(today):
        end, at_least = calendar_end(), True
    try:
        counted = sessions_between(expiry, end) if end > expiry else 0
    except (CalendarEnd, OverflowError, ValueError):
        return None
    if at_least and counted == 0:
        return None
    return sessions_said("已过期", max(1, counted), at_least)
