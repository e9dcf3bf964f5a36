"""`pixiu import|export|backup|restore`: the data set as one JSON document, the database as one file."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common

SECTION_LABELS = {
    "holdings": "持仓",
    "profiles": "回测画像",
    "news": "新闻",
    "signals": "信号",
    "reports": "报告",
    "decisions": "操作决策",
    "alerts": "预警",
    "notes": "笔记",
    "persona": "投资者画像",
}


def _place(loaded, demo: bool):
    from pixiu_cli.services.documents import BackupPlace

    return BackupPlace(loaded.home / "backups", "pixiu-demo" if demo else "pixiu", loaded.backups_kept)


def _tidied(shown, saved) -> None:
    """Say what tidying the backups folder removed: nothing of the user's goes unannounced."""
    if saved.cleaned:
        shown.dim(f"已清理中断的备份残留文件 {len(saved.cleaned)} 个：{'、'.join(p.name for p in saved.cleaned)}")
    if saved.pruned:
        names = "、".join(p.name for p in saved.pruned)
        shown.dim(f"已删除较旧的备份 {len(saved.pruned)} 个（只保留最新 {saved.kept} 个，见 [backup] keep）：{names}")


NO_ACCOUNT = "文件中没有账户部分（成交与现金，较早版本的导出没有）：账户未改动。"


def _account_lines(merged) -> list[str]:
    lines = [
        f"账户成交（account.fills）：新增 {merged.fills_added}，已有 {merged.fills_kept}（按 fill_id，不重复导入）"
    ]
    if merged.fills_withdrawn:
        lines[0] += f"（其中你撤销过的 {merged.fills_withdrawn} 笔，合并导入不会恢复）"
    lines.append(f"账户现金记录（account.cash）：新增 {merged.cash_added}，已有 {merged.cash_kept}")
    return lines


def _merge_lines(result) -> tuple[list[str], list[str]]:
    """One summary line per section, and one warning per holding whose shares in the file
    differ from what the trades recorded in conversation left."""
    lines = []
    for section, r in result.sections.items():
        line = f"{SECTION_LABELS[section]}（{section}）：新增 {r.added}，更新 {r.updated}，保留不动 {r.left_alone}"
        if r.conversation and section == "holdings":
            line += f"（其中 {r.conversation} 只被对话中记录的交易改动过）"
        elif r.conversation:
            line += f"（其中对话中记下的 {r.conversation} 条，合并导入从不改动）"
        if r.forgotten:
            line += f"（其中你删除过的 {r.forgotten} 条，合并导入不会恢复）"
        lines.append(line)
    if result.account is not None:
        lines += _account_lines(result.account)
    warnings = []
    for c in result.share_conflicts:
        outcome = (
            f"文件的 updated_at 晚于最近一次交易，已按文件改为 {c.in_file:g} 股"
            if c.file_wins
            else f"已保留 {c.after_trades:g} 股（以文件为准请在文件中写上更晚的 updated_at，或用 --replace）"
        )
        warnings.append(
            f"持仓 {c.symbol} {c.name}：导入文件为 {c.in_file:g} 股，"
            f"对话中记录的交易之后为 {c.after_trades:g} 股；{outcome}"
        )
    return lines, warnings


def import_data(
    file: Annotated[str, typer.Argument(help="JSON 文档（格式见 docs/data-formats.md：holdings、profiles、news…）")],
    replace: Annotated[bool, typer.Option("--replace", help="整体替换现有数据（替换前自动备份数据库）")] = False,
    demo: common.DemoOpt = False,
) -> None:
    """导入领域数据：默认按自然键合并（对话中记下的笔记和交易不受影响）；文件有误时一条也不导入。"""
    from pathlib import Path

    from pixiu_cli.services.documents import import_document

    loaded = common.settings()
    shown = common.renderer()
    with common.database(demo) as db:
        done = import_document(
            db,
            Path(file),
            common.now(),
            replace=replace,
            place=_place(loaded, demo),
            on_backup=lambda saved: (
                shown.info(f"已备份当前数据库到 {saved}（pixiu restore 该文件可还原）"),
                _tidied(shown, saved),
            ),
        )
    if done.replaced:
        counts = "，".join(f"{name} {count}" for name, count in done.counts.items())
        if done.account is None:
            shown.info(f"已替换文件中的数据：{counts}，persona {done.persona_items} 项。")
        else:
            fills, cash = done.account
            shown.info(
                f"已替换全部数据：{counts}，persona {done.persona_items} 项；账户：成交 {fills} 笔，现金记录 {cash} 条。"
            )
    else:
        lines, warnings = _merge_lines(done.merge)
        shown.info("已合并导入：")
        for line in lines:
            shown.line(line)
        for warning in warnings:
            shown.warn(warning)
    if done.account is None:
        shown.info(NO_ACCOUNT)


