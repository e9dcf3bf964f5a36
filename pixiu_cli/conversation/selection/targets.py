"""Every memory class is a selection target: which of the account's classes a message asks
about — the account (cash, total assets, buying power), the trades (with realised P&L, the
fees and taxes they paid, the dividends received), news and filings, the brief and reports,
rules, plans and views, the alerts that fired, the watch list — and what that does to the
intent the cues of `intent.py` decided.

The cues are data (``data/selection/rules/targets.toml``), matched on the normalised text
like every other cue (typos by pinyin through its vocabulary, traditional, width and case);
English cue words one letter off (wacthlist) are read as the word here. `refine` then:

* the account → the portfolio overview (with a named stock: the stock and the overview);
* a trade → a trade review; a realised-P&L word alone never overrides a question about the
  holdings (`weak`), and a plan (该, 准备, 明天…) is no look back;
* the watch list → neither the holdings overview nor a portfolio question: the list itself;
* one named stock measured against the rest (除了讯飞其他几只, 拖累了组合) → the stock's
  section and the overview;
* a question about no account of the user's, each a class with its reason (`outside`):
  somebody else's money (relatives, friends, fund managers, 大V, 股吧), the crowd's talk
  (网上都说…该信吗), money in daily life (微信支付, 余额宝, 零花钱, 房贷), a question of
  knowledge asked without a first person → none of the account's classes, and no overview;
  the user's own words (我的仓位, 我持仓) keep a question theirs though others are named.

Each decision adds its cues to the explanation (`FiredCue`, group ``target:<class>``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from pixiu_cli.conversation.selection.intent import FiredCue, Group, Intent, IntentResult, fired_cues
from pixiu_cli.conversation.selection.windows import spans_text
from pixiu_cli.market.names.rules import compiled, joined, table

ACCOUNT, PERFORMANCE, RISK, TRADES, NEWS, BRIEF, RULES, PLANS, WATCHLIST, ALERTS = (
    "account",
    "performance",
    "risk",
    "trades",
    "news",
    "brief",
    "rules",
    "plans",
    "watchlist",
    "alerts",
)
CLASSES = (ACCOUNT, PERFORMANCE, RISK, TRADES, NEWS, BRIEF, RULES, PLANS, WATCHLIST, ALERTS)
# Set cues a watch-list question may hold without being about the holdings (我关注的那几只).
_LOOSE_SET_CUES = frozenset({"这几只", "我买的几只", "手上的票", "持有的几只", "我的票"})


@dataclass(frozen=True)
class _Cue:
    name: str
    target: str
    pattern: re.Pattern[str]
    why: str
    named: bool | None  # only with a named stock (True), only without (False), either (None)
    weak: bool
    period: bool  # counts only right after a named period


@dataclass(frozen=True)
class _Outside:
    """A class of questions about no account of the user's (somebody else's money, the
    crowd's talk, money in daily life, general knowledge)."""

    name: str
    pattern: re.Pattern[str]
    unless: re.Pattern[str]  # the user's own after all
    why: str  # Chinese; {} is the words that matched
    named: bool | None  # only with a named stock (True), only without (False), either (None)


@dataclass(frozen=True)
class _Rules:
    cues: tuple[_Cue, ...]
    outside: tuple[_Outside, ...]
    market: re.Pattern[str]
    company: re.Pattern[str]
    first_person: re.Pattern[str]
    rest: re.Pattern[str]
    rest_why: str
    object_pointer: re.Pattern[str]
    follow_up_chars: int
    english: tuple[str, ...]
    evidence: re.Pattern[str]  # any cue word: evidence that a short name next to it is the stock
    asker: re.Pattern[str]  # 老伴问的, 儿子打的字: who asks or types for the user, at the end
    asker_first: re.Pattern[str]  # 孙子帮问：爷爷的…: the same, opening the message


def _compiled(value) -> re.Pattern[str]:
    # ASCII word boundaries: \bplan\b holds in 宁德的plan (a Chinese character is no letter)
    return compiled(joined(value), re.IGNORECASE | re.ASCII)


