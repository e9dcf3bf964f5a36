"""A model server that misbehaves: a reply trickling one character at a time (the command's
deadline bounds every retry), an HTML page labelled as an event stream, a body that lies
about gzip, a 503 with a negative Retry-After. Each is one clear Chinese line or a retry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import clean_env, in_process_clean


def test_ask_json_ends_within_its_deadline_however_often_a_trickling_reply_is_retried(server, online_env):
    import time

    from pixiu_cli.conversation.offline.script import ScriptedReply

    trickle = ScriptedReply(text="慢" * 400, chunk_chars=1, chunk_delay=0.02)  # 8 s at one character a time
    server.enqueue(*[trickle] * 6)
    env = dict(online_env, PIXIU_MAX_RETRIES="5", PIXIU_DEADLINE_SECONDS="2")
    started = time.monotonic()
    done = in_process_clean(env, "ask", "--json", "问题")
    elapsed = time.monotonic() - started
    out = json.loads(done.stdout)
    assert done.returncode == 1 and out["status"] == "error" and "2 秒" in out["error"]
    assert len(server.requests) == 1  # once 6 attempts, 191 s against a 30 s deadline
    import sqlite3

    conn = sqlite3.connect(Path(env["PIXIU_HOME"]) / "pixiu.db")
    calls = conn.execute("select latency_ms from calls").fetchall()
    conn.close()
    assert len(calls) == 1 and calls[0][0] < 6_000, calls  # the model's time: the 2 s deadline (+ a loaded machine)
    assert elapsed < 20, elapsed  # and the command's (start-up included, on a loaded machine)


@pytest.fixture
def bad_env(tmp_path):
    from tests.bad_server import BadServer
    from tests.helpers import PLANTED_KEY

    server = BadServer()
    env = clean_env(
        tmp_path / "home",
        PIXIU_API_KEY=PLANTED_KEY,
        PIXIU_BASE_URL=server.base_url,
        PIXIU_MODEL="deepseek-test",
        PIXIU_MAX_RETRIES="2",
    )
    yield server, env
    server.stop()


def test_html_labelled_as_an_event_stream_is_named_as_a_web_page(bad_env):
    from pixiu_cli.conversation.llm.client import HTML_PAGE
    from tests.bad_server import send_body

    server, env = bad_env
    page = b"<!DOCTYPE html><html><body>Wi-Fi login</body></html>"
    server.respond = lambda h: send_body(h, "text/event-stream", page)
    done = in_process_clean(env, "ask", "你好")
    assert done.returncode == 1 and HTML_PAGE in done.stderr and "中途断开" not in done.stderr


def test_a_body_that_lies_about_gzip_is_one_line(bad_env):
    server, env = bad_env

    def respond(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Content-Encoding", "gzip")
        handler.end_headers()
        handler.wfile.write(b"data: this is not gzip at all\n\n")
        handler.wfile.flush()

    server.respond = respond
    done = in_process_clean(env, "ask", "你好")
    assert done.returncode == 1 and "无法解压" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_503_with_a_negative_retry_after_is_retried(bad_env):
    from tests.bad_server import USAGE, chunk, send_events

    server, env = bad_env

    def respond(handler):
        if server.requests == 1:
            body = b'{"error": {"message": "busy"}}'
            handler.send_response(503)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Retry-After", "-5")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        send_events(handler, [chunk("第二次成功", role="assistant"), chunk(finish="stop"), USAGE, "[DONE]"])

    server.respond = respond
    done = in_process_clean(env, "ask", "你好")
    assert done.returncode == 0 and "第二次成功" in done.stdout and server.requests == 2
