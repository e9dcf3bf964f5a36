"""pixiu import / export / context as a user runs them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import pixiu_for_result, pixiu_in_process

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"


def pixiu(env, *args, input_text=None, timeout=60):
    return pixiu_for_result(env, *args, input_text=input_text, timeout=timeout)


def pixiu_fast(env, *args, input_text=None):
    """Exit code and output only: the real entry point, in process."""
    return pixiu_in_process(env, *args, input_bytes=input_text.encode() if input_text else None, text=True)


def test_import_then_export_round_trip(offline_env, tmp_path):
    done = pixiu_fast(offline_env, "import", str(FIXTURE))
    assert done.returncode == 0, done.stderr
    assert "持仓（holdings）：新增 3，更新 0，保留不动 0" in done.stdout.splitlines()
    exported = json.loads(pixiu_fast(offline_env, "export").stdout)
    assert [h["symbol"] for h in exported["holdings"]] == ["600519", "002415", "300750"]
    assert len(exported["notes"]) == 4 and exported["persona"]["风险偏好"] == "稳健"
    out = tmp_path / "out.json"
    assert pixiu_fast(offline_env, "export", "-o", str(out)).returncode == 0
    assert pixiu_fast(offline_env, "import", str(out)).returncode == 0
    assert json.loads(pixiu_fast(offline_env, "export").stdout) == exported


@pytest.mark.slow
def test_bad_import_names_field_and_row_and_imports_nothing(offline_env, tmp_path, pixiu_home):
    assert pixiu(offline_env, "import", str(FIXTURE)).returncode == 0
    doc = json.loads(FIXTURE.read_text())
    doc["decisions"][1]["quantity"] = -5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc, ensure_ascii=False))
    done = pixiu(offline_env, "import", str(bad))
    assert done.returncode == 1 and "decisions[1].quantity" in done.stderr and "未做任何修改" in done.stderr
    assert done.stderr.count("\n") == 1
    broken = tmp_path / "broken.json"
    broken.write_text('{"holdings": [')
    done = pixiu(offline_env, "import", str(broken))
    assert done.returncode == 1 and "不是有效的 JSON" in done.stderr
    done = pixiu(offline_env, "import", str(tmp_path / "missing.json"))
    assert done.returncode == 1 and "找不到文件" in done.stderr
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    assert db.execute("select count(*) from decisions").fetchone()[0] == 2  # the earlier import is intact


@pytest.mark.slow
def test_context_preview_does_not_call_a_model(server, online_env):
    assert pixiu(online_env, "import", str(FIXTURE)).returncode == 0
    done = pixiu(online_env, "context", "--json", "海康现在能加仓吗")
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    assert messages[0]["role"] == "system" and messages[-1] == {"role": "user", "content": "海康现在能加仓吗"}
    assert "回踩 30 元再加仓" in messages[-2]["content"] and "标的上下文：002415" in messages[-2]["content"]
    assert server.requests == []
    table = pixiu(online_env, "context", "我的仓位配比怎么样")
    assert "持仓画像概览" in table.stdout and "tokens" in table.stdout and "profile:" in table.stdout


@pytest.mark.slow
def test_context_of_real_calls_and_diff(server, online_env):
    assert pixiu(online_env, "import", str(FIXTURE)).returncode == 0
    server.enqueue(ScriptedReply(text="海康回答"), ScriptedReply(text="组合回答"))
    assert pixiu(online_env, "ask", "海康现在能加仓吗").returncode == 0
    assert pixiu(online_env, "ask", "--continue", "我的持仓哪只适合核心仓").returncode == 0
    raw = json.loads(pixiu(online_env, "context", "--raw").stdout)
    assert raw == server.requests[-1].json  # verbatim
    diff = pixiu(online_env, "context", "--diff")
    # the previous request (system, block, question) is kept whole; the reply is appended
    assert "前 3 条消息与上次完全相同；从第 3 条（history）起是新增内容" in diff.stdout, diff.stdout
    first = pixiu(online_env, "context", "--turn", "1")
    assert "标的上下文：002415" in first.stdout and "持仓画像概览" not in first.stdout
    assert "single_stock" in first.stdout
    second = pixiu(online_env, "context")
    assert "portfolio_review" in second.stdout and "持仓画像概览" in second.stdout


@pytest.mark.slow
def test_eval_command_fails_honestly(offline_env, tmp_path):
    # that the shipped cases all pass: tests/cli/test_selection_commands.py (one run of the corpus)
    bad = tmp_path / "bad_case.json"
    bad.write_text(
        json.dumps(
            {
                "id": "deliberately-wrong",
                "category": "probe",
                "now": "2026-11-24T10:00:00+08:00",
                "dataset": "small.json",
                "message": "你好",
                "must": ["这句话不可能出现在上下文里"],
            },
            ensure_ascii=False,
        )
    )
    done = pixiu(offline_env, "eval", str(bad))
    assert done.returncode == 1 and "deliberately-wrong" in done.stdout and "0 passed, 1 failed" in done.stdout
