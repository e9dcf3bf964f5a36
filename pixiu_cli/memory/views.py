"""What `pixiu alert …` and `/alert …` show: ONE table of the rules, the same columns on both
surfaces, and the confirmations (each naming the command that undoes it on that surface).

What `pixiu alias` and `/alias` show: the aliases table and the confirmations.

The lines that confirm a change to the investor's memory made from a command (`/forget`,
`/memory pin|unpin|replace`, `pixiu memory replace`): what was done, and how to undo it.
The services return what happened (a Forgotten, a Pinned, a Replacement, an UndoneTrade).
A note or trade written by the model's tools is confirmed in services/notes.py and
services/trades.py: that line is made in the turn, below views/.

What `/memory`, `pixiu memory …`, `/remember` and `/forget` show: one memory table for
both surfaces, and the confirmations of each change.

What `pixiu watch …` and `/watch …` show."""

from __future__ import annotations

from pixiu_cli.account.model import UndoneTrade
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.vocabulary import AUTHOR_NAMES, MEMORY_KIND_NAMES
from pixiu_cli.market.analytics.rules import describe_rule
from pixiu_cli.memory.model import note_ref, trade_text
from pixiu_cli.memory.notes import Pinned, Replacement, accept_notice, note_notice, plans_text
from pixiu_cli.memory.store import Forgotten

RULE_COLUMNS = ["编号", "条件", "冷却", "来源", "已检查到", "上次触发"]


def rule_rows(rules) -> list[list[str]]:

    return [
        [
            f"a{r.id}",
            describe_rule(r),
            f"{r.cooldown_days} 日",
            r.source,
            r.checked_through or "—",
            r.last_fired_on or "—",
        ]
        for r in rules
    ]


def show_rules(renderer: Renderer, rules, spell) -> None:
    if not rules:
        renderer.line(f"没有预警规则：{spell('alert add')} CODE --below P")
        return
    renderer.table("预警规则", RULE_COLUMNS, rule_rows(rules))


def rules_record(rules) -> list[dict]:
    return [{"id": f"a{r.id}", **{k: v for k, v in r.__dict__.items() if k != "id"}} for r in rules]


def show_added(renderer: Renderer, added, spell) -> None:
    renderer.info(f"已设预警 {added.ref}：{added.text}（撤销：{spell('alert remove')} {added.ref}）")


def show_removed(renderer: Renderer, rule_id: int, spell=None) -> None:
    renderer.info(f"已删除预警 a{rule_id}")


def show_new_alerts(renderer: Renderer, fired) -> None:
    """Alerts fired by imports or syncs since the REPL last showed them."""
    for alert in fired:
        renderer.info(f"新预警 · {alert.message}")


_SOURCES = {"user": "用户", "shipped": "内置昵称"}


def alias_rows(rows) -> list[list[str]]:
    return [[r.alias, r.symbol, r.name or "—", _SOURCES.get(r.source, r.source)] for r in rows]


def show_alias(renderer: Renderer, outcome, spell=None) -> None:
    if outcome.action == "list":
        renderer.table("股票别名", ["别名", "代码", "名称", "来源"], alias_rows(outcome.rows))
    elif outcome.action == "remove":
        renderer.info(f"已删除别名 {outcome.alias}")
    else:
        row = outcome.rows[0]
        renderer.info(f"已设置别名：{row.alias} → {row.symbol}{' ' + row.name if row.name else ''}")


def alias_record(outcome) -> list[dict] | None:
    return [r.__dict__ for r in outcome.rows] if outcome.action == "list" else None


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


MEMORY_COLUMNS = ["ID", "类型", "标的", "日期", "作者", "注入次数", "内容"]


def _kind_cell(e) -> str:
    name = MEMORY_KIND_NAMES.get(e.kind, e.kind)
    if e.replaced_by:
        return f"{name}（已被 n{e.replaced_by} 替换）"
    if e.replace_offered_by:
        return f"{name}（待确认由 n{e.replace_offered_by} 替换）"
    return f"{name}·置顶" if e.pinned else name


def memory_rows(entries) -> list[list[str]]:
    return [
        [
            e.ref,
            _kind_cell(e),
            e.symbol or "—",
            e.created_at[:10],
            AUTHOR_NAMES.get(e.author, e.author),
            str(e.inject_count),
            e.text,
        ]
        for e in entries
    ]


def show_memories(renderer: Renderer, entries, spell) -> None:
    if not entries:
        renderer.info(f"没有找到记忆。用 {spell('remember')} 文本 手动添加。")
        return
    title = f"记忆（{len(entries)} 条，{spell('forget')} ID 撤销或删除）"
    renderer.table(title, MEMORY_COLUMNS, memory_rows(entries))


def memories_record(entries) -> list[dict]:
    keys = ("ref", "kind", "symbol", "created_at", "author", "source", "text", "pinned")
    return [{k: getattr(e, k) for k in keys} for e in entries]


def show_note(renderer: Renderer, write, spell=None) -> None:

    renderer.info(note_notice(write))


def show_accepted(renderer: Renderer, write, spell=None) -> None:
    """A note taken as the user's, or the trade or alert a proposal made (its own line)."""

    renderer.info(write.notice() if hasattr(write, "notice") else accept_notice(write))


def show_replaced(renderer: Renderer, done, spell=None) -> None:

    renderer.info(replacement_notice(done))


def show_pinned(renderer: Renderer, pinned, spell=None) -> None:

    renderer.info(pin_notice(pinned))


def show_edited(renderer: Renderer, edited, spell=None) -> None:
    renderer.info(f"已修改 #{edited.ref}：{edited.text}")


def show_forgotten(renderer: Renderer, forgetting, spell=None) -> None:
    if forgetting.kind == "alert":
        renderer.info(f"已撤销预警 {forgetting.ref}")
    elif forgetting.kind == "trade":
        renderer.info(undo_notice(forgetting.ref, forgetting.done))
    else:
        renderer.info(forget_notice(forgetting.ref, forgetting.done))


def show_watchlist(renderer: Renderer, items, spell) -> None:
    if not items:
        renderer.line(f"自选股为空：{spell('watch add')} CODE")
        return
    renderer.table("自选股", ["代码", "名称", "加入时间"], [[w.symbol, w.name or "—", w.added_at] for w in items])


def watchlist_record(items) -> list[dict]:
    return [{"symbol": w.symbol, "name": w.name, "added_at": w.added_at} for w in items]


def show_watched(renderer: Renderer, change, spell=None) -> None:
    symbol, added = change
    renderer.info(f"已加入自选：{symbol}" if added else f"{symbol} 已在自选中")


def show_unwatched(renderer: Renderer, symbol: str, spell=None) -> None:
    renderer.info(f"已移出自选：{symbol}")