@cache
def rules() -> _Rules:
    data = table("targets.toml")
    cues = tuple(
        _Cue(
            c["name"],
            _target(c),
            _compiled(c["pattern"]),
            c["why"],
            c.get("named"),
            bool(c.get("weak", False)),
            bool(c.get("period", False)),
        )
        for c in data["cue"]
    )
    negative, rest, follow = data["negative"], data["rest"], data["follow_up"]
    plain = [joined(c["pattern"]) for c in data["cue"] if not c.get("period")]
    return _Rules(
        cues,
        tuple(
            _Outside(o["name"], _compiled(o["pattern"]), _compiled(o["unless"]), o["why"], o.get("named"))
            for o in data["outside"]
        ),
        _compiled(negative["market"]),
        _compiled(negative["company"]),
        _compiled(negative["first_person"]),
        _compiled(rest["pattern"]),
        rest["why"],
        _compiled(follow["object_pointer"]),
        int(follow["max_chars"]),
        tuple(data["english"]),
        compiled("|".join(f"(?:{p})" for p in plain), re.IGNORECASE | re.ASCII),
        _compiled(negative["asker"]),
        _compiled(negative["asker_first"]),
    )


def _target(cue: dict) -> str:
    if cue["target"] not in CLASSES:
        raise ValueError(f"selection rules: cue {cue['name']!r} has an unknown target {cue['target']!r}")
    return cue["target"]


def warm() -> None:
    rules()


def _one_letter_off(word: str, known: str) -> bool:
    """The same length, and one letter changed or two neighbours swapped."""
    if len(word) != len(known) or word == known:
        return False
    differ = [i for i, (a, b) in enumerate(zip(word, known)) if a != b]
    if len(differ) == 1:
        return len(word) >= 5
    return len(differ) == 2 and differ[1] == differ[0] + 1 and word[differ[0]] == known[differ[1]]


def english_fixed(text: str) -> str:
    """The text with English cue words one letter off read as the word (the same length)."""
    if not re.search(r"[a-z]{4}", text):
        return text
    known = rules().english

    def fix(match: re.Match[str]) -> str:
        word = match.group()
        return next((k for k in known if _one_letter_off(word, k)), word)

    return re.sub(r"[a-z]{4,}", fix, text)


@dataclass(frozen=True)
class Reading:
    """The classes a message asks about, with the cues that said so."""

    text: str
    fired: tuple[FiredCue, ...]
    weak: frozenset[str]  # classes only weak cues named

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.group.removeprefix("target:") for c in self.fired))

    def has(self, target: str) -> bool:
        return target in self.targets


def read(text: str, named: bool) -> Reading:
    """The target cues of a normalised message; `named`: it names a stock."""
    text = english_fixed(text)
    periods = spans_text(text)
    fired, strong = [], set()
    for cue in rules().cues:
        if cue.named is not None and cue.named != named:
            continue
        match = _after_period(cue.pattern, text, periods) if cue.period else cue.pattern.search(text)
        if match:
            fired.append(FiredCue(cue.name, f"target:{cue.target}", match.group(), cue.why))
            if not cue.weak:
                strong.add(cue.target)
    weak = frozenset(c.group.removeprefix("target:") for c in fired) - strong
    return Reading(text, tuple(fired), weak)


def fired_names(text: str, named: bool) -> tuple[str, ...]:
    """The names of the target cues a normalised message fires, whichever step decided its intent."""
    return tuple(c.name for c in read(text, named).fired)


def _after_period(pattern: re.Pattern[str], text: str, periods: list[tuple[int, int]]) -> re.Match[str] | None:
    for _, end in periods:
        match = pattern.match(text, end)
        if match:
            return match
    return None


def against_rest(text: str) -> bool:
    """The message measures something against the rest of the holdings (除了宁德其他几只)."""
    return rules().rest.search(text) is not None


def outside(text: str, named: bool = False) -> FiredCue | None:
    """The class of a message about no account of the user's — somebody else's money, the
    crowd's talk, money in daily life, a question of knowledge asked without a first person
    and about no stock of theirs (`named`: 双汇的计划是什么 asks about the user's plan) — as
    a cue for the explanation; None when it may be the user's."""
    for kind in rules().outside:
        if kind.named is not None and kind.named != named:
            continue
        found = kind.pattern.search(text)
        if found and not kind.unless.search(text):
            return FiredCue(kind.name, "not_mine", found.group(), kind.why.format(found.group()))
    return None


def not_the_users(text: str, named: bool = False) -> str | None:
    """Why a message is about no account of the user's (`outside`), None when it may be."""
    found = outside(text, named)
    return found.why if found else None


