"""What `pixiu import|export|backup|restore` say: each section merged, each backup written or
removed, what a salvage could read.

What `pixiu config show` and `config set` print of the settings: a credential is said to be
set, never shown; an address's user and password are masked."""

from __future__ import annotations

from pixiu_cli.home.config import dump_toml, is_secret
from pixiu_cli.kernel.safe_text import mask_url

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


def show_tidied(shown, saved) -> None:
    """Say what tidying the backups folder removed: nothing of the user's goes unannounced."""
    if saved.cleaned:
        shown.dim(f"已清理中断的备份残留文件 {len(saved.cleaned)} 个：{'、'.join(p.name for p in saved.cleaned)}")
    if saved.pruned:
        names = "、".join(p.name for p in saved.pruned)
        shown.dim(f"已删除较旧的备份 {len(saved.pruned)} 个（只保留最新 {saved.kept} 个，见 [backup] keep）：{names}")


NO_ACCOUNT = "文件中没有账户部分（成交与现金，较早版本的导出没有）：账户未改动。"


def account_lines(merged) -> list[str]:
    lines = [
        f"账户成交（account.fills）：新增 {merged.fills_added}，已有 {merged.fills_kept}（按 fill_id，不重复导入）"
    ]
    if merged.fills_withdrawn:
        lines[0] += f"（其中你撤销过的 {merged.fills_withdrawn} 笔，合并导入不会恢复）"
    lines.append(f"账户现金记录（account.cash）：新增 {merged.cash_added}，已有 {merged.cash_kept}")
    return lines


def merge_lines(result) -> tuple[list[str], list[str]]:
    """One summary line per section, and one warning per holding whose shares in the file
    differ from what the broker statements or the trades recorded in conversation left."""
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
        lines += account_lines(result.account)
    warnings = [
        f"持仓 {c.symbol} {c.name}：导入文件为 {c.in_file:g} 股，按已导入的对账单推算为 {c.from_statements:g} 股；"
        "已保留对账单推算的持仓、成本和已实现盈亏（以文件为准请用 pixiu import --replace，会先备份）"
        for c in result.statement_conflicts
    ]
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


def show_imported(renderer, done, spell=None) -> None:
    if done.replaced:
        counts = "，".join(f"{name} {count}" for name, count in done.counts.items())
        if done.account is None:
            renderer.info(f"已替换文件中的数据：{counts}，persona {done.persona_items} 项。")
        else:
            fills, cash = done.account
            renderer.info(
                f"已替换全部数据：{counts}，persona {done.persona_items} 项；账户：成交 {fills} 笔，现金记录 {cash} 条。"
            )
    else:
        lines, warnings = merge_lines(done.merge)
        renderer.info("已合并导入：")
        for line in lines:
            renderer.line(line)
        for warning in warnings:
            renderer.warn(warning)
    if done.account is None:
        renderer.info(NO_ACCOUNT)


def show_exported(renderer, exported, spell=None) -> None:
    """The warnings, then the document itself (standard output) or where it was written."""
    for note in exported.notes:
        renderer.warn(f"导出：{note}")
    if exported.written:
        renderer.info(f"已导出到 {exported.written}")
    else:
        renderer.raw(exported.text)


def show_backup(renderer, saved, spell=None) -> None:
    renderer.info(f"已备份到 {saved}")
    show_tidied(renderer, saved)


def show_restored(renderer, restored, spell=None) -> None:
    if restored.source is not None:
        renderer.info(f"已从 {restored.source} 还原数据库")
        return
    done = restored.salvaged
    renderer.info(f"损坏的数据库已移到 {done.damaged}")
    rows = "，".join(f"{table} {n}" for table, n in sorted(done.salvaged.rows.items()))
    renderer.info(f"已抢救 {done.salvaged.total} 行到新数据库：{rows or '没有能读出的行'}")
    if done.salvaged.unreadable:
        renderer.warn(f"这些表无法读出：{'、'.join(done.salvaged.unreadable)}")


def masked(data: dict) -> dict:
    def mask(path, value):
        if isinstance(value, dict):
            return {k: mask([*path, k], v) for k, v in value.items()}
        if is_secret(path) and isinstance(value, str | int):
            return "已设置（隐藏）" if value else ""
        return mask_url(value) if isinstance(value, str) else value

    return {k: mask([k], v) for k, v in data.items()}


def shown_value(key: str, value: str) -> str:
    """How `config set` echoes a value: secrets hidden, URL credentials masked."""
    if is_secret(key.split(".")) or "key" in key:
        return "（已隐藏）"
    return mask_url(value)


def show_written(renderer, written, spell=None) -> None:
    renderer.info(f"已写入 {written.path}：{written.key} = {written.shown}")


def show_config(renderer, shown, spell=None) -> None:

    renderer.dim(f"# {shown.path}" + ("" if shown.path.exists() else "（尚不存在）"))
    if shown.data:
        renderer.raw(dump_toml(masked(shown.data)))
