"""Which sections does this message need? Symbols, intent and overview, with reasons.

`select(text, table, earlier)`:

1. normalise (`normalize`): half-width, lower case, simplified, standard pronouns, IME
   homophones of position words fixed by pinyin;
2. codes (`codes.find_codes`), minus index codes in an index context (上证指数 000001
   is the index, 000001 平安银行 is the bank);
3. names (`names.NameTable`, one Aho–Corasick pass), each accepted or rejected with a
   reason: product, place, service or idiom words around any name make it not the stock
   unless investing evidence is near (云南白药牙膏, but 海康的摄像头卖得好，股价能涨吗); a
   full name, nickname or user alias is otherwise the stock; a short name needs evidence —
   investing words, a holding asked about (宁德还能拿吗), a portfolio question
   (这几只里长电…), or the conversation — never counts after a place verb or a measure
   word (去宁德出差, 两瓶茅台), nor inside an everyday word (心灵美的人, `words`); any name,
   a held full name too, in a sentence of daily life without investing evidence is that
   thing (`senses`: 用道道全的油炒菜, 益丰药房几点关门, 老婆，我爱我家), and names set against
   each other in a choice are stocks, held or not (茅台跟五粮液哪个好, `senses.compared`);
   the investor's own stocks (held, watched, noted) are recall first: their everyday forms
   (selection/forms.py: 陕煤, 华鲁, sxmy, IME typos) are the stock unless these vetoes say
   otherwise, and one compared with another stock is never the one dropped;
4. intent cues (`intent.analyze`), then the memory classes the message asks about
   (`targets.refine`: the account, trades, news, the brief, rules, plans, the watch list;
   one stock against the rest; a question about no account of the user's — others' money,
   the crowd's talk, money in daily life, knowledge — is a class that stays out);
5. the conversation (`follow_up.resolve`): the focus the last few turns left, and the one
   operation a follow-up applies to it (keep 它 / 这俩, replace 那三一呢, same topic, add
   和汾酒比呢, complement 其他几只呢, widen 整体呢); first, the stock in a follow-up's place
   (和广汽比呢, and 丽江?: `follow_up.named_in_place`) is taken as named;
6. given today, the windows a named period moves (`windows`: 上个月, 上周三, 上半年…), read
   with the accepted names blanked out (十月份中国黄金: October, not mid-October).

The word lists and patterns of steps 3 and 5 are data: ``data/selection/rules/mentions.toml``.
Every caller finds names with the same `NameTable`: a turn here, a note (`/remember`, the
remember tool: `services/note_symbol.py` calls `select`), and `extract_symbols` below, which
lists what a text names without judging it.

The sense of a name in its sentence: the stock, or the thing of daily life it also names.

A stock's name is often also a brand people cook with (道道全的油炒菜), a shop they visit
(益丰药房几点关门), a train they ride (坐广深铁路去广州), a gift (良品铺子的坚果礼盒) or a
phrase of feeling or a wish (老婆，我爱我家; 祝大家步步高升). `sense_of` reads the name's
sentence for words of a domain of daily life (food, shopping, services, travel, things at
home, feelings and wishes) and the text around it for investing evidence (the price, a
position, P&L, a report: ``mentions.toml``'s ``evidence`` and this file's ``investing``);
life words without investing evidence make the name everyday. It judges any kind of name —
a held full name, a short name, a nickname, a listed name, or a spelling another step found
(a homophone, pinyin initials) — from the text and the name's span only.

`compared` finds the names that stand in a comparison (茅台跟五粮液哪个好, 比亚迪还是宁德):
a name set against another stock is the stock, held or not.

The word lists are data: ``data/selection/rules/senses.toml``."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import cache, lru_cache

from pixiu_cli.conversation.selection.follow_up import EARLIER_TURNS, EarlierTurn, named_in_place, resolve
from pixiu_cli.conversation.selection.follow_up import warm as warm_conversation
from pixiu_cli.conversation.selection.intent import Intent, analyze
from pixiu_cli.conversation.selection.intent import warm as warm_intent
from pixiu_cli.conversation.selection.result import Carried, MentionNote, Selection
from pixiu_cli.conversation.selection.targets import (
    BRIEF,
    RELATIVE_CLASS,
    against_rest,
    fired_names,
    outside,
    refine,
    without_asker,
)
from pixiu_cli.conversation.selection.targets import rules as target_rules
from pixiu_cli.conversation.selection.targets import warm as warm_targets
from pixiu_cli.conversation.selection.topics import NO_TOPICS, read_topics, turns_to_market
from pixiu_cli.conversation.selection.topics import warm as warm_topics
from pixiu_cli.conversation.selection.topics import words as topic_words
from pixiu_cli.conversation.selection.windows import followed, moves, period, reviewed, unsaid_period
from pixiu_cli.conversation.selection.windows import warm as warm_windows
from pixiu_cli.market.names.codes import find_codes, normalize
from pixiu_cli.market.names.codes import warm as warm_codes
from pixiu_cli.market.names.forms import (
    FIRST_TWO_OF_THREE,
    LAST_TWO,
    NEEDS_EVIDENCE,
    everyday_sense,
    everyday_word,
    product_word,
)
from pixiu_cli.market.names.rules import compiled, joined, table
from pixiu_cli.market.names.table import (
    FORMER,
    FULL,
    HOMOPHONE,
    INDEX,
    LISTED,
    SHADOW,
    SHORT,
    Holder,
    NameTable,
    holding_names,
    index_codes,
    shadow_names,
)


@dataclass(frozen=True)
class _Domain:
    name: str
    what: str  # Chinese, shown in the reason
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class _Rules:
    domains: tuple[_Domain, ...]
    investing: re.Pattern[str]
    sentence_end: re.Pattern[str]
    life_reach: int
    investing_reach: int
    connector: re.Pattern[str]
    choice: re.Pattern[str]


@cache
def _rules() -> _Rules:
    data = table("senses.toml")
    evidence = f"{joined(table('mentions.toml')['mention']['evidence'])}|{slang()}"
    domains = tuple(_Domain(d["name"], d["what"], compiled(joined(d["pattern"]))) for d in data["domain"])
    return _Rules(
        domains,
        compiled(f"{evidence}|{joined(data['investing']['pattern'])}"),
        compiled(data["sentence_end"]),
        int(data["life_reach"]),
        int(data["investing_reach"]),
        compiled(joined(data["compare"]["connector"])),
        compiled(joined(data["compare"]["choice"])),
    )


@cache
def slang() -> str:
    """Trader's slang (holding on, price action, disclosures: mentions.toml's ``[slang]``),
    one pattern: investing evidence around a name, here and in select.py."""
    return "|".join(joined(words) for words in table("mentions.toml")["slang"].values())


def warm_senses() -> None:
    _rules()


@dataclass(frozen=True)
class Sense:
    """How a name is used in its sentence: the life word and its domain (empty when none),
    and the investing evidence near it (empty when none)."""

    life: str = ""
    what: str = ""
    investing: str = ""

    @property
    def everyday(self) -> bool:
        return bool(self.life) and not self.investing

    def why(self) -> str:
        """The reason shown in --explain (Chinese)."""
        if self.everyday:
            return f"日常用法：“{self.life}”说明说的是{self.what}，附近没有股价、持仓、涨跌等投资证据：不是股票"
        if self.life:
            return f"虽有日常用语“{self.life}”，附近有投资证据“{self.investing}”"
        return ""


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence holding text[start:end], at most `life_reach` either side."""
    rules = _rules()
    lo, hi = max(0, start - rules.life_reach), min(len(text), end + rules.life_reach)
    before = [m.end() for m in rules.sentence_end.finditer(text, lo, start)]
    after = rules.sentence_end.search(text, end, hi)
    return (before[-1] if before else lo), (after.start() if after else hi)


