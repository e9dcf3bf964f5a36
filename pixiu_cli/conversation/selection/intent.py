"""What kind of question is this? Scored cues with an explanation.

A portfolio question that gets no profiles gets a wrong answer (it compares holdings it
cannot see), so the intent decides whether the holdings-profile overview is injected. Intent is read
from *cues*: named patterns, each in one group, each with a reason a person can check.
`analyze` returns the intent, whether the overview is wanted, and every cue that fired.
Cues are matched on the normalised text (`normalize.normalize`: half-width, lower case,
simplified, homophones fixed), so 持倉/倉位, ＰＯＲＴＦＯＬＩＯ and 组和 need no cue of their own.
A cue marked ``whole_word`` counts only as whole words of the sentence (`words`), checked
when it decides: 其他的 does not hold 他的.

The cues are data (``data/selection/rules/intent.toml``: name, group, pattern, reason);
what a group means is code (`Group`), and the decision is an ordered list of named rules
(`_RULES`), the first that applies wins.

Groups and how they decide:

* ``trade`` — a look back at the user's own trades (复盘, 交割单, 我昨天卖的…, 卖飞,
  这几笔操作…). Wins over everything; a market recap (复盘今天大盘) is not one.
* ``set`` — the user's holdings as a whole (我的持仓, 我的票, 这几只, 账户, 组合, portfolio,
  手上几只票…). Portfolio review, and with a named stock it is a *mixed* question: the
  overview plus that stock's section. With a trade cue (复盘整个组合) the trade review also
  gets the overview.
* ``position`` — position words (仓位, 持仓, 七成仓, 加仓, 核心仓, 哪只, 配置, 分散…).
  Without a named stock the question is about the portfolio; with one it is about that
  stock (宁德时代的持仓成本, 茅台仓位多少合适).
* ``others`` — somebody else's positions (机构的仓位, 公募基金持仓, 我朋友满仓了): the set
  and position cues are not the user's and are dropped.
* ``knowledge`` — a definition or rule question with no first-person word (止损的原则,
  什么是分散投资): position cues are dropped, the user asked about a concept.
* ``measure`` — a measure of the holdings asked in everyday words: the total floating P&L
  (一共浮亏多少), how many are up or down (亏钱的票有几只), breaking even (还要涨多少才能回本),
  whether they hold up in a fall (扛得住下跌吗). Without a named stock the portfolio (with
  one, that stock), unless the sentence is about the market and names no holding (大盘扛得住吗).
* ``plan`` — a plan or a modal (该, 准备, 打算, 明天): 该割肉了 is not a look back at a trade.
* ``money`` — the user's own money (亏, 套, 钱, 梭哈…): with a first-person word and no other
  cue, the overview is included anyway (recall first, `_own_money`).
* ``market`` / ``tech`` — market-wide stock picking (哪只股票值得买) and technical 配置
  (配置 Python 环境) keep 哪只 and 配置 from counting.
* ``replay`` (复盘) with ``recap`` (its object is the market) or ``personal`` (my trades);
  ``which`` / ``which_any`` / ``configure`` — 哪只, 哪个, 配置, which count only in context;
  ``self`` — a first-person word, which keeps the set and position cues the user's.

Rules rather than a trained model: measured on the held-out corpus (data/selection, see
docs/benchmarks.md), scored cues reach the goal and explain themselves in `/context`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache

from pixiu_cli.market.names.codes import normalize
from pixiu_cli.market.names.rules import compiled, joined, table


class Intent(StrEnum):
    PORTFOLIO_REVIEW = "portfolio_review"
    SINGLE_STOCK = "single_stock"
    TRADE_REVIEW = "trade_review"
    GENERAL = "general"


class Group(StrEnum):
    """What a cue says about the message (the module docstring says how each decides)."""

    TRADE = "trade"
    REPLAY = "replay"
    RECAP = "recap"
    PERSONAL = "personal"
    SET = "set"
    POSITION = "position"
    WHICH = "which"
    WHICH_ANY = "which_any"
    CONFIGURE = "configure"
    OTHERS = "others"
    SELF = "self"
    KNOWLEDGE = "knowledge"
    MARKET = "market"
    TECH = "tech"
    PLAN = "plan"
    MONEY = "money"
    MEASURE = "measure"


# Somebody else's positions make these the other person's, not the user's.
_MINE_ONLY = frozenset(
    {Group.SET, Group.POSITION, Group.WHICH, Group.WHICH_ANY, Group.CONFIGURE, Group.MONEY, Group.MEASURE}
)
# The cues that show a trade review in the explanation.
_TRADE_EVIDENCE = frozenset({Group.TRADE, Group.REPLAY, Group.PERSONAL})


@dataclass(frozen=True)
class Cue:
    name: str
    group: Group
    pattern: re.Pattern[str]
    why: str  # Chinese, shown in /context
    whole_word: bool = False  # a match inside a longer word does not count (其他的 ⊅ 他的)


@dataclass(frozen=True)
class FiredCue:
    name: str
    group: str
    matched: str
    why: str


@dataclass(frozen=True)
class IntentResult:
    intent: Intent
    overview: bool  # inject every holding's profile
    cues: tuple[FiredCue, ...]
    reason: str  # one line, Chinese
    compact: bool = False  # the overview in one short line a holding (recall first)


@dataclass(frozen=True)
class _Context:
    """Patterns the rules read besides the cues."""

    which: re.Pattern[str]  # 哪只 counts with one of these
    which_other: re.Pattern[str]  # 哪只 of animals or shoes (我家猫哪只最胖) never counts
    which_any: re.Pattern[str]  # 哪个 / 哪些 / 谁 counts only with one of these
    others_positions: re.Pattern[str]  # 机构重仓股 inside a question about mine
    role_choice: re.Pattern[str]  # which of several named stocks is the core position
    concept_set_cues: frozenset[str]  # set cues that are also the names of concepts
    plan_cancels: frozenset[str]  # trade cues a plan (该, 准备, 明天…) makes a future action


@cache
def cues() -> tuple[Cue, ...]:
    """The cues of ``data/selection/rules/intent.toml``, in file order."""
    return tuple(
        Cue(
            c["name"],
            _group(c),
            compiled(joined(c["pattern"]), re.IGNORECASE),
            c["why"],
            bool(c.get("whole_word", False)),
        )
        for c in table("intent.toml")["cue"]
    )


def _group(cue: dict) -> Group:
    try:
        return Group(cue["group"])
    except ValueError:
        raise ValueError(f"selection rules: cue {cue['name']!r} has an unknown group {cue['group']!r}") from None


@cache
def _context() -> _Context:
    data = table("intent.toml")["context"]
    return _Context(
        which=compiled(joined(data["which"])),
        which_other=compiled(joined(data["which_other"])),
        which_any=compiled(joined(data["which_any"])),
        others_positions=compiled(joined(data["others_positions"]), re.IGNORECASE),
        role_choice=compiled(joined(data["role_choice"])),
        concept_set_cues=frozenset(data["concept_set_cues"]),
        plan_cancels=frozenset(data["plan_cancels"]),
    )


def warm() -> None:
    cues()
    _context()


def fired_cues(text: str) -> list[FiredCue]:
    """Every cue that matches the (normalised) text, with the matched words."""
    return list(_fired(text))


@lru_cache(maxsize=256)
def _fired(text: str) -> tuple[FiredCue, ...]:
    # Remembered: a message is read twice (without, then with the stocks it names).
    fired = []
    for cue in cues():
        # A whole-word cue is matched as a substring here and checked against word
        # boundaries only when it decides (`_whole_words`): the segmenter loads rarely.
        match = cue.pattern.search(text)
        if match:
            fired.append(FiredCue(cue.name, cue.group, match.group(), cue.why))
    return tuple(fired)


def _whole_words(text: str, fired: list[FiredCue]) -> list[FiredCue]:
    """The fired cues, without whole-word cues found only inside longer words (其他的 ⊅ 他的)."""
    marked = {c.name: c for c in cues() if c.whole_word}
    kept = []
    for fired_cue in fired:
        cue = marked.get(fired_cue.name)
        if cue is None:
            kept.append(fired_cue)
        elif match := _whole_word_match(cue, text):
            kept.append(FiredCue(cue.name, cue.group, match.group(), cue.why))
    return kept


def _without_others_positions(text: str) -> str:
    """The text without somebody else's positions (机构重仓股), each a whole word: 其他的持仓
    is the user's other holdings, not 他的持仓."""

    def whole_only(match: re.Match[str]) -> str:
        from pixiu_cli.market.names.words import segment

        return "" if segment(text).whole(*match.span()) else match.group()

    return _context().others_positions.sub(whole_only, text)


