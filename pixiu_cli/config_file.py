"""Reading and writing config.toml. The file may hold an API key, so it is always written
with mode 0600 (created that way, and tightened if it was looser)."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

SECRET_KEYS = ("api_key", "deepseek_api_key")


class ConfigError(Exception):
    """One line for the user."""


def read_config(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"配置文件 {path} 格式错误：{exc}") from None


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string is JSON-compatible


def dump_toml(data: dict) -> str:
    lines = [f"{key} = {_value(value)}" for key, value in data.items() if not isinstance(value, dict)]
    for table, values in data.items():
        if isinstance(values, dict):
            lines.append("")
            lines.append(f"[{table}]")
            lines.extend(f"{key} = {_value(value)}" for key, value in values.items() if not isinstance(value, dict))
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


def set_value(path: Path, dotted_key: str, raw_value: str, validate=None) -> None:
    """Change one setting; `validate(new_data)` may raise, and then nothing is written."""
    data = read_config(path)
    parts = dotted_key.split(".")
    if len(parts) > 2 or not all(parts):
        raise ConfigError(f"设置名应为 key 或 table.key：{dotted_key!r}")
    target = data
    if len(parts) == 2:
        target = data.setdefault(parts[0], {})
        if not isinstance(target, dict):
            raise ConfigError(f"{parts[0]} 不是一个表")
    target[parts[-1]] = parse_value(raw_value) if parts[-1] not in SECRET_KEYS else raw_value
    if validate is not None:
        validate(data)
    write_config(path, data)


def write_config(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(dump_toml(data))
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def masked(data: dict) -> dict:
    def mask(key, value):
        if isinstance(value, dict):
            return {k: mask(k, v) for k, v in value.items()}
        if key in SECRET_KEYS and isinstance(value, str):
            return "已设置（隐藏）" if value else ""
        return value

    return {k: mask(k, v) for k, v in data.items()}