def _without_name(text: str, start: int, end: int, lo: int, hi: int) -> str:
    """text[lo:hi] with the name replaced by a space: its own characters (申通快递, 光明乳业)
    are no evidence either way, and words never join across it."""
    return f"{text[lo:start]} {text[end:hi]}"


def sense_of(text: str, start: int, end: int) -> Sense:
    """The sense of the name at text[start:end] of a normalised text."""
    rules = _rules()
    lo, hi = _sentence(text, start, end)
    sentence = _without_name(text, start, end, lo, hi)
    life = next(((d, m) for d in rules.domains if (m := d.pattern.search(sentence))), None)
    if life is None:
        return Sense()
    domain, word = life
    reach = rules.investing_reach
    around = _without_name(text, start, end, max(0, start - reach), min(len(text), end + reach))
    investing = rules.investing.search(around)
    return Sense(word.group(), domain.what, investing.group() if investing else "")


def everyday_reason(text: str, start: int, end: int) -> str | None:
    """Why the name at text[start:end] is used in daily life and is not the stock, or None.
    One veto for every kind of mention: full, short, nickname, listed, homophone, initials."""
    sense = sense_of(text, start, end)
    return sense.why() if sense.everyday else None


def compared(text: str, spans: Sequence[tuple[int, int]]) -> frozenset[int]:
    """The indexes of the spans (names, in order) that stand in a comparison with a
    neighbour: joined by 跟, 和, 还是, vs … in a text that asks to choose (哪个, 二选一)."""
    rules = _rules()
    if len(spans) < 2 or not rules.choice.search(text):
        return frozenset()
    found: set[int] = set()
    for i in range(len(spans) - 1):
        if rules.connector.match(text[spans[i][1] : spans[i + 1][0]]):
            found.update((i, i + 1))
    return frozenset(found)


__all__ = ["Carried", "MentionNote", "Selection", "extract_symbols", "select", "warm"]


