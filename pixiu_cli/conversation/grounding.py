"""Whether a tool call that changes the account or the memory comes from the user: the
stock, side, quantity and price of a trade, the stock, direction and threshold of an alert,
and the substance of a note must be in what the user wrote in the turn — their own words,
not the context block, an earlier turn or the model's. What the words lack is named in
Chinese, for the model to read.

Figures are read as typed (full-width digits, 手 = 100 股, 1.5万, Chinese numerals, 元 / 块:
below); a stock by its code or any name the one name matcher knows (a
holding's name or short name, the security master, nicknames, the user's aliases).

Figures as a user types them: ASCII or full-width digits, thousands commas, decimals,
Chinese numerals (三百, 两千五, 一万二, 十五, 三十二点五, 一五零零), 万 or 亿 after digits
(1.5万), and the unit written after each (股, 手, 元, 块, %, 月 …). A figure the model wants
to store is checked against these (services/grounding.py)."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from pixiu_cli.account.overview import trade_day
from pixiu_cli.kernel.clock import find_date_words
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import (
    ALERT_INSTRUCTIONS,
    CLAUSE_TAIL,
    COMPLETED,
    DONE_PARTICLES,
    EITHER_WAY,
    FILLED,
    FIRST_PERSON,
    INTENT_BEFORE,
    NOT_A_FILL,
    NOT_A_STATEMENT,
    RESULTATIVES,
    SIDE_NAMES,
    SIDE_WORDS,
    VOCATIVES,
)
from pixiu_cli.market.names.codes import normalize
from pixiu_cli.market.names.table import INDEX, SHADOW, NameSource

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10**4, "亿": 10**8}
_CHINESE = re.compile(rf"[{''.join((*_DIGITS, *_UNITS, *_BIG))}]+(?:点[{''.join(_DIGITS)}]+)?")
_WIDTH = str.maketrans({**{chr(0xFF10 + i): str(i) for i in range(10)}, "．": ".", "％": "%"})
# Multipliers and units read after a number; the longer spellings first. 成 is a tenth ("3成仓位"),
# never the 成 of 成交 ("34.8成交" is a price).
_FIGURE = re.compile(
    r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(万|亿|千)?\s*(个点|股|手|元|块|角|%|成(?!交)|年|月|日|号|点)?"
)
_TAIL = re.compile(r"(\d)(?![\d.]|\s*[股手万])")  # 30块5: five jiao after the yuan
_MULTIPLIERS = {"万": 10**4, "亿": 10**8, "千": 1000}


@dataclass(frozen=True)
class Figure:
    value: Decimal
    unit: str  # the unit word after it ("" when none); 块 reads as 元
    start: int  # where it starts in the text `figures` read (tells two mentions apart)


def fold_digits(text: str) -> str:
    """Full-width digits, point and percent sign as ASCII (nothing else changes)."""
    return text.translate(_WIDTH)


def _integer(run: str) -> int | None:
    """三百 → 300, 两千五 → 2500, 一万二 → 12000, 十五 → 15, 一百零五 → 105."""
    total = section = 0
    digit: int | None = None
    unit_before = 0  # the unit just before the last digit (0: none, or a 零 between them)
    for ch in run:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
            if ch in "零〇":
                unit_before = 0
        elif ch in _UNITS:
            section += (1 if digit is None else digit) * _UNITS[ch]
            digit, unit_before = None, _UNITS[ch]
        else:
            section += digit or 0
            total += (section or 1) * _BIG[ch]
            section, digit, unit_before = 0, None, _BIG[ch]
    if digit is not None:
        # 两千五: a digit straight after a unit counts in the unit one below it
        section += digit * (unit_before // 10 if unit_before >= 10 else 1)
    return total + section


def chinese_value(run: str) -> Decimal | None:
    """The value of a run of Chinese numerals, or None for one with no digit (万, 千万)."""
    whole, _, fraction = run.partition("点")
    if not any(ch in _DIGITS for ch in whole) and not whole.startswith("十"):
        return None
    if len(whole) > 1 and all(ch in _DIGITS for ch in whole):  # 一五零零: digit by digit
        value = Decimal("".join(str(_DIGITS[ch]) for ch in whole))
    else:
        value = Decimal(_integer(whole))
    if fraction:
        value += Decimal("0." + "".join(str(_DIGITS[ch]) for ch in fraction))
    return value


def _decimal_text(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def arabic(text: str) -> str:
    """`text` with its full-width digits folded and each run of Chinese numerals written in
    digits (三十二点五 → 32.5); a run that is no number (万 alone) stays."""

    def digits(match: re.Match[str]) -> str:
        value = chinese_value(match.group(0))
        return match.group(0) if value is None else _decimal_text(value)

    return _CHINESE.sub(digits, fold_digits(text))


def figures(text: str) -> list[Figure]:
    """Every figure in `text` (Chinese numerals and full-width digits read), in order."""
    folded = arabic(text)
    found: list[Figure] = []
    taken = 0  # the end of the 角 digit last read with its 块 (30块5), not a figure of its own
    for match in _FIGURE.finditer(folded):
        if match.start() < taken:
            continue
        whole, fraction, multiplier, unit = match.groups()
        try:
            value = Decimal(whole.replace(",", "") + (fraction or ""))
        except InvalidOperation:
            continue
        value *= _MULTIPLIERS.get(multiplier or "", 1)
        unit = unit or ""
        if unit == "块":
            unit = "元"
            tail = None if fraction else _TAIL.match(folded, match.end())
            if tail:
                value += Decimal(tail.group(1)) / 10
                taken = tail.end()
        found.append(Figure(value, unit, match.start()))
    return found


if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market

_CODE = re.compile(r"(?<!\d)\d{6}(?!\d)")
_ALERT_WORDS = {
    "below": ("跌破", "跌到", "跌至", "低于", "下破", "跌", "止损"),
    "above": ("突破", "涨破", "涨到", "涨至", "高于", "上破", "涨", "止盈"),
    "change_pct": ("涨跌", "涨幅", "跌幅", "波动", "涨", "跌"),
    "drawdown_from_cost": ("回撤", "亏", "成本", "跌"),
}
_SENTENCE = re.compile(r"[^。！!？?；;\n]+[。！!？?；;]*")
_SENTENCE_ENDS = "。！!？?；;\n"
_CUTS = _SENTENCE_ENDS + "，,、：:—…"
_CLAUSE = re.compile(f"[^{_CUTS}]*[{_CUTS}]*")
_INTENT = "打算或条件"
_ASKED = "提问"
_EITHER_WAY = re.compile(f"(.)[{''.join(EITHER_WAY)}]\\1")
_NOT_SAID_DONE = "未说明已成交的说法"
_ALERT_BLOCKERS = ("否定", "提问", "他人的交易或说法")
_SHARE_UNITS = {"股": 1, "": 1, "手": 100}
_PRICE_UNITS = ("元", "")
_NEGATORS = frozenset("不没别勿非无未莫禁")
COVERED = Decimal("0.8")  # of a note's characters, at least this share copied from the user's words
_LONGEST = 2000  # a note longer than this is the user's only when copied whole
_SAID_LONGEST = 20000
_OCCURRENCES = 100


@dataclass(frozen=True)
class Grounding:
    missing: tuple[str, ...] = ()  # what the user's words lack, each as the refusal names it

    @property
    def grounded(self) -> bool:
        return not self.missing


def _exact(value: float) -> Decimal:
    return Decimal(repr(float(value)))


def _plain(value: float) -> str:
    return f"{float(value):g}"


class _Said:
    """The user's words of the turn, read once: the stocks they name and their figures."""

    def __init__(self, market: Market, text: str):
        self.market = market
        self.text = text
        self.folded = normalize(text)
        self.figures = figures(text)
        self._names: NameSource | None = None
        self._stocks: set[str] | None = None
        self._clauses: _Clauses | None = None

    def names(self) -> NameSource:
        if self._names is None:
            self._names = NameSource(self.market.securities)
        return self._names

    def stocks(self) -> set[str]:
        if self._stocks is None:
            table = self.names().table(self.market.investor.holdings())
            matched = table.matches(self.folded)
            named = {m.name.symbol for m in matched if m.name.symbol and m.name.kind not in (INDEX, SHADOW)}
            self._stocks = named | set(_CODE.findall(fold_digits(self.text)))
        return self._stocks

    def stock_label(self, symbol: str) -> str:
        name = self.names().security_name(symbol)
        return f"股票 {symbol}（{name}）" if name else f"股票 {symbol}"

    def has_word(self, words: tuple[str, ...]) -> bool:
        return any(word in self.folded for word in words)

    def clauses(self) -> _Clauses:
        if self._clauses is None:
            self._clauses = _Clauses(self.folded, self.text, self.figures)
        return self._clauses

    def not_reported(self, side_words: tuple[str, ...], anchors: list[set[int]]) -> tuple[str, ...]:
        """Why the clause group that holds the trade (its side word and the figures at `anchors`)
        is not the user's report of a fill of their own: the classes of vocabulary.NOT_A_FILL
        found there, or that nothing there says it was done (empty: it is a report)."""
        clauses = self.clauses()
        bound = clauses.bind(side_words, [{clauses.of_figure(at) for at in found} for found in anchors if found])
        if bound is None:
            return (_NOT_SAID_DONE,)
        at, word, lo, hi = bound
        scopes = clauses.scopes(at, lo, hi)
        found = _classes(scopes, self.folded, at, word)
        if found:
            return found
        done = _completed(scopes["group"], clauses.group_clauses(clauses.of(at), hi), side_words)
        return () if done or _filled(scopes["after"]) else (_NOT_SAID_DONE,)

    def instructs_alert(self) -> bool:
        """An alert word said as the user's own instruction: not asked, negated or reported of others."""
        return any(
            not set(fill_classes(sentence, at, word)) & set(_ALERT_BLOCKERS)
            for sentence, at, word in _occurrences(self.folded, ALERT_INSTRUCTIONS)
        )

    def statements(self) -> str:
        """The user's words without the sentences that ask or report someone else's words."""
        return "".join(s for s in _SENTENCE.findall(self.text) if not _sentence_classes(normalize(s), NOT_A_STATEMENT))

    def at(self, value: Decimal, units: dict[str, int] | tuple[str, ...], code: str | None = None) -> set[int]:
        """Where a figure of `value` is written with one of `units` (a mapping: the unit's
        multiple), never the stock's own code read as a number."""
        scale = units if isinstance(units, dict) else dict.fromkeys(units, 1)
        return {
            f.start
            for f in self.figures
            if f.unit in scale and f.value * scale[f.unit] == value and not _is_code(f, code)
        }


