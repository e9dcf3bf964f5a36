"""The command line. Parses flags and delegates; heavy modules are imported inside commands
so `pixiu --help` stays fast (it never imports openai)."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated

import typer

from pixiu_cli.errors import UserError

app = typer.Typer(
    name="pixiu",
    help="貔貅 pixiu：A 股投资者的终端助理（DeepSeek 或任意 OpenAI 兼容接口；无 key 时离线）。",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

ModelOpt = Annotated[str | None, typer.Option("--model", help="模型名（覆盖 PIXIU_MODEL）")]
OfflineOpt = Annotated[bool, typer.Option("--offline", help="即使设置了 API key 也使用离线应答器")]


class CliError(UserError):
    """One line for the user, exit status 1."""


def _renderer(**kw):
    from pixiu_cli.render import Renderer

    return Renderer(**kw)


def _settings(model: str | None = None, offline: bool = False):
    from pixiu_cli.settings import load_settings

    return load_settings(model=model, force_offline=offline)


DemoOpt = Annotated[bool, typer.Option("--demo", help="使用演示数据库")]


def _open(model: str | None, offline: bool, demo: bool = False, calls_model: bool = True):
    from pixiu_cli.app import open_app

    settings = _settings(model, offline)
    return open_app(settings, demo=demo, calls_model=calls_model)


@contextmanager
def _opened(model: str | None, offline: bool, demo: bool, resume: int | None, continue_: bool):
    """Open the app, show configuration warnings, and pick the conversation to continue
    (None for a new one); the app is closed however the command ends."""
    renderer = _renderer()
    app_ = _open(model, offline, demo)
    try:
        for warning in app_.settings.warnings:
            renderer.warn(warning)
        yield renderer, app_, _pick_conversation(app_, resume, continue_)
    except Exception as exc:
        from pixiu_cli.views.presenters import error_line

        try:  # a turn this error cut off is labelled with its real cause
            app_.store.fail_own_pending(error_line(exc))
        except Exception:
            pass  # e.g. the disk is still full: it is labelled when the conversation reopens
        raise
    finally:
        app_.close()


def _read_stdin_text() -> str:
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise CliError("标准输入不是有效的 UTF-8 文本") from None


def _require_utf8(text: str) -> None:
    """Arguments arrive with undecodable bytes as surrogates; refuse them before storing."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise CliError("问题含有无效的 UTF-8 字节") from None


def _pick_conversation(app_, resume: int | None, continue_: bool) -> int | None:
    store = app_.store
    if resume is not None:
        if store.get_conversation(resume) is None:
            raise CliError(f"没有 ID 为 {resume} 的对话（pixiu chat 里用 /sessions 查看）")
        store.mark_stale_pending(resume)
        return resume
    if continue_:
        latest = store.latest_conversation()
        if latest is None:
            raise CliError("还没有可以继续的对话")
        store.mark_stale_pending(latest.id)
        return latest.id
    return None


@app.callback(invoke_without_command=True)
def root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        chat(demo=False, resume=None, continue_=False, model=None, offline=False)


@app.command()
def chat(
    demo: Annotated[bool, typer.Option("--demo", help="使用演示数据库（真实 A 股名称的示例持仓）")] = False,
    resume: Annotated[int | None, typer.Option("--resume", help="继续指定 ID 的对话")] = None,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="继续最近的对话")] = False,
    model: ModelOpt = None,
    offline: OfflineOpt = False,
) -> None:
    """交互式对话（默认命令）。"""
    if resume is not None and continue_:
        raise CliError("--resume 和 --continue 只能选一个")
    with _opened(model, offline, demo, resume, continue_) as (renderer, app_, conversation_id):
        from pixiu_cli.repl.loop import run_repl
        from pixiu_cli.repl.state import ReplState

        state = ReplState(app=app_, renderer=renderer, conversation_id=conversation_id)
        where = f"继续对话 {conversation_id}" if conversation_id else "新对话"
        renderer.banner(mode_line=app_.mode_line, conversation_line=f"{where} · 数据目录 {app_.settings.home}")
        run_repl(state)


