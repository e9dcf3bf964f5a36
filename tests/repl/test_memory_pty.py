"""W2-6 end to end through the real REPL, offline (the offline responder calls `remember`),
and the memory slash commands."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pexpect

from tests.conftest import PIXIU_BIN
from tests.repl.test_repl_pty import PROMPT, say, spawn

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"


def import_without_notes(env, tmp_path):
    doc = json.loads(FIXTURE.read_text())
    doc["notes"] = []
    path = tmp_path / "no_notes.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    subprocess.run([PIXIU_BIN, "import", str(path)], env=env, check=True, capture_output=True, timeout=60)


def test_w2_6_round_trip_across_sessions(offline_env, tmp_path, pixiu_home):
    import_without_notes(offline_env, tmp_path)
    first = spawn(offline_env)
    first.expect("离线模式")
    first.expect(PROMPT)
    say(first, "海康估值偏高，回踩 30 元再加仓")
    first.expect(r"已记住 #(\d+)：计划 · 海康估值偏高，回踩 30 元再加仓")
    note_id = first.match.group(1)
    first.expect(PROMPT)
    say(first, "/exit")
    first.expect(pexpect.EOF)

    second = spawn(offline_env)  # a new session, a new conversation
    second.expect(PROMPT)
    say(second, "海康现在能加仓吗")
    second.expect("你的问题是")
    second.expect(PROMPT)
    say(second, "/context")
    second.expect(f"note:{note_id}")
    second.expect(PROMPT)
    say(second, "/context --raw")
    second.expect("回踩 30 元再加仓")
    second.expect(PROMPT)
    say(second, "/exit")
    second.expect(pexpect.EOF)

    db = sqlite3.connect(pixiu_home / "pixiu.db")
    conversations = db.execute("select count(*) from conversations").fetchone()[0]
    assert conversations == 2
    request = json.loads(db.execute("select request_json from calls order by id desc limit 1").fetchone()[0])
    block = request["messages"][-2]["content"]
    assert block.startswith("[上下文信息]") and "「海康估值偏高，回踩 30 元再加仓」" in block
    assert db.execute("select source, inject_count from memory_events where id = ?", [note_id]).fetchone() == ("model", 1)


def test_memory_commands(offline_env, tmp_path, pixiu_home):
    import_without_notes(offline_env, tmp_path)
    child = spawn(offline_env)
    child.expect(PROMPT)
    say(child, "/remember 宁德跌破 150 元就减半 --kind plan --symbol 300750")
    child.expect(r"已记住 #(\d+)：计划 · 宁德跌破 150 元就减半")
    note_id = child.match.group(1)
    child.expect(PROMPT)
    say(child, "/remember")
    child.expect("要记住的内容为空")
    child.expect(PROMPT)
    say(child, "/remember 不追高 --kind idea")
    child.expect("--kind 只能是 view / plan / rule")
    child.expect(PROMPT)
    say(child, "/remember 宁德跌破150元就减半！ --kind plan --symbol 300750")
    child.expect(f"已合并到已有记忆 #{note_id}")
    child.expect(PROMPT)
    say(child, "/memory")
    child.expect("宁德跌破150元就减半")
    child.expect(PROMPT)
    say(child, "/memory edit 9999 新文本")
    child.expect("没有 ID 为 9999 的记忆")
    child.expect(PROMPT)
    say(child, f"/memory edit {note_id} 宁德跌破 140 元就减半")
    child.expect(f"已修改 #{note_id}")
    child.expect(PROMPT)
    say(child, "/memory --symbol 300750")
    child.expect("140 元")
    child.expect(PROMPT)
    say(child, "/forget abc")
    child.expect("记忆 ID 应为数字")
    child.expect(PROMPT)
    say(child, "/forget 9999")
    child.expect("没有 ID 为 9999")
    child.expect(PROMPT)
    say(child, f"/forget {note_id}")
    child.expect(f"已删除 #{note_id}")
    child.expect(PROMPT)
    say(child, "/memory 宁德")
    child.expect("没有找到记忆")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    rows = db.execute("select text, deleted_at is not null from memory_events where kind = 'user_note'").fetchall()
    assert rows == [("宁德跌破 140 元就减半", 1)]