def _occurrences(text: str, words: tuple[str, ...]):
    """(sentence, position, word) of each occurrence of one of `words` in `text`."""
    for sentence in _SENTENCE.findall(text):
        for word in words:
            at = sentence.find(word)
            while at >= 0:
                yield sentence, at, word
                at = sentence.find(word, at + 1)


class _Clauses:
    """A message cut into clauses (at ，。；？— and the like): where each starts, where its
    sentence starts, and which hold a figure (`original`'s figures, read where arabic() put them)."""

    def __init__(self, folded: str, original: str, found: list[Figure]):
        self.text = folded
        self.spans = _cut(folded)
        self.starts = [start for start, _ in self.spans]
        self._figure_starts = [start for start, _ in _cut(arabic(original))]
        self.sentence_starts, sentence = [], 0
        for start, end in self.spans:
            self.sentence_starts.append(sentence)
            if any(ch in _SENTENCE_ENDS for ch in folded[start:end]):
                sentence = end
        self.figured = {self.of_figure(f.start) for f in found}

    def of(self, at: int) -> int:
        return max(0, bisect_right(self.starts, at) - 1)

    def of_figure(self, at: int) -> int:
        return max(0, bisect_right(self._figure_starts, at) - 1)

    def bind(self, side_words: tuple[str, ...], anchors: list[set[int]]):
        """(position, word, first clause, last clause) of the side word whose clause and the
        nearest clause of each anchor make the shortest group; None without a side word."""
        best = None
        for at, word in ((m.start(), m.group()) for m in re.finditer("|".join(map(re.escape, side_words)), self.text)):
            here = self.of(at)
            near = [here, *(min(found, key=lambda c: abs(c - here)) for found in anchors)]
            key = (max(near) - min(near), -at)
            if best is None or key < best[0]:
                best = (key, (at, word, min(near), max(near)))
        return best[1] if best else None

    def group_clauses(self, lo: int, hi: int) -> list[str]:
        return [self.text[start:end] for start, end in self.spans[lo : hi + 1]]

    def scopes(self, at: int, lo: int, hi: int) -> dict[str, str]:
        """The texts each scope of vocabulary.NOT_A_FILL reads, for the side word at `at` and
        the group of clauses `lo`..`hi` (the group runs on over clauses without figures)."""
        here = self.of(at)
        last = hi
        while last + 1 < len(self.spans) and last + 1 not in self.figured:
            last += 1
        start, end = self.spans[here]
        return {
            "before": self.text[start:at],
            "clause": self.text[start:end],
            "sentence_before": self.text[self.sentence_starts[here] : at],
            "group": self.text[self.spans[lo][0] : self.spans[hi][1]],
            "after": self.text[self.spans[lo][0] : self.spans[last][1]],
            "message": self.text,
        }


