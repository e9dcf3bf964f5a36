"""Send one message to every channel, each on its own: a channel that is down, slow or
refusing never keeps the message from the others. Each part is tried up to ATTEMPTS times
when the service says "later" (429, 5xx, its rate-limit code, a refused connection), waiting
what it asked for or a doubling backoff; a wait longer than MAX_WAIT is given up at once."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pixiu_cli.domain.redact import scrub
from pixiu_cli.push import channels
from pixiu_cli.push.channels import Channel
from pixiu_cli.push.config import ChannelConfig, PushConfig
from pixiu_cli.push.http import Outcome, fail, later
from pixiu_cli.push.message import Message

ATTEMPTS = 3
BACKOFF = 1.0  # seconds before the second attempt, doubled after
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
        return fail(f"{channel.timeout:g} 秒内没有应答（可能已送达，不再重试）")
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
        sleep(pause)
        wait *= 2
    raise AssertionError("unreachable")


def deliver_one(channel: Channel, message: Message, sleep=time.sleep) -> Delivery:
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


def channel_for(config: ChannelConfig, timeout: float) -> Channel:
    if config.kind == "email":
        from pixiu_cli.push.email import Email  # smtplib and ssl only when a mail is sent

        return Email(config, timeout)
    kinds = {
        "wecom": channels.WeCom,
        "feishu": channels.Feishu,
        "dingtalk": channels.DingTalk,
        "telegram": channels.Telegram,
        "webhook": channels.Webhook,
    }
    return kinds[config.kind](config, timeout)


def deliver(
    message: Message, config: PushConfig, sleep: Callable[[float], None] = time.sleep, kinds: Sequence[str] = ()
) -> list[Delivery]:
    """`message` to every configured channel (only `kinds`, when given), in config order."""
    out = []
    for channel_config in config.channels:
        if kinds and channel_config.kind not in kinds:
            continue
        out.append(deliver_one(channel_for(channel_config, config.timeout), message, sleep))
    return out
