"""Budget priority by what the question asked. A question about the account (我的持仓怎么样)
names the holdings lines and the total: they are kept whole before anything else the block
can lose, then the scene; the generic sections and the profiles are cut first (the profiles
largest positions first, as they are ranked). When the full holdings lines cannot all fit,
each holding gets one compact line (the section says so) rather than any being dropped; the
account line opens the list either way. Only when even the compact lines cannot fit (hundreds
of holdings) do the sections keep their usual priorities, the largest positions first and the
rest summed up in one line."""

from __future__ import annotations

from dataclasses import replace

from pixiu_cli.context.block import Section, assemble

HOLDINGS = "holdings"
# Above every section but the user's own rules, plans and alerts (96–98), which any advice
# must be checked against and which are a few lines.
ASKED_PRIORITY = 95
# The scene comes right after what was asked: above the summary, the profiles, the reports.
ASKED_SCENE_PRIORITY = 80


def asked_first(sections: list[Section], budget: int) -> list[Section]:
    """The sections with the holdings raised to be kept whole within `budget`, in full or
    else compact; unchanged when neither form fits whole."""
    holdings = next((s for s in sections if s.key == HOLDINGS), None)
    if holdings is None:
        return sections
    for form in (holdings, holdings.compact):
        if form is None:
            continue
        raised = [_raised(form if s is holdings else s) for s in sections]
        if HOLDINGS not in assemble(raised, budget).omitted:
            return raised
    return sections


def _raised(section: Section) -> Section:
    if section.key == HOLDINGS:
        return replace(section, priority=ASKED_PRIORITY)
    if section.key == "scene":
        return replace(section, priority=ASKED_SCENE_PRIORITY)
    return section