def without_asker(text: str) -> str:
    """The text without a closing note of who asks or types for the user (整体仓位呢 老伴问,
    儿子打的字): the question is about the user's account all the same; offsets kept."""
    for pattern in (rules().asker, rules().asker_first):
        if found := pattern.search(text):
            text = text[: found.start()] + "\u3000" * (found.end() - found.start()) + text[found.end() :]
    return text


def refine(result: IntentResult, text: str, symbols: Sequence[str]) -> tuple[IntentResult, tuple[str, ...]]:
    """The intent with the account's classes read in, and the classes the message asks about."""
    reading = read(text, bool(symbols))
    # somebody else's positions, as the intent's cues read them (北向今天加仓了多少)
    others = [c for c in result.cues if c.group == Group.OTHERS and _whole_word(text, c.matched)]
    if others and set(reading.targets) <= _STORED_ITEMS and reading.targets:
        others = []  # 券商那份报告: an item of the user's memory named by what it is about
    not_mine = outside(text, bool(symbols))
    if not_mine is not None and not_mine.name == _LIFE_MONEY and _names_an_item(text, not_mine.matched, reading):
        not_mine = None  # 红包简报: the report is named by what it was about
    if not_mine is None and others:
        why = f"说的是别人的仓位或交易（“{others[0].matched}”）"
        not_mine = FiredCue(others[0].name, "not_mine", others[0].matched, why)
    if not_mine is not None:
        return _outside(result, symbols, not_mine), ()
    targets = reading.targets
    if TRADES in targets and rules().market.search(text) and not rules().first_person.search(text):
        reading = Reading(reading.text, tuple(c for c in reading.fired if c.group != f"target:{TRADES}"), reading.weak)
        targets = reading.targets
    if PERFORMANCE in targets and (
        _the_markets_own(reading, text) or (TRADES in targets and TRADES not in reading.weak)
    ):
        # the market's own return; or a trade looked back on (上半年割肉的那只亏了多少): its review
        reading = Reading(
            reading.text, tuple(c for c in reading.fired if c.group != f"target:{PERFORMANCE}"), reading.weak
        )
        targets = reading.targets
    for step in (_watchlist, _rest_of_portfolio, _performance, _account, _trades):
        decided = step(result, reading, symbols)
        if decided is not None:
            result = decided
            break
    if result.intent is Intent.TRADE_REVIEW and TRADES not in targets:
        targets = (*targets, TRADES)
    return result, targets


# The classes of the user's stored items (a report, a news item, a plan, an alert) that a
# question names by its subject, a fund or a broker, without being about their money.
_STORED_ITEMS = frozenset({"brief", "news", "plans", "alerts", "rules"})


_LIFE_MONEY = "生活里的钱"  # targets.toml's class of money of daily life
RELATIVE_CLASS = "别人的钱"  # targets.toml's class of somebody else's money or doings


def _names_an_item(text: str, word: str, reading: Reading) -> bool:
    """Whether `word`, money of daily life, names one of the user's
    stored items right after it (红包简报, 压岁钱那条计划): the item, not the money, is asked."""
    if not reading.targets or not set(reading.targets) <= _STORED_ITEMS:
        return False
    after = text[text.find(word) + len(word) :]
    return any(
        re.match(rf"(?:的|那份|那篇|那条|那个|这份|这条)?{re.escape(cue.matched)}", after) for cue in reading.fired
    )


def _whole_word(text: str, word: str) -> bool:
    """`word` stands as whole words where it first occurs (其他的 holds no 他的)."""
    from pixiu_cli.market.names.words import segment  # the segmenter loads only for such a cue

    start = text.find(word)
    return start < 0 or segment(text).whole(start, start + len(word))


def _outside(result: IntentResult, symbols: Sequence[str], not_mine: FiredCue) -> IntentResult:
    """No account of the user's: the class shows in the explanation; with no stock named,
    no portfolio either."""
    cues = (*result.cues, not_mine) if not_mine not in result.cues else result.cues
    if symbols:
        return IntentResult(result.intent, result.overview, cues, result.reason, result.compact)
    return IntentResult(Intent.GENERAL, False, cues, not_mine.why)


def _with_cues(result: IntentResult, intent: Intent, overview: bool, cues, reason: str) -> IntentResult:
    return IntentResult(intent, overview, (*result.cues, *cues), reason)


def _cues_of(reading: Reading, target: str) -> tuple[FiredCue, ...]:
    return tuple(c for c in reading.fired if c.group == f"target:{target}")


