"""Pushing what pixiu has stored: a brief (after it is written and stored, or again with
`--last`), a test message, and the alerts a sync found. Nothing is pushed that is not stored
first, so a failed push loses nothing; each channel's result is logged by channel name only."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pixiu_cli.brief.push.config import PushConfig
from pixiu_cli.brief.push.deliver import Delivery, channel_for, deadline_of, deliver, deliver_one, side_by_side
from pixiu_cli.brief.push.message import Message, plain
from pixiu_cli.brief.store import StoredBrief
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.store import iso
from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.kernel.refusal import RequestError

if TYPE_CHECKING:
    from sqlite_utils import Database

NO_CHANNELS = (
    "没有配置推送渠道：在 config.toml 中加一个 [push.wecom] / [push.feishu] / [push.dingtalk] / "
    "[push.telegram] / [push.email] / [push.webhook] 表（或 PIXIU_PUSH_… 环境变量），再用 pixiu push test 检查"
)


def require_channels(config: PushConfig | None) -> PushConfig:
    if config is None or not config.channels:
        raise RequestError(NO_CHANNELS)
    return config


def _facts_of(user_text: str) -> str:
    """The fact section of a brief's question: what follows the instruction's paragraph."""
    _, _, facts = user_text.partition("\n\n")
    return facts.strip()


def brief_message(db: Database, brief: StoredBrief) -> Message:
    """The stored brief as it is pushed: the model's brief first (what a phone shows), then
    the facts pixiu computed, and where the brief's call can be inspected."""
    turn = ConversationStore(db).turn_by_seq(brief.conversation_id, brief.turn_seq)
    if turn is None or not (turn.reply_text or "").strip():
        raise RequestError(f"简报 {brief.id} 的正文没有保存（对话 {brief.conversation_id} 第 {brief.turn_seq} 轮）")
    reply, facts = turn.reply_text.strip(), _facts_of(turn.user_text or "")
    title = f"pixiu 每日简报 {brief.as_of}"
    footer = f"结论已存为报告 report:{brief.report_id}；对话 {brief.conversation_id} 第 {brief.turn_seq} 轮"
    markdown = "\n\n".join(p for p in (reply, "---", facts, f"*{footer}*") if p)
    text = "\n\n".join(p for p in (plain(reply), facts, footer) if p)
    return Message(title, text, markdown, brief.as_of, "brief")


def last_brief(db: Database) -> StoredBrief:
    brief = stores_of(db).briefs.last()
    if brief is None:
        raise RequestError("还没有已存的简报：先运行 pixiu brief --push")
    return brief


def brief_of_report(db: Database, report_id: int) -> StoredBrief:
    brief = stores_of(db).briefs.of_report(report_id)
    if brief is None:
        raise RequestError(f"找不到报告 report:{report_id} 的简报")
    return brief


def _log(db: Database, kind: str, ref: int, deliveries: Sequence[Delivery], at: str) -> None:
    log = stores_of(db).push_log
    for d in deliveries:
        log.record(kind, ref, d.kind, "sent" if d.ok else "failed", d.parts, d.reason, at)


def push_brief(
    db: Database, config: PushConfig, brief: StoredBrief, now: datetime, sleep: Callable[[float], None] = time.sleep
) -> list[Delivery]:
    deliveries = deliver(brief_message(db, brief), require_channels(config), sleep)
    _log(db, "brief", brief.id, deliveries, iso(now))
    return deliveries


def push_report(
    db: Database, config: PushConfig, report_id: int | None, now: datetime, sleep: Callable[[float], None] = time.sleep
) -> list[Delivery]:
    """After a brief was written: push the brief stored with report `report_id` (nothing when
    the brief did not complete, so there is nothing stored to send)."""
    if report_id is None:
        return []
    return push_brief(db, config, brief_of_report(db, report_id), now, sleep)


def probe_message(now: datetime) -> Message:
    stamp = now.strftime("%Y-%m-%d %H:%M")
    text = f"这是一条测试消息（{stamp}，北京时间）：收到它说明 pixiu 的每日简报和预警能推送到这里。"
    return Message("pixiu 推送测试", text, f"**{text}**", None, "test")


def push_test(config: PushConfig, now: datetime, sleep: Callable[[float], None] = time.sleep) -> list[Delivery]:
    return deliver(probe_message(now), require_channels(config), sleep)


def alerts_message(alerts) -> Message:
    lines = [f"- {a.message}" for a in alerts]
    dates = sorted({a.bar_date for a in alerts if a.bar_date})
    title = f"pixiu 预警 {dates[-1] if dates else ''}".strip() + (f"（{len(alerts)} 条）" if len(alerts) > 1 else "")
    body = "\n".join(lines)
    return Message(title, body, body, dates[-1] if dates else None, "alert")


def push_new_alerts(
    db: Database, config: PushConfig, after: int, now: datetime, sleep: Callable[[float], None] = time.sleep
) -> list[Delivery]:
    """The alerts found since `after`, once to each channel: each is claimed for a channel
    before it is sent there, so no later sync (nor one running at the same time) sends it again."""
    if config is None or not (config.alerts and config.channels):
        return []
    alerts = stores_of(db).push_log.alerts_after(after)
    log, at, until = stores_of(db).push_log, iso(now), deadline_of(config)
    claims = []  # claimed here, on the database's thread; sent side by side
    for channel in config.channels:
        claimed = log.claim_alerts([a.id for a in alerts], channel.kind, at)
        if claimed:
            claims.append((channel, claimed))

    def send(claim) -> Delivery:
        channel, claimed = claim
        message = alerts_message([a for a in alerts if a.id in claimed])
        return deliver_one(channel_for(channel, config.timeout, until), message, sleep)

    out = side_by_side(send, claims)
    for (channel, claimed), delivery in zip(claims, out, strict=True):
        log.settle_alerts(claimed, channel.kind, "sent" if delivery.ok else "failed", delivery.reason, iso(now))
    return out
