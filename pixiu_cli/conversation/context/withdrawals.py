"""`## 已撤回或更正`: what the model was shown earlier in this conversation and is no longer
true. Under the keep / delta layout earlier `[上下文信息]` blocks and tool results stay in
the history as sent, so a note the user forgot (or a trade undone, a note edited) would
still be in front of the model; the next block says so explicitly instead.

Only memories this conversation's history actually showed are listed (block items carry
`（note:12）` / `（decision:5）`, tool results carry typed ids `n12` / `d5`): a withdrawal the
model never saw changes nothing for it, and listing every recent one would cost tokens on
every turn. The section is never trimmed by the budget; it is bounded instead."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from pixiu_cli.conversation.context.block import BlockItem, Section, is_context_message
from pixiu_cli.conversation.context.quoting import quote_data
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.memory.store import Withdrawal

KEY = "withdrawn"
TITLE = "已撤回或更正"
MAX_ITEMS = 20
MAX_TEXT = 120
_BLOCK_ITEM = re.compile(r"（(note|decision):(\d+)）$", re.MULTILINE)
_TYPED = re.compile(r"([nd])(\d+)")
_SAID_REPLACED = re.compile(r"#(n\d+) 已被新计划 #n\d+ 替换")


def _walk(value) -> Iterable[dict]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _walk(inner)


def shown_memories(history: list[dict]) -> dict[str, str]:
    """Typed id → how it was last shown (a block line or a tool result object)."""
    seen: dict[str, str] = {}
    for message in history:
        content = message.get("content")
        if not isinstance(content, str):
            continue
        if is_context_message(message):
            if "（note:" not in content and "（decision:" not in content:
                continue
            for match in _BLOCK_ITEM.finditer(content):  # one pass in C over a block of hundreds of lines
                start = content.rfind("\n", 0, match.start()) + 1
                seen[("n" if match.group(1) == "note" else "d") + match.group(2)] = content[start : match.end()]
        elif message.get("role") == "tool":
            try:
                body = json.loads(content)
            except ValueError:
                continue
            for obj in _walk(body):
                for field in ("id", "decision_id"):
                    ref = obj.get(field)
                    if isinstance(ref, str) and _TYPED.fullmatch(ref):
                        seen[ref] = json.dumps(obj, ensure_ascii=False)
    return seen


def said_replaced(history: list[dict]) -> frozenset[str]:
    """The plans an earlier block told the model were replaced (`#n11 已被新计划 #n12 替换`)."""
    found = set()
    for message in history:
        content = message.get("content")
        if isinstance(content, str) and is_context_message(message) and "已被新计划" in content:
            found.update(_SAID_REPLACED.findall(content))
    return frozenset(found)


def _short(text: str) -> str:
    return quote_data(text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…")


def _item(w: Withdrawal) -> BlockItem:
    old = w.ref.replace("n", "note:", 1) if w.ref.startswith("n") else w.ref.replace("d", "decision:", 1)
    if w.action == "deleted":
        text = f"#{w.ref} 已删除：上文（{old}）{_short(w.old_text or '')} 作废，不再作为依据"
    elif w.action == "replaced":
        text = f"#{w.ref} 已被新计划 #{w.new_text} 替换：上文（{old}）{_short(w.old_text or '')} 不再有效"
    elif w.action == "reinstated":
        text = f"#{w.ref} 恢复有效：替换它的计划已被用户撤回，上文说它不再有效的话作废；{_short(w.old_text or '')} 重新作为依据"
    elif w.action == "edited":
        text = f"#{w.ref} 已更正为 {_short(w.new_text or '')}：上文（{old}）的旧内容作废"
    else:
        text = f"#{w.ref} 已撤销：上文（{old}）{_short(w.old_text or '')} 这笔交易记录已撤销，不再作为依据（持仓以本次为准）"
    return BlockItem(text)


def withdrawn_section(domain: InvestorStore, history: list[dict]) -> Section | None:
    seen = shown_memories(history)
    if not seen:
        return None
    notes = {int(r[1:]) for r in seen if r.startswith("n")}
    decisions = {int(r[1:]) for r in seen if r.startswith("d")}
    found = stores_of(domain.db).memory.withdrawals(notes, decisions, seen, said_replaced(history))
    if not found:
        return None
    items = tuple(_item(w) for w in found[-MAX_ITEMS:])
    return Section(
        KEY,
        TITLE,
        items,
        100,
        trimmable=False,
        note="用户已删除、撤销、改写或恢复下列记忆：以此为准，覆盖上文更早的 [上下文信息] 和工具结果",
    )
