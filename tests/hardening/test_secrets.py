"""The API key never leaves memory: not into the database, the input history, exports,
/context or `pixiu context` output, /cache, error messages, one-line crash reports or
Python tracebacks.

One session exercises everything with planted keys in the environment (PIXIU_API_KEY,
DEEPSEEK_API_KEY) AND in config.toml (api_key, deepseek_api_key): import, `pixiu ask`
(plain, --json, a tool call), REPL turns, /context (table, --raw, --json, --diff), /cache,
/sessions, /memory, `pixiu context`, `pixiu cache`, `pixiu export` (stdout and a file),
an auth error 401 (REPL and ask), a connection error to a dead port, a config-only key,
and three kinds of crash: the one-line 意外错误 report (main's guard and the REPL's), a raw
Python traceback (the typer app run without main's guard) and a hard crash (SIGSEGV with
faulthandler). Then every file under PIXIU_HOME (except the config.toml the user wrote),
every captured stdout/stderr and terminal transcript and every exported file is searched
for each key and for its last eight characters.
"""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import Fault, ScriptedReply, ToolCallSpec
from tests.helpers import PIXIU_BIN, PLANTED_KEY, PROMPT, pixiu_in_process, refused_port, say

ENV_DEEPSEEK_KEY = "sk-pixiuenvds" + "0f1e2d3c4b5a6978" * 2
CONFIG_KEY = "sk-pixiucfg" + "a1b2c3d4e5f6a7b8" * 2
CONFIG_DEEPSEEK_KEY = "sk-pixiucfgds" + "9f8e7d6c5b4a3f2e" * 2
KEYS = (PLANTED_KEY, ENV_DEEPSEEK_KEY, CONFIG_KEY, CONFIG_DEEPSEEK_KEY)
NEEDLES = tuple(k for key in KEYS for k in (key, key[-8:]))
FIXTURE = Path(__file__).parents[1] / "fixtures" / "small_portfolio.json"
STATUS = r"输入 \S+ tokens"


def leaked(data: str | bytes) -> list[str]:
    if isinstance(data, bytes):
        return [n for n in NEEDLES if n.encode() in data]
    return [n for n in NEEDLES if n in data]


def write_config(home: Path) -> Path:
    path = home / "config.toml"
    path.write_text(
        f'api_key = "{CONFIG_KEY}"\ndeepseek_api_key = "{CONFIG_DEEPSEEK_KEY}"\nmodel = "deepseek-test"\n',
        encoding="utf-8",
    )
    path.chmod(0o644)  # readable by others: pixiu warns, and the warning must not show the key
    return path


class Transcript:
    """Everything pixiu printed in this test, to search at the end."""

    def __init__(self):
        self.parts: list[tuple[str, bytes]] = []

    def run(self, env, *args, input_bytes=None, python=None, timeout=60):
        """`pixiu ARGS` in process (a command's output and files are a new process's), knowing
        no secret beforehand as a new process does; with `python`, that script in a process
        of its own (a crash, a raw traceback)."""
        if python is None:
            from pixiu_cli.kernel import safe_text as redact

            with mock.patch.object(redact, "_SECRETS", set()):
                done = pixiu_in_process(env, *args, input_bytes=input_bytes)
        else:
            cmd = [sys.executable, "-c", python, *args]
            done = subprocess.run(cmd, env=env, input=input_bytes, capture_output=True, timeout=timeout)
        self.parts.append((" ".join(args), done.stdout + b"\n" + done.stderr))
        return done

    def add(self, label: str, text: str) -> None:
        self.parts.append((label, text.encode()))


