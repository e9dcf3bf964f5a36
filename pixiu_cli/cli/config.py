"""`pixiu config set|show`: the config.toml in PIXIU_HOME."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pixiu_cli.cli import common

config_app = typer.Typer(help="查看或修改 PIXIU_HOME 下的 config.toml（写入时权限为 600）。", add_completion=False)


# ignore_unknown_options: `config set timeout -5` is a value to check, not an unknown option
@config_app.command("set", context_settings={"ignore_unknown_options": True})
def config_set(
    key: Annotated[str, typer.Argument(help="设置名，如 model、api_key、context.notes_days")],
    value: Annotated[str, typer.Argument(help="值；为 - 时从标准输入读取（适合 API key，不留在 shell 历史里）")],
) -> None:
    """写入一项设置。"""
    from pixiu_cli.app import validate_config
    from pixiu_cli.services.config_file import set_value
    from pixiu_cli.settings import default_home, ensure_home
    from pixiu_cli.views.config import shown_value

    if value == "-":
        value = sys.stdin.readline().strip()
    path = ensure_home(default_home()) / "config.toml"
    set_value(path, key, value, validate=validate_config)
    common.renderer().info(f"已写入 {path}：{key} = {shown_value(key, value)}")


@config_app.command("show")
def config_show() -> None:
    """显示当前 config.toml（密钥隐藏）。"""
    from pixiu_cli.services.config_file import dump_toml, read_config
    from pixiu_cli.settings import default_home, ensure_home
    from pixiu_cli.views.config import masked

    path = ensure_home(default_home()) / "config.toml"
    data = read_config(path)
    renderer = common.renderer()
    renderer.dim(f"# {path}" + ("" if path.exists() else "（尚不存在）"))
    if data:
        renderer.raw(dump_toml(masked(data)))


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
