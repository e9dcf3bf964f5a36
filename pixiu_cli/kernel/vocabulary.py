"""The stored vocabulary: note kinds, memory kinds and trade sides with their Chinese labels,
and the marker that opens and closes a context block in every stored and sent request.
Defined once here, in the lowest layer that stores them (the offline provider reads the
marker too, and may not import context/); every other layer imports them.

Stock codes as every layer must see them: six ASCII digits. Input arrives full-width
(６００５１９), in other scripts' digits (٦٠٠٥١٩) or with stray whitespace; all of it is folded
to one spelling before validation so one stock never becomes several rows.

The limits config.toml sets: the context's windows, counts, freshness and budgets
([context]) and the tool loop's guardrails ([agent]). Plain frozen data at the bottom, so
app.py builds them from the settings' tables without importing the context or the agent."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

NOTE_KINDS = ("view", "plan", "rule")
NOTE_KIND_NAMES = {"view": "观点", "plan": "计划", "rule": "纪律"}
# How the block labels the user's own notes: theirs, not a pundit's 情绪观点. A rule is a
# constraint the model checks advice against; a plan or a view is the user's own reading.
NOTE_LAYER_NAMES = {"view": "用户观点", "plan": "用户计划", "rule": "用户纪律"}
NOTE_NAME = "笔记"  # a note without a kind, and the memory kind `user_note`
# Every kind a memory can be listed under: a note's own kind, or the event kind.
MEMORY_KIND_NAMES = {**NOTE_KIND_NAMES, "decision": "交易", "user_note": NOTE_NAME, "trade": "交易", "alert": "预警"}

# A user message that starts with CONTEXT_OPEN is a context block, not the user's words.
CONTEXT_OPEN = "[上下文信息]"
CONTEXT_CLOSE = "[/上下文信息]"

SIDES = ("buy", "sell")
SIDE_NAMES = {"buy": "买入", "sell": "卖出"}
ROLE_NAMES = {"core": "核心仓", "satellite": "卫星仓"}  # a holding's role, as every surface says it
# What a user says when they report a trade of each side (a word of it must be in their message).
SIDE_WORDS = {
    "buy": ("买", "加", "补", "建仓", "增持", "抄底", "低吸", "上车"),
    "sell": ("卖", "抛", "减", "清", "出了", "全出", "割", "止损", "止盈", "离场", "下车"),
}


def side_name(side: str) -> str:
    """买入 / 卖出 for a stored side (an unknown value is shown as it is)."""
    return SIDE_NAMES.get(side, side)


# Where a note or a decision came from when it was made in conversation (/remember, tools):
# imports never change or drop these.
CONVERSATION_SOURCES = ("user", "model")

# Who wrote a memory (memory_events.author), apart from where it came from (source): the
# user typed it; the model wrote it in the user's own words of that turn; a document the
# user imported carried it; or the model proposed it, and it is not the user's until the
# user accepts it (/memory accept).
AUTHOR_USER, AUTHOR_MODEL, AUTHOR_IMPORT, AUTHOR_PROPOSAL = "user", "model_from_user", "import", "proposal"
AUTHORS = (AUTHOR_USER, AUTHOR_MODEL, AUTHOR_IMPORT, AUTHOR_PROPOSAL)
USERS_OWN = (AUTHOR_USER, AUTHOR_MODEL, AUTHOR_IMPORT)  # what the block shows as the user's
PROPOSAL_NAME = "模型提议（未经用户确认）"
AUTHOR_NAMES = {
    AUTHOR_USER: "用户",
    AUTHOR_MODEL: "模型记录（用户原话）",
    AUTHOR_IMPORT: "导入",
    AUTHOR_PROPOSAL: PROPOSAL_NAME,
}


def decision_author(source: str | None) -> str:
    """Who wrote a recorded trade, from where it came: the model records a trade only when the
    user's words of that turn state it, so a trade is never a proposal."""
    return {"user": AUTHOR_USER, "model": AUTHOR_MODEL}.get(source or "", AUTHOR_IMPORT)