@dataclass(frozen=True)
class _MentionRules:
    """How a name is judged (``[mention]`` of ``data/selection/rules/mentions.toml``)."""

    investing: re.Pattern[str]  # evidence that a short name is the stock
    evidence: re.Pattern[str]  # strong enough to overrule product or place words around a name
    product_before: re.Pattern[str]  # drinking, using or going to it (喝五粮液), also a full name
    asked_about: re.Pattern[str]  # right after a short name: a question about it as a stock
    place_before: re.Pattern[str]  # going somewhere, or buying a product (去宁德出差)
    degree_before: re.Pattern[str]  # 更, 最: a listed name that is a phrase (谁更值得买)
    surname_before: re.Pattern[str]  # 谢 of 谢永强: an own form that is a person's given name
    keep_choice: re.Pattern[str]  # 留哪个, 二选一: a choice among the investor's stocks
    measure_before: re.Pattern[str]  # counting bottles (两瓶茅台)
    not_stock_after: re.Pattern[str]  # a product, a place, an employer (格力空调)
    index_context: re.Pattern[str]  # a bare index code is the index
    wish: re.Pattern[str]  # a wish or a greeting: a name inside a set phrase is the phrase


def _compiled(section: dict, kind):
    return kind(**{key: compiled(joined(value)) for key, value in section.items()})


@cache
def _mention_rules() -> _MentionRules:
    section = dict(table("mentions.toml")["mention"])
    # topics.toml's investing words and the trader's slang too
    section["investing"] = [joined(section["investing"]), "|", topic_words("investing"), "|", slang()]
    return _compiled(section, _MentionRules)


def _code_notes(
    text: str, held: frozenset[str], known: frozenset[str], named: set[str]
) -> list[tuple[int, MentionNote]]:
    notes = []
    indexes = index_codes()
    index_context = _mention_rules().index_context.search(text) is not None
    for start, code in find_codes(text, held):
        bare = not re.search(r"[a-z]", text[max(0, start - 3) : start + 9].replace(code, ""))
        if code in indexes and bare and index_context and code not in named:
            notes.append(
                (start, MentionNote(code, None, "index", False, "指数代码：上下文说的是指数，不是同代码的股票"))
            )
        elif code not in held and code not in known and code.endswith("0000"):
            notes.append((start, MentionNote(code, None, "code", False, "整万的数字，不是已知的股票代码：读作金额")))
        else:
            notes.append((start, MentionNote(code, code, "code", True, "股票代码")))
    return notes


_ALWAYS = {FULL: "股票全称", "nickname": "常用昵称", "user": "用户设置的别名"}
# A market list's name this long is a company's name; a shorter one (老百姓, 张家界,
# 值得买) is also an everyday word, and investing words around it are no evidence.
_LISTED_NAME_CHARS = 4
_EVIDENCE_LABEL = {LISTED: "证券列表中的名称", FORMER: "股票的曾用名"}
# A name with its share class (张裕a, 万科b): no everyday word ends in a Latin letter.
_SHARE_CLASS = re.compile(r"[\u4e00-\u9fff][ab]$")


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, reach: int = 80) -> re.Match[str] | None:
    """A match of `pattern` in the text around a name (the whole of a question; a window of a paste)."""
    return pattern.search(text, max(0, start - reach), start) or pattern.search(text, end, end + reach)


def _investing_near(text: str, start: int, end: int) -> re.Match[str] | None:
    """Investing words around a name, or a memory class's cue word (计划, 公告, 做t, 简报):
    a short name next to one is the stock."""
    return _near(_mention_rules().investing, text, start, end) or _near(target_rules().evidence, text, start, end)


def _not_stock_context(text: str, start: int, end: int) -> str | None:
    """The product, place, service or idiom words around a name, if any (格力空调, 喝五粮液)."""
    rules = _mention_rules()
    after = rules.not_stock_after.match(text[end : end + 12])
    if after:
        return after.group()
    before = rules.product_before.search(text[max(0, start - 4) : start])
    return before.group() if before else None


def _inside_word(text: str, start: int, end: int, table: NameTable) -> str | None:
    """The common word a short name sits inside (心灵美的 holds 心灵美, 不到长城非好汉)."""
    from pixiu_cli.market.names.words import frequency, segment, use_names

    use_names(table)
    common = [w for w in segment(text).cut_by(start, end) if frequency(w) >= _COMMON_WORD]
    return common[0] if common else None


# A word at least this frequent in the segmenter's dictionary is an everyday word.
_COMMON_WORD = 100


def _everyday(text: str, start: int, end: int, name, life_text: str = "", in_comparison: bool = False) -> str | None:
    """Why a name is not the stock here: no stock at all (a shadow word, an index), product,
    place or service words right around it, or a sentence of daily life (`senses`) — never
    for the investor's own stocks compared in a choice to keep or to sell (全筑跟恒尚都是搞装修的
    留哪个)."""
    if in_comparison and name.held and _mention_rules().keep_choice.search(text):
        return None
    if name.kind == SHADOW:
        return "日常用语或其他公司的名字，包含了简称"
    if name.kind == INDEX:
        return "指数，不是股票"
    if phrase := _set_phrase(text, start, end):
        return f"名字在祝福语“{phrase}”里面（整句是祝福、问候）：说的是这句吉祥话，不是股票"
    context = _not_stock_context(text, start, end)
    if context and not _near(_mention_rules().evidence, text, start, end):
        return f"“{context}”说明指的是产品、地方或服务，不是股票（句中没有股价、代码、持仓等投资证据）"
    return everyday_reason(life_text or text, start, end)


