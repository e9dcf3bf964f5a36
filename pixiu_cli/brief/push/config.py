"""The `[push]` table: one sub-table per channel (`[push.wecom] webhook = "…"`), each key
also settable as `PIXIU_PUSH_<CHANNEL>_<KEY>` (the environment wins), plus `alerts` and
`timeout`. Every configured channel is checked here, once, so a typo or a missing key is one
line when the settings load, not a failure at 15:30 when nobody is watching."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pixiu_cli.kernel.errors import UserError

# channel → (its name for the user, required keys, optional keys)
CHANNELS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "wecom": ("企业微信", ("webhook",), ()),
    "feishu": ("飞书", ("webhook",), ("secret",)),
    "dingtalk": ("钉钉", ("webhook",), ("secret",)),
    "telegram": ("Telegram", ("token", "chat_id"), ("api_base",)),
    "email": ("邮件", ("host", "to"), ("port", "user", "password", "from", "security", "ca_file")),
    "webhook": ("webhook", ("url",), ()),
}
# Keys whose values are credentials: never shown, scrubbed from every line (redact.py).
SECRET_KEYS = ("webhook", "secret", "token", "password", "url")
OPTIONS = ("alerts", "timeout", "deadline")
DEFAULT_TIMEOUT = 10.0
DEFAULT_DEADLINE = 90.0  # one push to every channel, retries and waits included
TELEGRAM_API = "https://api.telegram.org"
SECURITIES = ("ssl", "starttls", "none")
LOOPBACK_NAMES = ("localhost",)


class PushConfigError(UserError):
    """One line for the user: what in [push] is wrong."""


@dataclass(frozen=True)
class ChannelConfig:
    kind: str  # a key of CHANNELS
    values: Mapping[str, object] = field(repr=False)  # may hold credentials: never in a repr

    @property
    def label(self) -> str:
        return CHANNELS[self.kind][0]

    def get(self, key: str, default=None):
        return self.values.get(key, default)


@dataclass(frozen=True)
class PushConfig:
    channels: tuple[ChannelConfig, ...] = ()
    alerts: bool = False  # [push] alerts: each alert a sync finds is pushed once
    timeout: float = DEFAULT_TIMEOUT  # seconds per request, its whole answer included
    deadline: float = DEFAULT_DEADLINE  # seconds for one push to every channel (sent side by side)

    def secrets(self) -> list[str]:
        return [str(c.values[k]) for c in self.channels for k in SECRET_KEYS if c.values.get(k)]


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _text(value, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise PushConfigError(f"config.toml 的 {where} 应为字符串")
    text = str(value).strip()
    if not text or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise PushConfigError(f"config.toml 的 {where} 为空或含有控制字符")
    return text


def http_parts(text: str):
    """`text` split as an http(s) address with a host (and a numeric port, if any), else None."""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return None
    return parts if parts.scheme in ("http", "https") and parts.hostname else None


def _url(value, where: str, kind: str) -> str:
    text = _text(value, where)
    parts = http_parts(text)
    if parts is None:
        raise PushConfigError(f"config.toml 的 {where} 应为 http(s):// 地址")
    # A bot's address is its key: over plain http it would cross the network readable.
    if kind != "webhook" and parts.scheme == "http" and not is_loopback(parts.hostname):
        raise PushConfigError(f"config.toml 的 {where} 应为 https:// 地址（http 只用于本机）")
    return text


def _email(values: dict, where: str) -> dict:
    port = values.get("port", 465 if values.get("security") == "ssl" else 587)
    if isinstance(port, str) and port.strip().isdigit():
        port = int(port)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise PushConfigError(f"config.toml 的 {where}.port 应为 1 到 65535 的端口，而不是 {port!r}")
    security = values.get("security", "ssl" if port == 465 else "starttls")
    if security not in SECURITIES:
        raise PushConfigError(f"config.toml 的 {where}.security 应为 {' / '.join(SECURITIES)} 之一")
    if security == "none" and not is_loopback(str(values["host"])):
        raise PushConfigError(f"config.toml 的 {where}.security = none 只能用于本机邮件服务（密码会明文传输）")
    to = values["to"]
    recipients = [to] if isinstance(to, str) else to
    if not isinstance(recipients, list) or not recipients:
        raise PushConfigError(f"config.toml 的 {where}.to 应为邮件地址或地址列表")
    recipients = [_text(r, f"{where}.to") for r in recipients]
    if any("@" not in r for r in recipients):
        raise PushConfigError(f"config.toml 的 {where}.to 应为邮件地址（含 @）")
    return dict(values, port=port, security=security, to=recipients)


def _channel(kind: str, table: Mapping, env: Mapping[str, str]) -> ChannelConfig | None:
    label, required, optional = CHANNELS[kind]
    where = f"[push.{kind}]"
    unknown = set(table) - {*required, *optional}
    if unknown:
        raise PushConfigError(
            f"config.toml 的 {where} 有未知设置：{', '.join(sorted(unknown))}（可用：{', '.join((*required, *optional))}）"
        )
    values = dict(table)
    for key in (*required, *optional):
        variable = f"PIXIU_PUSH_{kind.upper()}_{key.upper()}"
        if env.get(variable):
            values[key] = env[variable]
    if not values:
        return None
    missing = [k for k in required if values.get(k) in (None, "")]
    if missing:
        raise PushConfigError(f"推送渠道 {label} 缺少 {'、'.join(missing)}（config.toml 的 {where}）")
    for key, value in list(values.items()):
        if key in ("webhook", "url", "api_base"):
            values[key] = _url(value, f"{where}.{key}", kind)
        elif key not in ("port", "to"):
            values[key] = _text(value, f"{where}.{key}")
    if kind == "email":
        values = _email(values, where)
    return ChannelConfig(kind, values)


def _seconds(table, name: str, default: float, most: float) -> float:
    value = table.get(name, default)
    finite = not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
    if not finite or not 1 <= value <= most:
        raise PushConfigError(f"config.toml 的 [push] {name} 应为 1 到 {most:g} 之间的秒数，而不是 {value!r}")
    return float(value)


def read_push(table, env: Mapping[str, str]) -> PushConfig:
    """The channels `table` (config.toml's [push]) and `env` configure; PushConfigError on
    anything pixiu could not send with."""
    if not isinstance(table, dict):
        raise PushConfigError("config.toml 的 [push] 应为表")
    unknown = set(table) - {*OPTIONS, *CHANNELS}
    if unknown:
        raise PushConfigError(
            f"config.toml 的 [push] 有未知设置：{', '.join(sorted(unknown))}"
            f"（可用：{', '.join(OPTIONS)}，以及表 {', '.join(f'[push.{c}]' for c in CHANNELS)}）"
        )
    alerts = table.get("alerts", False)
    if not isinstance(alerts, bool):
        raise PushConfigError(f"config.toml 的 [push] alerts 应为 true 或 false，而不是 {alerts!r}")
    channels = []
    for kind in CHANNELS:
        sub = table.get(kind, {})
        if not isinstance(sub, dict):
            raise PushConfigError(f"config.toml 的 [push.{kind}] 应为表")
        channel = _channel(kind, sub, env)
        if channel is not None:
            channels.append(channel)
    timeout = _seconds(table, "timeout", DEFAULT_TIMEOUT, 120)
    return PushConfig(tuple(channels), alerts, timeout, _seconds(table, "deadline", DEFAULT_DEADLINE, 600))


def has_secrets(table) -> bool:
    """Whether a parsed [push] table holds a credential (the file should then be 0600)."""
    if not isinstance(table, dict):
        return False
    return any(isinstance(sub, dict) and any(sub.get(k) for k in SECRET_KEYS) for sub in table.values())