RAW_APP = "import sys; from pixiu_cli.cli.root import app; sys.argv = ['pixiu', *sys.argv[1:]]; app()"
DEEP_ARGUMENTS = "[" * 100_000  # json.loads raises RecursionError on it (conversation/agent/guardrails.py)
BIG_CHUNK = 8192  # streamed in a dozen chunks, not 25,000: the size under test is the arguments'
# Real crashes, in the real process: the model client is made to fail the way a library may,
# with the request's Authorization header in its message ("崩溃测试"), or with a plain bug
# ("无保护"). Any other question goes through unchanged.
CRASHING_CLIENT = (
    "import sys\n"
    "import pixiu_cli.conversation.llm.client as c\n"
    "original = c.ChatClient.stream\n"
    "def stream(self, request, outcome, **options):\n"
    "    asked = str(request.messages[-1].get('content'))\n"
    "    if '崩溃测试' in asked:\n"
    "        raise RuntimeError(f'transport failed; headers: Authorization: Bearer {self._api_key}')\n"
    "    if '无保护' in asked:\n"
    "        raise KeyError('scene')\n"
    "    return original(self, request, outcome, **options)\n"
    "c.ChatClient.stream = stream\n"
    "sys.argv = ['pixiu', *sys.argv[1:]]\n"
)
GUARDED = CRASHING_CLIENT + "from pixiu_cli.cli import main; main()\n"
UNGUARDED = CRASHING_CLIENT + "from pixiu_cli.cli.root import app; app()\n"
CRASH_LINE = "错误：意外错误（RuntimeError）：transport failed; headers: Authorization: Bearer ***\n"


