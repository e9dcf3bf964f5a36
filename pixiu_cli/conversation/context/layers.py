"""Information layers (信息层次): how much weight an injected item deserves.

| layer    | what                              | how the model should use it          |
|----------|-----------------------------------|--------------------------------------|
| 事实     | news, policy, quotes, holdings    | record as is; the basis of analysis  |
| 逻辑工具 | strategy signals, backtests       | a decision aid, never the sole basis |
| 情绪观点 | opinions, comments, user views    | reference only; strip the emotion    |
| 混合     | industry reading, research        | separate the facts from the opinions |

`layer_for(kind, declared)` maps an item kind to its layer:

| kind (case-insensitive; ``-``/space = ``_``)                      | default   | declared honoured |
|-------------------------------------------------------------------|-----------|-------------------|
| holding, position, decision, trade, alert, quote, price           | 事实      | no                |
| news, 动态, announcement, 公告, policy, 政策, flash, 快讯          | 事实      | yes               |
| signal, fusion_signal, backtest, profile, backtest_profile, strategy, indicator | 逻辑工具 | no   |
| report, 报告, analysis, research, industry, 行业解读               | 混合      | yes               |
| user_note, note, view, plan, rule, opinion, comment, kol, social, 观点, 评论 | 情绪观点 | yes     |
| anything else                                                     | 混合      | yes               |

Kinds with a fixed layer ignore `declared`: a holding is a fact whatever a record says,
and a backtest stays a decision aid even if someone labels it 事实. Elsewhere a valid
`declared` wins (a news item marked 情绪观点 is a pundit's view, a report marked 事实 is a
plain data release). `declared` accepts a layer value (事实/逻辑工具/情绪观点/混合), their
long names (客观事实/混合信息), or English (fact, logic/tool/logic_tool,
opinion/sentiment, mixed); anything else is ignored.
"""

from __future__ import annotations

from enum import StrEnum


class Layer(StrEnum):
    FACT = "事实"
    LOGIC_TOOL = "逻辑工具"
    OPINION = "情绪观点"
    MIXED = "混合"


_FIXED: dict[str, Layer] = {
    **dict.fromkeys(("holding", "position", "decision", "trade", "alert", "quote", "price"), Layer.FACT),
    **dict.fromkeys(
        ("signal", "fusion_signal", "backtest", "profile", "backtest_profile", "strategy", "indicator"),
        Layer.LOGIC_TOOL,
    ),
}
_DEFAULTS: dict[str, Layer] = {
    **dict.fromkeys(("news", "动态", "announcement", "公告", "policy", "政策", "flash", "快讯"), Layer.FACT),
    **dict.fromkeys(("report", "报告", "analysis", "research", "industry", "行业解读"), Layer.MIXED),
    **dict.fromkeys(
        ("user_note", "note", "view", "plan", "rule", "opinion", "comment", "kol", "social", "观点", "评论"),
        Layer.OPINION,
    ),
}
_DECLARED: dict[str, Layer] = {
    **{layer.value: layer for layer in Layer},
    "客观事实": Layer.FACT,
    "混合信息": Layer.MIXED,
    "fact": Layer.FACT,
    "facts": Layer.FACT,
    "logic": Layer.LOGIC_TOOL,
    "tool": Layer.LOGIC_TOOL,
    "logic_tool": Layer.LOGIC_TOOL,
    "opinion": Layer.OPINION,
    "sentiment": Layer.OPINION,
    "mixed": Layer.MIXED,
}


def _key(value: str) -> str:
    return "_".join(value.strip().lower().replace("-", " ").split())


def parse_layer(value: str | None) -> Layer | None:
    """A layer from a stored label, or None when the label is missing or unknown."""
    if not value:
        return None
    return _DECLARED.get(_key(value))


def layer_for(kind: str, declared: str | None = None) -> Layer:
    """The layer of an item of `kind`, honouring `declared` where the kind allows it."""
    key = _key(kind or "")
    if key in _FIXED:
        return _FIXED[key]
    return parse_layer(declared) or _DEFAULTS.get(key, Layer.MIXED)
