"""The command line. Parses flags and delegates; heavy modules are imported inside commands
so `pixiu --help` stays fast (it never imports openai)."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Annotated, Optional

import typer

app = typer.Typer(
    name="pixiu",
    help="貔貅 pixiu：A 股投资者的终端助理（DeepSeek 或任意 OpenAI 兼容接口；无 key 时离线）。",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

ModelOpt = Annotated[Optional[str], typer.Option("--model", help="模型名（覆盖 PIXIU_MODEL）")]
OfflineOpt = Annotated[bool, typer.Option("--offline", help="即使设置了 API key 也使用离线应答器")]


class CliError(Exception):
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
    resume: Annotated[Optional[int], typer.Option("--resume", help="继续指定 ID 的对话")] = None,
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
    conversation: Annotated[Optional[int], typer.Option("--conversation", help="接着指定 ID 的对话问")] = None,
    model: ModelOpt = None,
    offline: OfflineOpt = False,
    demo: DemoOpt = False,
) -> None:
    """问一个问题并退出（不进入交互界面）。"""
    from pixiu_cli.agent.loop import SilentSink

    if conversation is not None and continue_:
        raise CliError("--conversation 和 --continue 只能选一个")
    if text == "-":
        text = _read_stdin_text()
    _require_utf8(text)
    if not text.strip():
        raise CliError("问题为空")
    with _opened(model, offline, demo, conversation, continue_) as (renderer, app_, conversation_id):
        if conversation_id is None:
            conversation_id = app_.store.create_conversation(model=app_.settings.model).id
        if as_json:
            result = app_.agent.run_turn(conversation_id, text, SilentSink())
        else:
            with renderer.reply() as stream:
                result = app_.agent.run_turn(conversation_id, text, stream)
        if as_json:
            u = result.usage
            renderer.raw(json.dumps({
                "conversation_id": result.conversation_id, "turn_id": result.turn_id, "turn": result.seq,
                "reply": result.reply, "status": result.status, "error": result.error,
                "model": app_.settings.model, "offline": app_.settings.offline,
                "usage": {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                          "cache_hit_tokens": u.cache_hit_tokens, "cache_miss_tokens": u.cache_miss_tokens},
            }, ensure_ascii=False))
        elif result.error:
            renderer.error(result.error)
        if result.status != "complete":
            raise typer.Exit(1)


@app.command()
def context(
    text: Annotated[Optional[str], typer.Argument(help="假设要问的问题；省略时显示最近一次真实调用")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="输出消息列表 JSON")] = False,
    raw: Annotated[bool, typer.Option("--raw", help="输出原样请求 JSON")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="与上一次调用的请求比较")] = False,
    conversation: Annotated[Optional[int], typer.Option("--conversation", help="对话 ID（默认最近的对话）")] = None,
    turn: Annotated[Optional[int], typer.Option("--turn", help="查看第 N 轮的调用", min=1)] = None,
    demo: DemoOpt = False,
) -> None:
    """显示模型看到（或将要看到）的完整上下文，不调用模型。"""
    from pixiu_cli.presenters import NothingToShow, show_request, show_stored_call

    if sum([as_json, raw, diff]) > 1:
        raise CliError("--json、--raw、--diff 只能选一个")
    renderer = _renderer()
    app_ = _open(None, False, demo, calls_model=False)
    try:
        store = app_.store
        if conversation is not None and store.get_conversation(conversation) is None:
            raise CliError(f"没有 ID 为 {conversation} 的对话")
        if text is not None:
            if text == "-":
                text = _read_stdin_text()
            _require_utf8(text)
            if diff or turn:
                raise CliError("--diff / --turn 用于查看已发生的调用，不能与 TEXT 一起用")
            request, info = app_.agent.preview(conversation, text)
            if as_json:
                renderer.raw(json.dumps(request["messages"], ensure_ascii=False, indent=2))
                return
            show_request(renderer, request, info, title="将要发送的请求（未调用模型）", mode="raw" if raw else "table")
            return
        latest = store.latest_conversation()
        conv_id = conversation or (latest.id if latest else None)
        mode = "json" if as_json else "raw" if raw else "diff" if diff else "table"
        try:
            show_stored_call(renderer, store, conv_id, turn_seq=turn, mode=mode)
        except NothingToShow as exc:
            raise CliError(str(exc)) from None
    finally:
        app_.close()


@app.command("import")
def import_data(
    file: Annotated[str, typer.Argument(help="JSON 文档（格式见 README：holdings、profiles、news…）")],
    demo: DemoOpt = False,
) -> None:
    """导入领域数据（整体替换；文件有误时一条也不导入）。"""
    from datetime import datetime
    from pathlib import Path

    from pixiu_cli.dataset import SHANGHAI, DatasetError, load_document
    from pixiu_cli.store.database import open_database
    from pixiu_cli.store.domain import DomainStore

    settings = _settings()
    try:
        data = load_document(Path(file), datetime.now(SHANGHAI))
    except DatasetError as exc:
        raise CliError(f"导入失败，未做任何修改：{exc}") from None
    db = open_database(settings.demo_db_path if demo else settings.db_path)
    try:
        DomainStore(db).replace_all(data)
    finally:
        db.close()
    counts = "，".join(f"{name} {len(getattr(data, name))}" for name in
                      ("holdings", "profiles", "news", "signals", "reports", "decisions", "alerts", "notes"))
    _renderer().info(f"已导入：{counts}，persona {len(data.persona)} 项。")


@app.command("export")
def export_data(
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="写入文件（默认标准输出）")] = None,
    demo: DemoOpt = False,
) -> None:
    """导出全部领域数据为一个 JSON 文档（可再导入）。"""
    from pathlib import Path

    from pixiu_cli.dataset import to_document
    from pixiu_cli.store.database import open_database
    from pixiu_cli.store.domain import DomainStore

    settings = _settings()
    db = open_database(settings.demo_db_path if demo else settings.db_path)
    try:
        text = json.dumps(to_document(DomainStore(db).export()), ensure_ascii=False, indent=2)
    finally:
        db.close()
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
        _renderer().info(f"已导出到 {output}")
    else:
        _renderer().raw(text)


@app.command("cache")
def cache(
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON")] = False,
    conversation: Annotated[Optional[int], typer.Option("--conversation", help="对话 ID（默认最近的对话）")] = None,
    demo: DemoOpt = False,
) -> None:
    """缓存命中、费用与节省（本对话 / 今天 / 全部），以及每次调用未命中的原因。"""
    from pixiu_cli.cache.prices import PriceTable
    from pixiu_cli.cache.report import build_report
    from pixiu_cli.presenters import show_cache
    from pixiu_cli.store.conversations import ConversationStore
    from pixiu_cli.store.database import open_database

    settings = _settings()
    db = open_database(settings.demo_db_path if demo else settings.db_path)
    try:
        store = ConversationStore(db)
        if conversation is not None and store.get_conversation(conversation) is None:
            raise CliError(f"没有 ID 为 {conversation} 的对话")
        latest = store.latest_conversation()
        conv_id = conversation if conversation is not None else (latest.id if latest else None)
        report = build_report(store, conv_id, PriceTable.from_mapping(settings.prices))
    finally:
        db.close()
    renderer = _renderer()
    if as_json:
        renderer.raw(json.dumps(report.as_json(), ensure_ascii=False, indent=2))
    else:
        show_cache(renderer, report)


@app.command("eval")
def eval_command(
    cases: Annotated[Optional[list[str]], typer.Argument(help="用例文件或目录（默认 data/evals/ 下全部；--live 时为 data/evals/answers/）")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON 汇总")] = False,
    live: Annotated[bool, typer.Option("--live", help="回答评测：经真实对话流程调用模型并给回复打分")] = False,
    ablate: Annotated[Optional[list[str]], typer.Option("--ablate", help="--live 时去掉的上下文部分（可重复或逗号分隔；all = 不发送 [上下文信息]）")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="--live 时不询问费用确认")] = False,
    history: Annotated[bool, typer.Option("--history", help="查看以往的回答评测结果")] = False,
    model: ModelOpt = None,
    offline: OfflineOpt = False,
) -> None:
    """上下文评测：每个用例检查组装出的 [上下文信息] 中必须出现 / 不得出现的事实，按类别给出通过率。
    加 --live 做回答评测（含消融对照）。"""
    from pathlib import Path

    if live or history:
        _live_eval(cases, as_json, live, ablate or [], yes, history, model, offline)
        return
    from pixiu_cli.context.evals import EvalError, load_cases, run_evals, summarize

    try:
        loaded = load_cases([Path(c) for c in cases] if cases else None)
    except EvalError as exc:
        raise CliError(str(exc)) from None
    report = run_evals(loaded)
    renderer = _renderer()
    if as_json:
        renderer.raw(json.dumps(summarize(report), ensure_ascii=False, indent=2))
    else:
        rows = [[name, f"{p}/{t}", f"{p / t:.0%}"] for name, (p, t) in report.by_category().items()]
        renderer.table("上下文评测（类别低于 100% 是上下文缺口，不是该删的用例）", ["类别", "通过", "通过率"], rows)
        for line in report.failure_lines():
            renderer.line(line)
        renderer.line(f"{report.passed} passed, {report.total - report.passed} failed")
    if report.passed != report.total:
        raise typer.Exit(1)


def _live_eval(cases, as_json: bool, live: bool, ablate: list[str], yes: bool, history: bool,
               model: str | None, offline: bool) -> None:
    from pathlib import Path

    from pixiu_cli.answer_evals.command import LiveEvalError, LiveOptions, render_history, render_report, \
        run_command
    from pixiu_cli.context.evals import EvalError

    settings = _settings(model, offline)
    renderer = _renderer()
    if history:
        render_history(settings, renderer, as_json=as_json)
        return
    options = LiveOptions([Path(c) for c in cases] if cases else None, ablate, yes, as_json)
    try:
        report = run_command(settings, options, renderer)
    except (LiveEvalError, EvalError) as exc:
        raise CliError(str(exc)) from None
    render_report(report, renderer, offline=settings.offline, as_json=as_json)


config_app = typer.Typer(help="查看或修改 PIXIU_HOME 下的 config.toml（写入时权限为 600）。", add_completion=False)
app.add_typer(config_app, name="config")


@config_app.command("set")
def config_set(
    key: Annotated[str, typer.Argument(help="设置名，如 model、api_key、context.notes_days")],
    value: Annotated[str, typer.Argument(help="值；为 - 时从标准输入读取（适合 API key，不留在 shell 历史里）")],
) -> None:
    """写入一项设置。"""
    from pixiu_cli.config_file import ConfigError, set_value
    from pixiu_cli.settings import default_home, validate_config

    if value == "-":
        value = sys.stdin.readline().strip()
    path = default_home() / "config.toml"
    try:
        set_value(path, key, value, validate=validate_config)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    shown = "（已隐藏）" if "key" in key else value
    _renderer().info(f"已写入 {path}：{key} = {shown}")


@config_app.command("show")
def config_show() -> None:
    """显示当前 config.toml（密钥隐藏）。"""
    from pixiu_cli.config_file import ConfigError, dump_toml, masked, read_config
    from pixiu_cli.settings import default_home

    path = default_home() / "config.toml"
    try:
        data = read_config(path)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    renderer = _renderer()
    renderer.dim(f"# {path}" + ("" if path.exists() else "（尚不存在）"))
    if data:
        renderer.raw(dump_toml(masked(data)))


@app.command("offline-server")
def offline_server(
    port: Annotated[int, typer.Option("--port", help="监听端口（0 表示随机）", min=0, max=65535)] = 8765,
    cache_profile: Annotated[str, typer.Option("--cache-profile", help="deepseek | openai | none")] = "deepseek",
) -> None:
    """在前台运行离线 OpenAI 兼容服务（127.0.0.1），用于测试和无 key 体验。"""
    if cache_profile not in ("deepseek", "openai", "none"):
        raise CliError(f"--cache-profile 只能是 deepseek、openai 或 none，而不是 {cache_profile!r}")
    from pixiu_cli.offline.server import OfflineServer

    renderer = _renderer()
    server = OfflineServer(cache_profile=cache_profile, port=port).start()
    renderer.info(f"离线服务已启动：{server.base_url}（缓存模拟：{cache_profile}），按 Ctrl-C 停止。")
    try:
        import threading

        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def _is_user_error(exc: Exception) -> bool:
    """CliError, SettingsError or StoreError: a one-line message, exit status 1. The last two
    are looked up only among modules already imported (an error of theirs can come from
    nowhere else), so `pixiu --help` does not import the store (sqlite-utils, ~50 ms)."""
    if isinstance(exc, CliError):
        return True
    for module, name in (("pixiu_cli.settings", "SettingsError"), ("pixiu_cli.store.database", "StoreError")):
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return True
    return False


def main() -> None:
    try:
        if len(sys.argv) == 1:
            # Bare `pixiu` is `pixiu chat` with every default. Calling it directly skips
            # typer's parameter coercion, which imports pydantic (~80 ms) just to check
            # that the absent --help flag is a bool — before the prompt can show.
            chat(demo=False, resume=None, continue_=False, model=None, offline=False)
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
    except Exception as exc:
        if _is_user_error(exc):
            _renderer().error(str(exc))
        else:  # anything unexpected: one line, no traceback
            _renderer().error(f"意外错误（{type(exc).__name__}）：{exc}")
        sys.exit(1)