@pytest.mark.slow
@pytest.mark.pty
@pytest.mark.timeout(400)  # a REPL session and four crashing processes: slow on a busy machine
def test_key_never_leaves_memory(server, online_env, pixiu_home, tmp_path):
    write_config(pixiu_home)
    env = dict(online_env, DEEPSEEK_API_KEY=ENV_DEEPSEEK_KEY, PIXIU_MAX_RETRIES="0")
    out = Transcript()
    exported = tmp_path / "export.json"

    # one-shot commands --------------------------------------------------------------
    assert out.run(env, "import", str(FIXTURE)).returncode == 0
    server.enqueue(ScriptedReply(text="茅台是白酒龙头。"))
    done = out.run(env, "ask", "茅台怎么看")
    assert done.returncode == 0 and "chmod 600" in done.stderr.decode()  # the warning names the file only
    assert server.requests[-1].sent_key(PLANTED_KEY)  # the environment's key was really sent
    server.enqueue(
        ScriptedReply(tool_calls=[ToolCallSpec("remember", json.dumps({"text": "茅台回踩 1500 加仓"}))]),
        ScriptedReply(text="记下了。"),
    )
    assert out.run(env, "ask", "--json", "--continue", "记住：茅台回踩 1500 加仓").returncode == 0
    server.inject(Fault("http_error", status=401))
    done = out.run(env, "ask", "--continue", "再问一次")
    assert done.returncode == 1 and "401" in done.stderr.decode()
    with refused_port() as port:
        done = out.run(dict(env, PIXIU_BASE_URL=f"http://127.0.0.1:{port}/v1"), "ask", "--continue", "连不上")
    assert done.returncode == 1 and "无法连接模型服务" in done.stderr.decode()
    # only config.toml holds a key: it is used, and still never shown
    config_only = {k: v for k, v in env.items() if k not in ("PIXIU_API_KEY", "DEEPSEEK_API_KEY")}
    server.enqueue(ScriptedReply(text="配置文件里的 key 也能用。"))
    assert out.run(dict(config_only, PIXIU_BASE_URL=server.base_url), "ask", "--continue", "配置文件").returncode == 0
    assert server.requests[-1].sent_key(CONFIG_KEY)
    # absurdly deep tool arguments are a tool error for the model, not a crash
    server.enqueue(
        ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", DEEP_ARGUMENTS)], chunk_chars=BIG_CHUNK),
        ScriptedReply(text="好"),
    )
    done = out.run(env, "ask", "--continue", "深层参数")
    assert done.returncode == 0 and done.stderr.decode().count("\n") == 1, done.stderr  # the chmod warning
    # a crash reported by main's guard, its message carrying the key: one line, key scrubbed
    done = out.run(env, "ask", "--continue", "崩溃测试", python=GUARDED)
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 2 and err.endswith(CRASH_LINE), err
    # a crash without main's guard: a raw Python traceback
    done = out.run(env, "ask", "--continue", "无保护", python=UNGUARDED)
    assert done.returncode == 1 and b"Traceback" in done.stderr and b"KeyError: 'scene'" in done.stderr
    bad_config = tmp_path / "bad-home"
    bad_config.mkdir()
    (bad_config / "config.toml").write_text(f"api_key = {CONFIG_KEY}\n", encoding="utf-8")  # unquoted: TOML error
    done = out.run(dict(env, PIXIU_HOME=str(bad_config)), "ask", "你好")
    assert done.returncode == 1 and "格式错误" in done.stderr.decode()
    done = out.run(dict(env, PIXIU_HOME=str(bad_config)), "ask", "你好", python=RAW_APP)
    assert b"Traceback" in done.stderr  # SettingsError unguarded

    # the REPL ------------------------------------------------------------------------------
    child = pexpect.spawn(
        sys.executable,
        ["-c", GUARDED, "chat", "--continue"],
        encoding="utf-8",
        timeout=40,
        dimensions=(40, 110),
        env=dict(
            env, PYTHONFAULTHANDLER="1", PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="110", LINES="40"
        ),
    )
    log = io.StringIO()
    child.logfile_read = log
    try:
        child.expect(PROMPT)
        server.enqueue(ScriptedReply(text="宁德弹性大，仓位宜小。"))
        say(child, "宁德时代呢")
        child.expect("仓位宜小")
        child.expect(STATUS)
        child.expect(PROMPT)
        for command, marker in (
            ("/context", "分节"),
            ("/context --raw", '"messages"'),
            ("/context --json", '"role"'),
            ("/context --diff", "与上一次请求"),
            ("/cache", "缓存"),
            ("/sessions", "最近的对话"),
            ("/memory", "记忆"),
            ("/remember 海康跌破 30 元减仓", "已记住"),
        ):
            say(child, command)
            child.expect(marker)
            child.expect(PROMPT)
        server.inject(Fault("http_error", status=401))
        say(child, "认证失败的问题")
        child.expect("API key 无效或已失效（401）")
        child.expect(PROMPT)
        server.enqueue(
            ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", DEEP_ARGUMENTS)], chunk_chars=BIG_CHUNK),
            ScriptedReply(text="深层参数之后"),
        )
        say(child, "深层参数")
        child.expect("深层参数之后")
        child.expect(STATUS)
        child.expect(PROMPT)
        # the REPL's own guard: one line, the key scrubbed, and the session goes on
        say(child, "崩溃测试")
        child.expect(r"意外错误（RuntimeError）：transport failed; headers: Authorization: Bearer \*\*\*")
        child.expect(PROMPT)
        # the deep arguments (~50k tokens) now stay in the history; a new conversation keeps
        # the next turn from compacting them first (the summary call would take the reply)
        say(child, "/new")
        child.expect("新对话")
        child.expect(PROMPT)
        # a hard crash in the middle of a streamed reply: faulthandler dumps every thread
        server.enqueue(ScriptedReply(text="很慢的回复，" * 200, chunk_chars=2, chunk_delay=0.05))
        say(child, "讲个长的")
        child.expect("很慢")
        child.kill(signal.SIGSEGV)
        child.expect("Fatal Python error: Segmentation fault")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    out.add("repl", log.getvalue())

    # reading it all back --------------------------------------------------------------------
    for args in (
        ("context",),
        ("context", "--raw"),
        ("context", "--json"),
        ("context", "--diff"),
        ("cache",),
        ("cache", "--json"),
        ("export",),
        ("export", "-o", str(exported)),
    ):
        assert out.run(env, *args).returncode == 0, args
    server.enqueue(ScriptedReply(text="崩溃之后照常。"))
    assert out.run(env, "ask", "--continue", "崩溃之后").returncode == 0

    # nothing anywhere ----------------------------------------------------------------------
    for label, data in out.parts:
        assert not leaked(data), (label, leaked(data), data[-2000:])
    assert not leaked(exported.read_bytes())
    files = [p for p in pixiu_home.rglob("*") if p.is_file() and p.name != "config.toml"]
    assert {p.name for p in files} >= {"pixiu.db", "input_history"}
    for path in files:
        assert not leaked(path.read_bytes()), (path, leaked(path.read_bytes()))


