"""Send one message to every channel, each on its own: a channel that is down, slow or
refusing never keeps the message from the others. Each part is tried up to ATTEMPTS times
when the service says "later" (429, 5xx, its rate-limit code, a refused connection), waiting
what it asked for or a doubling backoff; a wait longer than MAX_WAIT, or than what is left
of the push's deadline, is given up at once. The channels are sent side by side, each within
the one deadline of the push ([push] deadline), so the slowest channel bounds the whole run."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from pixiu_cli.brief.push import channels
from pixiu_cli.brief.push.channels import Channel
from pixiu_cli.brief.push.config import ChannelConfig, PushConfig
from pixiu_cli.brief.push.http import AnswerTooLarge, Outcome, fail, later
from pixiu_cli.brief.push.message import Message
from pixiu_cli.kernel.redact import scrub

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
        from pixiu_cli.brief.push.email import Email  # smtplib and ssl only when a mail is sent

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
