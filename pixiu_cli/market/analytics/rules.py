"""Alert rule kinds and how a rule reads to the investor. No numpy here: the agent's tool and
the REPL describe rules on every turn without loading the analytics engine.

The user's own stated limits, read from the text of their notes and persona: a position
cap (单只个股仓位不超过总资产的25%, 中芯仓位上限8%), a role's combined cap (卫星仓合计不超过35%),
a stop level (跌破95元止损) and a plan's price (回踩 30 元再加仓, 涨到 400 元减仓); with no
stock named, an industry's combined cap (银行股不超过40%, 白酒行业仓位最多三成: the industry
as the shipped security list spells it), the stocks' total (仓位不超过八成) and a cash floor
(现金至少留10%). A level is written 20%, 百分之二十 or 两成. Each is a number the user wrote,
so whether it is at risk is arithmetic on stored prices, not a guess; a clause that waives a
limit (不要求单票上限) or that the patterns cannot read yields nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pixiu_cli.market.securities import shipped_industries


def describe(kind: str, threshold: float, symbol: str, name: str | None = None) -> str:
    who = f"{symbol} {name}" if name else symbol
    return {
        "below": f"{who} 收盘跌破 {threshold:g} 元",
        "above": f"{who} 收盘突破 {threshold:g} 元",
        "change_pct": f"{who} 单日涨跌幅达到 {threshold:g}%",
        "drawdown_from_cost": f"{who} 较持仓成本回撤达到 {threshold:g}%",
    }[kind]


def describe_rule(rule) -> str:
    """A stored rule (domain.analytics.AlertRule) in words, as the alert tables show it."""
    return describe(rule.kind, rule.threshold, rule.symbol)


CAP = "cap"  # one position's weight ≤ limit (symbol None: every position)
ROLE_CAP = "role_cap"  # the combined weight of one role's positions ≤ limit
INDUSTRY_CAP = "industry_cap"  # the combined weight of the stocks of these industries ≤ limit
TOTAL_CAP = "total_cap"  # all the stocks together ≤ limit of total assets
CASH_MIN = "cash_min"  # the cash ≥ limit of total assets
STOP = "stop"  # the close stays above the level
PLAN_BELOW = "plan_below"  # the plan acts once the close falls to the level
PLAN_ABOVE = "plan_above"  # the plan acts once the close rises to the level

_NUM = r"(\d+(?:\.\d+)?)"
# 20% | 百分之二十 | 两成 (三成半 = 35%); 成 in 成本 / 成交 is no level
_LEVEL = (
    r"(?P<level>\d+(?:\.\d+)?\s*[%％]|百分之[零一二两三四五六七八九十]+|[一二两三四五六七八九\d]成半?(?![本交长功]))"
)
_CAP_WORDS = r"(?:不超过|不高于|不得超过|不要超过|不能超过|上限|最多|最高|≤|<=)"
_CAP_ANY = re.compile(
    r"(?:单只|单票|个股|每只|单一|任何一只|任意一只|任一只)[^，。；;,%\d]{0,10}?"
    + _CAP_WORDS
    + r"[^，。；;,%\d]{0,8}?"
    + _LEVEL
)
_CAP_ONE = re.compile(r"(?:仓位|持仓|权重)[^，。；;,%\d]{0,4}?(?:上限|不超过|不高于|最多)\s*" + _LEVEL)
_ROLE_CAP = re.compile(
    r"(核心仓|卫星仓)[^，。；;,%\d]{0,6}?(?:合计|总共|加起来)[^，。；;,%\d]{0,6}?(?:不超过|上限|最多)\s*" + _LEVEL
)
_CAP_AT = re.compile(_CAP_WORDS + r"[^，。；;,%\d]{0,8}?" + _LEVEL)
_CASH_MIN = (
    re.compile(r"现金[^，。；;,%\d]{0,6}?(?:至少|不少于|不低于|最少|最低|≥|>=)[^，。；;,%\d]{0,4}?" + _LEVEL),
    re.compile(r"(?:至少|最少|不少于)(?:保?留)?\s*" + _LEVEL + r"\s*的?现金"),
)
# a clause that waives or drops a limit states none
_WAIVED = re.compile(r"不要求|不设|不限(?!于)|无需|不需要|不用|不必|没有|取消")
# what follows an industry's name before the cap: 银行股仓位, 白酒行业合计, 券商和保险加起来
_INDUSTRY_TAIL = r"(?:股|行业|板块|类)?"
_INDUSTRY_JOIN = r"(?:和|与|及|、|加|\+)"
_INDUSTRY_AFTER = r"(?:的)?(?:总?仓位|持仓|权重|合计|总共|加起来|占比|比例)*\s*$"
# short forms people write for the list's industries (the list has 银行, 白酒, 证券 …)
INDUSTRY_FORMS = {
    "券商": ("证券",),
    "酿酒": ("白酒", "啤酒", "红黄酒"),
    "酒类": ("白酒", "啤酒", "红黄酒"),
    "地产": ("全国地产", "区域地产", "房产服务"),
    "房地产": ("全国地产", "区域地产", "房产服务"),
    "医药": ("化学制药", "生物制药", "中成药", "医药商业"),
    "芯片": ("半导体",),
    "钢铁": ("普钢", "特种钢", "钢加工"),
    "煤炭": ("煤炭开采",),
    "电力": ("火力发电", "水力发电", "新型电力"),
    "有色": ("铜", "铝", "铅锌", "小金属", "黄金"),
    "汽车": ("汽车整车", "汽车配件", "汽车服务"),
}
_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_STOP = (
    re.compile(r"(?:跌破|低于|跌到|跌至)\s*" + _NUM + r"\s*元?[^，。；;,\d]{0,6}?止损"),
    re.compile(r"止损(?:位|价|线)?\s*(?:在|设在|设为|为|是)?\s*" + _NUM + r"\s*元"),
)
_PLAN_BELOW = re.compile(r"(?:回踩|回落到|回落至|回调到|回调至|跌到|跌至|跌破|低于|降到)\s*" + _NUM + r"\s*元")
_PLAN_ABOVE = re.compile(r"(?:涨到|涨至|突破|站上|高于|升到|达到|到达)\s*" + _NUM + r"\s*元")
_ROLES = {"核心仓": "core", "卫星仓": "satellite"}


@dataclass(frozen=True)
class StatedRule:
    kind: str  # CAP | ROLE_CAP | INDUSTRY_CAP | TOTAL_CAP | CASH_MIN | STOP | PLAN_BELOW | PLAN_ABOVE
    symbol: str | None
    level: float  # a fraction for caps, yuan for prices
    role: str | None  # ROLE_CAP only: core | satellite
    text: str  # the clause the number was read from
    origin: str  # where the text is stored: note:N, persona:KEY
    industries: tuple[str, ...] = ()  # INDUSTRY_CAP only: the security list's industry names


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in re.split(r"[，。；;\n]", text) if c.strip()]


def _chinese_number(text: str) -> int | None:
    """二十 → 20, 三十五 → 35, 十五 → 15, 五 → 5 (up to 99: a share of a whole)."""
    tens, _, ones = text.partition("十")
    if "十" not in text:
        return _DIGITS.get(text) if len(text) == 1 else None
    if len(tens) > 1 or len(ones) > 1 or any(c not in _DIGITS for c in tens + ones):
        return None
    return (_DIGITS[tens] if tens else 1) * 10 + (_DIGITS[ones] if ones else 0)


def level_fraction(level: str) -> float | None:
    """A level as written (25%, 百分之二十, 两成, 三成半) as a fraction; None when it reads as no
    number."""
    level = level.replace(" ", "")
    if level.endswith(("%", "％")):
        return float(level[:-1]) / 100
    if level.startswith("百分之"):
        number = _chinese_number(level[3:])
        return None if number is None else number / 100
    tenths, half = level[0], level.endswith("半")
    number = int(tenths) if tenths.isdigit() else _DIGITS.get(tenths)
    return None if number is None else (number + 0.5 * half) / 10


@lru_cache(maxsize=1)
def _industry_terms() -> tuple[re.Pattern, frozenset[str]]:
    """The pattern of a cap's subject that ends with industries, and every term it knows."""
    names = frozenset(shipped_industries().values()) | frozenset(INDUSTRY_FORMS)
    # a one-character industry (铜, 铝) only with its 行业 / 板块 / 股
    terms = sorted((n for n in names if len(n) > 1), key=len, reverse=True)
    short = sorted(n for n in names if len(n) == 1)
    term = "|".join([*map(re.escape, terms), *(f"{re.escape(n)}(?=股|行业|板块)" for n in short)])
    one = f"(?:{term}){_INDUSTRY_TAIL}"
    return re.compile(f"(?P<names>{one}(?:{_INDUSTRY_JOIN}{one})*){_INDUSTRY_AFTER}"), names


