"""Which sections does this message need? Symbols, intent and overview, with reasons.

`select(text, table, held, earlier)`:

1. normalise (`normalize`): half-width, lower case, simplified, typos fixed;
2. codes (`symbols.find_codes`), minus index codes in an index context (上证指数 000001
   is the index, 000001 平安银行 is the bank);
3. names (`names.NameTable`, one Aho–Corasick pass), each accepted or rejected with a
   reason: a full name, nickname or user alias is the stock unless the words after it make
   it a product, a place or an employer (格力空调, 宁德时代广场); a short name needs
   evidence — investing words, a holding asked about (宁德还能拿吗), a portfolio question
   (这几只里长电…), or the conversation — and never counts after a place verb or a
   measure word (去宁德出差, 两瓶茅台);
4. intent cues (`intent.analyze`);
5. the conversation: an elliptical follow-up (其他几只呢, 剩下的呢, 那整体呢, 它呢, 那茅台呢)
   inherits the previous turn's intent and symbols, or turns to the rest of the portfolio.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pixiu_cli.selection.codes import find_codes
from pixiu_cli.selection.intent import FiredCue, Intent, analyze
from pixiu_cli.selection.names import FULL, INDEX, SHADOW, SHORT, NameTable, index_codes
from pixiu_cli.selection.normalize import normalize


@dataclass(frozen=True)
class MentionNote:
    text: str
    symbol: str | None
    kind: str  # code | full | nickname | user | short | index | shadow
    accepted: bool
    why: str  # Chinese


@dataclass(frozen=True)
class Selection:
    intent: Intent
    symbols: list[str]
    overview: bool
    cues: tuple[FiredCue, ...] = ()
    mentions: tuple[MentionNote, ...] = ()
    reason: str = ""
    follow_up: str | None = None  # how the previous turn was used, Chinese
    normalized: str = ""

    def explanation(self) -> dict:
        """JSON-ready: what /context and `pixiu context` show under "selection"."""
        return {
            "intent": self.intent.value,
            "symbols": list(self.symbols),
            "overview": self.overview,
            "reason": self.reason,
            "follow_up": self.follow_up,
            "normalized": self.normalized,
            "cues": [{"name": c.name, "group": c.group, "matched": c.matched, "why": c.why} for c in self.cues],
            "mentions": [
                {"text": m.text, "symbol": m.symbol, "kind": m.kind, "accepted": m.accepted, "why": m.why}
                for m in self.mentions
            ],
        }


# Words that make a message about investing: evidence that a short name is the stock.
_INVESTING = re.compile(
    r"股|仓|涨|跌|买|卖|估值|业绩|财报|分红|股息|回撤|止损|止盈|走势|行情|市值|市盈|市净|画像|信号|k线|拿|持有|"
    r"利好|利空|年报|季报|研报|目标价|评级|价位|位置|抄底|被套|套牢|回本|涨停|跌停|主力|资金|板块|概念|龙头|"
    r"减|加|割|清|定位|核心|卫星|收益|年化|夏普|胜率|波动|弹性|消息|新闻|公告|表现|稳|票|这只|投资|机会|前景|"
    r"基本面|风险|低估|高估|上车|下车|出货|解套|翻倍|跑赢|回调|反弹|突破|支撑|压力位|见底|到顶|空间|新高|新低"
)
# Right after a short name: a question about it as a stock (宁德怎么样, 茅台呢).
_ASKED_ABOUT = re.compile(
    r"^(?:最近|现在|今天|今年|这个|这只|的)?(?:怎么样|怎么看|如何|咋样|还能|能不能|能|要不要|该不该|"
    r"该|可以|呢|值得|行不行|比呢|是不是|算不算|咋了|怎么了|什么情况|啥情况|还行吗|行吗|靠谱吗|"
    r"怎么回事|为什么|为啥|会不会|能否|到底|还有戏)"
)
# Before a name: going somewhere, or counting bottles (去宁德出差, 两瓶茅台).
_PLACE_BEFORE = re.compile(r"(?:去|到|回|飞|来自|从|住在|逛|游览|爬|我家在|路过|在|喝了?|买了?)$")
_MEASURE_BEFORE = re.compile(
    r"[一二两三四五六七八九十几半0-9](?:瓶|箱|杯|斤|件|台|盒|罐|口|包|袋|桶|听|支|条|辆|部|双|套|碗|份|块|张)$"
)
# After a name (also a full name): a product, a place, an employer, a non-stock meaning.
_NOT_STOCK_AFTER = re.compile(
    r"^(?:公司|集团|厂)?(?:的)?(?:招聘|校招|工程师|员工|工资|宿舍|售后|客服|电话|营业厅|网点|信用卡|卡|办卡|app|"
    r"软件|激活|会员|下载|安装|理财经理|客户经理|柜员|转账|房贷|办理|工厂|厂区|总部|地址|电费|水费|话费|流量|套餐|"
    r"城|门票|景区|公园|博物馆|餐厅|4s店|门店|专卖店|旗舰店|经销商|广场|酒(?!股|板块)|冰淇淋|酱油|蚝油|牛奶|奶粉|酸奶|空调|冰箱|手机|光伏板|瓶子|酒瓶|保险|车险|好医生|"
    r"市|县|区|镇|山|港|路|街|寺|大学|学院|校区|花园|小区|医院|机场|火车站|高铁站|天文台|一色|十二时辰|词霸|毒霸|"
    r"诺伊|海鲜|天气|夜景|美食|特产|房价|酒店|景点|出差|旅游|出发|的车(?!股)|化工园区|园区|到[\u4e00-\u9fff]{1,4}(?:多远|怎么走|多久))"
)
_INDEX_CONTEXT = re.compile(r"指数|大盘|上证|深证|沪深|中证|创业板指|科创50|综指|沪指|深成指|点位")
_PUNCT = re.compile(r"[\s，。,.!?！？、~～…]+")
# Follow-ups. REST: the other holdings; WHOLE: the portfolio; PRONOUN: the stock just discussed.
_REST = re.compile(
    r"^(?:那|那么)?(?:还有)?(?:其他|其它|其余|剩下|剩余|别的|另外)(?:的)?(?:[一二两三四五六七八九十几0-9]?(?:只|支|个)|"
    r"股票|票|股|持仓)?(?:呢|怎么样|怎么看|如何)?$|^(?:那|那么)?(?:其他|其它|其余|剩下|剩余|别的|另外)(?:的)?(?:几|[一二两三四五六七八九十0-9])?(?:只|支|个)?(?:票|股)?"
)
_WHOLE = re.compile(r"^(?:那|那么)?(?:整体|总体|整个|全部|所有|我的)(?:的)?[^，。]{0,4}(?:呢|怎么样|如何)$")
_PRONOUN = re.compile(r"^(?:那|那么)?(?:它|它的|这只|该股|这个股|这票|这只票)")
_ELLIPTICAL = re.compile(r"^(?:那|那么|还有|其他|其它|其余|剩下|别的|另外|继续|展开|再|和|跟|与|它|那它)|呢$")


def _code_notes(
    text: str, held: frozenset[str], known: frozenset[str], named: set[str]
) -> list[tuple[int, MentionNote]]:
    notes = []
    indexes = index_codes()
    index_context = _INDEX_CONTEXT.search(text) is not None
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


def _judge_name(text: str, start: int, end: int, name, portfolio_context: bool, conversation: bool) -> tuple[bool, str]:
    before, after = text[max(0, start - 4) : start], text[end : end + 12]
    if name.kind == SHADOW:
        return False, "日常用语或其他公司的名字，包含了简称"
    if name.kind == INDEX:
        return False, "指数，不是股票"
    if _NOT_STOCK_AFTER.match(after):
        return False, f"后面的“{_NOT_STOCK_AFTER.match(after).group()}”说明指的是产品、地方或公司本身，不是股票"
    if name.kind != SHORT:
        return True, {FULL: "股票全称", "nickname": "常用昵称", "user": "用户设置的别名"}[name.kind]
    if _MEASURE_BEFORE.search(before):
        return False, "前面是数量词（两瓶、一箱…），指的是商品"
    place = _PLACE_BEFORE.search(before)
    # Investing words near the name (the whole of a question; a window of a long paste).
    investing = _INVESTING.search(text, max(0, start - 80), start) or _INVESTING.search(text, end, end + 80)
    if place and not (investing and place.group() in ("在", "买", "买了")):
        return False, f"前面的“{place.group()}”说明是地名或商品"
    if investing:
        return True, f"简称，句中有投资用语“{investing.group()}”"
    if _ASKED_ABOUT.match(after):
        return True, "股票简称，问的是它怎么样" if not name.held else "持有股票的简称，问的是它怎么样"
    if name.held and portfolio_context:
        return True, "持有股票的简称，出现在关于持仓的问题里"
    if conversation:
        return True, "简称，上一轮在谈股票"
    return False, "简称也是日常用语，句中没有投资相关的证据"


def _mentions(
    text: str,
    table: NameTable,
    held: frozenset[str],
    known: frozenset[str],
    portfolio_context: bool,
    conversation: bool,
) -> tuple[list[str], list[MentionNote]]:
    hits: list[tuple[int, MentionNote]] = []
    matches = table.matches(text)
    named = set()
    for m in matches:
        accepted, why = _judge_name(text, m.start, m.end, m.name, portfolio_context, conversation)
        if accepted:
            named.add(m.name.symbol)
        hits.append(
            (
                m.start,
                MentionNote(
                    text[m.start : m.end], m.name.symbol if m.name.kind != INDEX else None, m.name.kind, accepted, why
                ),
            )
        )
    covered = [(m.start, m.end) for m in matches]
    for start, note in _code_notes(text, held, known, named):
        if not any(lo <= start < hi for lo, hi in covered):
            hits.append((start, note))
    hits.sort(key=lambda h: h[0])
    symbols: dict[str, None] = {}
    for _, note in hits:
        if note.accepted and note.symbol:
            symbols.setdefault(note.symbol, None)
    return list(symbols), [note for _, note in hits]


def _own(
    text: str, table: NameTable, held: frozenset[str], known: frozenset[str], conversation: bool
) -> tuple[list[str], list[MentionNote], object]:
    # A question about the user's holdings or trades is evidence that a held short name
    # in it is the stock (这几只里长电…, 中芯我前几天追高了吗).
    portfolio = analyze(text, ())
    about_mine = portfolio.overview or portfolio.intent is Intent.TRADE_REVIEW
    symbols, notes = _mentions(text, table, held, known, about_mine, conversation)
    return symbols, notes, analyze(text, symbols)


def select(text: str, table: NameTable, earlier: Sequence[str] = ()) -> Selection:
    """The selection for `text`; `earlier` are the user's previous messages, oldest first.
    The holdings and known securities are the table's."""
    held_set, known_set = table.held, table.symbols_named
    chain = tuple(earlier)[-3:]
    previous: Selection | None = None
    if chain:
        key = (id(table), chain)
        cached = _EARLIER.get(key)
        if cached is not None and cached[0] is table:
            previous = cached[1]
        else:
            for old in chain:
                previous = _select_one(old, table, held_set, known_set, previous)
            _EARLIER[key] = (table, previous)
            if len(_EARLIER) > 64:
                _EARLIER.pop(next(iter(_EARLIER)))
    return _select_one(text, table, held_set, known_set, previous)