def test_repr_of_settings_app_and_client_hide_the_key(server, pixiu_home):
    from pixiu_cli.app import open_app
    from pixiu_cli.conversation.llm.client import ChatClient
    from pixiu_cli.kernel.settings import load_settings

    write_config(pixiu_home)
    env = {
        "PIXIU_HOME": str(pixiu_home),
        "PIXIU_API_KEY": PLANTED_KEY,
        "DEEPSEEK_API_KEY": ENV_DEEPSEEK_KEY,
        "PIXIU_BASE_URL": server.base_url,
        "PIXIU_MODEL": "deepseek-test",
    }
    with mock.patch.dict(os.environ, env, clear=True):
        settings = load_settings()
    assert settings.api_key == PLANTED_KEY
    app = open_app(settings)
    try:
        client = app.agent.client
        client._client()  # the SDK client exists and holds the key
        shown = [
            repr(settings),
            str(settings),
            repr(app),
            str(app),
            repr(client),
            str(client),
            repr(client._sdk),
            repr(app.agent),
            repr(app.agent.compactor),
        ]
        for text in shown:
            assert not leaked(text), text
        assert repr(client) == f"ChatClient(base_url={server.base_url!r}, model='deepseek-test')"
    finally:
        app.close()
    with mock.patch.dict(os.environ, {"PIXIU_HOME": str(pixiu_home)}, clear=True):
        from_config = load_settings()  # only config.toml: its api_key is used
    assert from_config.api_key == CONFIG_KEY and not leaked(repr(from_config))
    direct = ChatClient(base_url="http://127.0.0.1:9/v1", api_key=CONFIG_DEEPSEEK_KEY, model="m", provider="deepseek")
    assert not leaked(repr(direct)) and not leaked(str(direct))


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 422, 429, 500, 503])
def test_error_messages_never_echo_the_key(status):
    """Some providers echo the key, whole or masked, in an error body; what reaches the
    user (and the database) is scrubbed of the key and of its last eight characters."""
    try:
        import httpx2 as httpx  # what this openai SDK is built on
    except ImportError:  # pragma: no cover - older SDKs
        import httpx
    import openai

    from pixiu_cli.conversation.llm.client import ChatClient, translated_error

    client = ChatClient(base_url="https://api.example.com/v1", api_key=PLANTED_KEY, model="m", provider="x")
    body = {"error": {"message": f"Incorrect API key provided: {PLANTED_KEY} (sk-pix…{PLANTED_KEY[-8:]})"}}
    response = httpx.Response(status, json=body, request=httpx.Request("POST", "https://api.example.com/v1/x"))
    error = openai.APIStatusError(body["error"]["message"], response=response, body=body)
    message = str(translated_error(error, client))
    assert message and "\n" not in message and not leaked(message), message
    streamed = openai.APIError(f"stream error for key {PLANTED_KEY}", request=response.request, body=None)
    assert not leaked(str(translated_error(streamed, client)))


@pytest.mark.slow
def test_config_file_permission_warning_names_the_file_not_the_key(online_env, pixiu_home, server):
    path = write_config(pixiu_home)
    assert path.stat().st_mode & stat.S_IROTH
    server.enqueue(ScriptedReply(text="好"))
    done = subprocess.run([PIXIU_BIN, "ask", "你好"], env=online_env, capture_output=True, timeout=60)
    err = done.stderr.decode()
    assert (
        done.returncode == 0 and err == f"注意：配置文件 {path} 含 API key 且其他用户可读，建议执行 chmod 600 {path}\n"
    )


def test_error_lines_scrub_every_known_secret_and_url_credentials(pixiu_home):
    from pixiu_cli.kernel.render import Renderer
    from pixiu_cli.kernel.settings import load_settings

    write_config(pixiu_home)
    env = {
        "PIXIU_HOME": str(pixiu_home),
        "DEEPSEEK_API_KEY": ENV_DEEPSEEK_KEY,
        "PIXIU_BASE_URL": "https://bob:s3cr3t-pass@api.example.com/v1",
    }
    with mock.patch.dict(os.environ, env, clear=True):
        load_settings()
    out, err = io.StringIO(), io.StringIO()
    renderer = Renderer(file=out, rich_output=False, stderr=err)
    for key in (ENV_DEEPSEEK_KEY, CONFIG_KEY, CONFIG_DEEPSEEK_KEY):
        renderer.error(f"boom {key} / masked sk-…{key[-8:]}")
        renderer.warn(f"careful {key}")
    renderer.error("GET https://bob:s3cr3t-pass@api.example.com/v1 failed; also ftp://u:p@h/x")
    shown = out.getvalue() + err.getvalue()
    assert not leaked(shown) and "s3cr3t-pass" not in shown and "bob" not in shown and "u:p@" not in shown
    assert shown.count("***") >= 8 and "https://***@api.example.com/v1" in shown
