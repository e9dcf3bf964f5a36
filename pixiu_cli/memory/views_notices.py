"""The lines that confirm a change to the investor's memory made from a command (`/forget`,
`/memory pin|unpin|replace`, `pixiu memory replace`): what was done, and how to undo it.
The services return what happened (a Forgotten, a Pinned, a Replacement, an UndoneTrade).
A note or trade written by the model's tools is confirmed in services/notes.py and
services/trades.py: that line is made in the turn, below views/."""

from __future__ import annotations

from pixiu_cli.account.store_reported import UndoneTrade
from pixiu_cli.memory.notes import Pinned, Replacement, plans_text
from pixiu_cli.memory.store import Forgotten, note_ref, trade_text


def replacement_notice(done: Replacement) -> str:
    return f"已用 #{done.ref}「{done.text}」替换旧计划 {plans_text(done.replaced)}，旧计划不再注入（/forget {done.ref} 撤销，旧计划恢复）"


def forget_notice(ref: str, forgotten: Forgotten) -> str:
    """The line /forget shows for a note (a merge undone, or the note deleted)."""
    if forgotten.action == "unmerged":
        return f"已撤销合并 #{ref}：恢复为「{forgotten.restored_text}」（再次 /forget {ref} 删除这条记忆）"
    back = "、".join(f"#{note_ref(i)}" for i in forgotten.reinstated)
    return f"已删除 #{ref}：{forgotten.event.text}" + (f"；旧计划 {back} 恢复有效" if back else "")


def pin_notice(p: Pinned) -> str:
    if p.pinned:
        return f"已置顶 #{p.ref}：{p.text}（不受天数窗口限制，每轮都注入；/memory unpin {p.ref} 取消）"
    return f"已取消置顶 #{p.ref}：{p.text}"


def undo_notice(ref: str, undone: UndoneTrade) -> str:
    d = undone.decision
    what = trade_text(d.side, d.symbol, d.quantity, d.price, None)
    held = undone.held
    if not undone.holding_changed:
        after = "持仓未改动（这条是导入的记录）"
    elif held is None or held.shares <= 0:
        after = f"{d.symbol} 已无持仓"
    else:
        after = f"{d.symbol} {held.line('持仓恢复为')}"
    return f"已撤销 #{ref}：{what}；{after}"


def change_question(proposal) -> str:
    """The REPL's y/N on a change the model proposed (services/proposals.py), its arguments shown."""
    a = proposal.arguments
    if proposal.change == "trade":
        reason = f"，理由：{a['reason']}" if a.get("reason") else ""
        return f"模型提议 #{proposal.ref}：{proposal.event.text}{reason}。记录这笔交易？"
    return f"模型提议 #{proposal.ref}：{proposal.event.text}。设置这条预警？"


def show_change_left(renderer, ref: str) -> None:
    renderer.dim(f"没有记录。提议 #{ref} 留在 /memory 里：之后可用 /memory accept {ref} 确认，/forget {ref} 删除")
