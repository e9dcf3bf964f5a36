"""What kind of question is this? Scored cues with an explanation.

A portfolio question that gets no profiles gets a wrong answer (it compares holdings it
cannot see), so the intent decides whether the holdings-profile overview is injected. Intent is read
from *cues*: named patterns, each in one group, each with a reason a person can check.
`analyze` returns the intent, whether the overview is wanted, and every cue that fired.
Cues are matched on the normalised text (`normalize.normalize`: half-width, lower case,
simplified, typos fixed), so 持倉/倉位, ＰＯＲＴＦＯＬＩＯ and 组和 need no cue of their own.

Groups and how they decide (`_decide`):

* ``trade`` — a look back at the user's own trades (复盘, 交割单, 我昨天卖的…, 卖飞,
  这几笔操作…). Wins over everything; a market recap (复盘今天大盘) is not one.
* ``set`` — the user's holdings as a whole (我的持仓, 我的票, 这几只, 账户, 组合, portfolio,
  手上几只票…). Portfolio review, and with a named stock it is a *mixed* question: the
  overview plus that stock's section. With a trade cue (复盘整个组合) the trade review also
  gets the overview.
* ``position`` — position words (仓位, 持仓, 七成仓, 加仓, 核心仓, 哪只, 配置, 分散…).
  Without a named stock the question is about the portfolio; with one it is about that
  stock (宁德时代的持仓成本, 茅台仓位多少合适).
* ``others`` — somebody else's positions (机构的仓位, 公募基金持仓, 我朋友满仓了): the set
  and position cues are not the user's and are dropped.
* ``knowledge`` — a definition or rule question with no first-person word (止损的原则,
  什么是分散投资): position cues are dropped, the user asked about a concept.
* ``market`` / ``tech`` — market-wide stock picking (哪只股票值得买) and technical 配置
  (配置 Python 环境) keep 哪只 and 配置 from counting.

Rules rather than a trained model: measured on the held-out corpus (data/selection, see
the README), scored cues reach the goal and explain themselves in `/context`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Intent(StrEnum):
    PORTFOLIO_REVIEW = "portfolio_review"
    SINGLE_STOCK = "single_stock"
    TRADE_REVIEW = "trade_review"
    GENERAL = "general"


@dataclass(frozen=True)
class Cue:
    name: str
    group: str  # trade | set | position | others | knowledge | market | tech | recap | self
    pattern: re.Pattern[str]
    why: str  # Chinese, shown in /context


@dataclass(frozen=True)
class FiredCue:
    name: str
    group: str
    matched: str
    why: str


@dataclass(frozen=True)
class IntentResult:
    intent: Intent
    overview: bool  # inject every holding's profile
    cues: tuple[FiredCue, ...]
    reason: str  # one line, Chinese


def _not_after(words: str) -> str:
    return "".join(f"(?<!{w})" for w in words.split("|"))


def _cue(name: str, group: str, pattern: str, why: str) -> Cue:
    return Cue(name, group, re.compile(pattern, re.IGNORECASE), why)


_TIME = (
    r"上周|上星期|上个?礼拜|上个?月|这个?月|本月|这周|本周|这星期|昨天|前天|今天|刚才|刚刚|之前|上次|"
    r"最近|前几天|前阵子|年初|今年|去年|那天|当时"
)
_TRADE_ACT = r"买入|卖出|买|卖|加仓|减仓|补仓|清仓|清掉|卖掉|建仓|止损|止盈|割肉|抄底|追高|做t"
_NOT_PLAN = r"(?:(?!想|要|打算|准备|计划|该|能|可以|应该|会|不)[^\s，。,.!?！？]){0,4}?"
_OTHERS = (
    "基金|主力|机构|北向|外资|社保|股东|十大|散户|大户|游资|公募|私募|国家队|券商|险资|qfii|陆股通|"
    "大v|博主|巴菲特|段永平|张坤|养老金|主权基金|雪球|别人|他们|他的|她的|朋友|同事|老婆|老公|家人|"
    "邻居|大佬|高手|实盘|大家|大多数人|多数人|很多人|人们"
)
_NOT_OTHERS_AFTER_ME = "朋友|同事|老婆|老公|家人|爸|妈|邻居|同学|领导|老板|哥|姐|弟|妹"

CUES: tuple[Cue, ...] = (
    # --- trade review ----------------------------------------------------------------------
    _cue("交易记录", "trade", r"买卖记录|交易记录|操作记录|成交记录|交割单|对账单|历史成交", "查看自己的成交记录"),
    _cue(
        "这笔交易",
        "trade",
        r"(?:这|那|上一|上上|上|前几|前一|几|这几|那几|每)笔(?:交易|操作|买卖|买入|卖出|买|卖|单|加仓|减仓|止损|止盈)?",
        "指向自己做过的某几笔交易",
    ),
    _cue(
        "几次买卖",
        "trade",
        r"(?:几次|每次|那次|这次|最近一次)(?:的)?(?:买卖|交易|操作|买入|卖出|止损|止盈)",
        "指向自己做过的几次交易",
    ),
    _cue(
        "操作总结",
        "trade",
        r"(?:操作|交易|买卖)(?:的)?(?:回顾|总结|得失|反思)|(?:回顾|反思|总结).{0,6}(?:操作|交易|买卖)",
        "回顾 / 总结自己的操作",
    ),
    _cue(
        "操作对错",
        "trade",
        r"(?:操作|交易|买卖|买点|卖点)(?:对不对|对吗|做得对|是否正确|有没有问题|合理吗)",
        "评价自己操作的对错",
    ),
    _cue(
        "我+时间+操作", "trade", rf"我(?:{_TIME}){_NOT_PLAN}(?:{_TRADE_ACT})", "“我”+过去的时间+交易动作：已发生的交易"
    ),
    _cue("时间+操作", "trade", rf"^(?:{_TIME})(?:的)?(?:{_TRADE_ACT})", "以过去的时间开头的交易动作"),
    _cue(
        "我的近期交易",
        "trade",
        rf"(?:我|{_TIME})(?:的)?(?:{_TIME})?(?:的)?(?:调仓)?(?:交易|操作)(?!时间|规则|日|所|软件|费|系统|时段)",
        "自己某段时间的交易 / 操作",
    ),
    _cue(
        "一段时间的交易",
        "trade",
        r"(?:最近|这|上|本|过去)(?:一|两|三|几|半)?个?(?:月|周|星期|礼拜|年|天)(?:的|里|内|来)?(?:我)?(?:的)?"
        r"(?:买卖|交易|操作)",
        "自己一段时间内的交易",
    ),
    _cue("刚做完的交易", "trade", rf"我(?:刚|刚刚|已经|已)(?:{_TRADE_ACT})", "刚刚完成的交易"),
    _cue(
        "事后评价",
        "trade",
        r"卖飞|卖早了|买早了|买错|卖错|追高了|割肉了|追涨杀跌|(?:割|卖|买|抛|清)(?:早|晚|错|亏|飞)了|"
        r"(?:割|买|卖|抄|套)在了?(?:最低|最高|山顶|半山腰|地板|底部|高点|低点|顶|高位|低位)",
        "对已做交易的事后评价",
    ),
    _cue("复盘", "replay", r"复盘", "复盘：回看已发生的操作（大盘复盘除外）"),
    _cue("大盘复盘", "recap", r"大盘|市场|板块|行情|指数|两市|a股|沪指|深成指|创业板指", "复盘对象是市场"),
    _cue("个人操作", "personal", r"我的|我(?:的)?(?:操作|交易|买|卖)|操作|交易|买卖|持仓|仓位", "复盘对象是自己的操作"),
    # --- the user's holdings as a whole (set) ----------------------------------------------
    _cue(
        "我的持仓",
        "set",
        r"我的持仓|我持仓|持仓(?:里|中|结构|整体)|整体持仓|全部持仓|所有持仓|其他持仓",
        "说的是自己的全部持仓",
    ),
    _cue("我的仓", "set", r"我的仓|我仓里|我的底仓|我的(?:仓位|持股)", "自己的仓位整体"),
    _cue("配比", "set", r"(?<!搭)配比", "各持仓之间的配比"),
    _cue("组合", "set", rf"{_not_after('排列|线|指标')}组合(?!拳|贷|键|框|式|开关|逻辑|数学)", "投资组合"),
    _cue("调仓", "set", r"调仓|再平衡|再均衡", "在持仓之间调整"),
    _cue("集中度", "set", rf"{_not_after('市场|行业')}集中度", "持仓集中度"),
    _cue(
        "账户", "set", r"(?<!开)(?<!销)(?:账户|户头)(?!密码|开通|注销|登录|怎么开|冻结|绑定)", "自己的账户（全部持仓）"
    ),
    _cue(
        "我的票",
        "set",
        r"我(?:们)?(?:的|这|那|手[上里头]的?|现在|目前|所有的?|全部的?|拿的|买的|选的|押的|压的|持有的|拿着的|账上的?|"
        r"账户里的?|这些|那些|"
        r"这一?[篮堆批点]|一堆|这几|那几)[^，,。？?！!]{0,5}?(?:票|股票|股|持股|家当|资产|钱)",
        "“我的”+票 / 股：自己持有的股票",
    ),
    _cue(
        "我买的几只",
        "set",
        r"我(?:的|买的|选的|拿的|持有的)(?:这|那)?(?:几|些)|我(?:这|那)?(?:几|些)(?:只|支|个)|"
        r"我[^，。？?]{0,3}的(?:这|那)?几(?:只|支|个)",
        "自己的几只股票",
    ),
    _cue(
        "持有的几只",
        "set",
        r"持有的(?:几|这|那|些|股|票)|我(?:目前|现在)?持有(?:哪些|的)|我拿着的|我现在拿的",
        "自己持有的股票",
    ),
    _cue(
        "这几只",
        "set",
        r"(?:这|那)(?:几|些|一?批|一?篮子|一?堆)(?:只|支)|(?:这|那)(?:几|些|一?批|一?篮子|一?堆)个?(?:票|股)|(?:这|那)(?:几|些)(?:只|支)?股票|这批票",
        "指代自己的这几只股票",
    ),
    _cue(
        "手上的票", "set", r"手[上里头]上?(?:的)?(?:这|那)?(?:几|些|的)?(?:只|支|个)?(?:票|股|只|支|货)", "手上的股票"
    ),
    _cue(
        "持股数量", "set", r"(?:买|拿|持有|持)了?(?:太多|这么多|那么多|很多|好多)只|几只都|几支都", "自己持有几只股票"
    ),
    _cue("全绿了", "set", r"(?:股票|票|股)(?:全|都|全都|全部)(?:绿|红|亏|套|跌|涨|赚)", "自己的股票全体涨跌"),
    _cue(
        "我的收益",
        "set",
        r"我(?:的|这|现在的?|目前的?|账上的?)(?:收益|盈亏|亏损|浮亏|浮盈|回撤|总资产|资产|净值|市值)",
        "自己的收益 / 盈亏（全部持仓）",
    ),
    _cue(
        "钱都在",
        "set",
        r"钱(?:都|全|全部)?(?:在|压在|押在|放在)(?:股|股市|股票|这)|钱都(?:在|压在|押在|放在)|资产配置|资产分配|资金(?:怎么|如何)?分配|钱(?:怎么|如何)分配|"
        r"钱该怎么",
        "自己资金在各股票之间的分配",
    ),
    _cue(
        "英文：portfolio",
        "set",
        r"portfolio|holdings|\bpositions?\b|rebalanc|allocation|diversif|my stocks",
        "英文的持仓 / 组合 / 再平衡",
    ),
    _cue(
        "整体",
        "set",
        rf"{_not_after('大盘|市场|板块|行业|指数|a股|两市')}(?:整体|总体|整个账户|整个组合)(?:的)?"
        r"(?:仓位|持仓|收益|盈亏|亏损|回撤|风险|配置|表现|情况)?",
        "整体表现（大盘整体除外）",
    ),
    _cue("总仓位", "set", r"总仓位|总持仓|总体仓位", "总仓位"),
    # --- position words ---------------------------------------------------------------------
    _cue("持仓", "position", r"持仓(?!量)|持股", "持仓 / 持股"),
    _cue("仓位", "position", r"仓位|核心仓|卫星仓|底仓", "仓位与定位"),
    _cue(
        "几成仓", "position", r"[一二两三四五六七八九十几半满0-9]成仓|仓(?:太|有点|比较)?(?:重|轻)", "几成仓 / 仓重仓轻"
    ),
    _cue(
        "仓位动作",
        "position",
        rf"{_not_after('基金|机构')}(?:满仓|重仓(?!股))|半仓|空仓|轻仓|加仓|减仓|补仓|清仓|建仓|止盈|止损|"
        r"(?:加|减|降|提|补|调)(?:点|一点|些|一些)?仓",
        "仓位动作",
    ),
    _cue("集中分散", "position", r"(?<!市场)(?<!行业)集中(?!度)|分散|单一", "集中 / 分散"),
    _cue("哪只", "which", r"哪只|哪一只|哪几只|哪支|哪一支|哪几支", "问“哪只”：在几只股票中挑"),
    _cue("哪个", "which_any", r"哪个|哪些|哪一个|谁", "问“哪个”"),
    _cue("配置", "configure", r"配置", "配置"),
    # --- context that cancels ---------------------------------------------------------------
    _cue("别人的仓位", "others", rf"(?:{_OTHERS})", "主语是别人（机构、基金、朋友…），不是用户自己"),
    _cue("第一人称", "self", rf"我(?!{_NOT_OTHERS_AFTER_ME})|\bmy\b|咱|俺", "第一人称"),
    _cue(
        "概念问题",
        "knowledge",
        r"是什么|什么是|什么意思|是啥|原则|概念|定义|怎么算|如何计算|技巧|方法论|怎么设|如何设|怎么设置|如何设置|怎么判断|如何判断|有用吗|有没有用|策略是什么",
        "问概念或方法",
    ),
    _cue(
        "全市场选股",
        "market",
        r"a股|市场|大盘|板块|行业|推荐|两市|沪深|全市场|龙头|牛股|妖股|自选|值得买|能买|涨停|明天涨",
        "问的是全市场选股",
    ),
    _cue(
        "技术配置",
        "tech",
        r"环境|文件|参数|python|pip|安装|电脑|显卡|服务器|api|软件|系统|代码|网络|代理|docker|git|vscode|ide|"
        r"编辑器|模型|key|config|终端|命令行|数据库|插件|版本|内存|cpu|gpu",
        "技术意义上的配置",
    ),
)
_WHICH_CONTEXT = re.compile(r"持|仓|减|加|卖|清|留|拿|砍|止|换|调|核心|卫星|我|拖")
_WHICH_ANY_CONTEXT = re.compile(
    r"持有|持仓|仓|减|该加|加哪|加点|加一点|加码|卖|清掉|留着|拿着|砍|止盈|止损|换掉|调出|核心|卫星|拖"
)
_OTHERS_POSITIONS = re.compile(rf"(?:{_OTHERS})(?:的)?(?:持仓|重仓|仓位|持股)股?|重仓股", re.IGNORECASE)
_ROLE_CHOICE = re.compile(
    r"(?:哪个|哪只|谁).{0,8}(?:核心仓|卫星仓|底仓|仓位)|(?:核心仓|卫星仓|底仓).{0,8}(?:哪个|哪只|谁)"
)


# Set cues that are also the names of concepts (asked about in general, they are knowledge).
CONCEPT_SET_CUES = frozenset({"组合", "调仓", "集中度", "配比", "钱都在", "英文：portfolio", "整体", "总仓位"})


def fired_cues(text: str) -> list[FiredCue]:
    """Every cue that matches the (normalised) text, with the matched words."""
    fired = []
    for cue in CUES:
        match = cue.pattern.search(text)
        if match:
            fired.append(FiredCue(cue.name, cue.group, match.group(), cue.why))
    return fired


def _groups(fired: Sequence[FiredCue]) -> set[str]:
    return {c.group for c in fired}


def _decide(text: str, symbols: Sequence[str], fired: list[FiredCue]) -> tuple[Intent, bool, str, list[FiredCue]]:
    groups = _groups(fired)
    trade = "trade" in groups or ("replay" in groups and not ("recap" in groups and "personal" not in groups))
    others = "others" in groups and "self" not in groups
    used: list[FiredCue] = []
    if others:
        used += [c for c in fired if c.group == "others"]
        fired = [c for c in fired if c.group not in ("set", "position", "which", "which_any", "configure")]
    else:
        # 机构重仓股 inside a question about my holdings is still market data.
        stripped = _OTHERS_POSITIONS.sub("", text)
        if stripped != text:
            fired = [c for c in fired_cues(stripped)]
    groups = _groups(fired)
    set_cues = [c for c in fired if c.group == "set"]
    if trade:
        used += [c for c in fired if c.group in ("trade", "replay", "personal")]
        overview = bool(set_cues) and any(c.name != "调仓" for c in set_cues)
        if overview:
            used += set_cues
        return Intent.TRADE_REVIEW, overview, "回看自己的交易" + ("，范围是整个组合" if overview else ""), used
    if symbols and _ROLE_CHOICE.search(text) and len(symbols) > 1:
        set_cues.append(
            FiredCue("在几只中选定位", "set", _ROLE_CHOICE.search(text).group(), "在几只持仓中挑核心 / 卫星")
        )
    if set_cues and "knowledge" in groups and "self" not in groups:
        # 什么是再平衡 asks about a concept, not about the user's own portfolio.
        set_cues = [c for c in set_cues if c.name not in CONCEPT_SET_CUES]
    if set_cues:
        reason = "说的是整个持仓" + ("，同时点名了个股：概览 + 个股" if symbols else "")
        return Intent.PORTFOLIO_REVIEW, True, reason, used + set_cues
    if symbols:
        return Intent.SINGLE_STOCK, False, "点名了个股，仓位词说的是这只股票", used
    weak = _weak_cues(_OTHERS_POSITIONS.sub("", text), fired, groups)
    if weak:
        return Intent.PORTFOLIO_REVIEW, True, "没有点名个股，仓位类问题指向整个持仓", used + weak
    return Intent.GENERAL, False, "没有持仓或个股线索", used


def _weak_cues(text: str, fired: list[FiredCue], groups: set[str]) -> list[FiredCue]:
    text_of = {c.group: c for c in fired}
    knowledge = "knowledge" in groups and "self" not in groups
    weak = [] if knowledge else [c for c in fired if c.group == "position"]
    which = text_of.get("which")
    if which and not knowledge and (_WHICH_CONTEXT.search(text) or "market" not in groups):
        weak.append(which)
    which_any = text_of.get("which_any")
    if which_any and not knowledge and _WHICH_ANY_CONTEXT.search(text):
        weak.append(which_any)
    configure = text_of.get("configure")
    if configure and "tech" not in groups and not knowledge:
        weak.append(configure)
    return weak


# A question is short; a pasted document is not read whole for cues (its head and tail
# carry the question), so a 50,000-character paste costs what a 1,500-character one does.
HEAD, TAIL = 1000, 500


def _question_part(text: str) -> str:
    return text if len(text) <= HEAD + TAIL else text[:HEAD] + "\n" + text[-TAIL:]


def analyze(text: str, symbols: Sequence[str] = ()) -> IntentResult:
    """The intent of a normalised message; `symbols` are the stocks it names."""
    text = _question_part(text)
    fired = fired_cues(text)
    intent, overview, reason, used = _decide(text, symbols, fired)
    return IntentResult(intent, overview, tuple(used), reason)


def detect_intent(text: str, symbols: Sequence[str] = ()) -> Intent:
    """Classify a user message; `symbols` are the stocks found in it."""
    from pixiu_cli.selection.normalize import normalize

    return analyze(normalize(text), symbols).intent


def is_portfolio_question(text: str) -> bool:
    """True when a message that names no stock asks about the portfolio as a whole."""
    from pixiu_cli.selection.normalize import normalize

    result = analyze(normalize(text), ())
    return result.intent is Intent.PORTFOLIO_REVIEW
