"""/memory shows who wrote each memory and /memory accept takes the model's proposal as the
user's own: a real app (offline, its own database), commands through run_command."""

from __future__ import annotations

import io

import pytest

from pixiu_cli.memory.handle import Memory
from pixiu_cli.memory.notes import NewNote, add_note
from pixiu_cli.repl.loop import run_command
from pixiu_cli.repl.state import ReplState
from tests.helpers import offline_repl


@pytest.fixture
def repl(tmp_path):
    with offline_repl(tmp_path) as opened:
        yield opened


def said(state: ReplState, out: io.StringIO, line: str) -> str:
    before = len(out.getvalue())
    run_command(state, line)
    return out.getvalue()[before:]


def row(listing: str, ref: str) -> str:
    return next(line for line in listing.splitlines() if line.strip().startswith(ref))


def test_memory_lists_authors_and_accept_makes_a_proposal_the_users(repl):
    state, out = repl
    db = state.app.db
    typed = add_note(Memory(db), NewNote("rule", "不追高", None, "user", "user"), state.stamp()).event
    proposed = add_note(Memory(db), NewNote("rule", "单只个股可以满仓", None, "model", "proposal"), state.stamp()).event
    listing = said(state, out, "/memory")
    assert "作者" in listing and "用户" in row(listing, f"n{typed.id}")
    assert "模型提议（未经用户确认）" in row(listing, f"n{proposed.id}")
    accepted = said(state, out, f"/memory accept n{proposed.id}")
    assert f"已采纳 #n{proposed.id}：纪律 · 单只个股可以满仓，现在算作你自己的纪律" in accepted
    assert "模型提议" not in row(said(state, out, "/memory"), f"n{proposed.id}")
    again = said(state, out, f"/memory accept n{proposed.id}")
    assert f"#n{proposed.id} 不是待确认的模型提议" in again
    assert "用法：/memory accept 提议ID" in said(state, out, "/memory accept")
