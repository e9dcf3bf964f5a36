"""Reading and writing config.toml. The file may hold an API key, so it is always written
with mode 0600 (created that way, and tightened if it was looser)."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

from pixiu_cli.kernel.errors import UserError, os_reason

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
