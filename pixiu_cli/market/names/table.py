"""Security names: what pixiu can call a stock, and one multi-pattern matcher over them.

Where names come from (`NameSource.table`, `names_from`):

* the user's holdings (full name and short names);
* the security master (`store.securities`): every security pixiu has data about (imports
  register them, see `register_document`) and whatever a market-data sync wrote;
* the shipped list of every listed stock (``data/securities/stock_basic.csv``, read by
  `market.security_list.shipped_names` when the first table is built), so a fresh home
  knows every full name; a name a later list replaced is kept as a former name;
* the user's aliases (`/alias 宁王 300750`);
* shipped nicknames (``data/selection/securities.tsv``: 宁王, 茅子, 工行 …), read as the
  stock even when pixiu holds no data about it;
* shipped index names (``data/selection/indexes.tsv``): an index is market data, never a
  stock, and its code (000001 上证指数) must not be read as the stock with the same digits;
* shadow words (``data/selection/rules/shadow_words.txt``): everyday words and other
  companies' names that contain a short name (平安夜 ⊃ 平安), matched like names but
  naming nothing.

Kinds of name, by how much evidence they need (`select` decides):
``full`` (exchange name), ``nickname``, ``user`` — always the stock unless the words after
it make it a product, a place or an employer (格力空调, 长江电力公司的招聘); ``listed`` (a
market list's name of a stock the user neither holds nor has data about) and ``former`` —
like a full name, but also not after a place verb or a measure word (去黄山旅游), and,
when three characters or fewer (老百姓, 张家界), only with evidence; ``short`` — a
short name is an everyday word more often than a stock (宁德 is a city, 紫金 a mountain),
so it needs evidence. All names are matched at once with an Aho–Corasick automaton
(`pyahocorasick`), leftmost-longest, so a message costs one pass however many names there are.
`NameTable` is the only name matcher: turns, notes and `select.extract_symbols` use it."""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.kernel.store import rows
from pixiu_cli.kernel.store.database import content_digest
from pixiu_cli.market import securities
from pixiu_cli.market import securities as security_list
from pixiu_cli.market import store as store_securities
from pixiu_cli.market.names import codes as normalize
from pixiu_cli.market.names import forms as form_kinds
from pixiu_cli.market.names import homophones, rules
from pixiu_cli.market.names.codes import fold_width_case, to_simplified
from pixiu_cli.market.names.forms import (
    LAST_TWO_OF_THREE,
    generated_forms,
    homophone_min_syllables,
    latin_forms,
    market_forms,
    readings_table,
    spellings,
)
from pixiu_cli.market.names.rules import words
from pixiu_cli.market.securities import FORMER_NAME_SOURCE, ListedName, Security, parse_name, shipped_names

FULL, NICKNAME, USER, SHORT, INDEX, SHADOW = "full", "nickname", "user", "short", "index", "shadow"
HOMOPHONE = "同音"  # the form of a name typed with the wrong characters of its sound (selection/forms.py)
LISTED, FORMER = "listed", "former"
# When two sources give one alias to different symbols, the first kind here wins; a
# holding beats everything (长电 is 长电科技 for its holder, 长江电力 for another), and a
# stock's current name beats another's former one.
_RANK = {USER: 0, FULL: 1, NICKNAME: 2, LISTED: 3, SHORT: 4, FORMER: 5, INDEX: 6, SHADOW: 7}
# Master rows a market list wrote (not an import of the user's own data).
_LIST_SOURCES = frozenset({"baostock", "akshare", "shipped"})
# A two-character name left when the marks are taken off (ST太重 → 太重) is an everyday
# word: only the quoted name is matched, unless the user holds the stock.
_TYPED_MIN = 3


@dataclass(frozen=True)
class ShippedSecurity:
    symbol: str
    name: str
    nicknames: tuple[str, ...]
    short_names: tuple[str, ...]


@dataclass(frozen=True)
class Name:
    alias: str  # normalised spelling
    symbol: str | None  # None for shadow words; the index code for an index
    kind: str
    held: bool = False
    form: str = ""  # how a form of the investor's own stock was made (selection/forms.py)
    of: str = ""  # the name it was made from


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    name: Name