def export_data(
    output: Annotated[str | None, typer.Option("--output", "-o", help="写入文件（默认标准输出）")] = None,
    demo: common.DemoOpt = False,
) -> None:
    """导出全部领域数据为一个 JSON 文档（可再导入）。"""
    from pathlib import Path

    from pixiu_cli.services.documents import export
    from pixiu_cli.views.render import terminal_json

    with common.database(demo) as db:
        exported = export(db, common.now())
    # Bidi overrides and C1 controls in stored text are written as \uXXXX escapes: the same
    # JSON value (a re-import restores them exactly), but nothing that acts on a terminal.
    text = terminal_json(exported.text)
    shown = common.renderer()
    for note in exported.notes:
        shown.warn(f"导出：{note}")
    if output:
        try:
            from pixiu_cli.errors import os_reason
            from pixiu_cli.resources import write_private

            write_private(Path(output), (text + "\n").encode("utf-8"), durable=True)
        except OSError as exc:
            raise common.CliError(f"无法写入 {output}：{os_reason(exc)}") from None
        shown.info(f"已导出到 {output}")
    else:
        shown.raw(text)


def backup_command(demo: common.DemoOpt = False) -> None:
    """把数据库完整备份到 PIXIU_HOME/backups/（SQLite 在线备份，可在其他终端使用时进行）。"""
    from pixiu_cli.services.documents import backup

    loaded = common.settings()
    with common.database(demo) as db:
        saved = backup(db, _place(loaded, demo), common.now())
    shown = common.renderer()
    shown.info(f"已备份到 {saved}")
    _tidied(shown, saved)


def restore_command(
    file: Annotated[str | None, typer.Argument(help="pixiu backup 写出的备份文件")] = None,
    salvage: Annotated[bool, typer.Option("--salvage", help="数据库损坏时：抢救能读出的数据到新数据库")] = False,
    demo: common.DemoOpt = False,
) -> None:
    """用备份文件还原数据库（先检查文件，并先备份当前数据库；当前数据库损坏时先把它移到 backups/）。"""
    from pathlib import Path

    from pixiu_cli.services.documents import restore

    loaded = common.settings()
    shown = common.renderer()
    if salvage == (file is not None):
        raise common.CliError("用法：pixiu restore FILE（从备份还原）或 pixiu restore --salvage（抢救损坏的数据库）")
    if salvage:
        _salvage(shown, loaded, demo)
        return
    source = Path(file)
    restore(
        common.db_path(loaded, demo),
        source,
        _place(loaded, demo),
        common.now(),
        on_backup=lambda saved: (shown.info(f"已先备份当前数据库到 {saved}"), _tidied(shown, saved)),
        on_set_aside=lambda kept: shown.info(f"当前数据库已损坏，未打开，已移到 {kept}"),
    )
    shown.info(f"已从 {source} 还原数据库")


def _salvage(shown, loaded, demo: bool) -> None:
    from pixiu_cli.services.documents import restore_salvaged

    done = restore_salvaged(common.db_path(loaded, demo), _place(loaded, demo), common.now())
    shown.info(f"损坏的数据库已移到 {done.damaged}")
    rows = "，".join(f"{table} {n}" for table, n in sorted(done.salvaged.rows.items()))
    shown.info(f"已抢救 {done.salvaged.total} 行到新数据库：{rows or '没有能读出的行'}")
    if done.salvaged.unreadable:
        shown.warn(f"这些表无法读出：{'、'.join(done.salvaged.unreadable)}")


def register(app: typer.Typer) -> None:
    app.command("import")(import_data)
    app.command("export")(export_data)
    app.command("backup")(backup_command)
    app.command("restore")(restore_command)
