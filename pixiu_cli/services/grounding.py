"""Whether a tool call that changes the account or the memory comes from the user: the
stock, side, quantity and price of a trade, the stock, direction and threshold of an alert,
and the substance of a note must be in what the user wrote in the turn — their own words,
not the context block, an earlier turn or the model's. What the words lack is named in
Chinese, for the model to read.

Figures are read as typed (full-width digits, 手 = 100 股, 1.5万, Chinese numerals, 元 / 块:
selection/numbers.py); a stock by its code or any name the one name matcher knows (a
holding's name or short name, the security master, nicknames, the user's aliases)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from pixiu_cli.domain.dates import find_date_words
from pixiu_cli.domain.vocabulary import SIDE_NAMES, SIDE_WORDS
from pixiu_cli.selection.names import INDEX, SHADOW, NameSource
from pixiu_cli.selection.normalize import normalize
from pixiu_cli.selection.numbers import Figure, arabic, figures, fold_digits
from pixiu_cli.services.account import trade_day
from pixiu_cli.services.errors import RequestError
from pixiu_cli.store.shared import stores_of

if TYPE_CHECKING:
    from sqlite_utils import Database

_CODE = re.compile(r"(?<!\d)\d{6}(?!\d)")
_ALERT_WORDS = {
    "below": ("跌破", "跌到", "跌至", "低于", "下破", "跌", "止损"),
    "above": ("突破", "涨破", "涨到", "涨至", "高于", "上破", "涨", "止盈"),
    "change_pct": ("涨跌", "涨幅", "跌幅", "波动", "涨", "跌"),
    "drawdown_from_cost": ("回撤", "亏", "成本", "跌"),
}
# A side word right after one of these is an intention, a condition or a negation, not a
# trade done ("要不要卖", "想买", "跌破30就卖", "没卖") — unless 了 follows it ("开盘就卖了");
# one in a clause that asks ("可以卖吗", "卖出？") never is.
_NEGATED = ("不", "别", "没", "未")
_NOT_DONE_BEFORE = (*_NEGATED, "要", "想", "打算", "准备", "计划", "如果", "若", "是否", "能", "该", "会", "再", "就")
_ASKING = ("吗", "么", "呢", "是否", "要不要", "该不该", "能不能", "可不可以")
_CLAUSE = re.compile(r"[^，,。！!？?；;\n]+[？?]?")
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

    def __init__(self, db: Database, text: str):
        self.db = db
        self.text = text
        self.folded = normalize(text)
        self.figures = figures(text)
        self._names: NameSource | None = None
        self._stocks: set[str] | None = None

    def names(self) -> NameSource:
        if self._names is None:
            self._names = NameSource(stores_of(self.db).securities)
        return self._names

    def stocks(self) -> set[str]:
        if self._stocks is None:
            table = self.names().table(stores_of(self.db).investor.holdings())
            matched = table.matches(self.folded)
            named = {m.name.symbol for m in matched if m.name.symbol and m.name.kind not in (INDEX, SHADOW)}
            self._stocks = named | set(_CODE.findall(fold_digits(self.text)))
        return self._stocks

    def stock_label(self, symbol: str) -> str:
        name = self.names().security_name(symbol)
        return f"股票 {symbol}（{name}）" if name else f"股票 {symbol}"

    def has_word(self, words: tuple[str, ...]) -> bool:
        return any(word in self.folded for word in words)

    def reports(self, words: tuple[str, ...]) -> bool:
        """One of `words` said of a trade done: not after 要 / 想 / 没 …, not in a question."""
        for clause in _CLAUSE.findall(self.folded):
            if clause.endswith(("？", "?")) or any(mark in clause for mark in _ASKING):
                continue
            for word in words:
                at = clause.find(word)
                while at >= 0:
                    if _done(clause, at, word):
                        return True
                    at = clause.find(word, at + 1)
        return False

    def at(self, value: Decimal, units: dict[str, int] | tuple[str, ...], code: str | None = None) -> set[int]:
        """Where a figure of `value` is written with one of `units` (a mapping: the unit's
        multiple), never the stock's own code read as a number."""
        scale = units if isinstance(units, dict) else dict.fromkeys(units, 1)
        return {
            f.start
            for f in self.figures
            if f.unit in scale and f.value * scale[f.unit] == value and not _is_code(f, code)
        }