@lru_cache(maxsize=65536)
def _norm(text: str) -> str:
    """Remembered: a table build normalises every listed name (about 11,000), and a process
    builds a table for each database it opens."""
    return to_simplified(fold_width_case(text.strip()))


def _tsv(filename: str) -> list[list[str]]:
    path = data_dir() / "selection" / filename
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append(line.split("\t"))
    return rows


@cache
def shipped_securities() -> dict[str, ShippedSecurity]:
    table: dict[str, ShippedSecurity] = {}
    for row in _tsv("securities.tsv"):
        symbol, name, aliases = row[0], row[1], (row[2].split(",") if len(row) > 2 and row[2] else [])
        table[symbol] = ShippedSecurity(
            symbol,
            name,
            tuple(a for a in aliases if not a.startswith("~")),
            tuple(a[1:] for a in aliases if a.startswith("~")),
        )
    return table


@cache
def shipped_indexes() -> dict[str, tuple[str, ...]]:
    """index code → its names (the first is the usual one)."""
    return {row[0]: (row[1], *(row[2].split(",") if len(row) > 2 and row[2] else ())) for row in _tsv("indexes.tsv")}


def index_codes() -> frozenset[str]:
    return frozenset(shipped_indexes())


def shadow_names() -> Iterable[Name]:
    """Everyday words and other companies' names that contain a short name
    (``data/selection/rules/shadow_words.txt``): matched like names, naming nothing."""
    for word in words("shadow_words.txt"):
        yield Name(_norm(word), None, SHADOW)


@dataclass(frozen=True)
class Holder:
    """A held symbol and its names (what the context builder knows about holdings)."""

    symbol: str
    name: str
    short_names: tuple[str, ...] = ()


class NameTable:
    """Every name, normalised, in one automaton."""

    def __init__(self, names: Iterable[Name], sounds: bool = False):
        """`sounds`: also match the investor's own names by their sound (IME typos)."""
        best: dict[str, Name] = {}
        for name in names:
            if len(name.alias) < 2:
                continue
            current = best.get(name.alias)
            if current is None or (name.held, -_RANK[name.kind]) > (current.held, -_RANK[current.kind]):
                best[name.alias] = name
        self.names = Names(best)
        self.symbols_named = Codes(n.symbol for n in best.values() if n.kind != INDEX and n.symbol)
        self.held = frozenset(n.symbol for n in best.values() if n.held and n.symbol)
        self.sounds = _sound_index(best.values()) if sounds else None

    def stocks_named(self, typed: str, limit: int = 6) -> list[tuple[str, str]]:
        """The stocks a name typed on its own stands for: the one whose name, short name or
        alias it is exactly, else every stock with a name containing it, as (symbol, name)."""
        wanted = _norm(typed)
        exact = self.names.get(wanted)
        if exact is not None and exact.symbol and exact.kind not in (INDEX, SHADOW):
            return [(exact.symbol, typed.strip())]
        found: dict[str, str] = {}
        for alias, name in sorted(self.names.items(), key=lambda item: (_RANK[item[1].kind], item[0])):
            if wanted and wanted in alias and name.symbol and name.kind not in (INDEX, SHADOW):
                found.setdefault(name.symbol, alias)
        return list(found.items())[:limit]

    def matches(self, text: str) -> list[Match]:
        """Leftmost-longest, non-overlapping name matches in normalised `text`."""
        if not text:
            return []
        found = self.names.found_in(text)
        # Pinyin typed in Latin letters is a whole token (sxmy), never part of a word.
        found = [m for m in found if not m[2].alias.isascii() or _latin_token(text, m[0], m[1])]
        # A typo of a whole name beats the half of it typed right (落阳钼业); it names the form
        # it sounds like.
        if self.sounds is not None:
            found += [
                (start, end, replace(name, form=HOMOPHONE, of=name.alias))
                for start, end, name in self.sounds.matches(text)
            ]
        return _leftmost_longest(found)


_NONE = 0xFFFFFFFF  # no symbol (a shadow word)
_KINDS = tuple(_RANK)
_HELD = 0x80  # the kind's byte with the held flag


