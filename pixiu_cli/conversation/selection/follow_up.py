"""The conversation's state, and the one operation a follow-up applies to it.

Each earlier turn's selection (itself resolved against the turns before it) leaves a focus
(`ConversationState`): the stocks it named or carried (and those the brief it read named,
`Selection.objects`), the portfolio overview, the topic it asked (a stock's 基本面, the
holdings' valuation lines: `selection/topics.py`) and the memory classes it asked about
(`selection/targets.py`). `resolve(current, earlier)` takes the selection of a message read
on its own — English markers first read as the Chinese ones (what about its PE → 那它pe,
compare it with X → 它对比X, apart from it → 除了它) — and applies exactly one operation:

* keep — the same focus: "这俩 / 它俩 / them" → the two stocks last named (in one turn or
  over two); "它 / 这只 / it" → the one last named; a short question about one memory class
  (有公告吗, 按计划该咋办, 钱够吗) → the stocks of the last turn that named some, in that
  class; a short question that needs an object and names none (加多少合适, 分红稳定吗) → the
  last turn's object; after a portfolio question 哪只最弱 keeps the portfolio and its topic;
* replace — a new stock, the same kind of question (那三一呢, what about X);
* same_topic — a replace after a turn that asked a topic or a memory class: the new stock
  with it (那汾酒呢 after a dividend question gets 汾酒's 基本面);
* add — a comparison whose first term is missing or a pronoun, or a pronoun joined to a
  named stock: the focus stocks, then the named ones (和汾酒比呢, 拿它和万华对比下, 这俩和兴业
  比呢, 那它和兴业呢, vs 青啤, compare it with 三一);
* complement — the others, no stock named: the rest of the portfolio, the focus stocks left
  out (其他几只呢, 除了它其他几只怎么样, apart from it, how are the others);
* widen — the portfolio: 整体呢 / overall, a portfolio question of its own after a stock
  question (组合防守够不够: recorded, the question chose the portfolio itself), and a pointer
  with a portfolio word or measured against the rest (那它能不能放进我的组合, 它和其他几只比,
  跟我其他持仓比呢: the stock and the overview).

A topic goes with the focus only to a follow-up that asks nothing of its own (它呢, 那汾酒呢,
哪只最弱); one that names what it asks (它的走势呢) is a new question. A concept question
(什么是市盈率) and a comparison with both its terms (洋河和双汇比呢) stand alone. Every stock
taken from an earlier turn is recorded with the turn it came from (`Carried`), and the
operation with the turn whose focus it used (`Operation`), so `/context --explain` says what
the follow-up did and to which question (and, for a brief's stock, which brief named it).
A follow-up's place is evidence of a stock (`named_in_place`, read before the operation): in
a conversation about stocks, the term after 和…比 / 对比 / 那…呢 / vs / and, or at the start
of a short question of its own (水井坊年报几号出), is a stock even when alone it would need
evidence, and a term the table does not match is the stock whose name it starts — one of the
investor's own (and 丽江? → 丽江股份), else one listed stock if the term is no everyday word
(和广汽比呢 → 广汽集团), of several the one in the focus stock's industry (申通 after 韵达).
English it / they / and / what about count only with company (a second marker, a named stock,
an investing word): "it is raining" and "and you?" are no follow-ups. The
patterns are data (``[follow_up]`` of ``data/selection/rules/mentions.toml`` and of
``targets.toml``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from pixiu_cli.conversation.selection import targets as memory
from pixiu_cli.conversation.selection.intent import Group, Intent
from pixiu_cli.conversation.selection.result import Carried, MentionNote, Operation, Selection
from pixiu_cli.conversation.selection.topics import FUNDAMENTALS, NO_TOPICS, Topics, asks_concept, read_topics
from pixiu_cli.conversation.selection.topics import words as topic_words
from pixiu_cli.market.names.rules import compiled, joined, table
from pixiu_cli.market.names.table import FULL, HOMOPHONE, INDEX, SHADOW, SHORT, NameTable
from pixiu_cli.market.securities import shipped_security_list

__all__ = ["EARLIER_TURNS", "EarlierTurn", "named_in_place", "resolve", "warm"]

# How many earlier user messages a follow-up can reach back to.
EARLIER_TURNS = 4
# A follow-up is short; a longer message stands on its own. An English word counts as one.
_SHORT, _POINTER_SHORT = 14, 24

KEEP, REPLACE, SAME_TOPIC, ADD, COMPLEMENT, WIDEN = ("keep", "replace", "same_topic", "add", "complement", "widen")


@dataclass(frozen=True)
class EarlierTurn:
    message: str
    selection: Selection


@dataclass(frozen=True)
class ConversationState:
    """The earlier turns within reach, oldest first, and the focus they leave."""

    turns: tuple[EarlierTurn, ...]

    @property
    def last(self) -> Selection:
        return self.turns[-1].selection

    def named(self, count: int) -> list[Carried]:
        """The `count` stocks last named, most recent turn first, then returned oldest
        first; each with the turn that first named it."""
        found: dict[str, tuple[int, int, Carried]] = {}  # symbol → (turn distance, position, origin)
        for distance, turn in enumerate(reversed(self.turns), 1):
            for position, carried in _turn_stocks(turn, distance):
                if carried.symbol not in found and len(found) < count:
                    found[carried.symbol] = (distance, position, carried)
            if len(found) >= count:
                break
        return [c for _, _, c in sorted(found.values(), key=lambda f: (-f[0], f[1]))]

    def focus_stocks(self) -> list[Carried]:
        """Every stock of the latest turn that named some (its own or its brief's)."""
        for turn in reversed(self.turns):
            count = len({*turn.selection.symbols, *(c.symbol for c in turn.selection.objects)})
            if count:
                return self.named(count)
        return []

    def operation(self, name: str, carried: Sequence[Carried] = ()) -> Operation:
        """`name` applied to the focus of the nearest turn it used (the last turn when it
        took no stock)."""
        if carried:
            nearest = min(carried, key=lambda c: c.turns_ago)
            return Operation(name, nearest.turns_ago, nearest.message)
        return Operation(name, 1, self.turns[-1].message)

    def topics_for(self, symbols: Sequence[str], overview: bool) -> Topics:
        """The last turn's fundamentals topic, aimed at the new object: the named stocks'
        基本面, or for the portfolio every holding's valuation line. The market section is
        a question of its own and is not carried."""
        topics = self.last.topics
        if not (topics.fundamentals or topics.holdings_fundamentals):
            return NO_TOPICS
        cues = tuple(c for c in topics.cues if c.group == FUNDAMENTALS)
        return Topics(bool(symbols), not symbols and overview, False, cues)


def _turn_stocks(turn: EarlierTurn, distance: int) -> list[tuple[int, Carried]]:
    """A turn's stocks, last first, with their origin: carried from a turn before it, named
    by the brief it read, or named by its question."""
    selection = turn.selection
    origin = {c.symbol: c for c in selection.carried}
    objects = {c.symbol: c for c in selection.objects}
    symbols = [*selection.symbols, *(s for s in objects if s not in selection.symbols)]
    found = []
    for position in range(len(symbols) - 1, -1, -1):
        symbol = symbols[position]
        source = origin.get(symbol)
        via = objects[symbol].via if symbol in objects and symbol not in selection.symbols else ""
        carried = (
            Carried(symbol, source.turns_ago + distance, source.message, source.via)
            if source
            else Carried(symbol, distance, turn.message, via)
        )
        found.append((position, carried))
    return found


@dataclass(frozen=True)
class _Rules:
    punctuation: re.Pattern[str]
    rest: re.Pattern[str]  # the other holdings, the whole message
    others: re.Pattern[str]  # the other holdings, anywhere
    exclude: re.Pattern[str]  # leaving the focus out (除了它)
    compare: re.Pattern[str]  # a comparison without its first term
    compares: re.Pattern[str]  # a comparison at all
    joined_pointer: re.Pattern[str]  # a pronoun joined to a named stock (那它和白药呢)
    joined_alone: re.Pattern[str]  # a stock joined without 比 (和中国重汽呢): both when of one industry
    whole: re.Pattern[str]  # the portfolio
    pronoun: re.Pattern[str]  # the stock just discussed, at the start
    elliptical: re.Pattern[str]  # leans on the previous turn at all
    pair: re.Pattern[str]  # the two stocks just discussed
    pointer: re.Pattern[str]  # the stock just discussed, anywhere
    needs_object: re.Pattern[str]  # a question that needs an object
    criterion: re.Pattern[str]  # asks something of its own (走势, 回撤): the last turn's topic is not
    english: tuple[tuple[re.Pattern[str], str, bool], ...]  # English markers → the Chinese ones (weak?)
    english_evidence: re.Pattern[str]  # company for a weak English marker
    slots: tuple[re.Pattern[str], ...]  # where a follow-up puts a stock (和X比, 那X呢): group "name"


@cache
def _rules() -> _Rules:
    data = dict(table("mentions.toml")["follow_up"])
    english = tuple((compiled(row[0]), row[1], "weak" in row[2:]) for row in data.pop("english"))
    slots = tuple(compiled(pattern) for pattern in data.pop("slots"))
    data["needs_object"] = [joined(data["needs_object"]), "|", topic_words("needs_object")]  # topics.toml's too
    data["criterion"] = [joined(table("mentions.toml")["mention"]["investing"]), "|", topic_words("investing")]
    compiled_rules = {key: compiled(joined(value)) for key, value in data.items()}
    return _Rules(**compiled_rules, english=english, slots=slots)


def warm() -> None:
    _rules()


@dataclass(frozen=True)
class _Reading:
    """A message as a follow-up is read: English markers in Chinese, no punctuation."""

    text: str
    length: int  # characters, an English word counting as one
    asked: str  # the text without the stocks it names and its pronouns: what it asks of its own


def _reading(current: Selection) -> _Reading:
    rules = _rules()
    text, strong = current.normalized, False
    for pattern, chinese, weak in rules.english:
        if not weak:
            text, found = pattern.subn(chinese, text)
            strong = strong or found > 0
    weak = [(pattern, chinese) for pattern, chinese, is_weak in rules.english if is_weak and pattern.search(text)]
    if weak and (strong or current.symbols or len(weak) > 1 or rules.english_evidence.search(text)):
        for pattern, chinese in weak:
            text = pattern.sub(chinese, text)
    bare = rules.punctuation.sub("", text)
    words = rules.punctuation.sub(" ", text)
    asked = rules.pointer.sub("", rules.pair.sub("", bare))
    for mention in current.mentions:
        if mention.accepted:
            asked = asked.replace(mention.text, "")  # 牧原股份's 股 asks nothing
    return _Reading(bare, len(re.sub(r"[a-z0-9.]+", "a", words).replace(" ", "")), asked)


def named_in_place(
    text: str, table: NameTable, notes: Sequence[MentionNote], earlier: Sequence[EarlierTurn]
) -> list[MentionNote] | None:
    """The mentions of `text` (normalised, in a conversation about stocks: the `earlier`
    turns) with the stock its follow-up's place names (和广汽比呢, and 丽江?, 水井坊年报几号出):
    a name judged there for want of evidence is the stock, a term the table does not match
    is the stock whose name it starts (`_stock_starting`). None when the place holds nothing new."""
    found = _place_term(text, notes)
    if found is None:
        return None
    term, label = found
    at = next((i for i, n in enumerate(notes) if n.text == term), None)
    if at is None and any(n.text in term or term in n.text for n in notes):
        return None
    note = notes[at] if at is not None else None
    if note is not None and (note.accepted or not note.symbol or note.kind in (INDEX, SHADOW)):
        return None
    started = _started(text, term, table, earlier, label) if note is None or note.form == HOMOPHONE else None
    kept = [n for n in notes if n is not note]
    if started is not None:  # a typo's reading gives way to a name the term starts (包钢, not 宝钢)
        return [*kept, started]
    if note is None:
        return None
    why = f"追问里{label}的位置是一只股票（最近几轮在谈股票），不再需要别的证据"
    return [*notes[:at], replace(note, accepted=True, why=why), *notes[at + 1 :]]


def _started(text: str, term: str, table: NameTable, earlier: Sequence[EarlierTurn], label: str) -> MentionNote | None:
    """The mention of the stock whose name `term` starts, if one (`_stock_starting`)."""
    focus = [c.symbol for c in ConversationState(tuple(earlier)).focus_stocks()] if earlier else []
    # an everyday word (黄金, 黄山) starting a question of its own is that thing unless the
    # question is about a company's fundamentals (黄山分红稳吗, not 黄金涨了)
    everyday = label != _OWN_QUESTION or bool(read_topics(text, True, False).cues)
    stock = _stock_starting(term, table, focus, everyday)
    if stock is None:
        return None
    symbol, name, whose = stock
    why = f"追问里{label}的位置是一只股票（最近几轮在谈股票）：“{term}”是{name}名称的开头，{whose}"
    return MentionNote(term, symbol, SHORT, True, why, of=name)


# What each of `[follow_up] slots` is, in the order written, and a question of its own.
_PLACES = ("“和…比”", "“对比…”", "“那…呢”")
_OWN_QUESTION = "“点名 + 自己的问题”"
_HAN = re.compile("[\u4e00-\u9fff]+")


def _place_term(text: str, notes: Sequence[MentionNote]) -> tuple[str, str] | None:
    """The term in a stock's place in a short follow-up (English markers read as Chinese),
    and what the place is: a comparison's second term, a replaced stock, or the name a
    question of its own starts with (a word about investing right after it)."""
    rules = _rules()
    bare = text
    for pattern, chinese, _ in rules.english:
        bare = pattern.sub(chinese, bare)
    bare = rules.punctuation.sub("", bare)
    if len(bare) > _POINTER_SHORT:
        return None
    for pattern, label in zip(rules.slots, _PLACES, strict=True):
        if found := pattern.search(bare):
            return found.group("name"), label
    named = [n.text for n in notes if bare.startswith(n.text)]
    starts = named or [bare[:size] for size in range(2, 6)]
    for term in starts:
        if _HAN.fullmatch(term) and rules.criterion.match(bare, len(term)):
            return term, _OWN_QUESTION
    return None


def _stock_starting(term: str, table: NameTable, focus: Sequence[str], everyday: bool) -> tuple[str, str, str] | None:
    """(symbol, name, why) of the stock whose name starts with `term`: one of the investor's
    own, an everyday word only when `everyday` (丽江 of 丽江股份; without 中国 only a word no
    other name holds: 巨石 of 中国巨石, not 电影 of 中国电影), else a listed one when `term` is
    no everyday word (广汽, not 东方); of several, the one in an industry of the stocks in `focus`."""
    from pixiu_cli.market.names.words import frequency

    prefixes, everyday_frequency = _forms()
    if term in prefixes:  # 中国 is every 中国… stock's, so none's
        return None
    common = frequency(term) >= everyday_frequency
    bare_ok = not common or len(_stocks_named(table, lambda alias: term in alias)) == 1
    own = {n.symbol: alias for alias, n in table.names.items() if n.held and n.kind == FULL and n.symbol}
    starting = {
        s: alias
        for s, alias in own.items()
        if alias != term and (alias.startswith(term) or bare_ok and _without_prefix(alias).startswith(term))
    }
    if starting:
        found = _one_of(starting, focus) if everyday or not common else None
        return (*found[:2], "你自己的股票" + (f"，{found[2]}" if found[2] else "")) if found else None
    if common:
        return None
    found = _one_of(_stocks_named(table, lambda alias: alias.startswith(term)), focus)
    return (*found[:2], "它不是日常用语，" + (found[2] or "只有这一只上市股票以它开头")) if found else None


def _stocks_named(table: NameTable, test: Callable[[str], bool]) -> dict[str, str]:
    """symbol → a name of it that passes `test`, over every stock's names."""
    return {
        n.symbol: alias
        for alias, n in table.names.items()
        if n.symbol and n.kind not in (INDEX, SHADOW) and test(alias)
    }


def _one_of(found: dict[str, str], focus: Sequence[str]) -> tuple[str, str, str] | None:
    """The one stock found; of several, the one in an industry of the stocks in focus: a
    follow-up compares or swaps within an industry (申通 after 韵达 is 申通快递, not 申通地铁)."""
    if len(found) == 1:
        return (*next(iter(found.items())), "")
    if not focus:
        return None
    industries = _industries(focus)
    same = {s: name for s, name in found.items() if _industry(s) in industries}
    if len(same) != 1:
        return None
    symbol, name = next(iter(same.items()))
    return symbol, name, f"以它开头的几只里，只有它和前面的个股同属“{_industry(symbol)}”"


@cache
def _forms() -> tuple[tuple[str, ...], int]:
    """forms.toml's prefixes (中国) and the frequency that makes a term an everyday word."""
    forms = table("forms.toml")["forms"]
    return tuple(forms["prefixes"]), int(forms["common_word_frequency"])


def _without_prefix(name: str) -> str:
    for prefix in _forms()[0]:
        if name.startswith(prefix) and len(name) - len(prefix) >= 2:
            return name[len(prefix) :]
    return name


def _where(carried: Sequence[Carried]) -> str:
    return "，".join(
        f"{c.symbol} 来自{_ago(c.turns_ago)}（“{c.message[:20]}”）" + (f"：{c.via}" if c.via else "") for c in carried
    )


def _ago(turns: int) -> str:
    return "上一轮" if turns == 1 else f"前 {turns} 轮"


def _with(
    current: Selection,
    intent: Intent,
    symbols: list[str],
    overview: bool,
    why: str,
    operation: Operation,
    carried: Sequence[Carried] = (),
    targets=None,
    topics: Topics = NO_TOPICS,
) -> Selection:
    """The current selection resolved against the conversation; it keeps the classes it asks
    about (or takes `targets`), and the topic carried (its own, if any, is read later)."""
    return replace(
        current,
        intent=intent,
        symbols=symbols,
        overview=overview,
        follow_up=why,
        carried=tuple(carried),
        compact_overview=False,
        targets=current.targets if targets is None else tuple(targets),
        topics=topics,
        operation=operation,
    )


def _asks_portfolio(current: Selection) -> bool:
    return current.overview and any(c.group == Group.SET for c in current.cues)


def _topics(state: ConversationState, reading: _Reading, symbols: Sequence[str], overview: bool) -> Topics:
    """The last turn's topic for a follow-up that asks nothing of its own (它呢, 那汾酒呢,
    哪只最弱); one that names what it asks (它的走势呢, 加多少) is a new question."""
    return NO_TOPICS if _rules().criterion.search(reading.asked) else state.topics_for(symbols, overview)


def _topic_note(topics: Topics) -> str:
    return "，沿用上一轮的基本面话题" if topics.fundamentals or topics.holdings_fundamentals else ""


def _complement(current: Selection, state: ConversationState, reading: _Reading) -> Selection | None:
    """The others, no stock named: the portfolio without the focus (a pronoun here is what is
    left out only with an exclusion word: 它和其他几只比 measures it against the rest)."""
    rules, text = _rules(), reading.text
    if current.symbols or reading.length > _POINTER_SHORT:
        return None
    if not (rules.rest.search(text) or rules.others.search(text)):
        return None
    pointed = rules.pair.search(text) or rules.pointer.search(text)
    if pointed and not rules.exclude.search(text):
        return None
    left_out = _focus(state, text)
    why = "追问“其他 / 剩下的”：转向其余持仓，注入持仓概览" + (f"（不含 {_where(left_out)}）" if left_out else "")
    operation = state.operation(COMPLEMENT, left_out)
    return _with(current, Intent.PORTFOLIO_REVIEW, [], True, why, operation)


def _add(current: Selection, state: ConversationState, reading: _Reading) -> Selection | None:
    """A comparison without its first term, or a pronoun joined to a named stock: the focus
    stocks, then the ones named."""
    rules, text = _rules(), reading.text
    if not current.symbols or reading.length > _POINTER_SHORT:
        return None
    compared = rules.compare.search(text) or rules.joined_pointer.search(text)
    if not (compared or rules.joined_alone.search(text)):
        return None
    focus = [c for c in _focus(state, text) if c.symbol not in current.symbols]
    if not focus or not (compared or _one_industry([c.symbol for c in focus], current.symbols)):
        return None
    symbols = [*(c.symbol for c in focus), *current.symbols]
    topics = _topics(state, reading, symbols, False)
    lead = "比较缺了前一项" if compared else "“和 / 跟”接上同行业的另一只"
    why = f"{lead}：前面的个股 + 点名的个股{_topic_note(topics)}。{_where(focus)}"
    targets = current.targets or state.last.targets
    operation = state.operation(ADD, focus)
    return _with(current, Intent.SINGLE_STOCK, symbols, False, why, operation, focus, targets, topics)


def _one_industry(focus: Sequence[str], named: Sequence[str]) -> bool:
    """Whether every stock named is of an industry of the stocks in focus (和中国重汽呢 after
    一汽解放: two truck makers side by side, not one instead of the other)."""
    industries = _industries(focus)
    return bool(industries) and _industries(named) <= industries and len(_industries(named)) == 1


def _industries(symbols: Sequence[str]) -> set[str]:
    return {industry for s in symbols if (industry := _industry(s))}


def _industry(symbol: str) -> str:
    """The stock's industry in the shipped security list ("" when it names none)."""

    stock = shipped_security_list().get(symbol)
    return (stock.industry or "") if stock else ""


def _against_rest(current: Selection, state: ConversationState, reading: _Reading) -> Selection | None:
    """A comparison with the rest of the holdings whose first term is missing (跟我其他持仓比呢):
    the focus stocks and the overview."""
    rules, text = _rules(), reading.text
    if current.symbols or reading.length > _POINTER_SHORT or not rules.compare.search(text):
        return None
    focus = _focus(state, text) if memory.against_rest(text) else []
    if not focus:
        return None
    why = f"和其余持仓比，缺了前一项：前面的个股 + 概览。{_where(focus)}"
    operation = state.operation(WIDEN, focus)
    return _with(current, Intent.PORTFOLIO_REVIEW, [c.symbol for c in focus], True, why, operation, focus)


_SAID_COUNT = {2: "两", 3: "三", 4: "四", 5: "五"}
_COUNTS = {"仨": 3, "三": 3, "四": 4, "五": 5, "3": 3, "4": 4, "5": 5}


def _pointed_count(text: str) -> int | None:
    """How many stocks just discussed a pronoun of several points at (这俩: 2, 这三只: 3)."""
    found = _rules().pair.search(text)
    if found is None:
        return None
    counted = found.groupdict().get("count")
    return _COUNTS[counted[0]] if counted else 2


def _focus(state: ConversationState, text: str) -> list[Carried]:
    """The stocks a follow-up's pronoun points at (这俩: two, 它: one), else the last turn's that named some."""
    rules = _rules()
    if count := _pointed_count(text):
        return state.named(count)
    return state.named(1) if rules.pointer.search(text) else state.focus_stocks()


def _pointing(current: Selection, state: ConversationState, reading: _Reading) -> Selection | None:
    """这俩 / 它俩 → the two last named; 它 / 这只 → the one last named."""
    rules, text = _rules(), reading.text
    if current.symbols or reading.length > _POINTER_SHORT:
        return None
    pair = rules.pair.search(text)
    marker = pair or rules.pointer.search(text) or memory.rules().object_pointer.search(text)
    if marker is None:
        return None
    count = _pointed_count(text) or 1
    carried = state.named(count)
    if not carried or len(carried) < count:
        return None
    symbols = [c.symbol for c in carried]
    if _asks_portfolio(current) or memory.against_rest(text):  # 它和其他几只比: it against the rest
        why = f"“{marker.group()}”指前面点名的个股，又问到自己的持仓：个股 + 概览。{_where(carried)}"
        operation = state.operation(WIDEN, carried)
        return _with(current, Intent.PORTFOLIO_REVIEW, symbols, True, why, operation, carried)
    intent = Intent.TRADE_REVIEW if current.intent is Intent.TRADE_REVIEW else Intent.SINGLE_STOCK
    topics = _topics(state, reading, symbols, False)
    why = f"“{marker.group()}”指{f'最近点名的{_SAID_COUNT[count]}只' if pair else '上次点名的那只'}{_topic_note(topics)}：{_where(carried)}"
    return _with(current, intent, symbols, False, why, state.operation(KEEP, carried), carried, topics=topics)


def _same_object(current: Selection, state: ConversationState, reading: _Reading) -> Selection | None:
    """No marker, no stock, a question that needs an object: the last turn's object."""
    if current.symbols or reading.length > _SHORT or _asks_portfolio(current):
        return None
    if current.intent not in (Intent.GENERAL, Intent.PORTFOLIO_REVIEW) or not _rules().needs_object.search(
        reading.text
    ):
        return None
    previous = state.last
    if previous.symbols:
        carried = state.named(len(previous.symbols))
        symbols = [c.symbol for c in carried]
        intent = Intent.PORTFOLIO_REVIEW if previous.overview else Intent.SINGLE_STOCK
        topics = _topics(state, reading, symbols, previous.overview)
        why = f"没有指代词，但问题需要对象：沿用上一轮的对象{_topic_note(topics)}。{_where(carried)}"
        operation = state.operation(KEEP, carried)
        return _with(current, intent, symbols, previous.overview, why, operation, carried, topics=topics)
    if previous.overview:
        topics = _topics(state, reading, [], True)
        why = f"没有指代词，但问题需要对象：沿用上一轮的持仓问题{_topic_note(topics)}"
        return _with(current, Intent.PORTFOLIO_REVIEW, [], True, why, state.operation(KEEP), topics=topics)
    return None


# The classes a question about needs a stock (its news, its plan, its trades, its rules), and
# their names in the follow-up line.
_OBJECT_CLASSES = {
    memory.NEWS: "公告与新闻",
    memory.PLANS: "计划",
    memory.TRADES: "成交",
    memory.RULES: "纪律",
    memory.ACCOUNT: "现金与购买力",
}


def _buying(current: Selection) -> bool:
    """Whether an account question is about buying the stock before (够不够买, 还能买几手, 钱够吗:
    enough for it); the cash or the total alone (我现金还有多少) is the account's, whatever
    was asked before."""
    return any(cue.group == _ACCOUNT_CUES and _ENOUGH_FOR.search(cue.matched) for cue in current.cues)


_ACCOUNT_CUES = f"target:{memory.ACCOUNT}"
_ENOUGH_FOR = re.compile("够|买")


def _class_follow_up(current: Selection, state: ConversationState, reading: _Reading) -> Selection | None:
    """A short question about one class, naming no stock: the stocks of the last turn (of
    the last two) that named some, in that class."""
    if current.symbols or reading.length > memory.rules().follow_up_chars or _asks_portfolio(current):
        return None
    asked = [t for t in current.targets if t in _OBJECT_CLASSES]
    if not asked or (asked == [memory.ACCOUNT] and (current.intent is Intent.GENERAL or not _buying(current))):
        return None
    recent = ConversationState(state.turns[-2:])
    named = [t for t in recent.turns if t.selection.symbols or t.selection.objects]
    if not named or (memory.TRADES in asked and recent.last.intent is Intent.TRADE_REVIEW):
        # after a trade review, another trade (那上上笔呢) may be of another stock
        return None
    last = named[-1].selection
    carried = recent.named(len({*last.symbols, *(c.symbol for c in last.objects)}))
    symbols = [c.symbol for c in carried]
    what = _OBJECT_CLASSES[asked[0]]
    why = f"追问{what}，没有点名个股：沿用前面点名的个股。{_where(carried)}"
    operation = state.operation(KEEP, carried)
    if memory.ACCOUNT in asked and current.intent is Intent.PORTFOLIO_REVIEW:
        return _with(current, Intent.PORTFOLIO_REVIEW, symbols, True, why, operation, carried)
    intent = Intent.TRADE_REVIEW if memory.TRADES in asked else Intent.SINGLE_STOCK
    return _with(current, intent, symbols, False, why, operation, carried)


def _stands_alone(current: Selection, reading: _Reading) -> bool:
    """A concept asked in general (什么是市盈率) leans on no earlier turn, unless it points at
    one; nor does a comparison with both its terms (洋河和双汇比呢), unless it starts with 和 /
    跟 and so lacks its first."""
    rules, text = _rules(), reading.text
    if len(current.symbols) > 1 and rules.compares.search(text) and not rules.compare.search(text):
        return True  # 和伟创、新风光三个比呢 lacks its first term: the stock before
    return asks_concept(current.normalized) and not (rules.pointer.search(text) or rules.pair.search(text))


def resolve(current: Selection, earlier: Sequence[EarlierTurn]) -> Selection:
    """`current` read against the earlier turns (oldest first): one operation on their focus."""
    if not earlier:
        return current
    state, reading = ConversationState(tuple(earlier)), _reading(current)
    if _stands_alone(current, reading):
        return current
    for step in (_complement, _add, _against_rest, _pointing, _class_follow_up, _same_object):
        resolved = step(current, state, reading)
        if resolved is not None:
            return resolved
    return _elliptical(current, state, reading)


def _elliptical(current: Selection, state: ConversationState, reading: _Reading) -> Selection:
    """The short follow-ups that lean on the previous turn (那整体呢, 那三一呢, 继续说)."""
    rules, previous, text = _rules(), state.last, reading.text
    if reading.length > _SHORT or not rules.elliptical.search(text):
        return _widened(current, state, reading)
    if rules.whole.search(text) and not current.symbols:
        return _with(current, Intent.PORTFOLIO_REVIEW, [], True, "追问整体：注入持仓概览", state.operation(WIDEN))
    if current.symbols:
        return _replaced(current, state, reading)
    if current.intent is not Intent.GENERAL:
        return current
    carried = state.named(len(previous.symbols)) if previous.symbols else []
    why = "省略式追问：沿用上一轮的意图和个股" + (f"。{_where(carried)}" if carried else "")
    targets = current.targets or previous.targets
    operation = state.operation(KEEP, carried)
    symbols = list(previous.symbols)
    topics = previous.topics if _topics(state, reading, symbols, previous.overview) is not NO_TOPICS else NO_TOPICS
    return _with(current, previous.intent, symbols, previous.overview, why, operation, carried, targets, topics)


def _replaced(current: Selection, state: ConversationState, reading: _Reading) -> Selection:
    """Another stock, the same question: with the last turn's topic and memory classes."""
    previous = state.last
    if previous.intent is Intent.PORTFOLIO_REVIEW and previous.overview:
        why = "承接上一轮的持仓问题，换成点名的个股：概览 + 个股"
        return _with(current, Intent.PORTFOLIO_REVIEW, current.symbols, True, why, state.operation(REPLACE))
    if current.intent not in (Intent.GENERAL, Intent.SINGLE_STOCK):
        return current
    topics = _topics(state, reading, current.symbols, False)
    targets = current.targets or previous.targets
    same_topic = topics is not NO_TOPICS or bool(set(targets) - set(current.targets))
    why = "承接上一轮，换一只股票问同样的问题" + (
        _topic_note(topics) or ("，沿用上一轮问到的记忆" if same_topic else "")
    )
    operation = state.operation(SAME_TOPIC if same_topic else REPLACE)
    return _with(current, Intent.SINGLE_STOCK, current.symbols, False, why, operation, (), targets, topics)


def _widened(current: Selection, state: ConversationState, reading: _Reading) -> Selection:
    """A short portfolio question of its own after a turn about stocks (组合防守够不够): the
    question chose the portfolio; the operation says it widened the focus."""
    if reading.length > _SHORT or current.symbols or not current.overview or not state.last.symbols:
        return current
    why = "从上一轮的个股转向整个组合：注入持仓概览"
    return replace(current, follow_up=why, operation=state.operation(WIDEN))
