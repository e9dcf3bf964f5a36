"""Send one message to every channel, each on its own: a channel that is down, slow or
refusing never keeps the message from the others. Each part is tried up to ATTEMPTS times
when the service says "later" (429, 5xx, its rate-limit code, a refused connection), waiting
what it asked for or a doubling backoff; a wait longer than MAX_WAIT, or than what is left
of the push's deadline, is given up at once. The channels are sent side by side, each within
the one deadline of the push ([push] deadline), so the slowest channel bounds the whole run.

Pushing what pixiu has stored: a brief (after it is written and stored, or again with
`--last`), a test message, and the alerts a sync found. Nothing is pushed that is not stored
first, so a failed push loses nothing; each channel's result is logged by channel name only."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from pixiu_cli.brief.push import channels
from pixiu_cli.brief.push.channels import AnswerTooLarge, Channel, Email, Message, Outcome, fail, later, plain
from pixiu_cli.brief.push.config import ChannelConfig, PushConfig
from pixiu_cli.brief.store import PushLog, StoredBrief
from pixiu_cli.conversation.handle import stored_turn
from pixiu_cli.kernel.clock import iso
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.safe_text import scrub

ATTEMPTS = 3
BACKOFF = 1.0  # seconds before the second attempt, doubled after
T = TypeVar("T")
MAX_WAIT = 60.0  # 钉钉 blocks a robot for 10 minutes after 20 messages a minute: not worth waiting for


@dataclass(frozen=True)
class Delivery:
    kind: str  # the channel (a key of push.config.CHANNELS)
    label: str  # its name for the user
    ok: bool
    parts: int  # how many messages the content was sent as (or was to be)
    shortened: bool  # the content was too long even for that many and its end was left out
    sent: int  # parts delivered
    attempts: int  # requests made
    reason: str = ""  # why it failed (scrubbed of every known secret)


def _once(channel: Channel, message: Message, part: str, index: int, total: int) -> Outcome:
    try:
        return channel.send(message, part, index, total)
    except TimeoutError:
        if channel.left() <= 0:
            return fail("推送总时限已到，没有完整应答（可能已送达，不再重试）")
        return fail(f"{channel.timeout:g} 秒内没有完整应答（可能已送达，不再重试）")
    except AnswerTooLarge as exc:
        return fail(str(exc))
    except ConnectionError as exc:
        return later(f"无法连接：{exc.strerror or exc}")
    except OSError as exc:
        return fail(f"无法连接：{exc.strerror or exc}")
    except Exception as exc:  # one channel's surprise must not cost the others their message
        return fail(f"{type(exc).__name__}：{exc}")


def _part(channel: Channel, message: Message, part: str, index: int, total: int, sleep) -> tuple[Outcome, int]:
    wait = BACKOFF
    for attempt in range(1, ATTEMPTS + 1):
        outcome = _once(channel, message, part, index, total)
        if outcome.ok or not outcome.retry or attempt == ATTEMPTS:
            return outcome, attempt
        pause = outcome.after if outcome.after is not None else wait
        if pause > MAX_WAIT:
            return fail(f"{outcome.reason}，服务要求等待 {pause:.0f} 秒，已放弃"), attempt
        if pause >= channel.left():
            return fail(f"{outcome.reason}，再等 {pause:g} 秒将超过推送总时限，已放弃"), attempt
        sleep(pause)
        wait *= 2
    raise AssertionError("unreachable")


def deliver_one(channel: Channel, message: Message, sleep=time.sleep) -> Delivery:
    message = message.inert()  # a phone, a mail client or a terminal shows it: nothing may act on them
    parts = channel.parts(message)
    total, attempts = len(parts.texts), 0
    for index, text in enumerate(parts.texts, 1):
        outcome, tries = _part(channel, message, text, index, total, sleep)
        attempts += tries
        if not outcome.ok:
            where = f"第 {index}/{total} 条" if total > 1 else ""
            retried = f"（已尝试 {tries} 次）" if tries > 1 else ""
            reason = scrub(f"{where}{outcome.reason}{retried}")
            return Delivery(channel.kind, channel.label, False, total, parts.shortened, index - 1, attempts, reason)
    return Delivery(channel.kind, channel.label, True, total, parts.shortened, total, attempts)


def channel_for(config: ChannelConfig, timeout: float, until: float = math.inf) -> Channel:
    if config.kind == "email":
        return Email(config, timeout, until)
    kinds = {
        "wecom": channels.WeCom,
        "feishu": channels.Feishu,
        "dingtalk": channels.DingTalk,
        "telegram": channels.Telegram,
        "webhook": channels.Webhook,
    }
    return kinds[config.kind](config, timeout, until)


def deadline_of(config: PushConfig) -> float:
    """The time.monotonic() by which a push that starts now ends."""
    return time.monotonic() + config.deadline


def side_by_side(send: Callable[[T], Delivery], items: Sequence[T]) -> list[Delivery]:
    """`send` of each item, each on its own thread, in the items' order."""
    if len(items) <= 1:
        return [send(item) for item in items]
    with ThreadPoolExecutor(max_workers=len(items), thread_name_prefix="push") as pool:
        return list(pool.map(send, items))