@app.command()
def ask(
    text: Annotated[str, typer.Argument(help="问题；为 - 时从标准输入读取")],
    as_json: Annotated[bool, typer.Option("--json", help="输出一个 JSON 对象")] = False,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="接着最近的对话问")] = False,
    conversation: Annotated[int | None, typer.Option("--conversation", help="接着指定 ID 的对话问")] = None,
    model: ModelOpt = None,
    offline: OfflineOpt = False,
    demo: DemoOpt = False,
    retry_partial: Annotated[
        bool | None,
        typer.Option(
            "--retry-partial/--no-retry-partial",
            help="回复中途断开时自动重新生成（--json 时默认开启）；开启后回答在完成后一次输出",
        ),
    ] = None,
) -> None:
    """问一个问题并退出（不进入交互界面）。"""
    if conversation is not None and continue_:
        raise CliError("--conversation 和 --continue 只能选一个")
    if text == "-":
        text = _read_stdin_text()
    _require_utf8(text)
    if not text.strip():
        raise CliError("问题为空")
    from pixiu_cli.unsent import keep, sent

    spool = keep(_settings(model, offline).home, text)
    try:
        _ask(text, as_json, continue_, conversation, model, offline, demo, retry_partial)
    except Exception as exc:
        from pixiu_cli.store.database import lock_timeout_line

        if lock_timeout_line(exc):
            raise CliError(f"{lock_timeout_line(exc)}你的问题已保存在 {spool}（pixiu ask - < 该文件 可重发）") from None
        sent(spool)
        raise
    sent(spool)


def _ask(
    text: str,
    as_json: bool,
    continue_: bool,
    conversation: int | None,
    model: str | None,
    offline: bool,
    demo: bool,
    retry_partial: bool | None,
) -> None:
    from pixiu_cli.accounting.explain import one_shot_explanations
    from pixiu_cli.agent.loop import SilentSink

    with (
        one_shot_explanations(),
        _opened(model, offline, demo, conversation, continue_) as (renderer, app_, conversation_id),
    ):
        if conversation_id is None:
            conversation_id = app_.store.create_conversation(model=app_.settings.model).id
        retry_partial = as_json if retry_partial is None else retry_partial
        if as_json or retry_partial:
            # A retried reply must not follow half of the first one on stdout: print it whole.
            result = app_.agent.run_turn(conversation_id, text, SilentSink(), retry_partial=retry_partial)
            if not as_json and result.reply:
                renderer.markdown(result.reply)
        else:
            with renderer.reply() as stream:
                result = app_.agent.run_turn(conversation_id, text, stream)
        if as_json:
            u = result.usage
            renderer.raw(
                json.dumps(
                    {
                        "conversation_id": result.conversation_id,
                        "turn_id": result.turn_id,
                        "turn": result.seq,
                        "reply": result.reply,
                        "status": result.status,
                        "error": result.error,
                        "notices": list(result.notices),
                        "model": app_.settings.model,
                        "offline": app_.settings.offline,
                        "attempts": result.attempts,
                        "usage": {
                            "prompt_tokens": u.prompt_tokens,
                            "completion_tokens": u.completion_tokens,
                            "cache_hit_tokens": u.cache_hit_tokens,
                            "cache_miss_tokens": u.cache_miss_tokens,
                        },
                    },
                    ensure_ascii=False,
                )
            )
        elif result.error:
            renderer.error(result.error)
        if result.status != "complete":
            raise typer.Exit(1)


