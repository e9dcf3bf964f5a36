"""What kind of question is this? (design §3, the seed chapter's W2-5 fix)

A portfolio-level question ("我的持仓哪只适合核心仓", "仓位配比怎么样") names no symbol, so
progressive disclosure finds nothing to load; detecting the intent lets the context
builder inject every holding's stored profile instead.

Rules, in order (`detect_intent`); the exact patterns are the module constants
`TRADE_REVIEW_PATTERNS`, `PORTFOLIO_STRONG_PATTERNS` and `PORTFOLIO_WEAK_PATTERNS`.

1. **TRADE_REVIEW**, a look back at the user's own trades: 买卖/交易/操作/成交记录, 交割单,
   对账单, 历史成交; 这笔/那笔/上一笔 + 交易/操作/买卖/买入/卖出/单/加仓/减仓/止损/止盈;
   操作/交易/买卖 + 回顾/总结/得失/反思, 回顾…操作; 操作/交易/买点/卖点 + 对不对/对吗/是否
   正确/合理吗; a personal past trade, 我 + time word (上周/昨天/前天/今天/刚才/之前/上次/
   最近/去年…) + a trade verb with no intention word in between (我上周卖的…, 我昨天买了…;
   but 我今天想买… is a plan), 我刚/已经 + verb + 了/的/掉/完; 卖飞/卖早了/买早了/买错/卖错/
   追高了/割肉了; and 复盘, unless it is clearly a market recap (大盘/市场/板块/行情/指数/
   两市/A股 with no personal cue such as 我的/操作/交易/持仓).
2. **PORTFOLIO_REVIEW** on a *strong* cue, symbols or not: 持仓 (not 持仓量, not after
   基金/主力/机构/北向/外资/社保/股东/十大/散户/游资/公募/私募/国家队/券商/险资/QFII…),
   仓位 (same exclusions), 核心仓, 卫星仓, 我的仓, 配比, 组合 (not 组合拳/组合贷/组合键/
   排列组合/K线组合/均线组合/指标组合), 调仓, 再平衡, 集中度 (not 市场/行业集中度), 我的账户/
   账户里, 我手上/我手里/手上的票, 我的票/我的股票/我的持股, 我买的这几只/我买的那些,
   我持有的, 我拿着的, 资产配置, 资金/钱怎么分配.
3. **PORTFOLIO_REVIEW** on a *weak* cue when the message names no symbol (with a symbol
   these words are about that stock: "茅台该减仓吗" is SINGLE_STOCK):
   这几只/那几只; position words 满仓/半仓/空仓/轻仓/重仓/加仓/减仓/补仓/清仓/建仓/止盈/
   止损; 整体 + 仓位/持仓/收益/盈亏/亏损/回撤/风险/配置/表现/情况 (not after 大盘/市场/板块/
   行业/指数/A股/两市); 分散; 哪只/哪一只/哪几只, unless a market-wide cue (A股/市场/大盘/
   板块/行业/推荐/龙头/牛股/自选/值得买/能买/涨停…) appears with no holding or action word;
   哪个/哪些 only together with a holding or action word (持有/持仓/仓/减/该加/加哪/卖/留着/
   拿着/砍/止盈/止损/换掉/核心/卫星); 配置 unless the message has a technical cue (环境/文件/
   参数/Python/pip/安装/电脑/显卡/服务器/API/软件/系统/代码/网络/代理/Docker/Git/IDE/模型/
   key/config/版本…). Other people's positions (基金持仓, 机构重仓股, 北向持股) are removed
   before the weak cues are looked for.
4. **SINGLE_STOCK** when symbols are present.
5. **GENERAL** otherwise ("今天大盘怎么样", "什么是市盈率", "配置 Python 环境").

`is_portfolio_question(text)` is rules 2 and 3 for a message that names no stock.

Trade-offs. The rules lean towards recall, as the seed's eval showed a missed portfolio
question costs a wrong answer while a false positive only costs tokens: "仓位管理是什么意思"
and "什么是分散投资" count as portfolio questions. Precision is kept where the words
plainly mean something else: market-wide stock picking ("哪只股票值得买", "A股哪只龙头最
强") is GENERAL, so is 配置 in a technical sense, other people's holdings, and 哪个/哪些
without a position word ("哪个指标最好用"). 复盘 beats portfolio words ("复盘我的持仓" is
TRADE_REVIEW), and a strong portfolio cue beats a symbol ("茅台在我的持仓里占比高吗").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum


class Intent(StrEnum):
    PORTFOLIO_REVIEW = "portfolio_review"
    SINGLE_STOCK = "single_stock"
    TRADE_REVIEW = "trade_review"
    GENERAL = "general"


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def _not_after(words: str) -> str:
    """Lookbehinds rejecting any of the '|'-separated words right before the match."""
    return "".join(f"(?<!{w})" for w in words.split("|"))


# --- trade review -----------------------------------------------------------------------

_TIME = r"上周|上星期|上个?礼拜|上个?月|昨天|前天|今天|刚才|刚刚|之前|上次|最近|前几天|前阵子|年初|去年|那天|当时"
_TRADE_ACT = r"买入|卖出|买|卖|加仓|减仓|补仓|清仓|建仓|止损|止盈|割肉|抄底|追高|做T"
# Between the time word and the act: no intention words (我今天想买 is a plan, not a review).
_NOT_PLAN = r"(?:(?!想|要|打算|准备|计划|该|能|可以|应该|会|不)[^\s，。,.!?！？]){0,4}?"

TRADE_REVIEW_PATTERNS: tuple[str, ...] = (
    r"买卖记录|交易记录|操作记录|成交记录|交割单|对账单|历史成交",
    r"(?:这|那|上一|上|前几|前一)笔(?:交易|操作|买卖|买入|卖出|买|卖|单|加仓|减仓|止损|止盈)",
    r"(?:操作|交易|买卖)(?:回顾|总结|得失|反思)|回顾.{0,6}(?:操作|交易|买卖)",
    r"(?:操作|交易|买卖|买点|卖点)(?:对不对|对吗|做得对|是否正确|有没有问题|合理吗)",
    rf"我(?:{_TIME}){_NOT_PLAN}(?:{_TRADE_ACT})",
    rf"我(?:刚|刚刚|已经|已)(?:{_TRADE_ACT})(?:了|的|掉|完)",
    r"卖飞|卖早了|买早了|买错|卖错|追高了|割肉了",
)
_TRADE_RE = _any(*TRADE_REVIEW_PATTERNS)
_REPLAY_RE = re.compile(r"复盘")
_MARKET_RECAP_RE = re.compile(r"大盘|市场|板块|行情|指数|两市|A股|沪指|深成指|创业板指", re.IGNORECASE)
_PERSONAL_RE = re.compile(r"我的|我(?:的)?(?:操作|交易|买|卖)|操作|交易|买卖|持仓|仓位")

# --- portfolio: strong cues ---------------------------------------------------------------

_OTHERS = "基金|主力|机构|北向|外资|社保|股东|十大|散户|大户|游资|公募|私募|国家队|券商|险资|QFII|陆股通"

PORTFOLIO_STRONG_PATTERNS: tuple[str, ...] = (
    rf"{_not_after(_OTHERS)}持仓(?!量)",
    rf"{_not_after(_OTHERS)}仓位",
    r"核心仓|卫星仓|我的仓|我仓里|(?<!搭)配比",
    rf"{_not_after('排列|线|指标')}组合(?!拳|贷|键|框|式|开关|逻辑|数学)",
    rf"调仓|再平衡|再均衡|{_not_after('市场|行业')}集中度",
    r"我的账户|我账户|账户里|账户整体|账户收益|账户盈亏",
    r"我手上|我手里|手上的(?:票|股|这)|手里的(?:票|股|这)",
    r"我的(?:票|股票|持股)|我持股|我(?:买|选)的(?:这|那)?(?:几|些)只|我买的那些|我买的股票",
    r"我持有的|我拿着的|我现在拿的|我(?:目前|现在)?持有(?:哪些|的)",
    r"资产配置|资产分配|资金(?:怎么|如何)?分配|钱(?:怎么|如何)分配",
)
_STRONG_RE = _any(*PORTFOLIO_STRONG_PATTERNS)

# --- portfolio: weak cues (only without symbols) -------------------------------------------

PORTFOLIO_WEAK_PATTERNS: tuple[str, ...] = (
    r"这几只|那几只",
    rf"{_not_after('基金|机构')}(?:满仓|重仓(?!股))|半仓|空仓|轻仓|加仓|减仓|补仓|清仓|建仓|止盈|止损",
    rf"{_not_after('大盘|市场|板块|行业|指数|A股|两市')}整体(?:的)?"
    r"(?:仓位|持仓|收益|盈亏|亏损|回撤|风险|配置|表现|情况)",
    r"分散",
)
_WEAK_RE = _any(*PORTFOLIO_WEAK_PATTERNS)
# 哪只 (which stock) is portfolio-level unless the message is clearly about the market.
_WHICH_STOCK_RE = re.compile(r"哪只|哪一只|哪几只")
_WHICH_STOCK_CONTEXT_RE = re.compile(r"持|仓|减|加|卖|清|留|拿|砍|止|换|调|核心|卫星|我")
_MARKET_WIDE_RE = re.compile(
    r"A股|市场|大盘|板块|行业|推荐|两市|沪深|全市场|龙头|牛股|妖股|自选|值得买|能买|涨停|明天涨",
    re.IGNORECASE,
)
# 哪个/哪些 (which one/ones) is far broader; it needs a holding or position word.
_WHICH_ANY_RE = re.compile(r"哪个|哪些|哪一个")
_WHICH_ANY_CONTEXT_RE = re.compile(
    r"持有|持仓|仓|减|该加|加哪|加点|加一点|加码|卖|清掉|留着|拿着|砍|止盈|止损|换掉|调出|核心|卫星"
)
# Other people's positions (基金持仓, 机构重仓股, 北向持股) are market data, not the user's.
_OTHERS_POSITIONS_RE = re.compile(rf"(?:{_OTHERS})(?:持仓|重仓|仓位|持股)股?|重仓股", re.IGNORECASE)
_CONFIGURE_RE = re.compile(r"配置")
_TECH_RE = re.compile(
    r"环境|文件|参数|python|pip|安装|电脑|显卡|服务器|api|软件|系统|代码|网络|代理|docker|git|"
    r"vscode|ide|编辑器|模型|key|config|终端|命令行|数据库|插件|版本|内存|cpu|gpu",
    re.IGNORECASE,
)


def _strong(text: str) -> bool:
    return _STRONG_RE.search(text) is not None


def _weak(text: str) -> bool:
    text = _OTHERS_POSITIONS_RE.sub("", text)
    if _WEAK_RE.search(text):
        return True
    if _WHICH_STOCK_RE.search(text) and (
        _WHICH_STOCK_CONTEXT_RE.search(text) or not _MARKET_WIDE_RE.search(text)
    ):
        return True
    if _WHICH_ANY_RE.search(text) and _WHICH_ANY_CONTEXT_RE.search(text):
        return True
    if _CONFIGURE_RE.search(text) and not _TECH_RE.search(text):
        return True
    return False


def _trade_review(text: str) -> bool:
    if _TRADE_RE.search(text):
        return True
    if _REPLAY_RE.search(text):
        return not (_MARKET_RECAP_RE.search(text) and not _PERSONAL_RE.search(text))
    return False


def is_portfolio_question(text: str) -> bool:
    """True when a message that names no stock asks about the portfolio as a whole."""
    return _strong(text) or _weak(text)


def detect_intent(text: str, symbols: Sequence[str] = ()) -> Intent:
    """Classify a user message; `symbols` are those `extract_symbols` found in it."""
    if _trade_review(text):
        return Intent.TRADE_REVIEW
    if _strong(text):
        return Intent.PORTFOLIO_REVIEW
    if symbols:
        return Intent.SINGLE_STOCK
    if _weak(text):
        return Intent.PORTFOLIO_REVIEW
    return Intent.GENERAL