def deliver(
    message: Message, config: PushConfig, sleep: Callable[[float], None] = time.sleep, kinds: Sequence[str] = ()
) -> list[Delivery]:
    """`message` to every configured channel (only `kinds`, when given), in config order."""
    until = deadline_of(config)
    chosen = [c for c in config.channels if not kinds or c.kind in kinds]
    return side_by_side(lambda c: deliver_one(channel_for(c, config.timeout, until), message, sleep), chosen)


if TYPE_CHECKING:
    from pixiu_cli.brief.handle import Brief

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


def pushed_brief(reply: str, facts: str, as_of: str, report_id: int, conversation_id: int, turn_seq: int) -> Message:
    """A brief as it is pushed: the model's brief first (what a phone shows), then the facts
    pixiu computed, and where the brief's call can be inspected."""
    title = f"pixiu 每日简报 {as_of}"
    footer = f"结论已存为报告 report:{report_id}；对话 {conversation_id} 第 {turn_seq} 轮"
    markdown = "\n\n".join(p for p in (reply, "---", facts, f"*{footer}*") if p)
    text = "\n\n".join(p for p in (plain(reply), facts, footer) if p)
    return Message(title, text, markdown, as_of, "brief")


def brief_message(stored: Brief, brief: StoredBrief) -> Message:
    """A brief stored earlier (`--last`, the MCP read), as it was pushed when it was written:
    its reply and its facts read back from its turn."""
    turn = stored_turn(stored.db, brief.conversation_id, brief.turn_seq)
    if turn is None or not (turn.reply_text or "").strip():
        raise RequestError(f"简报 {brief.id} 的正文没有保存（对话 {brief.conversation_id} 第 {brief.turn_seq} 轮）")
    reply, facts = turn.reply_text.strip(), _facts_of(turn.user_text or "")
    return pushed_brief(reply, facts, brief.as_of, brief.report_id, brief.conversation_id, brief.turn_seq)


def last_brief(stored: Brief) -> StoredBrief:
    brief = stored.briefs.last()
    if brief is None:
        raise RequestError("还没有已存的简报：先运行 pixiu brief --push")
    return brief


def _log(log: PushLog, kind: str, ref: int, deliveries: Sequence[Delivery], at: str) -> None:
    for d in deliveries:
        log.record(kind, ref, d.kind, "sent" if d.ok else "failed", d.parts, d.reason, at)


def push_brief(
    stored: Brief, config: PushConfig, brief: StoredBrief, now: datetime, sleep: Callable[[float], None] = time.sleep
) -> list[Delivery]:
    deliveries = deliver(brief_message(stored, brief), require_channels(config), sleep)
    _log(stored.push_log, "brief", brief.id, deliveries, iso(now))
    return deliveries


def push_written(
    stored: Brief, config: PushConfig, message: Message, brief_id: int, now: datetime, sleep=time.sleep
) -> list[Delivery]:
    """The brief just written, pushed as its use case holds it (daily_brief.py)."""
    deliveries = deliver(message, require_channels(config), sleep)
    _log(stored.push_log, "brief", brief_id, deliveries, iso(now))
    return deliveries


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
    stored: Brief, config: PushConfig, after: int, now: datetime, sleep: Callable[[float], None] = time.sleep
) -> list[Delivery]:
    """The alerts found since `after`, once to each channel: each is claimed for a channel
    before it is sent there, so no later sync (nor one running at the same time) sends it again."""
    if config is None or not (config.alerts and config.channels):
        return []
    log, at, until = stored.push_log, iso(now), deadline_of(config)
    alerts = log.alerts_after(after)
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