@app.command()
def context(
    text: Annotated[str | None, typer.Argument(help="假设要问的问题；省略时显示最近一次真实调用")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="输出消息列表 JSON")] = False,
    raw: Annotated[bool, typer.Option("--raw", help="原样输出发送的请求字节")] = False,
    pretty: Annotated[bool, typer.Option("--pretty", help="输出缩进后的请求 JSON")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="与上一次调用的请求比较")] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="输出上下文块的 JSON 摘要，含选择依据（selection）")
    ] = False,
    conversation: Annotated[int | None, typer.Option("--conversation", help="对话 ID（默认最近的对话）")] = None,
    turn: Annotated[int | None, typer.Option("--turn", help="查看第 N 轮的调用", min=1)] = None,
    demo: DemoOpt = False,
) -> None:
    """显示模型看到（或将要看到）的完整上下文，不调用模型。"""
    view = _ContextView(as_json=as_json, raw=raw, pretty=pretty, diff=diff, explain=explain)
    if view.chosen() > 1:
        raise CliError("--json、--raw、--pretty、--diff、--explain 只能选一个")
    renderer = _renderer()
    app_ = _open(None, False, demo, calls_model=False)
    try:
        if conversation is not None and app_.store.get_conversation(conversation) is None:
            raise CliError(f"没有 ID 为 {conversation} 的对话")
        if text is not None:
            _show_context_preview(renderer, app_, conversation, text, view, turn)
        else:
            _show_context_of_call(renderer, app_.store, conversation, view, turn)
    finally:
        app_.close()


@dataclass(frozen=True)
class _ContextView:
    """The output flags of `pixiu context`; at most one may be set."""

    as_json: bool
    raw: bool
    pretty: bool
    diff: bool
    explain: bool

    def chosen(self) -> int:
        return sum([self.as_json, self.raw, self.pretty, self.diff, self.explain])

    def stored_mode(self) -> str:
        flags = (("json", self.as_json), ("raw", self.raw), ("pretty", self.pretty), ("diff", self.diff))
        return next((mode for mode, on in flags if on), "explain" if self.explain else "table")


def _show_context_preview(renderer, app_, conversation: int | None, text: str, view: _ContextView, turn) -> None:
    """The request a question would send now, built without calling the model."""
    from pixiu_cli.views.presenters import show_request

    if text == "-":
        text = _read_stdin_text()
    _require_utf8(text)
    if view.diff or turn:
        raise CliError("--diff / --turn 用于查看已发生的调用，不能与 TEXT 一起用")
    request, info = app_.agent.preview(conversation, text)
    if view.explain:
        renderer.json(info or {})
        return
    if view.as_json:
        renderer.json_text(json.dumps(request["messages"], ensure_ascii=False, indent=2), exact_when_piped=True)
        return
    show_request(
        renderer,
        request,
        info,
        title="将要发送的请求（未调用模型）",
        mode="raw" if view.raw else "pretty" if view.pretty else "table",
    )


def _show_context_of_call(renderer, store, conversation: int | None, view: _ContextView, turn: int | None) -> None:
    """A call already made: the latest one of the conversation, or the one of turn N."""
    from pixiu_cli.views.presenters import show_stored_call

    latest = store.latest_conversation()
    conv_id = conversation or (latest.id if latest else None)
    show_stored_call(renderer, store, conv_id, turn_seq=turn, mode=view.stored_mode())


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


def _db_path(settings, demo: bool):
    return settings.demo_db_path if demo else settings.db_path


def _backup_now(db, settings, demo: bool):
    from datetime import datetime

    from pixiu_cli.dataset import SHANGHAI
    from pixiu_cli.store.backup import backup_database

    return backup_database(db, settings.home / "backups", datetime.now(SHANGHAI), "pixiu-demo" if demo else "pixiu")


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
        lines.append(line)
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