# A user message that starts with BRIEF_OPEN asks for the daily brief (`pixiu brief`, /brief):
# the offline reading model writes one from the facts that follow it.
BRIEF_OPEN = "[每日简报]"
BRIEF_FACTS = "【事实（pixiu 本地计算，不是模型生成）】"
CONCLUSION_MARK = "结论："


# What the user's words say about a trade is read in the trade's own clause group: the clauses
# (cut at ，。；？ and the like) from the first to the last that holds its quantity, its price and
# its side word. A fill is recorded only when that group carries evidence of completion
# (COMPLETED, or 了 / 的 after the side word, or 了 ending one of its clauses) and no class of
# NOT_A_FILL applies; anything else is only proposed to the user (services/proposals.py).
COMPLETED = ("已", "刚", "又", "成交", "买到", "买入", "买进", "买在", "卖出", "卖在")
# Between a side word and its 了 / 的 ("卖掉了", "卖出去了", "全出了", "买的").
RESULTATIVES = "掉出入进完光到回去来上"
DONE_PARTICLES = ("了", "的")
# Words that end a clause after its 了 ("清仓了啊").
CLAUSE_TAIL = "啊呀哈吧呢嘛哦 "
# An order named in the group does not make it unfilled when the user says it filled; said after
# the group ("…，已经成交"), these are evidence of completion too.
FILLED = ("全部成交", "已成交", "已经成交", "成交了", "全成了")
# Who else may be the one trading or speaking: kin, people and sources (an open class of words,
# with 他 / 她 as a subject); a first person after the last of them takes the clause back.
OTHER_PEOPLE = (
    *"爸妈哥姐弟妹舅姑姨叔伯婶嫂爷奶他她某",
    *("朋友", "老婆", "老公", "媳妇", "妻子", "丈夫", "对象", "父亲", "母亲", "儿子", "女儿", "家里", "亲戚"),
    *("闺蜜", "兄弟", "室友", "同事", "同学", "邻居", "领导", "老板", "客户", "老师", "网友", "群友", "股友"),
    *("大V", "博主", "主播", "大佬", "大神", "经理", "股东", "高管", "董事", "机构", "主力", "基金", "外资"),
    *("北向", "游资", "庄家", "别人", "有人", "人家", "新闻", "公告", "据说", "听说", "网上", "群里", "晒单"),
    *("隔壁", "老王"),
)
# 自己 is not among them: after a third party it is theirs ("我老婆用她自己账户买了…").
FIRST_PERSON = ("我", "本人")
# People the user speaks to, not of ("兄弟们，今天卖了…").
VOCATIVES = ("兄弟们", "姐妹们", "家人们", "老铁们", "朋友们", "各位")
# What makes the words that name a trade something other than the user's report of a fill of
# their own. Each entry: the class's name (as the model is told), where its words count and
# its words. Where: `before` earlier in the side word's clause; `clause` that clause;
# `sentence_before` earlier in the sentence; `group` the trade's clause group; `after` the
# group and the clauses after it up to the next that holds figures of its own (another trade);
# `order` as `after`, unless FILLED is there too; `subject` OTHER_PEOPLE earlier in the sentence
# with no first person after them; `message` anywhere in the message, before or after the trade.
NOT_A_FILL: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("否定", "before", ("不", "没", "别", "未", "勿", "莫", "甭", "无需", "不用", "休想")),
    ("否定", "after", ("不对", "没卖", "没买", "没操作")),
    (
        "假设",
        "sentence_before",
        ("如果", "假如", "假设", "假定", "假使", "要是", "若是", "倘若", "万一", "设想", "模拟", "比如", "譬如"),
    ),
    (
        "假设",
        "sentence_before",
        ("比方", "就当", "早知道", "当初", "如若", "假若", "设若", "举个例", "举例", "想象", "理论上", "梦见", "梦到"),
    ),
    ("假设", "after", ("的话", "推演", "就好了", "模拟", "假设的", "是假设")),
    (
        "将来或打算",
        "group",
        (
            *("明天", "明日", "后天", "下周", "下星期", "下个月", "下月", "明年", "以后", "将来", "待会", "等会"),
            *("一会儿", "回头", "打算", "准备", "计划", "预计", "考虑", "想要", "将要", "即将", "收盘前"),
        ),
    ),
    ("将来或打算", "after", ("去操作", "再操作", "等会", "待会", "等下", "一会", "收盘前", "去挂", "算了", "得了")),
    ("将来或打算", "group", ("快到", "快要", "马上", "晚点", "过会")),
    ("未成交或已撤单", "order", ("挂单", "挂了", "挂个", "挂的", "挂着", "挂卖", "挂买", "委托", "下了单", "下单")),
    ("未成交或已撤单", "order", ("单子", "排队", "买单", "卖单")),
    (
        "未成交或已撤单",
        "after",
        (
            *("撤单", "撤了", "撤销", "撤回", "没成交", "未成交", "没有成交", "没成", "废单", "等成交", "失败"),
            *("没排上", "没买上", "没卖上", "没买成", "没卖成", "价格没到", "没到价", "部分成交", "只成交"),
        ),
    ),
    ("他人的交易或说法", "subject", OTHER_PEOPLE),
    ("提问", "clause", ("吗", "么", "呢", "？", "?", "是否")),
    (
        "提问",
        "after",
        (
            *("要不要", "该不该", "能不能", "可不可以", "对不对", "行不行", "好不好", "怎么样", "如何", "咋样"),
            *("会不会", "行吗", "你说呢", "你看呢", "你觉得呢", "贵不贵", "来得及", "合适吗", "合适不", "可以吗"),
            *("是不是", "值不值", "行么", "了吗", "了没"),
        ),
    ),
    (
        "计算",
        "after",
        (
            *("算一下", "算算", "算下", "帮我算", "计算", "多少", "盈亏", "能赚", "会亏", "划算", "怎么算"),
            *("保本", "能降到", "收益", "能拿回"),
        ),
    ),
    (
        "条件单",
        "group",
        ("涨到", "跌到", "跌破", "突破", "涨破", "破", "低于", "高于", "触发", "条件单", "回落到", "站上", "回踩"),
    ),
    ("没有做成", "after", ("差点", "忍住", "可惜没", "后悔没", "本来想", "本想", "本打算", "应该", "早该", "犹豫")),
    ("没有做成", "after", ("最后还是没", "最终还是没", "结果没", "还是没", "其实没")),
    (
        "收回或否认",
        "message",
        (
            *("开玩笑", "我是说如果", "没有的事", "没这回事", "最后没做", "最终没做", "我没做", "记错了", "纯假设"),
            *("只是假设", "只是设想", "诈骗", "骗子", "他自己的账户", "她自己的账户", "说着玩", "逗你", "骗你"),
            *("做梦", "说错了", "瞎编", "胡说", "假消息", "不存在的", "是假的", "他的账户", "她的账户"),
            *("帮他", "帮她", "替他", "替她", "代他", "代她", "帮朋友", "替朋友", "帮家里"),
        ),
    ),
    ("描述已有持仓", "clause", ("买入价", "卖出价", "成本价", "成本", "买入均价", "持仓均价", "持有", "持仓", "一共")),
    ("描述已有持仓", "clause", ("总共", "手里有", "目前有")),
)
# A side word right after one of these is an intention or a condition ("想买", "跌破30就卖"),
# unless 了 follows it ("开盘就卖了").
INTENT_BEFORE = ("要", "想", "能", "该", "会", "再", "就", "将", "若")
# A word said both ways around one of these asks a question ("亏不亏", "卖没卖").
EITHER_WAY = ("不", "没")
# What a user says to have pixiu watch a price: an alert is set from their words only when one
# of these is in a sentence that is neither a question, nor negated, nor someone else's.
ALERT_INSTRUCTIONS = (
    "提醒",
    "预警",
    "通知我",
    "告诉我",
    "叫我",
    "喊我",
    "盯着",
    "盯一下",
    "帮我盯",
    "报警",
    "设个",
    "设一个",
    "设置",
    "止损",
    "止盈",
    "就卖",
    "就买",
    "就跑",
    "就出",
    "就清仓",
    "就加仓",
)
# The classes that keep a sentence from being the user's own statement of a rule, plan or view.
NOT_A_STATEMENT = ("提问", "他人的交易或说法")


