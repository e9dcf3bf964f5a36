"""The data-set commands: import and export (one JSON document), backup and restore (the
database as one file)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pixiu_cli.commands.declaration import CLI, Command, Nothing, argument, lazy, option, switch
from pixiu_cli.commands.values import CommandError, Text

CLI_ONLY = frozenset({CLI})
VIEWS = "pixiu_cli.home.views"


def _place(ctx):
    from pixiu_cli.home.documents import BackupPlace

    loaded = ctx.settings()
    return BackupPlace(loaded.home / "backups", "pixiu-demo" if ctx.demo else "pixiu", loaded.backups_kept)


def _db_path(ctx) -> Path:
    loaded = ctx.settings()
    return loaded.demo_db_path if ctx.demo else loaded.db_path


def _backed_up(ctx, said: str):
    """Said as soon as the current database is backed up, before the import or restore goes on."""
    from pixiu_cli.home.views import show_tidied

    def say(saved) -> None:
        ctx.renderer.info(said.format(saved=saved))
        show_tidied(ctx.renderer, saved)

    return say


@dataclass(frozen=True)
class ImportRequest:
    file: str
    replace: bool


def _import(ctx, r: ImportRequest):
    from pixiu_cli.home.documents import import_document

    on_backup = _backed_up(ctx, "已备份当前数据库到 {saved}（pixiu restore 该文件可还原）")
    return import_document(ctx.db, Path(r.file), ctx.now(), replace=r.replace, place=_place(ctx), on_backup=on_backup)


@dataclass(frozen=True)
class ExportRequest:
    output: str | None


@dataclass(frozen=True)
class Exported:
    text: str
    notes: list
    written: str | None


def _export(ctx, r: ExportRequest) -> Exported:
    from pixiu_cli.home.documents import export
    from pixiu_cli.kernel.safe_text import inert_json

    exported = export(ctx.db, ctx.now())
    # Bidi overrides and C1 controls in stored text are written as \uXXXX escapes: the same
    # JSON value (a re-import restores them exactly), but nothing that acts on a terminal.
    text = inert_json(exported.text)
    if r.output:
        from pixiu_cli.kernel.errors import os_reason
        from pixiu_cli.kernel.resources import write_private

        try:
            write_private(Path(r.output), (text + "\n").encode("utf-8"), durable=True)
        except OSError as exc:
            raise CommandError(f"无法写入 {r.output}：{os_reason(exc)}") from None
    return Exported(text, list(exported.notes), r.output)


def _backup(ctx, _: Nothing):
    from pixiu_cli.home.documents import backup

    return backup(ctx.db, _place(ctx), ctx.now())


@dataclass(frozen=True)
class RestoreRequest:
    file: str | None
    salvage: bool


@dataclass(frozen=True)
class Restored:
    source: Path | None = None
    salvaged: object = None


def _restore(ctx, r: RestoreRequest) -> Restored:
    from pixiu_cli.home.documents import restore, restore_salvaged

    if r.salvage == (r.file is not None):
        raise CommandError("用法：pixiu restore FILE（从备份还原）或 pixiu restore --salvage（抢救损坏的数据库）")
    if r.salvage:
        return Restored(salvaged=restore_salvaged(_db_path(ctx), _place(ctx), ctx.now()))
    restore(
        _db_path(ctx),
        Path(r.file),
        _place(ctx),
        ctx.now(),
        on_backup=_backed_up(ctx, "已先备份当前数据库到 {saved}"),
        on_set_aside=lambda kept: ctx.renderer.info(f"当前数据库已损坏，未打开，已移到 {kept}"),
    )
    return Restored(source=Path(r.file))


DECLARED = (
    Command(
        ("import",),
        "导入领域数据：默认按自然键合并（对话中记下的笔记和交易不受影响）；文件有误时一条也不导入。",
        (
            argument("file", Text("FILE"), "JSON 文档（格式见 docs/data-formats.md：holdings、profiles、news…）"),
            switch("--replace", "replace", "整体替换现有数据（替换前自动备份数据库）"),
        ),
        ImportRequest,
        _import,
        lazy(f"{VIEWS}:show_imported"),
        surfaces=CLI_ONLY,
        demo=True,
    ),
    Command(
        ("export",),
        "导出全部领域数据为一个 JSON 文档（可再导入）。",
        (option("--output", "output", Text("FILE"), "写入文件（默认标准输出）", aliases=("-o",)),),
        ExportRequest,
        _export,
        lazy(f"{VIEWS}:show_exported"),
        surfaces=CLI_ONLY,
        demo=True,
    ),
    Command(
        ("backup",),
        "把数据库完整备份到 PIXIU_HOME/backups/（SQLite 在线备份，可在其他终端使用时进行）。",
        (),
        Nothing,
        _backup,
        lazy(f"{VIEWS}:show_backup"),
        surfaces=CLI_ONLY,
        demo=True,
    ),
    Command(
        ("restore",),
        "用备份文件还原数据库（先检查文件，并先备份当前数据库；当前数据库损坏时先把它移到 backups/）。",
        (
            argument("file", Text("FILE"), "pixiu backup 写出的备份文件", optional=True),
            switch("--salvage", "salvage", "数据库损坏时：抢救能读出的数据到新数据库"),
        ),
        RestoreRequest,
        _restore,
        lazy(f"{VIEWS}:show_restored"),
        surfaces=CLI_ONLY,
        demo=True,
    ),
)
