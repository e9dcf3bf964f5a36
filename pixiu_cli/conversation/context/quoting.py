"""Quote stored text (notes, news, reports) as data inside the `[上下文信息]` block.

Stored text is written by users, news feeds or earlier model output; it must not be able
to close the block, forge a section or a chat role, or smuggle invisible characters.
`quote_data` is total (any `str`, including lone surrogates) and applies, in order:

1. Lone surrogates become U+FFFD (so the result always encodes as UTF-8).
2. Look-alikes (full-width, small and vertical forms, Kangxi radicals, compatibility
   ideographs, mathematical letters) are folded with NFKC, character by character, so the
   later rules see through them; everyday Chinese punctuation is kept as written.
3. Split into lines on every line boundary `str.splitlines` knows.
4. In each line: tab → space; every other control and format character is removed;
   surrounding whitespace is stripped; empty lines are dropped.
5. Line starts that imitate structure are defused: a Markdown header, a chat role label.
6. The lines are joined with `` ↵ `` into a single line.
7. Markers are defused anywhere in the text: the block's own markers, the 【】 of section
   headers, chat-template tokens and tags, and the quote marks themselves.
8. The result is wrapped in ``「`` … ``」``.

The characters, words and replacements are the tables and patterns below;
tests/context/test_quoting.py shows each rule on hostile examples.

Instructions inside stored text ("忽略以上指令…") stay readable, but only as quoted data.
The output never contains a line break, a control character, ``[上下文信息]`` or
``[/上下文信息]``. It is not meant to be idempotent.

A reply too long to carry: stored whole (turns.reply_text, calls.reply_text), but the
history message stored with the turn, and so every later request and a compaction's
transcript, carries its head with a marker saying how much was left out; the turn says so.
One 20 MB reply once made the next turn send a 60 MB request.

Stored values as the context block shows them, whatever the database holds.

SQLite keeps any value in any column: NULL, NaN, ±Infinity, a 400-digit integer, a string
in a numeric column, a BLOB in a text column, a date that is not a date. The block must
never fail on one of them, and must not present one as a plausible number: a value that
is not a finite number shows as 无效值, a missing one as —, an unreadable date as 日期未知."""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date
from functools import lru_cache

from pixiu_cli.account.model import NEVER_STATED

LINE_JOINER = " ↵ "
OPEN_QUOTE = "「"
CLOSE_QUOTE = "」"

_SURROGATES = re.compile("[\ud800-\udfff]")
_KEEP = frozenset("，！？：；（）％～￥")
_FOLD_RANGES = (
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFE50, 0xFE6F),  # small form variants
    (0xFF00, 0xFFEF),  # half-width and full-width forms
    (0x2F00, 0x2FDF),  # Kangxi radicals
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x2F800, 0x2FA1F),  # CJK compatibility ideographs supplement
    (0x1D400, 0x1D7FF),  # mathematical alphanumeric symbols
)
_LEADING_HASHES = re.compile(r"^#+")
_ROLE_LABEL = re.compile(
    r"^((?:system|user|assistant|human|ai|tool|developer|function|系统|用户|助手|助理)\s*)[:：]", re.IGNORECASE
)
_BLOCK_OPEN = re.compile(r"\[(?=[\s/／]*上下文信息)")
_BLOCK_CLOSE = re.compile(r"(?<=上下文信息)(\s*)\]")
_TEMPLATE_TAG = re.compile(r"<(\s*/?\s*(?:think|s|system|user|assistant|tool)\s*)>", re.IGNORECASE)
_INST = re.compile(r"\[(\s*/?\s*INST\s*)\]", re.IGNORECASE)
_SYS = re.compile(r"<<(\s*/?\s*SYS\s*)>>", re.IGNORECASE)
_TRANSLATE = str.maketrans({"【": "〔", "】": "〕", "「": "『", "」": "』"})


def _fold_char(ch: str) -> str:
    if ch in _KEEP:
        return ch
    cp = ord(ch)
    for low, high in _FOLD_RANGES:
        if low <= cp <= high:
            return unicodedata.normalize("NFKC", ch)
    return ch


def _clean_line(line: str) -> str:
    chars = []
    for ch in line:
        if ch == "\t":
            chars.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf"):
            continue
        else:
            chars.append(ch)
    return "".join(chars).strip()


def _defuse_line_start(line: str) -> str:
    line = _LEADING_HASHES.sub(lambda m: "＃" * len(m.group()), line)
    return _ROLE_LABEL.sub(lambda m: m.group(1) + "∶", line)


def _defuse_markers(text: str) -> str:
    text = _BLOCK_OPEN.sub("〔", text)
    text = _BLOCK_CLOSE.sub(lambda m: m.group(1) + "〕", text)
    text = text.replace("<|", "‹|").replace("|>", "|›")
    text = _TEMPLATE_TAG.sub(lambda m: f"‹{m.group(1)}›", text)
    text = _INST.sub(lambda m: f"〔{m.group(1)}〕", text)
    text = _SYS.sub(lambda m: f"‹‹{m.group(1)}››", text)
    return text.translate(_TRANSLATE)