def _watchlist(result: IntentResult, reading: Reading, symbols: Sequence[str]) -> IntentResult | None:
    """The watch list: the list itself, not the holdings (a named stock keeps its section)."""
    if not reading.has(WATCHLIST):
        return None
    strong_set = [c for c in result.cues if c.group == Group.SET and c.name not in _LOOSE_SET_CUES]
    if strong_set:
        return None
    cues = tuple(c for c in result.cues if c.group != Group.SET) + _cues_of(reading, WATCHLIST)
    if symbols:
        return IntentResult(Intent.SINGLE_STOCK, False, cues, "问自选中的个股：个股 + 自选列表")
    return IntentResult(Intent.GENERAL, False, cues, "问的是自选 / 关注列表，不是持仓：注入自选列表")


def _rest_of_portfolio(result: IntentResult, reading: Reading, symbols: Sequence[str]) -> IntentResult | None:
    """One named stock measured against the rest: its section and the overview."""
    if not symbols or result.intent is Intent.TRADE_REVIEW:
        return None
    match = rules().rest.search(reading.text)
    if match is None or not_the_users(reading.text, True):
        return None
    cue = FiredCue("一只对其余", "target:rest", match.group(), rules().rest_why)
    return _with_cues(result, Intent.PORTFOLIO_REVIEW, True, (cue,), "一只股票和其余持仓比：个股 + 持仓概览")


def _account(result: IntentResult, reading: Reading, symbols: Sequence[str]) -> IntentResult | None:
    """Cash, total assets, buying power: the account as a whole (with a named stock, both)."""
    if not reading.has(ACCOUNT) or result.intent is Intent.TRADE_REVIEW:
        return None
    reason = "问账户的现金 / 总资产 / 购买力" + ("，同时点名了个股：概览 + 个股" if symbols else "：注入持仓概览")
    return _with_cues(result, Intent.PORTFOLIO_REVIEW, True, _cues_of(reading, ACCOUNT), reason)


def _the_markets_own(reading: Reading, text: str) -> bool:
    """The market's, an index's or a company's own return (大盘今年收益怎么样, 这家公司今年赚了多少),
    not the user's: such a word, no first person, and nothing measured against the market (跑赢大盘
    is the user's)."""
    if rules().first_person.search(text) or not (rules().market.search(text) or rules().company.search(text)):
        return False
    return not any(c.name == "跑赢大盘" for c in _cues_of(reading, PERFORMANCE))


def _performance(result: IntentResult, reading: Reading, symbols: Sequence[str]) -> IntentResult | None:
    """The account's return over a period, its drawdown, or how it did against the market: the
    returns section and the overview (with a named stock, its section too)."""
    if not reading.has(PERFORMANCE) or result.intent is Intent.TRADE_REVIEW:
        return None  # 复盘今年的表现: the trade review, with the returns section beside it
    reason = "问账户一段时间的收益 / 回撤 / 与大盘比：注入账户收益和持仓概览" + ("，同时点名了个股" if symbols else "")
    return _with_cues(result, Intent.PORTFOLIO_REVIEW, True, _cues_of(reading, PERFORMANCE), reason)


def _trades(result: IntentResult, reading: Reading, symbols: Sequence[str]) -> IntentResult | None:
    """A look back at the user's own trades; a plan is none, and a realised-P&L word alone
    leaves a question about the holdings as it was."""
    if not reading.has(TRADES) or result.intent is Intent.TRADE_REVIEW:
        return None
    if TRADES in reading.weak and result.intent is Intent.PORTFOLIO_REVIEW:
        return None
    if any(c.group == Group.PLAN for c in fired_cues(reading.text)) and not _record(reading):
        return None
    set_cues = [c for c in result.cues if c.group == Group.SET and c.name != "调仓"]
    reason = "回看自己的交易（成交与已实现盈亏）" + ("，范围是整个组合" if set_cues else "")
    return IntentResult(Intent.TRADE_REVIEW, bool(set_cues), (*set_cues, *_cues_of(reading, TRADES)), reason)


def _record(reading: Reading) -> bool:
    """A trade record or a trade done (not only planned): 交割单, 那笔, 卖过."""
    return any(
        c.name in ("成交记录", "做过的交易", "一段时间的买卖", "英文：trades") for c in _cues_of(reading, TRADES)
    )
