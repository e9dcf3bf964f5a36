"""`pixiu ask` and friends as a user runs them: exit codes and one-line messages through the
real entry point in process, and the real console script in a subprocess where the process
itself matters (pipes, stdin streaming, imports)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from tests.helpers import NOW, PIXIU_BIN, PLANTED_KEY, pixiu, pixiu_in_process


def test_ask_json_shape_online(server, online_env):
    server.enqueue(ScriptedReply(text="茅台是白酒龙头。"))
    done = pixiu_in_process(online_env, "ask", "--json", "茅台怎么样", text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["reply"] == "茅台是白酒龙头。" and out["status"] == "complete"
    assert set(out["usage"]) == {"prompt_tokens", "completion_tokens", "cache_hit_tokens", "cache_miss_tokens"}
    assert out["usage"]["prompt_tokens"] > 0 and out["usage"]["cache_hit_tokens"] == 0
    assert isinstance(out["conversation_id"], int) and isinstance(out["turn_id"], int)


@pytest.mark.slow
def test_ask_continue_and_conversation(server, online_env):
    server.enqueue(ScriptedReply(text="一"), ScriptedReply(text="二"), ScriptedReply(text="三"))
    first = json.loads(pixiu_in_process(online_env, "ask", "--json", "第一问").stdout)
    second = json.loads(pixiu_in_process(online_env, "ask", "--json", "--continue", "第二问").stdout)
    assert second["conversation_id"] == first["conversation_id"]
    assert second["usage"]["cache_hit_tokens"] > 0  # same prefix as the first call
    third = json.loads(
        pixiu_in_process(online_env, "ask", "--json", "--conversation", str(first["conversation_id"]), "第三问").stdout
    )
    assert third["conversation_id"] == first["conversation_id"]
    roles = [m["role"] for m in server.requests[-1].json["messages"] if not m["content"].startswith("[上下文信息]")]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    blocks = [m for m in server.requests[-1].json["messages"] if m["content"].startswith("[上下文信息]")]
    assert len(blocks) == 3  # each turn's block stays in history as sent (cache-friendly)


@pytest.mark.slow
def test_ask_reads_stdin_and_streams_plain_text(server, online_env):
    server.enqueue(ScriptedReply(text="来自标准输入的回答"))
    done = pixiu(online_env, "ask", "-", input_bytes="多行\n问题".encode())
    assert done.returncode == 0
    assert done.stdout.decode().strip() == "来自标准输入的回答"
    assert server.requests[-1].json["messages"][-1]["content"] == "多行\n问题"


def test_ask_rejects_invalid_utf8_and_empty(online_env):
    done = pixiu_in_process(online_env, "ask", "-", input_bytes=b"\xff\xfe\xfa")
    assert done.returncode == 1 and "UTF-8" in done.stderr.decode()
    done = pixiu_in_process(online_env, "ask", "   ")
    assert done.returncode == 1 and "为空" in done.stderr.decode()


def test_ask_unknown_conversation_is_one_line(online_env):
    done = pixiu_in_process(online_env, "ask", "--conversation", "999", "hi")
    assert done.returncode == 1
    assert done.stderr.decode().count("\n") == 1 and "999" in done.stderr.decode()


def test_provider_error_is_one_line_and_turn_kept(server, online_env, pixiu_home):
    server.inject(Fault("http_error", status=402))
    done = pixiu_in_process(online_env, "ask", "你好")
    err = done.stderr.decode()
    assert done.returncode == 1 and "余额" in err and "Traceback" not in err and PLANTED_KEY not in err
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    assert db.execute("select user_text, status from turns").fetchall() == [("你好", "error")]


def test_bad_flag_is_a_usage_error(online_env):
    done = pixiu_in_process(online_env, "ask", "--nope", "x")
    assert done.returncode == 2 and "--nope" in done.stderr.decode() and "Traceback" not in done.stderr.decode()


def test_offline_mode_without_key(offline_env):
    done = pixiu_in_process(offline_env, "ask", "--json", "我的仓位配比怎么样")
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    assert out["offline"] is True and "离线" in out["reply"] and "仓位配比" in out["reply"]


def test_help_does_not_import_openai(offline_env):
    code = (
        "import sys; sys.argv=['pixiu','--help']\n"
        "from pixiu_cli.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
        "assert 'prompt_toolkit' not in sys.modules\n"
        "assert 'jieba' not in sys.modules and 'pypinyin' not in sys.modules, 'segmenter imported'\n"
        "print('LAZY-OK')"
    )
    done = subprocess.run([sys.executable, "-c", code], env=offline_env, capture_output=True, timeout=30)
    assert b"LAZY-OK" in done.stdout, done.stderr.decode()
    assert "ask" in done.stdout.decode()


@pytest.mark.slow
def test_closed_output_pipe_completes_the_turn_and_prints_no_traceback(server, online_env, pixiu_home):
    server.enqueue(ScriptedReply(text="第一行\n" + "很长的回答。\n" * 2000, chunk_chars=50))
    shell = f"'{PIXIU_BIN}' ask 很长的问题 | head -c 10 > /dev/null"
    done = subprocess.run(["bash", "-c", shell], env=online_env, capture_output=True, timeout=60)
    assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr, done.stderr
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    # only the output was cut: the whole reply is received and stored (`ask … | head` in a script)
    assert db.execute("select user_text, status from turns").fetchall() == [("很长的问题", "complete")]
    assert db.execute("select reply_text from turns").fetchone()[0].count("很长的回答。") == 2000


@pytest.mark.slow
def test_invalid_utf8_argument_is_one_line_and_stores_nothing(online_env, pixiu_home):
    done = subprocess.run(
        [PIXIU_BIN.encode(), b"ask", b"\xff\xfe bad"], env=online_env, capture_output=True, timeout=60
    )
    assert done.returncode == 1 and "UTF-8" in done.stderr.decode() and b"Traceback" not in done.stderr
    assert (
        not (pixiu_home / "pixiu.db").exists()
        or sqlite3.connect(pixiu_home / "pixiu.db").execute("select count(*) from conversations").fetchone()[0] == 0
    )


@pytest.mark.slow
def test_deeply_nested_tool_arguments_become_a_tool_error(server, online_env):
    from pixiu_cli.conversation.offline.script import ToolCallSpec

    server.enqueue(
        ScriptedReply(
            tool_calls=[ToolCallSpec("get_holdings", "[" * 100000 + "]" * 100000)], chunk_chars=8192
        ),  # big chunks: the size under test is the arguments'
        ScriptedReply(text="换个方式"),
    )
    done = pixiu_in_process(online_env, "ask", "--json", "试试")
    assert done.returncode == 0, done.stderr.decode()
    tool = [m for m in server.requests[-1].json["messages"] if m["role"] == "tool"][0]
    assert "无法解析" in tool["content"]


def test_credentials_in_base_url_never_shown():
    from pixiu_cli.kernel.safe_text import without_credentials as _without_credentials

    assert _without_credentials("http://user:secretpw@127.0.0.1:9/v1") == "http://127.0.0.1:9/v1"
    assert _without_credentials("https://api.deepseek.com") == "https://api.deepseek.com"


@pytest.mark.slow
def test_offline_responder_records_a_reported_trade(offline_env, pixiu_home):
    offline_env = {**offline_env, "PIXIU_NOW": NOW.isoformat()}  # a trading day: a trade told on one
    fixture = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"
    assert pixiu_in_process(offline_env, "import", str(fixture)).returncode == 0
    done = pixiu_in_process(offline_env, "ask", "我今天 32.5 元买了 10 手海康")
    assert done.returncode == 0, done.stderr.decode()
    assert "已记录" in done.stdout.decode() and "离线" in done.stdout.decode()
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    account = json.loads(pixiu_in_process(offline_env, "holdings", "--json", text=True).stdout)
    assert next(h["shares"] for h in account["holdings"] if h["symbol"] == "002415") == 3000.0  # the account's
    assert db.execute("select side, price, quantity from decisions order by id desc limit 1").fetchone() == (
        "buy",
        32.5,
        1000.0,
    )


@pytest.mark.slow
def test_ask_json_carries_the_confirmation_lines_as_notices(server, online_env, pixiu_home):
    online_env = {**online_env, "PIXIU_NOW": NOW.isoformat()}  # a trading day: a trade told on one
    from pixiu_cli.conversation.offline.script import ToolCallSpec

    server.enqueue(
        ScriptedReply(
            tool_calls=[
                ToolCallSpec(
                    "remember", json.dumps({"kind": "plan", "text": "茅台跌破1500元加仓", "symbol": "600519"})
                ),
                ToolCallSpec(
                    "record_decision",
                    json.dumps({"symbol": "002415", "side": "buy", "price": 30, "quantity": 200, "name": "海康威视"}),
                ),
            ]
        ),
        ScriptedReply(text="都记下了"),
    )
    out = json.loads(pixiu_in_process(online_env, "ask", "--json", "茅台跌破1500元加仓；今天30元买了200股海康").stdout)
    assert out["status"] == "complete"
    assert out["notices"] == [
        "已记住 #n1：计划（600519） · 茅台跌破1500元加仓（/forget n1 可撤销）",
        # no fee said: the minimum commission 5 and the transfer fee 0.001% of 6,000 (0.06), estimated
        "已记录 #d1：买入 002415 200 股 @ 30，持仓 200 股，成本 30.03；费用 5.06 元（估算，导入对账单后以实际为准）"
        "（/forget d1 可撤销并恢复持仓）",
    ]
    server.enqueue(ScriptedReply(text="好"))
    assert json.loads(pixiu_in_process(online_env, "ask", "--json", "你好").stdout)["notices"] == []