def _whole_word_match(cue: Cue, text: str) -> re.Match[str] | None:
    from pixiu_cli.market.names.words import segment  # the segmenter loads only for such a cue

    for match in cue.pattern.finditer(text):
        if segment(text).whole(*match.span()):
            return match
    return None


@dataclass(frozen=True)
class _Reading:
    """One message as the rules read it: its cues, with somebody else's positions set aside."""

    text: str
    symbols: Sequence[str]
    fired: list[FiredCue]
    trade: bool  # decided on every cue, before somebody else's positions are set aside
    others: list[FiredCue]  # the cues that made the positions somebody else's

    def has(self, group: Group) -> bool:
        return any(c.group == group for c in self.fired)

    def of(self, *groups: Group) -> list[FiredCue]:
        return [c for c in self.fired if c.group in groups]

    @property
    def conceptual(self) -> bool:
        """A definition or rule question, not about the user's own money."""
        return self.has(Group.KNOWLEDGE) and not self.has(Group.SELF)


def _read(text: str, symbols: Sequence[str], fired: list[FiredCue]) -> _Reading:
    groups = {c.group for c in fired}
    if Group.PLAN in groups:  # 该割肉了 is a plan, not a look back at a trade
        fired = [c for c in fired if c.name not in _context().plan_cancels]
        groups = {c.group for c in fired}
    replay_of_mine = Group.REPLAY in groups and not (Group.RECAP in groups and Group.PERSONAL not in groups)
    trade = Group.TRADE in groups or replay_of_mine
    if Group.OTHERS in groups and Group.SELF not in groups and groups & _MINE_ONLY:
        fired = _whole_words(text, fired)
        groups = {c.group for c in fired}
    if Group.OTHERS in groups and Group.SELF not in groups:
        others = [c for c in fired if c.group == Group.OTHERS]
        return _Reading(text, symbols, [c for c in fired if c.group not in _MINE_ONLY], trade, others)
    # 机构重仓股 inside a question about my holdings is still market data.
    stripped = _without_others_positions(text)
    if stripped != text:
        fired = fired_cues(stripped)
    return _Reading(text, symbols, fired, trade, [])