class Names(Mapping[str, Name]):
    """alias → Name, kept as one string of every text the names hold and arrays of numbers
    into it, with an automaton from each alias to its number. A table holds ~9,000 names (every
    listed stock's): as objects they were most of a one-shot `pixiu ask`'s own memory (~6 MiB
    of a stored table loaded, against ~1 MiB this way). A Name is made when a question
    matches it; iterating every name (a follow-up's prefix search) makes them all, once."""

    def __init__(self, best: dict[str, Name]):
        import ahocorasick  # C extension, imported only when a table is built

        numbers: dict[str, int] = {}
        parts: list[str] = []
        ends = array("I", [0])

        def number(text: str) -> int:
            found = numbers.get(text)
            if found is None:
                found = numbers[text] = len(parts)
                parts.append(text)
                ends.append(ends[-1] + len(text))
            return found

        fields = array("I")
        kinds = bytearray()
        self.automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        self.odd: dict[int, Name] = {}  # a name with a field no plain text (a stored BLOB): kept whole
        for at, (alias, name) in enumerate(best.items()):
            self.automaton.add_word(alias, at)
            if _plain(name):
                symbol = _NONE if name.symbol is None else number(name.symbol)
                fields.extend((number(alias), symbol, number(name.form), number(name.of)))
                kinds.append(_KINDS.index(name.kind) | (_HELD if name.held else 0))
            else:
                self.odd[at] = name
                fields.extend((0, 0, 0, 0))
                kinds.append(0)
        if best:
            self.automaton.make_automaton()
        self.text, self.ends, self.fields, self.kinds = "".join(parts), ends, fields, bytes(kinds)
        self._made: dict[int, Name] = dict(self.odd)
        self._all: dict[str, Name] | None = None

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("_made", "_all")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _made=dict(state["odd"]), _all=None)

    def _text(self, number: int) -> str:
        return self.text[self.ends[number] : self.ends[number + 1]]

    def at(self, number: int) -> Name:
        """The name numbered `number` (made once)."""
        name = self._made.get(number)
        if name is None:
            alias, symbol, form, of = self.fields[4 * number : 4 * number + 4]
            kind = self.kinds[number]
            name = Name(
                self._text(alias),
                None if symbol == _NONE else self._text(symbol),
                _KINDS[kind & ~_HELD],
                bool(kind & _HELD),
                self._text(form),
                self._text(of),
            )
            self._made[number] = name
        return name

    def found_in(self, text: str) -> list[tuple[int, int, Name]]:
        """(start, end, name) of every alias in `text`, overlapping ones included."""
        if not self.kinds:
            return []
        found = []
        for end, number in self.automaton.iter(text):
            name = self.at(number)
            found.append((end - len(name.alias) + 1, end + 1, name))
        return found

    def __getitem__(self, alias: str) -> Name:
        number = self.automaton.get(alias, -1) if isinstance(alias, str) and self.kinds else -1
        if number < 0:
            raise KeyError(alias)
        return self.at(number)

    def __contains__(self, alias: object) -> bool:
        return isinstance(alias, str) and bool(self.kinds) and self.automaton.get(alias, -1) >= 0

    def __len__(self) -> int:
        return len(self.kinds)

    def __iter__(self) -> Iterator[str]:
        return (self._text(self.fields[4 * n]) for n in range(len(self.kinds)))

    def items(self):
        if self._all is None:
            self._all = {name.alias: name for name in map(self.at, range(len(self.kinds)))}
        return self._all.items()

    def values(self):
        return self.items().mapping.values()


def _plain(name: Name) -> bool:
    texts = (name.alias, name.form, name.of) + ((name.symbol,) if name.symbol is not None else ())
    return all(type(t) is str for t in texts) and name.kind in _RANK and type(name.held) is bool


class Codes(Set[str]):
    """The codes a table names, as one string ("\n600519\n000001\n…"): a question only asks
    whether a code it holds is one of them."""

    def __init__(self, codes: Iterable[str]):
        unique = set(codes)
        # a code with a line break in it, or no text at all (a stored BLOB), is kept apart
        self.odd = frozenset(c for c in unique if type(c) is not str or "\n" in c or not c)
        plain = sorted(unique - self.odd)
        self.text = "\n" + "".join(f"{code}\n" for code in plain)
        self.count = len(plain)

    def __contains__(self, code: object) -> bool:
        if type(code) is str and code and "\n" not in code:
            return f"\n{code}\n" in self.text
        return code in self.odd

    def __iter__(self) -> Iterator[str]:
        yield from self.text[1:-1].split("\n") if self.count else ()
        yield from self.odd

    def __len__(self) -> int:
        return self.count + len(self.odd)