@lru_cache(maxsize=4096)
def defuse(text: str) -> str:
    """Steps 1–7 without the quotes: for short stored labels (names, strategy, direction)
    that read better bare but must be just as inert. Remembered: the same names, notes and
    conclusions are quoted on every turn (500 holdings are 1,000 names per block)."""
    text = _SURROGATES.sub("\ufffd", text)
    text = "".join(map(_fold_char, text))
    lines = (_clean_line(line) for line in text.splitlines())
    body = LINE_JOINER.join(_defuse_line_start(line) for line in lines if line)
    return _defuse_markers(body)


def quote_data(text: str) -> str:
    """Render stored text as one quoted, inert line: 「…」. See the module docstring."""
    return OPEN_QUOTE + defuse(text) + CLOSE_QUOTE


# The backtest engine's strategy names (pixiu_cli/market/analytics/strategies.py; a test keeps the
# two equal), shown bare; any other strategy must be one plain word to be shown bare too.
ENGINE_STRATEGIES = frozenset({"买入持有", "MA20/MA60 趋势", "20 日突破", "RSI 均值回归"})
SIGNAL_DIRECTIONS = frozenset({"偏多", "偏空", "中性", "看多", "看空", "bullish", "bearish", "neutral"})
# One plain word: Chinese characters, letters, digits and the * and - of names like *ST东电
# or 三六零-U. Separators (· ， ； ： %), spaces and quotes, which a forged label needs to
# look like figures of its own, make a label quoted instead.
_PLAIN_WORD = re.compile(r"[\u4e00-\u9fffA-Za-z0-9*\-]{1,12}")
_PERIOD = re.compile(r"\d{4}(?:[-/.]\d{1,2}){0,2}\s*(?:~|～|至|到|-|—)\s*\d{4}(?:[-/.]\d{1,2}){0,2}")


def label(text: str, known: frozenset[str] = frozenset()) -> str:
    """A stored label (a name, a strategy, a direction, a persona key) bare when it is one of
    the `known` words or one plain word, else quoted like any stored text: a holding named
    "贵州茅台 · 核心仓 · 100,000 股" must not read as figures of the block's own."""
    return text if text in known or _PLAIN_WORD.fullmatch(text) else quote_data(text)


def period_label(text: str) -> str:
    """A backtest period bare when it is a date range (2021-01~2026-10), else quoted."""
    return text if _PERIOD.fullmatch(text) else quote_data(text)


# About ten thousand tokens of Chinese: longer than any answer worth resending whole, and a
# small part of the history budget.
HISTORY_REPLY_CHARS = 16_000
_MARKER_ROOM = 120  # the marker fits in this, so a clipped text is within the limit (clipping it again changes nothing)


def _marker(kept: int, total: int) -> str:
    return f"\n\n（此回复过长，后续请求只携带前 {kept:,} 字；原文共 {total:,} 字，完整保存在本地）"


def clipped(text: str, limit: int = HISTORY_REPLY_CHARS) -> str:
    if len(text) <= limit:
        return text
    kept = limit - _MARKER_ROOM
    return text[:kept] + _marker(kept, len(text))


def clipped_message(message: dict) -> dict:
    """An assistant message with over-long text content (or reasoning sent back with it)
    clipped; any other message as it is."""
    if message.get("role") != "assistant":
        return message
    long = {
        key: clipped(value)
        for key in ("content", "reasoning_content")
        if isinstance(value := message.get(key), str) and len(value) > HISTORY_REPLY_CHARS
    }
    return {**message, **long} if long else message


def clipped_notice(reply: str) -> str | None:
    """What the turn says when its reply was clipped for the history."""
    if len(reply) <= HISTORY_REPLY_CHARS:
        return None
    kept = HISTORY_REPLY_CHARS - _MARKER_ROOM
    return f"回复过长（共 {len(reply):,} 字）：已完整保存在本地，之后的对话只携带它的前 {kept:,} 字。"


INVALID = "无效值"
MISSING = "—"
UNKNOWN_DAY = "日期未知"
_BIG = 1e15  # past this, digits are noise: shown in scientific notation