def _done(clause: str, at: int, word: str) -> bool:
    before = clause[max(0, at - 2) : at]
    if any(before.endswith(m) for m in _NEGATED):
        return False
    return clause.startswith("了", at + len(word)) or not any(before.endswith(m) for m in _NOT_DONE_BEFORE)


def _is_code(figure: Figure, code: str | None) -> bool:
    return code is not None and figure.unit == "" and figure.value == Decimal(code)


def ground_trade(db: Database, said: str, trade, now: datetime) -> Grounding:
    """A trade the user reported this turn: its stock, side, shares and price (and its fee
    and day, when the call gives them) are in `said`."""
    words = _Said(db, said)
    missing = []
    if trade.symbol not in words.stocks():
        missing.append(words.stock_label(trade.symbol))
    side, side_words = SIDE_NAMES.get(trade.side, trade.side), SIDE_WORDS.get(trade.side, ())
    if not words.has_word(side_words):
        missing.append(f"方向 {side}")
    elif not words.reports(side_words):
        missing.append(f"已成交的{side}（用户的话是提问、打算、条件或否定，不是报告成交）")
    shares_at = words.at(_exact(trade.quantity), _SHARE_UNITS, trade.symbol)
    price_at = words.at(_exact(trade.price), _PRICE_UNITS, trade.symbol)
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
    if not day:
        return []
    try:
        given = trade_day(day, now)
    except RequestError:
        return []  # the record path refuses it, naming the words
    try:
        named = trade_day(find_date_words(said), now)
    except RequestError:
        named = now.date()
    return [] if given == named else [f"日期 {given.isoformat()}"]


def ground_alert(db: Database, said: str, request) -> Grounding:
    """An alert the user asked for this turn: its stock, direction and threshold are in `said`."""
    words = _Said(db, said)
    missing = []
    if request.symbol not in words.stocks():
        missing.append(words.stock_label(request.symbol))
    if not words.has_word(_ALERT_WORDS.get(request.kind, ())):
        missing.append(f"条件 {request.kind}")
    if not words.at(_exact(request.threshold), tuple({f.unit for f in words.figures}), request.symbol):
        missing.append(f"阈值 {_plain(request.threshold)}")
    return Grounding(tuple(missing))


def ground_note(db: Database, said: str, text: str, symbol: str | None) -> Grounding:
    """A note in the user's words of this turn: most of its characters copied from `said`,
    every negation with them, every figure one the user wrote, its stock one they named."""
    words = _Said(db, said)
    missing = _missing_words(_comparable(text), _comparable(said))
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
    for start, length, negated in _pieces(note, said):
        covered[start : start + length] = [True] * length
        if negated and (start == 0 or note[start - 1] != negated):
            dropped.append(f"否定词「{negated}」（用户说的是「{negated}{note[start : start + length]}」）")
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


def trade_refusal(grounding: Grounding) -> str:
    return (
        f"没有记录这笔交易：用户本轮的话里没有{'、'.join(grounding.missing)}。只有用户在本轮亲口报告的交易"
        "（股票、买卖方向、数量和价格都在用户这条消息里）才能记录；不要替用户推断或补全，"
        "请向用户确认这笔交易，并且不要说已经记录。"
    )


def alert_refusal(grounding: Grounding) -> str:
    return (
        f"没有设置预警：用户本轮的话里没有{'、'.join(grounding.missing)}。只有用户本轮亲口要求的预警"
        "（股票、条件和价格或幅度都在用户这条消息里）才能设置；请向用户确认，并且不要说已经设置。"
    )


def note_refusal(grounding: Grounding, ref: str) -> str:
    return (
        f"没有记为用户的话：用户本轮的话里没有{'、'.join(grounding.missing)}。remember 只记用户本轮的原话。"
        f"这条内容已存为待用户确认的提议 {ref}（不注入上下文，不算用户的观点、计划或纪律），"
        f"用户输入 /memory accept {ref} 采纳后才算用户的；不要说已经记住。"
    )
