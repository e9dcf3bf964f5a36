"""The home's commands, on the command line alone: import and export (one JSON document),
backup and restore (the database as one file), config set and config show (the config.toml
in PIXIU_HOME). Each calls the home's use case and shows the result through home/views.py."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.params import CommandError, Text, argument, demo_option, group
from pixiu_cli.home import views
from pixiu_cli.home.config import read_config, set_value
from pixiu_cli.kernel.errors import os_reason
from pixiu_cli.kernel.resources import write_private
from pixiu_cli.kernel.safe_text import inert_json
from pixiu_cli.kernel.settings import default_home, ensure_home

# home/documents.py brings the database's modules (sqlite-utils): each data-set command
# imports it when it runs, so `config set|show` stays without them.


def _place(demo: bool):
    from pixiu_cli.home.documents import BackupPlace

    loaded = common.settings()
    return BackupPlace(loaded.home / "backups", "pixiu-demo" if demo else "pixiu", loaded.backups_kept)


def _backed_up(said: str):
    """Said as soon as the current database is backed up, before the import or restore goes on."""

    def say(saved) -> None:
        common.shown().info(said.format(saved=saved))
        views.show_tidied(common.shown(), saved)

    return say


def _show(view, result) -> None:
    common.finish(view(common.shown(), result, common.spell))


@click.command(
    "import", help="导入领域数据：默认按自然键合并（对话中记下的笔记和交易不受影响）；文件有误时一条也不导入。"
)
@argument("file", Text("FILE"), "JSON 文档（格式见 docs/data-formats.md：holdings、profiles、news…）")
@click.option("--replace", is_flag=True, help="整体替换现有数据（替换前自动备份数据库）")
@demo_option
def import_command(file: str, replace: bool, demo: bool) -> None:
    from pixiu_cli.home.documents import import_document

    ws = common.on_workspace()
    on_backup = _backed_up("已备份当前数据库到 {saved}（pixiu restore 该文件可还原）")
    place = _place(demo)
    done = import_document(ws.home, ws.account, Path(file), ws.now(), replace=replace, place=place, on_backup=on_backup)
    _show(views.show_imported, done)


@dataclass(frozen=True)
class Exported:
    text: str
    notes: list
    written: str | None


@click.command("export", help="导出全部领域数据为一个 JSON 文档（可再导入）。")
@click.option("--output", "-o", "output", type=Text("FILE"), metavar="FILE", help="写入文件（默认标准输出）")
@demo_option
def export_command(output: str | None, demo: bool) -> None:
    from pixiu_cli.home.documents import export

    ws = common.on_workspace()
    exported = export(ws.home, ws.now())
    # Bidi overrides and C1 controls in stored text are written as \uXXXX escapes: the same
    # JSON value (a re-import restores them exactly), but nothing that acts on a terminal.
    text = inert_json(exported.text)
    if output:
        try:
            write_private(Path(output), (text + "\n").encode("utf-8"), durable=True)
        except OSError as exc:
            raise CommandError(f"无法写入 {output}：{os_reason(exc)}") from None
    _show(views.show_exported, Exported(text, list(exported.notes), output))


@click.command("backup", help="把数据库完整备份到 PIXIU_HOME/backups/（SQLite 在线备份，可在其他终端使用时进行）。")
@demo_option
def backup_command(demo: bool) -> None:
    from pixiu_cli.home.documents import backup

    ws = common.on_workspace()
    _show(views.show_backup, backup(ws.home, _place(demo), ws.now()))


@dataclass(frozen=True)
class Restored:
    source: Path | None = None
    salvaged: object = None


@click.command(
    "restore", help="用备份文件还原数据库（先检查文件，并先备份当前数据库；当前数据库损坏时先把它移到 backups/）。"
)
@argument("file", Text("FILE"), "pixiu backup 写出的备份文件", required=False)
@click.option("--salvage", is_flag=True, help="数据库损坏时：抢救能读出的数据到新数据库")
@demo_option
def restore_command(file: str | None, salvage: bool, demo: bool) -> None:
    from pixiu_cli.home.documents import restore, restore_salvaged

    if salvage == (file is not None):
        raise CommandError("用法：pixiu restore FILE（从备份还原）或 pixiu restore --salvage（抢救损坏的数据库）")
    # The database is not opened: it may be the damaged one being replaced.
    loaded = common.settings()
    db_path = common.db_path(loaded, demo)
    now = common.now(loaded)
    if salvage:
        restored = Restored(salvaged=restore_salvaged(db_path, _place(demo), now))
    else:
        restore(
            db_path,
            Path(file),
            _place(demo),
            now,
            on_backup=_backed_up("已先备份当前数据库到 {saved}"),
            on_set_aside=lambda kept: common.shown().info(f"当前数据库已损坏，未打开，已移到 {kept}"),
        )
        restored = Restored(source=Path(file))
    _show(views.show_restored, restored)


# The settings: config.toml is read and written as a file, never through the loaded settings
# (`config set` must mend a config.toml that does not load).


def _config_path() -> Path:
    return ensure_home(default_home()) / "config.toml"


@dataclass(frozen=True)
class Written:
    path: Path
    key: str
    shown: str


@dataclass(frozen=True)
class Shown:
    path: Path
    data: dict


config = group("config", "查看或修改 PIXIU_HOME 下的 config.toml（写入时权限为 600）。")


# `config set timeout -5` is a value to check, not an unknown option
@config.command("set", help="写入一项设置。", context_settings={"ignore_unknown_options": True})
@argument("key", Text("KEY"), "设置名，如 model、api_key、context.notes_days")
@argument("value", Text("VALUE"), "值；为 - 时从标准输入读取（适合 API key，不留在 shell 历史里）")
def config_set(key: str, value: str) -> None:
    from pixiu_cli.app import validate_config

    value = sys.stdin.readline().strip() if value == "-" else value
    path = _config_path()
    set_value(path, key, value, validate=validate_config)
    _show(views.show_written, Written(path, key, views.shown_value(key, value)))


@config.command("show", help="显示当前 config.toml（密钥隐藏）。")
def config_show() -> None:
    path = _config_path()
    _show(views.show_config, Shown(path, read_config(path)))


COMMANDS = {
    "import": import_command,
    "export": export_command,
    "backup": backup_command,
    "restore": restore_command,
    "config": config,
}
