"""A plan's offer to replace an older one can be accepted from a script: `pixiu memory replace
ID` does what `/memory replace ID` does, and the offer itself names both."""

from __future__ import annotations

import json
from datetime import datetime

from pixiu_cli.home.document_file import SHANGHAI
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.memory import notes
from pixiu_cli.memory.handle import Memory
from tests.helpers import clean_env, in_process_ok, pixiu_in_process

NOW = "2026-12-01T10:00:00"


def _plans(home):
    db = open_database(home / "pixiu.db")
    try:
        at = datetime(2026, 11, 28, 10, tzinfo=SHANGHAI).isoformat()
        old = notes.add_note(Memory(db), notes.NewNote("plan", "宁德时代回踩30加仓", "300750", "user"), at)
        new = notes.add_note(Memory(db), notes.NewNote("plan", "宁德时代回踩28加仓", "300750", "user"), at)
    finally:
        db.close()
    return old, new


def test_memory_replace_accepts_the_offer_and_the_old_plan_leaves_the_block(tmp_path):
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=NOW)
    in_process_ok(env, "holdings")  # the home and its database
    old, new = _plans(home)
    offer = notes.note_notice(new)  # what `ask --json` carries in its notices for a script
    assert f"/memory replace n{new.event.id}" in offer and f"pixiu memory replace n{new.event.id}" in offer
    before = json.loads(in_process_ok(env, "context", "--json", "宁德时代怎么样"))[-2]["content"]
    shown_old = f"（note:{old.event.id}）"
    assert shown_old in before and "回踩28加仓" in before  # both in force until the user accepts
    said = in_process_ok(env, "memory", "replace", f"n{new.event.id}")
    assert f"已用 #n{new.event.id}「宁德时代回踩28加仓」替换旧计划 #n{old.event.id}" in said
    after = json.loads(in_process_ok(env, "context", "--json", "宁德时代怎么样"))[-2]["content"]
    assert "回踩28加仓" in after and shown_old not in after


def test_replacing_with_what_is_not_a_plan_is_one_line(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW=NOW)
    done = pixiu_in_process(env, "memory", "replace", "n99", text=True)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1 and "n99" in done.stderr