# A set phrase (成语, 吉祥话) has four characters; a name this long or longer is no part of one.
_SET_PHRASE_CHARS = 4


def _set_phrase(text: str, start: int, end: int) -> str | None:
    """The set phrase of four characters, a word of the segmenter's dictionary, that holds
    the name and more (步步高升 holds 步步高, 万事亨通 亨通), in a wish or a greeting."""
    from pixiu_cli.market.names.words import frequency

    if end - start >= _SET_PHRASE_CHARS or not _mention_rules().wish.search(text):
        return None
    for lo in range(max(0, end - _SET_PHRASE_CHARS), start + 1):
        phrase = text[lo : lo + _SET_PHRASE_CHARS]
        if len(phrase) == _SET_PHRASE_CHARS and _HAN_RUN.fullmatch(phrase) and frequency(phrase) > 0:
            return phrase
    return None


_HAN_RUN = re.compile("[\u4e00-\u9fff]+")


def _blanked(text: str, spans: Sequence[tuple[int, int]], filler: str = " ") -> str:
    """The text with each span's characters replaced by `filler`, offsets kept."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = filler * (end - start)
    return "".join(chars)


def _counted_or_visited(before: str, name) -> bool:
    """A measure word or a place verb right before a name that needs evidence (两瓶茅台, 去宁德)."""
    rules = _mention_rules()
    place = rules.place_before.search(before)
    visited = place is not None and place.group() not in ("在", "买", "买了")
    return name.kind not in _ALWAYS and bool(rules.measure_before.search(before) or visited)


def _judge_name(
    text: str,
    start: int,
    end: int,
    name,
    portfolio_context: bool,
    conversation: bool,
    table: NameTable,
    in_comparison: bool = False,
    life_text: str = "",
) -> tuple[bool, str]:
    rules = _mention_rules()
    before, after = text[max(0, start - 4) : start], text[end : end + 12]
    everyday = _everyday(text, start, end, name, life_text, in_comparison)
    if everyday:
        return False, everyday
    if name.form == HOMOPHONE and (
        weak := _weak_typo(text, start, end, name, table.sounds.min_syllables, in_comparison)
    ):
        return False, weak
    if phrase := _in_a_phrase(text, start, end, name, before):
        return False, phrase
    if in_comparison and not _counted_or_visited(before, name):
        return True, "和另一只股票放在一起比较（跟、还是…哪个）：是股票"
    context = _not_stock_context(text, start, end)
    evidence = _near(rules.evidence, text, start, end) if context else None
    # A name asked about directly (茅台最近怎么样) or a holding in a question about holdings
    # is not inside a word; otherwise, without investing words, it may be (心灵美的人).
    plain = name.held and portfolio_context or rules.asked_about.match(after)
    if name.kind == SHORT and not plain and not _investing_near(text, start, end):
        # Without investing words, a short name inside an everyday word is that word.
        if word := _inside_word(text, start, end, table):
            return False, f"简称在词语“{word}”里面，句中也没有投资用语：不是股票"
    if name.kind in _ALWAYS:
        label = _ALWAYS[name.kind] if name.form != HOMOPHONE else f"与{_ALWAYS[name.kind]}同音（输入法选错了字）"
        if evidence:
            return True, f"{label}：虽有“{context}”，句中有投资证据“{evidence.group()}”"
        overruled = sense_of(text, start, end).why()  # life words, with investing evidence near
        return True, f"{label}：{overruled}" if overruled else label
    if rules.measure_before.search(before):
        return False, "前面是数量词（两瓶、一箱…），指的是商品"
    place = rules.place_before.search(before)
    # Investing words near the name (the whole of a question; a window of a long paste).
    investing = _investing_near(text, start, end)
    if place and not (investing and place.group() in ("在", "买", "买了")):
        return False, f"前面的“{place.group()}”说明是地名或商品"
    if name.kind != SHORT:
        return _listed_name(after, name)
    return _evidence(text, start, end, name, investing, portfolio_context, conversation)


def _weak_typo(text: str, start: int, end: int, name, strong: int, in_comparison: bool = False) -> str | None:
    """Why a homophone of the investor's own name is not the stock, if it is not: the run is
    an everyday word (同音的常用词), or one shorter than `strong` syllables (华路, not 陕西没业:
    forms.toml's homophone_min_syllables) with nothing about investing, no question about it,
    no question about a company's fundamentals and no other stock it is compared with."""
    from pixiu_cli.market.names.words import frequency, segment

    run = text[start:end]
    if frequency(run) >= _COMMON_WORD and not in_comparison:  # 世家和闽铝二选一: 世嘉 all the same
        return f"“{run}”与“{name.alias}”同音，但它本身是常用词"
    # a typo of a long name cuts a word only when it shares more than one character with it
    # (维海得出 is 维海德 + 出, not 得出 cut)
    shared = 1 if len(name.alias) < strong else 2
    if cut := [w for w, inside in segment(text).cuts(start, end) if frequency(w) >= _COMMON_WORD and inside >= shared]:
        return f"“{run}”与“{name.alias}”同音，但它拆开了词语“{cut[0]}”"
    if len(name.alias) >= strong or in_comparison or _investing_near(text, start, end):
        return None
    if _mention_rules().asked_about.match(text[end : end + 12]) or read_topics(text, True, False).cues:
        return None
    return f"“{run}”与“{name.alias}”同音，两个字的同音词还需要投资用语或直接问它"


def _listed_name(after: str, name) -> tuple[bool, str]:
    """A market list's or former name: a company's name when long enough; a short one is
    the stock only when the question is about it (值得买怎么样, not 哪只股票值得买)."""
    label = _EVIDENCE_LABEL[name.kind]
    if len(name.alias) >= _LISTED_NAME_CHARS or _SHARE_CLASS.search(name.alias):
        return True, "股票全称（证券列表）" if name.kind == LISTED else label
    if _mention_rules().asked_about.match(after):
        return True, f"{label}，问的是它怎么样"
    if strong := _mention_rules().evidence.search(after[:_EVIDENCE_AFTER]):  # 大悦城这只股票分红
        return True, f"{label}，紧跟着投资用语“{strong.group()}”"
    return False, f"{label}只有 {len(name.alias)} 个字，也是日常用语：直接问它（怎么样、能买吗）才算股票"


def _evidence(
    text: str, start: int, end: int, name, investing, portfolio_context: bool, conversation: bool
) -> tuple[bool, str]:
    # own forms are always held: a form of a stock not held is the market's (names._market_forms)
    if name.form and not name.held:
        if everyday_word(name.alias):  # 新城, 金地: only a comparison with another stock tells
            return False, _MARKET_EVERYDAY
        if not _mention_rules().asked_about.match(text[end : end + 12]):
            return False, _MARKET_AFFIX
    if name.held and (product := _product_word(text, start, end, name)):
        return product
    if investing:
        return True, f"简称，句中有投资用语“{investing.group()}”"
    if _mention_rules().asked_about.match(text[end : end + 12]):
        return True, "股票简称，问的是它怎么样" if not name.held else "持有股票的简称，问的是它怎么样"
    if name.held and portfolio_context:
        return True, "持有股票的简称，出现在关于持仓的问题里"
    if name.held and (why := _own_evidence(text, start, end, name)):
        return True, why
    if conversation:
        return True, "简称，最近几轮在谈股票"
    return False, _wanting(text, start, end, name)


_NO_EVIDENCE = "简称也是日常用语，句中没有投资相关的证据"


def _product_word(text: str, start: int, end: int, name) -> tuple[bool, str] | None:
    """An own form that is the product the company is named after (阿胶 of 东阿阿胶, 芝麻 of
    黑芝麻): the stock only with clear investing evidence — the price, a position, a report,
    a disclosure, trader's slang — never with a plain 涨 or 怎么样 (阿胶涨价了, 芝麻怎么样)."""

    if not product_word(name.alias, name.form):
        return None
    if clear := _near(_mention_rules().evidence, text, start, end) or _near(_slang(), text, start, end):
        return True, f"你自己的股票，“{name.alias}”也是它的产品：句中有明确的投资证据“{clear.group()}”"
    return False, f"{_NO_EVIDENCE}（“{name.alias}”是“{name.of}”的产品，要有披露、公告、股价等明确证据才算股票）"


@cache
def _slang() -> re.Pattern[str]:
    return compiled(slang())


# Any two characters of a sentence may spell a market name without its affix (抖音上大v
# holds 上大 of 上大股份): for a stock the investor does not own, only a comparison with
# another stock or a question about it right after tells.
# How far after a short listed name strong investing evidence makes it the stock.
_EVIDENCE_AFTER = 6
_MARKET_AFFIX = "市场上某只股票的简称（不是你的股票）：只有和另一只股票比较或直接问它时才算"
_MARKET_EVERYDAY = "市场上某只股票的简称，也是日常用语（不是你的股票）：只有和另一只股票比较时才算"


def _own_evidence(text: str, start: int, end: int, name) -> str | None:
    """Recall first for the investor's own stocks: any form of one is the stock unless the
    vetoes of `_judge_name` (daily-life senses, product or place words, a place verb, a
    measure word, a common word around it) said otherwise. A form that is an everyday word
    also stays out inside any longer word (如日中天) and still needs investing words or a
    question about a company's fundamentals (topics.toml's cues) when it is a name's last
    two characters (稀土, 快递: the business, not the company), as common as the words no
    form is generated from (长城, 金山: names the user gave) or on forms.toml's list of
    everyday senses (万能, 通通: an adjective, an adverb far more often than the company).
    A three-character name's first two (口子 of 口子窖) needs them whatever its frequency."""

    if name.form and _word_around(text, start, end):  # 张仲景 holds 仲景: a person, a book, a place
        return None
    if name.form and _given_name(text, start, end):
        return None
    if name.form and _about_somebody_else(text):  # 儿子在背少年闰土: the text, not the stock
        return None
    if name.form != FIRST_TWO_OF_THREE and not everyday_word(name.alias):
        return "你自己的股票（持有、自选或笔记里提到的），这个叫法不是日常用语：没有相反的迹象就是股票"
    if name.form not in NEEDS_EVIDENCE and everyday_sense(name.alias) is None:
        return None if _word_around(text, start, end) else _OWN_EVERYDAY_WORD
    cues = read_topics(text, True, False).cues
    if cues:
        return f"你自己的股票，问的是公司的基本面（“{cues[0].matched}”）"
    return None


def _about_somebody_else(text: str) -> bool:
    """Whether the sentence is about another person's doings (儿子在背…, 孙子最喜欢…): recall
    first for the user's own forms does not hold there; investing words still do."""

    found = outside(text)
    return found is not None and found.name == RELATIVE_CLASS


def _given_name(text: str, start: int, end: int) -> str | None:
    """The surname right before a two-character own form that makes it a person (谢永强)."""
    from pixiu_cli.market.names.words import frequency

    if end - start != 2:
        return None
    found = _mention_rules().surname_before.search(text[max(0, start - 1) : start])
    # not the end of a word (感谢, 多谢): a surname starts the name
    if found is None or (start >= 2 and frequency(text[start - 2 : start]) >= _COMMON_WORD):
        return None
    return found.group()


def _in_a_phrase(text: str, start: int, end: int, name, before: str) -> str | None:
    """Why a name is part of a phrase here: a listed name after a degree word (谁更值得买), a
    short form inside an idiom (生意如日中天) with no clear investing evidence near."""
    rules = _mention_rules()
    if name.kind in _EVIDENCE_LABEL and (degree := rules.degree_before.search(before)):
        return f"前面是“{degree.group()}”：“{name.alias}”在这里是一句话，不是股票"
    # the cheap test first: most questions then need no word boundaries at all
    if name.kind == SHORT and name.form and not _near(rules.evidence, text, start, end):
        if idiom := _idiom_around(text, start, end):
            return f"简称在成语“{idiom}”里面，附近没有股价、持仓等明确的投资证据：是成语"
    return None


def _idiom_around(text: str, start: int, end: int) -> str | None:
    """The four-character dictionary word (an idiom: 如日中天, 同心同德) a short form sits in."""
    from pixiu_cli.market.names.words import frequency, segment

    return next((w for w in segment(text).cut_by(start, end) if len(w) == _SET_PHRASE_CHARS and frequency(w) > 0), None)


def _word_around(text: str, start: int, end: int) -> str | None:
    """The dictionary word, however rare, an own form cuts through (如日中天 holds 中天)."""
    from pixiu_cli.market.names.words import segment

    return next((word for word in segment(text).cut_by(start, end) if len(word) > 1), None)


_OWN_EVERYDAY_WORD = (
    "你自己的股票（持有、自选或笔记里提到的）：这个叫法也是日常用语，"
    "但句中没有日常用法的迹象（生活场景、地名用法、量词、更长的词语）：按股票算"
)


def _wanting(text: str, start: int, end: int, name) -> str:
    """Why a short name without evidence is not the stock; for the investor's own everyday
    form, which of `_own_evidence`'s exceptions held it back."""

    if name.form and name.held and (word := _word_around(text, start, end)):
        return f"{_NO_EVIDENCE}（“{name.alias}”在词语“{word}”里面）"
    if name.form and name.held and _about_somebody_else(text):
        return f"{_NO_EVIDENCE}（说的是别人的事，不是投资）"
    if name.form and name.held and (surname := _given_name(text, start, end)):
        return f"{_NO_EVIDENCE}（前面是姓“{surname}”：“{surname}{name.alias}”是人名）"
    if name.form == FIRST_TWO_OF_THREE and name.held:
        return f"{_NO_EVIDENCE}（“{name.alias}”只是“{name.of}”的前两字）"
    if not name.held or not everyday_word(name.alias):
        return _NO_EVIDENCE
    if sense := everyday_sense(name.alias):
        return f"{_NO_EVIDENCE}（“{name.alias}”常作{sense}）"
    if name.form == LAST_TWO:
        return f"{_NO_EVIDENCE}（名字的后两字“{name.alias}”是它的行业或产品）"
    return f"{_NO_EVIDENCE}（在词语“{_word_around(text, start, end)}”里面）"


def _mentions(
    text: str,
    table: NameTable,
    held: frozenset[str],
    known: frozenset[str],
    portfolio_context: bool,
    conversation: bool,
    matches: list | None = None,
) -> tuple[list[str], list[MentionNote]]:
    hits: list[tuple[int, MentionNote]] = []
    matches = table.matches(text) if matches is None else matches
    named = set()
    stocks = [m for m in matches if m.name.kind not in (SHADOW, INDEX)]
    spans = [(m.start, m.end) for m in stocks]
    in_comparison = {stocks[i].start for i in compared(text, spans)}
    # another company's name's own words (旅游 of 西藏旅游, 治 of 乔治白, 彩虹 compared with 太力)
    # say nothing of how this one is used; a shorter form stays: it may be the very word of daily
    # life (快递 in 快递员)
    long_names = [
        (m.start, m.end)
        for m in stocks
        if m.end - m.start >= _LISTED_NAME_CHARS or m.name.kind != SHORT or m.start in in_comparison
    ]
    life_text = _blanked(text, long_names) if len(spans) > 1 else ""
    for m in matches:
        accepted, why = _judge_name(
            text, m.start, m.end, m.name, portfolio_context, conversation, table, m.start in in_comparison, life_text
        )
        if accepted:
            named.add(m.name.symbol)
        hits.append(
            (
                m.start,
                MentionNote(
                    text[m.start : m.end],
                    m.name.symbol if m.name.kind != INDEX else None,
                    m.name.kind,
                    accepted,
                    why,
                    m.name.form,
                    m.name.of,
                ),
            )
        )
    covered = [(m.start, m.end) for m in matches]
    for start, note in _code_notes(text, held, known, named):
        if not any(lo <= start < hi for lo, hi in covered):
            hits.append((start, note))
    hits = _keep_own_in_pairs(text, hits, {m.name.symbol for m in matches if m.name.held})
    hits.sort(key=lambda h: h[0])
    symbols: dict[str, None] = {}
    for _, note in hits:
        if note.accepted and note.symbol:
            symbols.setdefault(note.symbol, None)
    return list(symbols), [note for _, note in hits]


def _keep_own_in_pairs(
    text: str, hits: list[tuple[int, MentionNote]], own: set[str | None]
) -> list[tuple[int, MentionNote]]:
    """Two stocks compared (陕煤和中煤二选一, 把宁德换成比亚迪, 平安和招行哪个好): when another
    stock is taken, or another of the investor's own is named too, the investor's own one,
    left out only for want of investing words, is taken — the other stock is the evidence
    that the sentence is about stocks."""
    wanting_at = [(at, n) for at, n in hits if not n.accepted and n.why.startswith(_NO_EVIDENCE) and n.symbol in own]
    if not wanting_at:  # most questions: no boundary needed, and the segmenter stays unloaded
        return hits
    from pixiu_cli.market.names.words import segment

    words = segment(text)  # a form inside a longer word (万事亨通, 如日中天) is that word's
    wanting = {n.symbol for at, n in wanting_at if words.whole(at, at + len(n.text))}
    named = {note.symbol for _, note in hits if note.accepted and note.symbol} | wanting
    return [
        (start, replace(note, accepted=True, why=_PAIRED))
        if note.symbol in wanting and not note.accepted and note.why.startswith(_NO_EVIDENCE) and named - {note.symbol}
        else (start, note)
        for start, note in hits
    ]


_PAIRED = "你自己的股票，和另一只股票一起提到（比较或换股）：两只都是股票"


def _own(
    text: str, table: NameTable, held: frozenset[str], known: frozenset[str], conversation: bool
) -> tuple[list[str], list[MentionNote], object]:
    # A question about the user's holdings or trades is evidence that a held short name
    # in it is the stock (这几只里长电…, 中芯我前几天追高了吗, 除了宁德其他几只).
    matches = table.matches(text)
    asked = without_asker(text)
    # a cue never reaches into a company's full name (我那台钱江摩托 is no 我的…钱)
    words = _blanked(asked, [(m.start, m.end) for m in matches if m.name.kind in (FULL, LISTED)], "\u3000")
    portfolio = analyze(words, ())
    about_mine = portfolio.overview or portfolio.intent is Intent.TRADE_REVIEW or against_rest(text)
    symbols, notes = _mentions(text, table, held, known, about_mine, conversation, matches)
    result, targets = refine(analyze(words, symbols), asked, symbols)
    return symbols, notes, result, targets


# What the memory an earlier turn read named: given that turn's selection, the stocks (and
# what named each) — the builder's, which reads the briefs the turn asked about.
Objects = Callable[[Selection], tuple[Carried, ...]]


def select(
    text: str, table: NameTable, earlier: Sequence[str] = (), today: date | None = None, objects: Objects | None = None
) -> Selection:
    """The selection for `text`; `earlier` are the user's previous messages, oldest first
    (the last few are read: see `conversation`). The holdings and known securities are the
    table's. `today`: read the periods the message names (windows they move); `objects`: the
    stocks an earlier turn's brief named, for follow-ups that point at them."""
    turns = _earlier_turns(tuple(earlier)[-EARLIER_TURNS:], table, today, objects)
    return _select_one(text, table, turns, today)


def _earlier_turns(
    chain: tuple[str, ...], table: NameTable, today: date | None = None, objects: Objects | None = None
) -> tuple[EarlierTurn, ...]:
    """The selections of the earlier messages, each read with the ones before it (and,
    where one asked about the brief, with the stocks the brief named: read afresh, as the
    briefs are the store's)."""
    if not chain:
        return ()
    key = (id(table), chain, today)
    cached = _EARLIER.get(key)
    turns = cached[1] if cached is not None and cached[0] is table else _read_turns(chain, table, today, None)
    if cached is None or cached[0] is not table:
        _EARLIER[key] = (table, turns)
    if len(_EARLIER) > 64:
        _EARLIER.pop(next(iter(_EARLIER)))
    if objects is not None and any(BRIEF in t.selection.targets for t in turns):
        return _read_turns(chain, table, today, objects)
    return turns


def _read_turns(
    chain: tuple[str, ...], table: NameTable, today: date | None, objects: Objects | None
) -> tuple[EarlierTurn, ...]:
    turns: tuple[EarlierTurn, ...] = ()
    for old in chain:
        selection = _select_one(old, table, turns, today)
        if objects is not None and BRIEF in selection.targets:
            selection = replace(selection, objects=objects(selection))
        turns = (*turns, EarlierTurn(old, selection))
    return turns


# The earlier turns' selections, per name table and chain of messages: a conversation
# re-reads the same earlier questions on every turn.
_EARLIER: dict[tuple, tuple[NameTable, tuple[EarlierTurn, ...]]] = {}


def _select_one(text: str, table: NameTable, earlier: tuple[EarlierTurn, ...], today: date | None = None) -> Selection:
    normalized = normalize(text)
    # the conversation is about stocks while a turn within reach had some (谢谢 between them
    # does not end it): evidence that a short name is the stock
    conversation = any(
        t.selection.symbols or t.selection.objects or t.selection.intent is not Intent.GENERAL for t in earlier
    )
    symbols, notes, result, targets = _own(normalized, table, table.held, table.symbols_named, conversation)
    if conversation and (placed := named_in_place(normalized, table, notes, earlier)) is not None:
        notes, symbols = placed, list(dict.fromkeys(n.symbol for n in placed if n.accepted and n.symbol))
        result, targets = refine(analyze(normalized, symbols), normalized, symbols)
    selection = Selection(
        result.intent,
        symbols,
        result.overview,
        result.cues,
        tuple(notes),
        result.reason,
        None,
        normalized,
        compact_overview=result.compact,
        targets=targets,
    )
    resolved = resolve(selection, earlier) if earlier else selection
    if resolved.carried and not selection.symbols and turns_to_market(normalized):
        resolved = selection  # 那大盘呢: the market now, not the stock before
    topics = read_topics(normalized, bool(resolved.symbols), resolved.overview)
    if topics is not NO_TOPICS:
        resolved = replace(resolved, topics=topics)
    if today is None:
        return resolved
    timed = _stock_names_blanked(normalized, selection.mentions)
    # a named stock's costs are its own trades of any age (its buy's date decides a dividend's
    # tax), so the tally year of `unsaid` holds only when no stock is named
    unsaid = None if symbols else unsaid_period(fired_names(normalized, False), today)
    found = followed(reviewed(period(timed, today), timed, today), timed, today) or unsaid
    trade_review = resolved.intent is Intent.TRADE_REVIEW
    return replace(resolved, windows=moves(found, resolved.targets, trade_review, bool(resolved.symbols)))


def _stock_names_blanked(text: str, mentions: Sequence[MentionNote]) -> str:
    """The text with the names taken as stocks blanked out: a time word never reaches into a
    name (十月份中国黄金 is October and 中国黄金, not mid-October)."""
    taken = {m.text for m in mentions if m.accepted and m.text}
    spans = [(m.start(), m.end()) for name in taken for m in re.finditer(re.escape(name), text)]
    return _blanked(text, spans, "\u3000")


def warm() -> None:
    """Read and compile every rule now (~50 ms of regex compilation), not on the first turn."""
    warm_codes()
    warm_intent()
    _mention_rules()
    warm_senses()
    warm_conversation()
    warm_topics()
    warm_targets()
    warm_windows()
    normalize("")


@lru_cache(maxsize=32)
def _holdings_table(holders: tuple[Holder, ...]) -> NameTable:
    return NameTable([*shadow_names(), *holding_names(holders)])


def extract_symbols(text: str, holdings: Sequence[Holder] = ()) -> list[str]:
    """Six-digit codes the text mentions, by code or by a holding's name, in order of first
    appearance and without duplicates. Names are matched as a turn's are (one `NameTable`,
    the same normalisation, shadow words swallowing the short names inside them) but not
    judged: this is the plain list, for callers with holdings and no security master."""
    if not text:
        return []
    normalized = normalize(text)
    held = frozenset(h.symbol for h in holdings)
    holders = tuple(Holder(h.symbol, h.name, tuple(h.short_names)) for h in holdings)
    names = _holdings_table(holders).matches(normalized)
    hits = find_codes(normalized, held) + [(m.start, m.name.symbol) for m in names if m.name.symbol]
    hits.sort(key=lambda hit: hit[0])
    return list(dict.fromkeys(symbol for _, symbol in hits))
