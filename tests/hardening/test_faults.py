"""Every fault the offline server can inject, as a user meets it: through `pixiu ask` (as a
script runs it, in process: its output is a new process's) and through the REPL (a pseudo-terminal, one session running
through all faults in sequence).

For each fault the user sees exactly one clear line (no traceback, no key); a retryable
fault (429 with Retry-After, 500, 503, timeout) is retried when PIXIU_MAX_RETRIES allows
and the turn then succeeds, and with PIXIU_MAX_RETRIES=0 it fails with one line; whatever
happened, the conversation stays usable: the next turn succeeds and its request carries
the earlier history (plus, for a reply cut off mid-stream, the part that arrived; for a
failed call before any reply, nothing of the failed turn).

The fault table in docs/troubleshooting.md is this file's CASES written out.
"""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import Fault, ScriptedReply, ToolCallSpec
from pixiu_cli.conversation.store import add_request_function
from tests.helpers import PLANTED_KEY, PROMPT, pixiu_for_result, pixiu_in_process, refused_port, spawn

TIMEOUT = 2.0  # PIXIU_TIMEOUT (seconds) for these tests: the timeout fault outlasts it
RETRIES = 2
SEED_Q, SEED_A = "第一问：茅台怎么看", "第一条回复：白酒龙头。"
STATUS_LINE = r"输入 \S+ tokens · 缓存命中 \S+ · 输出 \S+ tokens · \S+ s( · \d+ 次调用)?"
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?")


@dataclass(frozen=True)
class Case:
    name: str
    faults: tuple[Fault, ...] = ()  # fault queue: the request is rejected before any reply
    replies: tuple[ScriptedReply, ...] = ()  # scripted replies (one may carry its own fault)
    message: str | None = None  # the one line the user sees; None: the turn succeeds
    retryable: bool = False
    partial: str | None = None  # reply text kept on a turn cut off mid-stream
    reply: str | None = None  # the reply of a turn that succeeds despite the fault
    tool_error: str | None = None  # the error the model gets back as the tool's result
    statuses: tuple = (None,)  # HTTP status per request of the failing (not retried) turn
    extra_env: dict = field(default_factory=dict)


def _ok(text: str) -> ScriptedReply:
    return ScriptedReply(text=text)


CASES = [
    Case(
        "402",
        faults=(Fault("http_error", status=402),),
        message="账户余额不足（402），请到服务商控制台充值。",
        statuses=(402,),
    ),
    Case(
        "429",
        faults=(Fault("http_error", status=429, retry_after=0.2),),
        retryable=True,
        message="请求过于频繁（429），已重试 0 次，请稍后再试。",
        statuses=(429,),
    ),
    Case(
        "500",
        faults=(Fault("http_error", status=500),),
        retryable=True,
        message="模型服务出错（500），已重试 0 次，请稍后再试。",
        statuses=(500,),
    ),
    Case(
        "503",
        faults=(Fault("http_error", status=503),),
        retryable=True,
        message="模型服务出错（503），已重试 0 次，请稍后再试。",
        statuses=(503,),
    ),
    Case(
        "timeout",
        faults=(Fault("timeout", seconds=TIMEOUT + 2.5),),
        retryable=True,
        message=f"模型服务响应超时（{TIMEOUT:g} 秒，",
        statuses=(None,),
    ),
    # The first streamed chunk carries only the role, so after_chunks=3 delivers two
    # 2-character pieces of text before the fault.
    # Four keep-alive comments 0.7 s apart: the reply starts after 2.8 s, longer than the
    # 2 s timeout, which is a read timeout (between bytes), so the keep-alives hold it open.
    Case(
        "keepalive",
        replies=(
            ScriptedReply(text="保持连接后的完整回复。", fault=Fault("keepalive", keepalive_lines=4, seconds=2.8)),
        ),
        reply="保持连接后的完整回复。",
        statuses=(200,),
    ),
    Case(
        "drop_stream",
        replies=(
            ScriptedReply(text="这是一段会被掐断的回复内容", chunk_chars=2, fault=Fault("drop_stream", after_chunks=3)),
        ),
        message="回复中途断开（连接提前结束），已保存收到的部分。",
        partial="这是一段",
        statuses=(200,),
    ),
    Case(
        "malformed_chunk",
        replies=(
            ScriptedReply(text="正常开头然后坏掉", chunk_chars=2, fault=Fault("malformed_chunk", after_chunks=3)),
        ),
        message="模型服务返回了无法解析的数据（JSONDecodeError），已保存收到的部分。",
        partial="正常开头",
        statuses=(200,),
    ),
    Case(
        "bad_tool_json",
        replies=(
            ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", '{"symbol": "600519"')]),
            _ok("工具参数坏了，我直接回答。"),
        ),
        reply="工具参数坏了，我直接回答。",
        tool_error="参数不是有效的 JSON",
        statuses=(200, 200),
    ),
    Case(
        "unknown_tool",
        replies=(ScriptedReply(tool_calls=[ToolCallSpec("buy_everything", "{}")]), _ok("没有这个工具，我直接回答。")),
        reply="没有这个工具，我直接回答。",
        tool_error="未知工具 'buy_everything'",
        statuses=(200, 200),
    ),
]
BY_NAME = {c.name: c for c in CASES}