_ASCII_CODE = re.compile(r"[0-9]{6}")


def normalise_code(raw: object) -> str | None:
    """The six-ASCII-digit code `raw` spells, or None when it spells none."""
    if not isinstance(raw, str):
        return None
    text = unicodedata.normalize("NFKC", raw).strip()
    # NFKC leaves non-Latin decimal digits (Arabic-Indic, Devanagari...) alone: map them.
    folded = "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text)
    return folded if _ASCII_CODE.fullmatch(folded) else None


def is_finite_number(value: object) -> bool:
    """A real, finite number (not bool, NaN or ±Infinity): what prices, shares and costs must be."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class FreshnessRule:
    days: float  # 0 or less: never stale
    trading: bool = False  # count trading days (signals), not calendar days


@dataclass(frozen=True)
class MemoryLimits:
    """Windows (days), limits and freshness of each class; all configurable in config.toml
    [context]. A `*_fresh_days` of 0 means that class never goes stale."""

    reports_days: float = 3.0
    reports_limit: int = 3
    decisions_days: float = 7.0
    decisions_limit: int = 5
    alerts_days: float = 1.0
    alerts_limit: int = 5
    notes_days: float = 30.0
    notes_limit: int = 5
    rules_limit: int = 10  # rules have no window: in force until withdrawn or replaced
    news_days: float = 14.0
    news_per_symbol: int = 3
    # A named stock's older news on what the question asks (负债率 in 鑫铂负债率62%了?) is
    # looked for this far back, past the news window
    topic_news_days: float = 180.0
    topic_news_limit: int = 2
    trades_days: float = 7.0  # the ledger's fills, for a question that looks back at trades
    trades_limit: int = 12
    holdings_news_limit: int = 10  # the holdings' news together, for a question about all of them
    per_symbol_limit: int = 3  # the symbol's own notes and decisions inside its section
    # A window a time word moved (上个月, 节后, 今年的手续费) lists up to this many of the
    # period's items, not the few of a default window: the question asked for the period
    # (the budget still cuts, by priority)
    period_limit: int = 20
    budget_tokens: int = 3000
    history_budget_tokens: int = 24000  # past this, an old chunk of history is summarised at once
    profiles_fresh_days: float = 90.0
    signals_fresh_trading_days: float = 5.0
    news_fresh_days: float = 7.0
    reports_fresh_days: float = 7.0
    alerts_fresh_days: float = 3.0
    holdings_fresh_days: float = 0.0  # a position stays true until a trade changes it
    persona_fresh_days: float = 365.0

    @classmethod
    def from_mapping(cls, values: dict) -> MemoryLimits:
        known = {k: type(getattr(cls(), k))(v) for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def count(self, limit: int, move: object | None) -> int:
        """How many items a class lists: its own limit, or `period_limit` over a moved window."""
        return limit if move is None else max(limit, self.period_limit)

    def rule(self, kind: str) -> FreshnessRule:
        if kind == "signals":
            return FreshnessRule(self.signals_fresh_trading_days, trading=True)
        return FreshnessRule(getattr(self, f"{kind}_fresh_days"))


@dataclass(frozen=True)
class Guardrails:
    max_steps: int = 8  # model calls per turn, at most (the last one's tool calls are not run)
    tool_timeout: float = 10.0  # seconds per tool run
    block_repeats: bool = True  # the same tool with the same arguments twice in one turn

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            object.__setattr__(self, "max_steps", 1)  # a turn makes at least its first call

    @classmethod
    def from_mapping(cls, values: dict) -> Guardrails:
        return cls(**{k: type(getattr(cls(), k))(v) for k, v in values.items() if k in cls.__dataclass_fields__})


# The name a broker account takes when nothing names it: a home's first account, and the one
# every row of an older home moved into (the layout of the statements it was read from is not
# kept, so it cannot be named after them).
DEFAULT_ACCOUNT = "默认账户"