def _sound_index(names: Iterable[Name]) -> SoundIndex:
    # A three-character name's last two (易盛 of 新易盛) is matched as typed only: its sound
    # alone (不高 for 步高 of 步步高) is any two syllables of a sentence.
    return SoundIndex(n for n in names if n.held and n.symbol and _is_han(n.alias) and n.form != LAST_TWO_OF_THREE)


def _is_han(text: str) -> bool:
    return bool(text) and all("\u4e00" <= ch <= "\u9fff" for ch in text)


_SOUND_CODES = 0xE000  # a syllable is one private-use character in the coded text


class SoundIndex:
    """The investor's own names by their sound: an IME typo of a form (陕西没业, 华路) reads as
    the form does. `matches` codes the text one syllable a character (its usual reading) and
    finds every reading of every form in one pass (selection/forms.py reads them when the
    table is built; a question needs no pypinyin)."""

    def __init__(self, names: Iterable[Name]):
        import ahocorasick

        codes: dict[str, str] = {}
        self.automaton = ahocorasick.Automaton()
        for name in names:
            for syllables in spellings(name.alias):
                key = "".join(codes.setdefault(s, chr(_SOUND_CODES + len(codes))) for s in syllables)
                if key not in self.automaton:
                    self.automaton.add_word(key, name)
        self.sound_of = {ch: codes[r[0]] for ch, r in readings_table().items() if r and r[0] in codes}
        self.min_syllables = homophone_min_syllables()
        self.empty = not codes
        if not self.empty:
            self.automaton.make_automaton()

    def matches(self, text: str) -> list[tuple[int, int, Name]]:
        """(start, end, name) of each typo of a form in `text` (not the form itself)."""
        if self.empty or not text:
            return []
        coded = "".join(self.sound_of.get(ch, " ") for ch in text)
        found = []
        for end, name in self.automaton.iter(coded):
            start = end - len(name.alias) + 1
            if self._typo(text[start : end + 1], name.alias):
                found.append((start, end + 1, name))
        return found

    def _typo(self, run: str, form: str) -> bool:
        """A run that reads as `form` is its typo when it differs in Chinese characters only,
        and in one character for a two-syllable form (two typos of two are another word)."""
        differ = [a for a, b in zip(run, form) if a != b]
        if not differ or not _is_han(run):
            return False
        if len(form) < self.min_syllables:
            return len(differ) == 1
        return len(differ) <= len(form) // 2


def _latin_token(text: str, start: int, end: int) -> bool:
    """True when text[start:end] is a whole Latin token: no ASCII letter either side."""
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    return not (before.isascii() and before.isalpha()) and not (after.isascii() and after.isalpha())


_CONJUNCTIONS = frozenset("和跟与及或同")


def _leftmost_longest(found: list[tuple[int, int, Name]]) -> list[Match]:
    """The leftmost match, the longest there, then the next after it; a name typed right
    before a typo of the same length. A market stock's short form (和晶 of 和晶科技), which
    counts only in a comparison, never takes the place of a longer name it overlaps (晶澳科技
    in 太阳纸业和晶澳科技)."""
    strong = [(start, end) for start, end, name in found if not _market_form(name)]
    exact = [(start, end) for start, end, name in found if name.form != HOMOPHONE and not _market_form(name)]
    # a typo never takes the place of a name typed right that is as long (成科 of 换成科士达),
    # but an own name's typo does of a market stock's short form (建邦 for the watched 键邦)
    found = [
        (start, end, name)
        for start, end, name in found
        if name.form != HOMOPHONE or not any(s < end and start < e and e - s >= end - start for s, e in exact)
    ]
    ends = {end for _, end, _ in found}
    found = [
        (start, end, name)
        for start, end, name in found
        if not _market_form(name)
        or not (
            any(s < end and start < e and e - s > end - start for s, e in strong)
            # right after another name, 和 / 跟 joins the two (九安和达安), it starts no third
            or (start in ends and name.alias[0] in _CONJUNCTIONS)
        )
    ]
    # the investor's own name, even typed as a homophone, before a market stock's short form of
    # the same span (建邦 for the watched 键邦, not the unowned 建邦科技)
    found.sort(key=lambda m: (m[0], -(m[1] - m[0]), _market_form(m[2]), m[2].form == HOMOPHONE))
    chosen: list[Match] = []
    edge = 0
    for start, end, name in found:
        if start >= edge:
            chosen.append(Match(start, end, name))
            edge = end
    return chosen