@app.command("import")
def import_data(
    file: Annotated[str, typer.Argument(help="JSON 文档（格式见 README：holdings、profiles、news…）")],
    replace: Annotated[bool, typer.Option("--replace", help="整体替换现有数据（替换前自动备份数据库）")] = False,
    demo: DemoOpt = False,
) -> None:
    """导入领域数据：默认按自然键合并（对话中记下的笔记和交易不受影响）；文件有误时一条也不导入。"""
    from datetime import datetime
    from pathlib import Path

    from pixiu_cli.dataset import SHANGHAI, DatasetError, load_document
    from pixiu_cli.store.database import open_database
    from pixiu_cli.store.domain import DomainStore
    from pixiu_cli.store.imports import merge_document

    settings = _settings()
    try:
        data = load_document(Path(file), datetime.now(SHANGHAI))
    except DatasetError as exc:
        raise CliError(f"导入失败，未做任何修改：{exc}") from None
    renderer = _renderer()
    db = open_database(_db_path(settings, demo))
    try:
        if replace:
            saved = _backup_now(db, settings, demo)
            renderer.info(f"已备份当前数据库到 {saved}（pixiu restore 该文件可还原）")
            DomainStore(db).replace_all(data)
        else:
            result = merge_document(db, data)
        _register_securities(db, data)
    finally:
        db.close()
    if replace:
        counts = "，".join(
            f"{name} {len(getattr(data, name))}"
            for name in ("holdings", "profiles", "news", "signals", "reports", "decisions", "alerts", "notes")
        )
        renderer.info(f"已替换全部数据：{counts}，persona {len(data.persona)} 项。")
        return
    lines, warnings = _merge_lines(result)
    renderer.info("已合并导入：")
    for line in lines:
        renderer.line(line)
    for warning in warnings:
        renderer.warn(warning)


def _register_securities(db, data) -> None:
    """Every stock the import has data about joins the security master, so its name is
    recognised in questions even when it is not held (五粮液 with a stored profile)."""
    from pixiu_cli.selection.names import securities_for_document
    from pixiu_cli.store.securities import SecurityMaster

    SecurityMaster(db).upsert(securities_for_document(data), keep_names=True)


@app.command("export")
def export_data(
    output: Annotated[str | None, typer.Option("--output", "-o", help="写入文件（默认标准输出）")] = None,
    demo: DemoOpt = False,
) -> None:
    """导出全部领域数据为一个 JSON 文档（可再导入）。"""
    from datetime import datetime
    from pathlib import Path

    from pixiu_cli.dataset import SHANGHAI, export_document
    from pixiu_cli.store.database import open_database
    from pixiu_cli.store.domain import DomainStore

    settings = _settings()
    db = open_database(_db_path(settings, demo))
    try:
        document, notes = export_document(DomainStore(db).export(), datetime.now(SHANGHAI))
    finally:
        db.close()
    text = json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False)
    from pixiu_cli.render import terminal_json

    # Bidi overrides and C1 controls in stored text are written as \uXXXX escapes: the same
    # JSON value (a re-import restores them exactly), but nothing that acts on a terminal.
    text = terminal_json(text)
    renderer = _renderer()
    for note in notes:
        renderer.warn(f"导出：{note}")
    if output:
        try:
            Path(output).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(f"无法写入 {output}：{exc.strerror or type(exc).__name__}") from None
        renderer.info(f"已导出到 {output}")
    else:
        renderer.raw(text)


@app.command("backup")
def backup_command(demo: DemoOpt = False) -> None:
    """把数据库完整备份到 PIXIU_HOME/backups/（SQLite 在线备份，可在其他终端使用时进行）。"""
    from pixiu_cli.store.database import open_database

    settings = _settings()
    db = open_database(_db_path(settings, demo))
    try:
        saved = _backup_now(db, settings, demo)
    finally:
        db.close()
    _renderer().info(f"已备份到 {saved}")