def expectation(case: Case, retries: int) -> dict:
    """What one faulted turn must look like with this many retries."""
    retried = case.retryable and retries > 0
    if retried:
        return {
            "status": "complete",
            "reply": f"重试后成功：{case.name}",
            "message": None,
            "statuses": (case.statuses[0], 200),
        }
    if case.message is None:
        return {"status": "complete", "reply": case.reply, "message": None, "statuses": case.statuses}
    message = case.message.replace("已重试 0 次", f"已重试 {retries} 次")
    return {"status": "error", "reply": case.partial or "", "message": message, "statuses": case.statuses}


def script(server, case: Case, retries: int) -> None:
    server.inject(*case.faults)
    server.enqueue(*case.replies)
    if case.retryable and retries > 0:
        server.enqueue(_ok(f"重试后成功：{case.name}"))


def clean(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


def fault_env(env: dict, retries: int) -> dict:
    return dict(env, PIXIU_MAX_RETRIES=str(retries), PIXIU_TIMEOUT=str(TIMEOUT))


def conversation_messages(request) -> list[dict]:
    """The request's messages without the system prompt and the [上下文信息] blocks."""
    return [
        m
        for m in request.json["messages"][1:]
        if not (m["role"] == "user" and str(m.get("content", "")).startswith("[上下文信息]"))
    ]


def assert_well_formed(messages: list[dict]) -> None:
    """No two user questions in a row, every tool call answered, nothing dangling."""
    for before, after in zip(messages, messages[1:]):
        assert not (before["role"] == "user" and after["role"] == "user"), messages
    for i, m in enumerate(messages):
        for call in m.get("tool_calls") or []:
            answers = [n for n in messages[i + 1 :] if n.get("tool_call_id") == call["id"]]
            assert len(answers) == 1, (call, messages)
    assert messages[-1]["role"] == "user"


def assert_history_after(
    case: Case, expected: dict, messages: list[dict], question: str, earlier: list[tuple[str, str]]
) -> None:
    """The follow-up request after a faulted turn asked `question`."""
    assert_well_formed(messages)
    pairs = [m["content"] for m in messages]
    for q, a in earlier:  # the history before the fault is intact
        assert q in pairs and a in pairs, (q, a, pairs)
    if expected["status"] == "error" and not expected["reply"]:
        # a call that failed before any reply contributes nothing to later history
        assert question not in pairs
    else:
        # the question and whatever reply arrived (partial or complete) are history now
        assert question in pairs and expected["reply"] in pairs
    if case.tool_error:
        tool_results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
        assert any(r == {"ok": False, "error": r["error"]} and case.tool_error in r["error"] for r in tool_results)


def assert_stored(db_path: Path, question: str, case: Case, expected: dict) -> None:
    db = sqlite3.connect(db_path)
    add_request_function(db)
    try:
        ((turn_id, status, reply, error),) = db.execute(
            "select id, status, reply_text, error from turns where user_text = ?", [question]
        ).fetchall()
        calls = db.execute(
            "select status, error, call_request(id) from calls where turn_id = ? order by id", [turn_id]
        ).fetchall()
    finally:
        db.close()
    assert (status, reply or "") == (expected["status"], expected["reply"])
    if expected["message"]:
        assert expected["message"] in error and "\n" not in error
        assert [c[0] for c in calls] == ["error"] and expected["message"] in calls[0][1]
    else:
        assert error is None and {c[0] for c in calls} == {"complete"}
        assert len(calls) == (2 if case.tool_error else 1)  # SDK retries stay inside one call
    for _, _, request_json in calls:
        assert PLANTED_KEY not in request_json
        assert {"role": "user", "content": question} in json.loads(request_json)["messages"]


def seed(env: dict, server) -> None:
    """One completed turn, run in-process by the same code `pixiu ask` runs (setup only)."""
    from pixiu_cli.app import open_app
    from pixiu_cli.kernel.settings import load_settings

    server.enqueue(_ok(SEED_A))
    with mock.patch.dict(os.environ, env, clear=True):
        app = open_app(load_settings())
    try:
        conversation = app.store.create_conversation(model=app.settings.model).id
        assert app.agent.run_turn(conversation, SEED_Q).status == "complete"
    finally:
        app.close()


def pixiu(env, *args, timeout=60):
    """`pixiu ARGS` as a script runs it, in process: its output is a new process's."""
    return pixiu_for_result(env, *args, text=False, timeout=timeout)


# The first case stays in the fast set (-m "not slow"); the rest, one process each, are slow.
ASK_PARAMS = [
    pytest.param(c.name, 0, id=f"{c.name}-retries0", marks=[pytest.mark.slow] if i else []) for i, c in enumerate(CASES)
] + [
    pytest.param(c.name, RETRIES, id=f"{c.name}-retries{RETRIES}", marks=pytest.mark.slow) for c in CASES if c.retryable
]  # the REPL session with retries checks the others are not retried


@pytest.mark.parametrize(("name", "retries"), ASK_PARAMS)
def test_fault_through_pixiu_ask(server, online_env, pixiu_home, name, retries):
    case, env = BY_NAME[name], fault_env(online_env, retries)
    expected = expectation(case, retries)
    seed(env, server)
    mark = len(server.requests)

    question = f"出故障的问题：{name}"
    script(server, case, retries)
    done = pixiu_in_process(env, "ask", "--continue", question)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert "Traceback" not in out + err and PLANTED_KEY not in out + err and PLANTED_KEY[-8:] not in out + err
    assert tuple(r.status for r in server.requests[mark:]) == expected["statuses"]
    assert (server.pending_replies, server.pending_faults) == (0, 0)
    if expected["message"]:
        assert done.returncode == 1
        assert len(err.splitlines()) == 1 and err.startswith(f"错误：{expected['message']}"), err
        assert out.strip() == expected["reply"]  # the part that arrived was shown, nothing else
    else:
        assert done.returncode == 0 and err == ""
        assert out.strip() == expected["reply"]
    assert_stored(pixiu_home / "pixiu.db", question, case, expected)

    server.enqueue(_ok("后续回复正常。"))
    follow = pixiu_in_process(env, "ask", "--continue", "后续问题")
    assert follow.returncode == 0 and follow.stdout.decode().strip() == "后续回复正常。", follow.stderr.decode()
    assert_history_after(case, expected, conversation_messages(server.requests[-1]), question, [(SEED_Q, SEED_A)])


class Repl:
    """A REPL session in a pseudo-terminal; `turn` returns what one turn printed."""

    def __init__(self, env):
        self.child = spawn(env)
        self.child.timeout = 30
        self.log = io.StringIO()
        self.child.logfile_read = self.log
        self.child.expect(PROMPT)

    def turn(self, text: str) -> str:
        start = len(self.log.getvalue())
        self.child.send(text + "\r")
        self.child.expect(STATUS_LINE)  # printed after every turn, also after an error
        self.child.expect(PROMPT)
        return clean(self.log.getvalue()[start:])

    def close(self) -> None:
        if self.child.isalive():
            self.child.sendeof()
            self.child.expect(pexpect.EOF)

    @property
    def output(self) -> str:
        return self.log.getvalue()


@pytest.mark.slow
@pytest.mark.pty
@pytest.mark.parametrize("retries", [0, RETRIES], ids=lambda r: f"retries{r}")
def test_all_faults_in_one_repl_session(server, online_env, pixiu_home, retries):
    repl = Repl(fault_env(online_env, retries))
    try:
        server.enqueue(_ok(SEED_A))
        assert SEED_A in repl.turn(SEED_Q)
        earlier = [(SEED_Q, SEED_A)]
        for case in CASES:
            expected = expectation(case, retries)
            question = f"出故障的问题：{case.name}"
            mark = len(server.requests)
            script(server, case, retries)
            shown = repl.turn(question)
            lines = [line.strip() for line in shown.splitlines()]
            errors = [line for line in lines if line.startswith("错误：")]
            assert "Traceback" not in shown, (case.name, shown)
            assert tuple(r.status for r in server.requests[mark:]) == expected["statuses"], case.name
            assert (server.pending_replies, server.pending_faults) == (0, 0), case.name
            if expected["message"]:
                assert len(errors) == 1 and errors[0].startswith(f"错误：{expected['message']}"), (case.name, shown)
            else:
                assert errors == [] and expected["reply"] in shown, (case.name, shown)
            if expected["reply"]:
                assert expected["reply"] in shown, (case.name, shown)
            assert_stored(pixiu_home / "pixiu.db", question, case, expected)

            follow_q, follow_a = f"后续问题：{case.name}", f"后续回复：{case.name}"
            server.enqueue(_ok(follow_a))
            follow = repl.turn(follow_q)
            assert follow_a in follow and "错误：" not in follow, (case.name, follow)
            assert_history_after(case, expected, conversation_messages(server.requests[-1]), question, earlier)
            earlier.append((follow_q, follow_a))
        repl.close()
    finally:
        if repl.child.isalive():
            repl.child.terminate(force=True)
    assert PLANTED_KEY not in repl.output and PLANTED_KEY[-8:] not in repl.output
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    statuses = [s for (s,) in db.execute("select status from turns order by seq")]
    db.close()
    failing = sum(expectation(c, retries)["status"] == "error" for c in CASES)
    assert statuses.count("error") == failing and "pending" not in statuses
    assert len(statuses) == 1 + 2 * len(CASES)


# --- setup errors (the setup table in docs/troubleshooting.md) -----------------------------


def _one_line_error(done, message: str) -> None:
    err = done.stderr.decode()
    assert done.returncode == 1, (done.stdout, err)
    assert len(err.splitlines()) == 1 and err.startswith(f"错误：{message}"), err
    assert "Traceback" not in err and PLANTED_KEY not in err


def test_no_key_means_offline(offline_env):
    done = pixiu_in_process(offline_env, "ask", "你好")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.decode().startswith(
        "（离线模式：未配置 API key，以下回答由本地离线应答器根据本次请求内容生成，不是真实模型）"
    )


def test_dead_base_url_is_one_line(online_env):
    with refused_port() as port:
        base = f"http://127.0.0.1:{port}/v1"
        done = pixiu_in_process(dict(online_env, PIXIU_BASE_URL=base), "ask", "你好")
    _one_line_error(done, f"无法连接模型服务 {base}：请检查网络或 PIXIU_BASE_URL。")


def test_base_url_without_scheme_is_one_line(online_env):
    done = pixiu_in_process(dict(online_env, PIXIU_BASE_URL="localhost:8080"), "ask", "你好")
    _one_line_error(done, "设置 base_url 应为 http:// 或 https:// 开头的地址，而不是 'localhost:8080'")


def test_base_url_without_model_is_one_line(online_env):
    env = {k: v for k, v in online_env.items() if k != "PIXIU_MODEL"}
    done = pixiu_in_process(env, "ask", "你好")
    _one_line_error(done, "使用 PIXIU_BASE_URL 时请用 PIXIU_MODEL 指定模型名（例如 qwen2.5:7b）")


def test_wrong_path_in_base_url_is_404(server, online_env):
    done = pixiu_in_process(dict(online_env, PIXIU_BASE_URL=f"{server.url}/wrong/v1"), "ask", "你好")
    _one_line_error(done, "找不到模型或接口（404）：请检查模型名 deepseek-test 和 PIXIU_BASE_URL。")


def test_wrong_model_name_is_404(server, online_env):
    server.inject(Fault("http_error", status=404))  # what a provider answers for an unknown model
    done = pixiu_in_process(dict(online_env, PIXIU_MODEL="deepseek-nosuch"), "ask", "你好")
    _one_line_error(done, "找不到模型或接口（404）：请检查模型名 deepseek-nosuch 和 PIXIU_BASE_URL。")


def test_bad_key_is_401(server, online_env):
    server.inject(Fault("http_error", status=401))
    done = pixiu_in_process(online_env, "ask", "你好")
    _one_line_error(done, "API key 无效或已失效（401），请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY。")


def test_config_syntax_error_is_one_line(online_env, pixiu_home):
    (pixiu_home / "config.toml").write_text(f'model = "deepseek-chat"\napi_key = {PLANTED_KEY}\n', encoding="utf-8")
    done = pixiu_in_process(online_env, "ask", "你好")
    _one_line_error(done, f"配置文件 {pixiu_home / 'config.toml'} 格式错误：Invalid value (at line 2, column 11)")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "找不到文件 {path}"),
        ("dir", "{path} 是目录，不是文件"),
        (b"\xff\xfe{}", "{path} 不是 UTF-8 文本文件"),
        (b'{"holdings": [}', "{name} 不是有效的 JSON（第 1 行第 15 列：Expecting value）"),
        (b'{"holdings": [{"symbol": "60051"}]}', "holdings[0].symbol：应为六位股票代码，而不是 '60051'"),
    ],
    ids=["missing", "directory", "not-utf8", "bad-json", "bad-field"],
)
def test_unreadable_import_file_is_one_line(offline_env, tmp_path, content, message):
    path = tmp_path / "import.json"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    done = pixiu_in_process(offline_env, "import", str(path))
    _one_line_error(done, "导入失败，未做任何修改：" + message.format(path=path, name=path.name))


