"""Find the A-share symbols a user message mentions, so only their data is injected.

`extract_symbols(text, holdings)` returns six-digit codes in order of first appearance,
without duplicates. Two kinds of mention are recognised:

1. **Codes.** Full-width ASCII is folded to ASCII first, position by position, so offsets
   stay comparable. A code with an explicit exchange (``sh600519``, ``600519.SH``) must fit
   that exchange, so an index code such as ``sh000001`` is not taken for a stock. A bare
   six-digit run counts only when it looks like an A-share stock code (or is held) and
   nothing around it says "this is a number": a longer digit run, a decimal or a signed
   number, a currency or an amount/identifier word before it, a unit after it. The
   prefixes, words and units are the tables below; tests/context/test_symbols.py lists
   the spellings that are and are not codes, including the known ambiguity (a bare
   YYMMDD or postal code written without context cannot be told from a code).

2. **Names.** Each holding's ``name`` and ``short_names`` match as plain substrings
   (Chinese needs no spaces), leftmost-longest first, so ``贵州茅台`` is one mention, not
   ``贵州茅台`` plus ``茅台``. Aliases shorter than two characters are ignored. A small
   built-in table of *shadow words* consumes everyday words that contain a short name
   (完美的 ⊃ 美的, 平安夜 ⊃ 平安) or another listed company's name (平安银行 ⊃ 平安), unless
   that word is itself one of the holdings' aliases.

The context builder matches names with `names.NameTable` and judges them in `selection`;
`extract_symbols` keeps the holdings-only matcher for callers that have no security
master."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class HoldingName:
    """A held symbol and the names the user may call it by."""

    symbol: str  # six digits, e.g. "600519"
    name: str  # full name, e.g. "贵州茅台"
    short_names: tuple[str, ...] = ()  # e.g. ("茅台",)


# ---------------------------------------------------------------------------------------
# Normalisation: length-preserving, so code and name offsets share one coordinate system.


def _fold_char(cp: int) -> int:
    if 0xFF01 <= cp <= 0xFF5E:  # full-width ASCII → ASCII
        cp -= 0xFEE0
    if ord("A") <= cp <= ord("Z"):  # ASCII lower-case
        cp += 32
    return cp


_FOLD = {cp: _fold_char(cp) for cp in (*range(0xFF01, 0xFF5F), *range(ord("A"), ord("Z") + 1))}
_FOLD[0x3000] = 0x20  # ideographic space


def _fold(text: str) -> str:
    return text.translate(_FOLD)


# ---------------------------------------------------------------------------------------
# Codes

_PLAUSIBLE_BARE = re.compile(r"(?:60[0135]|68[89]|00[0-3]|30[01]|43|83|87|88|92)")
_EXCHANGE_FIT = {
    "sh": re.compile(r"(?:6|5|900)"),
    "sz": re.compile(r"(?:00|30|15|16|18|20)"),
    "bj": re.compile(r"(?:4|8|92)"),
}
_PREFIX_WORDS = {"sh": "sh", "shse": "sh", "sz": "sz", "szse": "sz", "bj": "bj", "bse": "bj"}
_SUFFIX_WORDS = {
    "sh": "sh",
    "ss": "sh",
    "sse": "sh",
    "xshg": "sh",
    "sz": "sz",
    "szse": "sz",
    "xshe": "sz",
    "bj": "bj",
    "bse": "bj",
}
# Matched against the folded text that ends right before the digits.
_PREFIX_RE = re.compile(r"(?<![a-z0-9_])(shse|szse|bse|sh|sz|bj)[.:]?$")
# Matched right after the digits.
_SUFFIX_RE = re.compile(r"\.?(xshg|xshe|szse|sse|bse|sh|sz|bj|ss)(?![a-z0-9_])")

_SIX_DIGITS = re.compile(r"[0-9]+")

_CURRENCY_BEFORE = ("¥", "￥", "$", "€", "£", "rmb", "cny", "usd", "hkd", "人民币")
_NUMBER_WORDS_BEFORE = (
    "价",
    "价格",
    "价位",
    "成本",
    "市值",
    "金额",
    "数量",
    "成交量",
    "成交额",
    "总额",
    "余额",
    "本金",
    "资金",
    "收益",
    "盈利",
    "亏损",
    "利润",
    "约",
    "大约",
    "共",
    "合计",
    "总计",
    "第",
    "号",
    "邮编",
    "邮政编码",
    "电话",
    "手机",
    "验证码",
    "密码",
    "qq",
    "微信",
    "取件码",
    "提货码",
    "取货码",
    "邀请码",
    "兑换码",
    "收入",
    "工资",
    "编号",
    "单号",
    "账号",
    "卡号",
    "尾号",
)
_UNITS_AFTER = (
    "百万",
    "千万",
    "美元",
    "港元",
    "港币",
    "rmb",
    "cny",
    "usd",
    "hkd",
    "元",
    "圆",
    "块",
    "角",
    "股",
    "手",
    "份",
    "张",
    "万",
    "亿",
    "倍",
    "%",
    "‰",
    "‱",
    "个",
    "人",
    "名",
    "位",
    "次",
    "岁",
    "米",
    "公里",
    "号",
)
# A unit followed by one of these characters is a word, not a unit (600519股价 = its price).
_UNIT_EXCEPTIONS = {"股": "价票东息份权本性吧评民改", "手": "续机", "个": "股"}
# Skipped between an amount/identifier word and the digits (验证码是600519).
_SKIP_BEFORE = " \t:=是为："


def _is_ascii_glue(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _skip_back(text: str, pos: int, skip: str) -> int:
    """Index just past the last character before `pos` that is not in `skip`/whitespace."""
    while pos > 0 and (text[pos - 1] in skip or text[pos - 1].isspace()):
        pos -= 1
    return pos


def _skip_forward(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _number_context(text: str, start: int, end: int) -> bool:
    """True when the digits text[start:end] read as an amount, a decimal or an id."""
    before = text[start - 1] if start > 0 else "\0"
    after = text[end] if end < len(text) else "\0"
    after2 = text[end + 1] if end + 1 < len(text) else "\0"
    # Signs and dotted/hyphenated chains: 1.600519, 600519.5, 2026-600519, +600519.
    if before in "+±−":
        return True
    if before in ".-" and start >= 2 and text[start - 2].isdigit():
        return True
    if after in ".-" and after2.isdigit():
        return True
    # Currency signs and amount/identifier words before (spaces, ':' and '=' skipped).
    # Compared in place: slicing the text before every candidate made a paste full of
    # codes quadratic.
    head_end = _skip_back(text, start, _SKIP_BEFORE)
    for word in (*_CURRENCY_BEFORE, *_NUMBER_WORDS_BEFORE):
        if text.endswith(word, 0, head_end):
            # An ASCII word must not be the tail of a longer ASCII word (e.g. "lqq").
            if word.isascii() and word.isalpha():
                cut = head_end - len(word)
                if cut > 0 and _is_ascii_glue(text[cut - 1]):
                    continue
            return True
    # Units after (spaces skipped).
    tail_at = _skip_forward(text, end)
    for unit in _UNITS_AFTER:
        if text.startswith(unit, tail_at):
            nxt = text[tail_at + len(unit)] if tail_at + len(unit) < len(text) else ""
            if nxt and nxt in _UNIT_EXCEPTIONS.get(unit, ""):
                continue
            if unit.isascii() and unit.isalpha() and nxt and _is_ascii_glue(nxt):
                continue
            return True
    return False


def _find_codes(folded: str, held: frozenset[str]) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for match in _SIX_DIGITS.finditer(folded):
        code = match.group()
        start, end = match.span()
        if len(code) != 6:
            continue
        # Any Unicode digit glued on either side makes it part of a longer number.
        if (start > 0 and folded[start - 1].isdigit()) or (end < len(folded) and folded[end].isdigit()):
            continue
        exchange = None
        left = start
        prefix = _PREFIX_RE.search(folded, max(0, start - 6), start)
        if prefix is not None:
            exchange = _PREFIX_WORDS[prefix.group(1)]
            left = prefix.start()
        right = end
        suffix = _SUFFIX_RE.match(folded, end)
        if suffix is not None:
            exchange = exchange or _SUFFIX_WORDS[suffix.group(1)]
            right = suffix.end()
        if left > 0 and _is_ascii_glue(folded[left - 1]):
            continue
        if right < len(folded) and _is_ascii_glue(folded[right]):
            continue
        if exchange is not None:
            if not _EXCHANGE_FIT[exchange].match(code):
                continue
            # An exchange marker is decisive: no further number checks.
            found.append((left, code))
            continue
        if not (_PLAUSIBLE_BARE.match(code) or code in held):
            continue
        if _number_context(folded, start, end):
            continue
        found.append((start, code))
    return found


# ---------------------------------------------------------------------------------------
# Names

# Everyday words (or other companies' names) that contain a common short name. They are
# matched like aliases but map to no symbol, so they swallow the short name inside them.
_SHADOW_WORDS: tuple[str, ...] = (
    # 美的 (000333)
    "完美的",
    "很美的",
    "真美的",
    "最美的",
    "好美的",
    "太美的",
    "挺美的",
    "更美的",
    "美美的",
    "优美的",
    "甜美的",
    "精美的",
    "柔美的",
    "唯美的",
    "健美的",
    "秀美的",
    "华美的",
    "赞美的",
    "审美的",
    "美的话",
    # 平安 (601318 中国平安)
    "平安银行",
    "平安好医生",
    "平安夜",
    "平平安安",
    "报平安",
    "保平安",
    "一路平安",
    "出入平安",
    "平安无事",
    "平安健康",
    "岁岁平安",
    "平安是福",
    # 招行 / 招商 family
    "招商证券",
    "招商蛇口",
    "招商轮船",
    "招商公路",
    "招商积余",
    "招商南油",
    # 宁德 (300750 宁德时代) vs the city
    "宁德市",
    # 五粮液 / 茅台 family
    "茅台镇",
    "茅台酒厂",
    "茅台机场",
    # 海康 family
    "海康机器人",
    # nicknames inside everyday words (太保 ⊂ 太保守, 中兴 ⊂ 中兴通讯 is the stock itself)
    "太保守",
    "顺丰快递",
    "联通卡",
    "三一学院",
)


def shadow_words() -> tuple[str, ...]:
    return _SHADOW_WORDS


def find_codes(folded: str, held: frozenset[str]) -> list[tuple[int, str]]:
    """Codes in already folded text: (offset, six digits), per the module docstring."""
    return _find_codes(folded, held)


@lru_cache(maxsize=32)
def _name_pattern(holdings: tuple[HoldingName, ...]) -> tuple[re.Pattern[str] | None, dict[str, str | None]]:
    table: dict[str, str | None] = {_fold(word): None for word in _SHADOW_WORDS}
    for holding in holdings:
        for alias in (holding.name, *holding.short_names):
            folded = _fold(alias.strip())
            if len(folded) >= 2:
                table[folded] = holding.symbol
    if not table:
        return None, table
    alternatives = sorted(table, key=lambda a: (-len(a), a))
    return re.compile("|".join(re.escape(a) for a in alternatives)), table


def _find_names(folded: str, holdings: Sequence[HoldingName]) -> list[tuple[int, str]]:
    pattern, table = _name_pattern(tuple(holdings))
    if pattern is None:
        return []
    found: list[tuple[int, str]] = []
    for match in pattern.finditer(folded):
        symbol = table[match.group()]
        if symbol is not None:
            found.append((match.start(), symbol))
    return found


# ---------------------------------------------------------------------------------------


def extract_symbols(text: str, holdings: Sequence[HoldingName] = ()) -> list[str]:
    """Six-digit codes the text mentions, by code or by holding name, in order of first
    appearance and without duplicates. See the module docstring for the exact rules."""
    if not text:
        return []
    folded = _fold(text)
    held = frozenset(h.symbol for h in holdings)
    hits = _find_codes(folded, held) + _find_names(folded, holdings)
    hits.sort(key=lambda hit: hit[0])
    seen: dict[str, None] = {}
    for _, symbol in hits:
        seen.setdefault(symbol, None)
    return list(seen)