def _trade_review(r: _Reading) -> IntentResult | None:
    """A look back at the user's own trades wins; with a set cue it covers the portfolio."""
    if not r.trade:
        return None
    set_cues = r.of(Group.SET)
    overview = any(c.name != "调仓" for c in set_cues)
    used = r.others + r.of(*_TRADE_EVIDENCE) + (set_cues if overview else [])
    reason = "回看自己的交易" + ("，范围是整个组合" if overview else "")
    return IntentResult(Intent.TRADE_REVIEW, overview, tuple(used), reason)


def _portfolio_as_a_whole(r: _Reading) -> IntentResult | None:
    """A set cue (or choosing roles among several named stocks): the overview, plus any
    named stock's section; a concept asked about in general is not the user's portfolio."""
    set_cues = r.of(Group.SET)
    role = _context().role_choice.search(r.text)
    if role and len(r.symbols) > 1:
        set_cues.append(FiredCue("在几只中选定位", Group.SET, role.group(), "在几只持仓中挑核心 / 卫星"))
    if r.conceptual:
        # 什么是再平衡 asks about a concept, not about the user's own portfolio.
        set_cues = [c for c in set_cues if c.name not in _context().concept_set_cues]
    if not set_cues:
        return None
    reason = "说的是整个持仓" + ("，同时点名了个股：概览 + 个股" if r.symbols else "")
    return IntentResult(Intent.PORTFOLIO_REVIEW, True, tuple(r.others + set_cues), reason)


