"""Offline mode as a user without a key runs it: one `pixiu ask` process per turn, the real
console script, the real SQLite files in PIXIU_HOME."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

from tests.helpers import NOW, PIXIU_BIN, PLANTED_KEY, clean_env, pixiu, pixiu_in_process

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"
QUESTIONS = ("我的持仓怎么样？", "海康现在能加仓吗？", "今天以 30 元买入海康威视 200 股", "宁德的回撤大吗？")


def ask(env, *args: str, in_process: bool = False) -> dict:
    """`pixiu ask --json ARGS`: a process each, unless `in_process` (where processes are not
    what is tested)."""
    done = (pixiu_in_process if in_process else pixiu)(env, "ask", "--json", *args)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def cache_calls(env, conversation: int | None = None) -> list[dict]:
    args = ["cache", "--json", *(["--conversation", str(conversation)] if conversation else [])]
    done = pixiu(env, *args)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)["calls"]


@pytest.mark.slow
def test_one_process_per_turn_hits_what_the_previous_process_stored(offline_env, pixiu_home):
    assert pixiu(offline_env, "import", str(FIXTURE)).returncode == 0
    for turn, question in enumerate(QUESTIONS):
        ask(offline_env, *(["--continue"] if turn else []), question)
    calls = cache_calls(offline_env)
    assert len(calls) >= len(QUESTIONS)
    later = calls[1:]
    # /cache predicts each call's hit from the previous request + reply; a cache that died
    # with each process reports 0 at every turn's first call, and /cache flags it.
    assert [c["break"]["flagged"] for c in calls] == [False] * len(calls)
    assert sum(c["cache_hit_tokens"] for c in later) == sum(c["break"]["predicted_hit"] for c in later) > 0
    assert (pixiu_home / "offline_cache.db").exists()


@pytest.mark.slow
def test_two_asks_at_once_share_the_cache_without_corrupting_it(offline_env, pixiu_home):
    assert pixiu(offline_env, "import", str(FIXTURE)).returncode == 0
    results: dict[str, dict] = {}

    def run(name: str, *args: str) -> None:
        results[name] = ask(offline_env, *args)

    def at_once(*jobs: tuple[str, ...]) -> None:
        threads = [threading.Thread(target=run, args=job) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)

    at_once(("a1", "我的持仓怎么样？"), ("b1", "宁德的回撤大吗？"))
    a, b = results["a1"]["conversation_id"], results["b1"]["conversation_id"]
    assert a != b
    at_once(("a2", "--conversation", str(a), "茅台呢？"), ("b2", "--conversation", str(b), "海康呢？"))
    db = sqlite3.connect(pixiu_home / "offline_cache.db")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    for conversation, name in ((a, "a2"), (b, "b2")):
        second = cache_calls(offline_env, conversation)[-1]
        assert results[name]["usage"]["cache_hit_tokens"] == second["break"]["predicted_hit"] > 0
        assert not second["break"]["flagged"]


@pytest.mark.slow
def test_the_offline_responder_reads_the_whole_conversation(offline_env, pixiu_home):
    offline_env = {**offline_env, "PIXIU_NOW": NOW.isoformat()}  # a trading day: a trade told on one
    assert pixiu_in_process(offline_env, "import", str(FIXTURE)).returncode == 0
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    notes = lambda: db.execute("select count(*) from memory_events where kind = 'user_note'").fetchone()[0]  # noqa: E731
    ask(offline_env, "我的持仓怎么样？", in_process=True)
    trade = ask(offline_env, "--continue", "今天以 30 元买入海康威视 200 股", in_process=True)
    assert db.execute("select symbol, side, price, quantity from decisions order by id desc limit 1").fetchone() == (
        "002415",
        "buy",
        30.0,
        200.0,
    ), trade["reply"]
    account = json.loads(pixiu_in_process(offline_env, "holdings", "--json", text=True).stdout)
    assert next(h["shares"] for h in account["holdings"] if h["symbol"] == "002415") == 2200.0  # the account's
    ask(offline_env, "--continue", "海康估值偏高，跌到 28 元再分批加仓", in_process=True)
    assert db.execute("select note_kind, symbol from memory_events order by id desc limit 1").fetchone() == (
        "plan",
        "002415",
    )
    before = notes()
    ask(offline_env, "--continue", "帮我回顾一下今天说过的计划", in_process=True)
    assert notes() == before


@pytest.mark.slow
def test_offline_server_used_as_an_external_server_does_not_claim_no_key(tmp_path):
    server = subprocess.Popen(
        [PIXIU_BIN, "offline-server", "--port", "0"],
        env=clean_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        line = server.stdout.readline().decode()
        base_url = line.split("：", 1)[1].split("（", 1)[0].strip()
        assert base_url.startswith("http://127.0.0.1:"), line
        home = tmp_path / "client-home"
        home.mkdir()
        env = clean_env(
            home, PIXIU_API_KEY=PLANTED_KEY, PIXIU_BASE_URL=base_url, PIXIU_MODEL="pixiu-offline", PIXIU_MAX_RETRIES="0"
        )
        reply = ask(env, "你好")
        assert reply["offline"] is False and "离线" in reply["reply"] and "不是真实模型" in reply["reply"]
        assert "未配置 API key" not in reply["reply"] and "DEEPSEEK_API_KEY" not in reply["reply"]
    finally:
        server.terminate()
        server.wait(10)
