"""Topics: the extra parts a question needs beside its stocks and overview. A question about
a company's valuation or financials (贵不贵, PE, 市盈率, 分红, 业绩, ROE, 财报 …) gets each named
stock's 基本面 part — or, asked about the portfolio, every holding's valuation line; one
about the market as a whole (大盘, 今天市场, 板块轮动 …) gets the 市场概况 section.

The cues are data (``data/selection/rules/topics.toml``): named patterns, each of one topic,
with a reason shown in /context; a topic's ``cancel`` pattern (大盘鸡, 市场部, 分红包) or a
concept question (什么是市盈率) turns its cues off. A cue marked ``stocks_only`` is also a word
about the user's own money (我的利润, 我亏损了): it counts for a named stock, not for the
portfolio. This reads only the message; which stocks it names is the selection's."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from pixiu_cli.conversation.selection.intent import FiredCue
from pixiu_cli.market.names.rules import compiled, joined, table

FUNDAMENTALS = "fundamentals"
MARKET = "market"
TOPICS = (FUNDAMENTALS, MARKET)
RULES_FILE = "topics.toml"


@dataclass(frozen=True)
class TopicCue:
    name: str
    topic: str
    pattern: re.Pattern[str]
    why: str
    stocks_only: bool = False


@dataclass(frozen=True)
class Topics:
    fundamentals: bool = False  # the named stocks' 基本面 part
    holdings_fundamentals: bool = False  # for a portfolio question: every holding's valuation line
    market: bool = False  # the 市场概况 section
    cues: tuple[FiredCue, ...] = ()


NO_TOPICS = Topics()


@cache
def _rules() -> tuple[tuple[TopicCue, ...], dict[str, re.Pattern[str]]]:
    data = table(RULES_FILE)
    cues = []
    for c in data["cue"]:
        if c["topic"] not in TOPICS:
            raise ValueError(f"selection rules: topic cue {c['name']!r} has an unknown topic {c['topic']!r}")
        pattern = compiled(joined(c["pattern"]), re.IGNORECASE)
        cues.append(TopicCue(c["name"], c["topic"], pattern, c["why"], bool(c.get("stocks_only", False))))
    cancel = {k: compiled(joined(v), re.IGNORECASE) for k, v in data["cancel"].items()}
    return tuple(cues), cancel


def warm() -> None:
    _rules()


@cache
def words(name: str) -> str:
    """A pattern of the ``[words]`` table, which other rules extend theirs with (one regex
    alternative more: their `investing` evidence, their `needs_object` follow-ups)."""
    return joined(table(RULES_FILE)["words"][name])


@cache
def _to_market() -> re.Pattern[str]:
    return compiled(words("to_market"), re.IGNORECASE)


def turns_to_market(text: str) -> bool:
    """A short follow-up about the market (那大盘呢): the last turn's stocks are not its object."""
    return _to_market().search(text) is not None


def asks_concept(text: str) -> bool:
    """A concept asked about in general (什么是市盈率): no stock's figures, no earlier turn's."""
    return _rules()[1]["concept"].search(text) is not None


@lru_cache(maxsize=256)
def read_topics(text: str, named_stocks: bool, portfolio: bool) -> Topics:
    """The topics of a normalised message; `named_stocks`: the selection took stocks for it,
    `portfolio`: it gets the holdings overview."""
    cues, cancel = _rules()
    fired = [(cue, match) for cue in cues if (match := cue.pattern.search(text))]
    if not fired or cancel["concept"].search(text):
        return NO_TOPICS  # most questions: one search a cue, nothing else
    spans = {topic: [m.span() for m in cancel[topic].finditer(text)] for topic in TOPICS}
    kept = [(c, _outside(c.pattern, spans[c.topic], text) if spans[c.topic] else m) for c, m in fired]
    fired = [(c, m.group()) for c, m in kept if m]
    fundamentals = [c for c, _ in fired if c.topic == FUNDAMENTALS]
    stocks = named_stocks and bool(fundamentals)
    holdings = not named_stocks and portfolio and any(not c.stocks_only for c in fundamentals)
    market = any(c.topic == MARKET for c, _ in fired)
    used = [(c, m) for c, m in fired if c.topic == MARKET or stocks or (holdings and not c.stocks_only)]
    if not used:
        return NO_TOPICS
    return Topics(stocks, holdings, market, tuple(FiredCue(c.name, c.topic, m, c.why) for c, m in used))


def _outside(pattern: re.Pattern[str], spans: list[tuple[int, int]], text: str) -> re.Match[str] | None:
    """The cue's first match outside every cancelled phrase (吃了大盘鸡，今天大盘怎么样)."""
    return next((m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in spans)), None)