def _cut(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _CLAUSE.finditer(text) if m.end() > m.start()]


def _classes(scopes: dict[str, str], text: str, at: int, word: str) -> tuple[str, ...]:
    """The classes of vocabulary.NOT_A_FILL whose words are in their scope of the trade."""
    found = [name for name, scope, words in NOT_A_FILL if _said_in(scopes, scope, words)]
    if _EITHER_WAY.search(scopes["after"]):
        found.append(_ASKED)
    done = text.startswith("了", at + len(word))
    if not done and any(text[max(0, at - 2) : at].endswith(m) for m in INTENT_BEFORE):
        found.append(_INTENT)
    return tuple(dict.fromkeys(found))


def _said_in(scopes: dict[str, str], scope: str, words: tuple[str, ...]) -> bool:
    if scope == "subject":
        return _someone_else(scopes["sentence_before"], words)
    if scope == "order":
        return not _filled(scopes["after"]) and any(w in scopes["after"] for w in words)
    return any(w in scopes[scope] for w in words)


def _filled(after: str) -> bool:
    return any(w in after for w in FILLED)


def _someone_else(before: str, people: tuple[str, ...]) -> bool:
    """Someone else is named before the side word, and no first person after them."""
    for vocative in VOCATIVES:
        before = before.replace(vocative, " " * len(vocative))
    last = max((before.rfind(p) + len(p) for p in people if p in before), default=-1)
    return last >= 0 and not any(p in before[last:] for p in FIRST_PERSON)