@app.command("restore")
def restore_command(
    file: Annotated[str, typer.Argument(help="pixiu backup 写出的备份文件")], demo: DemoOpt = False
) -> None:
    """用备份文件还原数据库（先检查文件，并先备份当前数据库）。"""
    from pathlib import Path

    from pixiu_cli.store.backup import check_pixiu_database, restore_database
    from pixiu_cli.store.database import open_database

    settings = _settings()
    source = Path(file)
    check_pixiu_database(source)
    target = _db_path(settings, demo)
    if target.exists() and source.resolve() == target.resolve():
        raise CliError("不能用正在使用的数据库文件还原它自己")
    renderer = _renderer()
    db = open_database(target)
    try:
        saved = _backup_now(db, settings, demo)
        renderer.info(f"已先备份当前数据库到 {saved}")
        restore_database(db, source)
    finally:
        db.close()
    renderer.info(f"已从 {source} 还原数据库")


@app.command("cache")
def cache(
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON")] = False,
    conversation: Annotated[int | None, typer.Option("--conversation", help="对话 ID（默认最近的对话）")] = None,
    demo: DemoOpt = False,
) -> None:
    """缓存命中、费用与节省（本对话 / 今天 / 全部），以及每次调用未命中的原因。"""
    from pixiu_cli.accounting.report import build_report
    from pixiu_cli.store.conversations import ConversationStore
    from pixiu_cli.store.database import open_database
    from pixiu_cli.views.presenters import show_cache

    settings = _settings()
    db = open_database(settings.demo_db_path if demo else settings.db_path)
    try:
        store = ConversationStore(db)
        if conversation is not None and store.get_conversation(conversation) is None:
            raise CliError(f"没有 ID 为 {conversation} 的对话")
        latest = store.latest_conversation()
        conv_id = conversation if conversation is not None else (latest.id if latest else None)
        report = build_report(store, conv_id, settings.prices)
    finally:
        db.close()
    renderer = _renderer()
    if as_json:
        renderer.json(report.as_json())
    else:
        show_cache(renderer, report)


@app.command("eval")
def eval_command(
    cases: Annotated[
        list[str] | None,
        typer.Argument(help="用例文件或目录（默认 data/evals/ 下全部；--live 时为 data/evals/answers/）"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON 汇总")] = False,
    live: Annotated[bool, typer.Option("--live", help="回答评测：经真实对话流程调用模型并给回复打分")] = False,
    ablate: Annotated[
        list[str] | None,
        typer.Option("--ablate", help="--live 时去掉的上下文部分（可重复或逗号分隔；all = 不发送 [上下文信息]）"),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="--live 时不询问费用确认")] = False,
    history: Annotated[bool, typer.Option("--history", help="查看以往的回答评测结果")] = False,
    model: ModelOpt = None,
    offline: OfflineOpt = False,
) -> None:
    """上下文评测：每个用例检查组装出的 [上下文信息] 中必须出现 / 不得出现的事实，按类别给出通过率。
    不指定用例时，另外报告选择语料（data/selection）的调参集和留出集通过率；加 --live 做回答评测（含消融对照）。"""
    from pathlib import Path

    if live or history:
        _live_eval(cases, as_json, live, ablate or [], yes, history, model, offline)
        return
    from pixiu_cli.evals.context_cases import load_cases
    from pixiu_cli.evals.context_runner import run_evals, run_selection_corpus, summarize, summarize_splits

    loaded = load_cases([Path(c) for c in cases] if cases else None)
    splits = run_selection_corpus() if not cases else {}
    report = run_evals(loaded)
    renderer = _renderer()
    if as_json:
        summary = dict(summarize(report))
        if splits:
            summary["selection"] = summarize_splits(splits)
        renderer.json(summary)
    else:
        _eval_table(renderer, "上下文评测（类别低于 100% 是上下文缺口，不是该删的用例）", report)
        names = {"tune": "调参集（规则据此调整）", "heldout": "留出集（只测量，从不据此调整）"}
        for split, split_report in splits.items():
            _eval_table(renderer, f"选择语料 · {names.get(split, split)}", split_report)
    if report.passed != report.total:
        raise typer.Exit(1)


def _eval_table(renderer, title: str, report) -> None:
    rows = [[name, f"{p}/{t}", f"{p / t:.0%}"] for name, (p, t) in report.by_category().items()]
    renderer.table(title, ["类别", "通过", "通过率"], rows)
    for line in report.failure_lines():
        renderer.line(line)
    renderer.line(f"{report.passed} passed, {report.total - report.passed} failed")


@app.command("alias")
def alias_command(
    name: Annotated[str | None, typer.Argument(help="别名，如 宁王")] = None,
    code: Annotated[str | None, typer.Argument(help="六位股票代码，如 300750")] = None,
    remove: Annotated[bool, typer.Option("--remove", help="删除这个别名")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="以 JSON 列出")] = False,
    demo: DemoOpt = False,
) -> None:
    """股票别名：pixiu alias 宁王 300750 设置；pixiu alias --remove 宁王 删除；不带参数列出全部。"""
    from pixiu_cli.selection.aliases import add_alias, alias_table, list_aliases, remove_alias
    from pixiu_cli.store.database import open_database
    from pixiu_cli.store.securities import SecurityMaster

    settings = _settings()
    db = open_database(settings.demo_db_path if demo else settings.db_path)
    renderer = _renderer()
    try:
        master = SecurityMaster(db)
        if name is None:
            rows = list_aliases(master)
            if as_json:
                renderer.json([r.__dict__ for r in rows])
            else:
                renderer.table("股票别名", ["别名", "代码", "名称", "来源"], alias_table(rows))
            return
        if remove:
            if code is not None:
                raise CliError("--remove 只需要别名")
            remove_alias(master, name)
            renderer.info(f"已删除别名 {name}")
            return
        if code is None:
            raise CliError("用法：pixiu alias 别名 代码（如 pixiu alias 宁王 300750）")
        row = add_alias(master, name, code)
        renderer.info(f"已设置别名：{row.alias} → {row.symbol}{' ' + row.name if row.name else ''}")
    finally:
        db.close()