# The previous turns' selections, per name table and chain of messages: a conversation
# re-reads the same earlier questions on every turn.
_EARLIER: dict[tuple, tuple[NameTable, Selection | None]] = {}


def _select_one(
    text: str, table: NameTable, held: frozenset[str], known: frozenset[str], previous: Selection | None
) -> Selection:
    normalized = normalize(text)
    conversation = previous is not None and bool(previous.symbols or previous.intent is not Intent.GENERAL)
    symbols, notes, result = _own(normalized, table, held, known, conversation)
    selection = Selection(
        result.intent, symbols, result.overview, result.cues, tuple(notes), result.reason, None, normalized
    )
    if previous is None:
        return selection
    return _follow_up(selection, previous)


def _follow_up(current: Selection, previous: Selection) -> Selection:
    bare = _PUNCT.sub("", current.normalized)
    if len(bare) > 14 or not _ELLIPTICAL.search(bare):
        return current
    if _REST.search(bare) and not current.symbols:
        return _replace(current, Intent.PORTFOLIO_REVIEW, [], True, "追问“其他 / 剩下的”：转向其余持仓，注入持仓概览")
    if _WHOLE.search(bare) and not current.symbols:
        return _replace(current, Intent.PORTFOLIO_REVIEW, [], True, "追问整体：注入持仓概览")
    if current.symbols:
        if previous.intent is Intent.PORTFOLIO_REVIEW and previous.overview:
            return _replace(
                current,
                Intent.PORTFOLIO_REVIEW,
                current.symbols,
                True,
                "承接上一轮的持仓问题，换成点名的个股：概览 + 个股",
            )
        if current.intent is Intent.GENERAL:
            return _replace(current, Intent.SINGLE_STOCK, current.symbols, False, "承接上一轮，换一只股票问同样的问题")
        return current
    if current.intent is not Intent.GENERAL and not _PRONOUN.search(bare):
        return current
    symbols = previous.symbols
    intent = current.intent if current.intent is not Intent.GENERAL else previous.intent
    if _PRONOUN.search(bare) and intent is Intent.PORTFOLIO_REVIEW and symbols and not previous.overview:
        intent = Intent.SINGLE_STOCK
    overview = previous.overview if intent is previous.intent else intent is Intent.PORTFOLIO_REVIEW
    return _replace(current, intent, list(symbols), overview, "省略式追问：沿用上一轮的意图和个股")


def _replace(current: Selection, intent: Intent, symbols: list[str], overview: bool, why: str) -> Selection:
    return Selection(intent, symbols, overview, current.cues, current.mentions, current.reason, why, current.normalized)