def _industries(subject: str) -> tuple[str, ...]:
    """The industries a cap's subject ends with (银行股, 白酒行业仓位, 券商和保险合计), as the
    security list names them; () when it ends with anything else."""
    pattern, known = _industry_terms()
    found = next((m for start in range(len(subject)) if (m := pattern.match(subject, start))), None)
    if found is None:
        return ()
    out: list[str] = []
    for name in re.split(_INDUSTRY_JOIN, found.group("names")):
        bare = name if name in known else re.sub(_INDUSTRY_TAIL + "$", "", name)  # 综合类 is a name, 银行股 is not
        out += INDUSTRY_FORMS.get(bare, (bare,))
    return tuple(dict.fromkeys(out))


def _cap(kind: str, match: re.Match, clause: str, origin: str, **fields) -> list[StatedRule]:
    level = level_fraction(match.group("level"))
    if level is None:
        return []
    return [StatedRule(kind, fields.pop("symbol", None), level, fields.pop("role", None), clause, origin, **fields)]


def _caps(clause: str, symbol: str | None, origin: str) -> list[StatedRule]:
    if _WAIVED.search(clause):
        return []
    role = _ROLE_CAP.search(clause)
    if role:
        return _cap(ROLE_CAP, role, clause, origin, role=_ROLES[role.group(1)])
    whole = _CAP_ANY.search(clause)
    if whole:
        return _cap(CAP, whole, clause, origin)
    for pattern in _CASH_MIN:
        if cash := pattern.search(clause):
            return _cap(CASH_MIN, cash, clause, origin)
    at = _CAP_AT.search(clause)
    industries = _industries(clause[: at.start()]) if at else ()
    if industries:
        return _cap(INDUSTRY_CAP, at, clause, origin, industries=industries)
    one = _CAP_ONE.search(clause)
    if one and symbol:
        return _cap(CAP, one, clause, origin, symbol=symbol)
    if one:
        return _cap(TOTAL_CAP, one, clause, origin)
    return []


