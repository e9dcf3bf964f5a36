"""The offline reading model's daily brief: it restates the facts pixiu computed (the
request's fact section) as a short brief with a 结论 line, and says what it is. It reads
only the request, so its brief is as right as the facts it was given, and no more."""

from __future__ import annotations

from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.kernel.vocabulary import BRIEF_FACTS, CONCLUSION_MARK

NOTICE = "（离线评测模型：只复述本次请求中 pixiu 算出的事实，不做判断，不是真实模型）"
NO_FACTS = "本次请求中没有 pixiu 算出的简报事实，我不做猜测。"


def _sections(text: str) -> dict[str, list[str]]:
    """Heading (a line ending in ：) → its "- " items; other lines go under 头部."""
    if BRIEF_FACTS not in text:
        return {}
    sections: dict[str, list[str]] = {"头部": []}
    current = "头部"
    for raw in text.split(BRIEF_FACTS, 1)[1].splitlines():
        line = raw.strip()
        if line.startswith("- "):
            if line != "- 无":
                sections[current].append(line[2:])
        elif line.endswith("："):
            current = line
            sections[current] = []
        elif line:
            sections["头部"].append(line)
    return sections


def _find(sections: dict[str, list[str]], prefix: str) -> list[str]:
    return next((items for title, items in sections.items() if title.startswith(prefix)), [])


def write(question: str) -> ScriptedReply:
    sections = _sections(question)
    if not sections:
        return ScriptedReply(text=f"{NOTICE}\n{NO_FACTS}")
    portfolio = next((line for line in sections["头部"] if line.startswith("组合：")), "")
    # "截至 D 收盘（…）", or "截至：没有已存的行情…" when no holding has bars
    as_of = next((line for line in sections["头部"] if line.startswith("截至")), "")
    risks = [r for r in _find(sections, "纪律与计划风险") if r != "没有触发"]
    counts = {name: len(_find(sections, name)) for name in ("预警", "信号方向变化", "新闻与公告", "交易")}
    lines = [NOTICE, as_of, portfolio]
    lines += [f"需要留意：{r}" for r in risks] or ["没有触发你写下的仓位上限、止损位或计划价。"]
    lines.append("；".join(f"{name} {n} 条" for name, n in counts.items()) + "（详见上面的事实）。")
    head = as_of.removeprefix("截至：").split("（", 1)[0]
    summary = portfolio.removeprefix("组合：").split("；", 1)[0]
    verdict = f"{len(risks)} 条纪律或计划需要留意（{risks[0].split('（', 1)[0]}）" if risks else "没有触发的纪律或计划"
    said = "，".join(clause for clause in (head, summary) if clause)
    lines.append(f"{CONCLUSION_MARK}{said}；{verdict}。" if said else f"{CONCLUSION_MARK}{verdict}。")
    return ScriptedReply(text="\n".join(line for line in lines if line))