def _named_stock(r: _Reading) -> IntentResult | None:
    """A named stock without a set cue: position words are about that stock."""
    if not r.symbols:
        return None
    reason = "点名了个股，仓位词说的是这只股票" if r.of(Group.POSITION) else "点名了个股"
    return IntentResult(Intent.SINGLE_STOCK, False, tuple(r.others), reason)


def _position_words_only(r: _Reading) -> IntentResult | None:
    """Position words (or 哪只, 哪个, 配置 in context) with no stock named: the portfolio."""
    weak = _weak_cues(r)
    if not weak:
        return None
    return IntentResult(Intent.PORTFOLIO_REVIEW, True, tuple(r.others + weak), "没有点名个股，仓位类问题指向整个持仓")


def _own_money(r: _Reading) -> IntentResult | None:
    """Recall first: the user's own money (a first-person word and a money word) with no
    clearer cue. A missing overview makes a wrong answer, an extra one costs tokens."""
    if r.symbols or not r.has(Group.SELF) or not r.has(Group.MONEY) or r.conceptual:
        return None
    used = r.of(Group.SELF, Group.MONEY)
    why = "说的是自己的钱，意图不确定：召回优先，附上精简的持仓概览"
    return IntentResult(Intent.PORTFOLIO_REVIEW, True, tuple(used), why, compact=True)


def _general(r: _Reading) -> IntentResult:
    return IntentResult(Intent.GENERAL, False, tuple(r.others), "没有持仓或个股线索")


# Tried in order; the first that applies decides.
_RULES: tuple[Callable[[_Reading], IntentResult | None], ...] = (
    _trade_review,
    _portfolio_as_a_whole,
    _named_stock,
    _position_words_only,
    _own_money,
    _general,
)


def _decide(text: str, symbols: Sequence[str], fired: list[FiredCue]) -> IntentResult:
    reading = _read(text, symbols, fired)
    for rule in _RULES:
        result = rule(reading)
        if result is not None:
            return result
    raise AssertionError("the last rule always decides")


def _weak_cues(r: _Reading) -> list[FiredCue]:
    if r.conceptual:
        return []
    text = _without_others_positions(r.text)
    last = {c.group: c for c in r.fired}
    weak = r.of(Group.POSITION)
    which = last.get(Group.WHICH)
    if which and not _context().which_other.search(text) and (_context().which.search(text) or not r.has(Group.MARKET)):
        weak.append(which)
    which_any = last.get(Group.WHICH_ANY)
    if which_any and _context().which_any.search(text):
        weak.append(which_any)
    configure = last.get(Group.CONFIGURE)
    if configure and not r.has(Group.TECH):
        weak.append(configure)
    if not r.has(Group.MARKET) or _context().which.search(text):
        weak += r.of(Group.MEASURE)
    return weak


# A question is short; a pasted document is not read whole for cues (its head and tail
# carry the question), so a 50,000-character paste costs what a 1,500-character one does.
HEAD, TAIL = 1000, 500


def _question_part(text: str) -> str:
    return text if len(text) <= HEAD + TAIL else text[:HEAD] + "\n" + text[-TAIL:]


def analyze(text: str, symbols: Sequence[str] = ()) -> IntentResult:
    """The intent of a normalised message; `symbols` are the stocks it names."""
    text = _question_part(text)
    return _decide(text, symbols, fired_cues(text))


def detect_intent(text: str, symbols: Sequence[str] = ()) -> Intent:
    """Classify a user message; `symbols` are the stocks found in it."""

    return analyze(normalize(text), symbols).intent


def is_portfolio_question(text: str) -> bool:
    """True when a message that names no stock asks about the portfolio as a whole."""

    result = analyze(normalize(text), ())
    return result.intent is Intent.PORTFOLIO_REVIEW
