"""Reading and writing config.toml. The file may hold an API key, so it is always written
with mode 0600 (created that way, and tightened if it was looser).

The config.toml tables pixiu builds objects from — [context] (the context's limits),
[agent] (the tool loop's guardrails), [prices] (the model's prices), [backtest] (trading
costs) and [push] (the channels, with their PIXIU_PUSH_* variables) — each checked when the
settings are opened (app.configured), so a typo is one line at the start of any command, not
a failure deep inside the one that reads it."""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import UserError, os_reason
from pixiu_cli.kernel.vocabulary import Guardrails, MemoryLimits

SECRET_KEYS = ("api_key", "deepseek_api_key")
# Keys of a [push.<channel>] table that hold credentials (push/config.py SECRET_KEYS).
PUSH_SECRET_KEYS = ("webhook", "secret", "token", "password", "url")


class ConfigError(UserError):
    """One line for the user."""


def read_config(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"配置文件 {path} 格式错误：{exc}") from None
    except OSError as exc:
        raise ConfigError(f"无法读取配置文件 {path}：{os_reason(exc)}") from None


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):  # [push.email] to = ["…", "…"]
        return "[" + ", ".join(_value(v) for v in value) + "]"
    # A TOML basic string is JSON-compatible, except that TOML also forbids a raw DEL.
    return json.dumps(str(value), ensure_ascii=False).replace("\x7f", "\\u007f")


def dump_toml(data: dict) -> str:
    """`data` as TOML: top-level keys, then each table, then its sub-tables (`[push.wecom]`)."""
    lines: list[str] = []

    def table(prefix: str, values: dict) -> None:
        if prefix:
            lines.extend(["", f"[{prefix}]"])
        lines.extend(f"{key} = {_value(value)}" for key, value in values.items() if not isinstance(value, dict))
        for key, value in values.items():
            if isinstance(value, dict):
                table(f"{prefix}.{key}" if prefix else key, value)

    table("", data)
    return "\n".join(lines).lstrip("\n") + "\n"