def test_import_file_without_read_permission(tmp_path, monkeypatch):
    """Root (as in CI containers) can read a chmod 000 file, so the OSError is simulated."""
    from pixiu_cli.home.document_file import DatasetError, load_document

    path = tmp_path / "import.json"
    path.write_text("{}", encoding="utf-8")

    def denied(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_text", denied)
    with pytest.raises(DatasetError) as info:
        load_document(path, None)
    assert str(info.value) == f"无法读取文件 {path}：没有权限"  # the reason in words, not the OS's English


def test_key_pasted_with_a_trailing_newline_works(server, online_env):
    server.enqueue(_ok("好的。"))
    done = pixiu_in_process(dict(online_env, PIXIU_API_KEY=f"  {PLANTED_KEY}\n"), "ask", "你好")
    assert done.returncode == 0 and done.stdout.decode().strip() == "好的。", done.stderr.decode()
    assert server.requests[-1].sent_key(PLANTED_KEY)


@pytest.mark.slow
def test_key_with_a_non_ascii_character_is_one_line(server, online_env):
    key = PLANTED_KEY[:10] + "’" + PLANTED_KEY[10:]  # a curly quote picked up from a web page
    done = pixiu_in_process(dict(online_env, PIXIU_API_KEY=key), "ask", "你好")
    _one_line_error(
        done,
        "API key 含有换行、控制字符或非 ASCII 字符（多半是复制时带入的），"
        "请检查 DEEPSEEK_API_KEY / PIXIU_API_KEY 或 config.toml。",
    )
    assert PLANTED_KEY[-8:] not in done.stderr.decode() and server.requests == []


# --- a provider that streams valid JSON of the wrong shape (the offline server cannot) ---------

WRONG_SHAPES = [
    '{"choices": "x"}',
    '{"choices": [null]}',
    "null",
    "[]",
    '"text"',
    '{"choices": [{"index": 0, "delta": {"content": 5}}]}',
    '{"choices": [{"index": 0, "delta": {"reasoning_content": {"a": 1}}}]}',
    '{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"name": 7}}]}}]}',
]


@pytest.fixture(scope="module")
def shape_server():
    """Streams one good chunk, then the chunk under test, then a normal end."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    state = {"chunk": "{}"}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            good = '{"choices": [{"index": 0, "delta": {"role": "assistant", "content": "开头"}}]}'
            end = '{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}'
            try:
                for data in (good, state["chunk"], end, "[DONE]"):
                    self.wfile.write(f"data: {data}\n\n".encode())
            except OSError:
                pass  # the client gave up on the bad chunk

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd, state
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("chunk", WRONG_SHAPES)
def test_wrongly_shaped_stream_chunk_is_one_line(shape_server, chunk):
    from pixiu_cli.conversation.llm.client import ChatClient
    from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, LLMError

    httpd, state = shape_server
    state["chunk"] = chunk
    client = ChatClient(
        base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1",
        api_key=PLANTED_KEY,
        model="m",
        provider="x",
        timeout=5,
        max_retries=0,
    )
    outcome = CallOutcome()
    with pytest.raises(LLMError) as info:
        list(client.stream(ChatRequest(messages=[{"role": "user", "content": "你好"}]), outcome))
    assert info.value.kind == "malformed" and "\n" not in str(info.value)
    assert str(info.value).startswith("模型服务返回了无法解析的数据（") and str(info.value).endswith(
        "已保存收到的部分。"
    )
    assert outcome.text == "开头"  # what arrived before is kept


# --- a 200 that is not an event stream, and a server that never finishes (hand-written server) ------


@pytest.fixture
def bad_server():
    from tests.bad_server import BadServer

    server = BadServer()
    yield server
    server.stop()


def _ask_bad(env, bad_server, *args, **extra):
    env = dict(env, PIXIU_BASE_URL=bad_server.base_url, PIXIU_MAX_RETRIES="2", **extra)
    return pixiu(env, "ask", *args)


@pytest.mark.slow
def test_200_with_a_plain_json_completion_is_the_answer(bad_server, online_env, pixiu_home):
    from tests.bad_server import completion, send_body

    bad_server.respond = lambda h: send_body(
        h,
        "application/json; charset=utf-8",
        json.dumps(completion("非流式回复也是回答。"), ensure_ascii=False).encode(),
    )
    done = _ask_bad(online_env, bad_server, "你好")
    assert done.returncode == 0 and done.stderr == b"" and done.stdout.decode().strip() == "非流式回复也是回答。"
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    assert db.execute("select status, reply_text from turns").fetchall() == [("complete", "非流式回复也是回答。")]
    db.close()


@pytest.mark.slow
def test_200_with_an_html_page_is_named_in_one_line(bad_server, online_env):
    from pixiu_cli.conversation.llm.client import HTML_PAGE
    from tests.bad_server import send_body

    page = "<html><head><title>登录以使用 Wi-Fi</title></head><body><form>…</form></body></html>".encode()
    bad_server.respond = lambda h: send_body(h, "text/html", page)
    done = _ask_bad(online_env, bad_server, "你好")
    _one_line_error(done, HTML_PAGE)
    assert bad_server.requests == 1  # a login page does not go away by asking again


@pytest.mark.slow
def test_200_with_an_html_page_under_a_json_content_type(bad_server, online_env):
    from pixiu_cli.conversation.llm.client import HTML_PAGE
    from tests.bad_server import send_body

    bad_server.respond = lambda h: send_body(h, "application/json", b"\n<!DOCTYPE html><html>portal</html>")
    _one_line_error(_ask_bad(online_env, bad_server, "你好"), HTML_PAGE)


@pytest.mark.slow
@pytest.mark.parametrize(
    "piece",
    [b": keep-alive\n\n", b'data: {"choices": [{"index": 0, "delta": {"content": "x"}}]}\n\n'],
    ids=["keep-alive-comments", "one-character-a-tick"],
)
def test_a_server_that_never_finishes_cannot_hang_ask(bad_server, online_env, pixiu_home, piece):
    import time

    from pixiu_cli.conversation.llm.client import DEADLINE
    from tests.bad_server import trickle_forever

    bad_server.respond = trickle_forever(bad_server, piece, pause=0.3)
    started = time.monotonic()
    done = _ask_bad(online_env, bad_server, "你好", PIXIU_DEADLINE_SECONDS="3")
    assert time.monotonic() - started < 15
    _one_line_error(done, DEADLINE.format(seconds=3))
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    ((status, reply),) = db.execute("select status, reply_text from turns").fetchall()
    db.close()
    assert status == "error" and (reply or "") == done.stdout.decode().strip()  # what arrived is kept


@pytest.mark.slow
def test_deadline_is_configurable_in_config_toml(online_env, pixiu_home):
    (pixiu_home / "config.toml").write_text("[llm]\ndeadline_seconds = 42\n", encoding="utf-8")
    with mock.patch.dict(os.environ, online_env, clear=True):
        from pixiu_cli.kernel.settings import load_settings

        assert load_settings().deadline_seconds == 42.0
    (pixiu_home / "config.toml").write_text("[llm]\ndeadline_seconds = -1\n", encoding="utf-8")
    _one_line_error(pixiu(online_env, "ask", "你好"), "deadline_seconds 应为正数（秒），而不是 -1")