def _completed(group: str, clauses: list[str], side_words: tuple[str, ...]) -> bool:
    """The group says the trade was done: a word of COMPLETED, 了 / 的 after a side word, or
    one of `clauses` (the side word's and those after it in the group) ending in 了."""
    verbs = "|".join(re.escape(w.rstrip("了")) for w in side_words)
    after_verb = re.compile(f"(?:{verbs})[{RESULTATIVES}]{{0,2}}[{''.join(DONE_PARTICLES)}]")
    ends = (c.rstrip(_CUTS + CLAUSE_TAIL) for c in clauses)
    return any(w in group for w in COMPLETED) or bool(after_verb.search(group)) or any(e.endswith("了") for e in ends)


def fill_classes(sentence: str, at: int, word: str) -> tuple[str, ...]:
    """The classes (vocabulary.NOT_A_FILL) that make `word` at `at` of `sentence` something
    other than the user's own words of a trade or an instruction, its clause taken as the group."""
    clauses = _Clauses(sentence, sentence, [])
    here = clauses.of(at)
    return _classes(clauses.scopes(at, here, here), sentence, at, word)


def _sentence_classes(sentence: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """Which of the classes `names` have a word anywhere in `sentence`."""
    return tuple(name for name, _, words in NOT_A_FILL if name in names and any(w in sentence for w in words))


def _is_code(figure: Figure, code: str | None) -> bool:
    return code is not None and figure.unit == "" and figure.value == Decimal(code)


def ground_trade(market: Market, said: str, trade, now: datetime) -> Grounding:
    """A trade the user reported this turn: its stock, side, shares and price (and its fee
    and day, when the call gives them) are in `said`."""
    words = _Said(market, said)
    missing = []
    if trade.symbol not in words.stocks():
        missing.append(words.stock_label(trade.symbol))
    side, side_words = SIDE_NAMES.get(trade.side, trade.side), SIDE_WORDS.get(trade.side, ())
    shares_at = words.at(_exact(trade.quantity), _SHARE_UNITS, trade.symbol)
    price_at = words.at(_exact(trade.price), _PRICE_UNITS, trade.symbol)
    if not words.has_word(side_words):
        missing.append(f"方向 {side}")
    elif why := words.not_reported(side_words, [shares_at, price_at]):
        missing.append(f"已成交的{side}（用户的话是{'、'.join(why)}，不是报告自己已成交的交易）")
    if not shares_at:
        missing.append(f"数量 {_plain(trade.quantity)} 股")
    if not price_at or (shares_at and len(shares_at | price_at) < 2):  # one figure is not both
        missing.append(f"价格 {_plain(trade.price)} 元")
    if trade.fee and not words.at(_exact(trade.fee), _PRICE_UNITS):
        missing.append(f"手续费 {_plain(trade.fee)} 元")
    missing += _missing_day(said, trade.day, now)
    return Grounding(tuple(missing))


def _missing_day(said: str, day: str | None, now: datetime) -> list[str]:
    """The day the call gives must be the day the user named (today when they named none)."""
    try:
        given = trade_day(day, now)
    except RequestError:
        return []  # the record path refuses it, naming the words
    try:
        named = trade_day(find_date_words(said), now)
    except RequestError:
        named = now.date()
    return [] if given == named else [f"日期 {given.isoformat()}"]


def ground_alert(market: Market, said: str, request) -> Grounding:
    """An alert the user asked for this turn: its stock, direction and threshold are in `said`."""
    words = _Said(market, said)
    missing = []
    if request.symbol not in words.stocks():
        missing.append(words.stock_label(request.symbol))
    if not words.has_word(_ALERT_WORDS.get(request.kind, ())):
        missing.append(f"条件 {request.kind}")
    if not words.at(_exact(request.threshold), tuple({f.unit for f in words.figures}), request.symbol):
        missing.append(f"阈值 {_plain(request.threshold)}")
    if not words.instructs_alert():
        missing.append("设预警的要求（“提醒我”“预警”“跌破…就止损”这类话，而不是提问、否定、判断或他人的说法）")
    return Grounding(tuple(missing))


def ground_note(market: Market, said: str, text: str, symbol: str | None) -> Grounding:
    """A note in the user's words of this turn: most of its characters copied from `said`,
    every negation with them, every figure one the user wrote, its stock one they named."""
    words = _Said(market, said)
    note = _comparable(text)
    missing = _missing_words(note, _comparable(words.statements()))
    if missing and not _missing_words(note, _comparable(said)):
        missing = ["用户自己的陈述（这些话在用户的提问或转述他人的话里，不是用户的观点、计划或纪律）"]
    told = {f.value * _SHARE_UNITS.get(f.unit, 1) for f in words.figures} | {f.value for f in words.figures}
    missing += [f"数字 {_figure_text(f)}" for f in figures(text) if f.value not in told]
    if symbol and symbol not in words.stocks():
        missing.append(words.stock_label(symbol))
    return Grounding(tuple(dict.fromkeys(missing)))


def _figure_text(figure: Figure) -> str:
    return f"{figure.value.normalize():f}{figure.unit}"


def _comparable(text: str) -> str:
    """Letters, digits and Chinese characters in one spelling (simplified, half-width, lower
    case, numerals as digits); punctuation and spaces dropped."""
    return "".join(ch for ch in arabic(normalize(text)) if ch.isalnum() or ch == "%")


def _missing_words(note: str, said: str) -> list[str]:
    if not note:
        return []
    if len(note) > _LONGEST or len(said) > _SAID_LONGEST:
        return [] if note in said else [f"「{note[:40]}…」"]
    covered = [False] * len(note)
    dropped = []
    pieces = _pieces(note, said)
    for start, length, negated in pieces:
        covered[start : start + length] = [True] * length
        if negated and (start == 0 or note[start - 1] != negated):
            dropped.append(f"否定词「{negated}」（用户说的是「{negated}{note[start : start + length]}」）")
    dropped += _negations_between(note, said, pieces)
    uncovered = [i for i, ok in enumerate(covered) if not ok]
    negation_lost = any(note[i] in _NEGATORS for i in uncovered)
    if dropped or negation_lost or Decimal(len(note) - len(uncovered)) / len(note) < COVERED:
        return [*dropped, *(f"「{run}」" for run in _runs(note, covered))]
    return []


def _pieces(note: str, said: str) -> list[tuple[int, int, str]]:
    """The note cut greedily into the longest pieces (two characters or more) found in
    `said`: (start, length, the negator before every occurrence of it in `said`, or "")."""
    pieces, i = [], 0
    while i < len(note):
        length, at = 0, -1
        while i + length < len(note):
            piece = note[i : i + length + 1]
            if at < 0 or not said.startswith(piece, at):
                at = said.find(piece)
                if at < 0:
                    break
            length += 1
        if length >= 2:
            pieces.append((i, length, _negator_before(said, note[i : i + length])))
            i += length
        else:
            i += 1
    return pieces


def _negations_between(note: str, said: str, pieces: list[tuple[int, int, str]]) -> list[str]:
    """Negations the user said between two pieces the note joins ("要不要加仓" written "要加仓")."""
    dropped = []
    for (first, first_length, _), (second, second_length, negated) in zip(pieces, pieces[1:]):
        left, right = note[first : first + first_length], note[second : second + second_length]
        if negated or first + first_length != second or left + right in said:
            continue
        gap = re.search(re.escape(left) + "(.{1,4}?)" + re.escape(right), said)
        if gap and set(gap.group(1)) & _NEGATORS:
            dropped.append(f"否定词「{gap.group(1)}」（用户说的是「{left[-6:]}{gap.group(1)}{right}」）")
    return dropped


def _negator_before(said: str, piece: str) -> str:
    """The negator right before each occurrence of `piece` in `said` ("" when one has none;
    past the first hundred occurrences, all negated, the piece counts as negated)."""
    at, seen = said.find(piece), set()
    while at >= 0 and len(seen) < _OCCURRENCES:
        before = said[at - 1] if at > 0 else ""
        if before not in _NEGATORS:
            return ""
        seen.add(at)
        at = said.find(piece, at + 1)
    return min(said[i - 1] for i in seen) if seen else ""


def _runs(note: str, covered: list[bool]) -> list[str]:
    """The stretches of the note not found in the user's words (the first three)."""
    runs, current = [], ""
    for ch, ok in zip(note, covered):
        if ok and current:
            runs.append(current)
            current = ""
        elif not ok:
            current += ch
    if current:
        runs.append(current)
    return runs[:3]


def trade_refusal(grounding: Grounding, ref: str) -> str:
    return (
        f"没有记录这笔交易：用户本轮的话里没有{'、'.join(grounding.missing)}。只有用户在本轮亲口报告自己已成交的交易"
        "（股票、买卖方向、数量和价格都在用户这条消息里）才能直接记录；不要替用户推断或补全。"
        f"这笔交易已存为待用户确认的提议 {ref}（没有记入账户），用户确认（对话里按 y，或 /memory accept {ref}）后才会记录；"
        "不要说已经记录。"
    )


def alert_refusal(grounding: Grounding, ref: str) -> str:
    return (
        f"没有设置预警：用户本轮的话里没有{'、'.join(grounding.missing)}。只有用户本轮亲口要求的预警"
        "（股票、条件和价格或幅度都在用户这条消息里）才能直接设置。"
        f"这条预警已存为待用户确认的提议 {ref}，用户确认（对话里按 y，或 /memory accept {ref}）后才会设置；"
        "不要说已经设置。"
    )


def already_written(ref: str, proposed: bool) -> str:
    """The answer to a second call that states what this turn already wrote or proposed."""
    if proposed:
        return f"本轮已提议过同一笔（提议 {ref}，待用户确认），没有再保存：不要重复调用"
    return f"本轮已记录过同一笔（{ref}），没有重复记录：不要重复调用"


def note_refusal(grounding: Grounding, ref: str) -> str:
    return (
        f"没有记为用户的话：用户本轮的话里没有{'、'.join(grounding.missing)}。remember 只记用户本轮的原话。"
        f"这条内容已存为待用户确认的提议 {ref}（不注入上下文，不算用户的观点、计划或纪律），"
        f"用户输入 /memory accept {ref} 采纳后才算用户的；不要说已经记住。"
    )