def _live_eval(
    cases, as_json: bool, live: bool, ablate: list[str], yes: bool, history: bool, model: str | None, offline: bool
) -> None:
    from pathlib import Path

    from pixiu_cli.evals.answer_command import LiveOptions, render_history, render_report, run_command

    settings = _settings(model, offline)
    renderer = _renderer()
    if history:
        render_history(settings, renderer, as_json=as_json)
        return
    options = LiveOptions([Path(c) for c in cases] if cases else None, ablate, yes, as_json)
    report = run_command(settings, options, renderer)
    render_report(report, renderer, offline=settings.offline, as_json=as_json)


config_app = typer.Typer(help="查看或修改 PIXIU_HOME 下的 config.toml（写入时权限为 600）。", add_completion=False)
app.add_typer(config_app, name="config")


@config_app.command("set")
def config_set(
    key: Annotated[str, typer.Argument(help="设置名，如 model、api_key、context.notes_days")],
    value: Annotated[str, typer.Argument(help="值；为 - 时从标准输入读取（适合 API key，不留在 shell 历史里）")],
) -> None:
    """写入一项设置。"""
    from pixiu_cli.config_file import set_value, shown_value
    from pixiu_cli.settings import default_home, ensure_home, validate_config

    if value == "-":
        value = sys.stdin.readline().strip()
    path = ensure_home(default_home()) / "config.toml"
    set_value(path, key, value, validate=validate_config)
    _renderer().info(f"已写入 {path}：{key} = {shown_value(key, value)}")


@config_app.command("show")
def config_show() -> None:
    """显示当前 config.toml（密钥隐藏）。"""
    from pixiu_cli.config_file import dump_toml, masked, read_config
    from pixiu_cli.settings import default_home, ensure_home

    path = ensure_home(default_home()) / "config.toml"
    data = read_config(path)
    renderer = _renderer()
    renderer.dim(f"# {path}" + ("" if path.exists() else "（尚不存在）"))
    if data:
        renderer.raw(dump_toml(masked(data)))