def _market_form(name: Name) -> bool:
    """A short form of a stock the investor does not own (names._market_forms)."""
    return name.kind == SHORT and name.form is not None and not name.held


@dataclass(frozen=True)
class Known:
    """A security-master row as name matching sees it."""

    symbol: str
    name: str
    source: str | None = None


def names_from(
    holders: Sequence[Holder],
    known: Sequence[tuple[str, str] | Known],
    aliases: Sequence[tuple[str, str] | tuple[str, str, str]],
    listed: Sequence[ListedName] | None = None,
) -> Iterable[Name]:
    """`known`: master rows ((symbol, name) pairs are rows an import wrote); `aliases`:
    (alias, symbol[, source]); `listed`: the market list (default: the shipped one)."""
    held = {h.symbol for h in holders}
    shipped = shipped_securities()
    rows = [k if isinstance(k, Known) else Known(*k) for k in known]
    listed = shipped_names() if listed is None else listed
    yield from _shipped_names(shipped, held)
    yield from _listed_names(listed, rows, shipped, held)
    yield from _known_names(rows, listed, shipped, held)
    yield from holding_names(holders)
    for alias, symbol, *source in aliases:
        kind = FORMER if source and source[0] == FORMER_NAME_SOURCE else USER
        yield Name(_norm(alias), symbol, kind, symbol in held)
    yield from own_forms(holders, [(alias, symbol) for alias, symbol, *source in aliases if symbol in held])
    yield from _market_forms(listed, held)


def _market_forms(listed: Sequence[ListedName], held: set[str]) -> Iterable[Name]:
    """The market's short forms (广汽 of 广汽集团, 隆鑫 of 隆鑫通用), for stocks the investor
    does not own (their own forms are generated with the rest, recall first)."""

    for form, kind, code, name in market_forms((stock.code, _norm(stock.short_name)) for stock in listed):
        if code not in held:
            yield Name(form, code, SHORT, False, kind, name)


def own_forms(holders: Sequence[Holder], aliases: Sequence[tuple[str, str]]) -> Iterable[Name]:
    """The everyday forms of the investor's own stocks (selection/forms.py): generated from
    each holder's name, and the pinyin of its name, short names and aliases."""

    others = _shipped_nickname_owners()
    for h in holders:
        name, symbol = _norm(_as_text(h.name)), _as_text(h.symbol)
        for form in generated_forms(name) if name else ():
            if others.get(form.text, symbol) == symbol:  # not another stock's nickname (中行)
                yield Name(form.text, symbol, SHORT, True, form.kind, name)
        typed = [name, *(_norm(_as_text(a)) for a in h.short_names)]
        typed += [_norm(alias) for alias, of in aliases if of == h.symbol]
        typed += [f.text for f in generated_forms(name)] if name else []
        for text in dict.fromkeys(t for t in typed if t):
            for form in latin_forms(text):
                yield Name(form.text, symbol, SHORT, True, form.kind, text)


@cache
def _shipped_nickname_owners() -> dict[str, str]:
    """Every shipped nickname and short name → the stock it names."""
    return {
        _norm(alias): symbol
        for symbol, entry in shipped_securities().items()
        for alias in (*entry.nicknames, *entry.short_names)
    }


def _shipped_names(shipped: dict[str, ShippedSecurity], held: set[str]) -> Iterable[Name]:
    """Shadow words, index names and nicknames: what pixiu ships, whatever the database holds."""
    yield from shadow_names()
    for code, names in shipped_indexes().items():
        for alias in names:
            yield Name(_norm(alias), code, INDEX)
    for symbol, entry in shipped.items():
        for alias in entry.nicknames:
            yield Name(_norm(alias), symbol, NICKNAME, symbol in held)


def _spellings(name: str) -> tuple[str, ...]:
    """A quoted name and the name people type (*ST天微 → 天微, 寒武纪-U → 寒武纪)."""
    typed = parse_name(name).short_name
    return (_norm(name), _norm(typed)) if typed != name else (_norm(name),)


