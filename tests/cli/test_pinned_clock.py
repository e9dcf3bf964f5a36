"""PIXIU_NOW reaches every surface through the app's one clock: the block's 当前时间 of
`pixiu context TEXT`, the stored turn and the conversation list of `pixiu ask`, the request
`pixiu context` shows afterwards, the persona's as-of. A bad PIXIU_NOW is one
line. (The REPL: tests/repl/test_pinned_clock_pty.py.)"""

from __future__ import annotations

import json

from tests.helpers import clean_env, pixiu_in_process

PINNED = "2026-03-02T10:00:00"  # a Monday, in the morning session
TIME_LINE = "- [事实] 2026-03-02 10:00 星期一（北京时间）· 盘中 · 上午连续竞价"


def block_of(messages: list[dict]) -> str:
    return next(m["content"] for m in messages if m["content"].startswith("[上下文信息]"))


def time_section(block: str) -> list[str]:
    return block[block.index("## 当前时间") :].split("\n\n")[0].splitlines()[1:]


def test_context_text_shows_the_pinned_time(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW=PINNED)
    done = pixiu_in_process(env, "context", "你好", "--json", text=True)
    assert done.returncode == 0, done.stderr
    assert time_section(block_of(json.loads(done.stdout))) == [TIME_LINE]
    # the same moment with its offset spelled out, and the same moment seen from UTC
    for spelled in ("2026-03-02T10:00:00+08:00", "2026-03-02T02:00:00Z"):
        again = pixiu_in_process(dict(env, PIXIU_NOW=spelled), "context", "你好", "--json", text=True)
        assert time_section(block_of(json.loads(again.stdout))) == [TIME_LINE], spelled


def test_a_turn_is_sent_stored_and_listed_at_the_pinned_time(tmp_path):
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=PINNED)
    asked = pixiu_in_process(env, "ask", "你好", "--json", text=True)
    assert asked.returncode == 0, asked.stderr
    sent = pixiu_in_process(env, "context", "--json", text=True)  # the request really sent
    assert time_section(block_of(json.loads(sent.stdout))) == [TIME_LINE]
    listed = json.loads(pixiu_in_process(env, "sessions", "--json", text=True).stdout)
    assert [c["updated_at"] for c in listed] == ["2026-03-02T02:00:00.000+00:00"]  # 10:00 Beijing is 02:00 UTC
    shown = pixiu_in_process(env, "sessions", text=True).stdout
    assert "2026-03-02 10:00" in shown


def test_the_persona_is_stamped_by_the_pinned_clock(tmp_path):
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=PINNED)
    document = tmp_path / "persona.json"
    document.write_text(json.dumps({"persona": {"风格": "稳健"}}, ensure_ascii=False), encoding="utf-8")
    assert pixiu_in_process(env, "import", str(document), text=True).returncode == 0
    done = pixiu_in_process(env, "context", "我的风格是什么", "--json", text=True)
    block = block_of(json.loads(done.stdout))
    assert "- [事实 · 2026-03-02] 风格：「稳健」" in block  # the persona's as-of: when it was imported


def test_a_bad_pinned_time_is_one_line(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW="下周一")
    done = pixiu_in_process(env, "context", "你好", text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == "错误：PIXIU_NOW 应为 ISO 8601 时间（如 2026-12-01T15:30），而不是 '下周一'"
