"""The command line. Parses flags and delegates; heavy modules are imported inside commands
so `pixiu --help` stays fast (it never imports openai)."""

from __future__ import annotations

import json
import sys
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


def _open(model: str | None, offline: bool, demo: bool = False):
    from pixiu_cli.app import open_app

    settings = _settings(model, offline)
    return open_app(settings, demo=demo)


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
    renderer = _renderer()
    app_ = _open(model, offline, demo)
    try:
        from pixiu_cli.repl.loop import run_repl
        from pixiu_cli.repl.state import ReplState

        for warning in app_.settings.warnings:
            renderer.warn(warning)
        conversation_id = _pick_conversation(app_, resume, continue_)
        state = ReplState(app=app_, renderer=renderer, conversation_id=conversation_id)
        where = f"继续对话 {conversation_id}" if conversation_id else "新对话"
        renderer.banner(mode_line=app_.mode_line, conversation_line=f"{where} · 数据目录 {app_.settings.home}")
        run_repl(state)
    finally:
        app_.close()


@app.command()
def ask(
    text: Annotated[str, typer.Argument(help="问题；为 - 时从标准输入读取")],
    as_json: Annotated[bool, typer.Option("--json", help="输出一个 JSON 对象")] = False,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="接着最近的对话问")] = False,
    conversation: Annotated[Optional[int], typer.Option("--conversation", help="接着指定 ID 的对话问")] = None,
    model: ModelOpt = None,
    offline: OfflineOpt = False,
) -> None:
    """问一个问题并退出（不进入交互界面）。"""
    from pixiu_cli.agent.loop import SilentSink

    if conversation is not None and continue_:
        raise CliError("--conversation 和 --continue 只能选一个")
    if text == "-":
        raw = sys.stdin.buffer.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise CliError("标准输入不是有效的 UTF-8 文本") from None
    if not text.strip():
        raise CliError("问题为空")
    renderer = _renderer()
    app_ = _open(model, offline)
    try:
        for warning in app_.settings.warnings:
            renderer.warn(warning)
        conversation_id = _pick_conversation(app_, conversation, continue_)
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
    finally:
        app_.close()


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


def main() -> None:
    from pixiu_cli.settings import SettingsError
    from pixiu_cli.store.database import StoreError

    try:
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except (CliError, SettingsError, StoreError) as exc:
        _renderer().error(str(exc))
        sys.exit(1)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except typer.Abort:
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors (bad flags): click's one-line message
        if hasattr(exc, "show"):
            exc.show()
        sys.exit(getattr(exc, "exit_code", 2))
    except Exception as exc:  # anything unexpected: one line, no traceback
        _renderer().error(f"意外错误（{type(exc).__name__}）：{exc}")
        sys.exit(1)