def _listed_names(
    listed: Sequence[ListedName], rows: Sequence[Known], shipped: dict[str, ShippedSecurity], held: set[str]
) -> Iterable[Name]:
    """The market list's stocks the master does not name, and the list's names the master
    replaced (a later list renamed the stock: the old name stays, as a former name)."""
    current = {k.symbol: k for k in rows}
    for stock in listed:
        row = current.get(stock.code)
        if row is not None and _norm(stock.short_name) in _spellings(row.name):
            continue
        if row is not None and row.source in _LIST_SOURCES:
            kind = FORMER
        else:
            kind = FULL if stock.code in shipped or stock.code in held else LISTED
        yield Name(_norm(stock.full_name), stock.code, kind, stock.code in held)
        if stock.short_name != stock.full_name and (kind == FULL or len(stock.short_name) >= _TYPED_MIN):
            yield Name(_norm(stock.short_name), stock.code, kind, stock.code in held)


def _known_names(
    rows: Sequence[Known], listed: Sequence[ListedName], shipped: dict[str, ShippedSecurity], held: set[str]
) -> Iterable[Name]:
    # Another company's name swallows the short name inside it (长电科技 is not 长江电力
    # 长电): curated names of stocks no list names (delisted) still do.
    in_master = {k.symbol for k in rows}
    named = in_master | held | {s.code for s in listed}
    for symbol, entry in shipped.items():
        if symbol not in named:
            yield Name(_norm(entry.name), None, SHADOW)
        elif symbol not in in_master:  # the curated spelling, where it differs from the list's
            yield Name(_norm(entry.name), symbol, FULL, symbol in held)
    for row in rows:
        curated = row.symbol in shipped or row.symbol in held
        kind = LISTED if row.source in _LIST_SOURCES and not curated else FULL
        for spelling in _spellings(row.name):
            if kind == FULL or spelling == _norm(row.name) or len(spelling) >= _TYPED_MIN:
                yield Name(spelling, row.symbol, kind, row.symbol in held)
    for symbol, entry in shipped.items():
        for alias in entry.short_names if symbol in named else ():
            yield Name(_norm(alias), symbol, SHORT, symbol in held)