@app.command("offline-server")
def offline_server(
    port: Annotated[int, typer.Option("--port", help="监听端口（0 表示随机）", min=0, max=65535)] = 8765,
    cache_profile: Annotated[str, typer.Option("--cache-profile", help="deepseek | openai | none")] = "deepseek",
    control: Annotated[
        bool, typer.Option("--control", help="开启 /_pixiu 控制接口（仅用于测试，需要启动时显示的令牌）")
    ] = False,
) -> None:
    """在前台运行离线 OpenAI 兼容服务（127.0.0.1），用于测试和无 key 体验。"""
    if cache_profile not in ("deepseek", "openai", "none"):
        raise CliError(f"--cache-profile 只能是 deepseek、openai 或 none，而不是 {cache_profile!r}")
    import errno

    from pixiu_cli.offline.server import OfflineServer

    renderer = _renderer()
    try:
        server = OfflineServer(cache_profile=cache_profile, port=port, control=control).bind()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CliError(f"端口 {port} 已被占用：请用 --port 换一个端口（--port 0 表示随机）") from None
        raise CliError(f"无法在端口 {port} 上启动离线服务：{exc.strerror or exc}") from None
    renderer.info(f"离线服务已启动：{server.base_url}（缓存模拟：{cache_profile}），按 Ctrl-C 停止。")
    if server.control_token:
        renderer.dim(f"控制接口令牌（请求头 X-Pixiu-Control-Token）：{server.control_token}")
    server.serve_in_foreground()  # until Ctrl-C


from pixiu_cli.market_commands import register as _register_market_commands  # noqa: E402

_register_market_commands(app)
from pixiu_cli.analytics_commands import register as _register_analytics_commands  # noqa: E402

_register_analytics_commands(app)


# The common entry points with only on/off flags (and, for ask, the question) are called
# directly: typer's parameter coercion imports pydantic just to check that the
# flags are bools, before the prompt can show or the question can be sent. Anything else
# (values, --help, unknown flags, a question starting with "-") goes through typer.
_FAST_FLAGS = {
    "chat": {"--demo": "demo", "--offline": "offline", "--continue": "continue_", "-c": "continue_"},
    "ask": {
        "--json": "as_json",
        "--offline": "offline",
        "--demo": "demo",
        "--continue": "continue_",
        "-c": "continue_",
    },
}
_FAST_DEFAULTS = {
    "chat": {"demo": False, "resume": None, "continue_": False, "model": None, "offline": False},
    "ask": {
        "as_json": False,
        "continue_": False,
        "conversation": None,
        "model": None,
        "offline": False,
        "demo": False,
        "retry_partial": None,
    },
}


def _fast_call(argv: list[str]):
    """(command, keyword arguments) when argv needs no parsing beyond on/off flags, else None.
    Bare `pixiu` is `pixiu chat` with every default."""
    name, rest = (argv[0], argv[1:]) if argv else ("chat", [])
    flags = _FAST_FLAGS.get(name)
    if flags is None:
        return None
    kwargs, words = dict(_FAST_DEFAULTS[name]), []
    for arg in rest:
        if arg in flags:
            kwargs[flags[arg]] = True
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            words.append(arg)
    if name == "chat":
        return (chat, kwargs) if not words else None
    return (ask, dict(kwargs, text=words[0])) if len(words) == 1 else None


def main() -> None:
    try:
        fast = _fast_call(sys.argv[1:])
        if fast is not None:
            command, kwargs = fast
            command(**kwargs)
            return
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # Whoever read our output has gone; say nothing more and let the shell see SIGPIPE.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    except typer.Abort:
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors (bad flags): click's one-line message
        if hasattr(exc, "show"):
            exc.show()
        sys.exit(getattr(exc, "exit_code", 2))
    except UserError as exc:
        _renderer().error(str(exc))
        sys.exit(exc.exit_code)
    except Exception as exc:
        from pixiu_cli.views.presenters import error_line

        _renderer().error(error_line(exc))
        sys.exit(1)