def text(value) -> str:
    """Any stored value as text: NULL is empty, a BLOB is decoded (bad bytes replaced)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def number(value) -> float | None:
    """A finite float, or None for NULL, NaN, ±Infinity, text that is not a number, a
    BLOB, or an integer too large for a float."""
    if value is None or isinstance(value, bool):
        return None
    try:
        result = float(value) if isinstance(value, (int, float)) else float(text(value).strip())
    except (ValueError, OverflowError, TypeError):
        return None
    return result if math.isfinite(result) else None


def _shown(value, digits: int, integer_plain: bool, grouping: str = ",") -> str:
    if value is None:
        return MISSING
    n = number(value)
    if n is None:
        return INVALID
    if abs(n) >= _BIG:
        return f"{n:.3e}"
    if integer_plain and n.is_integer():
        return f"{n:{grouping}.0f}"
    return f"{n:{grouping}.{digits}f}"


def show_number(value) -> str:
    """Shares, quantities: 1,000 or 12.50."""
    return _shown(value, 2, True)


def show_money(value) -> str:
    """Amounts of money: always to the 分, grouped (15,620.00), as a broker's statement
    prints them, so a round amount reads the same as any other."""
    return _shown(value, 2, False)


def show_price(value) -> str:
    """Prices and costs: two decimals, no grouping (1465.00)."""
    return _shown(value, 2, False, "")


def show_signed(value) -> str:
    """Scores: +0.42."""
    n = number(value)
    if n is None or abs(n) >= _BIG:
        return _shown(value, 2, False, "")
    return f"{n:+.2f}"


def show_pct(value) -> str:
    """A ratio as a percentage: 0.112 → 11.2%."""
    n = number(value)
    if n is None or abs(n) * 100 >= _BIG:
        return _shown(value, 1, False, "")
    return f"{n * 100:.1f}%"


@lru_cache(maxsize=16384)
def day(value) -> date | None:
    """The date a stored timestamp starts with (YYYY-MM-DD…), or None. Remembered: the
    same holdings' and profiles' dates are read on every turn."""
    raw = text(value).strip()[:10]
    try:
        return date.fromisoformat(raw) if len(raw) == 10 else None
    except ValueError:
        return None


def cash_said(amount: str, stated_as_of: str, stated_amount: str, rolled: int, missing: int) -> str:
    """The cash as every surface says it (`pixiu holdings`, the context block, the brief): the
    figure, the stated balance and its day it starts from, and the later flows counted or not."""
    counted = f"，其后 {rolled} 笔流水已计入" if rolled else ""
    left_out = f"；其后 {missing} 笔成交的资金变动未知，未计入" if missing else ""
    if stated_as_of == NEVER_STATED:
        return f"现金 {amount}（未设置过余额：由记录的 {rolled} 笔银证转账和成交推算{left_out}）"
    return f"现金 {amount}（{stated_as_of} 余额 {stated_amount}{counted}{left_out}）"


def sessions_said(verb: str, count: int, at_least: bool = False) -> str:
    """`已过期 N 个交易日`, or `已过期至少 N 个交易日` when the count stopped at the trading
    calendar's last day: past it nobody knows which weekdays were sessions."""
    return f"{verb}{'至少' if at_least else ''} {count} 个交易日"


# A stored ledger row left out of the account (services/account.py account_record
# "skipped_rows"): how each column is named, and how each table's row is mended.
_SKIPPED_COLUMNS = {
    ("account_fills", "quantity"): "数量",
    ("account_fills", "price"): "成交价",
    ("account_fills", "amount"): "金额",
    ("account_fills", "fees"): "费用",
    ("account_fills", "cash_change"): "资金变动",
    ("account_fills", "balance"): "资金余额",
    ("account_cash", "amount"): "现金余额",
    ("corporate_actions", "cash_per_share"): "每股派现",
    ("corporate_actions", "shares_per_share"): "每股送转",
    ("corporate_actions", "ratio"): "除权比例",
}
_MENDS = {
    "account_fills": "pixiu forget 撤销手工交易或重新导入对账单",
    "account_cash": "pixiu cash set 重新设置现金",
    "corporate_actions": "pixiu data sync 重新同步该股",
}
_SKIPPED_SHOWN = 3


def _skipped_row(row) -> str:
    table, key = row["table"], row["row"]
    where = f"{table} 第 {key} 行" if key.isdigit() else f"{table} {key}"
    name = _SKIPPED_COLUMNS.get((table, row["column"]), row["column"])
    why = "超出合理范围" if row["problem"] == "range" else "不是有效数字"
    return f"{where}：{name} {row['value']} {why}"


def skipped_said(rows) -> str:
    """The note every surface of the account gives when stored rows were left out of it (""
    when none): how many, which (the first few), and how to mend them."""
    if not rows:
        return ""
    named = "；".join(_skipped_row(r) for r in rows[:_SKIPPED_SHOWN])
    more = f" 等 {len(rows)} 条" if len(rows) > _SKIPPED_SHOWN else ""
    mends = " / ".join(dict.fromkeys(_MENDS[r["table"]] for r in rows if r["table"] in _MENDS))
    return (
        f"已跳过数据库中无法读取的 {len(rows)} 条记录（{named}{more}）；账户数字不含{'它' if len(rows) == 1 else '它们'}。"
        f"修正：{mends}。"
    )