def _prices(clause: str, symbol: str | None, origin: str, is_plan: bool) -> list[StatedRule]:
    if not symbol:
        return []  # a price means nothing without the stock it is about
    for pattern in _STOP:
        stop = pattern.search(clause)
        if stop:
            return [StatedRule(STOP, symbol, float(stop.group(1)), None, clause, origin)]
    if not is_plan:
        return []
    below, above = _PLAN_BELOW.search(clause), _PLAN_ABOVE.search(clause)
    if below:
        return [StatedRule(PLAN_BELOW, symbol, float(below.group(1)), None, clause, origin)]
    if above:
        return [StatedRule(PLAN_ABOVE, symbol, float(above.group(1)), None, clause, origin)]
    return []


def stated_rules(text: str, symbol: str | None, origin: str, *, is_plan: bool = False) -> list[StatedRule]:
    """Every cap, stop and (for a plan) price stated in `text`, one per clause at most."""
    found = []
    for clause in _clauses(text):
        found += _caps(clause, symbol, origin) or _prices(clause, symbol, origin, is_plan)
    return found


def unique(rules: list[StatedRule]) -> list[StatedRule]:
    """One rule per (kind, stock, role, level): a cap written in the persona and again in a
    note is one cap."""
    seen, out = set(), []
    for rule in rules:
        key = (rule.kind, rule.symbol, rule.role, rule.industries, round(rule.level, 6))
        if key not in seen:
            seen.add(key)
            out.append(rule)
    return out