def parse_value(text: str):
    """`8` → 8, `0.5` → 0.5, `true` → True, anything else stays a string."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def set_value(path: Path, dotted_key: str, raw_value: str, validate=None) -> None:
    """Change one setting; `validate(new_data)` may raise, and then nothing is written."""
    data = read_config(path)
    parts = dotted_key.split(".")
    nested = len(parts) == 3 and parts[0] == "push"  # only [push.<channel>] tables have sub-tables
    if (len(parts) > 2 and not nested) or not all(_BARE_KEY.fullmatch(part) for part in parts):
        raise ConfigError(f"设置名应为 key、table.key 或 push.渠道.key（字母、数字、_ 或 -）：{dotted_key!r}")
    if _SURROGATE.search(raw_value):
        raise ConfigError(f"{dotted_key} 的值含有无效的 UTF-8 字节，未写入")
    target = data
    for depth, name in enumerate(parts[:-1]):
        target = target.setdefault(name, {})
        if not isinstance(target, dict):
            raise ConfigError(f"{'.'.join(parts[: depth + 1])} 不是一个表")
    target[parts[-1]] = raw_value if is_secret(parts) else parse_value(raw_value)
    if validate is not None:
        validate(data)
    write_config(path, data)


def write_config(path: Path, data: dict) -> None:
    text = dump_toml(data)
    if tomllib.loads(text) != data:  # never leave a file that pixiu itself cannot read back
        raise ConfigError("该值无法写入 config.toml，未做修改")
    tmp = path.with_suffix(".toml.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:  # a read-only home, a full disk
        raise ConfigError(f"无法写入配置文件 {path}（文件夹 {path.parent}）：{os_reason(exc)}；未做修改") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError as exc:  # e.g. a full disk: the old file stays as it was, no stray copy
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"无法写入配置文件 {path}：{os_reason(exc)}；原文件未改动") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def is_secret(parts: list[str]) -> bool:
    """A credential's key: an API key anywhere, or a push channel's address or secret."""
    return parts[-1] in SECRET_KEYS or (len(parts) == 3 and parts[0] == "push" and parts[-1] in PUSH_SECRET_KEYS)


if TYPE_CHECKING:
    from pixiu_cli.account.report import PriceTable
    from pixiu_cli.brief.push.config import PushConfig
    from pixiu_cli.kernel.vocabulary import Guardrails, MemoryLimits
    from pixiu_cli.market.analytics.costs import CostModel


class ConfigTables:
    """The objects of the parsed tables (Settings.tables). A table config.toml holds is built,
    and so checked, at once (ConfigError); one it lacks is its defaults, built on first use,
    so a command that reads no prices imports no price table."""

    def __init__(self, tables: Mapping, push_env: Mapping[str, str]):
        self._tables, self._push_env = tables, push_env
        for name, attribute in _OBJECT_OF.items():
            if name in tables or (name == "push" and push_env):
                getattr(self, attribute)

    @cached_property
    def limits(self) -> MemoryLimits:  # [context] windows, limits and budget
        return _context_table(self._tables)

    @cached_property
    def guardrails(self) -> Guardrails:  # [agent] max_steps, tool_timeout, block_repeats
        return _agent_table(self._tables)

    @cached_property
    def prices(self) -> PriceTable:  # [prices] per-million prices, currency, off-peak period
        return _prices_table(self._tables)

    @cached_property
    def costs(self) -> CostModel:  # [backtest] commission_rate, commission_min, transfer_fee_rate, slippage_bps
        return _backtest_table(self._tables)

    @cached_property
    def push(self) -> PushConfig:  # [push]: the channels briefs and alerts are sent to (push/config.py)
        return _push_table(self._tables, self._push_env)


_OBJECT_OF = {"context": "limits", "agent": "guardrails", "prices": "prices", "backtest": "costs", "push": "push"}


def check_base_url(value: str) -> None:
    """An address the client can call: http(s) with a host. "not a url" once got as far as the
    first request, where it read as a connection failure."""
    from pixiu_cli.brief.push.config import http_parts

    if http_parts(value) is None:
        raise ConfigError(f"设置 base_url 应为 http:// 或 https:// 开头的地址，而不是 {value!r}")


def _push_table(config: Mapping, env: Mapping[str, str]) -> PushConfig:
    """[push] with its PIXIU_PUSH_* variables; checked on every load (a bad channel is one
    line now, not a failed push after the close)."""
    from pixiu_cli.brief.push.config import PushConfigError, read_push

    try:
        return read_push(config.get("push", {}), env)
    except PushConfigError as exc:
        raise ConfigError(str(exc)) from None


def _context_table(config: Mapping) -> MemoryLimits:

    table = config.get("context", {})
    if not isinstance(table, dict):
        raise ConfigError("config.toml 的 [context] 应为表")
    try:
        limits = MemoryLimits.from_mapping(table)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"config.toml 的 [context] 有无效的值：{table}") from None
    unknown = set(table) - set(MemoryLimits.__dataclass_fields__)
    if unknown:
        raise ConfigError(f"config.toml 的 [context] 有未知设置：{', '.join(sorted(unknown))}")
    for name in MemoryLimits.__dataclass_fields__:
        _check_limit(name, getattr(limits, name))
    return limits


_MAX_DAYS = 36_500  # a century: any window longer than that is a typo, and 1e308 overflows dates


def _check_limit(name: str, value: float) -> None:
    """[context] values a user could mean: days within a century, counts and budgets not negative
    (a token budget must leave room for something)."""
    if not math.isfinite(value) or value < 0 or (name.endswith("_days") and value > _MAX_DAYS):
        wanted = f" 0 到 {_MAX_DAYS} 之间的天数" if name.endswith("_days") else "非负整数"
        raise ConfigError(f"config.toml 的 [context] {name} 应为{wanted}，而不是 {value!r}")
    if name.endswith("budget_tokens") and value < 1:
        raise ConfigError(f"config.toml 的 [context] {name} 应为正整数，而不是 {value!r}")


def _agent_table(config: Mapping) -> Guardrails:

    table = config.get("agent", {})
    if not isinstance(table, dict) or set(table) - set(Guardrails.__dataclass_fields__):
        raise ConfigError(f"config.toml 的 [agent] 只能包含 {', '.join(Guardrails.__dataclass_fields__)}")
    try:
        guardrails = Guardrails.from_mapping(table)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"config.toml 的 [agent] 有无效的值：{table}") from None
    if not (0 < guardrails.tool_timeout <= 3600):
        raise ConfigError(
            f"config.toml 的 [agent] tool_timeout 应为 0 到 3600 之间的秒数，而不是 {table['tool_timeout']!r}"
        )
    return guardrails


def _prices_table(config: Mapping) -> PriceTable:
    from pixiu_cli.account.report import PriceTable

    table = config.get("prices", {})
    if not isinstance(table, dict):
        raise ConfigError("config.toml 的 [prices] 应为表")
    known = [name for name in PriceTable.__dataclass_fields__ if name != "user_set"]
    unknown = set(table) - set(known)
    if unknown:
        raise ConfigError(
            f"config.toml 的 [prices] 有未知设置：{', '.join(sorted(unknown))}（可用：{', '.join(known)}）"
        )
    defaults = PriceTable()
    for name, value in table.items():
        if isinstance(getattr(defaults, name), float) and (isinstance(value, bool) or _parsed_float(value) is None):
            raise ConfigError(f"config.toml 的 [prices] {name} 应为数字，而不是 {value!r}")
    try:
        return PriceTable.from_mapping(table)
    except (TypeError, ValueError):
        raise ConfigError(
            f"config.toml 的 [prices] peak_hours 应为 HH:MM-HH:MM（多段用逗号分隔），而不是 {table.get('peak_hours')!r}"
        ) from None


def _parsed_float(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _backtest_table(config: Mapping) -> CostModel:
    from pixiu_cli.market.analytics.costs import CostModel

    table = config.get("backtest", {})
    fields = CostModel.__dataclass_fields__
    if not isinstance(table, dict) or set(table) - set(fields):
        raise ConfigError(f"config.toml 的 [backtest] 只能包含 {', '.join(fields)}")
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e6:
            raise ConfigError(f"config.toml 的 [backtest] {key} 应为非负数字，而不是 {value!r}")
    return CostModel.from_mapping(table)
