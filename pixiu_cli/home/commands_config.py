"""The settings commands: config set and config show (the config.toml in PIXIU_HOME)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from pixiu_cli.commands.declaration import CLI, Command, Group, Nothing, argument, lazy
from pixiu_cli.commands.values import Text

CLI_ONLY = frozenset({CLI})


def _config_path() -> Path:
    from pixiu_cli.kernel.settings import default_home, ensure_home

    return ensure_home(default_home()) / "config.toml"


@dataclass(frozen=True)
class SetRequest:
    key: str
    value: str


@dataclass(frozen=True)
class Written:
    path: Path
    key: str
    shown: str


def _set(ctx, r: SetRequest) -> Written:
    from pixiu_cli.app import validate_config
    from pixiu_cli.home.config import set_value
    from pixiu_cli.home.views import shown_value

    value = sys.stdin.readline().strip() if r.value == "-" else r.value
    path = _config_path()
    set_value(path, r.key, value, validate=validate_config)
    return Written(path, r.key, shown_value(r.key, value))


@dataclass(frozen=True)
class Shown:
    path: Path
    data: dict


def _show(ctx, _: Nothing) -> Shown:
    from pixiu_cli.home.config import read_config

    path = _config_path()
    return Shown(path, read_config(path))


DECLARED = (
    Group(("config",), "查看或修改 PIXIU_HOME 下的 config.toml（写入时权限为 600）。", surfaces=CLI_ONLY),
    Command(
        ("config", "set"),
        "写入一项设置。",
        (
            argument("key", Text("KEY"), "设置名，如 model、api_key、context.notes_days"),
            argument("value", Text("VALUE"), "值；为 - 时从标准输入读取（适合 API key，不留在 shell 历史里）"),
        ),
        SetRequest,
        _set,
        lazy("pixiu_cli.home.views:show_written"),
        surfaces=CLI_ONLY,
        # `config set timeout -5` is a value to check, not an unknown option
        context_settings={"ignore_unknown_options": True},
    ),
    Command(
        ("config", "show"),
        "显示当前 config.toml（密钥隐藏）。",
        (),
        Nothing,
        _show,
        lazy("pixiu_cli.home.views:show_config"),
        surfaces=CLI_ONLY,
    ),
)
