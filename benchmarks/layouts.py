"""Message layouts against DeepSeek's prompt prefix cache, measured.

One scripted 30-turn session (several intents, tool calls, a user note, exactly one
history compaction) is replayed through the real turn machinery — Agent, ChatClient,
ContextBuilder, Compactor, the tools and the stores — against the offline server's
``deepseek`` cache profile, once per candidate layout:

    a      dynamic data in the system message: system = system.md + the [上下文信息]
           block; history without blocks; then the question.
    b      the straightforward order: system.md, a second system message with the
           per-intent scene fragment, history (old blocks dropped), the block, the
           question. DeepSeek hoists every system message to the front, so the scene
           changes the prefix whenever the intent changes.
    drop   pixiu's layout, earlier [上下文信息] blocks dropped from the history.
    keep   pixiu's layout, earlier blocks kept as sent.
    delta  pixiu's layout, earlier blocks kept, the new block sends only the sections
           that changed.

Every layout gets a fresh database (temp dir), a fresh server cache and its own API
key, frozen time (the clock advances a few minutes per turn), the demo portfolio, and
the same scripted replies. (a) and (b) are small ContextBuilder subclasses that only
rearrange the real builder's output, so every layout carries the same information.

The ideal is layout-independent in its definition: a call could at best reuse
everything the previous call sent and received,

    ideal_hit_i = floor64(min(prompt_i, prompt_{i-1} + completion_{i-1}))   (i > 0; 0 for i = 0)

Run:  python benchmarks/layouts.py [--turns 30] [--compact-at T] [--json]
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python benchmarks/layouts.py` from a checkout
    sys.path.insert(0, str(ROOT))

from pixiu_cli.account.explain import wait_for_explanations  # noqa: E402
from pixiu_cli.conversation.agent.compaction import Compactor  # noqa: E402
from pixiu_cli.conversation.agent.guardrails import Guardrails  # noqa: E402
from pixiu_cli.conversation.agent.loop import Agent  # noqa: E402
from pixiu_cli.conversation.agent.tools import ToolContext  # noqa: E402
from pixiu_cli.conversation.context.block import ContextBlock  # noqa: E402
from pixiu_cli.conversation.context.builder import (  # noqa: E402
    SHANGHAI,
    BuiltMessages,
    ContextBuilder,
    scene_fragment,
    system_prompt,
)
from pixiu_cli.conversation.context.memory_classes import MemoryLimits  # noqa: E402
from pixiu_cli.conversation.llm.client import ChatClient  # noqa: E402
from pixiu_cli.conversation.model_tools import model_tools  # noqa: E402
from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec  # noqa: E402
from pixiu_cli.conversation.offline.server import OfflineServer  # noqa: E402
from pixiu_cli.conversation.selection.intent import Intent, detect_intent  # noqa: E402
from pixiu_cli.conversation.selection.select import extract_symbols  # noqa: E402
from pixiu_cli.conversation.store import ConversationStore  # noqa: E402
from pixiu_cli.home.document_file import load_document  # noqa: E402
from pixiu_cli.home.store import InvestorStore  # noqa: E402
from pixiu_cli.kernel.resources import data_dir  # noqa: E402
from pixiu_cli.kernel.store.database import open_database  # noqa: E402
from pixiu_cli.market.names.table import Holder  # noqa: E402
from pixiu_cli.memory.handle import Memory  # noqa: E402
from pixiu_cli.memory.store import MemoryStore  # noqa: E402

UNIT = 64  # DeepSeek caches in 64-token units
# Assumed DeepSeek-like prices, CNY per million tokens (printed with every run).
PRICE_HIT, PRICE_MISS, PRICE_OUTPUT = 0.2, 2.0, 3.0
# Frozen time: a Tuesday afternoon session (a trading day), a few minutes per turn.
START = datetime(2026, 11, 24, 13, 5, tzinfo=SHANGHAI)
STEP = timedelta(minutes=4)
SCENE_TITLE = "## 本轮场景"


# ---------------------------------------------------------------------------------------
# The layouts
# ---------------------------------------------------------------------------------------


class SystemBlockBuilder(ContextBuilder):
    """(a) The dynamic block inside the system message: system = system.md + block text;
    history without blocks; then the question. The block changes every turn (at least the
    time), so everything after system.md — tools and history included — misses."""

    def __init__(self, store, domain, limits=None, clock=None):
        super().__init__(store, domain, limits, clock=clock, history_blocks="drop")

    def build_messages(self, conversation_id, user_text, before_seq=None, now=None, **options) -> BuiltMessages:
        built = super().build_messages(conversation_id, user_text, before_seq, now, **options)
        *head, block, question = built.messages  # [system.md, *history, block, question]
        system = {"role": "system", "content": system_prompt() + "\n\n" + block["content"]}
        return replace(built, messages=[system, *head[1:], question])


def without_scene(block: ContextBlock) -> ContextBlock:
    """The same block minus its 本轮场景 section (that fragment moves to a system message)."""
    parts = block.text.split("\n\n")
    kept = [p for p in parts if not p.startswith(SCENE_TITLE)]
    if len(kept) == len(parts):
        return block
    from pixiu_cli.conversation.tokenizer.counts import count_tokens

    text = "\n\n".join(kept)
    return replace(
        block, text=text, tokens=count_tokens(text), sections=tuple(s for s in block.sections if s.key != "scene")
    )


class SceneSystemBuilder(ContextBuilder):
    """(b) The straightforward order: system.md, a second system message with the
    per-intent scene, history (old blocks dropped), the block, the question."""

    def __init__(self, store, domain, limits=None, clock=None):
        super().__init__(store, domain, limits, clock=clock, history_blocks="drop")

    def context_block(self, user_text, summary=None, now=None, withdrawn=None):
        block, intent, symbols = super().context_block(user_text, summary, now, withdrawn=withdrawn)
        return without_scene(block), intent, symbols

    def build_messages(self, conversation_id, user_text, before_seq=None, now=None, **options) -> BuiltMessages:
        built = super().build_messages(conversation_id, user_text, before_seq, now, **options)
        scene = scene_fragment(built.intent)
        if not scene:
            return built
        messages = [built.messages[0], {"role": "system", "content": scene}, *built.messages[1:]]
        # Agent.run_turn stores messages[1 + history_count:] as the turn; with two
        # leading system messages the turn's own messages start one later.
        return replace(built, messages=messages, history_count=built.history_count + 1)


def _pixiu(policy: str) -> Callable[..., ContextBuilder]:
    return lambda store, domain, limits, clock: ContextBuilder(
        store, domain, limits, clock=clock, history_blocks=policy
    )


def default_policy() -> str:
    """The history policy pixiu uses when none is given (what app.py gets)."""
    return inspect.signature(ContextBuilder.__init__).parameters["history_blocks"].default


@dataclass(frozen=True)
class Layout:
    key: str
    label: str
    make: Callable[..., ContextBuilder]


LAYOUTS: tuple[Layout, ...] = (
    Layout("a", "(a) block in system", lambda s, d, limits, c: SystemBlockBuilder(s, d, limits, clock=c)),
    Layout("b", "(b) scene as 2nd system", lambda s, d, limits, c: SceneSystemBuilder(s, d, limits, clock=c)),
    Layout("drop", "(c) pixiu drop", _pixiu("drop")),
    Layout("keep", "(c) pixiu keep", _pixiu("keep")),
    Layout("delta", "(c) pixiu delta", _pixiu("delta")),
)


# ---------------------------------------------------------------------------------------
# The session script (the same for every layout)
# ---------------------------------------------------------------------------------------


def _call(name: str, **arguments) -> ToolCallSpec:
    return ToolCallSpec(name, json.dumps(arguments, ensure_ascii=False))


@dataclass(frozen=True)
class ScriptTurn:
    text: str
    intent: Intent  # what detect_intent should say (checked before the run)
    replies: tuple[ScriptedReply, ...]  # one per model call of the turn, tool steps first
    note: tuple[str, str, str | None] | None = None  # (kind, text, symbol): /remember before the turn


def _turn(
    text: str,
    intent: Intent,
    answer: str,
    *tools: ToolCallSpec,
    preface: str = "",
    note: tuple[str, str, str | None] | None = None,
) -> ScriptTurn:
    replies = ((ScriptedReply(text=preface, tool_calls=list(tools)),) if tools else ()) + (ScriptedReply(text=answer),)
    return ScriptTurn(text, intent, replies, note)


G, S, P, T = Intent.GENERAL, Intent.SINGLE_STOCK, Intent.PORTFOLIO_REVIEW, Intent.TRADE_REVIEW

SCRIPT: tuple[ScriptTurn, ...] = (
    _turn(
        "今天下午大盘怎么样？成交量有没有放大？",
        G,
        "我这里没有实时行情接口，无法告诉你此刻的指数点位和成交额，请以交易软件为准。参考资料里能确认的是：央行四天前宣布"
        "下调存款准备金率0.5个百分点、自下周起实施，释放长期流动性，对银行、保险等权重板块是温和利好，但降准通常已被"
        "市场提前部分定价，不宜据此追涨。对你的组合来说，今天更值得留意的是两条夜间巡检预警：卫星仓合计约35.1%，已超过"
        "你设定的35%上限；宁德时代单只约11.5%，接近12%的卫星仓单只上限。如果下午有操作时间，可以先处理卫星仓超限的问题，"
        "而不是根据大盘短线涨跌做决定。",
    ),
    _turn(
        "海康最近跌得厉害，现在怎么看？",
        S,
        "先分事实和观点。事实层面：海康威视近五个交易日累计下跌约6%，成交量萎缩，上一交易日收盘30.98元，接近你设定的"
        "30元加仓计划位；估值回顾显示市盈率处于近五年约20%分位，股价在28–38元区间下沿附近。融合信号-0.18偏空，主要"
        "来自趋势（-45）和资金流向（-25），估值分项为正。观点层面：雪球上“价值洼地、闭眼买”的说法属于情绪观点，不能作为"
        "依据。结合你的回测画像（网格策略胜率61%、适合卫星仓按区间分批），更稳妥的做法是按原计划在30元附近分批，而不是"
        "一次性抄底；同时注意卫星仓合计已超过35%，加仓前最好先腾出额度。",
    ),
    _turn(
        "海康估值偏高，回踩 30 元再加仓。这个计划帮我记下来。",
        S,
        "已把这条计划记下（与之前同一条计划合并，时间已更新）。提醒两点：一是你前天已在30.95元加了计划仓位的一半，剩下"
        "一半如果在30元附近执行，海康持仓会到约3500股，成本会降到33元左右；二是卫星仓合计已超过35%的上限，按你的纪律，"
        "加海康之前应先减掉其他卫星仓（例如浮盈较多的宁德）腾出额度。另外“估值偏高”和估值回顾里“市盈率处于近五年20%分位”"
        "的事实不太一致，你可能指的是相对业绩增速偏高，建议把理由写得更具体，方便以后复盘。",
        _call("remember", kind="plan", text="海康估值偏高，回踩 30 元再加仓。", symbol="002415"),
        preface="好的，我先把这条计划记下来。",
    ),
    _turn(
        "我的持仓哪只适合核心仓？",
        P,
        "整体结论：按回测画像，招商银行最适合做核心仓，美的集团次之，贵州茅台适合低频持有的核心仓，中国平安更像卫星仓。"
        "逐只看：招行红利低波策略年化11.8%、最大回撤-23.6%、夏普0.86，股息率约5%，是组合里的压舱石；美的年化9.7%、回撤"
        "-31.8%，现金流和分红稳定；茅台年化6.2%但回撤-41.2%，适合长期持有、不做波段，与你“短期波动不动”的观点一致；"
        "平安近5年回撤超过50%、夏普为负，画像建议卫星仓，目前却按核心仓配置，是主要的不匹配。卫星仓里宁德、中芯弹性大，"
        "五粮液浮亏且基本面未见拐点，海康按区间操作。建议：核心仓保留招行、美的、茅台，把平安的权重逐步降到卫星仓水平。",
        _call("get_holdings"),
        preface="我先核对一下你当前的持仓和定位。",
    ),
    _turn(
        "600519 的中期分红公告说了什么？对我持有有影响吗？",
        S,
        "贵州茅台昨天早上发布了年度中期分红实施公告：公司按中期利润分配方案每股派发现金红利，股权登记日在下周（具体每股"
        "金额以公告原文为准，资料里没有写明）。对你的影响：你持有200股，登记日收盘时仍持有就能获得分红；A股分红后会除息，"
        "股价相应下调，总资产基本不变，持股不满一个月卖出还需补缴红利税，所以不必为了分红短线买卖。茅台近期收盘跌破60日"
        "均线，融合信号中性（+0.12），你的观点是“长期核心仓，短期波动不动，除非基本面变化”，分红公告属于基本面稳定的信号，"
        "与这个观点一致，目前没有需要操作的理由。",
    ),
    _turn(
        "什么是市盈率分位？怎么用它判断贵不贵？",
        G,
        "市盈率分位是把当前市盈率放到一段历史区间里排序，看它处在什么位置。例如“近五年20%分位”表示过去五年里只有20%的"
        "时间比现在更便宜。用法上有三点要注意：第一，分位只和自己的历史比，行业景气或商业模式变了，历史区间就不再可比；"
        "第二，盈利下滑时市盈率会被动抬高，周期股在景气顶点市盈率反而最低，要结合盈利趋势看；第三，区间长度很关键，三年"
        "和十年的分位可能差别很大。实践中可以把分位当作“安全垫”的参考，配合股息率、现金流和你的仓位纪律一起用，而不是"
        "单独作为买卖信号。",
    ),
    _turn(
        "我今天买了 500 股海康，30.5 元成交的，帮我记一下。",
        T,
        "已记录：买入海康威视500股，成交价30.50元。记录后海康持仓3500股，平均成本约33.33元。这笔操作与“回踩30元再加仓”的"
        "计划基本一致，执行得有纪律。需要留意的是：卫星仓合计原本就超过35%的上限，这次加仓后占比进一步上升，和你的纪律"
        "冲突；另外融合信号仍偏空（-0.18），趋势没有企稳。建议接下来不再追加，并在月底再平衡时优先把卫星仓合计压回35%"
        "以内，比如按计划继续分批止盈宁德。",
        _call(
            "record_decision",
            symbol="002415",
            side="buy",
            price=30.5,
            quantity=500,
            reason="回踩到30元计划位附近，按计划加仓",
        ),
        preface="好的，我来记录这笔买入。",
    ),
    _turn(
        "宁德现在浮盈不少，还要不要继续止盈？",
        S,
        "宁德时代成本228.5元，按上一交易日约365元计算浮盈接近60%。资料显示：季度业绩同比增长、储能占比提升，估值在近三年"
        "中位附近；昨天已在366.2元止盈100股；夜间巡检显示它占组合约11.5%，接近12%的单只上限；你的观点是“储能逻辑还在，"
        "但估值不便宜，不再加仓”。综合来看，继续分批止盈是合理的：一方面把单只权重压到10%左右，留出安全边际；另一方面也能"
        "帮卫星仓合计回到35%以内。不建议一次清仓，因为基本面没有变坏，融合信号也偏多（+0.46）。可以设定一个规则，例如每上涨"
        "5%减一小批，避免情绪化决策。",
    ),
    _turn(
        "卫星仓超过35%了，怎么调比较好？",
        P,
        "整体结论：按上一交易日收盘价，卫星仓约35.1%，略超上限，需要调但不必大动。逐只看：宁德约11.5%，浮盈最大、接近单只"
        "上限，是减仓的首选；中芯你设了8%上限和95元止损，目前在上限以内；海康刚加仓，是计划内的网格仓位；五粮液浮亏且画像"
        "偏弱，报告建议暂停加仓、维持低配。按“仓位管理”文档的做法，优先减浮盈最多且权重最高的标的，其次处理基本面最弱的："
        "建议先减宁德约100股，卫星仓即可回到35%以内；五粮液暂不割肉，但不再加仓。调整后记得核对茅台等单只权重仍在25%"
        "以内。",
        _call("load_context", topic="position_sizing"),
        preface="我先查一下仓位管理的要点。",
    ),
    _turn(
        "降准对银行股一般有什么影响？",
        G,
        "降准直接增加银行可用于放贷的资金，降低负债成本，理论上对净息差是小幅正面，对资产规模增长也有帮助；同时释放长期"
        "流动性，改善市场整体风险偏好。但影响通常有限：一是降准往往伴随贷款利率下行，净息差未必改善；二是市场会提前部分"
        "定价，公告后银行股的表现并不稳定；三是银行估值更取决于资产质量和经济预期。落到你的持仓，招商银行最近披露净息差"
        "小幅收窄、不良率持平，股息率约5%，它的核心价值是分红稳定，降准只是锦上添花，不构成加仓理由。",
    ),
    _turn(
        "000858 还要不要拿着？一直在亏。",
        S,
        "五粮液成本142.6元，按118元左右计算浮亏约17%。资料显示：白酒旺季动销不及预期，渠道库存偏高、批价承压；融合信号"
        "-0.35偏空；回测画像显示趋势策略近5年年化-7.1%，只适合小仓位卫星仓；你三天前已在119.8元卖出300股降低敞口；你的"
        "计划是“等中秋动销数据出来再决定是否加仓”。建议：继续持有剩余仓位可以，但不加仓，等待基本面拐点的证据（比如批价"
        "企稳、库存下降）；如果你更在意卫星仓额度，可以把它作为第二个减仓对象。不要因为亏损而摊低成本，这和你“不再追涨"
        "杀跌”的纪律是一致的。",
    ),
    _turn(
        "复盘一下我这周的操作。",
        T,
        "这周的操作总体有纪律，但卫星仓额度管理有疏漏。做得好的：宁德在浮盈超50%后止盈100股，符合计划；招行在42.1元补到"
        "目标权重，理由清楚；海康在30.95元和30.5元分两次加仓，贴合“回踩30元”的计划；五粮液动销不及预期时减仓300股，"
        "及时降低敞口。需要改进的：卫星仓合计已超过35%上限时仍在加海康，和你的纪律冲突；中芯试探加仓理由是“融合信号转多”，"
        "属于短线信号驱动，和你“盘中看盘时间有限”的约束不太匹配。建议：以后每次加卫星仓前先看一眼合计占比，超限就先减后加。",
        note=("rule", "卫星仓合计超过35%时，先减浮盈最多的那只。", None),
    ),
    _turn(
        "招行和平安比，哪个更适合长期拿？",
        S,
        "从你的数据看，招商银行更适合长期持有。招行：红利低波策略年化11.8%、最大回撤-23.6%、夏普0.86，股息率约5%，画像"
        "适合核心仓，融合信号+0.38偏多；季度数据显示净息差小幅收窄但不良率持平。中国平安：近5年年化-1.4%、回撤-54.8%、"
        "夏普为负，画像更像卫星仓，估值修复依赖地产和利率环境；好的一面是寿险新业务价值同比增长。结论：长期核心仓选招行，"
        "平安可以保留但权重应按卫星仓控制。你六天前在57.4元减了平安500股，方向是对的。",
    ),
    _turn(
        "科创板的涨跌幅限制是多少？",
        G,
        "科创板股票的涨跌幅限制是20%，上市后前五个交易日不设涨跌幅限制；创业板也是20%。主板股票一般是10%，ST股是5%。另外"
        "科创板个人投资者开户需要满足前20个交易日日均资产不低于50万元和24个月交易经验的门槛。你持有的中芯国际是科创板股票，"
        "日内波动可能明显大于主板，这也是它画像里回撤深（-49.2%）的原因之一；你设的“跌破95元止损一半”的计划在这种波动下"
        "尤其重要，建议用条件单执行，避免盘中来不及操作。",
        _call("load_context", topic="a_share_rules"),
    ),
    _turn(
        "中芯振幅这么大，我的止损位还合理吗？",
        S,
        "中芯国际前天日内振幅8.3%，波动确实放大。你的计划是“仓位上限8%，跌破95元止损一半”，五天前在108.5元试探加仓200股，"
        "也写明跌破95元止损。按上一交易日约112元计算，95元距离现价约15%，大约是两个大振幅交易日的幅度，作为波段止损是"
        "合理的：既不会被正常波动频繁打掉，又能限制单只损失。可以考虑两点微调：一是止损按收盘价触发，避免盘中插针；二是"
        "如果止损后仍看好半导体周期，设定重新买回的条件，而不是马上买回。融合信号+0.22偏多，但估值分项为负，不建议再加。",
    ),
    _turn(
        "整体仓位是不是太重了？要不要留点现金？",
        P,
        "整体结论：你目前基本是满仓持股，现金比例很低，对“组合最大回撤控制在20%以内”的目标来说偏重。逐只看风险：茅台、"
        "平安、五粮液、宁德、中芯的历史最大回撤都在40%–60%，即使核心仓的招行和美的也有20%–30%。如果整个组合同步回撤，20%"
        "的目标很难守住。建议保留5%–10%的现金或货币基金，来源可以是：宁德分批止盈、平安反弹时减仓、五粮液不再补仓。这样既"
        "能降低回撤，也给海康这类按区间操作的标的留出加仓额度。",
    ),
    _turn(
        "美的最近有什么新消息？",
        S,
        "参考资料里近14天没有美的集团的新动态；最近一条是16天前的投资者交流记录，公司表示海外收入占比已超过四成，已超出动态"
        "的时间窗口，仅供参考。其他信息：回测画像（红利低波+估值分位）年化9.7%、最大回撤-31.8%，适合核心仓；融合信号+0.28"
        "偏多，但已是9天前的数据；你在九天前以74.2元分批加仓500股，理由是估值回到历史中枢以下。目前没有新的基本面变化，按"
        "原计划低估值区间分批即可，不需要因为没有消息而操作。",
    ),
    _turn(
        "我刚刚卖了 100 股宁德，368 元，理由是卫星仓超限。",
        T,
        "已记录：卖出宁德时代100股，成交价368元。卖出后宁德持仓300股，成本不变。这笔操作执行了你新定的纪律“卫星仓合计超过"
        "35%时，先减浮盈最多的那只”，理由清楚，和昨天的止盈节奏一致。按上一交易日收盘价粗算，卫星仓合计回到约33%，宁德单只"
        "约8.6%，两项都回到上限以内。后续建议：剩余300股继续持有，储能逻辑没有变；下次加仓卫星仓前先确认合计占比。",
        _call(
            "record_decision",
            symbol="300750",
            side="sell",
            price=368,
            quantity=100,
            reason="卫星仓超限，先减浮盈最多的宁德",
        ),
        preface="好的，记录这笔卖出。",
    ),
    _turn(
        "北向资金流出一般说明什么？",
        G,
        "北向资金是通过沪深股通买卖A股的境外资金。持续流出通常反映三类因素：一是全球风险偏好下降或美元走强，外资整体撤出新兴"
        "市场；二是对A股某些行业的估值或盈利预期下调；三是季末、节假日前的正常调仓。它对消费、金融等外资重仓的蓝筹影响较大，"
        "但单日或几日的流出噪音很多，不宜当成买卖信号。更有用的是看持续数周的趋势，以及流出集中在哪些行业。对你来说，茅台、"
        "招行、美的都是外资偏好的标的，短期会受影响，但你的持有逻辑是长期分红和基本面，不必据此调整。",
    ),
    _turn(
        "现在这几只的配比合理吗？",
        P,
        "整体结论：经过今天卖出宁德，配比基本回到你的纪律以内，但核心仓内部结构还可以优化。核心仓方面：招行、美的、茅台的"
        "画像都适合核心仓，茅台约23%接近25%上限，要注意不要再加；平安画像偏卫星仓，却按核心仓配置，这是最大的不匹配。卫星仓"
        "方面：合计约33%，宁德约8.6%、中芯在8%上限附近、海康刚加仓，五粮液浮亏。建议：一是把平安逐步降到卫星仓权重，释放的"
        "资金补招行或美的；二是五粮液不再补仓；三是月底再平衡时按市值重新核对一次各项上限。",
    ),
    _turn(
        "茅台跌破60日均线了，要不要减？",
        S,
        "贵州茅台收盘价跌破60日均线是三天前的预警。回测画像提示：在白酒回调期，均线趋势策略回撤偏大，长期持有优于频繁择时，"
        "适合核心仓低频持有，不适合做波段。你的观点也是“长期核心仓，短期波动不动，除非基本面变化”。目前基本面信息是中期分红"
        "公告，属于正常经营信号，没有变坏的证据；融合信号中性（+0.12），估值分项为正。因此不建议因为跌破均线而减仓。唯一需要"
        "减仓的情况是单只权重超过25%——你在15天前已按这条纪律减到上限以内，目前约23%，不需要操作。",
    ),
    _turn(
        "可转债打新有什么风险？",
        G,
        "可转债打新的主要风险有三个：一是破发，上市首日跌破100元面值的情况在市场情绪差时并不少见，尤其是信用评级低、转股溢价"
        "率高的品种；二是中签后弃购会被记违约，12个月内累计3次会被限制参与新股、可转债申购半年；三是资金占用和时间成本较小，"
        "但收益也有限，单签一般几十到几百元。操作上建议：只申购评级AA及以上、正股基本面尚可的品种；中签后上市首日根据价格决定"
        "是否卖出，不必长期持有；不要为了打新而占用组合的现金储备。这与你的组合目标不冲突，可以作为小额增强收益。",
    ),
    _turn(
        "平安我打算反弹到 60 元减掉 1000 股，记一下。",
        S,
        "已记下计划：中国平安反弹到60元减1000股。这个计划和画像一致：平安近5年回撤超过50%、夏普为负，画像建议卫星仓，而你目前"
        "按核心仓配置；执行后持仓降到1500股，权重更接近卫星仓水平。资料里的支撑因素是寿险新业务价值同比增长，估值分项为正，"
        "所以不必急于在低位减；60元接近你六天前减仓的57.4元上方的压力区，设定为目标价是合理的。建议用条件单执行，避免盘中"
        "盯盘。",
        _call("remember", kind="plan", text="平安反弹到 60 元减掉 1000 股。", symbol="601318"),
    ),
    _turn(
        "帮我把持仓按回测画像排个序，哪只风险最大？",
        P,
        "按最大回撤从高到低排：宁德时代-60.3%、五粮液-58.9%、中国平安-54.8%、中芯国际-49.2%、贵州茅台-41.2%、海康威视-33.7%、"
        "美的集团-31.8%、招商银行-23.6%。再结合夏普比率看风险收益比：五粮液（-0.21）和平安（-0.05）最差，承担了大回撤却没有"
        "带来收益；宁德和中芯回撤大但收益也高，属于“高波动高收益”。结论：风险最大、性价比最低的是五粮液，其次是平安；这两只"
        "正好也是你计划中不加仓或准备减仓的标的，和画像一致。注意回测画像基于历史数据，不代表未来表现。",
        _call("get_stock_profiles"),
        preface="我把全部持仓的回测画像取出来对比一下。",
    ),
    _turn(
        "海康现在到 30 元附近了，计划里的加仓还执行吗？",
        S,
        "你关于海康的计划有两条记录：五天前的“海康估值偏高，回踩30元再加仓”（今天已重新确认），以及今天在30.5元买入500股的交易"
        "记录。也就是说，30元附近的加仓今天已经执行了一部分，目前持仓3500股、成本约33.33元。是否继续执行，建议看两点：一是卫星"
        "仓额度，今天减宁德后合计约33%，还有少量空间；二是计划的总仓位，原计划在30元附近加仓，已完成大部分。如果没有设定加仓"
        "总量，建议现在补一个上限，例如海康不超过卫星仓的三分之一，避免越跌越买。",
        _call("search_memory", symbol="002415"),
        preface="我查一下你关于海康的计划记录。",
    ),
    _turn(
        "ETF 和个股各有什么优缺点？",
        G,
        "常见的做法是“核心用宽基或红利ETF、卫星用个股”，或者反过来用个股做核心、用行业ETF做卫星。你目前核心仓是茅台、招行、"
        "美的等龙头个股，卫星仓是科技成长个股。可以考虑的改进：一是卫星仓中波动最大的部分（半导体、电池）用行业ETF替代一部分，"
        "降低个股风险，同时保留行业弹性；二是用红利ETF承接平安减仓释放的资金，提高组合的分红稳定性。ETF的缺点是无法针对个股"
        "做精细的区间操作，像海康这样按网格操作的标的，用个股更合适。",
        note=("view", "白酒今年先不加仓，等动销数据。", None),
    ),
    _turn(
        "上周卖五粮液那笔操作对不对？",
        T,
        "那笔操作是三天前在119.8元卖出300股五粮液，理由是白酒动销不及预期、降低卫星仓白酒敞口。对照你的纪律看：一是符合“不追涨"
        "杀跌”的精神——理由来自基本面（渠道调研显示批价承压、库存偏高），不是跟着价格情绪；二是降低了卫星仓合计占比，方向正确；"
        "三是与你今天新记的观点“白酒今年先不加仓，等动销数据”一致。可以改进的地方：渠道调研样本有限、观点分歧大，卖出前如果"
        "先确认一下批价数据会更稳妥。总体是一笔有依据、符合纪律的减仓。",
    ),
    _turn(
        "300750 的储能订单对业绩影响大吗？",
        S,
        "宁德时代昨晚公告与海外能源企业签署储能电池长期供货协议。影响方面：储能是公司第二增长曲线，季度点评显示储能占比在提升，"
        "长期协议能提高未来几年收入的可见度；但公告没有披露金额和价格条款，对单季业绩的影响难以量化，而且储能电池毛利率通常"
        "低于动力电池。对你的持仓：今天已按纪律减了100股，剩余300股，你的观点是“储能逻辑还在，但估值不便宜，不再加仓”，这条"
        "消息支持继续持有，但不改变不加仓的决定。股吧“宁德要翻倍”之类的帖子属于情绪观点，不要作为依据。",
    ),
    _turn(
        "月底要再平衡了，按我的纪律该怎么调？",
        P,
        "整体结论：月底再平衡按三条纪律检查：单只不超过25%、卫星仓合计不超过35%、不加杠杆。逐只建议：茅台约23%，不加不减；"
        "招行、美的按目标权重，如有现金可补招行；平安按你的计划反弹到60元减1000股，向卫星仓权重靠拢；宁德今天已减到约8.6%，"
        "保持；中芯在8%上限附近，跌破95元止损一半；海康已完成30元附近的加仓，不再追加；五粮液不加仓，等动销数据。执行顺序："
        "先卖后买，先处理超限的，再处理画像不匹配的，最后用剩余资金补核心仓，并留5%–10%现金。",
    ),
    _turn(
        "今天收盘后有什么需要我跟踪的？",
        G,
        "收盘后建议跟踪四件事：一是海康今天加仓后的收盘价，是否守住30元，夜间巡检会提示是否触发预警；二是茅台中期分红的股权"
        "登记日，确认下周登记日时仍持有；三是平安的60元减仓条件单是否已设置；四是晚间公告，尤其是宁德储能协议的后续细节和"
        "半导体行业消息。另外，月底最后一个交易日要按纪律做再平衡检查，可以提前把今天的两笔交易（海康买入、宁德卖出）对应的"
        "权重变化核对一遍。",
    ),
)

SUMMARY_REPLY = ScriptedReply(
    text=(
        "- 用户关注卫星仓合计超过35%上限、宁德单只接近12%上限，倾向先减浮盈最多的标的。\n"
        "- 计划（原话）：“海康估值偏高，回踩 30 元再加仓。”已重新确认；今天在30.5元买入海康500股，持仓3500股、成本约33.33元。\n"
        "- 核心仓：招行最适合，美的次之，茅台低频持有（“短期波动不动，除非基本面变化”）；平安画像偏卫星仓，宜降权重。\n"
        "- 五粮液浮亏约17%，不加仓，等动销数据；中芯仓位上限8%，跌破95元止损一半。\n"
        "- 新纪律：卫星仓合计超过35%时，先减浮盈最多的那只。\n"
        "- 助理建议保留5%–10%现金，以控制组合回撤在20%以内。"
    )
)


def check_script(script: Sequence[ScriptTurn] = SCRIPT) -> None:
    """Every scripted question has the intent it is meant to exercise (demo holdings)."""
    data = load_document(data_dir() / "demo" / "portfolio.json", START)
    names = [Holder(h.symbol, h.name, h.short_names) for h in data.holdings]
    for i, turn in enumerate(script, 1):
        got = detect_intent(turn.text, extract_symbols(turn.text, names))
        if got != turn.intent:
            raise AssertionError(f"turn {i} {turn.text!r}: intent {got.value}, script says {turn.intent.value}")


# ---------------------------------------------------------------------------------------
# Running one layout
# ---------------------------------------------------------------------------------------


@dataclass
class CallStat:
    turn: int  # 1-based session turn
    kind: str  # summary | answer (first call of a turn) | tool-step (a later call of the turn)
    prompt: int
    hit: int
    miss: int
    completion: int
    ideal: int = 0


@dataclass
class LayoutResult:
    key: str
    label: str
    calls: list[CallStat]
    compactions: int
    compaction_turn: int | None
    compaction_budget: int | None
    summarised_turns: int
    history_tokens_before: int | None  # history the compactor saw at the compaction turn

    # totals ----------------------------------------------------------------------
    @property
    def prompt(self) -> int:
        return sum(c.prompt for c in self.calls)

    @property
    def hit(self) -> int:
        return sum(c.hit for c in self.calls)

    @property
    def miss(self) -> int:
        return sum(c.miss for c in self.calls)

    @property
    def completion(self) -> int:
        return sum(c.completion for c in self.calls)

    @property
    def ideal(self) -> int:
        return sum(c.ideal for c in self.calls)

    @property
    def hit_ratio(self) -> float:
        return self.hit / self.prompt if self.prompt else 0.0

    @property
    def of_ideal(self) -> float:
        return self.hit / self.ideal if self.ideal else 0.0

    @property
    def cost_cny(self) -> float:
        return (self.hit * PRICE_HIT + self.miss * PRICE_MISS + self.completion * PRICE_OUTPUT) / 1e6

    def shortfall(self, kind: str) -> int:
        """Ideal hit tokens not hit, over the calls of one kind."""
        return sum(c.ideal - c.hit for c in self.calls if c.kind == kind)

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "label": self.label,
            "calls": len(self.calls),
            "prompt_tokens": self.prompt,
            "hit_tokens": self.hit,
            "miss_tokens": self.miss,
            "completion_tokens": self.completion,
            "ideal_hit_tokens": self.ideal,
            "hit_ratio": round(self.hit_ratio, 4),
            "hit_of_ideal": round(self.of_ideal, 4),
            "cost_cny": round(self.cost_cny, 6),
            "compactions": self.compactions,
            "compaction_turn": self.compaction_turn,
            "compaction_budget": self.compaction_budget,
            "summarised_turns": self.summarised_turns,
            "history_tokens_before_compaction": self.history_tokens_before,
            "per_call": [asdict(c) for c in self.calls],
        }


def floor_unit(n: int) -> int:
    return n // UNIT * UNIT


def fill_ideal(calls: list[CallStat]) -> None:
    """ideal_hit_i = floor64(min(prompt_i, prompt_{i-1} + completion_{i-1})); 0 for the first call."""
    for i, call in enumerate(calls):
        call.ideal = 0 if i == 0 else floor_unit(min(call.prompt, calls[i - 1].prompt + calls[i - 1].completion))


def default_compact_at(turns: int) -> int:
    """Compact three quarters of the way in: the compactor keeps at most 0.4 × budget of
    history, so the turns after it must add less than 0.6 × budget — about 0.6 × the
    turns before it — or it would compact a second time before the session ends."""
    return max(3, -(-3 * turns // 4))


def run_layout(
    layout: Layout,
    server: OfflineServer,
    *,
    turns: int,
    compact_at: int | None,
    script: Sequence[ScriptTurn] = SCRIPT,
    start: datetime = START,
) -> LayoutResult:
    server.reset()  # fresh cache, reply queue and request log
    with tempfile.TemporaryDirectory(prefix=f"pixiu-bench-{layout.key}-") as tmp:
        db = open_database(Path(tmp) / "bench.db")
        try:
            clock_now = [start]

            def clock() -> datetime:
                return clock_now[0]

            domain = InvestorStore(db)
            domain.replace_all(load_document(data_dir() / "demo" / "portfolio.json", start))
            store = ConversationStore(db)
            memory = MemoryStore(db)
            limits = MemoryLimits()
            client = ChatClient(
                base_url=server.base_url,
                api_key=f"bench-{layout.key}",
                model="deepseek-flash",
                provider="deepseek",
                timeout=30,
                max_retries=0,
            )
            builder = layout.make(store, domain, limits, clock)
            # No compaction until the chosen turn (see below), so the budget starts unreachable.
            compactor = Compactor(store, client, budget_tokens=sys.maxsize)
            agent = Agent(
                store,
                client,
                builder,
                guardrails=Guardrails(),
                compactor=compactor,
                tools=model_tools(),
                tool_context=ToolContext(memory=Memory(db), now=clock),
            )
            conv = store.create_conversation(title=f"bench {layout.key}").id
            budget = history_at_compaction = None
            turn_of_call: list[tuple[int, str]] = []

            for index in range(turns):
                seq = index + 1
                turn = script[index % len(script)]
                clock_now[0] = start + index * STEP
                if turn.note:
                    kind, text, symbol = turn.note
                    memory.add_note(
                        note_kind=kind,
                        text=text,
                        symbol=symbol,
                        source="user",
                        author="user",
                        at=clock_now[0].isoformat(timespec="seconds"),
                    )
                upto = store.get_conversation(conv).summary_upto_turn
                history = store.history_tokens_after(conv, upto)
                if seq == compact_at:
                    # The largest budget that triggers here: this layout's history so far,
                    # minus one token. Every earlier turn had less history, so a compactor
                    # built with this budget from the start would have waited for this turn.
                    budget = compactor.budget_tokens = history - 1
                    history_at_compaction = history
                compacting = history > compactor.budget_tokens
                if compacting:  # the summary call comes before the turn's own call
                    server.enqueue(SUMMARY_REPLY)
                    turn_of_call.append((seq, "summary"))
                server.enqueue(*turn.replies)
                turn_of_call.extend([(seq, "answer")] + [(seq, "tool-step")] * (len(turn.replies) - 1))
                result = agent.run_turn(conv, turn.text)
                if result.status != "complete" or server.pending_replies:
                    raise RuntimeError(
                        f"{layout.key} turn {seq}: status {result.status} ({result.error}), "
                        f"{server.pending_replies} scripted replies left over"
                    )

            conversation = store.get_conversation(conv)
            summary_calls = [c for c in store.calls_for_conversation(conv) if c.step == -1]
        finally:
            wait_for_explanations()  # the explanation worker writes to bench.db: done before it is deleted
            db.close()

    requests = server.requests
    if len(requests) != len(turn_of_call):
        raise RuntimeError(f"{layout.key}: {len(requests)} requests for {len(turn_of_call)} scripted calls")
    calls = []
    for (seq, kind), request in zip(turn_of_call, requests):
        usage = request.usage or {}
        calls.append(
            CallStat(
                seq,
                kind,
                usage["prompt_tokens"],
                usage["prompt_cache_hit_tokens"],
                usage["prompt_cache_miss_tokens"],
                usage["completion_tokens"],
            )
        )
    fill_ideal(calls)
    return LayoutResult(
        layout.key,
        layout.label,
        calls,
        compactions=len(summary_calls),
        compaction_turn=compact_at if summary_calls else None,
        compaction_budget=budget,
        summarised_turns=conversation.summary_upto_turn,
        history_tokens_before=history_at_compaction,
    )


@dataclass
class Report:
    turns: int
    compact_at: int
    default_layout: str
    results: list[LayoutResult]
    seconds: float = 0.0
    date: str = field(default_factory=lambda: datetime.now().strftime("%Y-%m-%d"))

    def by_key(self, key: str) -> LayoutResult:
        return next(r for r in self.results if r.key == key)

    def times_a(self, result: LayoutResult) -> float:
        a = self.by_key("a").hit
        return result.hit / a if a else float("inf")

    def goals(self) -> list[tuple[str, bool, str]]:
        d = self.by_key(self.default_layout)
        a, b = self.by_key("a"), self.by_key("b")
        return [
            (f"pixiu default ({self.default_layout}) hit ≥ 0.90 × ideal", d.of_ideal >= 0.90, f"{d.of_ideal:.3f}"),
            (
                f"pixiu default ({self.default_layout}) hit ≥ 3 × hit of (a)",
                d.hit >= 3 * a.hit,
                f"{self.times_a(d):.2f}×",
            ),
            (
                f"pixiu default ({self.default_layout}) hit > hit of (b)",
                d.hit > b.hit,
                f"{d.hit:,} vs {b.hit:,} ({d.hit / b.hit:.2f}×)" if b.hit else f"{d.hit:,} vs 0",
            ),
        ]

    def to_dict(self) -> dict:
        return {
            "turns": self.turns,
            "compact_at": self.compact_at,
            "default_layout": self.default_layout,
            "date": self.date,
            "seconds": round(self.seconds, 2),
            "prices_cny_per_million": {"hit": PRICE_HIT, "miss": PRICE_MISS, "output": PRICE_OUTPUT},
            "goals": [{"goal": g, "ok": ok, "value": v} for g, ok, v in self.goals()],
            "layouts": [r.to_dict() | {"times_a": round(self.times_a(r), 4)} for r in self.results],
        }


def run_benchmark(
    turns: int = 30,
    compact_at: int | None = None,
    layouts: Sequence[Layout] = LAYOUTS,
    script: Sequence[ScriptTurn] = SCRIPT,
) -> Report:
    """Replay the session once per layout (one process, one offline server, a fresh cache each)."""
    if turns < 3:
        raise ValueError("the session needs at least 3 turns (one compaction after some history)")
    compact_at = compact_at or default_compact_at(turns)
    if not 2 <= compact_at <= turns:
        raise ValueError(f"--compact-at must be between 2 and {turns}")
    check_script(script)
    started = time.perf_counter()
    server = OfflineServer(cache_profile="deepseek").start()
    try:
        results = [run_layout(layout, server, turns=turns, compact_at=compact_at, script=script) for layout in layouts]
    finally:
        server.stop()
    return Report(turns, compact_at, default_policy(), results, time.perf_counter() - started)


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------

COLUMNS = ("layout", "calls", "prompt", "hit", "miss", "hit/prompt", "ideal hit", "hit/ideal", "× a", "cost ¥")


def rows(report: Report) -> list[tuple[str, ...]]:
    out = []
    for r in report.results:
        label = r.label + (" ← default" if r.key == report.default_layout else "")
        out.append(
            (
                label,
                str(len(r.calls)),
                f"{r.prompt:,}",
                f"{r.hit:,}",
                f"{r.miss:,}",
                f"{r.hit_ratio:.3f}",
                f"{r.ideal:,}",
                f"{r.of_ideal:.3f}",
                f"{report.times_a(r):.2f}",
                f"{r.cost_cny:.4f}",
            )
        )
    return out


def text_table(report: Report) -> str:
    body = rows(report)
    widths = [max(len(COLUMNS[i]), *(len(row[i]) for row in body)) for i in range(len(COLUMNS))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(COLUMNS), line(["-" * w for w in widths]), *(line(r) for r in body)])


def markdown_table(report: Report) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join([":---"] + ["---:"] * (len(COLUMNS) - 1)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows(report)]
    return "\n".join(lines)


def verdict(report: Report) -> list[str]:
    by_ideal = sorted(report.results, key=lambda r: r.of_ideal, reverse=True)
    by_cost = sorted(report.results, key=lambda r: r.cost_cny)
    best, second = by_ideal[0], by_ideal[1]
    cheap, runner = by_cost[0], by_cost[1]
    worst = by_cost[-1]
    return [
        f"Best by hit/ideal: {best.label} ({best.of_ideal:.3f}; next {second.label} {second.of_ideal:.3f}, "
        f"+{best.of_ideal - second.of_ideal:.3f}).",
        f"Best by cost: {cheap.label} (¥{cheap.cost_cny:.4f}; next {runner.label} ¥{runner.cost_cny:.4f}, "
        f"{1 - cheap.cost_cny / runner.cost_cny:.1%} cheaper; {worst.label} costs "
        f"{worst.cost_cny / cheap.cost_cny:.2f}×).",
    ]


def shortfall_lines(report: Report) -> list[str]:
    out = [
        "Ideal hit tokens not hit, by call kind (summary = the compaction's own call; answer = the first",
        "call of a turn; tool-step = a call after a tool result):",
    ]
    for r in report.results:
        out.append(
            f"  {r.label:<24} summary {r.shortfall('summary'):>6,}   answer {r.shortfall('answer'):>8,}   "
            f"tool-step {r.shortfall('tool-step'):>4,}"
        )
    out += [
        "",
        f"The compaction (turn {report.compact_at}; budget = the history tokens this layout's compactor "
        f"counted before that turn, minus 1):",
    ]
    for r in report.results:
        summary = next((c for c in r.calls if c.kind == "summary"), None)
        answer = next((c for c in r.calls if c.kind == "answer" and c.turn == r.compaction_turn), None)
        if summary is None or answer is None:
            out.append(f"  {r.label:<24} no compaction")
            continue
        before = next((c for c in reversed(r.calls) if c.turn < answer.turn and c.kind != "summary"), None)
        out.append(
            f"  {r.label:<24} budget {r.compaction_budget:>6,}  turns 1–{r.summarised_turns} summarised  "
            f"summary call miss {summary.miss:>5,}  answer call miss {answer.miss:>6,} of {answer.prompt:>6,}"
            + (f" (previous turn's last call: {before.prompt:,} prompt)" if before else "")
        )
    return out


def render(report: Report) -> str:
    lines = [
        f"pixiu message layouts vs DeepSeek's prefix cache — {report.turns} turns, one compaction at turn "
        f"{report.compact_at}, offline server profile 'deepseek' (64-token units), {report.date}",
        f"Prices assumed (CNY per million tokens): cache hit {PRICE_HIT}, cache miss {PRICE_MISS}, "
        f"output {PRICE_OUTPUT}.",
        "ideal hit per call = floor64(min(prompt_i, prompt_{i-1} + completion_{i-1})); × a = hit tokens / hit "
        "tokens of (a).",
        "",
        text_table(report),
        "",
        *shortfall_lines(report),
        "",
        "Layout goals:",
        *(f"  [{'ok' if ok else 'FAIL'}] {goal}: {value}" for goal, ok, value in report.goals()),
        "",
        *verdict(report),
    ]
    odd = [r for r in report.results if r.compactions != 1]
    if odd:
        lines.append(
            "WARNING: compactions per layout should be exactly 1: " + ", ".join(f"{r.key}={r.compactions}" for r in odd)
        )
    lines += ["", "Markdown:", "", markdown_table(report), "", f"({report.seconds:.1f} s)"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=len(SCRIPT), help="session length (default %(default)s)")
    parser.add_argument(
        "--compact-at",
        type=int,
        default=None,
        help="the turn that compacts the history (default: three quarters of the way in)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    report = run_benchmark(args.turns, args.compact_at)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
