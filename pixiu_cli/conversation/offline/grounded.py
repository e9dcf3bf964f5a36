"""A "reading model" for answer evals: it answers a question only from the facts it can read
in the request's [上下文信息] blocks (and tool results), the way an attentive model would,
and says so when the facts are not there.

It exists so that `pixiu eval --live` can be run offline and an ablation can be shown to
change the result: with the profiles in its request it names the holding with the highest
Sharpe; without them it cannot. It is not a language model and proves nothing about one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pixiu_cli.conversation.llm.template import SYSTEM_ROLES, content_text
from pixiu_cli.conversation.offline import script as brief_writer
from pixiu_cli.conversation.offline.script import ScriptedReply, planned_tool_calls
from pixiu_cli.kernel.vocabulary import BRIEF_OPEN, CONTEXT_OPEN

NOTICE = "（离线评测模型：只根据本次请求里的资料作答，不是真实模型）"
NOTHING = "本次请求中没有与这个问题相关的资料，我不做猜测。"

_SECTION = re.compile(r"^##\s+(.+?)\s*$")
_CODE = re.compile(r"(?<![0-9])([0-9]{6})(?![0-9])")
_NAME_AFTER_CODE = re.compile(r"([0-9]{6})\s+([^\s（(·：:「」，,]+)")
_SHORT_NAMES = re.compile(r"（简称：([^）]+)）")
_SHARES = re.compile(r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*股")
_COST = re.compile(r"成本\s*([0-9][0-9,]*(?:\.[0-9]+)?)")
_QUOTED = re.compile(r"「([^「」]*)」")

# metric → (label pattern in a profile line, question words, unit)
METRICS: dict[str, tuple[re.Pattern, tuple[str, ...], str]] = {
    "sharpe": (re.compile(r"夏普\s*(-?[0-9.]+)"), ("夏普", "sharpe"), ""),
    "annual_return": (re.compile(r"年化\s*(-?[0-9.]+)%"), ("年化", "收益率", "收益最"), "%"),
    "max_drawdown": (re.compile(r"最大回撤\s*(-?[0-9.]+)%"), ("回撤", "抗跌"), "%"),
    "win_rate": (re.compile(r"胜率\s*(-?[0-9.]+)%"), ("胜率",), "%"),
}
_HIGH = ("最高", "最大", "最好", "最强", "最多", "哪只高")
_LOW = ("最低", "最小", "最少", "最差", "最弱", "最浅", "最抗跌")
LABELS = {"sharpe": "夏普", "annual_return": "年化收益", "max_drawdown": "最大回撤", "win_rate": "胜率"}

_TOPICS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("纪律", "原则", "规则", "计划", "观点", "说过", "打算"), ("用户纪律", "用户计划")),
    (("操作", "决策", "交易", "买入记录", "卖出记录", "最近买", "最近卖", "做过"), ("近期操作决策",)),
    (("预警", "提醒", "警报", "异动", "待办"), ("待办预警",)),
    (("报告", "周报", "点评", "研报"), ("近期报告结论",)),
    (("画像", "人设", "风险偏好", "承受", "投资期限"), ("投资者画像",)),
)


@dataclass
class Facts:
    sections: dict[str, list[str]] = field(default_factory=dict)  # title → item lines (latest block wins)
    names: dict[str, set[str]] = field(default_factory=dict)  # code → names and short names seen

    def lines(self, title_prefix: str) -> list[str]:
        return [line for title, lines in self.sections.items() if title.startswith(title_prefix) for line in lines]

    def display(self, code: str) -> str:
        names = sorted(self.names.get(code, ()), key=len, reverse=True)
        return f"{names[0]}（{code}）" if names else code


def is_context_block(message: Mapping[str, Any]) -> bool:
    """A user message that carries a [上下文信息] block (leading blank space tolerated)."""
    return message.get("role") == "user" and content_text(message.get("content")).lstrip().startswith(CONTEXT_OPEN)


def read_facts(blocks: list[str]) -> Facts:
    facts = Facts()
    for block in blocks:
        title = None
        for raw in block.splitlines():
            line = raw.strip()
            heading = _SECTION.match(line)
            if heading:
                title = heading.group(1)
                facts.sections[title] = []
                continue
            if title is None or not line.startswith("-"):
                continue
            facts.sections[title].append(line)
            for code, name in _NAME_AFTER_CODE.findall(line):
                facts.names.setdefault(code, set()).add(name)
            for shorts in _SHORT_NAMES.findall(line):
                code = _CODE.search(line)
                if code:
                    facts.names.setdefault(code.group(1), set()).update(s.strip("「」") for s in shorts.split("、"))
    return facts


def _profiles(facts: Facts) -> dict[str, str]:
    """code → the fullest line carrying its backtest figures: the portfolio overview first,
    then per-symbol sections, then holdings lines (which may carry headline figures only)."""
    overview = facts.lines("持仓画像概览")
    others = [line for title, lines in facts.sections.items() if not title.startswith("持仓") for line in lines]
    holdings = [line for line in facts.lines("持仓") if line not in overview]
    found: dict[str, str] = {}
    for line in [*overview, *others, *holdings]:
        code = _CODE.search(line)
        if code and code.group(1) not in found and any(p.search(line) for p, _, _ in METRICS.values()):
            found[code.group(1)] = line
    return found


def _value(line: str, metric: str) -> float | None:
    match = METRICS[metric][0].search(line)
    return float(match.group(1)) if match else None


def _format(metric: str, value: float) -> str:
    return f"{value:.2f}" if metric == "sharpe" else f"{value:.1f}%"


def _mentioned(question: str, facts: Facts) -> list[str]:
    codes = [c for c in _CODE.findall(question) if c in facts.names]
    for code, names in facts.names.items():
        if code not in codes and any(len(n) >= 2 and n in question for n in names):
            codes.append(code)
    return codes


def _superlative(question: str, facts: Facts) -> list[str]:
    lowered = question.lower()
    wanted = [m for m, (_, words, _) in METRICS.items() if any(w in lowered for w in words)]
    plain = question.replace("最大回撤", "回撤")  # the metric's name is not a superlative
    high, low = any(w in plain for w in _HIGH), any(w in plain for w in _LOW)
    if not wanted or not (high or low):
        return []
    metric = wanted[0]
    profiles = _profiles(facts)
    scored = [(v, code) for code, line in profiles.items() if (v := _value(line, metric)) is not None]
    if not scored:
        return [f"本次请求中没有持仓的回测画像数据，无法比较{LABELS[metric]}。"]
    if metric == "max_drawdown":  # "回撤最大" is the deepest (most negative) drawdown
        value, code = min(scored) if high else max(scored)
        which = "最深" if high else "最浅"
    else:
        value, code = max(scored) if high else min(scored)
        which = "最高" if high else "最低"
    return [f"{LABELS[metric]}{which}的是 {facts.display(code)}：{_format(metric, value)}。"]


def _about(code: str, facts: Facts) -> list[str]:
    out: list[str] = []
    profile = _profiles(facts).get(code)
    if profile:
        figures = "，".join(f"{LABELS[m]} {_format(m, v)}" for m in METRICS if (v := _value(profile, m)) is not None)
        out.append(f"{facts.display(code)} 的回测画像：{figures}。")
        if "已过期" in profile:
            out.append("注意：这份回测画像已过期，数据可能不是最新的。")
    for line in facts.lines("持仓"):
        if code in line and "股" in line and "回测画像" not in line:
            shares, cost = _SHARES.search(line), _COST.search(line)
            if shares or cost:
                out.append(
                    f"你持有 {facts.display(code)} {shares.group(1) if shares else '?'} 股，"
                    f"成本 {cost.group(1) if cost else '?'}。"
                )
            break
    for title, lines in facts.sections.items():
        if title.startswith(("持仓", "用户观点")):
            continue
        out += [f"资料：{line.lstrip('- ')}" for line in lines if code in line and "回测画像" not in line][:3]
    return out


def _topics(question: str, facts: Facts) -> list[str]:
    out: list[str] = []
    for words, titles in _TOPICS:
        if any(w in question for w in words):
            for title in titles:
                out += [f"资料：{line.lstrip('- ')}" for line in facts.lines(title)]
    if any(w in question for w in ("过期", "最新", "新鲜", "旧", "过时")):
        stale = [code for code, line in _profiles(facts).items() if "已过期" in line]
        out += [f"{facts.display(code)} 的回测画像已过期。" for code in stale] or ["请求中的回测画像都在有效期内。"]
    return out


def _split(request: Mapping[str, Any]) -> tuple[str, list[str], list[str]]:
    """The question (last plain user message), every context block in order, tool results after it."""
    messages = [
        m for m in request.get("messages") or [] if isinstance(m, Mapping) and m.get("role") not in SYSTEM_ROLES
    ]
    blocks = [content_text(m.get("content")) for m in messages if is_context_block(m)]
    last_user = max(
        (i for i, m in enumerate(messages) if m.get("role") == "user" and not is_context_block(m)), default=-1
    )
    question = content_text(messages[last_user].get("content")) if last_user >= 0 else ""
    tools = [content_text(m.get("content")) for m in messages[last_user + 1 :] if m.get("role") == "tool"]
    return question, blocks, tools


def respond(request: Mapping[str, Any]) -> ScriptedReply:
    question, blocks, tool_results = _split(request)
    if question.startswith(BRIEF_OPEN):
        return brief_writer.write(question)
    available = {
        str((t.get("function") or {}).get("name", "")) for t in request.get("tools") or [] if isinstance(t, Mapping)
    }
    if not tool_results and question.strip():
        planned = planned_tool_calls(question, "\n".join(blocks[-1:]), available)
        if planned:
            return ScriptedReply(tool_calls=planned)
    facts = read_facts(blocks)
    lines = [*(f"工具结果：{r[:200]}" for r in tool_results), *_superlative(question, facts)]
    for code in _mentioned(question, facts):
        lines += _about(code, facts)
    lines += _topics(question, facts)
    body = "\n".join(dict.fromkeys(lines)) or NOTHING
    return ScriptedReply(text=f"{NOTICE}\n{body}")
