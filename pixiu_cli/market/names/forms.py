"""The kinds of the investor's own forms (selection/forms.py generates them), shown by
``--explain``: a module of their own, so the name table (selection/names.py) can tell a kind
without importing the generator.

The everyday forms of the investor's own stocks, and a matcher for their sounds.

An investor types their own stocks the way they say them: 陕煤 for 陕西煤业, 宁行 for 宁波银行,
神华 for 中国神华, a homophone the IME offered first (陕西没业), or the pinyin itself typed in
Latin letters (sxmy, shanximeiye). The investor's universe — every held and watched stock
and every stock a note or a decision names (context/builder.py passes them as holders) — is
small, so every such form of it is generated (`generated_forms`, `latin_forms`) and matched
recall-first (selection/select.py), where the rest of the market stays precision-first.

Forms, each with its kind (shown by ``--explain``):

* 前两字 / 后两字 — a four-character name's halves, unless the half is an everyday word (洛阳,
  时代: the segmenter's frequency) or, for the last two, an industry word that other listed
  names end in too (能源, 银行);
* 首字缩写 — the first character of each two-character word (陕西煤业 → 陕煤), and a bank's
  first character with 行 (宁波银行 → 宁行; ``contractions``);
* 每词一字 — the first word's first character and the second word's last (山东黄金 → 山金),
  unless it is an everyday word, another listed stock's name or first-characters
  abbreviation, or ends in a character dozens of listed names end in (业 of 煤业: 陕业 is
  nobody's word for 陕西煤业);
* 去掉前后缀 — the name without 中国, 股份, 集团 … (``prefixes``, ``suffixes``);
* 三字名前两字 / 三字名后两字 — a three-character name's first or last two (口子窖 → 口子,
  卓胜微 → 胜微), never another listed name; like 后两字 it is the stock only with investing
  words or a question about it;
* a name's last part that is a product word (芝麻 of 黑芝麻, 阿胶 of 东阿阿胶: no other listed
  name ends in it) is generated however frequent, and is the stock only with clear investing
  evidence (`product_word`, judged in select.py);
* a frequent word is no form (招商 of 招商银行 is mostly 招商引资), except a name's first part
  below ``everyday_form_max_frequency`` (民生, 丽江): generated, it needs investing words;
* 拼音 / 拼音首字母 — the full pinyin and the initials of a name, a short name or an alias,
  every reading of a polyphonic character (行: xing, hang), matched only as a whole Latin
  token and never an English word or abbreviation (``english``);
* 同音 — `names.SoundIndex`: the message's characters read as their usual pinyin, matched
  against every reading of every form (one Aho–Corasick pass over syllable codes).

The lists and thresholds are data: ``data/selection/rules/forms.toml``. Building needs
pypinyin's character dictionary; it happens when the name table is built, and the table
(with this index) is kept on disk per home (selection/name_cache.py), so a question never
imports pypinyin."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from itertools import product

from pixiu_cli.market.names.homophones import pinyin_dict
from pixiu_cli.market.names.rules import table
from pixiu_cli.market.securities import shipped_names

FIRST_TWO, LAST_TWO, INITIALS, AFFIX = "前两字", "后两字", "首字缩写", "去掉前后缀"
EACH_WORD = "每词一字"
FIRST_TWO_OF_THREE, LAST_TWO_OF_THREE = "三字名前两字", "三字名后两字"
PINYIN, PINYIN_INITIALS = "拼音", "拼音首字母"


# Forms that, when an everyday word, are the stock only with investing words or a question
# about the company: a name's business (稀土 of 北方稀土); a three-character name cut short
# (口子 of 口子窖, 易盛 of 新易盛) needs them always.
NEEDS_EVIDENCE = frozenset({LAST_TWO, FIRST_TWO_OF_THREE, LAST_TWO_OF_THREE})
# A name's last part, shared with no other name, that is a word of every day: the product
# (阿胶 of 东阿阿胶, 芝麻 of 黑芝麻). Generated however frequent, it is the stock only with
# clear investing evidence (`product_word`).
LAST_PARTS = frozenset({LAST_TWO, LAST_TWO_OF_THREE})
# 同音, the form of a typo, is names.HOMOPHONE: the name table marks typos at question time,
# when this module is not loaded.
_MAX_READINGS = 16  # spellings of one polyphonic form (4 characters with 2 readings each)
# A polyphonic character's first readings are its living ones (行: xing, hang); pypinyin
# also lists rare and literary ones (宁: zhu) that nobody types for a stock.
_READINGS_PER_CHAR = 2


@dataclass(frozen=True)
class Form:
    text: str
    kind: str  # one of the labels above (Chinese)


@cache
def _rules() -> dict:
    return dict(table("forms.toml")["forms"])


def everyday_word(form: str) -> bool:
    """Whether the investor's own form is also an everyday word (宁德 the city, 海天 the
    sauce). Only a two-character Chinese form can tell: longer names are added to the
    segmenter's dictionary as names (words.use_names), and Latin ones passed `english`; of
    those, chat initials (kdl) are everyday words too."""
    from pixiu_cli.market.names.words import frequency

    if form in _rules()["chat_initials"]:
        return True
    return len(form) == 2 and is_han(form) and frequency(form) >= int(_rules()["stock_only_frequency"])


def everyday_sense(form: str) -> str | None:
    """The everyday sense of an own form too common for the vetoes to tell, or None: one on
    forms.toml's list (with its sense), or one as frequent as the words no form is generated
    from (长城, 金山: a name the user gave; `common_word_frequency`)."""
    from pixiu_cli.market.names.words import frequency

    rules = _rules()
    if form in rules["everyday_senses"]:
        return str(rules["everyday_senses"][form])
    if form in rules["chat_initials"]:
        return "聊天用的拼音缩写"
    if is_han(form) and frequency(form) >= int(rules["common_word_frequency"]):
        return "日常词语（词频很高）"
    return None


def is_han(text: str) -> bool:
    return bool(text) and all("\u4e00" <= ch <= "\u9fff" for ch in text)


_LATIN_PREFIX = re.compile(r"^[a-z]+(?=[\u4e00-\u9fff]{2,}$)")
# 盛科通信-u: the board's marks of a loss-making or dual-class company are no part of its name
_SHARE_CLASS_MARK = re.compile(r"-[uw]{1,2}d?$", re.IGNORECASE)


def _without_affixes(name: str) -> str:
    name = _LATIN_PREFIX.sub(
        "", _SHARE_CLASS_MARK.sub("", name)
    )  # tcl智家 → 智家: a brand's letters before the Chinese name
    rules = _rules()
    for prefix in rules["prefixes"]:
        if name.startswith(prefix) and len(name) - len(prefix) >= 2:
            name = name[len(prefix) :]
            break
    for suffix in rules["suffixes"]:
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    if name[-1:] in rules["industry_last_chars"] and len(name) >= 4:
        return name[:-1]
    return name


def _raw_forms(name: str) -> Iterable[Form]:
    bare = _without_affixes(name)
    if bare != name:
        yield Form(bare, AFFIX)
    name = _SHARE_CLASS_MARK.sub("", name)
    if len(name) == 3:
        yield Form(name[:2], FIRST_TWO_OF_THREE)
        yield Form(name[1:], LAST_TWO_OF_THREE)
    for contracted, char in _rules()["contractions"].items():
        if name.endswith(contracted) and len(name) > len(contracted):
            yield Form(name[0] + char, INITIALS)
    for base in dict.fromkeys((name, bare)):
        if len(base) == 4 and is_han(base):
            yield Form(base[:2], FIRST_TWO)
            yield Form(base[2:], LAST_TWO)
            if base[2:] not in _rules()["entity_suffixes"]:  # 上港集团 is not 上集
                yield Form(base[0] + base[2], INITIALS)
                yield Form(base[0] + base[3], EACH_WORD)


def generated_forms(name: str) -> list[Form]:
    """The everyday forms of one (normalised) name, without those that are everyday or
    industry words: each text once, the first kind found."""
    found: dict[str, Form] = {}
    prefixed = any(name.startswith(prefix) for prefix in _rules()["prefixes"])
    for form in _raw_forms(name):
        if form.text != name and is_han(form.text) and form.text not in found and _distinctive(form, prefixed):
            found[form.text] = form
    return list(found.values())


def market_forms(listed: Iterable[tuple[str, str]]) -> list[tuple[str, str, str, str]]:
    """(form, kind, code, name): the market's everyday short forms — the name without its affix
    (广汽集团 → 广汽, 中国中免 → 中免) and a three- or four-character name's first two characters
    (金新农 → 金新, 隆鑫通用 → 隆鑫) — where that form is no common word, no other listed name's name or abbreviation,
    and one stock's only among every listed name. A stock nobody holds is named this way too
    (上汽和广汽哪个好, 春风比隆鑫), and like any short name of the market it needs a question
    about it or a comparison with another stock."""
    found: dict[str, set[tuple[str, str, str]]] = {}
    prefixes = tuple(_rules()["prefixes"])
    for code, name in listed:
        bare = _without_affixes(name)
        if bare != name:
            found.setdefault(bare, set()).add((AFFIX, code, name))
        if len(name) == 4 and is_han(name) and not name.startswith(prefixes):
            found.setdefault(name[:2], set()).add((FIRST_TWO, code, name))
        elif len(name) == 3 and is_han(name):
            found.setdefault(name[:2], set()).add((FIRST_TWO_OF_THREE, code, name))
    out = []
    for form, stocks in found.items():
        # the name without its affix says which stock more than a first two shared with it
        # (方大集团 → 方大, though 方大特钢 and 方大炭素 start so too)
        affixed = {stock for stock in stocks if stock[0] == AFFIX}
        named = affixed or stocks
        if len({code for _, code, _ in named}) == 1 and is_han(form) and len(form) >= 2:
            if _rare_enough(form) and form not in _listed_short_forms():
                kind, code, name = min(named)
                out.append((form, kind, code, name))
    return out


def _rare_enough(form: str) -> bool:
    """A market form below the frequency of the words no form is generated from. One that is
    an everyday word too (新城, 金地) is named so only next to another stock it is compared
    with (select.py asks that of it)."""
    from pixiu_cli.market.names.words import frequency

    return frequency(form) < int(_rules()["common_word_frequency"])


def _distinctive(form: Form, prefixed: bool) -> bool:
    from pixiu_cli.market.names.words import frequency

    rules = _rules()
    if len(form.text) > 2:
        return True
    if form.kind in (FIRST_TWO_OF_THREE, LAST_TWO_OF_THREE) and form.text in _listed_short_forms():
        return False
    if form.kind in LAST_PARTS:
        return _listed_endings()[form.text] <= int(rules["shared_ending_names"])
    if frequency(form.text) >= int(rules["common_word_frequency"]):
        return _frequent_but_named(form)
    if form.kind == FIRST_TWO_OF_THREE:
        return True
    if form.kind == EACH_WORD:
        # 中国电影 → 中影: after a prefix, the dictionary counts the abbreviation as the company
        ordinary = prefixed or not everyday_word(form.text)
        # a bank is its first character and 行 (宁行, 张行); one that is another's nickname (中行
        # of 中国银行) is left out where the nicknames are known (names.own_forms)
        banking = form.text.endswith("行")
        return ordinary and form.text not in _listed_short_forms() and (_telling_end(form.text[-1]) or banking)
    return True


def product_word(form: str, kind: str | None) -> bool:
    """Whether an own form is a name's last part that is a word of every day (阿胶, 芝麻):
    the product far more often than the company."""
    from pixiu_cli.market.names.words import frequency

    return kind in LAST_PARTS and frequency(form) >= int(_rules()["common_word_frequency"])


def _frequent_but_named(form: Form) -> bool:
    """A frequent word that is still what people call the company (民生 of 民生银行, 丽江 of
    丽江股份, 口子 of 口子窖): a name's first part, below `everyday_form_max_frequency`;
    `everyday_sense` then asks investing words of it. A city or a word of every day (北京,
    东方, 完美) is more frequent than that and is never generated."""
    from pixiu_cli.market.names.words import frequency

    rules = _rules()
    first_part = form.kind in (FIRST_TWO, AFFIX, FIRST_TWO_OF_THREE) and form.text not in rules["prefixes"]
    return first_part and frequency(form.text) < int(rules["everyday_form_max_frequency"])


def _telling_end(char: str) -> bool:
    """Whether a name's last character tells the company apart (金 of 黄金), not one that
    dozens of listed names end in (业, 力, 券: 煤业, 电力, 证券)."""
    return _listed_last_chars()[char] <= int(_rules()["shared_last_char_names"])


@cache
def _listed_last_chars() -> Counter[str]:

    return Counter(stock.short_name[-1] for stock in shipped_names() if len(stock.short_name) == 4)


@cache
def _listed_short_forms() -> frozenset[str]:
    """Every listed stock's short name and its first-characters abbreviation (中国铝业 →
    中铝): a first-and-last abbreviation (山东黄金 → 山金) that is one of them names
    another stock."""

    found: set[str] = set()
    for stock in shipped_names():
        name = stock.short_name
        found.add(name)
        if len(name) == 4:
            found.add(name[0] + name[2])
    return frozenset(found)


@cache
def _listed_endings() -> Counter[str]:
    """How many listed names end in each two characters (能源: dozens, 钼业: one)."""

    return Counter(stock.short_name[-2:] for stock in shipped_names() if len(stock.short_name) >= 3)


def _toneless(reading: str) -> str:
    reading = reading.replace("ü", "v").replace("ǖ", "v").replace("ǘ", "v").replace("ǚ", "v").replace("ǜ", "v")
    return "".join(ch for ch in unicodedata.normalize("NFD", reading) if not unicodedata.combining(ch))


@cache
def readings_table() -> dict[str, tuple[str, ...]]:
    """Every character pypinyin knows → its readings, toneless, the usual one first."""

    return {
        chr(cp): tuple(dict.fromkeys(_toneless(r) for r in value.split(","))) for cp, value in pinyin_dict().items()
    }


def spellings(text: str) -> list[tuple[str, ...]]:
    """Every way `text` reads (a polyphonic character gives each of its readings), as
    syllables; none when a character has no reading."""
    readings = readings_table()
    per_char = [readings.get(ch, ())[:_READINGS_PER_CHAR] for ch in text]
    if not all(per_char):
        return []
    combos = []
    for combo in product(*per_char):
        combos.append(combo)
        if len(combos) >= _MAX_READINGS:
            break
    return combos


def latin_forms(text: str) -> list[Form]:
    """The full pinyin and the initials of a Chinese form, as a user types them in Latin
    letters (sxmy, shanximeiye), without English words."""
    rules = _rules()
    english = frozenset(rules["english"])
    found: dict[str, Form] = {}
    for syllables in spellings(text) if is_han(text) else ():
        full = "".join(syllables)
        initials = "".join(s[0] for s in syllables)
        for latin, kind in ((full, PINYIN), (initials, PINYIN_INITIALS)):
            if len(latin) >= int(rules["latin_min_letters"]) and latin not in english and latin not in found:
                found[latin] = Form(latin, kind)
    return list(found.values())


def homophone_min_syllables() -> int:
    return int(_rules()["homophone_min_syllables"])
