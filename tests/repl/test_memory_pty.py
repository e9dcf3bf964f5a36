"""Memory written in conversation, end to end through the real REPL, offline (the offline
responder calls `remember`), and the memory slash commands."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pexpect
import pytest

from pixiu_cli.conversation.store import add_request_function
from tests.helpers import NOW, PIXIU_BIN, PROMPT, say, spawn

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"


def import_without_notes(env, tmp_path):
    doc = json.loads(FIXTURE.read_text())
    doc["notes"] = []
    path = tmp_path / "no_notes.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    subprocess.run([PIXIU_BIN, "import", str(path)], env=env, check=True, capture_output=True, timeout=60)


@pytest.mark.pty
@pytest.mark.slow
def test_w2_6_round_trip_across_sessions(offline_env, tmp_path, pixiu_home):
    import_without_notes(offline_env, tmp_path)
    first = spawn(offline_env)
    first.expect("离线模式")
    first.expect(PROMPT)
    say(first, "海康估值偏高，回踩 30 元再加仓")
    first.expect(r"已记住 #n(\d+)：计划(?:（\d{6}）)? · 海康估值偏高，回踩 30 元再加仓")
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

    add_request_function(db)
    conversations = db.execute("select count(*) from conversations").fetchone()[0]
    assert conversations == 2
    request = json.loads(db.execute("select call_request(id) from calls order by id desc limit 1").fetchone()[0])
    block = request["messages"][-2]["content"]
    assert block.startswith("[上下文信息]") and "「海康估值偏高，回踩 30 元再加仓」" in block
    assert db.execute("select source, inject_count from memory_events where id = ?", [note_id]).fetchone() == (
        "model",
        1,
    )


@pytest.mark.pty
@pytest.mark.slow
def test_memory_commands(offline_env, tmp_path, pixiu_home):
    import_without_notes(offline_env, tmp_path)
    child = spawn(offline_env)
    child.expect(PROMPT)
    say(child, "/remember 宁德跌破 150 元就减半 --kind plan --symbol 300750")
    child.expect(r"已记住 #n(\d+)：计划（300750） · 宁德跌破 150 元就减半（/forget n\d+ 可撤销）")
    note_id = child.match.group(1)
    child.expect(PROMPT)
    say(child, "/remember")
    child.expect("要记住的内容为空")
    child.expect(PROMPT)
    say(child, "/remember 不追高 --kind idea")
    child.expect("--kind 只能是 view、plan、rule")
    child.expect(PROMPT)
    say(child, "/remember 宁德跌破150元就减半！ --kind plan --symbol 300750")
    child.expect(f"已合并到已有记忆 #n{note_id}")
    child.expect(PROMPT)
    say(child, "/remember 宁德跌破150元就加仓 --kind plan --symbol 300750")  # the opposite plan: its own memory
    child.expect(r"已记住 #n(\d+)")
    opposite_id = child.match.group(1)
    assert opposite_id != note_id
    child.expect(PROMPT)
    say(child, "/memory")
    child.expect("宁德跌破150元就减半")
    child.expect(PROMPT)
    say(child, "/memory edit 9999 新文本")
    child.expect("没有 ID 为 9999 的记忆")
    child.expect(PROMPT)
    say(child, f"/memory edit n{note_id} 宁德跌破 140 元就减半")
    child.expect(f"已修改 #n{note_id}")
    child.expect(PROMPT)
    say(child, "/memory --symbol 300750")
    child.expect("140 元")
    child.expect(PROMPT)
    say(child, "/forget abc")
    child.expect("记忆 ID 格式不对")
    child.expect(PROMPT)
    say(child, "/forget 9999")
    child.expect("没有 ID 为 9999")
    child.expect(PROMPT)
    say(child, f"/forget {note_id}")  # the imported data set has a decision with that number too
    child.expect(f"请写明 n{note_id} 或 d{note_id}")
    child.expect(PROMPT)
    say(child, f"/forget n{note_id}")
    child.expect(f"已删除 #n{note_id}")
    child.expect(PROMPT)
    say(child, f"/forget n{opposite_id}")
    child.expect(f"已删除 #n{opposite_id}")
    child.expect(PROMPT)
    say(child, "/memory 跌破150元就减半")
    child.expect("没有找到记忆")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    rows = db.execute("select text, deleted_at is not null from memory_events where kind = 'user_note'").fetchall()
    assert rows == [("宁德跌破 140 元就减半", 1), ("宁德跌破150元就加仓", 1)]


@pytest.mark.pty
@pytest.mark.slow
def test_one_id_space_undo_a_trade_and_find_the_stock(server, online_env, tmp_path, pixiu_home):
    from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec

    online_env = {**online_env, "PIXIU_NOW": NOW.isoformat()}  # a trading day: trades are told on one
    import_without_notes(online_env, tmp_path)
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    with db:
        db.execute("insert into securities (symbol, name, kind) values ('601318', '中国平安', 'stock')")
    db.close()
    server.enqueue(
        ScriptedReply(
            tool_calls=[
                ToolCallSpec(
                    "record_decision", json.dumps({"symbol": "002415", "side": "buy", "price": 30, "quantity": 200})
                )
            ]
        ),
        ScriptedReply(text="记下了"),
    )
    child = spawn(online_env)
    child.expect(PROMPT)
    say(child, "今天以 30 元买入海康威视 200 股")
    child.expect(r"已记录 #d(\d+)：买入 002415 200 股 @ 30，持仓 2200 股")
    decision_id = child.match.group(1)
    child.expect(PROMPT)
    # notes and decisions no longer share a number: make note n<decision_id> exist too
    say(child, "/remember 海康估值偏高，等回调")
    child.expect(r"已记住 #n(\d+)：观点（002415） · 海康估值偏高")  # the stock found in the text
    child.expect(PROMPT)
    say(child, "/remember 中国平安估值低，可以关注")
    child.expect(r"已记住 #n\d+：观点（601318）")  # a name from the security master
    child.expect(PROMPT)
    say(child, "/remember 600036 先观察")
    child.expect(r"已记住 #n\d+：观点（600036）")  # a code in the text
    child.expect(PROMPT)
    say(child, "/memory --kind decision")
    child.expect(f"d{decision_id}")
    child.expect("买入 002415 200 股")
    child.expect(PROMPT)
    say(child, f"/forget d{decision_id}")
    child.expect(f"已撤销 #d{decision_id}：买入 002415 200 股 @ 30；002415 持仓恢复为 2000 股，成本 31.20")
    child.expect(PROMPT)
    say(child, f"/forget d{decision_id}")
    child.expect(f"没有 ID 为 d{decision_id} 的记忆")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    assert db.execute("select shares, cost from holdings where symbol = '002415'").fetchone() == (2000, 31.2)
    assert db.execute(
        "select count(*) from memory_events where kind = 'decision' and deleted_at is null"
    ).fetchone() == (0,)


@pytest.mark.pty
@pytest.mark.slow
def test_forget_and_edit_take_effect_in_the_same_conversation(server, online_env, tmp_path, pixiu_home):
    from pixiu_cli.conversation.offline.script import ScriptedReply

    import_without_notes(online_env, tmp_path)
    server.enqueue(ScriptedReply(text="一"), ScriptedReply(text="二"))
    child = spawn(online_env)
    child.expect(PROMPT)
    say(child, "/remember 永远不买白酒股 --kind rule")
    child.expect(r"已记住 #n(\d+)")
    rule = child.match.group(1)
    child.expect(PROMPT)
    say(child, "/remember 海康回踩 30 元再加仓 --kind plan")
    child.expect(r"已记住 #n(\d+)")
    plan = child.match.group(1)
    child.expect(PROMPT)
    say(child, "今天大盘怎么样")
    child.expect("一")
    child.expect(PROMPT)
    first = [m["content"] for m in server.requests[-1].json["messages"] if m["content"].startswith("[上下文信息]")]
    assert f"（note:{rule}）" in first[-1] and f"（note:{plan}）" in first[-1]
    say(child, f"/forget n{rule}")
    child.expect(f"已删除 #n{rule}")
    child.expect(PROMPT)
    say(child, f"/memory edit n{plan} 海康回踩 28 元再加仓")
    child.expect(f"已修改 #n{plan}")
    child.expect(PROMPT)
    say(child, "今天大盘怎么样")
    child.expect("二")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    messages = server.requests[-1].json["messages"]
    blocks = [m["content"] for m in messages if m["content"].startswith("[上下文信息]")]
    assert len(blocks) == 2 and "永远不买白酒股" in blocks[0]  # the earlier block stays as sent (cache)
    section = blocks[1].split("## 已撤回或更正", 1)[1].split("\n\n", 1)[0]
    assert f"#n{rule} 已删除" in section and "「永远不买白酒股」" in section
    assert f"#n{plan} 已更正为 「海康回踩 28 元再加仓」" in section
    assert "已撤回或更正" in messages[0]["content"]  # the system prompt says how to read it