def _as_text(value) -> str:
    """A stored value as text (SQLite keeps any value in any column): NULL is empty, a BLOB
    is decoded with bad bytes replaced, anything else is its str()."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def holding_names(holders: Sequence[Holder]) -> Iterable[Name]:
    for h in holders:  # stored values may be anything SQLite holds: match only real text
        symbol = _as_text(h.symbol)
        if _as_text(h.name):
            yield Name(_norm(_as_text(h.name)), symbol, FULL, True)
        for alias in h.short_names:
            if _as_text(alias):
                yield Name(_norm(_as_text(alias)), symbol, SHORT, True)


@lru_cache(maxsize=32)
def _table_for(holders: tuple[Holder, ...], known: tuple[Known, ...], aliases: tuple[tuple, ...]) -> NameTable:
    """One table per distinct set of names in a process: databases with the same holdings,
    master and aliases (every eval case of one data set) share it. A table is never changed
    once built."""
    return NameTable(names_from(holders, known, aliases), sounds=True)


@cache
def _table_files() -> tuple[Path, ...]:
    """What a table is made from besides the names given: the shipped lists and rules, and
    the code (and opencc's, found without importing it: a question whose names are all
    simplified never loads it) that turns them into names, and the rows into them."""
    from importlib.util import find_spec  # not on the REPL's way to its prompt

    selection = data_dir() / "selection"
    shipped = [selection / f for f in ("securities.tsv", "indexes.tsv", "traditional_chars.txt")]
    shipped += sorted((selection / "rules").iterdir())
    shipped.append(data_dir() / "securities" / "stock_basic.csv")
    modules = (securities, security_list, store_securities, rows, normalize, rules, homophones, form_kinds)
    code = [Path(m.__file__) for m in modules]
    code.append(Path(find_spec("opencc").origin))
    code.append(Path(__file__).with_name("forms.py"))  # not imported: only a build needs it
    return (Path(__file__), *code, *shipped)


# The master's rows a table is made from, as they are stored: a digest over them is the
# table's key, so a stored table is found without turning thousands of rows into objects.
MASTER_ROWS = (("securities", "symbol, name, source, kind", "1"), ("security_aliases", "alias, symbol, source", "1"))


def _master_names(master) -> tuple[tuple[Known, ...], tuple[tuple, ...]]:
    known = tuple(Known(s.symbol, s.name, s.source) for s in master.all() if s.kind != "index")
    aliases = tuple((a.alias, a.symbol, a.source) for a in master.aliases())
    return known, aliases


@dataclass(frozen=True)
class _Listed:
    """A master's names as a cache key, by the digest of its rows (MASTER_ROWS); the rows are
    read only when a table has to be built. The master is held weakly: a remembered table
    keeps no database open."""

    stamp: str
    master: weakref.ref = field(compare=False, repr=False)

    @classmethod
    def of(cls, master) -> _Listed:

        return cls(content_digest(master.db, MASTER_ROWS), weakref.ref(master))

    def names(self) -> tuple[tuple[Known, ...], tuple[tuple, ...]]:
        return _master_names(self.master())


@lru_cache(maxsize=8)
def _stored_table(directory: Path, holders: tuple[Holder, ...], listed: _Listed) -> NameTable:
    """The table for these names from `directory` (built and stored there when it has none)."""
    from pixiu_cli.market.names.cache import cached, fingerprint

    key = fingerprint((holders, listed.stamp), _table_files())
    return cached(directory, key, lambda: _table_for(holders, *listed.names()))


class NameSource:
    """The name table for one database, rebuilt only when the security master's version or
    the holdings change (a turn otherwise costs one version lookup). With `cache_dir`, a
    table built once is kept there for the next process (selection/name_cache.py)."""

    def __init__(self, master, cache_dir: Path | None = None):
        self.master = master
        self.cache_dir = cache_dir
        self._key: tuple | None = None
        self._table: NameTable | None = None

    def table(self, holdings: Sequence) -> NameTable:
        """`holdings`: objects with symbol, name and short_names (store.domain.Holding). The
        same objects come back from the domain's memo while nothing changed, so comparing
        the key is an identity check per holding."""
        key = (self.master.version(), tuple(holdings))
        if key != self._key or self._table is None:
            holders = tuple(Holder(h.symbol, h.name, tuple(h.short_names)) for h in holdings)
            if self.cache_dir is None:
                self._table = _table_for(holders, *_master_names(self.master))
            else:
                self._table = _stored_table(self.cache_dir, holders, _Listed.of(self.master))
            self._key = key
        return self._table

    def security_name(self, symbol: str) -> str | None:
        """The master's name for a stock, else the shipped list's (a fresh home names every
        listed stock it matched)."""
        from pixiu_cli.market.security_master import security_name

        return security_name(self.master, symbol)


@cache
def _listed_by_code() -> dict[str, ListedName]:
    return {stock.code: stock for stock in shipped_names()}


def securities_for_document(data, source: str = "import") -> list:
    """Every stock an import document has data about, named from its holding or the shipped
    lists (a profile or a news item carries only the code); unnamed codes are skipped."""

    names = {h.symbol: h.name for h in data.holdings}
    symbols: dict[str, None] = {}
    for section in ("holdings", "profiles", "news", "signals", "decisions", "alerts", "notes"):
        for row in getattr(data, section, ()):
            symbol = getattr(row, "symbol", None)
            if symbol:
                symbols.setdefault(symbol, None)
    for report in getattr(data, "reports", ()):
        for symbol in getattr(report, "symbols", ()) or ():
            symbols.setdefault(symbol, None)
    shipped = shipped_securities()
    result = []
    for symbol in symbols:
        listed = _listed_by_code().get(symbol)
        name = names.get(symbol) or (shipped[symbol].name if symbol in shipped else None)
        name = name or (listed.full_name if listed else None)
        if name:
            result.append(Security(symbol, name, "stock", source=source))
    return result


def shipped_market_list(source: str = "shipped") -> list:
    """The shipped names as security rows: stands in for a market-data sync in evals."""

    return [Security(s.symbol, s.name, "stock", source=source) for s in shipped_securities().values()]


def warm() -> None:
    """Read the shipped list and normalise its names now (OpenCC loads for the few written
    in traditional characters), off the first turn: every name table starts from them."""
    for stock in shipped_names():
        _norm(stock.full_name)
        _norm(stock.short_name)
